"""Capacity queues: guaranteed fractions of the cluster, FIFO or fair inside each queue.

Compiled with the simulator's core (planner/simulator/compiled.txt): a decision reads per-queue
counts kept as jobs change, by queue position and slot kind, as native lists. The queues'
settings (`Queue`) are a plain dataclass in `queues`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from mypy_extensions import mypyc_attr

from models.checks import as_list
from models.errors import InvalidInput
from planner.simulator.jobs import JobRun
from planner.simulator.layout import ANY, KIND_NAMES, MAP, REDUCE
from planner.simulator.locality import DelaySetting
from planner.simulator.schedulers.base import LaunchTuple, Scheduler
from planner.simulator.schedulers.catalog import register
from planner.simulator.schedulers.pair_ranked import PairRanked, fifo_value
from planner.simulator.schedulers.queues import Queue, as_queue
from planner.simulator.schedulers.ranked import Changes

if TYPE_CHECKING:
    from planner.simulator.core import Simulation


@mypyc_attr(allow_interpreted_subclasses=True, serializable=True)  # subclassed in Python; copied, pickled
class Capacity(Scheduler):
    """A free slot goes to the queue using the smallest fraction of its
    capacity among those with a task for it and below their maximum; inside a
    queue, jobs run by the queue's ``ordering``: FIFO (priority, submit time,
    name) or fair (fewest running tasks of the slot's kind, then submit time and
    name: YARN's FairOrderingPolicy). Jobs go to the queue named by their
    ``pool``. No preemption."""

    name = "capacity"
    settings = ("queues", "delay")

    def __init__(self, queues: Any = None, delay: DelaySetting = None) -> None:
        super().__init__(delay)
        given = [Queue("default", 1.0, 1.0)] if queues is None else as_list(queues, "queues", what="a list of queues")
        self.queues: list[Queue] = [as_queue(queue, i) for i, queue in enumerate(given)]
        names = [queue.name for queue in self.queues]
        if len(set(names)) != len(names):
            raise InvalidInput("queues", f"queue names must be unique, got {names}")
        if not self.queues:
            raise InvalidInput("queues", "needs at least one queue")
        if sum(queue.capacity for queue in self.queues) > 1.0 + 1e-9:
            raise InvalidInput("queues", "capacities add up to more than 1")
        self.members: dict[str, list[JobRun]] = {}  # by queue, in arrival order
        self._kinds: tuple[int, ...] = ()
        # By queue position, then slot kind (MAP, REDUCE, ANY): the jobs with a task for it (in the
        # queue's order), the running tasks, the guaranteed slots and the most slots the queue may hold.
        self._ranked: list[list[PairRanked]] = []
        self._fair: list[bool] = []  # by queue position: whether it orders its jobs fairly
        self._running: list[list[int]] = []
        self._guaranteed: list[list[float]] = []
        self._most: list[list[int]] = []
        self._queue_of: list[int] = []  # job index -> its queue's position
        # job index -> running tasks by kind as counted, then whether it is in each kind's order: in a
        # FIFO queue a job's place never moves, so only its coming and going is an update; in a fair
        # queue its running tasks re-key it.
        self._seen: dict[int, list[int]] = {}

    def __repr__(self) -> str:
        return f"Capacity(queues={self.queues!r}, delay={self.delay!r})"

    def describe(self) -> dict[str, Any]:
        data = super().describe()
        data["queues"] = [
            {"name": q.name, "capacity": q.capacity, "max_capacity": q.max_capacity}
            | ({"ordering": q.ordering} if q.ordering != "fifo" else {}) for q in self.queues
        ]  # a FIFO queue's record reads as before orderings existed
        return data

    def bind(self, sim: Simulation) -> None:
        super().bind(sim)
        position = {queue.name: i for i, queue in enumerate(self.queues)}
        self._queue_of = []
        for index, job in enumerate(sim.workload):
            if job.pool not in position:
                raise InvalidInput(f"jobs[{index}].pool",
                                   f"no queue named {job.pool!r}; queues: {', '.join(sorted(position))}")
            self._queue_of.append(position[job.pool])
        totals = [sim.layout.count(MAP), sim.layout.count(REDUCE), sim.layout.count(ANY)]
        self._kinds = sim.kinds_present
        self.members = {queue.name: [] for queue in self.queues}
        # Kept as jobs change (`ranked`), so that a decision costs O(queues + log jobs).
        self._changes = Changes(self._refresh)
        sim.changed = self._changes.jobs
        self._fair = [queue.ordering == "fair" for queue in self.queues]
        # (`PairRanked`: a FIFO queue's key is (-priority, order), a fair queue's (running, order).)
        self._ranked = [[PairRanked(fifo_value) for _ in totals] for _ in self.queues]
        self._running = [[0, 0, 0] for _ in self.queues]
        self._seen = {}
        self._guaranteed = [[queue.capacity * total for total in totals] for queue in self.queues]
        self._most = [[math.floor(queue.most * total + 1e-9) for total in totals] for queue in self.queues]
        used = {job.pool for job in sim.workload}
        for at, queue in enumerate(self.queues):
            for kind in self._kinds:
                if queue.name in used and self._most[at][kind] == 0:
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
        at = self._queue_of[job.index]
        running = self._running[at]
        for kind in self._kinds:
            running[kind] = running[kind] - seen[kind]
            self._ranked[at][kind].update(job, False)

    def _refresh(self, job: JobRun) -> None:
        seen = self._seen.get(job.index)
        if seen is None:
            seen = self._seen[job.index] = [0] * 6
        at = self._queue_of[job.index]
        running = self._running[at]
        fair = self._fair[at]
        for kind in self._kinds:
            now_running = job.running_of(kind)
            moved = now_running != seen[kind]
            running[kind] = running[kind] + now_running - seen[kind]
            seen[kind] = now_running
            present = 1 if job.pending(kind) > 0 else 0
            if present != seen[3 + kind] or (fair and moved and present == 1):
                seen[3 + kind] = present
                value = float(now_running) if fair else -float(job.priority)
                self._ranked[at][kind].update_value(job, present == 1, value)

    def pick(self, node: int, kind: int, now: float) -> LaunchTuple | None:
        if self._changes.jobs:
            self._changes.drain()
        # The queues that may take the slot, by (used / guaranteed, name): names are unique, so
        # the position never decides.
        order: list[tuple[float, str, int]] = []
        for at, queue in enumerate(self.queues):
            if self._ranked[at][kind].first() is None:  # no job of the queue has a task for this kind
                continue
            used = self._running[at][kind]
            if used >= self._most[at][kind]:
                continue
            guaranteed = self._guaranteed[at][kind]
            order.append((used / guaranteed if guaranteed > 0 else math.inf, queue.name, at))
        if len(order) > 1:
            order.sort()
        for _, _, at in order:
            jobs = self._ranked[at][kind]
            launch = self.scan_maps(jobs, node, now) if kind == MAP else self._scan(jobs, node, kind, now)
            if launch is not None:
                self._changes.jobs.append(launch[0])
                return launch
        return None

    def _scan(self, jobs: PairRanked, node: int, kind: int, now: float) -> LaunchTuple | None:
        """The first job of ``jobs`` that launches on a ``kind`` slot (a function of its own: the
        closure is made only here)."""
        return jobs.scan(lambda job: self.take(job, node, kind, now))


register(Capacity)  # a call, not the decorator: a compiled class takes no decorator of ours (setup.py)

__all__ = ["Capacity", "Queue"]
