"""A MapReduce-style job: what the planners and the simulator agree a job is."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, runtime_checkable

from models.checks import as_float, as_int, as_str, shown
from models.dag import Dependency, as_dependencies
from models.errors import InvalidInput
from models.limits import MAX_BYTES, MAX_PRIORITY, MAX_SECONDS, MAX_TASKS, MAX_WEIGHT, MIN_TASK_SECONDS, MIN_WEIGHT

INTENSITIES = ("cpu", "io", "balanced")
#: The fields that count bytes (None when unknown).
BYTE_FIELDS = ("input_bytes", "shuffle_bytes", "output_bytes")
#: Named priority classes (Natjam's two classes); any integer level is also accepted.
PRIORITY_CLASSES = {"research": 0, "production": 1}


@runtime_checkable
class RuntimeProfile(Protocol):
    """Anything that predicts a job's runtime in seconds on ``n`` nodes or VMs."""

    def __call__(self, n: float) -> float: ...


@dataclass(frozen=True)
class Job:
    """One job of a batch.

    ``map_time`` and ``reduce_time`` are mean seconds per task; a job with
    ``reduce_tasks == 0`` is map-only. ``priority`` is an integer level (higher is
    more important); the names "research" (0) and "production" (1) are accepted
    and stored as their levels. ``deadline`` is absolute seconds, like ``submit``.
    ``profile`` is an optional runtime-vs-nodes model (e.g. a fitted
    `PowerLawProfile`) used by VM-level planning; a job may consist of a profile
    only (no tasks).

    ``input_bytes``, ``shuffle_bytes`` and ``output_bytes`` are what the job reads,
    moves from its maps to its reduces, and writes (None: unknown). Importers fill
    them from traces that record them (SWIM, Rumen); the simulator's network model
    moves them over the cluster's links (`SimOptions.network`).

    ``after`` names the jobs this one waits for (`models.dag.Dependency`: a name, or a name and a
    delay): it is submitted once they have all finished (plus their delays), and not before
    ``submit``. Names are checked against the batch by `Workload` (`models.dag.Precedence`).
    """

    name: str
    map_tasks: int = 0
    reduce_tasks: int = 0
    map_time: float = 0.0
    reduce_time: float = 0.0
    submit: float = 0.0
    pool: str = "default"
    weight: float = 1.0
    priority: int = 0
    deadline: float | None = None
    intensity: str = "balanced"
    input_bytes: float | None = None
    shuffle_bytes: float | None = None
    output_bytes: float | None = None
    after: tuple[Dependency, ...] = ()
    profile: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        put = object.__setattr__
        put(self, "name", as_str(self.name, "name"))
        put(self, "map_tasks", as_int(self.map_tasks, "map_tasks", minimum=0, maximum=MAX_TASKS))
        put(self, "reduce_tasks", as_int(self.reduce_tasks, "reduce_tasks", minimum=0, maximum=MAX_TASKS))
        # A phase with tasks needs a positive task time; an empty phase may say 0.
        put(self, "map_time", _time(self.map_time, "map_time", has_tasks=self.map_tasks > 0))
        put(self, "reduce_time", _time(self.reduce_time, "reduce_time", has_tasks=self.reduce_tasks > 0))
        if self.reduce_tasks > 0 and self.map_tasks == 0:
            raise InvalidInput("map_tasks", "must be >= 1 when the job has reduce tasks")
        put(self, "submit", as_float(self.submit, "submit", minimum=0.0, maximum=MAX_SECONDS))
        put(self, "pool", as_str(self.pool, "pool"))
        put(self, "weight", _weight(self.weight))
        put(self, "priority", _priority_level(self.priority))
        if self.deadline is not None:
            deadline = as_float(self.deadline, "deadline", maximum=MAX_SECONDS)
            if deadline <= self.submit:
                raise InvalidInput("deadline", f"must be after submission ({self.submit:g} s), got {deadline:g}")
            put(self, "deadline", deadline)
        put(self, "intensity", as_str(self.intensity, "intensity", choices=INTENSITIES))
        for name in BYTE_FIELDS:
            value = getattr(self, name)
            if value is not None:
                put(self, name, as_float(value, name, minimum=0.0, maximum=float(MAX_BYTES)))
        if self.shuffle_bytes and not self.reduce_tasks:
            raise InvalidInput("shuffle_bytes", "a map-only job (no reduce tasks) shuffles nothing; give 0 or leave "
                                                "it out")
        put(self, "after", as_dependencies(self.after, "after"))
        if any(dependency.job == self.name for dependency in self.after):
            raise InvalidInput("after", f"job {shown(self.name)} cannot wait for itself")
        if self.profile is not None and not callable(self.profile):
            raise InvalidInput("profile", f"must be callable as profile(n), got {type(self.profile).__name__}")
        if self.map_tasks == 0 and self.profile is None:
            raise InvalidInput("map_tasks", "a job needs at least one map task or a runtime profile")

    @property
    def map_work(self) -> float:
        """Total map slot-seconds: map_tasks * map_time."""
        return self.map_tasks * self.map_time

    @property
    def reduce_work(self) -> float:
        """Total reduce slot-seconds: reduce_tasks * reduce_time."""
        return self.reduce_tasks * self.reduce_time

    @property
    def work(self) -> float:
        return self.map_work + self.reduce_work

    def runtime(self, n: float) -> float:
        """Runtime on ``n`` nodes or VMs from the job's profile."""
        if self.profile is None:
            raise InvalidInput(f"{self.name}.profile", "the job has no runtime profile")
        value = float(self.profile(n))
        if not math.isfinite(value) or value <= 0:
            raise InvalidInput(f"{self.name}.profile", f"predicted a non-positive runtime {shown(value)} for n={n}")
        return value

    def with_changes(self, **changes: Any) -> Job:
        """A validated copy with some fields changed."""
        return replace(self, **changes)


def _priority_level(value: object) -> int:
    if isinstance(value, str):
        if value not in PRIORITY_CLASSES:
            raise InvalidInput(
                "priority", f"must be an integer level or one of {', '.join(PRIORITY_CLASSES)}; got {shown(value)}"
            )
        return PRIORITY_CLASSES[value]
    return as_int(value, "priority", minimum=-MAX_PRIORITY, maximum=MAX_PRIORITY)


def _weight(value: object) -> float:
    weight = as_float(value, "weight", above=0.0, maximum=MAX_WEIGHT)
    if weight < MIN_WEIGHT:
        raise InvalidInput("weight", f"must be >= {MIN_WEIGHT:g}, got {shown(value)}")
    return weight


def _time(value: object, field: str, *, has_tasks: bool) -> float:
    if has_tasks:
        seconds = as_float(value, field, above=0.0, maximum=MAX_SECONDS)
        if seconds < MIN_TASK_SECONDS:
            raise InvalidInput(field, f"must be >= {MIN_TASK_SECONDS:g} s (a millisecond), got {shown(value)}")
        return seconds
    return as_float(value, field, minimum=0.0, maximum=MAX_SECONDS)
