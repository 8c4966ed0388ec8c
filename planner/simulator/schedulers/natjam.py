"""Natjam (Cho et al.): production jobs take containers back from research jobs,
by suspending (or killing) research tasks; Natjam-R orders jobs by deadline."""

from __future__ import annotations

import heapq
import math
from typing import TYPE_CHECKING, Any, Final

import numpy as np
from mypy_extensions import mypyc_attr

from models import Job
from models.checks import as_float, as_str
from models.errors import InvalidInput
from planner.simulator.jobs import JobRun
from planner.simulator.layout import ANY, MAP
from planner.simulator.schedulers.base import Launch, fifo_key, register
from planner.simulator.schedulers.laxity_order import LaxityOrder
from planner.simulator.schedulers.natjam_laxity import PRODUCTION, LaxityRules, Victims, by_containers
from planner.simulator.schedulers.ranked import Changes, RankedJobs

if TYPE_CHECKING:
    from planner.simulator.core import Simulation

JOB_POLICIES: Final = ("MR", "LR", "PR")
TASK_POLICIES: Final = ("SRT", "LRT", "random")
DEADLINE_POLICIES: Final = ("MDF", "MLF")
#: The shortest protection from eviction (seconds): with none, an attempt evicted for a job that
#: then declines the container (delay scheduling) is relaunched and evicted again in the same instant.
MIN_RUN: Final = 0.01


@mypyc_attr(allow_interpreted_subclasses=True, serializable=True)  # subclassed in Python; copied, pickled
class Natjam(LaxityRules):
    """Dual-priority eviction on containers.

    Production jobs (``Job.priority >= 1``) come first, FIFO; then research
    jobs, those with suspended tasks to resume first, then FIFO. A suspended
    task resumes preferably on the node it was suspended on. After each
    instant, if production tasks are pending and no container is free (nor
    about to be, from a suspension in progress), research tasks are evicted, one
    per pending production task: the victim job by ``job_eviction`` ("MR" most
    containers, "LR" fewest, "PR" at random in proportion to containers held,
    seeded), then the victim task by ``task_eviction`` ("SRT" shortest remaining
    time, "LRT" longest, "random"). ``mode="suspend"`` checkpoints the task
    (``suspend_overhead`` seconds holding its container), keeps its progress and
    adds ``resume_overhead`` when it runs again; ``mode="kill"`` loses its work.
    Only reduces are evicted, as in the paper (its maps are short and end soon
    anyway); ``evict_maps=True`` evicts running maps too.

    Natjam-R (``deadline_policy``): one queue ordered by deadline ("MDF",
    selection EDF) or by laxity ("MLF", selection LLF; laxity = deadline -
    projected completion, the job's remaining work at its progress rate so
    far); when the head job has pending tasks and no container is free, tasks
    of the lowest-ranked running jobs below it are evicted. Jobs without a
    deadline rank last. MLF's order moves with the clock; it is kept as jobs
    change (`laxity_order.LaxityOrder`: bounds, and exact laxities for the few
    jobs that may come first), exactly the sort by laxity, not made at each decision.

    An attempt is evicted only after it has run ``min_run`` seconds (default
    twice the two overheads, at least `MIN_RUN`), so every start makes progress;
    under MLF a task is evicted only if its job keeps more laxity than the head
    job after paying the task's remaining time and the overheads (a margin:
    laxities move as tasks are evicted).

    Termination. Evictions stop on any input, by four rules, and their number is bounded
    (`natjam_laxity.LaxityRules` states them and the bounds).
    """

    name = "natjam"
    settings = ("job_eviction", "task_eviction", "mode", "suspend_overhead", "resume_overhead",
                "deadline_policy", "min_run", "delay", "evict_maps")
    settles = True

    # The settings are Any: they are validated here, with InvalidInput, not by a compiled type check.
    def __init__(self, job_eviction: Any = "MR", task_eviction: Any = "SRT", mode: Any = "suspend",
                 suspend_overhead: Any = 1.35, resume_overhead: Any = 3.88, deadline_policy: Any = None,
                 min_run: Any = None, delay: Any = None, evict_maps: Any = False) -> None:
        super().__init__(delay)
        self.wants_containers = True
        if not isinstance(evict_maps, bool):
            raise InvalidInput("evict_maps", f"must be true or false, got {evict_maps!r}")
        #: False (the paper's Natjam): only reduces are evicted; True: maps too.
        self.evict_maps: bool = evict_maps
        self.job_eviction = as_str(job_eviction, "job_eviction", choices=JOB_POLICIES)
        self.task_eviction = as_str(task_eviction, "task_eviction", choices=TASK_POLICIES)
        self.mode = as_str(mode, "mode", choices=("suspend", "kill"))
        self.suspend_overhead = as_float(suspend_overhead, "suspend_overhead", minimum=0.0)
        self.resume_overhead = as_float(resume_overhead, "resume_overhead", minimum=0.0)
        default_run = max(2 * (self.suspend_overhead + self.resume_overhead), MIN_RUN)
        self.min_run = default_run if min_run is None else as_float(min_run, "min_run", minimum=MIN_RUN)
        #: Rule 4: the seconds an attempt computes before MLF may suspend it (more than it adds back).
        self.banks = max(self.min_run, self.resume_overhead + MIN_RUN)
        self.deadline_policy: str | None = None if deadline_policy is None else as_str(
            deadline_policy, "deadline_policy", choices=DEADLINE_POLICIES)
        self.jobs: list[JobRun] = []
        self.rng = np.random.default_rng(0)
        self._owed: dict[int, int] = {}  # rule 1: job index -> containers taken back for it, not launched on
        self._outranks: dict[int, set[int]] = {}  # rule 3: job index -> jobs that had tasks killed for it
        # Per settle (MLF): the head's rank key, the victims' laxities less the margins paid so far,
        # the work put back into each victim job so far, and the running attempts' work left.
        self._head_key: tuple[float, float, str] = (0.0, 0.0, "")
        self._laxities: dict[int, float] = {}
        self._extra: dict[int, float] = {}
        self._running: dict[int, float] = {}
        self._start_keys: dict[int, tuple[float, float, str]] = {}  # victims' rank keys at the settle's start
        self._protected_until = math.inf
        self._wanted = 0  # containers still to take back in this settle
        self._laxity_order: LaxityOrder | None = None
        self._urgent_pending = 0
        self._seen: dict[int, int] = {}  # job -> its pending tasks, as counted
        self._placed: dict[int, int] = {}  # job -> pending (1), suspended work (2): all `_order` can change on
        self._rank: list[int] = []  # MDF: job index -> place in its order
        self._holding: list[tuple[int, int, JobRun]] = []  # MDF: (-rank, index, job)
        self._held: set[int] = set()

    def __repr__(self) -> str:
        return (f"Natjam(job_eviction={self.job_eviction!r}, task_eviction={self.task_eviction!r}, "
                f"mode={self.mode!r}, deadline_policy={self.deadline_policy!r}, evict_maps={self.evict_maps!r})")

    def describe(self) -> dict[str, Any]:
        data = super().describe()
        data.update(job_eviction=self.job_eviction, task_eviction=self.task_eviction, mode=self.mode,
                    suspend_overhead=self.suspend_overhead, resume_overhead=self.resume_overhead,
                    deadline_policy=self.deadline_policy, min_run=self.min_run, evict_maps=self.evict_maps)
        return data

    def bind(self, sim: Simulation) -> None:
        super().bind(sim)
        if sim.kinds_present != (ANY,):
            raise InvalidInput("options.containers", "Natjam schedules containers: use SimOptions(containers=True)")
        self.jobs = []
        self._owed, self._outranks = {}, {}
        # Except under MLF (laxities move with the clock), jobs with a task to launch are kept
        # in rank order as they change (`ranked`), with the production jobs' pending tasks.
        self._changes = Changes(self._refresh)
        self._order = RankedJobs(self._rank_key)
        self._urgent_pending = 0
        self._seen = {}
        self._placed = {}
        # MDF: the jobs that may hold containers (launched since last seen idle), as a heap by
        # their rank, lowest-ranked first: when none ranks below the head, nothing can be evicted.
        specs = sim.workload.jobs if self.deadline_policy == "MDF" else []
        self._rank = [0] * len(specs)  # job index -> place in MDF's order
        for rank, index in enumerate(sorted(range(len(specs)), key=lambda i: _mdf_key(specs[i]))):
            self._rank[index] = rank
        self._holding = []
        self._held = set()
        # MLF keeps its order apart (`LaxityOrder`); with the network on, attempts' ends move
        # without the simulation saying so, and MLF ranks every job at each decision instead.
        self._laxity_order = None
        if self.deadline_policy != "MLF":
            sim.changed = self._changes.jobs
        elif sim.network is None:
            self._laxity_order = self._new_laxity_order(sim)
            sim.changed = self._laxity_order.changed
        self.rng = np.random.default_rng([sim.seed, 0x4E4A])  # PR draws: seeded, apart from the placement streams

    def _new_laxity_order(self, sim: Simulation) -> LaxityOrder:
        """MLF's kept order over ``self.jobs`` (a method: a subclass may watch it)."""
        return LaxityOrder(sim, self.jobs)

    def job_arrived(self, job: JobRun, now: float) -> None:
        self.jobs.append(job)
        if self.deadline_policy != "MLF":
            self._changes.jobs.append(job)
        elif self._laxity_order is not None:
            self._laxity_order.arrive(job)

    def job_finished(self, job: JobRun, now: float) -> None:
        self.jobs.remove(job)
        self._order.update(job, False)
        if self._laxity_order is not None:
            self._laxity_order.finish(job)
        if job.priority >= PRODUCTION:
            self._urgent_pending -= self._seen.get(job.index, 0)
        self._seen.pop(job.index, None)
        self._owed.pop(job.index, None)  # its kills stay in _outranks: rule 3's order is over the whole run

    def job_has_work(self, job: JobRun) -> None:
        if self._laxity_order is not None:
            self._laxity_order.changed.append(job)

    # -- order ---------------------------------------------------------------------------
    def _rank_key(self, job: JobRun) -> tuple[Any, ...]:
        """A job's place in `ranked` (all policies but MLF, whose order moves with the clock)."""
        if self.deadline_policy == "MDF":
            return _mdf_key(job)
        return (job.priority < PRODUCTION, job.priority < PRODUCTION and not job.left, *fifo_key(job))

    def _refresh(self, job: JobRun) -> None:
        pending = job.pending(ANY)
        if job.priority >= PRODUCTION:
            self._urgent_pending += pending - self._seen.get(job.index, 0)
        self._seen[job.index] = pending
        if self._placed.get(job.index) != (placed := (pending > 0) + 2 * bool(job.left)):
            self._placed[job.index] = placed
            self._order.update(job, pending > 0)
        if self.deadline_policy == "MDF" and any(job.running) and job.index not in self._held:
            self._held.add(job.index)
            heapq.heappush(self._holding, (-self._rank[job.index], job.index, job))

    def _held_below(self, head: JobRun) -> bool:
        """MDF: whether a job ranked below ``head`` may hold a container (a victim's precondition)."""
        holding = self._holding
        while holding and not any(holding[0][2].running):
            self._held.discard(heapq.heappop(holding)[1])
        return bool(holding) and -holding[0][0] > self._rank[head.index]

    def ranked(self, now: float) -> list[JobRun]:
        """Every unfinished job, most important first."""
        if self.deadline_policy == "MLF":
            return self._by_laxity(now)
        return sorted(self.jobs, key=self._rank_key)

    def _by_laxity(self, now: float) -> list[JobRun]:
        remaining = self._running_left(now)
        return sorted(self.jobs, key=lambda job: (self.laxity(job, now, remaining), job.submit, job.name))

    # -- assignment ---------------------------------------------------------------------------
    def pick(self, node: int, kind: int, now: float) -> Launch | None:
        def attempt(job: JobRun) -> Launch | None:
            return self._resume_here(job, node) or self.take(job, node, kind, now)

        if self._laxity_order is not None:
            launch = self._laxity_order.scan(now, attempt)  # the jobs with a task to launch, in order
        elif self.deadline_policy == "MLF":
            launch = None
            for job in self.ranked(now):
                if job.pending(kind):
                    launch = attempt(job)
                    if launch is not None:
                        break
        else:
            if self._changes.jobs:
                self._changes.drain()
            launch = self._order.scan(attempt)
        if launch is not None:
            job = launch[0]
            if self._laxity_order is not None:
                self._laxity_order.launched(job, node)
            elif self.deadline_policy != "MLF":
                self._changes.jobs.append(job)
            owed = self._owed.get(job.index)
            if owed:  # rule 1: a container taken back for this job is used
                self._owed[job.index] = owed - 1
        return launch

    # -- eviction -------------------------------------------------------------------------------
    def settle(self, now: float) -> float | None:
        sim = self.bound()
        urgent: list[JobRun] | None
        if self.deadline_policy != "MLF":
            if self._changes.jobs:
                self._changes.drain()
            if self.deadline_policy is None:
                if self._urgent_pending <= sim.free_count[ANY] + len(sim.suspending):
                    return None  # the usual case: no production task waits for a container
                urgent = None  # the production jobs in rank order, met one by one (below)
                victims = Victims(_research, self._rank_key)
            else:
                head = self._order.first()
                if head is None or not self._held_below(head):
                    return None  # no victim can exist (the walk below would find none)
                urgent, victims = [head], self._ranked_below(self._rank_key(head))
        elif self._laxity_order is not None:
            head = self._laxity_order.first(now)
            if head is None or head.pending(ANY) <= sim.free_count[ANY] + len(sim.suspending):
                return None  # nothing to take back (the usual case)
            self._running, self._laxities, self._extra, self._start_keys = {}, {}, {}, {}
            self._head_key = (self._laxity_at_start(head, now), head.submit, head.name)
            urgent, victims = [head], self._after_head(head, now)
        else:
            order = self.ranked(now)
            head = next((job for job in order if job.pending(ANY)), None)
            if head is None:
                return None
            position = order.index(head)
            urgent, victims = [head], Victims.listed(order[position + 1 :])
            if self.deadline_policy == "MLF":
                self._running = running_left = self._running_left(now)
                self._head_key = (self.laxity(head, now, running_left), head.submit, head.name)
                self._laxities = {job.index: self.laxity(job, now, running_left) for job in victims.jobs}
                self._extra = {}
        pending = self._urgent_pending if urgent is None else urgent[0].pending(ANY)
        self._wanted = pending - sim.free_count[ANY] - len(sim.suspending)
        self._protected_until = math.inf
        stop = (self._take_back_in_order(victims, now) if urgent is None
                else self._take_back(urgent[0], victims, now))
        # Look again when a protected attempt has run min_run (and, rule 4, banked enough):
        # nothing else may happen then.
        return None if stop is None or stop == math.inf else stop

    # Victims and the walk over the production jobs, each a method of its own: a compiled function
    # builds its closures when entered, whichever branch it takes.
    def _ranked_below(self, head_key: tuple[Any, ...]) -> Victims:
        """MDF: the jobs whose rank key is above ``head_key``."""
        return Victims(lambda job: self._rank_key(job) > head_key, self._rank_key)

    def _after_head(self, head: JobRun, now: float) -> Victims:
        """MLF with the kept order: every other job with a task to launch ranks after the head (the
        first of them), and the others by their rank key at the settle's start."""
        return Victims(lambda job: (job is not head and job.pending(ANY) > 0)
                       or self._start_key(job, now) > self._head_key, lambda job: self._start_key(job, now))

    def _take_back_in_order(self, victims: Victims, now: float) -> float | None:
        """The production jobs in rank order, as far as the evictions go (the first job left
        without a victim ends the round): never a walk over every waiting job."""
        return self._order.scan(lambda job: self._take_back(job, victims, now) if job.priority >= PRODUCTION
                                else math.inf)

    def _take_back(self, job: JobRun, victims: Victims, now: float) -> float | None:
        """Evict for ``job`` up to the containers still wanted; None to go on to the next job, or
        the time to look again (inf: never) when the round is over."""
        sim = self.bound()
        # Rule 1: no more containers taken back for a job than it has pending tasks not yet
        # covered by containers already taken back for it.
        for _ in range(min(self._wanted, job.pending(ANY) - self._owed.get(job.index, 0))):
            slot = self._victim(job, victims, now)
            if slot is None:
                return self._protected_until
            victim = sim.slot_run[slot][0]
            if self.mode == "kill":
                if self.deadline_policy == "MLF":
                    self._outranks.setdefault(job.index, set()).add(victim.index)
                sim.kill(slot, now)
            else:
                sim.suspend(slot, now, self.suspend_overhead, self.resume_overhead)
            if self._laxity_order is not None:  # its attempt's time left changed (a checkpoint, or gone)
                self._laxity_order.changed.append(victim)
            self._owed[job.index] = self._owed.get(job.index, 0) + 1
            self._wanted -= 1
        return math.inf if self._wanted <= 0 else None

    def _victim(self, head: JobRun, victims: Victims, now: float) -> int | None:
        held, holders = self._holders(victims, now)
        job = (self._lowest_ranked(head, holders, victims) if self.deadline_policy is not None
               else self._by_job_policy(sorted(holders.values(), key=victims.rank), held))  # in rank order
        if job is None:
            return None
        slots = sorted(held[job.index])
        if self.deadline_policy == "MLF":
            # The margin: the job keeps more slack than the head after losing the task's remaining
            # time and the overheads. Rule 2: and it still ranks after the head once evicted.
            slack = self._laxities[job.index] - self._head_key[0]
            slots = [slot for slot in slots
                     if slack > self._eviction_cost(slot, now) and self._key_after(job, slot, now) > self._head_key]
            if not slots:
                return None
            chosen = self._by_task_policy(slots, now)
            self._laxities[job.index] = self._laxities[job.index] - self._eviction_cost(chosen, now)
            self._extra[job.index] = self._extra.get(job.index, 0.0) + self._work_back(chosen, now)
            return chosen
        return self._by_task_policy(slots, now)

    def _lowest_ranked(self, head: JobRun, holders: dict[int, JobRun], victims: Victims) -> JobRun | None:
        """Natjam-R: the lowest-ranked job holding containers that may be evicted (keys are unique:
        the last of a sort by rank); under MLF one that keeps more laxity than the head, and in
        kill mode (rule 3) not ranked above it by kills."""
        lowest: JobRun | None = None
        lowest_key: Any = None
        for job in holders.values():
            key = victims.rank(job)  # first: under MLF it also starts the job's entry in _laxities
            if self.deadline_policy == "MLF" and (self._laxities[job.index] <= self._head_key[0] or (
                    self.mode == "kill" and self._kills_ranked(job.index, head.index))):
                continue
            if lowest is None or key > lowest_key:
                lowest, lowest_key = job, key
        return lowest

    def _by_job_policy(self, candidates: list[JobRun], held: dict[int, list[int]]) -> JobRun | None:
        """Natjam: the victim job by ``job_eviction`` among ``candidates`` (in rank order), if any."""
        if not candidates:
            return None
        if self.job_eviction in ("MR", "LR"):
            return by_containers(candidates, held, self.job_eviction == "MR")
        weights = np.array([len(held[j.index]) for j in candidates], dtype=float)
        return candidates[int(self.rng.choice(len(candidates), p=weights / weights.sum()))]


def _research(job: JobRun) -> bool:
    return job.priority < PRODUCTION


def _mdf_key(job: Job | JobRun) -> tuple[float, float, str]:
    """MDF's order: deadline (none: last), then submission, then name (a job spec or its run)."""
    return (_deadline(job), job.submit, job.name)


def _deadline(job: Job | JobRun) -> float:
    return math.inf if job.deadline is None else job.deadline


register(Natjam)  # a call, not the decorator: a compiled class takes no decorator of ours (setup.py)

__all__ = ["DEADLINE_POLICIES", "JOB_POLICIES", "MAP", "TASK_POLICIES", "Natjam"]
