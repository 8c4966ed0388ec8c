"""The simulation: one object holding all run-time state, driven by one event loop."""

from __future__ import annotations

import gc
import math
import time
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from librt.vecs import vec
from mypy_extensions import i64, mypyc_attr, u8

from models import Cluster, Job, Workload
from models.checks import as_int
from models.errors import InvalidInput
from planner.simulator.attempt_log import CHUNK, MAX_CHUNK, AttemptLog
from planner.simulator.engine import ARRIVAL, ARRIVE, ENDS, WAKE, WAKE_UP, EventQueue
from planner.simulator.eviction import evict
from planner.simulator.jobs import PENDING, JobRun
from planner.simulator.layout import ANY, MAP, REDUCE, build_layout
from planner.simulator.offers import Offers, SimulationStalled
from planner.simulator.options import SimOptions
from planner.simulator.progress import Progress
from planner.simulator.shuffle import NETWORK

if TYPE_CHECKING:
    from planner.simulator.schedulers.base import Scheduler


@mypyc_attr(allow_interpreted_subclasses=True)  # tests subclass it in Python
class Simulation(Offers):
    """All state of one run, driven by one `EventQueue`.

    Slots are numbered. ``slot_run[s]`` is the attempt on slot ``s`` as
    (job, kind, task, start, locality); ``slot_gen[s]`` counts attempts ended
    on slot ``s`` so that the end event of a killed attempt is seen to be stale. Ended attempts are
    logged in ``log``, nine numbers each (the fields of `Attempt`).

    With a heartbeat each node offers its free slots at its own ticks (staggered
    over the interval); a node with nothing to offer sleeps until a slot frees or
    work appears. With heartbeat 0 the slots freed in an instant are offered once
    all of the instant's events have been applied.
    """

    # Arguments checked here are Any: a wrong one must raise InvalidInput, not a compiled type check.
    def __init__(self, jobs: Workload | list[Job], cluster: Any, scheduler: Scheduler, *, seed: int = 0,
                 slots: Any = None, options: Any = None, progress: Any = None, progress_every: Any = CHUNK) -> None:
        self.options = options if options is not None else SimOptions()
        if not isinstance(self.options, SimOptions):
            raise InvalidInput("options", f"must be a SimOptions, got {type(self.options).__name__}")
        if not isinstance(cluster, Cluster):
            raise InvalidInput("cluster", f"must be a Cluster, got {type(cluster).__name__}")
        self.workload = jobs if isinstance(jobs, Workload) else Workload(jobs)
        if len(self.workload) == 0:
            raise InvalidInput("jobs", "the workload has no jobs")
        for position, job in enumerate(self.workload):
            if job.map_tasks == 0:
                raise InvalidInput(f"jobs[{position}].map_tasks", f"job {job.name!r} has no tasks to simulate")
        self.cluster = cluster
        self.seed = seed
        if self.options.task_times:
            unknown = sorted(set(self.options.task_times) - set(self.workload.names))
            if unknown:
                raise InvalidInput(f"task_times.{unknown[0]}", "no job of that name in the workload")
        copy_compute = self.options.copy_compute
        self.layout = layout = build_layout(
            cluster, slots=slots, containers=self.options.containers,
            reducers_per_node=copy_compute[0] if copy_compute else None,
        )
        if self.options.containers:
            self.kinds_present: tuple[int, ...] = (ANY,)
        else:
            self.kinds_present = tuple(k for k in (MAP, REDUCE) if layout.count(k))
        if REDUCE not in self.kinds_present and ANY not in self.kinds_present and any(
            job.reduce_tasks for job in self.workload
        ):
            raise InvalidInput("slots", "jobs have reduce tasks but the cluster has no reduce slots")
        self.max_computing = copy_compute[1] if copy_compute else 0
        self.scheduler = scheduler
        nodes = layout.nodes
        count = layout.slots
        self.events = EventQueue(cluster.heartbeat, layout.nodes)  # heartbeats: one per node each period
        # End events shared by attempts that end at the same time (see `_end_at`).
        self.cohort_end = -1.0
        self.cohort: list[int] | None = None
        self.batches: dict[int, list[int]] = {}
        self.batch_count = 0
        self.slot_count = count
        self.slot_node = layout.slot_node
        self.slot_kind = layout.slot_kind
        # The attempt on each slot, (job, kind, task, start, locality), or None when free.
        self.slot_run = [None] * count
        # Typed columns (`librt.vecs.vec`): compiled, an update stores a machine word (a list's would
        # make a Python int or float, and free the one it replaces).
        self.slot_gen = vec[i64]([0] * count)
        self.slot_end = vec[float]([0.0] * count)  # when the attempt on the slot is due to end (if it has an end event)
        self.suspending: dict[int, float] = {}  # slot -> work its suspended attempt has left
        self.counts = {"suspensions": 0, "kills": 0}
        self.overhead_seconds = 0.0  # slot-seconds of suspend and resume overheads
        self.hears_ends = scheduler.hears_ends
        # Jobs whose running or pending tasks changed, for schedulers that keep jobs ranked
        # (`schedulers.ranked`; they set it in `bind`): None costs the others nothing.
        self.changed: list[JobRun] | None = None
        self.slot_busy = vec[float]([0.0] * count)
        # Free slots by node and kind (kept with a heartbeat only: heartbeat 0 uses fresh/idle).
        self.node_free: list[list[list[int]]] = [[[], [], []] for _ in range(nodes)]
        for slot in range(count - 1, -1, -1):
            self.node_free[layout.slot_node[slot]][layout.slot_kind[slot]].append(slot)
        self.free_count = [layout.count(MAP), layout.count(REDUCE), layout.count(ANY)]
        self.pending = [0, 0]  # pending maps; launchable reduces (over all submitted jobs)
        # Ended attempts, nine values each (see `records.Attempt`), in typed columns; progress is
        # reported every ``progress_every`` of them.
        self.progress = progress
        if progress is not None and not callable(progress):
            raise InvalidInput("progress", f"must be a function of a Progress, got {type(progress).__name__}")
        self.tasks_total = sum(job.map_tasks + job.reduce_tasks for job in self.workload)
        self.attempt_log = AttemptLog(as_int(progress_every, "progress_every", minimum=1, maximum=MAX_CHUNK),
                                      capacity=self.tasks_total)
        self.started_at = 0.0  # wall clock at `run`
        self.jobs: list[JobRun] = []  # in order of arrival
        self._runs: list[JobRun | None] = [None] * len(self.workload)
        specs = self.workload.jobs
        by_submission = sorted(range(len(specs)), key=lambda i: (specs[i].submit, specs[i].name, i))
        self._order = [0] * len(specs)  # workload index -> rank by (submit, name): `JobRun.order`
        for rank, index in enumerate(by_submission):
            self._order[index] = rank
        self.active: dict[str, JobRun] = {}
        self.running_total = 0
        # Reducers: copying ones have no end event yet; compute limits per node.
        self.computing = [0] * nodes
        self.compute_queue: list[list[int]] = [[] for _ in range(nodes)]
        self.heartbeat = cluster.heartbeat
        self.awake = bytearray(nodes)
        self.node_tick = [0] * nodes  # the number of each node's last scheduled report
        # With a heartbeat: per slot kind, flags of the nodes with a free slot of that kind
        # and no report due (`offers.Offers`), and how many are flagged.
        self.asleep = [bytearray(nodes) for _ in range(3)]
        self.asleep_count = [0, 0, 0]
        # Per kind, the node woken to report next for pending work (-1: none) and its tick's time.
        self.chain = [-1, -1, -1]
        self.chain_tick = [math.inf] * 3
        # Nodes with a free map slot that delay scheduling declines until a change wakes them.
        self.declined_asleep = bytearray(nodes)
        self.declined_count = 0
        self.fresh: list[int] = []  # heartbeat 0: slots freed since the last dispatch
        # Heartbeat 0: flags of the free slots declined since work last appeared.
        self.idle = vec[u8]([1 if self.heartbeat == 0 else 0] * count)
        self.reoffer = False
        self.dispatch_due = False
        self.wake_at = math.inf
        # The stall clock: the last launch, arrival, or end that left nothing running (`_check_stall`).
        self.last_change = 0.0
        if self.heartbeat != 0:
            for kind in self.kinds_present:
                self.asleep[kind] = bytearray(b"\x01" * nodes)
                self.asleep_count[kind] = nodes
        self._network_init()

    # -- used by schedulers ------------------------------------------------------------
    def request_wake(self, time: float) -> None:
        """Ask for a scheduler wake-up (and, with heartbeat 0, a new offer of idle slots) at ``time``."""
        if self.events.now <= time < self.wake_at:
            self.wake_at = time
            self.events.push(time, WAKE, 0, WAKE_UP)

    def may_copy(self, job: JobRun, node: int) -> bool:
        """Copy-compute splitting: a job holds at most max_computing copying reducers per node."""
        if not self.max_computing or job.maps_done == job.maps:
            return True
        return job.copying_on.get(node, 0) < self.max_computing

    @property
    def now(self) -> float:
        """The simulated time."""
        return self.events.now

    def job_run(self, index: int) -> JobRun:
        """The run-time state of the workload's job at ``index`` (once submitted)."""
        run = self._runs[index]
        if run is None:
            raise KeyError(index)
        return run

    def running_slots(self) -> list[int]:
        """Slots running an attempt (copying, computing or waiting to compute)."""
        return [slot for slot, run in enumerate(self.slot_run) if run is not None]

    # -- the loop ------------------------------------------------------------------------
    def run(self) -> None:
        # A run makes millions of short-lived tuples (events, attempts); the cyclic collector
        # would scan the jobs' state again and again (nothing in the loop makes reference cycles).
        self.started_at = time.perf_counter()
        collecting = gc.isenabled()
        gc.disable()
        try:
            self._run()
        finally:
            if collecting:
                gc.enable()

    def _run(self) -> None:
        self._rngs = np.random.SeedSequence(self.seed).spawn(len(self.workload))
        for index, job in enumerate(self.workload):
            self.events.push(job.submit, ARRIVE, index, ARRIVAL)
        self.scheduler.bind(self)
        events = self.events
        settles = self.scheduler.settles
        hb0 = self.heartbeat == 0
        slot_gen = self.slot_gen
        ticks = events.ticks
        heap = events.heap
        while heap.size or ticks:
            if ticks and (not heap.size or events.tick_next < heap.keys[0]):
                node = events.pop_tick()  # a heartbeat: last at its time (see `engine`)
                now = events.now
                self._heartbeat(node, now)
            else:
                now, a, b = events.pop()
                if b >= 0:
                    if slot_gen[a] == b:
                        self._finish(a, now)
                elif b == ENDS:
                    batch = self.batches.pop(a)
                    if batch is self.cohort:  # spent: an end due now (a zero-time checkpoint) needs a new entry
                        self.cohort, self.cohort_end = None, -1.0
                    self.dispatch_due = True  # decide once the whole batch has ended
                    for position in range(0, len(batch), 2):
                        if slot_gen[batch[position]] == batch[position + 1]:
                            self._finish(batch[position], now)
                elif b == ARRIVAL:
                    self._arrive(a, now)
                elif b == NETWORK:
                    self._network_event(a, now)
                else:
                    if now == self.wake_at:
                        self.wake_at = math.inf
                    self.scheduler.wake(now)
                    self._work_appeared()
                    if self.declined_count:  # a wait may be over, or a wake-up must be asked again
                        self.wake_first_declined()
            if events.more_at(now):
                continue
            # The instant is over: decide on the state it left.
            if hb0 and self.dispatch_due:
                self._dispatch(now)
            if settles:
                wake = self.scheduler.settle(now)
                if wake is not None:
                    self.request_wake(wake)
                if hb0 and self.dispatch_due:  # slots the settling freed (kills)
                    self._dispatch(now)
            if self.network_dirty:
                self._network_settle(now)
        if self.active:
            names = ", ".join(list(self.active)[:3])
            raise SimulationStalled(f"simulation ended with unfinished jobs ({names}); no slot can run them")

    def _report_progress(self) -> None:
        """Another ``progress_every`` attempts have ended: report progress (if asked)."""
        if self.progress is not None:
            done = len(self.attempt_log) - self.counts["kills"] - self.counts["suspensions"]
            self.progress(Progress(self.events.now, done, self.tasks_total, time.perf_counter() - self.started_at))

    # -- arrivals and offers ----------------------------------------------------------------
    def _arrive(self, index: int, now: float) -> None:
        options = self.options
        job_spec = self.workload.jobs[index]
        job = JobRun(index, job_spec, self.layout, self.cluster.replication,
                     options.task_time_cv, options.reduce_slowstart, np.random.default_rng(self._rngs[index]),
                     options.rack_factor[job_spec.intensity], options.off_rack_factor[job_spec.intensity],
                     options.task_times.get(job_spec.name) if options.task_times else None)
        job.order = self._order[index]
        self.last_change = now  # new work: the stall clock starts over
        if self.network is not None:
            self._network_job(job)
        self.jobs.append(job)
        self._runs[index] = job
        self.active[job.name] = job
        self.pending[MAP] = self.pending[MAP] + job.pending_maps
        self.pending[REDUCE] = self.pending[REDUCE] + job.launchable_reduces
        self.scheduler.job_arrived(job, now)
        self._work_appeared(MAP if not job.launchable_reduces else None)

    def _offer(self, slot: int, node: int, kind: int, now: float) -> bool:
        """Offer a free slot to the scheduler; launch what it picks."""
        choice = self.scheduler.pick(node, kind, now)
        if choice is None:
            return False
        job, task_kind, task, locality = choice
        if self.heartbeat:
            self.last_change = now
            free = self.node_free[node][kind]
            if free[-1] == slot:
                free.pop()
            else:
                free.remove(slot)
        elif self.idle[slot]:
            self.idle[slot] = 0
        self.free_count[kind] = self.free_count[kind] - 1
        self.running_total += 1
        job.running[task_kind] = job.running[task_kind] + 1
        if job.start is None:
            job.start = now
        self.slot_run[slot] = (job, task_kind, task, now, locality)
        if task_kind == MAP:
            job.pending_maps -= 1
            self.pending[MAP] = self.pending[MAP] - 1
            if job.left:
                left = job.left.pop((MAP, task), None)
                if left is not None:  # a suspended map resumes
                    self._end_at(now + left, slot)
                    return True
            if locality and job.block is not None:  # the network decides when it has read its block
                self._read_start(slot, job, job.block, task, node, locality, now)
                return True
            times = cast(list[float], job.map_times)  # a list while the job runs (arrays once it is done)
            self._end_at(now + times[task] * job.slowdown[locality], slot)
        else:
            job.pending_reduces -= 1
            self.pending[REDUCE] = self.pending[REDUCE] - 1
            if job.shuffle is not None:
                self._copy_start(slot, job, job.shuffle, task, node, now)
            elif job.maps_done == job.maps:
                self._compute(slot, node, now)
            else:
                job.copying.append(slot)
                job.copying_on[node] = job.copying_on.get(node, 0) + 1
        return True

    # -- ends ---------------------------------------------------------------------------------
    def kill(self, slot: int, now: float) -> None:
        """Kill the attempt on ``slot``: its work is lost and its task is pending again."""
        evict(self, slot, now, None)

    def suspend(self, slot: int, now: float, suspend_overhead: float = 0.0, resume_overhead: float = 0.0) -> None:
        """Suspend the attempt on ``slot``: it checkpoints for ``suspend_overhead`` seconds
        (holding its slot), then its task is pending again with the work left plus
        ``resume_overhead``."""
        evict(self, slot, now, (suspend_overhead, resume_overhead))


__all__ = ["PENDING", "Simulation", "SimulationStalled"]
