"""Ordering a batch whose jobs wait for jobs: the two-stage flow shop with precedence and release dates.

The model is `solvers.ordering.releases`' (a permutation schedule of a map stage then a reduce stage, stage
times a_j = map_work / map_slots and b_j = reduce_work / reduce_slots, releases r_j) with dependencies: job j
waits for each predecessor i (`Job.after`) to finish, plus the dependency's delay δ_ij. The order must list
every predecessor before the jobs that wait for it (a topological order: a job placed before its
predecessor would hold the map stage for a job that cannot run yet, and the schedule would deadlock). For
the job j at position p:

    S1 = max(C1[p-1], r_j, max_i C2_i + δ_ij),  C1[p] = S1 + a_j,  C2[p] = max(C2[p-1], C1[p]) + b_j,

and its completion C_j is C2[p]. Without dependencies this is `release_schedule`'s recurrence.

**Deadlines propagate backwards.** Job i must finish by its latest finish d'_i: its own due date, and no
later than d'_k - (a_k + b_k) - δ_ik for each job k that waits for it (`models.dag.Precedence.latest_finishes`
over the durations a + b: k cannot finish before C_i + δ_ik + a_k + b_k). The lateness objectives use d'_j:
"max_lateness" is max_j C_j - d'_j (the same value as with the jobs' own due dates: C_i - d'_i <= C_k - d'_k
along the edge that set d'_i, so the largest is reached at an own due date; the propagated dates only guide the
search), "late_jobs" counts jobs with C_j > d'_j (a job late for its latest finish makes a deadline downstream
unreachable in the model). Without dependencies d'_j is the due date.

**Lower bound** (`precedence_lower_bound`). Heads: job j cannot start before h_j = max(r_j, max_i h_i + a_i + b_i
+ δ_ij); tails: after its map stage ends it needs at least q_j = b_j + max_k (δ_jk + a_k + q_k) more to the end
(`Precedence.tails` over a + b, less a_j). The bound is the largest of: the critical path max_j h_j + a_j + q_j;
each stage alone, as one machine with heads and tails (Jackson's preemptive schedule, at least the stage's total
work plus the least head and tail: min h + sum a + min q, and min (h + a) + sum b); and `release_lower_bound` of
the same jobs with releases h_j (every schedule here is one of that relaxation).

This module holds the instance, the evaluator (`precedence_schedule`, a plain loop that also refuses an order
that breaks a dependency), the bounds and the entry points (`order_with_precedence` on stage times,
`order_with_dependencies` on jobs and slots); `solvers.ordering.precedence_methods` holds the methods of the
problem "two_stage_precedence": "branch_and_bound" (exact), "critical_path" (list heuristic) and
"exhaustive" (every topological order, n <= 8).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from models import InvalidInput, Job
from models.checks import as_array, as_bool, as_float, as_int, as_iterable, as_optional_float, as_str, shown
from models.dag import Dependency, Precedence
from models.limits import MAX_SECONDS
from models.workload import as_jobs
from solvers.base import Solution, SolveStatus, Stopwatch, check_time_limit, relative_gap
from solvers.certify import Claim, certified, proven_bound
from solvers.ordering.releases import ReleaseInstance, completion_keys, jackson_preemptive, root_bound
from solvers.ordering.two_stage import MAX_STAGE_TOTAL, _stages, johnson_order
from solvers.registry import lookup as find_method

if TYPE_CHECKING:
    from models.cluster import Cluster
    from models.workload import Workload

PROBLEM = "two_stage_precedence"
OBJECTIVES = ("makespan", "max_lateness", "late_jobs")
#: The method "auto" (the default) runs "branch_and_bound" up to this many jobs and "critical_path" beyond:
#: a node of the search costs O(n log n), and past a few hundred jobs the list heuristic with the bound is
#: the better use of the time (as `planner.planning.arrivals.EXACT_ORDER_JOBS` for releases alone).
EXACT_JOBS = 200


@dataclass(frozen=True)
class _Step:
    """A job as `models.dag.Precedence` reads one (``name``, ``submit``, ``after``), for stage-time input."""

    name: str
    submit: float
    after: tuple[Dependency, ...]


@dataclass(frozen=True)
class PrecedenceSchedule:
    """An order's completions (input order), objectives (against the latest finishes) and the latest finishes."""

    completions: np.ndarray
    makespan: float
    max_lateness: float | None
    late_jobs: int


@dataclass(frozen=True)
class PrecedenceOrderSolution(Solution):
    """An admission order that respects the dependencies, its completions and objectives (``objective`` is the
    one named ``criterion``), each job's latest finish (inf: none), and the two simple parts of the bound:
    ``critical_path`` (releases, delays and both stages along the longest chain) and ``work`` (each stage's
    total work with the least head and tail)."""

    order: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64), compare=False)
    completions: np.ndarray = field(default_factory=lambda: np.empty(0), compare=False)
    makespan: float = 0.0
    max_lateness: float | None = None
    late_jobs: int = 0
    criterion: str = "makespan"
    latest_finishes: np.ndarray = field(default_factory=lambda: np.empty(0), compare=False)
    critical_path: float = 0.0
    work: float = 0.0

    def __post_init__(self) -> None:
        super().__post_init__()
        put = object.__setattr__
        put(self, "order", as_array(self.order, "order", kind="int", minimum=0))
        put(self, "completions", as_array(self.completions, "completions", minimum=0.0))
        put(self, "makespan", as_float(self.makespan, "makespan", minimum=0.0))
        put(self, "max_lateness", as_optional_float(self.max_lateness, "max_lateness"))
        put(self, "late_jobs", as_int(self.late_jobs, "late_jobs", minimum=0))
        put(self, "criterion", as_str(self.criterion, "criterion", choices=OBJECTIVES))
        put(self, "critical_path", as_float(self.critical_path, "critical_path", minimum=0.0))
        put(self, "work", as_float(self.work, "work", minimum=0.0))

    def record(self) -> dict[str, object]:
        return {**super().record(), "problem": PROBLEM, "criterion": self.criterion, "makespan": self.makespan,
                "max_lateness": self.max_lateness, "late_jobs": self.late_jobs,
                "critical_path": self.critical_path, "work": self.work}


@dataclass(frozen=True)
class PrecedenceInstance:
    """Checked inputs: stage times, releases, own due dates (inf: none), the graph and the objective."""

    a: np.ndarray
    b: np.ndarray
    r: np.ndarray
    due: np.ndarray
    graph: Precedence
    objective: str = "makespan"

    @property
    def n(self) -> int:
        return int(self.a.size)

    @cached_property
    def d(self) -> np.ndarray:
        """Each job's latest finish (module docstring): inf where neither it nor a job after it has a due date."""
        if not self.n:
            return np.empty(0)
        return np.array(self.graph.latest_finishes((self.a + self.b).tolist(), deadlines=[
            None if math.isinf(v) else float(v) for v in self.due]), dtype=np.float64)

    @cached_property
    def predecessors(self) -> list[list[tuple[int, float]]]:
        return [list(before) for before in self.graph.predecessors]

    @cached_property
    def successors(self) -> list[list[tuple[int, float]]]:
        return [list(after) for after in self.graph.successors]

    @cached_property
    def padded(self) -> tuple[np.ndarray, np.ndarray]:
        """Predecessors (padded with n, a column of zeros) and delays (padded with 0), one row per job: the
        vectorized evaluation reads every predecessor's completion at once."""
        width = max([len(p) for p in self.predecessors] + [1])
        index = np.full((self.n, width), self.n, dtype=np.int64)
        delay = np.zeros((self.n, width))
        for j, before in enumerate(self.predecessors):
            for k, (i, lag) in enumerate(before):
                index[j, k], delay[j, k] = i, lag
        return index, delay

    @cached_property
    def heads(self) -> np.ndarray:
        """h_j: the earliest a job's map stage can start (its release; its predecessors' heads, both stages and
        the delays)."""
        head = self.r.copy()
        for j in self.graph.order:
            for i, lag in self.predecessors[j]:
                head[j] = max(head[j], head[i] + self.a[i] + self.b[i] + lag)
        return head

    @cached_property
    def tails(self) -> np.ndarray:
        """q_j: the least time from the end of a job's map stage to the end of the batch."""
        if not self.n:
            return np.empty(0)
        return np.array(self.graph.tails((self.a + self.b).tolist()), dtype=np.float64) - self.a

    @cached_property
    def johnson_rank(self) -> list[int]:
        rank = [0] * self.n
        for place, j in enumerate(johnson_order(self.a, self.b).tolist()):
            rank[j] = place
        return rank

    @cached_property
    def lists(self) -> tuple[list[float], list[float], list[float], list[float]]:
        """r, a, b and d' as lists (the search reads single values, faster from lists)."""
        return self.r.tolist(), self.a.tolist(), self.b.tolist(), self.d.tolist()

    @property
    def horizon(self) -> float:
        """Every topological order ends by then: the critical path's end, plus all work."""
        if not self.n:
            return 0.0
        return float((self.heads + self.a + self.tails).max() + self.a.sum() + self.b.sum())

    @property
    def scale(self) -> float:
        due = self.d[np.isfinite(self.d)]
        return max(self.horizon, float(np.abs(due).max()) if due.size else 0.0, 1e-300)


# ------------------------------------------------------------------------------------------ inputs


def as_predecessors(after: object, n: int) -> Precedence:
    """``after`` as a checked graph over n jobs: a `models.dag.Precedence` of n jobs, or one entry per job, each a
    sequence of predecessors given as a position or a (position, delay) pair; a cycle, a position out of range,
    a job waiting for itself or for the same job twice is refused (`InvalidInput` naming ``after[j][k]``)."""
    if isinstance(after, Precedence):
        if len(after) != n:
            raise InvalidInput("after", f"is a graph of {len(after)} jobs, not {n}")
        return after
    entries = [() for _ in range(n)] if after is None else list(as_iterable(after, "after"))
    if len(entries) != n:
        raise InvalidInput("after", f"must give one list of predecessors per job ({n}), got {len(entries)}")
    steps = []
    for j, entry in enumerate(entries):
        found = []
        for k, item in enumerate(as_iterable(entry, f"after[{j}]")):
            where = f"after[{j}][{k}]"
            if isinstance(item, tuple | list) and len(item) == 2:
                position, lag = item
            else:
                position, lag = item, 0.0
            position = as_int(position, where, minimum=0)
            if position >= n:
                raise InvalidInput(where, f"names job {position}, but there are {n} jobs")
            lag = as_float(lag, f"{where}.delay", minimum=0.0, maximum=MAX_SECONDS)
            found.append((str(position), lag))
        names = [name for name, _ in found]
        if len(set(names)) < len(names):
            raise InvalidInput(f"after[{j}]", "names a predecessor twice")
        steps.append(_Step(str(j), 0.0, tuple(Dependency(name, lag) for name, lag in found)))
    try:
        return Precedence(steps)
    except InvalidInput as error:  # "jobs[j].after[k]": the positions are the names here
        raise InvalidInput("after", error.problem.replace("'", "")) from None


def _floats(values: object, name: str, n: int, default: float) -> np.ndarray:
    if values is None:
        return np.full(n, default)
    items = list(as_iterable(values, name))
    try:
        array = np.array([default if v is None else v for v in items], dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidInput(name, "must be a sequence of numbers") from None
    if array.shape != (n,):
        raise InvalidInput(name, f"must give one value per job ({n}), got {len(items)}")
    return array


def precedence_instance(stage1: ArrayLike, stage2: ArrayLike, after: object = None, releases: object = None,
                        due: object = None, objective: str = "makespan") -> PrecedenceInstance:
    """Validate the inputs (`InvalidInput` names the field) and make a `PrecedenceInstance`."""
    a, b = _stages(stage1, stage2)
    n = int(a.size)
    r = _floats(releases, "releases", n, 0.0)
    if not np.all(np.isfinite(r)) or np.any(r < 0) or (n and r.max() > MAX_STAGE_TOTAL):
        raise InvalidInput("releases", f"must be finite and >= 0 (and at most {MAX_STAGE_TOTAL:g})")
    d = _floats(due, "due", n, math.inf)
    if np.any(np.isnan(d)) or np.any(d == -math.inf) or np.any(np.abs(d[np.isfinite(d)]) > MAX_STAGE_TOTAL):
        raise InvalidInput("due", f"must be numbers up to {MAX_STAGE_TOTAL:g}, or None / inf for no due date")
    if np.any(d <= r):
        raise InvalidInput("due", "a due date must be after its job's release")
    objective = as_str(objective, "objective", choices=OBJECTIVES)
    if objective != "makespan" and n and not np.any(np.isfinite(d)):
        raise InvalidInput("due", f"objective {objective} needs at least one due date")
    return PrecedenceInstance(a, b, r, d, as_predecessors(after, n), objective)


# ------------------------------------------------------------------------------------------ evaluation


def evaluate(inst: PrecedenceInstance, order: Sequence[int]) -> PrecedenceSchedule:
    """The schedule of ``order`` by the recurrence of the module docstring, one job at a time (the certificates'
    independent evaluator: the searches compute theirs incrementally or vectorized). An order that is not a
    permutation, or that puts a job before one it waits for, is refused."""
    n = inst.n
    order = [int(j) for j in as_array(order, "order", kind="int")]
    if sorted(order) != list(range(n)):
        raise InvalidInput("order", f"must list each of the {n} jobs once")
    r, a, b, _ = inst.lists
    done: list[float | None] = [None] * n
    first = second = 0.0
    for j in order:
        start = max(first, r[j])
        for i, lag in inst.predecessors[j]:
            finished = done[i]
            if finished is None:
                raise InvalidInput("order", f"job {j} comes before job {i}, which it waits for")
            start = max(start, finished + lag)
        first = start + a[j]
        second = max(second, first) + b[j]
        done[j] = second
    completions = np.array(done, dtype=np.float64) if n else np.empty(0)
    dated = np.isfinite(inst.d)
    lateness = float((completions[dated] - inst.d[dated]).max()) if dated.any() else None
    return PrecedenceSchedule(completions, second, lateness, int((completions > inst.d).sum()))


def value_of(inst: PrecedenceInstance, schedule: PrecedenceSchedule) -> float:
    if inst.objective == "max_lateness":
        return 0.0 if schedule.max_lateness is None else schedule.max_lateness
    return float(schedule.late_jobs) if inst.objective == "late_jobs" else schedule.makespan


def completions_by_position(inst: PrecedenceInstance, orders: np.ndarray) -> np.ndarray:
    """C2 of every position of many topological orders at once (one per row; the search's evaluator, which
    takes its orders as valid)."""
    rows, n = orders.shape
    index, delay = inst.padded
    done = np.zeros((rows, n + 1))  # C2 by job; column n stays 0 (the padding)
    first = np.zeros(rows)
    second = np.zeros(rows)
    out = np.empty((rows, n))
    every = np.arange(rows)
    for p in range(n):
        jobs = orders[:, p]
        ready = (done[every[:, None], index[jobs]] + delay[jobs]).max(axis=1)
        first = np.maximum(np.maximum(first, inst.r[jobs]), ready) + inst.a[jobs]
        second = np.maximum(second, first) + inst.b[jobs]
        done[every, jobs] = second
        out[:, p] = second
    return out


def keys(inst: PrecedenceInstance, orders: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(objective, makespan) of many topological orders: the objective first, the makespan breaks ties."""
    if orders.shape[1] == 0:
        return np.zeros(orders.shape[0]), np.zeros(orders.shape[0])
    return completion_keys(completions_by_position(inst, orders), inst.d[orders], inst.objective)


def precedence_schedule(stage1: ArrayLike, stage2: ArrayLike, order: ArrayLike, *, after: object = None,
                        releases: object = None, due: object = None) -> PrecedenceSchedule:
    """Completions and the three objectives of ``order`` (positions; predecessors first) under the
    dependencies ``after`` (see `as_predecessors`), releases and due dates (lateness against the latest
    finishes)."""
    return evaluate(precedence_instance(stage1, stage2, after, releases, due), order)


# ------------------------------------------------------------------------------------------ bounds


def simple_bounds(inst: PrecedenceInstance) -> tuple[float, float]:
    """(critical path, work) of the makespan (module docstring): max_j h_j + a_j + q_j, and the larger of
    min h + sum a + min q and min (h + a) + sum b."""
    if not inst.n:
        return 0.0, 0.0
    h, a, b, q = inst.heads, inst.a, inst.b, inst.tails
    critical = float((h + a + q).max())
    work = max(float(h.min() + a.sum() + q.min()), float((h + a).min() + b.sum()))
    return critical, work


def node_bound(inst: PrecedenceInstance, first: float, second: float, ready: Sequence[float],
               remaining: Sequence[int], partial: float) -> float:
    """A lower bound on the objective of every completion of a scheduled prefix: the stages free at ``first``
    and ``second``, ``ready[j]`` the most of the placed predecessors' C2 + δ of job j (0 without), ``remaining``
    the jobs still to come in topological order, ``partial`` the objective of the prefix (-inf, or 0 late jobs,
    for an empty one).

    Proof. A remaining job cannot start its map stage before h_j = max(r_j, first, ready_j, for each remaining
    predecessor i its least C2 + δ_ij), where the least C2 of i is max(h_i + a_i, second) + b_i; from the end of
    its map stage it needs q_j more to the end, and from its end q_j - b_j. Each stage is one machine: Jackson's
    preemptive schedule with those heads and tails (b_j - d'_j and -d'_j for L_max) bounds it; for late jobs,
    Moore-Hodgson's count on either stage from each head on (`solvers.ordering.releases._fewest_late`)."""
    from solvers.ordering.releases import _fewest_late

    r, a, b, d = inst.lists
    kind = inst.objective
    if not remaining:
        return second if kind == "makespan" else partial
    least: dict[int, float] = {}
    heads, heads2 = [], []
    for j in remaining:
        h = max(r[j], first, ready[j])
        for i, lag in inst.predecessors[j]:
            before = least.get(i)
            if before is not None and before + lag > h:
                h = before + lag
        least[j] = max(h + a[j], second) + b[j]
        heads.append(h)
        heads2.append(max(second, h + a[j]))
    if kind == "late_jobs":
        on1 = sorted((h, d[j] - b[j], a[j]) for h, j in zip(heads, remaining, strict=True) if d[j] < math.inf)
        on2 = sorted((h, d[j], b[j]) for h, j in zip(heads2, remaining, strict=True) if d[j] < math.inf)
        return partial + max(_fewest_late([(due, work, h) for h, due, work in on1]),
                             _fewest_late([(due, work, h) for h, due, work in on2]))
    q = inst.tails
    if kind == "makespan":
        tail1 = [float(q[j]) for j in remaining]
        tail2 = [float(q[j]) - b[j] for j in remaining]
        path = max(least[j] + tail2[k] for k, j in enumerate(remaining))
    else:
        tail1 = [b[j] - d[j] for j in remaining]
        tail2 = [-d[j] for j in remaining]
        path = max(least[j] - d[j] for j in remaining)
    one = sorted(zip(heads, [a[j] for j in remaining], tail1, strict=True))
    two = sorted(zip(heads2, [b[j] for j in remaining], tail2, strict=True))
    stage1 = jackson_preemptive([x[0] for x in one], [x[1] for x in one], [x[2] for x in one])
    stage2 = jackson_preemptive([x[0] for x in two], [x[1] for x in two], [x[2] for x in two])
    return max(partial, path, stage1, stage2)


def root_bound_of(inst: PrecedenceInstance) -> float:
    """`node_bound` of the empty prefix, and, up to `EXACT_JOBS` jobs, `release_lower_bound` of the jobs with
    releases h_j (its Johnson bound holds a row per distinct head: with dependencies nearly every job has its
    own, n^2 numbers, 7 GB at 30,000 jobs)."""
    if not inst.n:
        return 0.0
    empty = 0.0 if inst.objective == "late_jobs" else -math.inf
    ours = node_bound(inst, 0.0, 0.0, [0.0] * inst.n, inst.graph.order, empty)
    if inst.n > EXACT_JOBS:  # the release relaxation's bound holds arrays of (distinct heads) x jobs: n^2 here
        return ours
    relaxed = ReleaseInstance(inst.a, inst.b, inst.heads, inst.d, inst.objective)
    return max(ours, root_bound(relaxed))


def precedence_lower_bound(stage1: ArrayLike, stage2: ArrayLike, after: object = None, releases: object = None,
                           due: object = None, *, objective: str = "makespan") -> float:
    """A lower bound on the best objective of every order that respects the dependencies (module docstring)."""
    return root_bound_of(precedence_instance(stage1, stage2, after, releases, due, objective))


# ------------------------------------------------------------------------------------------ solutions


def solution(inst: PrecedenceInstance, order: Sequence[int], status: SolveStatus, solver: str, clock: Stopwatch,
             bound: float | None = None) -> PrecedenceOrderSolution:
    """The record of ``order``, evaluated by `evaluate` (so its objective is the independent evaluator's)."""
    schedule = evaluate(inst, order)
    value = value_of(inst, schedule)
    if status is SolveStatus.OPTIMAL:
        bound = value if bound is None else proven_bound(value, bound)
    critical, work = simple_bounds(inst)
    return PrecedenceOrderSolution(status, value, bound, relative_gap(value, bound), solver, clock.seconds,
                                   np.asarray(order, dtype=np.int64), schedule.completions, schedule.makespan,
                                   schedule.max_lateness, schedule.late_jobs, inst.objective, inst.d, critical, work)


def own_status(inst: PrecedenceInstance, order: Sequence[int], lower: float) -> tuple[SolveStatus, float | None]:
    """A heuristic's status: optimal only when the lower bound meets its objective, else feasible."""
    value = value_of(inst, evaluate(inst, order))
    return certified(Claim(SolveStatus.FEASIBLE, value, lower), value, lower=lower)


# ------------------------------------------------------------------------------------------ entry points


def order_with_precedence(stage1: ArrayLike, stage2: ArrayLike, after: object = None, releases: object = None,
                          due: object = None, *, objective: str = "makespan", method: str = "auto",
                          time_limit: float = 60.0, seed: int = 0, **options: object) -> PrecedenceOrderSolution:
    """Order a batch with dependencies (``after``: a `models.dag.Precedence`, or per job its predecessors as
    positions or (position, delay) pairs), release times and due dates, by a method of "two_stage_precedence":
    "branch_and_bound" (exact; at its time limit the best order found with status time_limit and a proven
    bound), "critical_path" (list heuristic with the lower bound), "exhaustive" (every topological order,
    n <= 8), or "auto" (the default: branch_and_bound up to `EXACT_JOBS` jobs, critical_path beyond)."""
    time_limit = check_time_limit(time_limit)
    inst = precedence_instance(stage1, stage2, after, releases, due, objective)
    seed = as_int(seed, "seed", minimum=0)
    name = as_str(method, "method")
    if name == "auto":
        name = "branch_and_bound" if inst.n <= EXACT_JOBS else "critical_path"
    return find_method(PROBLEM, name).solve(inst, time_limit=time_limit, seed=seed, **options)


def order_with_dependencies(jobs: Sequence[Job] | Workload, map_slots: int | None = None,
                            reduce_slots: int | None = None, *, cluster: Cluster | None = None, ready_now: bool = False, window: float | None = None,
                            objective: str = "makespan", method: str = "auto", time_limit: float = 60.0,
                            seed: int = 0) -> PrecedenceOrderSolution:
    """Order ``jobs`` (a `Workload` or a list of `Job`, whose ``after`` name jobs of the list) on ``map_slots``
    and ``reduce_slots`` (or a `Cluster`'s totals): stage times map_work / map_slots and reduce_work /
    reduce_slots, releases the submit times from the first arrival (all 0 with ``ready_now``), due dates
    the jobs' deadlines, else ``window`` (absolute seconds, like submit times), on the same clock. The order
    (``solution.order``, positions in ``jobs``) lists every job after those it waits for; the solution's
    makespan is the two-stage model's figure, not a simulation's."""
    from solvers.ordering.two_stage import stage_times

    listed = as_jobs(jobs)
    if cluster is not None:
        if map_slots is not None or reduce_slots is not None:
            raise InvalidInput("cluster", "give a cluster or map_slots and reduce_slots, not both")
        map_slots, reduce_slots = cluster.total_map_slots, cluster.total_reduce_slots
    a, b = stage_times(listed, 1 if map_slots is None else map_slots, 1 if reduce_slots is None else reduce_slots)
    ready_now = as_bool(ready_now, "ready_now")
    window = None if window is None else as_float(window, "window", above=0.0, maximum=MAX_SECONDS)
    origin = 0.0 if ready_now or not listed else min(job.submit for job in listed)
    releases = [0.0 if ready_now else job.submit - origin for job in listed]
    due = [(job.deadline if job.deadline is not None else window) for job in listed]
    due = [None if d is None else d - origin for d in due]
    for j, (job, d) in enumerate(zip(listed, due, strict=True)):
        if d is not None and d <= releases[j]:
            raise InvalidInput(f"jobs[{j}].deadline", f"job {shown(job.name)} is due at or before it arrives")
    return order_with_precedence(a, b, Precedence(listed), releases, due, objective=objective, method=method,
                                 time_limit=time_limit, seed=seed)
