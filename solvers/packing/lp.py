"""The LP side of the exact packing method: the pool of phases, the covering LP with
phase-count rows, and column generation (see solvers/packing/exact.py)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from scipy import sparse

from solvers.backends.milp import WarmLp
from solvers.base import SolveStatus, Stopwatch
from solvers.packing.columns import LevelTables, best_by_level, best_phases, restricted
from solvers.packing.methods import pair_phases
from solvers.packing.problem import PackingInstance, PhaseSchedule, Placement, phase_total

COLUMNS_PER_ROUND = 24
STALL = 4  # sampled rounds without progress before a full pricing
PARTIAL_LEVELS = 96  # lengths priced per partial round, when there are over eight times as many


@dataclass(frozen=True)
class CountRow:
    """``lower`` <= the number of chosen phases at least ``threshold`` seconds long <= ``upper``
    (threshold 0 counts every phase). Branching on these keeps the pricing a knapsack: a phase's
    membership depends only on its length."""

    threshold: float
    lower: float
    upper: float


def branching_row(node: LpBound, pool: ColumnPool) -> tuple[float, float] | None:
    """The length threshold to branch on, with the LP's count of phases at least that long; None
    when every count is whole.

    Phase lengths longest first: with counts c(lambda) falling as lambda grows, the longest
    threshold whose count is fractional shows the first undecided place m = ceil(c) in the order
    of lengths; of the thresholds whose count lies strictly between m - 1 and m, the one nearest
    m - 1/2 splits the m-th longest phase's length where the LP is most undecided. Once the
    lengths of the longest phases are fixed the LP is nearly the integer optimum
    (random_batch(40, 2) on P = 9: root LP 6,743.25, with the two longest lengths fixed 6,814.22,
    three 6,817.74 = the optimum), while the most fractional count anywhere (the rule before) cut
    among short phases first and moved the bound by a few seconds per split."""
    if node.values is None:
        return None
    values = node.values
    costs = np.array(pool.costs[: values.size])
    used = values > 1e-9
    thresholds = np.unique(costs[used])[::-1]  # longest first
    counts = np.array([values[costs >= threshold].sum() for threshold in thresholds])
    distance = np.minimum(counts - np.floor(counts), np.ceil(counts) - counts)
    fractional = np.flatnonzero(distance > 1e-6)
    if not fractional.size:
        return None
    place = math.ceil(counts[fractional[0]])
    within = [i for i in fractional if place - 1 < counts[i] < place]
    best = min(within, key=lambda i: (abs(counts[i] - (place - 0.5)), i))  # ties: the longer threshold
    return float(thresholds[best]), float(counts[best])


def with_row(rows: tuple[CountRow, ...], threshold: float, lower: float, upper: float) -> tuple[CountRow, ...]:
    """The rows with [lower, upper] imposed on the count at ``threshold`` (merged with any there)."""
    kept = []
    for row in rows:
        if row.threshold == threshold:
            lower, upper = max(lower, row.lower), min(upper, row.upper)
        else:
            kept.append(row)
    return (*kept, CountRow(threshold, lower, upper))


class ColumnPool:
    """Distinct phases (by their set of jobs and length) with their costs.

    A column's cost is the length it declares, at least its longest job's time: the pricing
    works per candidate length, and a phase held for a longer length than it needs is a real
    (if wasteful) option, so declaring it keeps the pricing exact when count rows pay phases
    by length. Schedules are always scored by their actual lengths."""

    def __init__(self, instance: PackingInstance) -> None:
        self.instance = instance
        self.phases: list[list[Placement]] = []
        self.costs: list[float] = []
        self.masks: list[int] = []
        self.lengths: list[float] = []  # each column's real length (its cost may be declared longer)
        self._known: set[tuple[int, float]] = set()
        self._entries: tuple[list[int], list[int]] = ([], [])  # (job, column) of every placement
        self._offsets: list[int] = []  # where each column's entries start

    def add(self, phase: list[Placement], length: float | None = None) -> bool:
        mask = _job_set(phase)
        real = phase_total([phase], self.instance)
        cost = real if length is None else max(real, float(length))
        if (mask, cost) in self._known:
            return False
        self._known.add((mask, cost))
        self._offsets.append(len(self._entries[0]))
        self._entries[0].extend(p.job for p in phase)
        self._entries[1].extend(len(self.phases) for _ in phase)
        self.phases.append(list(phase))
        self.costs.append(cost)
        self.masks.append(mask)
        self.lengths.append(real)
        return True

    def matrix(self, start: int = 0) -> sparse.csc_matrix:
        """Job-by-column incidence of the columns from ``start`` on."""
        begin = self._offsets[start] if start < len(self._offsets) else len(self._entries[0])
        rows, cols = self._entries[0][begin:], np.array(self._entries[1][begin:], dtype=np.int64) - start
        shape = (self.instance.jobs, len(self.phases) - start)
        return sparse.csc_matrix((np.ones(len(rows)), (rows, cols)), shape=shape)

    def cheapest(self, among: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The index of the cheapest column of each job set, by its real length (declared lengths
        serve the LP's count rows), and those lengths; in pool order; over the columns ``among``
        (indices; None: every column). A costlier column of the same set is dominated: any
        schedule using it is matched by the cheapest."""
        best: dict[int, tuple[float, int]] = {}
        for c in range(len(self.masks)) if among is None else np.unique(among).tolist():
            mask, cost = self.masks[c], self.lengths[c]
            if mask not in best or cost < best[mask][0]:
                best[mask] = (cost, c)
        chosen = sorted((c, cost) for cost, c in best.values())
        return np.array([c for c, _ in chosen], dtype=np.int64), np.array([cost for _, cost in chosen])

    def reduced_costs(self, lp: LpBound, levels: np.ndarray) -> np.ndarray:
        """Every column's reduced cost at its real length under the region ``lp``'s duals."""
        shift = lp.shift[np.searchsorted(levels, np.array(self.lengths))] if lp.shift is not None else 0.0
        return np.array(self.lengths) - self.matrix().T @ lp.duals - shift

    def holding(self, phases: list[list[Placement]]) -> np.ndarray:
        """The columns whose job set is one of the phases'."""
        wanted = {_job_set(phase) for phase in phases}
        return np.array([c for c, mask in enumerate(self.masks) if mask in wanted], dtype=np.int64)

    def start(self, phases: list[list[Placement]], kept: np.ndarray) -> np.ndarray:
        """A 0/1 vector over the columns ``kept`` (one per job set) choosing the given phases' sets."""
        return np.isin(kept, self.holding(phases)).astype(float)


def _job_set(phase: list[Placement]) -> int:
    """The jobs of a phase as a bit mask (a column's identity with its length)."""
    return sum(1 << p.job for p in phase)


def initial_pool(instance: PackingInstance, greedy: PhaseSchedule) -> ColumnPool:
    """Every job alone at its fastest, the greedy schedule's phases and every pair's best phases."""
    pool = ColumnPool(instance)
    for j in range(instance.jobs):
        pool.add([Placement(j, int(np.argmin(instance.times[j, :, 0])) + 1, "primary")])
    for phase in greedy.phases:
        pool.add(list(phase))
    for i in range(instance.jobs):
        for j in range(i + 1, instance.jobs):
            for phase in pair_phases(instance, i, j)[1]:
                pool.add(phase)
    return pool


@dataclass(frozen=True)
class LpBound:
    """Where column generation got for one set of count ``rows``: a proven ``bound`` on every
    schedule obeying them, the last duals (``duals`` per job; ``shift[k]``, what the count rows
    pay a phase of length levels[k]), whether it ``converged``, and the LP solution ``values``
    over the first len(values) columns of the pool; for those duals, ``lagrange`` (sum(pi) and the
    rows' least terms) and ``rho``, at most every phase's reduced cost per second of its length."""

    bound: float
    duals: np.ndarray | None
    shift: np.ndarray | None
    converged: bool
    values: np.ndarray | None
    rows: tuple[CountRow, ...]
    lagrange: float = -np.inf
    rho: float = -np.inf
    least: float = -np.inf

    def slack(self, incumbent: float) -> float:
        """The most reduced cost (under these duals) a phase of a schedule in the region costing at
        most ``incumbent`` can have. Such a schedule costs at least lagrange + its phases' reduced
        costs; the others' are each at least ``least`` (at most n - 1 of them) and together at least
        rho x their length, so one phase's is at most the lesser of incumbent - lagrange - (n - 1)
        min(0, least) and incumbent (1 - min(0, rho)) - lagrange. (incumbent - bound holds only
        for the duals of the bound: the best bound may come from earlier duals, and Farley's is
        above the Lagrangian one when rho < 0.)"""
        jobs = self.duals.size if self.duals is not None else 0
        by_count = incumbent - self.lagrange - max(0, jobs - 1) * min(0.0, self.least)
        return min(by_count, incumbent * (1.0 - min(0.0, self.rho)) - self.lagrange)


class _CoveringLp:
    """The covering LP with the count ``rows`` over the pool, kept in one HiGHS instance
    (`solvers.backends.milp.WarmLp`) while column generation adds columns: each round starts from the
    last basis instead of from scratch."""

    def __init__(self, pool: ColumnPool, rows: tuple[CountRow, ...], levels: np.ndarray, seed: int) -> None:
        n = pool.instance.jobs
        self.pool, self.rows, self.levels, self.size = pool, rows, levels, 0
        lower = np.append(np.ones(n), [row.lower for row in rows])
        upper = np.append(np.full(n, np.inf), [row.upper for row in rows])
        # Elastic count rows: surplus and slack columns at a price above any schedule keep the LP
        # feasible while the pool lacks phases of the wanted lengths. Extra columns only lower
        # the LP, so its value still bounds every schedule that obeys the rows.
        price = 2.0 * pool.instance.sequential + 1.0
        self.lp = WarmLp(lower, upper, unit=price if rows else float(levels[-1]), seed=seed)
        self.offset = 2 * len(rows)
        if rows:
            identity = sparse.identity(len(rows))
            elastic = sparse.bmat([[sparse.csc_matrix((n, 2 * len(rows)))], [sparse.hstack([identity, -identity])]])
            self.lp.add_columns(
                np.full(self.offset, price), elastic, np.zeros(self.offset), np.full(self.offset, np.inf)
            )

    def _add_new(self) -> None:
        start, size = self.size, len(self.pool.costs)
        if size == start:
            return
        costs = np.array(self.pool.costs[start:])
        columns = self.pool.matrix(start)
        if self.rows:
            counts = sparse.csr_matrix(np.array([costs >= row.threshold for row in self.rows], dtype=np.float64))
            columns = sparse.vstack([columns, counts]).tocsc()
        self.lp.add_columns(costs, columns, np.zeros(costs.size), np.full(costs.size, np.inf))
        self.size = size

    def solve(self, time_limit: float):
        """(objective, duals per job, shift per level, Lagrangian value, values over the pool's
        columns), or None when the LP did not solve to optimality."""
        n = self.pool.instance.jobs
        self._add_new()
        outcome = self.lp.solve(time_limit)
        if outcome.status is not SolveStatus.OPTIMAL or outcome.duals is None or outcome.objective is None:
            return None
        duals = np.maximum(outcome.duals[:n], 0.0)
        shift = np.zeros(self.levels.size)
        lagrange = float(duals.sum())
        for t, row in enumerate(self.rows):
            nu = float(outcome.duals[n + t])
            if not np.isfinite(row.upper):
                nu = max(nu, 0.0)  # an at-least row has a nonnegative dual; below 0 is round-off
            shift += nu * (self.levels >= row.threshold)
            lagrange += min(nu * row.lower, nu * row.upper) if np.isfinite(row.upper) or nu >= 0 else -np.inf
        return outcome.objective, duals, shift, lagrange, outcome.values[self.offset : self.offset + self.size]


def _add_best(pool: ColumnPool, tables: LevelTables, duals: np.ndarray, reduced: np.ndarray, tolerance: float) -> int:
    """Add the phases of the most negative reduced costs (one per length), declared at that length;
    up to `COLUMNS_PER_ROUND` new ones, traced back a round's worth at a time (`best_phases`)."""
    order = np.argsort(reduced, kind="stable")
    order = order[reduced[order] < -tolerance].tolist()
    added = 0
    while order and added < COLUMNS_PER_ROUND:
        batch, order = order[:COLUMNS_PER_ROUND], order[COLUMNS_PER_ROUND:]
        for k, phase in zip(batch, best_phases(tables, duals, batch), strict=True):
            if added < COLUMNS_PER_ROUND:
                added += pool.add(phase, float(tables.levels[k]))
    return added


def _farley(levels: np.ndarray, lagrange: float, reduced: np.ndarray) -> float:
    """Farley's bound, much stronger than the Lagrangian one before convergence, with count rows too.
    A schedule obeying the rows costs lagrange + the sum of its phases' reduced costs (see
    `generate_columns`), and a phase of length L has a reduced cost of at least rho L, rho the least
    of (reduced cost / length) over the lengths; so cost >= lagrange + rho cost, that is
    cost >= lagrange / (1 - rho) (rho < 1). Without rows this is sum(duals) / theta, theta the most
    dual weight per second a phase holds."""
    if not (levels > 0).all():  # a phase of length 0 has no reduced cost per second
        return -np.inf
    rho = float(np.min(reduced / levels))
    return lagrange / (1.0 - rho) if rho < 1.0 else -np.inf


def generate_columns(instance: PackingInstance, pool: ColumnPool, tables: LevelTables, *, deadline: float,
                     clock: Stopwatch, seed: int, rows: tuple[CountRow, ...] = (),
                     limit: float | None = None, cutoff: float = np.inf) -> LpBound:
    """Column generation on the covering LP with the count ``rows``, stopped early (not converged)
    once its bound reaches ``cutoff`` (a region that cannot beat the incumbent needs no more).

    For any schedule obeying the rows, its cost is at least sum(pi) + the rows' least dual terms
    (``lagrange``) + the sum of its phases' reduced costs, so with at most n phases, lagrange +
    n * min(0, least reduced cost) bounds it, and so does Farley's lagrange / (1 - rho) (`_farley`),
    at every round, at convergence too (where both are the LP value up to round-off): the bound
    never rests on HiGHS's word. With many candidate lengths (large clusters) most rounds price
    only a sample of them (spread evenly, plus the best of the last full pricing); a length
    between two priced ones holds at most what the next longer priced one does, which bounds the
    reduced costs of every length from the sample alone. A full pricing runs whenever the sample
    finds nothing or stalls (`STALL` rounds without the LP's value moving), so convergence is
    still proven over every length. Stopped by the ``deadline`` between full pricings, it prices
    the last duals in full once more for the bound, when that fits before ``limit`` (the solve's
    own time limit) at the pace of the last one.
    """
    scale = float(tables.levels[-1])
    tolerance = 1e-9 * scale
    size = tables.levels.size
    sample, cached = None, None
    if size > 8 * PARTIAL_LEVELS:
        sample = np.linspace(0, size - 1, PARTIAL_LEVELS).astype(np.int64)
    state = LpBound(0.0, None, None, False, None, rows)
    unpriced = None  # the last LP's duals when only a sample of lengths was priced with them
    pace = None  # seconds one full pricing took
    estimate = 0.0  # what one would take, from the sampled pricings, before one is timed
    lp = _CoveringLp(pool, rows, tables.levels, seed)
    recent: list[float] = []  # the LP's values since the last full pricing
    while clock.seconds < deadline:
        solved = lp.solve(max(1e-3, deadline - clock.seconds))
        if solved is None:
            break
        objective, duals, shift, lagrange, values = solved
        recent.append(objective)
        # A sample that finds columns without moving the LP (degenerate pivots) is stalling:
        # a full pricing then finds the columns that matter.
        stalled = len(recent) > STALL and recent[-1 - STALL] - objective <= 1e-5 * abs(objective)
        if sample is not None and not stalled:
            if cached is None or not np.array_equal(cached[0], sample):
                cached = (sample, restricted(tables, sample))  # the sample changes only after a full pricing
            part = cached[1]
            priced = np.unique(sample)
            started = clock.seconds
            part_held = best_by_level(part, duals)
            if pace is None:  # until a full pricing is timed: the sample's pace, scaled to every length
                estimate = (clock.seconds - started) * size / max(1, part.levels.size)
            # A bound from the sample alone: a phase fitting one length fits every longer one, so the
            # weight held at a length is at most that of the next priced length (the longest is priced).
            above = part_held[np.searchsorted(priced, np.arange(size))]
            state = _bounded(state, tables.levels, lagrange, tables.levels - above - shift, instance.jobs, duals, shift,
                             values)
            if state.bound >= cutoff:
                return state
            if _add_best(pool, part, duals, part.levels - part_held - shift[priced], tolerance):
                unpriced = (duals, shift, lagrange, values)
                continue
        unpriced = None
        recent = recent[-1:]
        started = clock.seconds
        held = best_by_level(tables, duals)
        pace = clock.seconds - started
        reduced = tables.levels - held - shift
        # The bound is ours, not HiGHS's LP value: sum(pi) and the rows' terms, with our own exact
        # pricing's least reduced cost, bound every schedule whatever the duals' accuracy.
        state = _bounded(state, tables.levels, lagrange, reduced, instance.jobs, duals, shift, values)
        if float(reduced.min()) >= -tolerance:
            return replace(state, converged=True)
        if state.bound >= cutoff:
            return state
        if sample is not None:
            best = np.argsort(reduced, kind="stable")[:PARTIAL_LEVELS // 2]
            sample = np.unique(np.concatenate([np.linspace(0, size - 1, PARTIAL_LEVELS // 2).astype(np.int64), best]))
        if not _add_best(pool, tables, duals, reduced, tolerance):
            # The pricing's best columns are already in the pool: numerically converged.
            return replace(state, converged=True)
    if unpriced is not None and (limit is None or clock.seconds + 2 * (pace if pace is not None else estimate) <= limit):
        # Out of time between full pricings: one more, so that the bound reflects the last duals.
        duals, shift, lagrange, values = unpriced
        reduced = tables.levels - best_by_level(tables, duals) - shift
        state = _bounded(state, tables.levels, lagrange, reduced, instance.jobs, duals, shift, values)
    return state


def _bounded(state: LpBound, levels: np.ndarray, lagrange: float, reduced: np.ndarray, jobs: int, duals: np.ndarray,
             shift: np.ndarray, values: np.ndarray) -> LpBound:
    """The state after a pricing with the least reduced cost of each length (or less: a valid
    bound needs only a lower one): the better of the Lagrangian bound (at most ``jobs`` phases)
    and Farley's, never below the last one."""
    least = float(reduced.min())
    bound = max(state.bound, lagrange + jobs * min(0.0, least), _farley(levels, lagrange, reduced))
    rho = float(np.min(reduced / levels)) if (levels > 0).all() else -np.inf
    return LpBound(bound, duals, shift, False, values, state.rows, lagrange, rho, least)
