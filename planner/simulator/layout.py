"""Where things are: slots on nodes, nodes in racks, input blocks on nodes."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from functools import cached_property
from typing import Final

import numpy as np

from models import Cluster
from models.checks import as_int
from models.errors import InvalidInput
from models.limits import MAX_TOTAL_SLOTS


class TaskKind(IntEnum):
    """What a task is, and what a slot runs: a map, a reduce, or either (a container)."""

    MAP = 0
    REDUCE = 1
    ANY = 2


# `TaskKind`'s values as the compiled code compares them: mypyc makes an IntEnum member an object
# (a comparison is a Python call) and inlines a Final int (tests/test_scheduler_surface.py checks
# that they agree).
MAP: Final = 0
REDUCE: Final = 1
ANY: Final = 2
KIND_NAMES = ("map", "reduce", "any")


@dataclass(frozen=True)
class Layout:
    """Slots and racks of a simulated cluster.

    Racks split the nodes evenly (the first ``nodes % racks`` racks hold one
    more). ``slot_node[s]`` and ``slot_kind[s]`` say where slot ``s`` is and
    what it runs (MAP, REDUCE, or ANY for containers).
    """

    nodes: int
    racks: int
    rack_of: tuple[int, ...]
    rack_array: np.ndarray
    rack_start: np.ndarray
    rack_size: np.ndarray
    slot_node: tuple[int, ...]
    slot_kind: tuple[int, ...]

    @property
    def slots(self) -> int:
        return len(self.slot_node)

    def count(self, kind: int) -> int:
        return sum(1 for k in self.slot_kind if k == kind)

    @cached_property
    def rack_starts(self) -> tuple[int, ...]:
        """``rack_start`` as Python ints (read for every job's locality index)."""
        return tuple(self.rack_start.tolist())

    @cached_property
    def rack_sizes(self) -> tuple[int, ...]:
        """``rack_size`` as Python ints (read for every job's block placement)."""
        return tuple(self.rack_size.tolist())

    @cached_property
    def replicas_never_clash(self) -> bool:
        """Two racks or more, each of two nodes or more: HDFS's second replica (another rack than
        the first's) and third (another node of the second's rack) can never land on a node
        holding one already (`place_blocks` then skips the check)."""
        return self.racks > 1 and int(self.rack_size.min()) > 1


def spread(total: int, nodes: int) -> list[int]:
    """``total`` slots over ``nodes`` as evenly as possible (first nodes get the extra ones)."""
    base, extra = divmod(total, nodes)
    return [base + (1 if node < extra else 0) for node in range(nodes)]


def node_slots(total_map: int, total_reduce: int, nodes: int) -> tuple[list[int], list[int]]:
    """Map and reduce slots per node of a split. Reduce slots fill from the last node, so that the
    nodes with an extra map slot are the ones short of a reduce slot: a split of the cluster's own
    slots keeps every node at its hardware's slot count (48:32 on 20 nodes of 4: 8 nodes 3+1, 12
    nodes 2+2), as a TaskTracker configuration can (`planner export` writes it so)."""
    return spread(total_map, nodes), spread(total_reduce, nodes)[::-1]


def check_slots(cluster: Cluster, slots: object, *, containers: bool = False) -> tuple[int, int]:
    """``slots = (map, reduce)``: totals that replace the cluster's, a split of its slots (never
    more than it has), with a map slot at least unless slots are containers."""
    if not isinstance(slots, (tuple, list)) or len(slots) != 2:
        raise InvalidInput("slots", f"must be (map_slots, reduce_slots), got {slots!r}")
    total_map = as_int(slots[0], "slots.map", minimum=0, maximum=MAX_TOTAL_SLOTS)
    total_reduce = as_int(slots[1], "slots.reduce", minimum=0, maximum=MAX_TOTAL_SLOTS - total_map)
    if total_map + total_reduce == 0 or (total_map == 0 and not containers):
        raise InvalidInput("slots.map", f"must be >= 1, got {total_map}")
    if total_map + total_reduce > cluster.total_slots:
        raise InvalidInput("slots", f"{total_map:,} + {total_reduce:,} = {total_map + total_reduce:,} slots; the "
                                    f"cluster has {cluster.total_slots:,} ({cluster.nodes:,} nodes x "
                                    f"{cluster.map_slots + cluster.reduce_slots})")
    return total_map, total_reduce


def build_layout(
    cluster: Cluster,
    *,
    slots: tuple[int, int] | None = None,
    containers: bool = False,
    reducers_per_node: int | None = None,
) -> Layout:
    nodes = cluster.nodes
    if slots is None:
        maps = [cluster.map_slots] * nodes
        reduces = [cluster.reduce_slots] * nodes
    else:
        total_map, total_reduce = check_slots(cluster, slots, containers=containers)
        maps, reduces = node_slots(total_map, total_reduce, nodes)
    if reducers_per_node is not None:
        reduces = [reducers_per_node] * nodes
    slot_node: list[int] = []
    slot_kind: list[int] = []
    for node in range(nodes):
        if containers:
            slot_node += [node] * (maps[node] + reduces[node])
            slot_kind += [ANY] * (maps[node] + reduces[node])
        else:
            slot_node += [node] * (maps[node] + reduces[node])
            slot_kind += [MAP] * maps[node] + [REDUCE] * reduces[node]
    sizes = spread(nodes, cluster.racks)
    rack_of = tuple(rack for rack, size in enumerate(sizes) for _ in range(size))
    rack_size = np.array(sizes, dtype=np.int64)
    rack_start = np.concatenate(([0], np.cumsum(rack_size)[:-1])).astype(np.int64)
    return Layout(nodes, cluster.racks, rack_of, np.asarray(rack_of, dtype=np.int64), rack_start, rack_size, tuple(slot_node), tuple(slot_kind))


def place_blocks(rng: np.random.Generator, blocks: int, layout: Layout, replication: int) -> np.ndarray:
    """Replica nodes of ``blocks`` input blocks, shape (blocks, min(replication, nodes)).

    HDFS's default policy: the first replica on a random node, the second on a
    node of another rack, the third on another node of the second's rack, any
    further ones on random nodes; replicas of a block are on distinct nodes
    (a proposal that collides, possible only with one rack or a one-node rack,
    is redrawn uniformly).
    """
    copies = min(replication, layout.nodes)
    rack_of = layout.rack_array
    chosen = [rng.integers(0, layout.nodes, blocks)]
    never_clash = layout.replicas_never_clash
    for copy in range(1, copies):
        if layout.racks > 1 and copy == 1:
            rack = (rack_of[chosen[0]] + rng.integers(1, layout.racks, blocks)) % layout.racks
            proposal = _within(rng, rack, layout)
        elif layout.racks > 1 and copy == 2:
            # The second's rack: ``rack``, unless a clash redrew some of the second replicas.
            proposal = _beside(rng, chosen[1], rack if never_clash else rack_of[chosen[1]], layout)
        else:
            proposal = rng.integers(0, layout.nodes, blocks)
        if not (never_clash and copy <= 2):  # (a check that cannot fire draws nothing: skipped)
            clash = np.zeros(blocks, dtype=bool)
            for previous in chosen:
                clash |= proposal == previous
            while clash.any():
                proposal[clash] = rng.integers(0, layout.nodes, int(clash.sum()))
                clash = np.zeros(blocks, dtype=bool)
                for previous in chosen:
                    clash |= proposal == previous
        chosen.append(proposal)
    return np.stack(chosen, axis=1)


def _within(rng: np.random.Generator, rack: np.ndarray, layout: Layout) -> np.ndarray:
    offset = np.floor(rng.random(rack.shape[0]) * layout.rack_size[rack]).astype(np.int64)
    return layout.rack_start[rack] + offset


def _beside(rng: np.random.Generator, nodes: np.ndarray, rack: np.ndarray, layout: Layout) -> np.ndarray:
    """Another node of each node's rack, ``rack`` (the node itself when it is alone in its rack)."""
    size = layout.rack_size[rack]
    start = layout.rack_start[rack]
    others = np.maximum(size - 1, 1)
    step = 1 + np.floor(rng.random(len(nodes)) * others).astype(np.int64)
    return np.where(size > 1, start + (nodes - start + step) % size, nodes)
