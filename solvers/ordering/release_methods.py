"""Methods of "two_stage_release": a positional MILP ("milp"), a branch and bound, a particle swarm and
exhaustive search (n <= 8, for cross-checks).

The exact two start from the heuristic incumbent of `solvers.ordering.releases` (never returning worse), and
both check their own certificate (`solvers.certify.certified`) before they say optimal: the order's
objective recomputed by `schedule_of`, the proven bound between our own `node_bound` of the empty
prefix and the incumbent's objective.
"""

from __future__ import annotations

import heapq
import itertools
import math

import numpy as np
import pyomo.environ as pyo

from models import InvalidInput
from solvers.backends.milp import solve_milp
from solvers.backends.pso import PsoOptions, minimize, random_keys
from solvers.base import SolveStatus, Stopwatch
from solvers.certify import Claim, certified, own_proof
from solvers.ordering.release_search import _best_row, heuristic_order, local_search
from solvers.ordering.releases import (
    HEURISTIC_SHARE,
    PROBLEM,
    ReleaseInstance,
    ReleaseOrderSolution,
    keys,
    node_bound,
    own_status,
    root_bound,
    schedule_of,
    solution,
    value_of,
)
from solvers.ordering.two_stage import _permutation, add_positions
from solvers.registry import register_method

EXHAUSTIVE_LIMIT = 8
#: Seconds per binary to build the positional model in pyomo (as `solvers.ordering.two_stage`).
MILP_SECONDS_PER_BINARY = 4e-5
#: Share of the time limit the branch and bound spends improving its incumbent before it branches.
INCUMBENT_SHARE = 0.1
#: Rounds of iterated local search (perturb, descend, keep when better) for the incumbent.
INCUMBENT_ROUNDS = 30


def incumbent(inst: ReleaseInstance, *, seed: int, time_limit: float, clock: Stopwatch) -> np.ndarray:
    """`heuristic_order` (as "johnson" runs it), then iterated local search until `INCUMBENT_SHARE` of the
    time limit: move three random jobs, descend, keep the result when better (seeded: the same seed gives
    the same order when no deadline cuts)."""
    order = heuristic_order(inst, deadline=HEURISTIC_SHARE * time_limit, clock=clock)
    deadline = INCUMBENT_SHARE * time_limit
    if inst.n < 3:
        return order
    rng = np.random.default_rng(seed)
    best = keys(inst, order[None, :])
    for _ in range(INCUMBENT_ROUNDS):
        if clock.seconds > deadline:
            break
        trial = order.tolist()
        for _ in range(3):
            trial.insert(int(rng.integers(inst.n)), trial.pop(int(rng.integers(inst.n))))
        trial_order = local_search(inst, np.array(trial, dtype=np.int64), deadline=deadline, clock=clock)
        value = keys(inst, trial_order[None, :])
        if (value[0][0], value[1][0]) < (best[0][0], best[1][0]):
            order, best = trial_order, value
    return order


# ------------------------------------------------------------------------------------------ MILP


def build_release_model(inst: ReleaseInstance, lower: float | None = None) -> pyo.ConcreteModel:
    """Positional MILP: x[j, p] puts job j at position p; first[p], second[p] are the stage
    completions of position p. Release enters linearly: first[p] >= sum_j (r_j + a_j) x[j, p].
    L_max: lateness >= second[p] - sum_j d'_j x[j, p], where a job without a due date gets d'_j =
    horizon - min_j (r_j + a_j + b_j - d_j), so that its term never exceeds a lateness some job must
    reach. Late jobs: second[p] - sum_j d_j x[j, p] <= M late[p] with M = horizon - min d (no order
    ends after the horizon, max r + sum a + sum b), a job without a due date due at the horizon. ``lower`` (a bound of ours) is added as a valid inequality on the objective."""
    n, objective = inst.n, inst.objective
    due = np.isfinite(inst.d)
    m = pyo.ConcreteModel(name="two_stage_release")
    m.Jobs = pyo.RangeSet(0, n - 1)
    m.Positions = pyo.RangeSet(0, n - 1)
    add_positions(m)

    def weighted(values, p):
        return sum(float(values[j]) * m.x[j, p] for j in m.Jobs if values[j] != 0)

    @m.Constraint(m.Positions)
    def after_release(m, p):
        return m.first[p] >= weighted(inst.r + inst.a, p)

    @m.Constraint(m.Positions)
    def first_in_sequence(m, p):
        return pyo.Constraint.Skip if p == 0 else m.first[p] >= m.first[p - 1] + weighted(inst.a, p)

    @m.Constraint(m.Positions)
    def second_after_first(m, p):
        return m.second[p] >= m.first[p] + weighted(inst.b, p)

    @m.Constraint(m.Positions)
    def second_in_sequence(m, p):
        return pyo.Constraint.Skip if p == 0 else m.second[p] >= m.second[p - 1] + weighted(inst.b, p)

    if objective == "makespan":
        goal = m.second[n - 1]
    elif objective == "max_lateness":
        least = float((inst.r + inst.a + inst.b - inst.d)[due].min())
        stand_in = np.where(due, inst.d, inst.horizon - least)
        m.lateness = pyo.Var(domain=pyo.Reals)

        @m.Constraint(m.Positions)
        def lateness_of_position(m, p):
            return m.lateness >= m.second[p] - weighted(stand_in, p)

        goal = m.lateness
    else:
        big = inst.horizon - float(inst.d[due].min())
        m.late = pyo.Var(m.Positions, domain=pyo.Binary)

        stand_in = np.where(due, inst.d, inst.horizon)  # never late: no order ends after the horizon

        @m.Constraint(m.Positions)
        def late_if_after_due(m, p):
            return m.second[p] - weighted(stand_in, p) <= big * m.late[p]

        goal = sum(m.late[p] for p in m.Positions)
    if lower is not None and math.isfinite(lower):
        m.at_least_our_bound = pyo.Constraint(expr=goal >= lower)
    m.goal = pyo.Objective(expr=goal, sense=pyo.minimize)
    return m


def _milp_order(model: pyo.ConcreteModel, n: int) -> np.ndarray | None:
    position = np.array([[pyo.value(model.x[j, p]) for p in range(n)] for j in range(n)])
    whole = np.all((np.abs(position) < 1e-6) | (np.abs(position - 1) < 1e-6))
    slots = np.argmax(position, axis=1)
    if not whole or not np.array_equal(np.sort(slots), np.arange(n)):
        return None
    return _permutation(np.argsort(slots, kind="stable"), n)


@register_method(PROBLEM, "milp", exact=True)
def _milp(inst: ReleaseInstance, *, time_limit: float, seed: int, **_: object) -> ReleaseOrderSolution:
    """Positional MILP (n^2 binaries) solved by HiGHS, against the heuristic incumbent.

    Optimal only with a certificate: the positions form a permutation whose recomputed objective is
    what HiGHS reported, and HiGHS's bound lies between our `root_bound` and the incumbent's
    objective. The better of HiGHS's order and the incumbent comes back (the incumbent on ties)."""
    clock = Stopwatch()
    n = inst.n
    held = heuristic_order(inst, deadline=HEURISTIC_SHARE * time_limit, clock=clock)
    upper = value_of(inst, schedule_of(inst, held))
    lower = root_bound(inst)
    if n == 0 or MILP_SECONDS_PER_BINARY * n * n > 0.9 * time_limit:
        status, bound = own_proof(upper, lower)
        return solution(inst, held, status, "milp-highs", clock, bound)
    # In units of the largest time (HiGHS's tolerances are absolute); a count of late jobs has none.
    unit = 1.0 if inst.objective == "late_jobs" else inst.scale
    scaled = ReleaseInstance(inst.a / inst.scale, inst.b / inst.scale, inst.r / inst.scale, inst.d / inst.scale,
                             inst.objective)
    model = build_release_model(scaled, lower / unit)
    outcome = solve_milp(model, time_limit=max(1e-3, time_limit - clock.seconds), seed=seed,
                         require_solution=False).in_units(unit)
    order = _milp_order(model, n) if outcome.status.has_solution else None
    if order is None:
        claim = Claim(SolveStatus.TIME_LIMIT, None, outcome.bound)
        status, bound = certified(claim, upper, lower=lower, upper=upper, gap=1e-4)
        return solution(inst, held, status, "milp-highs", clock, bound)
    recomputed = value_of(inst, schedule_of(inst, order))
    status, bound = certified(Claim(outcome.status, outcome.objective, outcome.bound), recomputed, lower=lower,
                              upper=upper, gap=1e-4, method="two-stage release milp")
    if upper <= recomputed:
        order = held  # what we already hold is at least as good: never return worse
    return solution(inst, order, status, "milp-highs", clock, bound)


# ------------------------------------------------------------------------------------------ branch and bound


def _dominated(states: list[list], first: float, second: float, partial: float) -> bool:
    return any(s[0] <= first and s[1] <= second and s[2] <= partial for s in states)


def _critical(remaining: list[int], first: float, second: float, lower: float, r: list[float], a: list[float],
              b: list[float], d: list[float], kind: str) -> list[int]:
    """The remaining jobs worth branching on. Taking a job out of an order and putting it last delays
    no other job, and it then ends by H = max(second, max(first, max r) + sum a) + sum b (induction on
    the recurrence). So a job that could not matter even last (never late by H; or lateness H - d_j
    at most this node's bound, which every completion reaches anyway) may wait for the end: some
    optimal completion of the node has the others first."""
    latest = max(second, max(first, max(r[j] for j in remaining)) + sum(a[j] for j in remaining))
    latest += sum(b[j] for j in remaining)
    if kind == "late_jobs":
        return [j for j in remaining if latest > d[j]]
    return [j for j in remaining if latest - d[j] > lower]


class PrefixSearch:
    """Best-first search over prefixes of ``inst`` (the smallest `node_bound` first, deeper first on
    ties), resumable: `run` expands nodes until a deadline.

    A child is dropped when its bound reaches the incumbent's objective (less a round-off
    tolerance), or when another prefix of the same jobs ends no later on either stage with no worse
    objective so far (its completions are then no worse); a stored state the child dominates is
    dropped in turn. `bound` is the least of the incumbent, every dropped bound and every open
    node's bound, so it holds whenever the search stops."""

    def __init__(self, inst: ReleaseInstance, start: np.ndarray) -> None:
        self.inst, self.kind = inst, inst.objective
        self.r, self.a, self.b, self.d = inst.lists
        self.tolerance = 0.5 if self.kind == "late_jobs" else 1e-9 * inst.scale  # counts are whole numbers
        self.best_order, self.best = start, value_of(inst, schedule_of(inst, start))
        self.by_release = sorted(range(inst.n), key=lambda j: (self.r[j], j))
        root = [0.0, 0.0, 0.0 if self.kind == "late_jobs" else -math.inf, True]
        self.heap: list[tuple] = [(root_bound(inst), 0, 0, 0, (), root)]
        self.seen: dict[int, list[list]] = {}
        self.floor, self.count, self.expanded = math.inf, 0, 0

    def adopt(self, order: np.ndarray) -> None:
        value = value_of(self.inst, schedule_of(self.inst, order))
        if value < self.best:
            self.best, self.best_order = value, order

    @property
    def bound(self) -> float:
        open_bound = min((entry[0] for entry in self.heap if entry[5][3]), default=math.inf)
        return min(self.best, self.floor, open_bound)

    def _leaf(self, value: float, order: tuple[int, ...] | np.ndarray) -> None:
        if value < self.best:
            self.best, self.best_order = value, np.array(order, dtype=np.int64)
        self.floor = min(self.floor, value)

    def run(self, deadline: float, clock: Stopwatch) -> bool:
        """Expand nodes until ``deadline`` seconds; True when the search is complete."""
        r, a, b, d, kind, heap = self.r, self.a, self.b, self.d, self.kind, self.heap
        while heap and clock.seconds < deadline:
            lower, depth, _, mask, prefix, state = heapq.heappop(heap)
            if not state[3]:
                continue  # dominated after it was stored
            if lower >= self.best - self.tolerance:
                self.floor = min(self.floor, lower)
                continue
            self.expanded += 1
            first, second, partial = state[0], state[1], state[2]
            remaining = [j for j in self.by_release if not mask >> j & 1]
            branch = remaining if kind == "makespan" else _critical(remaining, first, second, lower, r, a, b, d,
                                                                      kind)
            if kind == "makespan" and max(r[j] for j in remaining) <= first:
                # All released: Johnson's order is optimal for the rest (stage 2 free at ``second``: put
                # a job (0, second - first) first), so the node is a leaf.
                branch, remaining = [], sorted(remaining, key=self.inst.johnson_rank.__getitem__)
            if not branch:  # no remaining job can matter: any completion reaches this node's bound
                order = np.array((*prefix, *remaining), dtype=np.int64)
                self._leaf(value_of(self.inst, schedule_of(self.inst, order)), order)
                continue
            for j in branch:
                f = max(first, r[j]) + a[j]
                s = max(second, f) + b[j]
                part = 0.0 if kind == "makespan" else partial + (s > d[j]) if kind == "late_jobs" else max(
                    partial, s - d[j])
                rest = [k for k in remaining if k != j]
                if not rest:
                    self._leaf(s if kind == "makespan" else part, (*prefix, j))
                    continue
                key = mask | 1 << j
                stored = self.seen.setdefault(key, [])
                if _dominated(stored, f, s, part):
                    continue
                bound = max(lower, node_bound(self.inst, f, s, rest, part))  # the parent's bound holds below
                if bound >= self.best - self.tolerance:
                    self.floor = min(self.floor, bound)
                    continue
                for other in stored:
                    if f <= other[0] and s <= other[1] and part <= other[2]:
                        other[3] = False
                stored[:] = [other for other in stored if other[3]]
                child = [f, s, part, True]
                stored.append(child)
                self.count += 1
                heapq.heappush(heap, (bound, depth - 1, self.count, key, (*prefix, j), child))
        return not heap


def reversed_instance(inst: ReleaseInstance) -> tuple[ReleaseInstance, float]:
    """The same problem backwards in time, and the offset Q between its objective and ours.

    Makespan and L_max are max_j C_j + q_j with heads r_j and tails q_j = -d_j (0 for the makespan;
    -inf without a due date). Read a schedule of value M backwards from M: stage 2 becomes the first
    stage, the order reverses, a job's tail becomes its head and its release its tail (its due date
    -r_j), and the value is M again. Shifted by Q = max d + sum a + sum b so that every head is >= 0
    (a job without a due date gets head 0, early enough never to wait), its L_max is M + Q."""
    due = np.isfinite(inst.d) if inst.objective == "max_lateness" else np.ones(inst.n, dtype=bool)
    tails = np.where(due, -inst.d if inst.objective == "max_lateness" else 0.0, 0.0)
    offset = float(-tails[due].min() + inst.a.sum() + inst.b.sum())
    heads = np.where(due, tails + offset, 0.0)
    return ReleaseInstance(inst.b.copy(), inst.a.copy(), heads, -inst.r, "max_lateness"), offset


def branch_and_bound(inst: ReleaseInstance, start: np.ndarray, *, deadline: float,
                     clock: Stopwatch) -> tuple[np.ndarray, float, float, int]:
    """`PrefixSearch` forwards and, for makespan and L_max, backwards (`reversed_instance`: fixing
    the end of the order first), in alternating slices that grow from 50 ms, sharing the incumbent.
    Forwards suits an instance whose difficulty is at the start, backwards one whose is at the end.
    Returns (best order, its objective as the search computed it, proven bound: the better of the two
    searches', nodes expanded)."""
    searches = [(PrefixSearch(inst, start), 0.0, False)]
    if inst.objective != "late_jobs" and inst.n > 1:
        backwards, offset = reversed_instance(inst)
        searches.append((PrefixSearch(backwards, start[::-1].copy()), offset, True))
    piece, turn = 0.05, 0
    while clock.seconds < deadline:
        # Both in turn at first; then two slices in three to the one with fewer open nodes.
        sizes = [len(search.heap) for search, _, _ in searches]
        index = turn % len(searches) if turn < len(searches) or turn % 3 == 2 else sizes.index(min(sizes))
        search, _, flipped = searches[index]
        done = search.run(min(deadline, clock.seconds + piece), clock)
        for other, _, flipped_other in searches:
            if other is not search:
                other.adopt(search.best_order[::-1].copy() if flipped != flipped_other else search.best_order)
        if done:
            break
        turn, piece = turn + 1, piece * 1.2
    forward = searches[0][0]
    bound = max(search.bound - offset for search, offset, _ in searches)
    expanded = sum(search.expanded for search, _, _ in searches)
    return forward.best_order, forward.best, min(bound, forward.best), expanded


@register_method(PROBLEM, "branch_and_bound", exact=True)
def _branch_and_bound(inst: ReleaseInstance, *, time_limit: float, seed: int,
                      **_: object) -> ReleaseOrderSolution:
    """Best-first branch and bound over prefixes with `node_bound` and state dominance.

    Certified like "milp": the order's recomputed objective against the search's claim, its bound
    between our `root_bound` and the incumbent's objective. Out of time: the best order found,
    status time_limit, and the least bound of the open nodes."""
    clock = Stopwatch()
    start = incumbent(inst, seed=seed, time_limit=time_limit, clock=clock)
    upper = value_of(inst, schedule_of(inst, start))
    lower = root_bound(inst)
    order, value, bound, _ = branch_and_bound(inst, start, deadline=0.98 * time_limit, clock=clock)
    recomputed = value_of(inst, schedule_of(inst, order))
    finished = bound >= value - (0.5 if inst.objective == "late_jobs" else 1e-9 * inst.scale)
    claim = Claim(SolveStatus.OPTIMAL if finished else SolveStatus.TIME_LIMIT, value, bound)
    status, proven = certified(claim, recomputed, lower=lower, upper=upper, method="two-stage release branch and bound")
    return solution(inst, order, status, "branch-and-bound", clock, proven)


@register_method(PROBLEM, "pso", exact=False)
def _pso(inst: ReleaseInstance, *, time_limit: float, seed: int, pso: PsoOptions | None = None,
         **_: object) -> ReleaseOrderSolution:
    """Particle swarm over random keys: a particle's order is the argsort of its position."""
    clock = Stopwatch()
    if inst.n < 2:
        order = np.arange(inst.n)
    else:
        tie = 1.0 / (2.0 * inst.horizon + 1.0) if inst.objective == "late_jobs" else 0.0

        def cost(swarm: np.ndarray) -> np.ndarray:
            primary, makespan = keys(inst, random_keys(swarm))
            return primary + tie * makespan  # fewer late jobs first, then the shorter makespan

        order = random_keys(minimize(cost, np.zeros(inst.n), np.ones(inst.n), options=pso, seed=seed).position)
    status, bound = own_status(inst, order, root_bound(inst))
    return solution(inst, order, status, "pso", clock, bound)


@register_method(PROBLEM, "exhaustive", exact=True)
def _exhaustive(inst: ReleaseInstance, *, time_limit: float, seed: int, **_: object) -> ReleaseOrderSolution:
    """Every order (n <= 8): the first best on (objective, makespan) in lexicographic order."""
    clock = Stopwatch()
    if inst.n > EXHAUSTIVE_LIMIT:
        raise InvalidInput("jobs", f"exhaustive search takes at most {EXHAUSTIVE_LIMIT} jobs, got {inst.n}")
    orders = np.array(list(itertools.permutations(range(inst.n))), dtype=np.int64)
    orders = orders.reshape(math.factorial(inst.n), inst.n)
    best, (value, _) = _best_row(inst, orders)
    # Its certificate: the enumeration is the proof; the recomputed objective must match it.
    status, bound = certified(Claim(SolveStatus.OPTIMAL, value, value), value_of(inst, schedule_of(inst, best)),
                              lower=root_bound(inst), method="two-stage release exhaustive")
    return solution(inst, best, status, "exhaustive", clock, bound)
