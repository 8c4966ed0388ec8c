"""The exact packing MILP: phases as columns (set partitioning), solved by HiGHS.

The compact linearization (`build_packing_model`: binaries y[j, p, v, role],
L_p >= each job's time) is exact but its LP bound is weak: a job can be spread
thinly over phases, so on 20 jobs HiGHS still sees gaps near 25% after a
minute. This is its Dantzig-Wolfe reformulation, the same decisions grouped
by phase: a binary x_s per feasible phase s (a set of jobs, each with its VM
count and role), cost c_s = the phase's length;

    minimize    sum_s c_s x_s
    subject to  sum_{s containing j} x_s = 1   for every job j   (one_phase)

Phases carry no labels here, so the symmetry between interchangeable phases
is gone entirely. The LP relaxation is solved by column generation: the
covering LP over a pool of columns gives duals pi_j >= 0, and the pricing
(`packing_columns.best_by_level`, an exact knapsack over every candidate phase
length at once) finds the phases with negative reduced cost c_s - pi(s). At
every round sum(pi) + n * min(0, least reduced cost) is a proven lower bound
(an optimal schedule has at most n phases); when no column prices out, the LP
value itself is. HiGHS then solves the integer program over the pool, started
from the greedy schedule (whose phases are in the pool). If a gap remains,
every phase with reduced cost at most (incumbent - bound) is enumerated: an
optimal schedule uses only such phases, so the integer program over them is
optimal, and the status says so. When the enumeration would be too large or
too slow the incumbent is returned with the bound and status time_limit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from solvers.base import SolveStatus, Stopwatch
from solvers.milp import solve_arrays
from solvers.packing import PROBLEM, PackingInstance, PhaseSchedule, Placement, make_schedule, phase_total
from solvers.packing_columns import best_by_level, best_phase, enumerate_phases, level_tables
from solvers.packing_methods import _greedy, _rebalance, pair_phases
from solvers.registry import register_method

ENUMERATION_LIMIT = 200_000
COLUMNS_PER_ROUND = 24


class ColumnPool:
    """Distinct phases (by their set of jobs, keeping the shortest) with their costs."""

    def __init__(self, instance: PackingInstance) -> None:
        self.instance = instance
        self.phases: list[list[Placement]] = []
        self.costs: list[float] = []
        self._index: dict[int, int] = {}

    def add(self, phase: list[Placement]) -> bool:
        mask = sum(1 << p.job for p in phase)
        cost = phase_total([phase], self.instance)
        known = self._index.get(mask)
        if known is not None:
            if cost < self.costs[known] - 1e-12:
                self.phases[known], self.costs[known] = list(phase), cost
                return True
            return False
        self._index[mask] = len(self.phases)
        self.phases.append(list(phase))
        self.costs.append(cost)
        return True

    def matrix(self) -> sparse.csc_matrix:
        rows = [p.job for phase in self.phases for p in phase]
        cols = [c for c, phase in enumerate(self.phases) for _ in phase]
        return sparse.csc_matrix((np.ones(len(rows)), (rows, cols)), shape=(self.instance.jobs, len(self.phases)))


def _initial_pool(instance: PackingInstance, greedy: PhaseSchedule) -> ColumnPool:
    pool = ColumnPool(instance)
    for j in range(instance.jobs):
        best = int(np.argmin(instance.times[j, :, 0])) + 1
        pool.add([Placement(j, best, "primary")])
    for phase in greedy.phases:
        pool.add(list(phase))
    for i in range(instance.jobs):
        for j in range(i + 1, instance.jobs):
            for phase in pair_phases(instance, i, j)[1]:
                pool.add(phase)
    return pool


@dataclass(frozen=True)
class LpBound:
    """Where column generation got: a proven ``bound`` (for schedules of exactly ``phases``
    phases, or any number when None), the last duals (``duals`` per job, ``shift`` for the
    phase-count row), whether it ``converged`` and the LP's phase count ``used``."""

    bound: float
    duals: np.ndarray | None
    shift: float
    converged: bool
    used: float
    phases: int | None


def _covering_lp(pool: ColumnPool, seed: int, time_limit: float, phases: int | None):
    n = pool.instance.jobs
    columns = pool.matrix()
    lower, upper, costs = np.ones(n), np.full(n, np.inf), np.array(pool.costs)
    if phases is not None:
        # Exactly this many phases: one more row, all ones. The pool may not hold enough phases
        # for that count yet, so an artificial phase covering every job, dearer than any whole
        # schedule, keeps the LP feasible; an extra column only lowers the LP, so its value
        # stays a valid bound.
        columns = sparse.hstack([columns, np.ones((n, 1))])
        columns = sparse.vstack([columns, np.ones((1, columns.shape[1]))]).tocsc()
        lower, upper = np.append(lower, phases), np.append(upper, phases)
        costs = np.append(costs, 2.0 * pool.instance.sequential + 1.0)
    outcome = solve_arrays(costs, columns, lower, upper, np.zeros(columns.shape[1]),
                           np.full(columns.shape[1], np.inf), integer=False, time_limit=time_limit, seed=seed)
    if outcome.status is not SolveStatus.OPTIMAL or outcome.duals is None or outcome.objective is None:
        return None
    shift = float(outcome.duals[n]) if phases is not None else 0.0
    return outcome.objective, np.maximum(outcome.duals[:n], 0.0), shift, float(outcome.values[: len(pool.costs)].sum())


def generate_columns(instance: PackingInstance, pool: ColumnPool, *, deadline: float, clock: Stopwatch,
                     seed: int, phases: int | None = None) -> LpBound:
    """Column generation on the covering LP (optionally with exactly ``phases`` phases).

    Any schedule's cost is sum(pi) + shift * K + the sum of its K phases' reduced costs, so
    sum(pi) + shift * K + K * (least reduced cost) bounds every schedule of K <= n phases
    (K = n, the most phases, when the reduced cost is negative and the count is free).
    """
    tables = level_tables(instance)
    scale = float(tables.levels[-1])
    state = LpBound(0.0, None, 0.0, False, 0.0, phases)
    while clock.seconds < deadline:
        solved = _covering_lp(pool, seed, max(1e-3, deadline - clock.seconds), phases)
        if solved is None:
            break
        value, duals, shift, used = solved
        reduced = tables.levels - best_by_level(tables, duals) - shift
        least = float(reduced.min())
        if least >= -1e-9 * scale:
            return LpBound(max(state.bound, value), duals, shift, True, used, phases)
        count = instance.jobs if phases is None else phases
        lagrangian = float(duals.sum()) + shift * count + count * least
        state = LpBound(max(state.bound, lagrangian), duals, shift, False, used, phases)
        added = 0
        for k in np.argsort(reduced, kind="stable"):
            if reduced[k] >= -1e-9 * scale or added >= COLUMNS_PER_ROUND:
                break
            added += pool.add(best_phase(tables, duals, int(k)))
        if not added:  # the pricing's best columns are already in the pool: numerically converged
            return LpBound(max(state.bound, value), duals, shift, True, used, phases)
    return state


def _integer_program(pool: ColumnPool, start: list[list[Placement]] | None, *, time_limit: float, seed: int,
                     mip_gap: float):
    n = pool.instance.jobs
    columns = pool.matrix()
    count = columns.shape[1]
    guess = None
    if start is not None:
        chosen = {sum(1 << p.job for p in phase) for phase in start}
        guess = np.array([1.0 if sum(1 << p.job for p in phase) in chosen else 0.0 for phase in pool.phases])
    return solve_arrays(np.array(pool.costs), columns, np.ones(n), np.ones(n), np.zeros(count), np.ones(count),
                        integer=True, time_limit=time_limit, seed=seed, mip_gap=mip_gap, start=guess)


def _polish(phases: list[list[Placement]], instance: PackingInstance) -> list[list[Placement]]:
    """Spread each all-primary phase's spare VMs over its longest jobs (never lengthens a phase)."""
    polished = []
    for phase in phases:
        if any(p.role != "primary" for p in phase):
            polished.append(phase)
            continue
        vms = {p.job: p.vms for p in phase}
        _rebalance(instance, list(vms), vms)
        polished.append([Placement(j, v, "primary") for j, v in vms.items()])
    return polished


class _Search:
    """The incumbent, the pool and the clock of one solve."""

    def __init__(self, instance: PackingInstance, time_limit: float, seed: int, mip_gap: float) -> None:
        self.clock = Stopwatch()
        self.instance, self.time_limit, self.seed, self.mip_gap = instance, time_limit, seed, mip_gap
        greedy = _greedy(instance, time_limit=time_limit, seed=seed)
        self.pool = _initial_pool(instance, greedy)
        self.best, self.total = [list(p) for p in greedy.phases], greedy.objective

    def closed(self, bound: float) -> bool:
        return self.total - bound <= self.mip_gap * self.total + 1e-9

    def improve(self) -> SolveStatus:
        """The integer program over the pool; keeps what beats the incumbent."""
        solved = _integer_program(self.pool, self.best, time_limit=max(1e-3, self.time_limit - self.clock.seconds),
                                  seed=self.seed, mip_gap=self.mip_gap)
        if solved.values is not None:
            phases = [self.pool.phases[c] for c in np.flatnonzero(solved.values > 0.5)]
            total = phase_total(phases, self.instance)
            if total < self.total - 1e-12:
                self.best, self.total = phases, total
        return solved.status

    def columns(self, deadline: float, phases: int | None = None) -> LpBound:
        return generate_columns(self.instance, self.pool, deadline=min(deadline, self.time_limit), clock=self.clock,
                                seed=self.seed, phases=phases)

    def by_phase_count(self, root: LpBound, deadline: float) -> tuple[float, list[LpBound] | None]:
        """Bound every phase count K separately (the LP value is convex in K, so walking away
        from the root LP's count, a K whose bound reaches the incumbent ends that direction).
        Returns the bound over all K and the counts still open (None when time ran out first)."""
        n, start = self.instance.jobs, int(np.floor(root.used + 1e-9))
        open_counts: list[LpBound] = []
        for first, step in ((start, -1), (start + 1, 1)):
            count = first
            while 1 <= count <= n:
                if self.clock.seconds >= deadline:
                    return min([root.bound, *(b.bound for b in open_counts)]), None
                bound = self.columns(deadline, count)
                self.improve()
                if self.closed(bound.bound):
                    break
                open_counts.append(bound)
                count += step
        return min((b.bound for b in open_counts), default=self.total), open_counts

    def prove(self, open_counts: list[LpBound]) -> bool:
        """Enumerate, for each open count, every phase that could still be in a better schedule,
        then solve the integer program over all of them: optimal if every list was complete.
        Incomplete lists still feed the integer program good phases (low reduced cost)."""
        tables = level_tables(self.instance)
        complete = True
        for index, lp in enumerate(open_counts):
            if not lp.converged or lp.duals is None:
                complete = False
                continue
            # The last 15% of the time stays for the integer program over what was found.
            share = (0.85 * self.time_limit - self.clock.seconds) / (len(open_counts) - index)
            slack = self.total - lp.bound
            found, whole = enumerate_phases(tables, lp.duals, slack * (1 + 1e-9) + 1e-9 + lp.shift,
                                            limit=ENUMERATION_LIMIT, deadline=self.clock.seconds + max(0.0, share),
                                            clock=self.clock)
            complete = complete and whole
            for _, phase in found:
                self.pool.add(phase)
        return self.improve() is SolveStatus.OPTIMAL and complete


@register_method(PROBLEM, "milp", exact=True)
def _milp(instance: PackingInstance, *, time_limit: float, seed: int, mip_gap: float = 1e-6,
          **_: object) -> PhaseSchedule:
    """Set partitioning over phases by column generation and HiGHS, started from "greedy" (module docstring)."""
    search = _Search(instance, time_limit, seed, mip_gap)
    root = search.columns(0.3 * time_limit)
    search.improve()
    if not (root.converged or search.closed(root.bound)):
        # A slow start: keep generating (the pool grows) into the phase-count share of the time.
        later = search.columns(0.6 * time_limit)
        root = later if later.converged or later.bound > root.bound else root
        search.improve()
    bound, proven = root.bound, search.closed(root.bound)
    if not proven and root.converged:
        bound, open_counts = search.by_phase_count(root, 0.6 * time_limit)
        bound = max(bound, root.bound)
        proven = search.closed(bound)
        if not proven and open_counts is not None and search.clock.seconds < time_limit:
            # The enumeration's integer program may also reach the bound without a full list.
            proven = search.prove(open_counts) or search.closed(bound)
    if proven:
        bound = search.total
    status = SolveStatus.OPTIMAL if proven else SolveStatus.TIME_LIMIT
    return make_schedule(_polish(search.best, instance), instance, status, "milp-columns", search.clock, bound)
