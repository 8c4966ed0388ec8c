"""Natjam's laxity and the rules that make its evictions terminate (see `Natjam`), apart from
the scheduler's order and eviction loop."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from planner.simulator.jobs import JobRun
from planner.simulator.layout import MAP, REDUCE

if TYPE_CHECKING:
    from planner.simulator.core import Simulation

#: Jobs of this priority level or above are production jobs; the others research.
PRODUCTION = 1


class LaxityRules:
    """A mixin of `Natjam`: laxity (MLF's order), the work an attempt has left, and rules 2-4."""

    sim: Simulation
    jobs: list[JobRun]
    mode: str
    deadline_policy: str | None
    min_run: float
    banks: float
    suspend_overhead: float
    resume_overhead: float
    _outranks: dict[int, set[int]]
    _extra: dict[int, float]
    _running: dict[int, float]

    def laxity(self, job: JobRun, now: float, running_left: dict[int, float] | None = None,
               extra: float = 0.0) -> float:
        """Deadline minus projected completion: the job's remaining work (plus ``extra`` seconds,
        what evictions would put back) at the rate it has progressed so far (at least its even
        share of the containers)."""
        if job.deadline is None:
            return math.inf
        if running_left is None:
            running_left = self._running_left(now)
        spec = job.job
        left = (job.pending_maps * spec.map_time + job.pending_reduces * spec.reduce_time
                + running_left.get(job.index, 0.0) + extra)
        for (kind, _), seconds in job.left.items():  # suspended tasks: their work left, not a whole task
            left += seconds - (spec.map_time if kind == MAP else spec.reduce_time)
        total = job.maps * spec.map_time + job.reduces * spec.reduce_time
        elapsed = now - job.start if job.start is not None else 0.0
        # A job that has not run long has no rate of its own yet: count on its even share of the cluster.
        share = self.sim.layout.slots / max(len(self.jobs), 1)
        rate = max((total - left) / elapsed if elapsed > 0 else 0.0, share)
        return job.deadline - (now + left / rate)

    def _running_left(self, now: float) -> dict[int, float]:
        sim = self.sim
        left: dict[int, float] = {}
        for slot in sim.running_slots():
            job = sim.slot_run[slot][0]
            left[job.index] = left.get(job.index, 0.0) + self._remaining(slot, now)
        return left

    def _remaining(self, slot: int, now: float) -> float:
        """Seconds the attempt on ``slot`` has left (a reducer still copying: its whole compute)."""
        sim = self.sim
        job, kind, task, _, _ = sim.slot_run[slot]
        if kind == REDUCE and (slot in job.copying or slot in sim.compute_queue[sim.slot_node[slot]]):
            return job.reduce_times[task]
        return max(sim.slot_end[slot] - now, 0.0)

    def _evictable_at(self, slot: int) -> float:
        """When the attempt on ``slot`` may first be evicted: once it has run ``min_run``; under MLF
        with suspensions, also once it has computed ``banks`` seconds (rule 4; never while copying)."""
        sim = self.sim
        job, kind, _, start, _ = sim.slot_run[slot]
        ready = start + self.min_run
        if self.deadline_policy != "MLF" or self.mode == "kill":
            return ready
        if kind == MAP:
            return max(ready, start + self.banks)
        if slot in job.copying or job.map_done is None:
            return math.inf  # it computes once the job's last map ends: an event settle will see
        return max(ready, max(start, job.map_done) + self.banks)

    def _kills_ranked(self, above: int, below: int) -> bool:
        """Whether kills made for job ``above`` reach job ``below`` (rule 3), directly or through others."""
        seen, stack = {above}, [above]
        while stack:
            for job in self._outranks.get(stack.pop(), ()):
                if job == below:
                    return True
                if job not in seen:
                    seen.add(job)
                    stack.append(job)
        return False

    def _work_back(self, slot: int, now: float) -> float:
        """Seconds of work evicting the attempt on ``slot`` puts back into its job's laxity: killed,
        its task is pending again (counted at the job's mean task time) instead of its remaining
        time; suspended, it resumes with the resume overhead added."""
        if self.mode == "suspend":
            return self.resume_overhead
        job, kind, _, _, _ = self.sim.slot_run[slot]
        spec = job.job
        return (spec.map_time if kind == MAP else spec.reduce_time) - self._remaining(slot, now)

    def _key_after(self, job: JobRun, slot: int, now: float) -> tuple[float, float, str]:
        """``job``'s rank key (as in `ranked`) once the attempt on ``slot`` is evicted (rule 2)."""
        extra = self._extra.get(job.index, 0.0) + self._work_back(slot, now)
        return self.laxity(job, now, self._running, extra), job.submit, job.name

    def _eviction_cost(self, slot: int, now: float) -> float:
        """The margin (MLF) evicting the attempt on ``slot`` must leave its job above the head: its
        remaining time plus the overheads when suspended, plus the work thrown away when killed.
        A margin, not the exact change of laxity (rule 2 checks the ranking itself)."""
        if self.mode == "kill":
            return self._remaining(slot, now) + (now - self.sim.slot_run[slot][3])
        return self._remaining(slot, now) + self.suspend_overhead + self.resume_overhead


class Victims:
    """The jobs ranked below the one a container is taken back for: a test and their order
    (from the kept order), or (MLF) the list itself."""

    def __init__(self, includes: Callable[[JobRun], bool], rank: Callable[[JobRun], Any],
                 jobs: list[JobRun] | None = None) -> None:
        self.includes = includes
        self.rank = rank
        self.jobs = jobs or []

    @classmethod
    def listed(cls, jobs: list[JobRun]) -> Victims:
        places = {job.index: position for position, job in enumerate(jobs)}
        return cls(lambda job: job.index in places, lambda job: places[job.index], jobs)
