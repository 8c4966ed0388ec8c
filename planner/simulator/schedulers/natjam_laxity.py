"""Natjam's laxity and the rules that make its evictions terminate (see `Natjam`), apart from
the scheduler's order and eviction loop."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from planner.simulator.jobs import JobRun
from planner.simulator.layout import MAP
from planner.simulator.schedulers.evictable import evictable
from planner.simulator.schedulers.laxity_work import laxity_from, time_left, work_left

if TYPE_CHECKING:
    from planner.simulator.core import Simulation
    from planner.simulator.schedulers.laxity_order import LaxityOrder

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
    evict_maps: bool
    _outranks: dict[int, set[int]]
    _extra: dict[int, float]
    _running: dict[int, float]
    _laxities: dict[int, float]
    _start_keys: dict[int, tuple[float, float, str]]
    _protected_until: float
    _laxity_order: LaxityOrder | None

    def laxity(self, job: JobRun, now: float, running_left: dict[int, float] | None = None,
               extra: float = 0.0) -> float:
        """Deadline minus projected completion: the job's remaining work (plus ``extra`` seconds,
        what evictions would put back) at the rate it has progressed so far (at least its even
        share of the containers)."""
        if job.deadline is None:
            return math.inf
        if running_left is None:
            running_left = self._running_left(now)
        left = work_left(job, running_left.get(job.index, 0.0), extra)
        return laxity_from(job, now, left, self.sim.layout.slots / max(len(self.jobs), 1))

    def _running_left(self, now: float) -> dict[int, float]:
        sim = self.sim
        left: dict[int, float] = {}
        for slot in sim.running_slots():
            job = sim.slot_run[slot][0]
            left[job.index] = left.get(job.index, 0.0) + time_left(sim, slot, now)
        return left

    def _start_key(self, job: JobRun, now: float) -> tuple[float, float, str]:
        """MLF: ``job``'s rank key when the settle began (computed when first needed: no job
        changes before it is first looked at), which also starts its laxity in `_laxities`."""
        key = self._start_keys.get(job.index)
        if key is None:
            laxity = self._laxities[job.index] = self._laxity_at_start(job, now)
            key = self._start_keys[job.index] = (laxity, job.submit, job.name)
        return key

    def _laxity_at_start(self, job: JobRun, now: float) -> float:
        """MLF: ``job``'s laxity, its running attempts' time left noted in `_running` (as
        `_running_left` at the settle's start: the same sums, taken before any eviction of it)."""
        if job.index not in self._running and self._laxity_order is not None:
            self._running[job.index] = self._laxity_order.running(job, now)
        return self.laxity(job, now, self._running)

    def _holders(self, victims: Victims, now: float) -> tuple[dict[int, list[int]], dict[int, JobRun]]:
        """The victims' attempts that may be evicted now and those jobs (`evictable`, with rule 4
        under MLF with suspensions); the first time a protected one may be goes to ``_protected_until``."""
        held, holders, self._protected_until = evictable(
            self.sim, victims.includes, now, self.min_run, self.banks,
            self.deadline_policy == "MLF" and self.mode != "kill", self.evict_maps, self._protected_until)
        return held, holders

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
        return (job.map_time if kind == MAP else job.reduce_time) - time_left(self.sim, slot, now)

    def _key_after(self, job: JobRun, slot: int, now: float) -> tuple[float, float, str]:
        """``job``'s rank key (as in `ranked`) once the attempt on ``slot`` is evicted (rule 2)."""
        extra = self._extra.get(job.index, 0.0) + self._work_back(slot, now)
        return self.laxity(job, now, self._running, extra), job.submit, job.name

    def _eviction_cost(self, slot: int, now: float) -> float:
        """The margin (MLF) evicting the attempt on ``slot`` must leave its job above the head: its
        remaining time plus the overheads when suspended, plus the work thrown away when killed.
        A margin, not the exact change of laxity (rule 2 checks the ranking itself)."""
        if self.mode == "kill":
            return time_left(self.sim, slot, now) + (now - self.sim.slot_run[slot][3])
        return time_left(self.sim, slot, now) + self.suspend_overhead + self.resume_overhead


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
