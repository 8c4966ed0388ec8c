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
Theorem 1's eta); both are below (`Fresh.target_ours`, `Fresh.target_literal`).

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

The admission limit (`AdmissionLimit`). It is shared by `Fresh` and `Fair(k=...)`: at most k jobs in their map
phase (R_m) and k in their reduce phase (R_r).

Submitted jobs wait in R' in the scheduler's order (``key``) and enter R_m as places free; a job
whose last map completes leaves R_m and enters R_r, or waits for it in the order the maps
completed. The lists are changed in place, never replaced, so a scheduler may hold them under
its own names.

The slot configuration (Algorithms 2-3, Theorem 1): the two readings of Algorithm 3.

`Fresh` (``dynamic=True``) types every freed container: a map if fewer than the
target number of map slots are running maps, else a reduce (Algorithm 2). The
target is ``S * f`` with f the map fraction of the remaining work; Algorithm 3
decides whether f is today's (``cur``) or the one expected after the next phase
change (``exp``). Both readings share: the remaining map work RW_m of R_m
(maps not yet completed x the job's learned mean map time), J_a the job of R_m
with the least remaining map work, the look-ahead only once J_a has completed
``tau1`` of its maps, and J_b the head of R' (which enters R_m next).

``algorithm3="ours"`` (`Fresh.target_ours`, the default):

- RW_r = remaining reduce work of R_r only (jobs waiting for R_r cannot run reduces);
- RW_m' = RW_m - w'_m(a) + w_m(b); RW_r' = RW_r + w_r(a) when R_r has room for J_a;
- switch to f_exp when the ratios theta = RW_m / RW_r differ by more than tau2:
  ``|theta_exp - theta_cur| / theta_cur > tau2`` (an infinite theta_cur and a finite
  theta_exp differ by 1, the limit);
- eta is reported as the number of slots that change type between the two
  configurations, ``round(S f_exp) - round(S f_cur)``.

``algorithm3="literal"`` (`Fresh.target_literal`, the paper as written):

- RW_r = remaining reduce work of R_r and of the jobs waiting for R_r (R' of Algorithm 1);
- RW_m' = RW_m - w'_m(a) * k + w_m(b) (the other jobs of R_m assumed to progress like J_a;
  clamped at 0, which it passes when R_m holds fewer than k jobs); RW_r' = RW_r + w_r(a);
- eta by Theorem 1: ``eta = (sqrt(m_a^2 + 4 c w'_m(a)) - m_a) / (2 c r)`` with
  ``c = f_cur / (2 r k)``, m_a = J_a's running maps and r the time between reduce
  completions, ``1 / sum over running reduces of 1 / (their job's mean reduce time)``
  (no running reduce: none completes, eta = 0). Computed as ``x / r`` with
  ``x = 2 w / (sqrt(m_a^2 + 4 c w) + m_a)``, the same root without cancellation;
- s'_m = s_m + f_cur * eta (s_m = maps running now), and f_exp is used when
  ``|s'_m / S - f_exp| / f_exp > tau2`` (f_exp = 0: switch unless s'_m = 0).

`Fresh.target_ours` and `Fresh.target_literal` compute from scratch; a decision feeds `Fresh.ours`
from `Fresh.map_side` and RW_r over `KeptWorks`, which keeps each admitted job's remaining work
between decisions.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from mypy_extensions import mypyc_attr

from models.checks import as_float, as_int, as_str
from models.errors import InvalidInput
from planner.simulator.jobs import JobRun
from planner.simulator.layout import ANY, MAP, REDUCE
from planner.simulator.locality import DelaySetting
from planner.simulator.schedulers.base import (
    LaunchTuple,
    Scheduler,
    as_order,
    check_order_names,
    order_rank,
    remade,
)
from planner.simulator.schedulers.catalog import register

if TYPE_CHECKING:
    from planner.simulator.core import Simulation


# -- the scheduler ------------------------------------------------------------------------------
@mypyc_attr(allow_interpreted_subclasses=True, serializable=True)  # subclassed in Python; copied, pickled
class Fresh(Scheduler):
    """FRESH: admission limit ``k`` per phase, dynamic slot typing (``dynamic``) with the
    look-ahead thresholds ``tau1`` (fraction of J's maps done) and ``tau2`` (relative change
    of theta), Algorithm 3 read as ``algorithm3`` ("ours" or "literal"), and assignment to
    the job with the smallest overall-fairness share r_i."""

    name = "fresh"
    settings = ("k", "tau1", "tau2", "dynamic", "delay", "order", "algorithm3")
    hears_ends = True

    def __init__(self, k: Any = 5, tau1: Any = 0.8, tau2: Any = 0.6, dynamic: Any = True, delay: DelaySetting = None,
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
        if self.sim is not None:  # R' gets no task: its jobs' tasks are not offered (`Simulation.hold`)
            self.sim.hold(job, MAP)
            self.sim.hold(job, REDUCE)
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
        """Fill R_r from the jobs whose maps are done, and R_m from R' (their tasks of that phase
        are offered from now on: `Simulation.release`)."""
        if not self.limit.admit(self.sim):
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

    # -- Algorithms 2-3: the slot configuration ---------------------------------------------------
    def slot_target(self, now: float) -> SlotTarget:
        """The slot configuration FRESH aims at now (`SlotTarget`), by the ``algorithm3`` reading."""
        return self.target_ours() if self.algorithm3 == "ours" else self.target_literal()

    def map_works(self) -> list[float]:
        """RW_m of each job of R_m, in R_m's order (what `Fresh` keeps up to date job by job)."""
        return [self.remaining_work(job, MAP) for job in self.map_phase]

    def reduce_works(self) -> list[float]:
        """RW_r of each job of R_r, in R_r's order."""
        return [self.remaining_work(job, REDUCE) for job in self.reduce_phase]

    def _head_map_work(self) -> float:
        """w_m(b): the whole map work of the head of R' (0 when R' is empty)."""
        if not self.waiting:
            return 0.0
        head = self.waiting[0]
        return head.maps * self.mean_time(head, MAP)

    def map_side(self, works: list[float]) -> MapSide:
        """What Algorithm 3 reads of R_m and R', from ``works`` (RW_m of each job of R_m, in its
        order): (RW_m, J_a, w'_m(a), w_m(b)). J_a is the job with the least remaining map work (then
        submit time, then name; the first of equals) if it has passed tau1, else None (and 0, 0)."""
        work_map = sum(works)
        if not works:
            return work_map, None, 0.0, 0.0
        phase = self.map_phase
        least = min(works)
        closest = phase[works.index(least)]
        if works.count(least) > 1:
            for position, work in enumerate(works):
                # `JobRun.order` ranks by (submit, name).
                if work == least and phase[position].order < closest.order:
                    closest = phase[position]
        if closest.maps_done < self.tau1 * closest.maps:
            return work_map, None, 0.0, 0.0
        return work_map, closest, least, self._head_map_work()

    def ours(self, work_map: float, closest: JobRun | None, own: float, head: float,
             work_reduce: float) -> Ours:
        """Algorithm 3 as read here from `map_side` and RW_r: (RW_m, RW_r, theta_cur, theta_exp,
        theta, switched, eta, S f, J_a's name)."""
        theta_cur = ratio(work_map, work_reduce)
        fraction = map_fraction(work_map, work_reduce)
        theta_exp: float | None = None
        eta: float | None = None
        lookahead: str | None = None
        switched = False
        slots = self.total_slots
        if closest is not None:
            lookahead = closest.name
            reduce_next = work_reduce
            if len(self.reduce_phase) < self.k:
                reduce_next += self.remaining_work(closest, REDUCE)
            map_next, reduce_next = max(work_map - own + head, 0.0), max(reduce_next, 0.0)
            theta_exp = ratio(map_next, reduce_next)
            fraction_exp = map_fraction(map_next, reduce_next)
            eta = float(round(slots * fraction_exp) - round(slots * fraction))
            if relative_change(theta_cur, theta_exp) > self.tau2:
                switched = True
                fraction = fraction_exp
        theta = theta_exp if switched and theta_exp is not None else theta_cur
        return work_map, work_reduce, theta_cur, theta_exp, theta, switched, eta, slots * fraction, lookahead

    def running_maps(self) -> int:
        """s_m: the maps running now (only jobs of R_m run maps)."""
        return sum([job.running[MAP] for job in self.map_phase])

    def reduce_interval(self) -> float:
        """r of Theorem 1: seconds between reduce completions at the running reduces' learned means."""
        rate = 0.0
        for job in self.reduce_phase:
            if job.running[REDUCE]:
                mean = self.mean_time(job, REDUCE)
                rate += float(job.running[REDUCE]) / mean if mean > 0 else math.inf
        return 1.0 / rate if rate > 0 else math.inf

    def target_ours(self) -> SlotTarget:
        """Algorithm 3 as read here (module docstring)."""
        work, closest, own, head = self.map_side(self.map_works())
        (work_map, work_reduce, theta_cur, theta_exp, theta, switched, eta, target_maps,
         lookahead) = self.ours(work, closest, own, head, sum(self.reduce_works()))
        return SlotTarget(work_map, work_reduce, theta_cur, theta_exp, theta, switched, eta, target_maps,
                          self.running_maps(), lookahead)

    def target_literal(self) -> SlotTarget:
        """Algorithm 3 as the paper writes it (module docstring)."""
        work_map, closest, own, head = self.map_side(self.map_works())
        work_reduce = sum(self.remaining_work(job, REDUCE)
                          for job in (*self.reduce_phase, *self.reduce_waiting))
        running = self.running_maps()
        theta_cur = ratio(work_map, work_reduce)
        fraction = map_fraction(work_map, work_reduce)
        theta_exp: float | None = None
        eta: float | None = None
        lookahead: str | None = None
        predicted: float | None = None
        switched = False
        slots = self.total_slots
        if closest is not None:
            lookahead = closest.name
            map_next = max(work_map - own * self.k + head, 0.0)
            reduce_next = work_reduce + self.remaining_work(closest, REDUCE)
            theta_exp = ratio(map_next, reduce_next)
            fraction_exp = map_fraction(map_next, reduce_next)
            eta = theorem1_eta(own, closest.running[MAP], fraction, self.reduce_interval(), self.k)
            predicted = running + (fraction * eta if fraction > 0 else 0.0)
            if slots and relative_change(fraction_exp, predicted / slots) > self.tau2:
                switched = True
                fraction = fraction_exp
        theta = theta_exp if switched and theta_exp is not None else theta_cur
        return SlotTarget(work_map, work_reduce, theta_cur, theta_exp, theta, switched, eta, slots * fraction,
                          running, lookahead, predicted)

    # -- Algorithm 4: the assignment ---------------------------------------------------------------
    def _typing(self) -> tuple[float, bool]:
        """`slot_target`'s ``target_maps`` and ``switched``. For ``"ours"``, from what is kept of
        the map side (`map_side`) and of RW_r, each computed again only once it has changed."""
        if self.algorithm3 != "ours":
            target = self.target_literal()
            return target.target_maps, target.switched
        typed = self.typed
        if typed is None:
            side = self.map_kept
            if side is None:
                side = self.map_kept = self.map_side(self.kept[MAP].get())
            work_reduce = self.reduce_kept
            if work_reduce is None:
                work_reduce = self.reduce_kept = sum(self.kept[REDUCE].get())
            work_map, closest, own, head = side
            fields = self.ours(work_map, closest, own, head, work_reduce)
            typed = self.typed = (fields[7], fields[5])
        return typed

    def pick(self, node: int, kind: int, now: float) -> LaunchTuple | None:
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

    def _assign(self, node: int, kind: int, now: float) -> LaunchTuple | None:
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

    def _assign_others(self, declined: JobRun, node: int, kind: int, now: float) -> LaunchTuple | None:
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


# -- the admission limit ------------------------------------------------------------------------
@mypyc_attr(allow_interpreted_subclasses=True)  # subclassed in Python (a test's reference)
class AdmissionLimit:
    """R_m, R_r, R' and the jobs waiting for R_r, with the moves between them."""

    def __init__(self, k: int, key: Callable[[JobRun], Any]) -> None:
        self.k = k
        self.key = key
        self.map_phase: list[JobRun] = []  # R_m, in admission order
        self.reduce_phase: list[JobRun] = []  # R_r, in admission order
        self.waiting: list[JobRun] = []  # R', by key
        self.reduce_waiting: list[JobRun] = []  # maps done, R_r full: in order of map completion

    def __reduce__(self) -> tuple[Any, ...]:
        return (remade, (type(self), (self.k, self.key), {
            "map_phase": self.map_phase, "reduce_phase": self.reduce_phase, "waiting": self.waiting,
            "reduce_waiting": self.reduce_waiting}))

    def arrived(self, job: JobRun) -> None:
        """Into R', after the jobs whose key is not larger (ties keep their arrival order): R' is
        sorted by ``key`` (arrivals are its only inserts), so the place is found by bisection."""
        self.waiting.insert(bisect.bisect_right(self.waiting, self.key(job), key=self.key), job)

    def finished(self, job: JobRun) -> None:
        """Out of the list that holds it (the lists never share a job; a job that ever ran a task
        has left R', which is looked at only for a job that never ran)."""
        lists = (self.reduce_phase, self.map_phase, self.reduce_waiting)
        for phase in lists if job.start is not None else (*lists, self.waiting):
            if job in phase:
                phase.remove(job)
                return

    def last_map_done(self, job: JobRun) -> bool:
        """``job``'s last map completed: it leaves R_m (for R_r when it has reduces). True when
        it was in R_m (places may have freed)."""
        if job not in self.map_phase:
            return False
        self.map_phase.remove(job)
        if job.reduces:
            self.reduce_waiting.append(job)
        return True

    def admit(self, sim: Simulation | None = None) -> bool:
        """Fill R_r from the jobs whose maps are done, and R_m from R'; True when a job entered.
        With ``sim``, each job that entered has its tasks of that phase released (`Simulation.release`)."""
        admitted = False
        while self.reduce_waiting and len(self.reduce_phase) < self.k:
            job = self.reduce_waiting.pop(0)
            self.reduce_phase.append(job)
            if sim is not None:
                sim.release(job, REDUCE)
            admitted = True
        while self.waiting and len(self.map_phase) < self.k:
            job = self.waiting.pop(0)
            self.map_phase.append(job)
            if sim is not None:
                sim.release(job, MAP)
            admitted = True
        return admitted


# -- the slot configuration (Algorithms 2-3) ----------------------------------------------------
#: The readings of Algorithm 3 `Fresh` takes (``algorithm3=``).
READINGS: Final = ("ours", "literal")


class SlotTarget(NamedTuple):
    """FRESH's slot configuration at one instant (see the module docstring).

    ``theta_cur`` / ``theta_exp`` are ratios RW_m / RW_r (the paper's map fraction is
    theta / (1 + theta)); ``theta`` is the one in use (``theta_exp`` when ``switched``);
    ``target_maps`` = S * theta / (1 + theta); ``lookahead`` names the job J_a whose coming
    phase change was looked at (None when no job of R_m has passed tau1), and
    ``theta_exp`` / ``eta`` are None then too. ``eta`` is the number of slots that change
    type (``ours``) or Theorem 1's eta (``literal``); ``predicted_maps`` is the literal
    reading's s'_m (None otherwise).
    """

    work_map: float
    work_reduce: float
    theta_cur: float
    theta_exp: float | None
    theta: float
    switched: bool
    eta: float | None
    target_maps: float
    running_maps: int
    lookahead: str | None
    predicted_maps: float | None = None


#: What `map_side` returns: (RW_m, J_a, w'_m(a), w_m(b)).
MapSide = tuple[float, JobRun | None, float, float]


def ratio(work_map: float, work_reduce: float) -> float:
    if work_reduce > 0:
        return work_map / work_reduce
    return math.inf if work_map > 0 else 0.0


def map_fraction(work_map: float, work_reduce: float) -> float:
    """theta / (1 + theta), without dividing by an infinite or zero theta."""
    total = work_map + work_reduce
    return work_map / total if total > 0 else 0.0


def relative_change(theta_cur: float, theta_exp: float) -> float:
    """``|theta_exp - theta_cur| / theta_cur``, with its limits at 0 and infinity."""
    if math.isinf(theta_cur):
        return 0.0 if math.isinf(theta_exp) else 1.0
    if theta_cur == 0:
        return 0.0 if theta_exp == 0 else math.inf
    return abs(theta_exp - theta_cur) / theta_cur


def theorem1_eta(work: float, running: int, fraction: float, interval: float, k: int) -> float:
    """Theorem 1: reduce slots freed while J_a finishes ``work`` seconds of maps on ``running``
    slots plus its 1/k part of the ``fraction`` of the slots freed, one every ``interval`` s."""
    if work <= 0 or not math.isfinite(interval):
        return 0.0
    if interval <= 0:  # reduces of zero mean time: every reduce slot frees at once
        return math.inf
    c = fraction / (2.0 * interval * k)
    root = math.sqrt(running * running + 4.0 * c * work) + running
    return math.inf if root == 0 else 2.0 * work / root / interval


class KeptWorks:
    """RW of each job of a phase (R_m or R_r), in its order, kept job by job for `map_side` and
    RW_r: a job's work is computed again only after an attempt of it ended (`ended`), or, for a
    job without a completed task of the kind (it reads the mean of all jobs, which every end
    moves), at every reading; the whole list after the phase changed (`reset`)."""

    def __init__(self, scheduler: Fresh, kind: int, phase: list[JobRun]) -> None:
        self.scheduler = scheduler
        self.kind = kind
        self.phase = phase
        self.works: list[float] | None = None  # None: to compute
        self.ended: list[JobRun] = []  # jobs of the phase whose attempt ended since (while kept)
        self.unseen: list[int] = []  # positions of the jobs without a completed task of the kind

    def __reduce__(self) -> tuple[Any, ...]:
        return (remade, (type(self), (self.scheduler, self.kind, self.phase),
                         {"works": self.works, "ended": self.ended, "unseen": self.unseen}))

    def reset(self) -> None:
        self.works = None
        self.ended.clear()

    def get(self) -> list[float]:
        """The remaining work of each job of the phase now, in its order."""
        scheduler, kind, phase = self.scheduler, self.kind, self.phase
        counts = scheduler.own_count[kind]
        works = self.works
        if works is not None:
            try:
                for job in self.ended:
                    works[phase.index(job)] = scheduler.remaining_work(job, kind)
            except ValueError:  # not in the phase: it changed
                works = None
        if works is None:
            works = self.works = [scheduler.remaining_work(job, kind) for job in phase]
            self.unseen = [position for position, job in enumerate(phase) if not counts[job.index]]
        elif self.unseen:
            for position in self.unseen:
                works[position] = scheduler.remaining_work(phase[position], kind)
            self.unseen = [position for position in self.unseen if not counts[phase[position].index]]
        self.ended.clear()
        return works


#: What `ours` returns: the fields of `SlotTarget` but the running maps and the literal reading's.
Ours = tuple[float, float, float, float | None, float, bool, float | None, float, str | None]


register(Fresh)  # a call, not the decorator: a compiled class takes no decorator of ours (setup.py)

__all__ = ["AdmissionLimit", "Fresh", "SlotTarget", "relative_change", "theorem1_eta"]
