"""Ordering a batch as a two-stage flow shop: Johnson's rule and exact and heuristic methods.

A batch whose jobs pass a map stage and then a reduce stage is a two-machine
flow shop with stage times a_j = map_work / map_slots and b_j = reduce_work /
reduce_slots. Johnson's rule orders it optimally: jobs with a_j < b_j first by
increasing a_j, then the rest by decreasing b_j (ties by index). The makespan
of an order is max over positions j of (a_1 + ... + a_j) + (b_j + ... + b_n).

Methods of the "two_stage" problem: "johnson" (exact, O(n log n)),
"exhaustive" (all n! orders, n <= 8, for cross-checks), "milp" (positional
MILP solved by HiGHS) and "pso" (particle swarm over random keys).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pyomo.environ as pyo
from numpy.typing import ArrayLike

from models import InvalidInput, Job
from models.checks import as_array, as_float, as_int
from models.dag import Precedence
from models.workload import as_jobs
from solvers.backends.milp import solve_milp
from solvers.backends.pso import PsoOptions, minimize, random_keys
from solvers.base import Solution, SolveStatus, Stopwatch, check_time_limit, method_choice, relative_gap
from solvers.certify import Claim, certified, own_proof, proven_bound
from solvers.registry import lookup as find_method
from solvers.registry import register_method

PROBLEM = "two_stage"
#: Seconds per binary to build the positional model in pyomo and hand it to HiGHS (measured:
#: 300 jobs, 90,000 binaries, about 3 s).
MILP_SECONDS_PER_BINARY = 4e-5
EXHAUSTIVE_LIMIT = 8
#: The most the stage times of a batch may add up to (seconds): a makespan stays a finite float
#: whatever the order (sums of numbers up to 1e308 overflow to inf).
MAX_STAGE_TOTAL = 1e300


@dataclass(frozen=True)
class OrderSolution(Solution):
    """A job order (a permutation of indices) and its two-stage makespan."""

    order: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64), compare=False)
    makespan: float = 0.0

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "order", as_array(self.order, "order", kind="int", minimum=0))
        object.__setattr__(self, "makespan", as_float(self.makespan, "makespan", minimum=0.0))


def _stages(stage1, stage2) -> tuple[np.ndarray, np.ndarray]:
    a = as_array(stage1, "stage1", minimum=0.0)
    b = as_array(stage2, "stage2", minimum=0.0)
    if a.shape != b.shape:
        raise InvalidInput("stage2", f"must be 1-d and as long as stage1 ({a.size} vs {b.size})")
    if a.size and (a.sum() + b.sum() > MAX_STAGE_TOTAL):
        raise InvalidInput("stage1", f"the stage times add up to more than {MAX_STAGE_TOTAL:g} s")
    return a, b


def johnson_order(stage1: ArrayLike, stage2: ArrayLike) -> np.ndarray:
    """Johnson's optimal order for a two-machine flow shop (a permutation of indices)."""
    a, b = _stages(stage1, stage2)
    second = a >= b
    key = np.where(second, -b, a)
    # lexsort is stable: equal keys keep index order
    return np.lexsort((key, second)).astype(np.int64)


def two_stage_makespan(stage1: ArrayLike, stage2: ArrayLike, order: ArrayLike) -> float:
    """Makespan of ``order``: max_j (a_1 + ... + a_j) + (b_j + ... + b_n)."""
    a, b = _stages(stage1, stage2)
    order = _permutation(order, a.size)
    if a.size == 0:
        return 0.0
    return float(makespans(a, b, order[None, :])[0])


def makespans(a: np.ndarray, b: np.ndarray, orders: np.ndarray) -> np.ndarray:
    """Two-stage makespans of many orders at once (one per row)."""
    first = np.cumsum(a[orders], axis=1)
    tail = b[orders]
    second = np.cumsum(tail[:, ::-1], axis=1)[:, ::-1]
    return (first + second).max(axis=1)


def lower_bound(a: np.ndarray, b: np.ndarray) -> float:
    """max(sum a + min b, min a + sum b): no order beats either machine's load plus the other's least."""
    if a.size == 0:
        return 0.0
    return float(max(a.sum() + b.min(), a.min() + b.sum()))


def _permutation(order, n: int) -> np.ndarray:
    array = as_array(order, "order", kind="int")
    if array.shape != (n,) or not np.array_equal(np.sort(array), np.arange(n)):
        raise InvalidInput("order", f"must be a permutation of range({n})")
    return array.astype(np.int64)


def _solution(a, b, order, status, solver, clock, bound=None) -> OrderSolution:
    value = two_stage_makespan(a, b, order)
    if status is SolveStatus.OPTIMAL:
        bound = value if bound is None else proven_bound(value, bound)
    return OrderSolution(status, value, bound, relative_gap(value, bound), solver, clock.seconds, order, value)


@register_method(PROBLEM, "johnson", exact=True)
def _johnson(a: np.ndarray, b: np.ndarray, *, time_limit: float, seed: int, **_: object) -> OrderSolution:
    """Johnson's rule: optimal in O(n log n)."""
    clock = Stopwatch()
    return _solution(a, b, johnson_order(a, b), SolveStatus.OPTIMAL, "johnson", clock)


@register_method(PROBLEM, "exhaustive", exact=True)
def _exhaustive(a: np.ndarray, b: np.ndarray, *, time_limit: float, seed: int, **_: object) -> OrderSolution:
    """Every order (n <= 8); the first best in lexicographic order."""
    clock = Stopwatch()
    if a.size > EXHAUSTIVE_LIMIT:
        raise InvalidInput("jobs", f"exhaustive search takes at most {EXHAUSTIVE_LIMIT} jobs, got {a.size}")
    if a.size == 0:
        return _solution(a, b, np.empty(0, dtype=np.int64), SolveStatus.OPTIMAL, "exhaustive", clock)
    orders = np.array(list(itertools.permutations(range(a.size))), dtype=np.int64).reshape(-1, a.size)
    best = orders[int(np.argmin(makespans(a, b, orders)))]
    return _solution(a, b, best, SolveStatus.OPTIMAL, "exhaustive", clock)


def add_positions(m: pyo.ConcreteModel) -> None:
    """The positional model's variables and assignment rules on ``m`` (which holds the sets Jobs
    and Positions): x[j, p] puts job j at position p, each job at one position and each position
    holding one job; ``first`` and ``second`` are the stages' completions by position."""
    m.x = pyo.Var(m.Jobs, m.Positions, domain=pyo.Binary)
    m.first = pyo.Var(m.Positions, domain=pyo.NonNegativeReals)
    m.second = pyo.Var(m.Positions, domain=pyo.NonNegativeReals)

    @m.Constraint(m.Jobs)
    def one_position(m, j):
        return sum(m.x[j, p] for p in m.Positions) == 1

    @m.Constraint(m.Positions)
    def one_job(m, p):
        return sum(m.x[j, p] for j in m.Jobs) == 1


def build_two_stage_model(a: np.ndarray, b: np.ndarray) -> pyo.ConcreteModel:
    """Positional MILP: x[j, p] puts job j at position p; C1, C2 are stage completions by position."""
    n = a.size
    m = pyo.ConcreteModel(name="two_stage_flow_shop")
    m.Jobs = pyo.RangeSet(0, n - 1)
    m.Positions = pyo.RangeSet(0, n - 1)
    add_positions(m)

    def stage_time(times, p):
        return sum(float(times[j]) * m.x[j, p] for j in m.Jobs)

    @m.Constraint(m.Positions)
    def first_stage(m, p):
        previous = m.first[p - 1] if p > 0 else 0.0
        return m.first[p] == previous + stage_time(a, p)

    @m.Constraint(m.Positions)
    def second_after_first(m, p):
        return m.second[p] >= m.first[p] + stage_time(b, p)

    @m.Constraint(m.Positions)
    def second_in_sequence(m, p):
        if p == 0:
            return pyo.Constraint.Skip
        return m.second[p] >= m.second[p - 1] + stage_time(b, p)

    m.makespan = pyo.Objective(expr=m.second[n - 1], sense=pyo.minimize)
    return m


@register_method(PROBLEM, "milp", exact=True)
def _milp(a: np.ndarray, b: np.ndarray, *, time_limit: float, seed: int, **_: object) -> OrderSolution:
    """Positional MILP (n^2 binaries) solved by HiGHS; for checking and small batches.

    Johnson's order is the incumbent: when HiGHS finds nothing better in time, it comes
    back with status time_limit. Optimal only with a certificate (`solvers.certify`): the
    positions form a permutation whose makespan is what HiGHS reported, and HiGHS's bound
    lies between `lower_bound` and Johnson's makespan (which no bound may exceed). The better
    of HiGHS's order and Johnson's comes back (Johnson's on ties). A model too large to build
    and hand over in the time (`MILP_SECONDS_PER_BINARY` per binary) is not built."""
    clock = Stopwatch()
    n = a.size
    johnson = johnson_order(a, b)
    upper = two_stage_makespan(a, b, johnson)
    lower = lower_bound(a, b)
    if n == 0 or MILP_SECONDS_PER_BINARY * n * n > 0.9 * time_limit:
        # Johnson's order is optimal (its theorem); without the MILP's own proof only our bound can say so.
        status, bound = own_proof(upper, lower)
        return _solution(a, b, johnson, status, "milp-highs", clock, bound)
    # In units of the longest stage time (`MilpOutcome.in_units`).
    unit = float(max(a.max(), b.max())) or 1.0
    model = build_two_stage_model(a / unit, b / unit)
    outcome = solve_milp(model, time_limit=max(1e-3, time_limit - clock.seconds), seed=seed,
                         require_solution=False).in_units(unit)
    order = None
    if outcome.status.has_solution:
        position = np.array([[pyo.value(model.x[j, p]) for p in range(n)] for j in range(n)])
        whole = np.all((np.abs(position) < 1e-6) | (np.abs(position - 1) < 1e-6))
        candidate = np.argsort(np.argmax(position, axis=1), kind="stable")
        if whole and np.array_equal(np.sort(np.argmax(position, axis=1)), np.arange(n)):
            order = _permutation(candidate, n)
    if order is None:
        # Every order is feasible: no solution from HiGHS means it ran out of time (or failed).
        claim = Claim(SolveStatus.TIME_LIMIT, None, outcome.bound)
        status, bound = certified(claim, upper, lower=lower, upper=upper, gap=1e-4)
        return _solution(a, b, johnson, status, "milp-highs", clock, bound)
    recomputed = two_stage_makespan(a, b, order)
    status, bound = certified(Claim(outcome.status, outcome.objective, outcome.bound), recomputed, lower=lower,
                              upper=upper, gap=1e-4, method="two-stage milp")
    if upper <= recomputed:
        order = johnson  # what we already hold is at least as good: never return worse
    return _solution(a, b, order, status, "milp-highs", clock, bound)


@register_method(PROBLEM, "pso", exact=False)
def _pso(
    a: np.ndarray, b: np.ndarray, *, time_limit: float, seed: int, pso: PsoOptions | None = None, **_: object
) -> OrderSolution:
    """Particle swarm over random keys: a particle's order is the argsort of its position."""
    clock = Stopwatch()
    n = a.size
    if n < 2:
        return _solution(a, b, np.arange(n), SolveStatus.OPTIMAL, "pso", clock)

    def cost(swarm: np.ndarray) -> np.ndarray:
        return makespans(a, b, random_keys(swarm))

    outcome = minimize(cost, np.zeros(n), np.ones(n), options=pso, seed=seed)
    order = random_keys(outcome.position)
    return _solution(a, b, order, SolveStatus.FEASIBLE, "pso", clock, lower_bound(a, b))


def order_two_stage(
    stage1: ArrayLike, stage2: ArrayLike, method_name: str | None = None, *, method: str | None = None,
    time_limit: float = 60.0,
    seed: int = 0, **options: object,
) -> OrderSolution:
    """Order a two-stage batch by a registered method (see `solvers.registry.methods("two_stage")`);
    ``method`` ("johnson", the default, "exhaustive", "milp" or "pso"), or its older spelling
    ``method_name``."""
    chosen = method_choice(method, method_name, "johnson", PROBLEM)
    time_limit = check_time_limit(time_limit)
    a, b = _stages(stage1, stage2)
    seed = as_int(seed, "seed", minimum=0)
    return find_method(PROBLEM, chosen).solve(a, b, time_limit=time_limit, seed=seed, **options)


def stage_times(jobs: Sequence[Job], map_slots: int = 1, reduce_slots: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(map_work / map_slots, reduce_work / reduce_slots) per job."""
    jobs = as_jobs(jobs)
    map_slots = as_int(map_slots, "map_slots", minimum=1)
    reduce_slots = as_int(reduce_slots, "reduce_slots", minimum=1)
    a = np.array([j.map_work for j in jobs], dtype=np.float64) / map_slots
    b = np.array([j.reduce_work for j in jobs], dtype=np.float64) / reduce_slots
    return a, b


def order_jobs(jobs: Sequence[Job], map_slots: int = 1, reduce_slots: int = 1, method_name: str = "johnson") -> list[Job]:
    """The jobs in the order the method chooses for stage times map_work / map_slots and
    reduce_work / reduce_slots; jobs with dependencies (``after``, naming jobs of the list) come
    after the jobs they wait for (`models.dag.Precedence.respecting`: the method's order repaired,
    no longer its optimum; `solvers.ordering.precedence.order_with_dependencies` solves that problem)."""
    jobs = as_jobs(jobs)
    a, b = stage_times(jobs, map_slots, reduce_slots)
    solution = order_two_stage(a, b, method_name=method_name)
    order = [int(i) for i in solution.order]
    if any(job.after for job in jobs):
        order = Precedence(jobs).respecting(order)
    return [jobs[i] for i in order]
