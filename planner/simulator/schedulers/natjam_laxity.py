"""Natjam's laxity and the rules that make its evictions terminate (see `Natjam`), apart from
the scheduler's order and eviction loop."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

import numpy as np
from mypy_extensions import mypyc_attr

from planner.simulator.jobs import JobRun, SlotRun
from planner.simulator.layout import MAP, REDUCE
from planner.simulator.schedulers.base import Launch, Scheduler
from planner.simulator.schedulers.laxity_work import even_share, laxity_from, time_left, work_left

if TYPE_CHECKING:
    from planner.simulator.schedulers.laxity_order import LaxityOrder

#: Jobs of this priority level or above are production jobs; the others research.
PRODUCTION: Final = 1


@mypyc_attr(allow_interpreted_subclasses=True, serializable=True)  # `Natjam`'s base, compiled with it
class LaxityRules(Scheduler):
    """`Natjam`'s base: laxity (MLF's order), the work an attempt has left, rules 2-4, the
    attempts that may be evicted and the choice of a victim task, and a resume on the node of
    the checkpoint.

    Termination. Evictions stop on any input, by four rules:

    1. Evictions are matched by launches (every policy). ``_owed[j]`` counts the
       containers taken back for job j that j has not launched a task since; a
       job may have containers taken back for it only while that count stays
       below its pending tasks. Without it a container freed for j and taken by
       another job (j declined it under delay scheduling, or a heartbeat offered
       it later, to someone else) is taken back again min_run later, again and
       again, throwing work away each time.
    2. Eviction agrees with selection (MLF). A task is evicted only if its job,
       its laxity recomputed with the eviction done (a kill puts the task's whole
       work back, a suspension adds the resume overhead; the rate of progress
       drops with it), still ranks after the head. Otherwise the freed container
       goes straight back to the victim (the paper found the same thrashing when
       selection disagreed with eviction). This was the endless MLF kill loop:
       a job whose maps had run at twice the even share lost them, its rate fell
       to the even share, it out-ranked the head at once and relaunched, and
       min_run later the same again (1.26 million kills in 60 s).
    3. No kill is undone (MLF, kill mode). Once a task of V was killed for H, no
       task of H, nor of a job that (transitively) had tasks killed for H, is
       killed for V: the kill relation stays acyclic. Laxities drift with time,
       so without it H and V may take turns killing each other's attempts, each
       kill throwing work away (the paper's "lockstep" of MLF, affordable only
       when progress is kept).
    4. Suspensions bank progress (MLF, suspend mode). An attempt is suspended only
       once it has computed for ``banks`` = max(min_run, resume_overhead +
       MIN_RUN) seconds (a reducer still copying has computed nothing), so each
       suspension leaves its task at least ``banks - resume_overhead`` >= MIN_RUN
       seconds less work. MLF may then alternate jobs (the lockstep) but not for
       ever. With the default min_run this changes nothing for maps.

    Bounds, for T tasks in n jobs. Except under MLF with suspensions, evictions
    only go down an order of the jobs that never turns (production over
    research, MDF's deadlines, or rule 3's kills). By rule 1 the evictions made
    for the k-th job are at most its launches: its t_k tasks plus the evictions
    of its own attempts, all made for jobs above it. Weighting an eviction from
    the i-th job to the j-th (i < j) by j - i >= 1 and summing gives at most
    sum_k (n - k) t_k <= T (n - 1) evictions. MLF with suspensions: by rule 4 at
    most W / (banks - resume_overhead), W the tasks' first-attempt work."""

    jobs: list[JobRun]
    task_eviction: str
    rng: np.random.Generator
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
        return laxity_from(job, now, left, even_share(self.bound(), len(self.jobs)))

    def _running_left(self, now: float) -> dict[int, float]:
        sim = self.bound()
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
        """The victims' attempts that may be evicted now, by job index in slot order, and those
        jobs; the first time a protected one may be goes to ``_protected_until`` (if earlier).

        An attempt may be evicted once it has run ``min_run``; under MLF with suspensions (rule 4)
        also once it has computed ``banks`` seconds, never while a reducer is copying. Maps only
        with ``evict_maps``. A suspending attempt is not running. (Natjam looks at most instants
        while urgent work waits, and each look walks every slot.)"""
        sim = self.bound()
        rule4 = self.deadline_policy == "MLF" and self.mode != "kill"
        min_run, banks, protected = self.min_run, self.banks, self._protected_until
        held: dict[int, list[int]] = {}
        holders: dict[int, JobRun] = {}
        verdicts: dict[int, bool] = {}  # job index -> whether it is a victim
        suspending = sim.suspending
        for slot, item in enumerate(sim.slot_run):
            if item is None:
                continue
            run: SlotRun = item  # typed: compiled, its items are read without a lookup
            job, kind, start = run[0], run[1], run[3]
            ready = start + min_run
            if kind == MAP:
                if not self.evict_maps:
                    continue  # a map ends soon on its own (the paper evicts reduces only)
                if rule4 and start + banks > ready:
                    ready = start + banks
            elif rule4:  # a reducer computes once the job's last map ends: an event settle will see
                map_done = job.map_done
                if slot in job.copying or map_done is None:
                    ready = math.inf
                elif (start if start >= map_done else map_done) + banks > ready:
                    ready = (start if start >= map_done else map_done) + banks
            if (now < ready and ready >= protected) or (suspending and slot in suspending):
                continue  # (a suspending attempt's slot is looked up last: the dictionary costs most)
            index = job.index
            victim = verdicts.get(index)
            if victim is None:
                victim = verdicts[index] = bool(victims.includes(job))
            if not victim:
                continue
            if now >= ready:  # the very sum settle asks to be woken at
                held.setdefault(index, []).append(slot)
                holders[index] = job
            else:
                protected = ready
        self._protected_until = protected
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
        sim = self.bound()
        job, kind, _, _, _ = sim.slot_run[slot]
        return (job.map_time if kind == MAP else job.reduce_time) - time_left(sim, slot, now)

    def _key_after(self, job: JobRun, slot: int, now: float) -> tuple[float, float, str]:
        """``job``'s rank key (as in `ranked`) once the attempt on ``slot`` is evicted (rule 2)."""
        extra = self._extra.get(job.index, 0.0) + self._work_back(slot, now)
        return self.laxity(job, now, self._running, extra), job.submit, job.name

    def _eviction_cost(self, slot: int, now: float) -> float:
        """The margin (MLF) evicting the attempt on ``slot`` must leave its job above the head: its
        remaining time plus the overheads when suspended, plus the work thrown away when killed.
        A margin, not the exact change of laxity (rule 2 checks the ranking itself)."""
        sim = self.bound()
        if self.mode == "kill":
            return time_left(sim, slot, now) + (now - sim.slot_run[slot][3])
        return time_left(sim, slot, now) + self.suspend_overhead + self.resume_overhead

    def _resume_here(self, job: JobRun, node: int) -> Launch | None:
        """A suspended reduce of ``job`` that was suspended on ``node``, if any (its checkpoint is there)."""
        if not job.left or job.pending_maps or not job.reduces_open:
            return None
        for position in range(len(job.reduce_queue) - 1, -1, -1):
            task = job.reduce_queue[position]
            if job.resume_on.get((REDUCE, task)) == node and (REDUCE, task) in job.left:
                del job.reduce_queue[position]
                return job, REDUCE, task, -1
        return None

    def _by_task_policy(self, slots: list[int], now: float) -> int:
        """The victim task among ``slots`` (a job's, in slot order) by ``task_eviction``."""
        if self.task_eviction == "random":
            return slots[int(self.rng.integers(len(slots)))]
        sim = self.bound()
        remaining = [(time_left(sim, slot, now), slot) for slot in slots]
        return min(remaining)[1] if self.task_eviction == "SRT" else max(remaining)[1]


def by_containers(jobs: list[JobRun], held: dict[int, list[int]], most: bool) -> JobRun:
    """"MR": the first job holding the most containers, then the latest submitted, then the last
    name; "LR" (``most`` false): the fewest, then the latest submitted, then the first name."""
    best = jobs[0]
    for job in jobs[1:]:
        count, top = len(held[job.index]), len(held[best.index])
        if most:
            better = (count, job.submit, job.name) > (top, best.submit, best.name)
        else:
            better = (count, -job.submit, job.name) < (top, -best.submit, best.name)
        if better:
            best = job
    return best


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
