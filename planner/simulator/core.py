"""The simulation: one object holding all run-time state, driven by one event loop.

`Simulation` holds every attribute of a run, each declared once (in its constructor, and the
network's in `_network_init`, which the constructor calls), and its methods in the order a task
meets them: the event loop and arrivals, offering free slots (heartbeats, or once per instant),
launching, ending attempts (completion, the reducer's compute phase, freeing the slot), taking a
slot back (kill or suspend), and the bytes moved over the network (remote map reads and the
reducers' copy phase, when ``SimOptions.network`` is on; the links and the shuffle's bookkeeping
are `planner.simulator.network` and `planner.simulator.jobs`).

What moves over the network, for the jobs whose bytes are known:

- A map that runs away from its block (rack-local or off-rack) reads the block
  (``input_bytes / map_tasks``) from a node holding a replica (in its rack when
  rack-local) while it computes: a flow capped at block / task time, so the map
  takes its usual time when the network keeps up and longer when it does not.
  Node-local maps read their disks, as without the network.
- A reducer fetches its share of every map's output (``shuffle_bytes / (maps x
  reduces)``) from the moment it launches, following the outputs as maps end.
  Output on its own node costs nothing; the rest is two flows into its node, one
  from its rack and one from the other racks through its rack's downlink (the
  senders' links are not modelled: a job's maps are spread over many nodes). A
  reducer that has caught up fetches again once ``BATCH_SECONDS`` at its link's
  speed has accumulated (or the job's last map ended), as Hadoop's fetchers take
  whole map outputs. It computes once it holds its whole share, never before the
  job's last map.
- A killed reducer loses what it fetched (and fetches it all again); a suspended
  one keeps it: suspended while copying, its fetched bytes count when it resumes,
  on whatever node; suspended while computing, it resumes computing. A suspended
  remote map resumes as a computation of the time it had left at its full rate.
"""

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
from models.errors import InvalidInput, PlannerError
from planner.simulator.attempt_log import CHUNK, MAX_CHUNK, AttemptLog
from planner.simulator.engine import ARRIVAL, ARRIVE, ENDS, FINISH, NETWORK, STAGE, WAKE, WAKE_UP, EventQueue
from planner.simulator.jobs import DONE, PENDING, RACK_LOCAL, JobRun, ReducerCopy, ShuffleState, SlotRun
from planner.simulator.layout import ANY, MAP, REDUCE, build_layout
from planner.simulator.network import Links, Network, link_capacities, node_bytes_per_second, slack_links
from planner.simulator.options import SimOptions
from planner.simulator.progress import Progress
from planner.simulator.records import DONE_FATE, KILLED_FATE, SUSPENDED_FATE

if TYPE_CHECKING:
    from planner.simulator.schedulers.base import Scheduler


class SimulationStalled(PlannerError):
    """Work is pending that no scheduler decision can ever launch."""


@mypyc_attr(allow_interpreted_subclasses=True)  # tests subclass it in Python
class Simulation:
    """All state of one run, driven by one `EventQueue`.

    Slots are numbered. ``slot_run[s]`` is the attempt on slot ``s`` as
    (job, kind, task, start, locality); ``slot_gen[s]`` counts attempts ended
    on slot ``s`` so that the end event of a killed attempt is seen to be stale. Ended attempts are
    logged in ``log``, nine numbers each (the fields of `Attempt`).

    With a heartbeat each node offers its free slots at its own ticks (staggered
    over the interval); a node with nothing to offer sleeps until a slot frees or
    work appears. With heartbeat 0 the slots freed in an instant are offered once
    all of the instant's events have been applied.

    With a heartbeat, node n reports at heartbeat * (n / nodes + k) for whole k. A node
    reports while it has a free slot and work pending for it; otherwise it sleeps, flagged
    in ``asleep[kind]`` for each kind of free slot it has, until a slot of it frees with
    work pending or work of such a kind appears. When work appears Hadoop's sleeping
    nodes would all report at their next ticks; most find the work gone (a job's five
    reduces go to the first five). So only the sleeping node whose tick comes first is
    woken, and when it has reported, while work of that kind is pending, the next one: every
    report that happens is one the full wake-up would make, in the same order, and the
    ones left out would have found nothing to launch.

    With delay scheduling a node whose map slot every job declines keeps reporting in
    Hadoop. When the scheduler can tell that its reports would be declined, changing
    nothing (`schedulers.declines.DeclineMemo`), the node sleeps in ``declined_asleep``
    instead, until the memo wakes it: a job that may now run on it (an arrival with blocks
    there, a level raised for its rack or for all, a map evicted), a job whose wait is to
    start (the first such node to tick asks every job, as its report would have), or a
    wake-up (a wait may be over).
    """

    # Arguments checked here are Any: a wrong one must raise InvalidInput, not a compiled type check.
    def __init__(self, jobs: Workload | list[Job], cluster: Any, scheduler: Scheduler, *, seed: int = 0,
                 slots: Any = None, options: Any = None, progress: Any = None, progress_every: Any = CHUNK) -> None:
        if options is None:
            options = SimOptions()
        if not isinstance(options, SimOptions):
            raise InvalidInput("options", f"must be a SimOptions, got {type(options).__name__}")
        self.options: SimOptions = options
        if not isinstance(cluster, Cluster):
            raise InvalidInput("cluster", f"must be a Cluster, got {type(cluster).__name__}")
        self.workload = jobs if isinstance(jobs, Workload) else Workload(jobs)
        if len(self.workload) == 0:
            raise InvalidInput("jobs", "the workload has no jobs")
        for position, job in enumerate(self.workload):
            if job.map_tasks == 0:
                raise InvalidInput(f"jobs[{position}].map_tasks", f"job {job.name!r} has no tasks to simulate")
        self.cluster: Cluster = cluster
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
        # End groups: attempts launched one after another that end at the same time share one
        # ``ENDS`` event (`_end_at`). The open group (None: none), its end time, and every group
        # still due by number, each (slot, attempt) pairs flattened.
        self.end_group: list[int] | None = None
        self.end_group_time = -1.0
        self.end_groups: dict[int, list[int]] = {}
        self.end_group_count = 0
        self.slot_count = count  # the layout's slots (read at every laxity: an attribute, not a property)
        # Typed columns (`librt.vecs.vec`): compiled, an update stores a machine word (a list's would
        # make a Python int or float, and free the one it replaces), and a read makes none.
        self.slot_node = vec[i64](list(layout.slot_node))
        self.slot_kind = vec[i64](list(layout.slot_kind))
        # The attempt on each slot, (job, kind, task, start, locality), or None when free.
        self.slot_run: list[Any] = [None] * count  # a `jobs.SlotRun` or None
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
        # Free slots by node and kind (kept with a heartbeat only: heartbeat 0 uses freed/idle).
        self.node_free: list[list[list[int]]] = [[[], [], []] for _ in range(nodes)]
        for slot in range(count - 1, -1, -1):
            self.node_free[layout.slot_node[slot]][layout.slot_kind[slot]].append(slot)
        self.free_count = vec[i64]([layout.count(MAP), layout.count(REDUCE), layout.count(ANY)])
        self.pending = vec[i64]([0, 0])  # pending maps; launchable reduces (over all submitted jobs)
        # Ended attempts, nine values each (see `records.Attempt`), in typed columns; progress is
        # reported every ``progress_every`` of them.
        self.progress = progress
        if progress is not None and not callable(progress):
            raise InvalidInput("progress", f"must be a function of a Progress, got {type(progress).__name__}")
        self.tasks_total: int = self.workload.tasks
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
        self._by_submission = by_submission
        # Dependencies (`Job.after`): a job arrives once its predecessors have all finished (plus their
        # delays), not before its submit time. ``ready_at`` is when it may arrive so far, ``held_by``
        # the workload index of the predecessor that last pushed it later (-1: its submit time rules),
        # ``waiting_on`` how many predecessors are unfinished. With dependencies a job is submitted to
        # the scheduler when it arrives: its `JobRun.submit` is its arrival (``ready_at``; the spec keeps
        # its own) and its `JobRun.order` its rank of arrival: arrivals pop in time order, those of one
        # instant in (submit, name) order for the jobs that wait for nothing, then in the order they
        # became ready. ``arrivals_due``: arrivals scheduled and not yet made (a stall is declared only
        # when none is due: jobs still waiting for predecessors arrive when those finish, never if
        # those stall).
        self.dependent = self.workload.has_dependencies
        self.successors: list[list[tuple[int, float]]] = (
            self.workload.precedence.successors if self.dependent else []
        )
        self.waiting_on = [len(job.after) for job in specs]
        self.ready_at = [float(job.submit) for job in specs]
        self.held_by = [-1] * len(specs)
        self.arrivals = 0
        self.arrivals_due = len(specs)
        self.active: dict[str, JobRun] = {}
        self.running_total = 0
        # Reducers: copying ones have no end event yet; compute limits per node.
        self.computing = vec[i64]([0] * nodes)
        self.compute_queue: list[list[int]] = [[] for _ in range(nodes)]
        self.heartbeat = cluster.heartbeat
        # `SimOptions.stage_delay`: a job's reduces open this long after the map that opens them
        # (the jobs whose opening is scheduled, by workload index, in ``stage_due``).
        self.stage_delay = float(options.stage_delay)
        self.stage_due: set[int] = set()
        self.awake = vec[u8]([0] * nodes)
        self.node_tick = vec[i64]([0] * nodes)  # the number of each node's last scheduled report
        # With a heartbeat: per slot kind, flags of the nodes with a free slot of that kind
        # and no report due (`_slot_freed`), and how many are flagged.
        self.asleep = [bytearray(nodes) for _ in range(3)]
        self.asleep_count = vec[i64]([0, 0, 0])
        # Per kind, the node woken to report next for pending work (-1: none) and its tick's time.
        self.chain = vec[i64]([-1, -1, -1])
        self.chain_tick = vec[float]([math.inf] * 3)
        # Nodes with a free map slot that delay scheduling declines until a change wakes them.
        self.declined_asleep = bytearray(nodes)
        self.declined_count = 0
        self.freed: list[int] = []  # heartbeat 0: slots freed since the last dispatch
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
        if self.dependent:
            specs = self.workload.jobs
            self.arrivals_due = 0
            for index in self._by_submission:
                if self.waiting_on[index] == 0:
                    self.events.push(specs[index].submit, ARRIVE, index, ARRIVAL)
                    self.arrivals_due += 1
        else:
            for index, job in enumerate(self.workload):
                self.events.push(job.submit, ARRIVE, index, ARRIVAL)
        self.scheduler.bind(self)
        events = self.events
        settles = self.scheduler.settles
        hb0 = self.heartbeat == 0
        slot_gen = self.slot_gen
        ticks = events.ticks
        heap = events.heap
        while heap.size or ticks.size:
            if ticks.size and (not heap.size or events.tick_next < heap.keys[0]):
                node = events.pop_tick()  # a heartbeat: last at its time (see `engine`)
                now = events.now
                self._heartbeat(node, now)
            else:
                # ``tag``: the attempt number of an end of the attempt on slot ``subject`` (>= 0),
                # else the event's kind (`engine.EventKind`) with ``subject`` its argument.
                now, subject, tag = events.pop()
                if tag >= 0:
                    if slot_gen[subject] == tag:
                        self._finish(subject, now)
                elif tag == ENDS:
                    group = self.end_groups.pop(subject)
                    if group is self.end_group:  # spent: an end due now (a zero-time checkpoint) needs a new entry
                        self.end_group, self.end_group_time = None, -1.0
                    self.dispatch_due = True  # decide once the whole group has ended
                    for position in range(0, len(group), 2):
                        if slot_gen[group[position]] == group[position + 1]:
                            self._finish(group[position], now)
                elif tag == ARRIVAL:
                    self._arrive(subject, now)
                elif tag == NETWORK:
                    self._network_event(subject, now)
                elif tag == STAGE:
                    self.stage_due.discard(subject)
                    staged = self._runs[subject]
                    if staged is not None and not staged.reduces_open:
                        self._open_reduces(staged)
                        self.dispatch_due = True
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
        if self.dependent and len(self.jobs) < len(self.workload):
            names = ", ".join(job.name for index, job in enumerate(self.workload.jobs) if self.waiting_on[index])
            raise SimulationStalled(f"simulation ended with jobs never submitted ({names[:200]}): their "
                                    "predecessors did not finish")

    def _report_progress(self) -> None:
        """Another ``progress_every`` attempts have ended: report progress (if asked)."""
        if self.progress is not None:
            done = len(self.attempt_log) - self.counts["kills"] - self.counts["suspensions"]
            self.progress(Progress(self.events.now, done, self.tasks_total, time.perf_counter() - self.started_at))

    # -- arrivals and launches --------------------------------------------------------------
    def _arrive(self, index: int, now: float) -> None:
        options = self.options
        job_spec = self.workload.jobs[index]
        job = JobRun(index, job_spec, self.layout, self.cluster.replication,
                     options.task_time_cv, options.reduce_slowstart, np.random.default_rng(self._rngs[index]),
                     options.rack_factor[job_spec.intensity], options.off_rack_factor[job_spec.intensity],
                     options.task_times.get(job_spec.name) if options.task_times else None)
        self.arrivals_due -= 1
        if self.dependent:
            job.order = self.arrivals
            job.submit = now  # submitted when it arrives (`ready_at`; at its submit time when it waits for none)
            self.arrivals += 1
        else:
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

    # -- work a scheduler holds back -------------------------------------------------------
    def hold(self, job: JobRun, kind: int) -> None:
        """The scheduler will offer none of ``job``'s tasks of ``kind`` (MAP or REDUCE) until it
        calls `release`: a job behind a running-job or admission limit. Its pending tasks of that
        kind leave ``pending``, the count that keeps nodes with a free slot reporting. A report
        that only held work could use is declined and changes nothing, so those nodes sleep
        instead (a backlog of thousands behind a limit of 5 kept every node reporting every
        heartbeat), and the release wakes them as new work does: the same launches, in order."""
        if kind == MAP:
            if not job.held_maps:
                job.held_maps = True
                self.pending[MAP] = self.pending[MAP] - job.pending_maps
        elif not job.held_reduces:
            job.held_reduces = True
            self.pending[REDUCE] = self.pending[REDUCE] - job.launchable_reduces

    def release(self, job: JobRun, kind: int) -> None:
        """Offer ``job``'s tasks of ``kind`` again (`hold`); nodes wake for them."""
        if kind == MAP:
            if job.held_maps:
                job.held_maps = False
                if job.pending_maps:
                    self.pending[MAP] = self.pending[MAP] + job.pending_maps
                    self._work_appeared(MAP)
        elif job.held_reduces:
            job.held_reduces = False
            if job.launchable_reduces:
                self.pending[REDUCE] = self.pending[REDUCE] + job.launchable_reduces
                self._work_appeared(REDUCE)

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
            if not job.held_maps:
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
            if not job.held_reduces:
                self.pending[REDUCE] = self.pending[REDUCE] - 1
            if job.shuffle is not None:
                self._copy_start(slot, job, job.shuffle, task, node, now)
            elif job.maps_done == job.maps:
                self._compute(slot, node, now)
            else:
                job.copying.append(slot)
                job.copying_on[node] = job.copying_on.get(node, 0) + 1
        return True


    # -- offering free slots ------------------------------------------------------------
    def _work_appeared(self, kind: int | None = None) -> None:
        """Work of ``kind`` (None: any kind, or a decision that may change) appeared."""
        if self.heartbeat == 0:
            self.reoffer = True
            self.dispatch_due = True
            return
        self._wake_next(kind, True)

    def _wake_next(self, kind: int | None, appeared: bool = False) -> None:
        """Wake the first sleeping node with a free slot for pending work of ``kind``, unless a
        node woken for it reports first. Without ``appeared`` (after a report) a node woken for
        it is enough: while work stays pending no node falls asleep under that kind."""
        pending = self.pending
        counts = self.asleep_count
        chain = self.chain
        now = self.events.now
        for group in (MAP, REDUCE, ANY) if kind is None else (kind, ANY):
            if counts[group] and (pending[group] if group != ANY else pending[0] or pending[1]):
                if chain[group] >= 0 and not appeared:
                    continue
                node, ticks, tick = self._first_asleep(self.asleep[group], now)
                if chain[group] >= 0 and self.chain_tick[group] <= tick:
                    continue
                self._schedule_heartbeat(node, now, ticks)
                chain[group] = node
                self.chain_tick[group] = tick

    def _first_asleep(self, flags: bytearray, now: float) -> tuple[int, int, float]:
        """The flagged node whose next tick comes first after ``now`` (node, tick number, time):
        nodes tick in order of their number, from the one whose offset is the phase of ``now``.
        Three candidates from just before that one, so that a rounding error cannot skip it."""
        nodes = self.layout.nodes
        period = self.heartbeat
        position = max(int(now % period * nodes / period) - 1, 0)
        best, best_ticks, best_tick = -1, 0, math.inf
        for _ in range(3):
            node = flags.find(1, position)
            if node < 0:
                node = flags.find(1)
            ticks, tick = self._tick_after(node, now)
            if tick < best_tick:
                best, best_ticks, best_tick = node, ticks, tick
            position = node + 1
        return best, best_ticks, best_tick

    def _tick_after(self, node: int, now: float) -> tuple[int, float]:
        """The number and time of ``node``'s first tick at or after ``now``, the time computed
        as every report's is (so a tick a rounding error before ``now`` has passed)."""
        events = self.events  # (a bound method in a local would be a Python call when compiled)
        ticks = max(math.ceil((now - events.tick_time(node, 0)) / self.heartbeat), 0)
        while ticks > 0 and events.tick_time(node, ticks - 1) >= now:
            ticks -= 1
        while events.tick_time(node, ticks) < now:
            ticks += 1
        return ticks, events.tick_time(node, ticks)

    def _schedule_heartbeat(self, node: int, now: float, ticks: int = -1) -> None:
        """Wake ``node`` at its next tick (its number when the caller has it)."""
        if ticks < 0:
            ticks = self._tick_after(node, now)[0]
        self.awake[node] = 1
        self.node_tick[node] = ticks
        for kind, flags in enumerate(self.asleep):
            if flags[node]:
                flags[node] = 0
                self.asleep_count[kind] = self.asleep_count[kind] - 1
        if self.declined_asleep[node]:
            self.declined_asleep[node] = 0
            self.declined_count -= 1
        self.events.push_tick(node, ticks)

    def _next_heartbeat(self, node: int) -> None:
        """Keep ``node`` reporting: its next tick, computed from the tick's number (a time
        accumulated by adding the period drifts from the one a wake-up computes)."""
        ticks = self.node_tick[node] + 1
        self.node_tick[node] = ticks
        self.awake[node] = 1
        self.events.push_tick(node, ticks)

    def _slot_freed(self, node: int, kind: int, now: float) -> None:
        """A slot of ``kind`` freed on ``node``, which has no report due: one now if work of
        that kind is pending, else the node sleeps under it."""
        pending = self.pending
        if not (pending[kind] if kind != ANY else pending[0] or pending[1]):
            self._sleep(node, kind)
        elif kind == MAP and not self.asleep[MAP][node] and self._declines_again(node, now):
            # Its report would be declined, changing nothing (`_heartbeat`): it sleeps as declined
            # now, and the memo wakes it when that may change. (A node asleep under MAP is left to
            # report: the next wake-up for pending maps may be its.)
            self._sleep_declined(node)
        else:
            self._schedule_heartbeat(node, now)

    def _sleep(self, node: int, kind: int) -> None:
        flags = self.asleep[kind]
        if not flags[node]:
            flags[node] = 1
            self.asleep_count[kind] = self.asleep_count[kind] + 1

    def _declines_again(self, node: int, now: float) -> bool:
        """Would a report of ``node`` now be declined by every job, changing nothing (the
        scheduler's memo), with no reduce for it to launch either?"""
        memo = self.scheduler.memo
        return memo is not None and not (self.node_free[node][REDUCE] and self.pending[REDUCE]) and (
            memo.declines_again(node, now))

    def _sleep_declined(self, node: int) -> None:
        """``node`` sleeps until the memo wakes it (`wake_declined`)."""
        if not self.declined_asleep[node]:
            self.declined_asleep[node] = 1
            self.declined_count += 1

    def _heartbeat(self, node: int, now: float) -> None:
        """The node reports: offer its free slots, then report again next tick or sleep."""
        self.awake[node] = 0
        chain = self.chain
        if chain[MAP] == node or chain[REDUCE] == node or chain[ANY] == node:
            for group in (MAP, REDUCE, ANY):
                if chain[group] == node:
                    chain[group] = -1
        free = self.node_free[node]
        multiple = self.options.assign_multiple
        pending = self.pending
        declined = False
        for kind in self.kinds_present:
            slots = free[kind]
            while slots and (pending[kind] if kind != ANY else pending[0] or pending[1]):
                if not self._offer(slots[-1], node, kind, now):
                    declined = kind == MAP
                    break
                if not multiple:
                    break
        waiting = False  # a free slot with work pending for it (a loop: cheaper than any())
        for kind in self.kinds_present:
            if free[kind] and (pending[kind] if kind != ANY else pending[0] or pending[1]):
                waiting = True
                break
        if waiting:
            if declined and self._declines_again(node, now):
                # Its reports would be declined, changing nothing, until a change wakes it.
                self._sleep_declined(node)
                if free[REDUCE]:
                    self._sleep(node, REDUCE)
            else:
                self._next_heartbeat(node)
                if self.running_total == 0 and self.arrivals_due == 0:
                    self._check_stall(now)
        else:
            for kind in self.kinds_present:
                if free[kind]:
                    self._sleep(node, kind)
        counts = self.asleep_count
        if (counts[MAP] and pending[MAP]) or (counts[REDUCE] and pending[REDUCE]) or (
            counts[ANY] and (pending[0] or pending[1])
        ):
            self._wake_next(None)  # the next node the full wake-up would have reached, if none is due

    # -- used by schedulers: nodes whose map slot delay scheduling declines (`schedulers.declines`)
    def wake_declined(self, nodes: list[int] | None) -> None:
        """Wake these declined nodes (None: all) at their next ticks."""
        if not self.declined_count:
            return
        flags = self.declined_asleep
        now = self.events.now
        if nodes is None:
            nodes = [node for node in range(len(flags)) if flags[node]]
        for node in nodes:
            if flags[node]:
                self._schedule_heartbeat(node, now)

    def wake_declined_racks(self, racks: list[int]) -> None:
        """Wake the declined nodes of these racks."""
        if not self.declined_count:
            return
        layout = self.layout
        bounds = [*layout.rack_start.tolist(), layout.nodes]
        self.wake_declined([node for rack in racks for node in range(bounds[rack], bounds[rack + 1])])

    def wake_first_declined(self) -> None:
        """Wake the declined node whose tick comes first: its report asks every job again."""
        if self.declined_count:
            now = self.events.now
            node, ticks, _ = self._first_asleep(self.declined_asleep, now)
            self._schedule_heartbeat(node, now, ticks)

    def _dispatch(self, now: float) -> None:
        """Heartbeat 0: offer the slots freed in this instant (all idle ones if work appeared)."""
        self.dispatch_due = False
        freed = self.freed
        if len(freed) == 1 and not self.reoffer:
            # The common case of a busy cluster: one slot freed, offer it alone.
            slot = freed.pop()
            kind = self.slot_kind[slot]
            if not (self.pending[kind] if kind != ANY else self.pending[0] or self.pending[1]) or not self._offer(
                slot, self.slot_node[slot], kind, now
            ):
                self.idle[slot] = 1
            return
        if self.reoffer:
            # Every idle slot and the freed ones, in order: one pass over the flags (a slot is both
            # at most by its flag).
            self.reoffer = False
            flags = self.idle
            for slot in self.freed:
                flags[slot] = 1
            candidates: list[int] = []
            for slot in range(len(flags)):
                if flags[slot]:
                    flags[slot] = 0
                    candidates.append(slot)
        else:
            candidates = self.freed
            if len(candidates) > 1:
                candidates.sort()
        self.freed = []
        slot_kind = self.slot_kind
        slot_node = self.slot_node
        pending = self.pending
        idle = self.idle
        for slot in candidates:  # self._offer, not a local alias: compiled, that is a Python call
            kind = slot_kind[slot]
            if not (pending[kind] if kind != ANY else pending[0] or pending[1]) or not self._offer(
                slot, slot_node[slot], kind, now
            ):
                idle[slot] = 1

    def _check_stall(self, now: float) -> None:
        """Called when a heartbeat found a free slot and pending work but nothing runs.

        Nothing running, no arrival due (every job submitted, or waiting for a
        predecessor that cannot finish without this work): only the clock can still change a
        decision (delay scheduling's waits, the heartbeats). So the patience is
        counted from ``last_change``, the last launch, arrival, or end that left
        the cluster idle, never from the last launch alone: an idle gap before a
        late arrival, or one long task ending, is not time the work was refused.
        """
        delay = self.scheduler.delay
        patience = 100 * max(self.heartbeat, 1.0) + (0.0 if delay is None else delay.node_wait + delay.rack_wait)
        if now - self.last_change > patience:
            names = ", ".join(name for name, job in self.active.items() if job.pending(ANY))
            waiting = [job.name for index, job in enumerate(self.workload.jobs)
                       if self.dependent and self.waiting_on[index]]
            after = f"; {len(waiting)} job(s) wait for them ({', '.join(waiting[:3])})" if waiting else ""
            raise SimulationStalled(f"at t={now:g} s no free slot is ever given to the pending work of {names}{after}")

    # -- ending attempts ------------------------------------------------------------
    def _compute(self, slot: int, node: int, now: float) -> None:
        """A reducer has all its input: compute now, or queue for a compute slot of its node."""
        if self.max_computing:
            if self.computing[node] >= self.max_computing:
                self.compute_queue[node].append(slot)
                return
            self.computing[node] = self.computing[node] + 1
        run: SlotRun = self.slot_run[slot]
        job, _, task, _, _ = run
        left = job.left.pop((REDUCE, task), None) if job.left else None
        if left is not None and self.changed is not None:
            self.changed.append(job)  # a suspended reducer resumed: its job's rank may change
        times = cast(list[float], job.reduce_times)  # a list while the job runs (arrays once it is done)
        self._end_at(now + (times[task] if left is None else left), slot)

    def _end_at(self, end: float, slot: int) -> None:
        """Schedule the end of the attempt on ``slot``.

        Attempts launched one after another that end at the same time (a job's
        tasks launched in one instant, with deterministic task times) share one
        heap entry: the first has its own, the others join an end group (one ``ENDS`` event).
        """
        self.slot_end[slot] = end
        if end == self.end_group_time:
            group = self.end_group
            if group is None:
                group = self.end_group = []
                self.end_group_count += 1
                self.end_groups[self.end_group_count] = group
                self.events.push(end, FINISH, self.end_group_count, ENDS)
            group.append(slot)
            group.append(self.slot_gen[slot])
            return
        self.end_group_time = end
        self.end_group = None
        self.events.push_end(end, slot, self.slot_gen[slot])

    def _finish(self, slot: int, now: float) -> None:
        """The attempt on ``slot`` completed (the release is inlined: this runs once per task)."""
        if self.suspending and slot in self.suspending:
            self._suspended(slot, now)
            return
        if self.hears_ends:
            job, kind, task, start, _ = self.slot_run[slot]
            self.scheduler.attempt_ended(job, kind, task, start, now)
        if self.heartbeat:
            job, kind, task, _, _ = self._release(slot, now, DONE_FATE)
        else:
            run: SlotRun = self.slot_run[slot]
            job, kind, task, start, locality = run
            if self.attempt_log.add(job.index, kind, task, self.slot_node[slot], slot, start, now, locality,
                                    DONE_FATE):
                self._report_progress()
            job.running[kind] = job.running[kind] - 1
            if self.changed is not None:
                self.changed.append(job)
            self.slot_run[slot] = None
            self.slot_gen[slot] = self.slot_gen[slot] + 1
            self.slot_busy[slot] = self.slot_busy[slot] + (now - start)
            self.running_total -= 1
            kind_freed = self.slot_kind[slot]
            self.free_count[kind_freed] = self.free_count[kind_freed] + 1
            if kind == MAP:
                job.map_state[task] = DONE
                done = job.maps_done = job.maps_done + 1
                if job.shuffle is not None:
                    self._map_output(job, job.shuffle, self.slot_node[slot], now)
                if done < job.open_at or (done < job.maps and job.reduces_open):
                    # The common case: nothing else changes. If the instant holds nothing
                    # more, offering the slot now is what the dispatch would do.
                    if self.dispatch_due or self.events.more_at(now):
                        self.freed.append(slot)
                        self.dispatch_due = True
                        return
                    kind = self.slot_kind[slot]
                    pending = self.pending
                    if not (pending[kind] if kind != ANY else pending[0] or pending[1]) or not self._offer(
                        slot, self.slot_node[slot], kind, now
                    ):
                        self.idle[slot] = 1
                    return
                self.freed.append(slot)
                self.dispatch_due = True
                return self._after_map(job, done, now)
            self.freed.append(slot)
            self.dispatch_due = True
        if kind == MAP:
            job.map_state[task] = DONE
            done = job.maps_done = job.maps_done + 1
            if job.shuffle is not None:
                self._map_output(job, job.shuffle, self.slot_node[slot], now)
            if done < job.open_at or (done < job.maps and job.reduces_open):
                return
            self._after_map(job, done, now)
        else:
            job.reduces_done += 1
            if self.max_computing:
                self._compute_slot_freed(self.slot_node[slot], now)
            self._maybe_done(job, now)

    def _after_map(self, job: JobRun, done: int, now: float) -> None:
        """A map completed that opens the job's reduces (at once, or after the stage delay) or was
        its last."""
        if not job.reduces_open:
            if self.stage_delay <= 0.0:
                self._open_reduces(job)
            elif job.index not in self.stage_due:
                self.stage_due.add(job.index)
                self.events.push(now + self.stage_delay, FINISH, job.index, STAGE)
        if done == job.maps:
            job.map_done = now
            if self.max_computing and job.pending_reduces:
                self._work_appeared(REDUCE)  # the per-node limit on copying reducers is lifted
            if job.copying and job.shuffle is None:  # with the network, copies end with their transfers
                copying, job.copying = job.copying, []
                job.copying_on.clear()
                for reducer in copying:
                    self._compute(reducer, self.slot_node[reducer], now)
        self._maybe_done(job, now)

    def _open_reduces(self, job: JobRun) -> None:
        """The job's reduces may launch from now on."""
        job.reduces_open = True
        if job.pending_reduces:
            if not job.held_reduces:
                self.pending[REDUCE] = self.pending[REDUCE] + job.pending_reduces
            if self.changed is not None:  # its pending tasks changed (at the end of a map, that end told it)
                self.changed.append(job)
            self.scheduler.job_has_work(job)
            if not job.held_reduces:
                self._work_appeared(REDUCE)

    def _maybe_done(self, job: JobRun, now: float) -> None:
        if job.maps_done == job.maps and job.reduces_done == job.reduces:
            job.finish = now
            del self.active[job.name]
            self.scheduler.job_finished(job, now)
            job.drop_tasks()
            if self.dependent:
                self._release_successors(job.index, now)
            if self.pending[0] or self.pending[1]:
                self._work_appeared()  # a job waiting for a running-job limit may start

    def _release_successors(self, index: int, now: float) -> None:
        """The job at ``index`` finished: its successors may arrive once their delays have passed."""
        for after, delay in self.successors[index]:
            at = now + delay
            if at > self.ready_at[after]:
                self.ready_at[after] = at
                self.held_by[after] = index
            left = self.waiting_on[after] - 1
            self.waiting_on[after] = left
            if left == 0:
                self.events.push(self.ready_at[after], ARRIVE, after, ARRIVAL)
                self.arrivals_due += 1

    def _compute_slot_freed(self, node: int, now: float) -> None:
        self.computing[node] = self.computing[node] - 1
        if self.compute_queue[node]:
            self._compute(self.compute_queue[node].pop(0), node, now)

    def _release(self, slot: int, now: float, fate: int) -> SlotRun:
        """Log the attempt on ``slot``, free the slot, and return the attempt."""
        run: SlotRun = self.slot_run[slot]
        job, kind, task, start, locality = run
        node = self.slot_node[slot]
        slot_kind = self.slot_kind[slot]
        if self.attempt_log.add(job.index, kind, task, node, slot, start, now, locality, fate):
            self._report_progress()
        job.running[kind] = job.running[kind] - 1
        if self.changed is not None:
            self.changed.append(job)
        self.slot_run[slot] = None
        self.slot_gen[slot] = self.slot_gen[slot] + 1  # a pending end event of this attempt is now stale
        self.slot_busy[slot] = self.slot_busy[slot] + (now - start)
        self.running_total -= 1
        if not self.running_total:
            self.last_change = now  # the cluster fell idle: the stall clock starts over
        self.free_count[slot_kind] = self.free_count[slot_kind] + 1
        if self.heartbeat == 0:
            self.freed.append(slot)
            self.dispatch_due = True
            return run
        self.node_free[node][slot_kind].append(slot)
        if not self.awake[node]:
            self._slot_freed(node, slot_kind, now)
        return run

    # -- taking a slot back: kill (work lost) or suspend (work kept) -------------------------------
    def kill(self, slot: int, now: float) -> None:
        """Kill the attempt on ``slot``: its work is lost and its task is pending again."""
        self._evict(slot, now, None)

    def suspend(self, slot: int, now: float, suspend_overhead: float = 0.0, resume_overhead: float = 0.0) -> None:
        """Suspend the attempt on ``slot``: it checkpoints for ``suspend_overhead`` seconds
        (holding its slot), then its task is pending again with the work left plus
        ``resume_overhead``."""
        self._evict(slot, now, (suspend_overhead, resume_overhead))

    def _evict(self, slot: int, now: float, overheads: tuple[float, float] | None) -> None:
        """Kill (``overheads`` None) or suspend the attempt on ``slot``.

        A killed attempt frees its slot now and its task starts over. A suspended
        one keeps its slot for the suspend overhead (the checkpoint), then frees
        it; its task is pending again with the work it had left (a reducer still
        copying has done none of its compute) plus the resume overhead. With the
        network on, a killed reducer loses the bytes it fetched and a suspended one
        keeps them (`_network_evict`).
        """
        run: SlotRun = self.slot_run[slot]
        job, kind, task = run[0], run[1], run[2]
        node = self.slot_node[slot]
        # A remote map reading its block: the seconds of work it had left (the network decides its end).
        reading_left = self._network_evict(slot, now, overheads is not None) if self.network is not None else None
        copying = kind == REDUCE and slot in job.copying
        queued = kind == REDUCE and slot in self.compute_queue[node]
        computing = kind == MAP or not (copying or queued)
        if copying:
            job.copying.remove(slot)
            job.copying_on[node] = job.copying_on[node] - 1
        elif queued:
            self.compute_queue[node].remove(slot)
        if overheads is None:
            self.counts["kills"] = self.counts["kills"] + 1
            self._stop_computing(kind, computing, node, now)
            self._release(slot, now, KILLED_FATE)
            self._pending_again(job, kind, task)
            return
        suspend_overhead, resume_overhead = overheads
        left = self.slot_end[slot] - now if computing else job.reduce_times[task]
        if reading_left is not None:
            left = reading_left
        self.counts["suspensions"] = self.counts["suspensions"] + 1
        self.suspending[slot] = left + resume_overhead
        self.slot_gen[slot] = self.slot_gen[slot] + 1  # the attempt's own end event is now stale
        self._stop_computing(kind, computing, node, now)
        self.overhead_seconds += suspend_overhead + resume_overhead  # the checkpoint now, the restore later
        self._end_at(now + suspend_overhead, slot)

    def _suspended(self, slot: int, now: float) -> None:
        """The checkpoint of a suspended attempt is done: free its slot, its task is pending again."""
        left = self.suspending.pop(slot)
        job, kind, task, _, _ = self._release(slot, now, SUSPENDED_FATE)
        job.left[(kind, task)] = left
        job.resume_on[(kind, task)] = self.slot_node[slot]
        self._pending_again(job, kind, task)

    def _stop_computing(self, kind: int, computing: bool, node: int, now: float) -> None:
        if kind == REDUCE and computing and self.max_computing:
            self._compute_slot_freed(node, now)

    def _pending_again(self, job: JobRun, kind: int, task: int) -> None:
        if kind == MAP:
            job.return_map(task)
            if not job.held_maps:
                self.pending[MAP] = self.pending[MAP] + 1
        else:
            job.reduce_queue.append(task)  # a stack: it is taken before the job's fresh reduces
            job.pending_reduces = job.pending_reduces + 1
            if job.reduces_open and not job.held_reduces:
                self.pending[REDUCE] = self.pending[REDUCE] + 1
        self.scheduler.job_has_work(job)
        self._work_appeared()

    # -- bytes over the network ------------------------------------------------------------
    def _network_init(self) -> None:
        """The network's state (part of the constructor; a test's subclass keeps every link)."""
        self.network: Network | None = None  # None: the network model is off (`SimOptions.network`)
        self.copies: dict[int, ReducerCopy] = {}
        self.reads: dict[int, float] = {}  # slot -> the cap (bytes/s) of the remote map reading there
        self.network_gen = 0
        self.network_dirty = False
        self.network_bytes = {"remote_reads": 0.0, "shuffle_remote": 0.0, "shuffle_local": 0.0}
        if self.options.network:
            self.network = Network(link_capacities(self.cluster, self.layout), slack_links(self.cluster, self.layout))
            self.links = Links(self.layout)
            self.node_rate = node_bytes_per_second(self.cluster)

    def _network_job(self, job: JobRun) -> None:
        """Give an arriving job its bytes (when the network is on and the job knows them)."""
        spec = job.job
        if spec.input_bytes:  # no bytes to read: nothing to wait for
            job.block = spec.input_bytes / job.maps
        if spec.shuffle_bytes and job.reduces:
            job.shuffle = ShuffleState(spec.shuffle_bytes, job.maps, job.reduces, self.layout.racks, self.node_rate)

    def _touch(self) -> Network:
        network = self.network
        if network is None:
            raise RuntimeError("the network model is off")  # the network paths run only when it is on
        self.network_dirty = True
        return network

    # -- remote map reads ------------------------------------------------------------------
    def _read_start(self, slot: int, job: JobRun, block: float, task: int, node: int, locality: int,
                    now: float) -> None:
        """A remote map reads its block (``job.block`` bytes) over the network."""
        replicas = job.task_replicas(task)
        source = replicas[0]
        if locality == RACK_LOCAL:
            rack = self.layout.rack_of[node]
            source = next(holder for holder in replicas if self.layout.rack_of[holder] == rack)
        cap = block / job.map_times[task]
        self.reads[slot] = cap
        self.slot_end[slot] = math.inf  # the network decides
        self._touch().add(2 * slot, self.links.path(source, node), block, now, cap)

    # -- the copy phase --------------------------------------------------------------------
    def _copy_start(self, slot: int, job: JobRun, state: ShuffleState, task: int, node: int, now: float) -> None:
        """A reducer of ``job`` (whose shuffle is ``state``) starts its copy phase."""
        if task in state.copied:  # suspended while computing: it holds its input
            state.copied.discard(task)
            self._compute(slot, node, now)
            return
        fetched = state.kept.pop(task, None) or [0.0, 0.0]
        copy = self.copies[slot] = ReducerCopy(job, state, node, self.layout.rack_of[node], fetched)
        job.copying.append(slot)
        job.copying_on[node] = job.copying_on.get(node, 0) + 1
        self._refill(slot, copy, now, True)

    def _refill(self, slot: int, copy: ReducerCopy, now: float, eager: bool) -> None:
        """Fetch what is available (all of it when ``eager`` or the maps are done, else a batch's
        worth at least); with nothing to fetch, wait for more maps or start computing."""
        job, state = copy.job, copy.state
        done = job.maps_done
        finished = done == job.maps
        in_rack = state.in_rack[copy.rack]
        produced = (state.chunk * (in_rack - state.on_node.get(copy.node, 0)), state.chunk * (done - in_rack))
        batch = state.chunk * state.step
        for kind in (0, 1):
            if copy.moving[kind]:
                continue
            backlog = produced[kind] - copy.fetched[kind]
            if backlog > state.chunk * 1e-9 and (eager or finished or backlog >= batch):
                links = self.links
                path = (links.ingress(copy.node),) if kind == 0 else (links.ingress(copy.node), links.down(copy.rack))
                self._touch().add(2 * slot + kind, path, backlog, now)
                copy.moving[kind] = backlog
        if copy.moving[0] or copy.moving[1]:
            return
        if finished:
            del self.copies[slot]
            job.copying.remove(slot)
            job.copying_on[copy.node] = job.copying_on[copy.node] - 1
            counted = self.network_bytes
            counted["shuffle_remote"] = counted["shuffle_remote"] + (copy.fetched[0] + copy.fetched[1])
            counted["shuffle_local"] = counted["shuffle_local"] + (state.chunk * state.on_node.get(copy.node, 0))
            self._compute(slot, copy.node, now)
            return
        state.waiting.setdefault(min(job.maps, done + state.step), []).append((slot, self.slot_gen[slot]))

    def _map_output(self, job: JobRun, state: ShuffleState, node: int, now: float) -> None:
        """A map of a shuffling job (its shuffle ``state``) ended on ``node`` (its ``maps_done``
        already counts it)."""
        state.on_node[node] = state.on_node.get(node, 0) + 1
        rack = self.layout.rack_of[node]
        state.in_rack[rack] = state.in_rack[rack] + 1
        woken = state.waiting.pop(job.maps_done, None)
        if woken:
            for slot, attempt in woken:
                copy = self.copies.get(slot)
                if copy is not None and self.slot_gen[slot] == attempt:
                    self._refill(slot, copy, now, True)

    # -- the network's events ----------------------------------------------------------------
    def _network_event(self, generation: int, now: float) -> None:
        """Flows completed (the event of the latest allocation only: earlier ones are stale)."""
        if generation != self.network_gen:
            return
        network = self._touch()
        ended = network.done(now)
        copies: dict[int, None] = {}
        for key in ended:
            network.remove(key, now)
        for key in ended:
            slot, kind = divmod(key, 2)
            if slot in self.reads:
                self.network_bytes["remote_reads"] = self.network_bytes["remote_reads"] + self.slot_run[slot][0].block
                del self.reads[slot]
                self.dispatch_due = True
                self._finish(slot, now)
            else:
                copy = self.copies[slot]
                copy.fetched[kind] = copy.fetched[kind] + copy.moving[kind]
                copy.moving[kind] = 0.0
                copies[slot] = None
        for slot in copies:
            waiting = self.copies.get(slot)
            if waiting is not None:
                self._refill(slot, waiting, now, False)

    def _network_settle(self, now: float) -> None:
        """The instant is over: share the links among the flows now in progress, and schedule the
        first completion."""
        network = self._touch()
        self.network_dirty = False
        network.reallocate(now)
        self.network_gen += 1
        when = network.next_done()
        if when < math.inf:
            self.events.push(max(when, self.events.now), FINISH, self.network_gen, NETWORK)

    def _network_evict(self, slot: int, now: float, suspend: bool) -> float | None:
        """Stop the transfers of the attempt on ``slot`` (a suspended reducer keeps what it
        fetched); for a remote map, return the seconds of work it had left at its full rate."""
        if slot in self.reads:
            cap = self.reads.pop(slot)
            return self._touch().remove(2 * slot, now) / cap
        copy = self.copies.pop(slot, None)
        job, kind, task, _, _ = self.slot_run[slot]
        if copy is None and suspend and kind == 1 and job.shuffle is not None:
            job.shuffle.copied.add(task)  # a computing reducer keeps its input
        if copy is not None:
            network = self._touch()
            for kind in (0, 1):
                if copy.moving[kind]:
                    copy.fetched[kind] = copy.fetched[kind] + (copy.moving[kind] - network.remove(2 * slot + kind, now))
            if suspend:
                job.shuffle.kept[task] = copy.fetched
        return None


__all__ = ["PENDING", "Simulation", "SimulationStalled"]
