"""FRESH's dynamic slot configuration (Algorithms 2-3, Theorem 1): the two readings of Algorithm 3.

`Fresh` (``dynamic=True``) types every freed container: a map if fewer than the
target number of map slots are running maps, else a reduce (Algorithm 2). The
target is ``S * f`` with f the map fraction of the remaining work; Algorithm 3
decides whether f is today's (``cur``) or the one expected after the next phase
change (``exp``). Both readings share: the remaining map work RW_m of R_m
(maps not yet completed x the job's learned mean map time), J_a the job of R_m
with the least remaining map work, the look-ahead only once J_a has completed
``tau1`` of its maps, and J_b the head of R' (which enters R_m next).

``algorithm3="ours"`` (`target_ours`, the default):

- RW_r = remaining reduce work of R_r only (jobs waiting for R_r cannot run reduces);
- RW_m' = RW_m - w'_m(a) + w_m(b); RW_r' = RW_r + w_r(a) when R_r has room for J_a;
- switch to f_exp when the ratios theta = RW_m / RW_r differ by more than tau2:
  ``|theta_exp - theta_cur| / theta_cur > tau2`` (an infinite theta_cur and a finite
  theta_exp differ by 1, the limit);
- eta is reported as the number of slots that change type between the two
  configurations, ``round(S f_exp) - round(S f_cur)``.

``algorithm3="literal"`` (`target_literal`, the paper as written):

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

`target_ours` and `target_literal` compute from scratch; `Fresh` feeds `ours` from `map_side`
and RW_r over `KeptWorks`, which keeps each admitted job's remaining work between decisions.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from planner.simulator.jobs import JobRun
from planner.simulator.layout import MAP, REDUCE
from planner.simulator.schedulers.base import remade

if TYPE_CHECKING:
    from planner.simulator.schedulers.fresh import Fresh

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


def reduce_interval(scheduler: Fresh) -> float:
    """r of Theorem 1: seconds between reduce completions at the running reduces' learned means."""
    rate = 0.0
    for job in scheduler.reduce_phase:
        if job.running[REDUCE]:
            mean = scheduler.mean_time(job, REDUCE)
            rate += job.running[REDUCE] / mean if mean > 0 else math.inf
    return 1.0 / rate if rate > 0 else math.inf


def map_works(scheduler: Fresh) -> list[float]:
    """RW_m of each job of R_m, in R_m's order (what `Fresh` keeps up to date job by job)."""
    return [scheduler.remaining_work(job, MAP) for job in scheduler.map_phase]


def reduce_works(scheduler: Fresh) -> list[float]:
    """RW_r of each job of R_r, in R_r's order."""
    return [scheduler.remaining_work(job, REDUCE) for job in scheduler.reduce_phase]


def _head_map_work(scheduler: Fresh) -> float:
    """w_m(b): the whole map work of the head of R' (0 when R' is empty)."""
    if not scheduler.waiting:
        return 0.0
    head = scheduler.waiting[0]
    return head.maps * scheduler.mean_time(head, MAP)


def map_side(scheduler: Fresh, works: list[float]) -> MapSide:
    """What Algorithm 3 reads of R_m and R', from ``works`` (RW_m of each job of R_m, in its
    order): (RW_m, J_a, w'_m(a), w_m(b)). J_a is the job with the least remaining map work (then
    submit time, then name; the first of equals) if it has passed tau1, else None (and 0, 0)."""
    work_map = sum(works)
    if not works:
        return work_map, None, 0.0, 0.0
    phase = scheduler.map_phase
    least = min(works)
    closest = phase[works.index(least)]
    if works.count(least) > 1:
        for position, work in enumerate(works):
            # `JobRun.order` ranks by (submit, name).
            if work == least and phase[position].order < closest.order:
                closest = phase[position]
    if closest.maps_done < scheduler.tau1 * closest.maps:
        return work_map, None, 0.0, 0.0
    return work_map, closest, least, _head_map_work(scheduler)


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


def ours(scheduler: Fresh, work_map: float, closest: JobRun | None, own: float, head: float,
         work_reduce: float) -> Ours:
    """Algorithm 3 as read here from `map_side` and RW_r: (RW_m, RW_r, theta_cur, theta_exp,
    theta, switched, eta, S f, J_a's name)."""
    theta_cur = ratio(work_map, work_reduce)
    fraction = map_fraction(work_map, work_reduce)
    theta_exp: float | None = None
    eta: float | None = None
    lookahead: str | None = None
    switched = False
    slots = scheduler.total_slots
    if closest is not None:
        lookahead = closest.name
        reduce_next = work_reduce
        if len(scheduler.reduce_phase) < scheduler.k:
            reduce_next += scheduler.remaining_work(closest, REDUCE)
        map_next, reduce_next = max(work_map - own + head, 0.0), max(reduce_next, 0.0)
        theta_exp = ratio(map_next, reduce_next)
        fraction_exp = map_fraction(map_next, reduce_next)
        eta = float(round(slots * fraction_exp) - round(slots * fraction))
        if relative_change(theta_cur, theta_exp) > scheduler.tau2:
            switched = True
            fraction = fraction_exp
    theta = theta_exp if switched and theta_exp is not None else theta_cur
    return work_map, work_reduce, theta_cur, theta_exp, theta, switched, eta, slots * fraction, lookahead


def running_maps(scheduler: Fresh) -> int:
    """s_m: the maps running now (only jobs of R_m run maps)."""
    return sum([job.running[MAP] for job in scheduler.map_phase])


def target_ours(scheduler: Fresh) -> SlotTarget:
    """Algorithm 3 as read here (module docstring)."""
    work, closest, own, head = map_side(scheduler, map_works(scheduler))
    (work_map, work_reduce, theta_cur, theta_exp, theta, switched, eta, target_maps,
     lookahead) = ours(scheduler, work, closest, own, head, sum(reduce_works(scheduler)))
    return SlotTarget(work_map, work_reduce, theta_cur, theta_exp, theta, switched, eta, target_maps,
                      running_maps(scheduler), lookahead)


def target_literal(scheduler: Fresh) -> SlotTarget:
    """Algorithm 3 as the paper writes it (module docstring)."""
    work_map, closest, own, head = map_side(scheduler, map_works(scheduler))
    work_reduce = sum(scheduler.remaining_work(job, REDUCE)
                      for job in (*scheduler.reduce_phase, *scheduler.reduce_waiting))
    running = running_maps(scheduler)
    theta_cur = ratio(work_map, work_reduce)
    fraction = map_fraction(work_map, work_reduce)
    theta_exp: float | None = None
    eta: float | None = None
    lookahead: str | None = None
    predicted: float | None = None
    switched = False
    slots = scheduler.total_slots
    if closest is not None:
        lookahead = closest.name
        map_next = max(work_map - own * scheduler.k + head, 0.0)
        reduce_next = work_reduce + scheduler.remaining_work(closest, REDUCE)
        theta_exp = ratio(map_next, reduce_next)
        fraction_exp = map_fraction(map_next, reduce_next)
        eta = theorem1_eta(own, closest.running[MAP], fraction, reduce_interval(scheduler), scheduler.k)
        predicted = running + (fraction * eta if fraction > 0 else 0.0)
        if slots and relative_change(fraction_exp, predicted / slots) > scheduler.tau2:
            switched = True
            fraction = fraction_exp
    theta = theta_exp if switched and theta_exp is not None else theta_cur
    return SlotTarget(work_map, work_reduce, theta_cur, theta_exp, theta, switched, eta, slots * fraction,
                      running, lookahead, predicted)


TARGETS: Final[dict[str, Callable[[Fresh], SlotTarget]]] = {"ours": target_ours, "literal": target_literal}
