"""Capacity queues: guaranteed fractions of the cluster, FIFO inside each queue."""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass

from models.checks import as_float, as_str, check_keys
from models.errors import InvalidInput
from planner.simulator.jobs import JobRun
from planner.simulator.layout import ANY, KIND_NAMES, MAP, REDUCE
from planner.simulator.schedulers.base import Launch, Scheduler, fifo_key, register


@dataclass(frozen=True)
class Queue:
    """A queue guaranteed ``capacity`` of each slot kind (a fraction of the
    cluster) and allowed up to ``max_capacity`` when other queues leave slots
    idle: ``max_capacity == capacity`` is a hard cap, 1.0 a soft one.
    ``max_capacity=None`` means 1.0."""

    name: str
    capacity: float
    max_capacity: float | None = None

    def __post_init__(self) -> None:
        as_str(self.name, "queue.name")
        capacity = as_float(self.capacity, f"queues.{self.name}.capacity", above=0.0)
        if capacity > 1.0:
            raise InvalidInput(f"queues.{self.name}.capacity", f"must be a fraction <= 1, got {capacity:g}")
        top = 1.0 if self.max_capacity is None else as_float(self.max_capacity, f"queues.{self.name}.max_capacity")
        if not capacity <= top <= 1.0:
            raise InvalidInput(
                f"queues.{self.name}.max_capacity", f"must be between capacity ({capacity:g}) and 1, got {top:g}"
            )
        object.__setattr__(self, "capacity", capacity)
        object.__setattr__(self, "max_capacity", top)


@register
class Capacity(Scheduler):
    """A free slot goes to the queue using the smallest fraction of its
    capacity among those with a task for it and below their maximum; inside a
    queue, jobs run FIFO (priority, submit time, name). Jobs go to the queue
    named by their ``pool``. No preemption."""

    name = "capacity"

    def __init__(self, queues: list[Queue] | None = None, delay=None) -> None:
        super().__init__(delay)
        if queues is None:
            queues = [Queue("default", 1.0, 1.0)]
        self.queues = [_as_queue(queue, i) for i, queue in enumerate(queues)]
        names = [queue.name for queue in self.queues]
        if len(set(names)) != len(names):
            raise InvalidInput("queues", f"queue names must be unique, got {names}")
        if not self.queues:
            raise InvalidInput("queues", "needs at least one queue")
        if sum(queue.capacity for queue in self.queues) > 1.0 + 1e-9:
            raise InvalidInput("queues", "capacities add up to more than 1")
        self.members: dict[str, list[JobRun]] = {}
        self._limits: dict[str, list[tuple[float, float]]] = {}

    def __repr__(self) -> str:
        return f"Capacity(queues={self.queues!r}, delay={self.delay!r})"

    def describe(self) -> dict:
        data = super().describe()
        data["queues"] = [
            {"name": q.name, "capacity": q.capacity, "max_capacity": q.max_capacity} for q in self.queues
        ]
        return data

    def bind(self, sim) -> None:
        super().bind(sim)
        known = {queue.name for queue in self.queues}
        for position, job in enumerate(sim.workload):
            if job.pool not in known:
                raise InvalidInput(
                    f"jobs[{position}].pool", f"no queue named {job.pool!r}; queues: {', '.join(sorted(known))}"
                )
        totals = [sim.layout.count(MAP), sim.layout.count(REDUCE), sim.layout.count(ANY)]
        self.members = {queue.name: [] for queue in self.queues}
        # Per queue and slot kind: (guaranteed slots, most slots it may hold).
        self._limits = {
            q.name: [(q.capacity * total, math.floor(q.max_capacity * total + 1e-9)) for total in totals]
            for q in self.queues
        }
        used = {job.pool for job in sim.workload}
        for queue in self.queues:
            for kind in sim.kinds_present:
                if queue.name in used and self._limits[queue.name][kind][1] == 0:
                    raise InvalidInput(
                        f"queues.{queue.name}.max_capacity",
                        f"{queue.max_capacity:g} of {totals[kind]} {KIND_NAMES[kind]} slots is less than one slot",
                    )

    def job_arrived(self, job: JobRun, now: float) -> None:
        members = self.members[job.pool]
        members.insert(bisect.bisect([fifo_key(other) for other in members], fifo_key(job)), job)

    def job_finished(self, job: JobRun, now: float) -> None:
        self.members[job.pool].remove(job)

    def pick(self, node: int, kind: int, now: float) -> Launch | None:
        ranked = []
        for queue in self.queues:
            jobs = self.members[queue.name]
            if not any(job.pending(kind) for job in jobs):
                continue
            used = sum(job.running_of(kind) for job in jobs)
            guaranteed, most = self._limits[queue.name][kind]
            if used >= most:
                continue
            ranked.append((used / guaranteed if guaranteed > 0 else math.inf, queue.name, jobs))
        ranked.sort(key=lambda item: item[:2])
        for _, _, jobs in ranked:
            for job in jobs:
                if job.pending(kind):
                    launch = self.take(job, node, kind, now)
                    if launch is not None:
                        return launch
        return None


def _as_queue(value: object, position: int) -> Queue:
    if isinstance(value, Queue):
        return value
    if isinstance(value, dict):
        check_keys(value, Queue.__dataclass_fields__, f"queues[{position}]", required=("name", "capacity"))
        return Queue(**value)
    raise InvalidInput(f"queues[{position}]", f"must be a Queue or a mapping, got {type(value).__name__}")
