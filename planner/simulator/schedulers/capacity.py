"""Capacity queues: guaranteed fractions of the cluster, FIFO inside each queue."""

from __future__ import annotations

import math
from dataclasses import dataclass

from models.checks import as_float, as_str, check_keys
from models.errors import InvalidInput
from planner.simulator.jobs import JobRun
from planner.simulator.layout import ANY, KIND_NAMES, MAP, REDUCE
from planner.simulator.schedulers.base import Launch, Scheduler, fifo_key, register
from planner.simulator.schedulers.ranked import Changes, RankedJobs


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
        self.members: dict[str, list[JobRun]] = {}  # by queue, in arrival order
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
        # Kept as jobs change (`ranked`): per queue and kind the jobs with a task for it (FIFO)
        # and the running tasks, so that a decision costs O(queues + log jobs).
        self._changes = Changes(self._refresh)
        sim.changed = self._changes.jobs
        self._ranked = {(q.name, kind): RankedJobs(fifo_key) for q in self.queues for kind in sim.kinds_present}
        self._running = {q.name: [0, 0, 0] for q in self.queues}
        # job -> running tasks by kind as counted, then whether it is in each kind's order: a job's
        # place in its queue's order never moves (FIFO), so only its coming and going is an update.
        self._seen: dict[int, list[int]] = {}
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
        self.members[job.pool].append(job)
        self._refresh(job)

    def job_finished(self, job: JobRun, now: float) -> None:
        self.members[job.pool].remove(job)
        seen = self._seen.pop(job.index, [0] * 6)
        for kind in self.sim.kinds_present:
            self._running[job.pool][kind] -= seen[kind]
            self._ranked[(job.pool, kind)].update(job, False)

    def _refresh(self, job: JobRun) -> None:
        seen = self._seen.get(job.index)
        if seen is None:
            seen = self._seen[job.index] = [0] * 6
        running = self._running[job.pool]
        for kind in self.sim.kinds_present:
            now_running = job.running_of(kind)
            running[kind] += now_running - seen[kind]
            seen[kind] = now_running
            present = 1 if job.pending(kind) > 0 else 0
            if present != seen[3 + kind]:
                seen[3 + kind] = present
                self._ranked[(job.pool, kind)].update(job, bool(present))

    def pick(self, node: int, kind: int, now: float) -> Launch | None:
        if self._changes.jobs:
            self._changes.drain()
        ranked = []
        for queue in self.queues:
            jobs = self._ranked[(queue.name, kind)]
            if jobs.first() is None:  # no job of the queue has a task for this kind
                continue
            used = self._running[queue.name][kind]
            guaranteed, most = self._limits[queue.name][kind]
            if used >= most:
                continue
            ranked.append((used / guaranteed if guaranteed > 0 else math.inf, queue.name, jobs))
        ranked.sort(key=lambda item: item[:2])
        for _, _, jobs in ranked:
            if kind == MAP:
                launch = self.scan_maps(jobs, node, now)
            else:
                launch = jobs.scan(lambda job: self.take(job, node, kind, now))
            if launch is not None:
                self._changes.jobs.append(launch[0])
                return launch
        return None


def _as_queue(value: object, position: int) -> Queue:
    if isinstance(value, Queue):
        return value
    if isinstance(value, dict):
        check_keys(value, Queue.__dataclass_fields__, f"queues[{position}]", required=("name", "capacity"))
        return Queue(**value)
    raise InvalidInput(f"queues[{position}]", f"must be a Queue or a mapping, got {type(value).__name__}")
