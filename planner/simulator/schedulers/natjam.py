"""Natjam (Cho et al.): production jobs take containers back from research jobs,
by suspending (or killing) research tasks; Natjam-R orders jobs by deadline."""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, cast

import numpy as np
from librt.vecs import vec
from mypy_extensions import mypyc_attr

from models import Job
from models.checks import as_float, as_str
from models.errors import InvalidInput
from planner.simulator.jobs import JobRun, SlotRun
from planner.simulator.layout import ANY, MAP, REDUCE
from planner.simulator.locality import DelaySetting
from planner.simulator.schedulers.base import LaunchTuple, Scheduler, fifo_key
from planner.simulator.schedulers.catalog import register
from planner.simulator.schedulers.natjam_laxity import LaxityOrder, even_share, laxity_from, time_left, work_left
from planner.simulator.schedulers.ranked import Changes, RankedJobs

if TYPE_CHECKING:
    from planner.simulator.core import Simulation

#: Jobs of this priority level or above are production jobs; the others research.
PRODUCTION: Final = 1
JOB_POLICIES: Final = ("MR", "LR", "PR")
TASK_POLICIES: Final = ("SRT", "LRT", "random")
DEADLINE_POLICIES: Final = ("MDF", "MLF")
#: The shortest protection from eviction (seconds): with none, an attempt evicted for a job that
#: then declines the container (delay scheduling) is relaunched and evicted again in the same instant.
MIN_RUN: Final = 0.01


@mypyc_attr(allow_interpreted_subclasses=True, serializable=True)  # subclassed in Python; copied, pickled
class Natjam(Scheduler):
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
    change (`natjam_laxity.LaxityOrder`: bounds, and exact laxities for the few
    jobs that may come first), exactly the sort by laxity, not made at each decision.

    An attempt is evicted only after it has run ``min_run`` seconds (default
    twice the two overheads, at least `MIN_RUN`), so every start makes progress;
    under MLF a task is evicted only if its job keeps more laxity than the head
    job after paying the task's remaining time and the overheads (a margin:
    laxities move as tasks are evicted).

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
    most W / (banks - resume_overhead), W the tasks' first-attempt work.
    """

    name = "natjam"
    settings = ("job_eviction", "task_eviction", "mode", "suspend_overhead", "resume_overhead",
                "deadline_policy", "min_run", "delay", "evict_maps")
    settles = True

    def __init__(self, job_eviction: Any = "MR", task_eviction: Any = "SRT", mode: Any = "suspend",
                 suspend_overhead: Any = 1.35, resume_overhead: Any = 3.88, deadline_policy: Any = None,
                 min_run: Any = None, delay: DelaySetting = None, evict_maps: Any = False) -> None:
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
        self._tied = False  # MDF with dependencies: `_rank` is by deadline alone (ties may rank either way)
        self._holding: list[tuple[int, int, JobRun]] = []  # MDF: (-rank, index, job)
        self._held: set[int] = set()
        # Slot -> the attempt (its `SlotRun`, by identity) whose `_ready` time is kept, and that time.
        self._ready_runs: list[object] = []
        self._ready_at = vec[float]()  # a typed column: a read makes no float object

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
        # With dependencies a job's submission is its arrival, unknown here: its place is its
        # deadline's, and a job of the same deadline may rank below it (`_held_below`).
        self._tied = sim.dependent
        if self._tied:
            places = {deadline: place for place, deadline in enumerate(sorted({_deadline(spec) for spec in specs}))}
            for index, spec in enumerate(specs):
                self._rank[index] = places[_deadline(spec)]
        else:
            for rank, index in enumerate(sorted(range(len(specs)), key=lambda i: _mdf_key(specs[i]))):
                self._rank[index] = rank
        self._holding = []
        self._held = set()
        self._ready_runs = [None] * sim.slot_count
        self._ready_at = vec[float]([math.inf] * sim.slot_count)
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
        if not holding:
            return False
        lowest, rank = -holding[0][0], self._rank[head.index]
        return lowest > rank or (self._tied and lowest == rank)

    def ranked(self, now: float) -> list[JobRun]:
        """Every unfinished job, most important first."""
        if self.deadline_policy == "MLF":
            return self._by_laxity(now)
        return sorted(self.jobs, key=self._rank_key)

    def _by_laxity(self, now: float) -> list[JobRun]:
        remaining = self._running_left(now)
        return sorted(self.jobs, key=lambda job: (self.laxity(job, now, remaining), job.submit, job.name))

    # -- assignment ---------------------------------------------------------------------------
    def pick(self, node: int, kind: int, now: float) -> LaunchTuple | None:
        def attempt(job: JobRun) -> LaunchTuple | None:
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
            if self._none_ready(now):
                return None  # no attempt may be evicted now, and the wake-up asked for comes first
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
        """The attempt to evict next for ``head`` (the caller evicts it), or None. The victims'
        attempts that may be evicted are found once per settle (`_holders`, kept on ``victims``)
        and the chosen one leaves them: an eviction changes no other attempt's readiness nor any
        job's verdict (only a victim's own tasks go back), and nothing launches during a settle."""
        if victims.held is None:
            victims.held, victims.holders = self._holders(victims, now)
        held, holders = victims.held, victims.holders
        job = (self._lowest_ranked(head, holders, victims) if self.deadline_policy is not None
               else self._by_job_policy(sorted(holders.values(), key=victims.rank), held))  # in rank order
        if job is None:
            return None
        mine = held[job.index]  # in slot order
        slots = mine
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
        else:
            chosen = self._by_task_policy(slots, now)
        mine.remove(chosen)
        if not mine:
            del held[job.index]
            del holders[job.index]
        return chosen

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

    # -- laxity, rules 2-4, the attempts that may be evicted, the victim task, a resume on the node of the checkpoint
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
        protected = self._protected_until
        held: dict[int, list[int]] = {}
        holders: dict[int, JobRun] = {}
        verdicts: dict[int, bool] = {}  # job index -> whether it is a victim
        suspending, slot_run = sim.suspending, sim.slot_run
        for slot in range(len(slot_run)):
            item: object = slot_run[slot]  # not unpacked: `_ready` knows the attempt by its tuple
            if item is None:
                continue
            ready = self._ready(item, slot, rule4)
            if (now < ready and ready >= protected) or (suspending and slot in suspending):
                continue  # (a suspending attempt's slot is looked up last: the dictionary costs most)
            run: SlotRun = cast(SlotRun, item)  # typed: compiled, its items are read without a lookup
            job = run[0]
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

    def _ready(self, item: object, slot: int, rule4: bool) -> float:
        """When the attempt ``run`` in ``slot`` may first be evicted (`_holders`): once it has run
        ``min_run``; with ``rule4`` also once it has computed ``banks`` seconds (a reducer computes
        once its job's last map ends), never while a reducer is copying (inf). A map never without
        ``evict_maps`` (inf: a map ends soon on its own; the paper evicts reduces only). Kept per
        slot for the attempt once it cannot change (`_ready_runs`): the walks look at every slot
        at most instants."""
        if self._ready_runs[slot] is item:  # the attempt's, kept (by its tuple: compiled, a `SlotRun`
            return self._ready_at[slot]      # is unpacked into a struct, an `object` is not)
        run: SlotRun = cast(SlotRun, item)  # typed: compiled, its items are read without a lookup
        job, kind, start = run[0], run[1], run[3]
        ready = start + self.min_run
        if kind == MAP:
            if self.evict_maps:
                if rule4 and start + self.banks > ready:
                    ready = start + self.banks
            else:
                ready = math.inf
        elif rule4:
            map_done = job.map_done
            if slot in job.copying or map_done is None:
                return math.inf  # until the copy and the maps are done: not kept
            computing = start if start >= map_done else map_done
            if computing + self.banks > ready:
                ready = computing + self.banks
        self._ready_runs[slot] = item  # the attempt's for good: its start, and its job's maps' end, stay
        self._ready_at[slot] = ready
        return ready

    def _none_ready(self, now: float) -> bool:
        """MLF: whether no attempt may be evicted now (as `_holders` tells, whatever the victims)
        and none may be before the wake-up the simulation has already been asked for. Then settle
        is a no-op whatever the head: its walk would find no attempt, and the time it would ask
        to look again (`_protected_until`, the first time a protected attempt of a victim may be
        evicted) is no earlier than that wake-up, so the request would change nothing. The order's
        bounds are brought to the clock at the next decision instead (they are bounds at any
        time: the order they give is the same). Most settles while every attempt is protected
        (the lockstep's instants between evictions) cost one pass over the slots, no laxity."""
        sim = self.bound()
        rule4 = self.mode != "kill"
        first = sim.wake_at  # the first time an attempt may be evicted must not come earlier
        if first <= now:
            first = math.nextafter(now, math.inf)  # and it must be after now
        suspending, slot_run = sim.suspending, sim.slot_run
        for slot in range(len(slot_run)):
            item: object = slot_run[slot]  # not unpacked: `_ready` knows the attempt by its tuple
            if item is None:
                continue
            if self._ready(item, slot, rule4) < first and not (suspending and slot in suspending):
                return False
        return True

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

    def _resume_here(self, job: JobRun, node: int) -> LaunchTuple | None:
        """A suspended reduce of ``job`` that was suspended on ``node``, if any (its checkpoint is there)."""
        if not job.left or job.pending_maps or not job.reduces_open:
            return None
        # A task suspended on ``node`` is one of ``job.left``'s (a few), each in the queue: without
        # one, the walk over the queue (each of its tasks looked up) would find nothing.
        if not _suspended_on(job, node):
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
        shortest = self.task_eviction == "SRT"
        chosen, best = slots[0], time_left(sim, slots[0], now)
        for position in range(1, len(slots)):  # the least (SRT) or the most of (time left, slot)
            slot = slots[position]
            left = time_left(sim, slot, now)
            if left < best if shortest else left >= best:  # in slot order: a tie goes to the lower (the higher)
                chosen, best = slot, left
        return chosen


def _suspended_on(job: JobRun, node: int) -> bool:
    """Whether a reduce of ``job`` suspended on ``node`` waits to resume (one of ``job.left``)."""
    resume_on = job.resume_on
    for key in job.left:  # noqa: SIM110  # a loop: compiled, `any` over a generator makes the generator first
        if key[0] == REDUCE and resume_on.get(key) == node:
            return True
    return False


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
        # The attempts that may be evicted, by job index, and their jobs (`Natjam._victim`: found
        # at the first victim of a settle, each chosen one taken out).
        self.held: dict[int, list[int]] | None = None
        self.holders: dict[int, JobRun] = {}

    @classmethod
    def listed(cls, jobs: list[JobRun]) -> Victims:
        places = {job.index: position for position, job in enumerate(jobs)}
        return cls(lambda job: job.index in places, lambda job: places[job.index], jobs)


def _research(job: JobRun) -> bool:
    return job.priority < PRODUCTION


def _mdf_key(job: Job | JobRun) -> tuple[float, float, str]:
    """MDF's order: deadline (none: last), then submission, then name (a job spec or its run)."""
    return (_deadline(job), job.submit, job.name)


def _deadline(job: Job | JobRun) -> float:
    return math.inf if job.deadline is None else job.deadline


register(Natjam)  # a call, not the decorator: a compiled class takes no decorator of ours (setup.py)

__all__ = ["DEADLINE_POLICIES", "JOB_POLICIES", "MAP", "PRODUCTION", "TASK_POLICIES", "Natjam"]
