"""FRESH (Wang et al.): admission limit k, dynamic slot typing, overall-fairness assignment.

Admission. At most ``k`` jobs are in their map phase (R_m) and at most ``k``
in their reduce phase (R_r). Submitted jobs wait in R' (ordered by submit
time, then name), each admitted as it arrives if R_m has room: of the jobs
submitted together, the first k in workload order enter at once and the rest
wait by name (plans pass their order instead). With ``order`` (a plan's
admission order), R' puts the jobs it names first, in its order, and
admission waits until every job of the instant has arrived, so the order
decides from the first job on. A job leaves R_m when its last
map completes: a job without reduces leaves the system, the others enter R_r
when it has room, else wait for it in the order their maps completed. Only jobs
of R_m get maps and only jobs of R_r get reduces.

Slot typing (``dynamic=True``, Algorithms 2-3). The scheduler runs on
containers (slots that run either kind) and types each freed one: a map if
fewer than the target number of map slots ``S * theta / (1 + theta)`` are
running maps, else a reduce; when no admitted job has a task of that kind, the
other kind. theta is the ratio of the remaining map work to the remaining
reduce work, today's or, near a phase change, the one expected after it
(Algorithm 3). ``algorithm3`` picks the reading: ``"ours"`` (default) or
``"literal"`` (the paper as written: w'_m(a) k, R' in the reduce backlog,
Theorem 1's eta); both are in `fresh_dynamic`.

Mean task times are learned from completed attempts (slot-seconds, so a map
that ran rack-local counts as longer): a job's own mean per kind; before its
first completed task of a kind, the mean of the completed tasks of that kind of
all other jobs; before any, the job's declared mean.

Assignment (Algorithm 4). The task goes to the admitted job with a task of the
chosen kind and the smallest ``r_i`` of Eq. 1: slot-seconds received since
submission (completed attempts plus the elapsed time of running ones) over
``now - submit_i``; at the submit instant itself, its limit: the number of
slots the job holds (so jobs submitted together share the first slots
round-robin); ties by submit time, then name.

Cost. A decision reads only the admitted jobs (at most k per phase), never R': the slot target
(``"ours"``) and the remaining work of each admitted job are kept between decisions and only
what changed is computed again (an attempt's end: its job and its kind's side; an admission: all
of it), in the same order and arithmetic as from scratch, so the results are those of the
computation over every admitted job. R' is kept sorted by bisection. The ``"literal"`` reading
computes its target from scratch at each decision, the jobs waiting for R_r included.

``dynamic=False`` is FRESH-static: typed slots (``simulate(..., slots=(s_m,
s_r))``), the same admission limit and the same fair assignment.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mypy_extensions import mypyc_attr

from models.checks import as_float, as_int, as_str
from models.errors import InvalidInput
from planner.simulator.jobs import JobRun
from planner.simulator.layout import ANY, MAP, REDUCE
from planner.simulator.schedulers.admission import AdmissionLimit
from planner.simulator.schedulers.base import Launch, Scheduler, as_order, check_order_names, order_rank, register
from planner.simulator.schedulers.fresh_dynamic import (
    READINGS,
    TARGETS,
    KeptWorks,
    MapSide,
    SlotTarget,
    map_side,
    ours,
    relative_change,
)

if TYPE_CHECKING:
    from planner.simulator.core import Simulation


@mypyc_attr(allow_interpreted_subclasses=True, serializable=True)  # subclassed in Python; copied, pickled
class Fresh(Scheduler):
    """FRESH: admission limit ``k`` per phase, dynamic slot typing (``dynamic``) with the
    look-ahead thresholds ``tau1`` (fraction of J's maps done) and ``tau2`` (relative change
    of theta), Algorithm 3 read as ``algorithm3`` ("ours" or "literal"), and assignment to
    the job with the smallest overall-fairness share r_i."""

    name = "fresh"
    settings = ("k", "tau1", "tau2", "dynamic", "delay", "order", "algorithm3")
    hears_ends = True

    # The settings are Any: they are validated here, with InvalidInput, not by a compiled type check.
    def __init__(self, k: Any = 5, tau1: Any = 0.8, tau2: Any = 0.6, dynamic: Any = True, delay: Any = None,
                 order: Any = None, algorithm3: Any = "ours") -> None:
        super().__init__(delay)
        self.ranks = as_order(order)
        self.k = as_int(k, "k", minimum=1)
        self.tau1 = as_float(tau1, "tau1", minimum=0.0)
        if self.tau1 > 1.0:
            raise InvalidInput("tau1", f"must be a fraction of a job's maps in [0, 1], got {tau1!r}")
        self.tau2 = as_float(tau2, "tau2", minimum=0.0)
        if not isinstance(dynamic, bool):
            raise InvalidInput("dynamic", f"must be true or false, got {dynamic!r}")
        self.dynamic = dynamic
        self.algorithm3 = as_str(algorithm3, "algorithm3", choices=READINGS)
        #: `simulate` runs a dynamic FRESH on containers, which it types itself.
        self.wants_containers = dynamic
        self.total_slots = 0
        self._reset(0)

    def __repr__(self) -> str:
        order = None if self.ranks is None else list(self.ranks)
        return (f"Fresh(k={self.k}, tau1={self.tau1}, tau2={self.tau2}, dynamic={self.dynamic}, "
                f"delay={self.delay!r}, order={order!r}, algorithm3={self.algorithm3!r})")

    def describe(self) -> dict[str, Any]:
        data = super().describe()
        data.update(k=self.k, tau1=self.tau1, tau2=self.tau2, dynamic=self.dynamic, algorithm3=self.algorithm3)
        if self.ranks is not None:
            data["order"] = list(self.ranks)
        return data

    def _reset(self, jobs: int) -> None:
        self.limit = AdmissionLimit(self.k, self._key)
        # R_m, R_r, R' (by order, submit, name) and the jobs waiting for R_r, under the names
        # Algorithms 2-4 read (the same lists, changed in place by the admission limit).
        self.map_phase: list[JobRun] = self.limit.map_phase
        self.reduce_phase: list[JobRun] = self.limit.reduce_phase
        self.waiting: list[JobRun] = self.limit.waiting
        self.reduce_waiting: list[JobRun] = self.limit.reduce_waiting
        self.received = [0.0] * jobs  # slot-seconds of completed attempts
        self.running_count = [0] * jobs
        self.maps_running = 0  # s_m: only jobs of R_m run maps, and a job leaves it with its last map
        self.running_starts = [0.0] * jobs  # sum of the start times of running attempts
        self.own_sum: tuple[list[float], list[float]] = ([0.0] * jobs, [0.0] * jobs)  # by kind, then job index
        self.own_count: tuple[list[int], list[int]] = ([0] * jobs, [0] * jobs)
        self.all_sum = [0.0, 0.0]
        self.all_count = [0, 0]
        # The slot target (`ours`): S f and whether it switched, `map_side` and RW_r, kept until
        # what they read changes (None: to compute): an attempt ending changes its kind's side, a
        # job arriving, entering or leaving a phase changes both; launches change only the
        # running maps, counted at each decision. RW of each job of R_m and R_r, kept job by job.
        self.kept = (KeptWorks(self, MAP, self.map_phase), KeptWorks(self, REDUCE, self.reduce_phase))
        self.typed: tuple[float, bool] | None = None
        self.map_kept: MapSide | None = None
        self.reduce_kept: float | None = None
        self.counts: dict[str, int] = {"typed_map": 0, "typed_reduce": 0, "switched": 0, "other_kind": 0}

    # -- hooks -----------------------------------------------------------------------------
    def bind(self, sim: Simulation) -> None:
        super().bind(sim)
        containers = sim.options.containers
        if self.dynamic and not containers:
            raise InvalidInput(
                "dynamic",
                "FRESH's dynamic slots run on containers (simulate() switches them on; "
                "with Simulation pass SimOptions(containers=True))",
            )
        if not self.dynamic and containers:
            raise InvalidInput(
                "dynamic", "FRESH-static (dynamic=false) runs on typed map and reduce slots, not on containers"
            )
        check_order_names(self.ranks, sim)
        self._reset(len(sim.workload))
        self.total_slots = sim.slot_count
        self._changed()

    def _changed(self) -> None:
        """R_m, R_r or R' changed: the slot target is computed again."""
        self.typed = self.map_kept = self.reduce_kept = None
        self.kept[MAP].reset()
        self.kept[REDUCE].reset()

    def job_arrived(self, job: JobRun, now: float) -> None:
        self.limit.arrived(job)
        self._changed()
        if self.ranks is None or self.sim is None:
            self._admit(now)
        else:
            # Admit once every job submitted at this instant is in R' (a wake-up comes after the
            # instant's arrivals and before any slot is offered), so the order decides, not arrival.
            self.sim.request_wake(now)

    def wake(self, now: float) -> None:
        self._admit(now)

    def _key(self, job: JobRun) -> tuple[int, float, str]:
        return (order_rank(self.ranks, job), job.submit, job.name)

    def job_finished(self, job: JobRun, now: float) -> None:
        self.limit.finished(job)
        self._changed()
        self._admit(now)

    def attempt_ended(self, job: JobRun, kind: int, task: int, start: float, end: float) -> None:
        index = job.index
        seconds = end - start
        self.received[index] = self.received[index] + seconds
        self.running_count[index] = self.running_count[index] - 1
        self.running_starts[index] = self.running_starts[index] - start
        own_sum, own_count = self.own_sum[kind], self.own_count[kind]
        own_sum[index] = own_sum[index] + seconds
        own_count[index] = own_count[index] + 1
        self.all_sum[kind] = self.all_sum[kind] + seconds
        self.all_count[kind] = self.all_count[kind] + 1
        self.typed = None
        if kind == MAP:
            self.maps_running -= 1
            self.map_kept = None
        else:
            self.reduce_kept = None
        kept = self.kept[kind]
        if kept.works is not None:
            kept.ended.append(job)
        # Its last map (the simulation raises maps_done after this call).
        if kind == MAP and job.maps_done + 1 == job.maps and self.limit.last_map_done(job):
            self._changed()
            self._admit(end)

    def _admit(self, now: float) -> None:
        """Fill R_r from the jobs whose maps are done, and R_m from R'."""
        if not self.limit.admit():
            return
        self._changed()
        if self.sim is not None:
            # Slots declined while no admitted job had work are offered again.
            self.sim.request_wake(now)

    # -- learned task times and shares ---------------------------------------------------------
    def mean_time(self, job: JobRun, kind: int) -> float:
        """The job's mean task time of ``kind`` as learned so far (see the module docstring)."""
        count = self.own_count[kind][job.index]
        if count:
            return self.own_sum[kind][job.index] / count
        if self.all_count[kind]:
            return self.all_sum[kind] / self.all_count[kind]
        return job.map_time if kind == MAP else job.reduce_time

    def remaining_work(self, job: JobRun, kind: int) -> float:
        """Tasks of ``kind`` not yet completed x the learned mean task time."""
        left = job.maps - job.maps_done if kind == MAP else job.reduces - job.reduces_done
        if not left:
            return 0.0
        count = self.own_count[kind][job.index]
        # `mean_time`, inlined for the common case: this runs at nearly every attempt's end.
        return left * (self.own_sum[kind][job.index] / count if count else self.mean_time(job, kind))

    def share(self, job: JobRun, now: float) -> float:
        """Eq. 1: slot-seconds received since submission (running attempts included) / (now - submit)."""
        index = job.index
        elapsed = now - job.submit
        if elapsed <= 0:
            # The limit of Eq. 1 at the submit instant: the slots the job holds (all launched now).
            return float(self.running_count[index])
        received = self.received[index] + self.running_count[index] * now - self.running_starts[index]
        return received / elapsed

    # -- Algorithms 2-3: the slot configuration (`fresh_dynamic`) ---------------------------------
    def slot_target(self, now: float) -> SlotTarget:
        """The slot configuration FRESH aims at now (`SlotTarget`), by the ``algorithm3`` reading."""
        return TARGETS[self.algorithm3](self)

    # -- Algorithm 4: the assignment ---------------------------------------------------------------
    def _typing(self) -> tuple[float, bool]:
        """`slot_target`'s ``target_maps`` and ``switched``. For ``"ours"``, from what is kept of
        the map side (`map_side`) and of RW_r, each computed again only once it has changed."""
        if self.algorithm3 != "ours":
            target = TARGETS[self.algorithm3](self)
            return target.target_maps, target.switched
        typed = self.typed
        if typed is None:
            side = self.map_kept
            if side is None:
                side = self.map_kept = map_side(self, self.kept[MAP].get())
            work_reduce = self.reduce_kept
            if work_reduce is None:
                work_reduce = self.reduce_kept = sum(self.kept[REDUCE].get())
            work_map, closest, own, head = side
            fields = ours(self, work_map, closest, own, head, work_reduce)
            typed = self.typed = (fields[7], fields[5])
        return typed

    def pick(self, node: int, kind: int, now: float) -> Launch | None:
        if kind == ANY:
            target_maps, switched = self._typing()
            first = MAP if self.maps_running < target_maps else REDUCE
            counts = self.counts
            typed = "typed_map" if first == MAP else "typed_reduce"
            counts[typed] = counts[typed] + 1
            if switched:
                counts["switched"] = counts["switched"] + 1
            launch = self._assign(node, first, now)
            if launch is None:
                launch = self._assign(node, REDUCE if first == MAP else MAP, now)
                if launch is not None:
                    counts["other_kind"] = counts["other_kind"] + 1
        else:
            launch = self._assign(node, kind, now)
        if launch is not None:
            index = launch[0].index
            self.running_count[index] = self.running_count[index] + 1
            if launch[1] == MAP:
                self.maps_running += 1
            self.running_starts[index] = self.running_starts[index] + now
        return launch

    def _assign(self, node: int, kind: int, now: float) -> Launch | None:
        """The first launch over the admitted jobs with a pending task of ``kind``, in the order
        of (`share`, submit, name): the first job is found in one pass, the others are sorted
        only if it declines (delay scheduling, a reducer that may not copy yet)."""
        received, running, starts = self.received, self.running_count, self.running_starts
        best: JobRun | None = None
        least = 0.0
        count = 0
        for job in self.map_phase if kind == MAP else self.reduce_phase:
            if not (job.pending_maps if kind == MAP else job.reduces_open and job.pending_reduces):
                continue
            count += 1
            index = job.index
            elapsed = now - job.submit
            # `share`, inlined: this runs for every admitted job at every decision.
            share = (float(running[index]) if elapsed <= 0 else
                     (received[index] + running[index] * now - starts[index]) / elapsed)
            # `JobRun.order` ranks by (submit, name).
            if best is None or share < least or (share == least and job.order < best.order):
                best, least = job, share
        if best is None:
            return None
        launch = self.take(best, node, kind, now)
        if launch is not None or count == 1:
            return launch
        return self._assign_others(best, node, kind, now)

    def _assign_others(self, declined: JobRun, node: int, kind: int, now: float) -> Launch | None:
        """`_assign` after its first job ``declined``: the others in the order of (`share`, submit, name)."""
        candidates = [job for job in (self.map_phase if kind == MAP else self.reduce_phase)
                      if job is not declined and job.pending(kind)]
        candidates.sort(key=lambda job: (self.share(job, now), job.order))
        for job in candidates:
            launch = self.take(job, node, kind, now)
            if launch is not None:
                return launch
        return None

    def admission(self) -> dict[str, list[str]]:
        """Names of the jobs in R_m, R_r, R' and waiting for R_r, now."""
        return {
            "map_phase": [job.name for job in self.map_phase],
            "reduce_phase": [job.name for job in self.reduce_phase],
            "waiting": [job.name for job in self.waiting],
            "reduce_waiting": [job.name for job in self.reduce_waiting],
        }


register(Fresh)  # a call, not the decorator: a compiled class takes no decorator of ours (setup.py)

__all__ = ["Fresh", "SlotTarget", "relative_change"]
