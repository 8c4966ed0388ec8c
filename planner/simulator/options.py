"""Options of a task-level simulation run (everything but the scheduler)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from models.checks import as_float, as_int, key_name, shown
from models.errors import InvalidInput
from models.job import INTENSITIES
from models.limits import MAX_SECONDS, MAX_SLOTS_PER_NODE, MAX_TASKS, MIN_TASK_SECONDS
from planner.limits import MAX_LOCALITY_FACTOR, MAX_TASK_TIME_CV

#: How much longer a rack-local map runs than a node-local one, by job intensity.
RACK_FACTOR = MappingProxyType({"cpu": 1.05, "balanced": 1.2, "io": 1.5})
#: How much longer an off-rack map runs than a node-local one, by job intensity.
OFF_RACK_FACTOR = MappingProxyType({"cpu": 1.1, "balanced": 1.5, "io": 2.5})


@dataclass(frozen=True)
class SimOptions:
    """What the simulated cluster does besides scheduling.

    - ``reduce_slowstart``: a job's reduces may launch once this fraction of its
      maps is done (Hadoop's ``mapred.reduce.slowstart.completed.maps``; 1.0
      waits for every map).
    - ``task_time_cv``: 0 runs every task for its job's mean time; > 0 draws
      lognormal task times with that coefficient of variation (seeded per job).
    - ``rack_factor`` / ``off_rack_factor``: slowdown of rack-local and off-rack
      maps by job intensity (defaults `RACK_FACTOR`, `OFF_RACK_FACTOR`).
    - ``containers``: every slot runs either kind (YARN-style containers); a
      node has map_slots + reduce_slots of them.
    - ``assign_multiple``: a heartbeat fills every free slot of its node;
      False launches at most one map and one reduce per heartbeat.
    - ``task_times``: measured times of particular tasks, replayed instead of
      drawn: ``{job name: {"map": [seconds, ...], "reduce": [...]}}``, one per
      task of that kind (e.g. from a Rumen trace).
    - ``copy_compute``: ``(max_reducers, max_computing)`` splits reduce slots
      into copy and compute capacity (Zaharia et al.): a node holds up to
      max_reducers reducers, at most max_computing of them computing; a job
      holds at most max_computing copying reducers per node.
    - ``network``: move bytes over the cluster's links (`Cluster.network_gbps`,
      ``rack_oversubscription``) for jobs that know them: a remote map reads its
      block over the network, a reducer copies its share of the map outputs
      before it computes (see the Simulator page, "The network"). Jobs without
      bytes keep the locality factors and a copy that ends with their last map.
    - ``stage_delay``: a job's reduces open this many seconds after the map that
      opens them (0: at once). Spark's driver submits a job's next stage a few
      milliseconds after its map stage's last task ends, and hands that task's
      core to another stage meanwhile (`planner.io.spark.conf.SPARK_STAGE_DELAY`).
    """

    reduce_slowstart: float = 1.0
    task_time_cv: float = 0.0
    rack_factor: Mapping[str, float] = field(default_factory=lambda: dict(RACK_FACTOR))
    off_rack_factor: Mapping[str, float] = field(default_factory=lambda: dict(OFF_RACK_FACTOR))
    containers: bool = False
    assign_multiple: bool = True
    copy_compute: tuple[int, int] | None = None
    task_times: Mapping[str, Mapping[str, Sequence[float]]] | None = None
    network: bool = False
    stage_delay: float = 0.0

    def __post_init__(self) -> None:
        put = object.__setattr__
        slowstart = as_float(self.reduce_slowstart, "reduce_slowstart", minimum=0.0)
        if slowstart > 1.0:
            raise InvalidInput("reduce_slowstart", f"must be <= 1, got {shown(self.reduce_slowstart)}")
        put(self, "reduce_slowstart", slowstart)
        put(self, "task_time_cv", as_float(self.task_time_cv, "task_time_cv", minimum=0.0, maximum=MAX_TASK_TIME_CV))
        put(self, "rack_factor", _factors(self.rack_factor, "rack_factor", RACK_FACTOR))
        put(self, "off_rack_factor", _factors(self.off_rack_factor, "off_rack_factor", OFF_RACK_FACTOR))
        for name in ("containers", "assign_multiple", "network"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidInput(name, f"must be true or false, got {shown(getattr(self, name))}")
        if self.task_times is not None:
            put(self, "task_times", _task_times(self.task_times))
        put(self, "stage_delay", as_float(self.stage_delay, "stage_delay", minimum=0.0, maximum=MAX_SECONDS))
        if self.copy_compute is not None:
            put(self, "copy_compute", _copy_compute(self.copy_compute))
            if self.containers:
                raise InvalidInput("copy_compute", "applies to typed reduce slots, not to containers")

    def __reduce__(self) -> tuple[Any, tuple[dict[str, Any]]]:
        # Read-only mappings do not pickle; rebuild from plain data (worker processes, Dask).
        return (_from_plain, (self.to_dict(),))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SimOptions:
        unknown = sorted(set(data) - set(cls.__dataclass_fields__))
        if unknown:
            raise InvalidInput(unknown[0], f"unknown option; known: {', '.join(cls.__dataclass_fields__)}")
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        data = {
            "reduce_slowstart": self.reduce_slowstart,
            "task_time_cv": self.task_time_cv,
            "rack_factor": dict(self.rack_factor),
            "off_rack_factor": dict(self.off_rack_factor),
            "containers": self.containers,
            "assign_multiple": self.assign_multiple,
            "copy_compute": list(self.copy_compute) if self.copy_compute else None,
            "network": self.network,
            "task_times": None if self.task_times is None else {
                name: {kind: list(times) for kind, times in kinds.items()} for name, kinds in self.task_times.items()
            },
        }
        if self.stage_delay:  # written when set: results of runs without it read as before
            data["stage_delay"] = self.stage_delay
        return data


def _factors(value: object, name: str, defaults: Mapping[str, float]) -> MappingProxyType:
    if not isinstance(value, Mapping):
        raise InvalidInput(name, f"must map intensities ({', '.join(INTENSITIES)}) to factors, got {shown(value)}")
    unknown = sorted((key for key in value if key not in INTENSITIES), key=str)
    if unknown:
        raise InvalidInput(f"{name}.{key_name(unknown[0])}",
                           f"unknown intensity; known: {', '.join(INTENSITIES)}")
    merged = dict(defaults)
    for key, factor in value.items():
        merged[key] = as_float(factor, f"{name}.{key}", minimum=1.0, maximum=MAX_LOCALITY_FACTOR)
    return MappingProxyType(merged)


def _copy_compute(value: object) -> tuple[int, int]:
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise InvalidInput("copy_compute", f"must be (max_reducers, max_computing), got {shown(value)}")
    reducers = as_int(value[0], "copy_compute.max_reducers", minimum=1, maximum=MAX_SLOTS_PER_NODE)
    computing = as_int(value[1], "copy_compute.max_computing", minimum=1, maximum=MAX_SLOTS_PER_NODE)
    if computing > reducers:
        raise InvalidInput("copy_compute.max_computing", f"must be <= max_reducers ({reducers}), got {computing}")
    return reducers, computing


def _task_times(value: object) -> MappingProxyType:
    if not isinstance(value, Mapping):
        raise InvalidInput("task_times", f"must map job names to {{'map': [...], 'reduce': [...]}}, got {shown(value)}")
    checked = {}
    for name, kinds in value.items():
        where = f"task_times.{key_name(name)}"
        if not isinstance(kinds, Mapping) or set(kinds) - {"map", "reduce"}:
            raise InvalidInput(where, "must map 'map' and/or 'reduce' to lists of seconds")
        for kind, times in kinds.items():
            if not isinstance(times, Sequence) or isinstance(times, str) or len(times) > MAX_TASKS:
                raise InvalidInput(f"{where}.{kind}", f"must be a list of at most {MAX_TASKS:,} seconds")
        checked[name] = MappingProxyType({
            kind: tuple(as_float(t, f"{where}.{kind}[{i}]", minimum=MIN_TASK_SECONDS, maximum=MAX_SECONDS)
                        for i, t in enumerate(times))
            for kind, times in kinds.items()
        })
    return MappingProxyType(checked)


def _from_plain(data: dict[str, Any]) -> SimOptions:
    if data.get("copy_compute") is not None:
        data = {**data, "copy_compute": tuple(data["copy_compute"])}
    return SimOptions(**data)
