"""The cluster a batch runs on."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from models.checks import as_float, as_int, as_mapping, check_keys, shown
from models.errors import InvalidInput
from models.fileio import dump_mapping, read_mapping
from models.limits import (
    MAX_DISKS,
    MAX_HEARTBEAT,
    MAX_NETWORK_GBPS,
    MAX_NODES,
    MAX_OVERCOMMIT_PENALTY,
    MAX_OVERSUBSCRIPTION,
    MAX_PRIMARIES_PER_EXTRA,
    MAX_REPLICATION,
    MAX_SLOTS_PER_NODE,
    MAX_TOTAL_SLOTS,
    MAX_VMS,
    MIN_HEARTBEAT,
    MIN_NETWORK_GBPS,
)

#: The fields of the network, with the defaults that leave fingerprints as they were before it.
NETWORK_DEFAULTS = {"network_gbps": 1.0, "rack_oversubscription": 1.0}


@dataclass(frozen=True)
class Cluster:
    """Machines, their slots and the VM-level packing parameters.

    ``map_slots`` and ``reduce_slots`` are per node. ``disks`` is k, the number
    of primary VMs per machine (one per disk, as in the Packing paper);
    ``primaries_per_extra`` is r, how many primary VMs share one overcommitted
    extra VM; ``overcommit_penalty`` is alpha, the slowdown of jobs that run
    overcommitted. ``heartbeat`` is the task-tracker report interval in seconds
    (0 offers a slot the moment it frees). ``replication`` is the HDFS block
    replication; the simulator places at most ``nodes`` replicas.

    The network (used when a simulation's ``SimOptions.network`` is on):
    ``network_gbps`` is each node's link to its rack switch, in Gbit/s, each way
    (default 1, the clusters of the papers); a rack's uplink carries its nodes'
    total divided by ``rack_oversubscription`` (default 1, non-blocking; Zaharia
    et al. report up to 10 in 2009's data centres).
    """

    nodes: int
    map_slots: int = 2
    reduce_slots: int = 2
    racks: int = 1
    disks: int = 2
    primaries_per_extra: int = 2
    overcommit_penalty: float = 1.3
    heartbeat: float = 3.0
    replication: int = 3
    network_gbps: float = 1.0
    rack_oversubscription: float = 1.0

    def __post_init__(self) -> None:
        put = object.__setattr__
        put(self, "nodes", as_int(self.nodes, "nodes", minimum=1, maximum=MAX_NODES))
        put(self, "map_slots", as_int(self.map_slots, "map_slots", minimum=1, maximum=MAX_SLOTS_PER_NODE))
        put(self, "reduce_slots", as_int(self.reduce_slots, "reduce_slots", minimum=1, maximum=MAX_SLOTS_PER_NODE))
        if self.total_slots > MAX_TOTAL_SLOTS:
            raise InvalidInput("nodes", f"the cluster has {self.total_slots:,} slots (nodes x (map_slots + "
                                        f"reduce_slots)); at most {MAX_TOTAL_SLOTS:,}")
        put(self, "racks", as_int(self.racks, "racks", minimum=1, maximum=MAX_NODES))
        if self.racks > self.nodes:
            raise InvalidInput("racks", f"must be <= nodes ({self.nodes}), got {self.racks}")
        put(self, "disks", as_int(self.disks, "disks", minimum=1, maximum=MAX_DISKS))
        if self.vms > MAX_VMS:
            raise InvalidInput("disks", f"the cluster has {self.vms:,} VMs (nodes x disks); at most {MAX_VMS:,}")
        put(self, "primaries_per_extra",
            as_int(self.primaries_per_extra, "primaries_per_extra", minimum=1, maximum=MAX_PRIMARIES_PER_EXTRA))
        put(self, "overcommit_penalty", as_float(self.overcommit_penalty, "overcommit_penalty", minimum=1.0,
                                                 maximum=MAX_OVERCOMMIT_PENALTY))
        heartbeat = as_float(self.heartbeat, "heartbeat", minimum=0.0, maximum=MAX_HEARTBEAT)
        if 0 < heartbeat < MIN_HEARTBEAT:
            raise InvalidInput("heartbeat", f"must be 0 (no heartbeat) or >= {MIN_HEARTBEAT:g} s, got "
                                            f"{shown(self.heartbeat)}")
        put(self, "heartbeat", heartbeat)
        put(self, "replication", as_int(self.replication, "replication", minimum=1, maximum=MAX_REPLICATION))
        put(self, "network_gbps", as_float(self.network_gbps, "network_gbps", minimum=MIN_NETWORK_GBPS,
                                           maximum=MAX_NETWORK_GBPS))
        put(self, "rack_oversubscription", as_float(self.rack_oversubscription, "rack_oversubscription",
                                                    minimum=1.0, maximum=MAX_OVERSUBSCRIPTION))

    @property
    def total_map_slots(self) -> int:
        return self.nodes * self.map_slots

    @property
    def total_reduce_slots(self) -> int:
        return self.nodes * self.reduce_slots

    @property
    def total_slots(self) -> int:
        """S: all map and reduce slots of the cluster."""
        return self.total_map_slots + self.total_reduce_slots

    @property
    def vms(self) -> int:
        """N = nodes * k primary VMs."""
        return self.nodes * self.disks

    @property
    def extra_vms(self) -> int:
        """Overcommitted extra VMs the cluster can host: nodes * k // r."""
        return self.vms // self.primaries_per_extra

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: object) -> Cluster:
        """A cluster from a mapping of its fields; unknown keys are rejected."""
        mapping = as_mapping(data, "")
        check_keys(mapping, _FIELDS, "", required=("nodes",))
        return cls(**mapping)

    @classmethod
    def from_file(cls, path: str | Path) -> Cluster:
        """Load a YAML or JSON cluster file (see README, "Cluster files")."""
        return _from_file(path, cls.from_dict)

    def to_file(self, path: str | Path) -> None:
        """Write the cluster as YAML or JSON (by suffix), atomically."""
        dump_mapping(self.to_dict(), path)

    def with_changes(self, **changes: Any) -> Cluster:
        return replace(self, **changes)


_FIELDS = tuple(Cluster.__dataclass_fields__)


#: Nodes per rack when a node file does not say (`Node.nodes_per_rack`): a rack of 40 machines.
DEFAULT_NODES_PER_RACK = 40


@dataclass(frozen=True)
class Node:
    """One machine of a cluster whose size is to be decided (``planner size --node NODE.yaml``):
    every field of a `Cluster` but ``nodes`` and ``racks``, which the size gives, and
    ``nodes_per_rack`` (racks are filled in turn: n nodes make ceil(n / nodes_per_rack) racks).
    ``template`` is the one-node cluster that holds the machine's fields."""

    template: Cluster
    nodes_per_rack: int = DEFAULT_NODES_PER_RACK

    def __post_init__(self) -> None:
        if not isinstance(self.template, Cluster):
            raise InvalidInput("template", f"must be a Cluster, got {type(self.template).__name__}")
        put = object.__setattr__
        put(self, "template", self.template.with_changes(nodes=1, racks=1))
        put(self, "nodes_per_rack", as_int(self.nodes_per_rack, "nodes_per_rack", minimum=1, maximum=MAX_NODES))

    def cluster(self, nodes: int) -> Cluster:
        """The cluster of ``nodes`` such machines."""
        nodes = as_int(nodes, "nodes", minimum=1, maximum=MAX_NODES)
        return self.template.with_changes(nodes=nodes, racks=-(-nodes // self.nodes_per_rack))

    @classmethod
    def of(cls, cluster: Cluster) -> Node:
        """A cluster's machine, with the cluster's nodes per rack (rounded up)."""
        return cls(cluster, -(-cluster.nodes // cluster.racks))

    def to_dict(self) -> dict[str, Any]:
        fields = {k: v for k, v in self.template.to_dict().items() if k not in ("nodes", "racks")}
        return {**fields, "nodes_per_rack": self.nodes_per_rack}

    @classmethod
    def from_dict(cls, data: object) -> Node:
        """A node from a mapping of a cluster's fields but ``nodes`` and ``racks``, and
        ``nodes_per_rack``; unknown keys are rejected."""
        mapping = dict(as_mapping(data, ""))
        for key in ("nodes", "racks"):
            if key in mapping:
                raise InvalidInput(key, "a node file describes one machine; the size gives the nodes and racks "
                                        "(racks: nodes_per_rack): remove it")
        check_keys(mapping, (*(f for f in _FIELDS if f not in ("nodes", "racks")), "nodes_per_rack"), "")
        per_rack = mapping.pop("nodes_per_rack", DEFAULT_NODES_PER_RACK)
        return cls(Cluster(nodes=1, **mapping), per_rack)

    @classmethod
    def from_file(cls, path: str | Path) -> Node:
        """Load a YAML or JSON node file."""
        return _from_file(path, cls.from_dict)


def _from_file(path: str | Path, make: Any) -> Any:
    """``make`` (a ``from_dict``) of the mapping in ``path``; its errors name the file."""
    data = read_mapping(path)
    try:
        return make(data)
    except InvalidInput as error:
        raise error.in_file(str(path)) from None
