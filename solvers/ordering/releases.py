"""Ordering a batch with release times and deadlines: a two-stage permutation flow shop with release dates.

Job j has a map-stage time a_j, a reduce-stage time b_j, a release time r_j (absolute seconds: it cannot start its
map stage earlier) and optionally a due date d_j. The admission order is strict (a permutation schedule): for the
job at position p, C1[p] = max(C1[p-1], r_j) + a_j and C2[p] = max(C2[p-1], C1[p]) + b_j; its completion C_j is
C2[p]. With every r_j = 0 this is the `two_stage_makespan` recurrence, and the problem is `solvers.ordering.two_stage`'s.
Objectives: "makespan" (C_max), "max_lateness" (L_max = max C_j - d_j over the jobs that have a due date) and
"late_jobs" (the number of jobs with C_j > d_j). The heuristics and "exhaustive" break ties of the objective by the
smaller makespan; the exact methods guarantee the objective only.

This module holds the instance, the evaluation and the lower bound; `solvers.ordering.release_search` the list
rules, the local search and the method "johnson"; `solvers.ordering.release_methods` "milp", "branch_and_bound",
"pso" and "exhaustive". All are registered for the problem "two_stage_release".
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike

from models import InvalidInput
from models.checks import as_array, as_float, as_int, as_iterable, as_optional_float, as_str
from solvers.base import Solution, SolveStatus, Stopwatch, check_time_limit, relative_gap
from solvers.certify import Claim, certified, proven_bound
from solvers.ordering.two_stage import MAX_STAGE_TOTAL, _permutation, _stages, johnson_order
from solvers.registry import lookup as find_method

PROBLEM = "two_stage_release"
OBJECTIVES = ("makespan", "max_lateness", "late_jobs")
LOCAL_PASSES = 20  # full passes of the local search (each tries every insertion and every swap) at most
#: Share of the time limit the heuristic may take (every method runs it first: none returns worse).
HEURISTIC_SHARE = 0.9


@dataclass(frozen=True)
class ReleaseSchedule:
    """Completion times per job (input order) and the objectives; max_lateness None without due dates."""

    completions: np.ndarray
    makespan: float
    max_lateness: float | None
    late_jobs: int

    def __post_init__(self) -> None:
        _check_outcome(self)


@dataclass(frozen=True)
class ReleaseOrderSolution(Solution):
    """An admission order, its completions and objectives; ``objective`` is the one named ``criterion``."""

    order: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64), compare=False)
    completions: np.ndarray = field(default_factory=lambda: np.empty(0), compare=False)
    makespan: float = 0.0
    max_lateness: float | None = None
    late_jobs: int = 0
    criterion: str = "makespan"

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "order", as_array(self.order, "order", kind="int", minimum=0))
        _check_outcome(self)
        object.__setattr__(self, "criterion", as_str(self.criterion, "criterion", choices=OBJECTIVES))


def _check_outcome(record: ReleaseSchedule | ReleaseOrderSolution) -> None:
    """The fields a schedule and a solution share: finite completions and objectives."""
    put = object.__setattr__
    put(record, "completions", as_array(record.completions, "completions", minimum=0.0))
    put(record, "makespan", as_float(record.makespan, "makespan", minimum=0.0))
    put(record, "max_lateness", as_optional_float(record.max_lateness, "max_lateness"))
    put(record, "late_jobs", as_int(record.late_jobs, "late_jobs", minimum=0))


@dataclass(frozen=True)
class ReleaseInstance:
    """Checked inputs: stage times, releases, due dates (inf where a job has none) and the objective."""

    a: np.ndarray
    b: np.ndarray
    r: np.ndarray
    d: np.ndarray
    objective: str = "makespan"

    @property
    def n(self) -> int:
        return int(self.a.size)

    @property
    def horizon(self) -> float:
        """max r + sum a + sum b: every order finishes by then (induction on the recurrence)."""
        return float(self.r.max() + self.a.sum() + self.b.sum()) if self.n else 0.0

    @cached_property
    def lists(self) -> tuple[list[float], list[float], list[float], list[float]]:
        """r, a, b and d as lists: the search reads single values, far faster from lists than arrays."""
        return self.r.tolist(), self.a.tolist(), self.b.tolist(), self.d.tolist()

    @cached_property
    def johnson_rank(self) -> list[int]:
        """Each job's position in Johnson's order (ignoring releases)."""
        return np.argsort(johnson_order(self.a, self.b)).tolist()

    @property
    def scale(self) -> float:
        """The largest time in the instance, for tolerances."""
        due = self.d[np.isfinite(self.d)]
        return max(self.horizon, float(np.abs(due).max()) if due.size else 0.0, 1e-300)


def _floats(values: object, name: str) -> np.ndarray:
    values = as_iterable(values, name)
    try:  # None stands for inf (no due date; a release of None fails as not finite)
        return np.array([math.inf if v is None else v for v in values], dtype=np.float64)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        raise InvalidInput(name, "must be a sequence of numbers") from None


def release_instance(stage1, stage2, releases, due=None, objective: str = "makespan") -> ReleaseInstance:
    """Validate the inputs (`InvalidInput` names the field) and make a `ReleaseInstance`."""
    a, b = _stages(stage1, stage2)
    r = _floats(releases, "releases")
    d = None if due is None else _floats(due, "due")
    if r.shape != a.shape:
        raise InvalidInput("releases", f"must be 1-d and as long as stage1 ({r.shape} vs {a.shape})")
    if not np.all(np.isfinite(r)) or np.any(r < 0) or (r.size and r.max() > MAX_STAGE_TOTAL):
        raise InvalidInput("releases", f"must be finite and >= 0 (and at most {MAX_STAGE_TOTAL:g})")
    if d is None:
        d = np.full(a.size, math.inf)
    elif d.shape != a.shape:
        raise InvalidInput("due", f"must be as long as stage1 ({d.shape} vs {a.shape})")
    elif np.any(np.isnan(d)) or np.any(d == -math.inf) or np.any(np.abs(d[np.isfinite(d)]) > MAX_STAGE_TOTAL):
        raise InvalidInput("due", f"must be numbers up to {MAX_STAGE_TOTAL:g}, or None / inf for no due date")
    elif np.any(d <= r):
        raise InvalidInput("due", "a due date must be after its job's release")
    objective = as_str(objective, "objective")
    if objective not in OBJECTIVES:
        raise InvalidInput("objective", f"unknown objective {objective!r}; choose from {', '.join(OBJECTIVES)}")
    if objective != "makespan" and a.size and not np.any(np.isfinite(d)):
        raise InvalidInput("due", f"objective {objective} needs at least one due date")
    return ReleaseInstance(a, b, r, d, objective)


def completions_by_position(inst: ReleaseInstance, orders: np.ndarray) -> np.ndarray:
    """C2 of every position of many orders at once (one order per row)."""
    first = second = np.zeros(orders.shape[0])
    out = np.empty(orders.shape, dtype=np.float64)
    for p in range(orders.shape[1]):
        jobs = orders[:, p]
        first = np.maximum(first, inst.r[jobs]) + inst.a[jobs]
        second = np.maximum(second, first) + inst.b[jobs]
        out[:, p] = second
    return out


def keys(inst: ReleaseInstance, orders: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(objective, makespan) of many orders: the objective first, the makespan breaks ties."""
    if orders.shape[1] == 0:
        return np.zeros(orders.shape[0]), np.zeros(orders.shape[0])
    return completion_keys(completions_by_position(inst, orders), inst.d[orders], inst.objective)


def completion_keys(done: np.ndarray, due: np.ndarray, objective: str) -> tuple[np.ndarray, np.ndarray]:
    """(objective, makespan) of orders from their completions by position (``done``, one row an order)
    and the due dates in the same places (``due``, inf: none)."""
    makespan = done[:, -1]
    if objective == "makespan":
        return makespan, makespan
    if objective == "late_jobs":
        return (done > due).sum(axis=1).astype(np.float64), makespan
    return np.where(np.isfinite(due), done - due, -math.inf).max(axis=1), makespan


def schedule_of(inst: ReleaseInstance, order: np.ndarray) -> ReleaseSchedule:
    done = completions_by_position(inst, order[None, :])[0]
    completions = np.empty(inst.n)
    completions[order] = done
    due = np.isfinite(inst.d)
    lateness = float((completions[due] - inst.d[due]).max()) if due.any() else None
    return _computed_schedule(completions, float(done[-1]) if inst.n else 0.0, lateness,
                              int((completions > inst.d).sum()))


def _computed_schedule(completions: np.ndarray, makespan: float, max_lateness: float | None,
                       late_jobs: int) -> ReleaseSchedule:
    """A `ReleaseSchedule` of numbers computed from a checked instance, built without its argument
    checks: branch and bound evaluates one per leaf, and the checks would take a tenth of its time."""
    schedule = object.__new__(ReleaseSchedule)
    for name, value in (("completions", completions), ("makespan", makespan), ("max_lateness", max_lateness),
                        ("late_jobs", late_jobs)):
        object.__setattr__(schedule, name, value)
    return schedule


def release_schedule(stage1: ArrayLike, stage2: ArrayLike, releases: ArrayLike, order: ArrayLike,
                     due: ArrayLike | None = None) -> ReleaseSchedule:
    """Completion times and the three objectives of ``order`` (a permutation of job indices)."""
    inst = release_instance(stage1, stage2, releases, due)
    return schedule_of(inst, _permutation(order, inst.n))


def value_of(inst: ReleaseInstance, schedule: ReleaseSchedule) -> float:
    if inst.objective == "max_lateness":  # a due date exists (release_instance) unless there is no job
        return 0.0 if schedule.max_lateness is None else schedule.max_lateness
    return float(schedule.late_jobs) if inst.objective == "late_jobs" else schedule.makespan


def jackson_preemptive(heads: list[float], proc: list[float], tails: list[float]) -> float:
    """max_j C_j + q_j of Jackson's preemptive schedule (heads sorted ascending): at every moment run
    the released job of largest tail. It is optimal for one machine with heads, preemption and tails
    (Jackson 1955; Carlier 1982), so it bounds every non-preemptive schedule of the same jobs."""
    best, t, i, n, ready = -math.inf, -math.inf, 0, len(heads), []  # ready: (-tail, job, time left)
    while i < n or ready:
        if not ready:
            t = max(t, heads[i])
        while i < n and heads[i] <= t:
            heapq.heappush(ready, (-tails[i], i, proc[i]))
            i += 1
        negative_tail, job, left = heapq.heappop(ready)
        following = heads[i] if i < n else math.inf
        if t + left <= following:
            t += left
            best = max(best, t - negative_tail)
        else:  # preempted by the next release; the rest waits in the heap
            heapq.heappush(ready, (negative_tail, job, left - (following - t)))
            t = following
    return best


def _fewest_late(jobs: list[tuple[float, float, float]]) -> int:
    """Moore-Hodgson: the fewest late jobs on one machine, (due, processing, release) sorted by
    release; for each release t it counts the jobs released at t or later started at t, the
    largest count over t (each is a relaxation: a subset, started no later than it can)."""
    best = 0
    for k in range(len(jobs)):
        if k and jobs[k][2] == jobs[k - 1][2]:
            continue
        t, late, taken = jobs[k][2], 0, []
        for due, work, _ in sorted(jobs[k:]):
            t += work
            heapq.heappush(taken, -work)
            if t > due:
                t += heapq.heappop(taken)
                late += 1
        best = max(best, late)
    return best


def johnson_bound(inst: ReleaseInstance, first: float, second: float, remaining: list[int]) -> float:
    """Makespan bound: for each head t, the jobs of heads >= t in Johnson's order from t, stage 2
    free at ``second`` (Johnson's rule is optimal for them: put first a job (0, second - t))."""
    jobs = np.array(sorted(remaining, key=inst.johnson_rank.__getitem__))
    a, b, heads = inst.a[jobs], inst.b[jobs], np.maximum(inst.r[jobs], first)
    starts = np.unique(heads)
    best = second + b.sum()
    # Each head's row is the same arithmetic whatever rows go with it: in blocks of rows (a
    # (heads x jobs) matrix is quadratic: 24,437 jobs would hold gigabytes), latest heads first,
    # skipping a head whose jobs' work from it, t + sum(a) + sum(b), cannot beat the best so far
    # (a row's value is one of its prefix-plus-suffix sums, at most that total but for rounding).
    order = np.argsort(heads, kind="stable")
    total_a = np.cumsum(a[order][::-1])[::-1]
    total_b = np.cumsum(b[order][::-1])[::-1]
    first_at = np.searchsorted(heads[order], starts)
    most = starts + (total_a[first_at] + total_b[first_at]) * (1.0 + _ROUNDING)
    rows = max(1, _BOUND_ENTRIES // max(heads.size, 1))
    left = starts.size
    while left > 0:
        chunk = np.arange(max(0, left - rows), left)
        left = chunk[0]
        chunk = chunk[most[chunk] >= best]
        if not chunk.size:
            continue
        at = starts[chunk]
        inside = heads[None, :] >= at[:, None]
        sums = np.cumsum(np.where(inside, a, 0.0), axis=1)
        sums += np.cumsum(np.where(inside, b, 0.0)[:, ::-1], axis=1)[:, ::-1]
        best = max(best, (np.where(inside, sums, -math.inf).max(axis=1) + at).max())
    return float(best)


#: `johnson_bound`'s rows go in blocks of about this many entries (8 bytes each).
_BOUND_ENTRIES = 1 << 20
#: A relative allowance for rounding in `johnson_bound`'s skip test (sums of at most
#: `MAX_JOBS` terms carry far less).
_ROUNDING = 1e-9


def node_bound(inst: ReleaseInstance, first: float, second: float, remaining: list[int], partial: float) -> float:
    """A lower bound on the objective of every order that starts with a scheduled prefix ending at (``first``,
    ``second``) on the two stages, with objective ``partial`` so far (-inf, or 0 late jobs, for an empty prefix)
    and the jobs ``remaining`` (sorted by release) still to come.

    Proof. A remaining job j cannot start stage 1 before h_j = max(r_j, first), and completes at least b_j after
    its stage-1 completion. (1) Stage 1 alone, preempted at will, with heads h_j and tails q_j = b_j (makespan) or
    b_j - d_j (lateness): every order gives such a schedule with no smaller max C1_j + q_j, and Jackson's
    preemptive schedule minimizes that (`jackson_preemptive`). (2) Stage 2 alone: j cannot start it before
    max(second, h_j + a_j); with tails 0 (makespan) or -d_j (lateness) the same argument applies. (3) Late jobs:
    the stage-2 sequence of any order is a schedule of the jobs on one machine that starts no job before its
    stage-2 head, so it has at least as many late jobs as Moore-Hodgson's optimum for any subset of heads >= t
    started at t; likewise stage 1 with due dates d_j - b_j. (4) Makespan: `johnson_bound`: the jobs of heads >= t
    form a two-stage flow shop that cannot start before t. The bound is the partial objective combined (max for
    makespan and L_max, plus for late jobs) with the best of these."""
    r, a, b, d = inst.lists
    if not remaining:
        return partial if inst.objective != "makespan" else second
    heads = [max(r[j], first) for j in remaining]
    proc1 = [a[j] for j in remaining]
    heads2 = sorted((max(second, h + p), j) for h, p, j in zip(heads, proc1, remaining, strict=True))
    if inst.objective == "late_jobs":
        on1 = [(d[j] - b[j], p, h) for h, p, j in zip(heads, proc1, remaining, strict=True) if d[j] < math.inf]
        on2 = [(d[j], b[j], h) for h, j in heads2 if d[j] < math.inf]
        return partial + max(_fewest_late(on1), _fewest_late(on2))
    if inst.objective == "makespan":
        t = second
        for h, j in heads2:
            t = max(t, h) + b[j]
        stage1 = jackson_preemptive(heads, proc1, [b[j] for j in remaining])
        return max(t, stage1, johnson_bound(inst, first, second, remaining) if len(remaining) > 1 else t)
    stage1 = jackson_preemptive(heads, proc1, [b[j] - d[j] for j in remaining])
    stage2 = jackson_preemptive([h for h, _ in heads2], [b[j] for _, j in heads2], [-d[j] for _, j in heads2])
    return max(partial, stage1, stage2)


def root_bound(inst: ReleaseInstance) -> float:
    if inst.n == 0:
        return 0.0
    return node_bound(inst, 0.0, 0.0, sorted(range(inst.n), key=lambda j: (inst.r[j], j)),
                      0.0 if inst.objective == "late_jobs" else -math.inf)


def release_lower_bound(stage1: ArrayLike, stage2: ArrayLike, releases: ArrayLike, due: ArrayLike | None = None, *,
                        objective: str = "makespan") -> float:
    """A lower bound on the best objective of all orders (`node_bound` of the empty prefix). Makespan: the most of
    Jackson's preemptive schedule of stage 1 (heads r_j, tails b_j), stage 2 in release order (heads r_j + a_j) and
    `johnson_bound`; L_max: Jackson's, tails b_j - d_j and -d_j; late_jobs: Moore-Hodgson on either stage."""
    return root_bound(release_instance(stage1, stage2, releases, due, objective))


def solution(inst: ReleaseInstance, order: np.ndarray, status: SolveStatus, solver: str, clock: Stopwatch,
             bound: float | None = None) -> ReleaseOrderSolution:
    schedule = schedule_of(inst, order)
    value = value_of(inst, schedule)
    if status is SolveStatus.OPTIMAL:
        bound = value if bound is None else proven_bound(value, bound)
    return ReleaseOrderSolution(status, value, bound, relative_gap(value, bound), solver, clock.seconds, order,
                                schedule.completions, schedule.makespan, schedule.max_lateness,
                                schedule.late_jobs, inst.objective)


def own_status(inst: ReleaseInstance, order: np.ndarray, lower: float) -> tuple[SolveStatus, float | None]:
    """A heuristic's status: optimal only when the lower bound meets its objective, else feasible."""
    value = value_of(inst, schedule_of(inst, order))
    return certified(Claim(SolveStatus.FEASIBLE, value, lower), value, lower=lower)


def order_with_releases(
    stage1: ArrayLike, stage2: ArrayLike, releases: ArrayLike, due: ArrayLike | None = None, *,
    objective: str = "makespan", method: str = "branch_and_bound",
    time_limit: float = 60.0, seed: int = 0, **options: object,
) -> ReleaseOrderSolution:
    """Order a batch with release times (and due dates) by a registered method of "two_stage_release":
    "branch_and_bound" (the default: exact, and at a time limit the best order found with a proven
    bound), "milp", "johnson", "pso" or "exhaustive" (n <= 8). ``due`` holds absolute due dates,
    None or inf where a job has none; ``objective`` is "makespan", "max_lateness" or "late_jobs"."""
    time_limit = check_time_limit(time_limit)
    inst = release_instance(stage1, stage2, releases, due, objective)
    seed = as_int(seed, "seed", minimum=0)
    chosen = find_method(PROBLEM, as_str(method, "method"))
    return chosen.solve(inst, time_limit=time_limit, seed=seed, **options)
