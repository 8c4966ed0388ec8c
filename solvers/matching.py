"""Exact minimum-weight perfect matching for pair scheduling: MILP (HiGHS) and blossom (networkx).

Both work on the complete graph of the jobs (plus a dummy when their number is
odd) and both shrink it first, without losing optimality, by LP reduced-cost
fixing:

1. the LP relaxation (sum of x_e at each node = 1, 0 <= x <= 1, plus Edmonds'
   odd-set cuts sum of x_e inside S <= (|S| - 1) / 2 for the odd components of
   fractional edges, added as they appear) is solved by column generation: start from each node's 10
   cheapest edges and the matching (0, 1), (2, 3), ... (so it is feasible), add edges whose reduced cost c_uv - y_u - y_v is negative,
   until none is. Its value LB is a lower bound, and every edge has reduced
   cost r_e = c_e - y_u - y_v - (cut duals of the sets holding both ends) >= 0;
   when its optimum is integral it is the optimal matching;
2. any perfect matching M costs LB + the sum of r_e over its edges, so with an
   incumbent of cost UB, an edge with r_e > UB - LB lies in no matching better
   than the incumbent and is dropped;
3. the exact method runs on the edges that remain (which include the
   incumbent's). The incumbent is an integer matching on the LP's tight
   edges (reduced cost ~0), so UB - LB and the remaining edge set are small.

Small graphs (up to `DIRECT_LIMIT` nodes) skip the shrinking.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import connected_components

from solvers.base import SolverFailed, SolveStatus, Stopwatch
from solvers.certify import Claim, certified, check_claim
from solvers.milp import silence_highs, solve_arrays
from solvers.pairs import PROBLEM, PairCosts, PairSchedule, _edge_costs, _schedule
from solvers.registry import register_method

DIRECT_LIMIT = 60
START_NEIGHBOURS = 10
#: Reduced costs below this fraction of the objective count as zero.
TIGHT = 1e-9


def _columns(u: np.ndarray, v: np.ndarray, nodes: int, cuts: list[np.ndarray]) -> sparse.csc_matrix:
    """Degree rows (one per node), then one row per odd-set cut over the edges inside its set."""
    rows = [u, v]
    cols = [np.arange(u.size), np.arange(u.size)]
    for index, members in enumerate(cuts):
        inside = np.flatnonzero(members[u] & members[v])
        rows.append(np.full(inside.size, nodes + index))
        cols.append(inside)
    row = np.concatenate(rows)
    col = np.concatenate(cols)
    return sparse.csc_matrix((np.ones(row.size), (row, col)), shape=(nodes + len(cuts), u.size))


def _solve_on(
    matrix: np.ndarray, u: np.ndarray, v: np.ndarray, *, integer: bool, time_limit: float, seed: int,
    cuts: list[np.ndarray] | None = None,
):
    nodes = matrix.shape[0]
    cuts = cuts or []
    lower = np.concatenate([np.ones(nodes), np.full(len(cuts), -np.inf)])
    upper = np.concatenate([np.ones(nodes), [(m.sum() - 1) / 2 for m in cuts]])
    # mip_gap 0: HiGHS's default relative gap would call a matching optimal that is not
    return solve_arrays(matrix[u, v], _columns(u, v, nodes, cuts), lower, upper, np.zeros(u.size), np.ones(u.size),
                        integer=integer, time_limit=time_limit, seed=seed, mip_gap=0.0)


def _all_edges(nodes: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(nodes, 1)


@dataclass(frozen=True)
class MatchingLp:
    """The matching LP over the complete graph: its value, every edge's reduced cost
    (upper-triangular, +inf elsewhere), the final column set and its solution."""

    lower: float
    reduced: np.ndarray
    u: np.ndarray
    v: np.ndarray
    values: np.ndarray

    def integral_pairs(self) -> list[tuple[int, int]] | None:
        if np.all((self.values < 1e-6) | (self.values > 1 - 1e-6)):
            return _pairs_from(self.u, self.v, self.values)
        return None


def _odd_components(u: np.ndarray, v: np.ndarray, values: np.ndarray, nodes: int) -> list[np.ndarray]:
    """Node sets of the odd connected components of the fractional edges (violated odd-set cuts)."""
    fractional = (values > 1e-6) & (values < 1 - 1e-6)
    if not fractional.any():
        return []
    graph = sparse.coo_matrix((np.ones(int(fractional.sum())), (u[fractional], v[fractional])), shape=(nodes, nodes))
    _, labels = connected_components(graph, directed=False)
    touched = np.zeros(nodes, dtype=bool)
    touched[u[fractional]] = touched[v[fractional]] = True
    cuts = []
    for label in np.unique(labels[touched]):
        members = labels == label
        if members.sum() % 2 == 1 and members.sum() >= 3:
            cuts.append(members)
    return cuts


class _GrowingLp:
    """The matching LP kept in one HiGHS instance, so that added columns and cuts warm-start."""

    def __init__(self, matrix: np.ndarray) -> None:
        import highspy

        self.matrix = matrix
        self.nodes = matrix.shape[0]
        silence_highs()
        self.highs = highspy.Highs()
        for name, value in (("output_flag", False), ("threads", 1), ("random_seed", 0)):
            self.highs.setOptionValue(name, value)
        ones = np.ones(self.nodes)
        self.highs.addRows(self.nodes, ones, ones, 0, np.zeros(self.nodes, dtype=np.int32),
                           np.zeros(0, dtype=np.int32), np.zeros(0))
        self.u = np.zeros(0, dtype=np.int64)
        self.v = np.zeros(0, dtype=np.int64)
        self.cuts: list[np.ndarray] = []

    def add_edges(self, u: np.ndarray, v: np.ndarray) -> None:
        entries = [[int(a), int(b)] + [self.nodes + c for c, m in enumerate(self.cuts) if m[a] and m[b]]
                   for a, b in zip(u.tolist(), v.tolist(), strict=True)] if self.cuts else None
        if entries is None:
            index = np.empty(2 * u.size, dtype=np.int32)
            index[0::2], index[1::2] = u, v
            starts = np.arange(0, 2 * u.size, 2, dtype=np.int32)
        else:
            starts = np.cumsum([0] + [len(e) for e in entries[:-1]]).astype(np.int32)
            index = np.array([i for e in entries for i in e], dtype=np.int32)
        # No upper bound of 1: the degree rows imply it, and an explicit one lets HiGHS price edges at
        # that bound negatively, which would weaken the bound we compute from the duals.
        self.highs.addCols(u.size, self.matrix[u, v], np.zeros(u.size), np.full(u.size, np.inf), index.size, starts,
                           index,
                           np.ones(index.size))
        self.u = np.concatenate([self.u, u])
        self.v = np.concatenate([self.v, v])

    def add_cut(self, members: np.ndarray) -> None:
        inside = np.flatnonzero(members[self.u] & members[self.v]).astype(np.int32)
        self.highs.addRows(1, np.array([-np.inf]), np.array([(members.sum() - 1) / 2]), inside.size,
                           np.zeros(1, dtype=np.int32), inside, np.ones(inside.size))
        self.cuts.append(members)

    def solve(self, time_limit: float) -> tuple[float, np.ndarray, np.ndarray]:
        import highspy

        # HiGHS compares its limit with the object's run time over every run() so far, not this one's.
        self.highs.setOptionValue("time_limit", self.highs.getRunTime() + max(1e-3, time_limit))
        self.highs.run()
        if self.highs.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            raise SolverFailed(f"the matching LP ended {self.highs.modelStatusToString(self.highs.getModelStatus())}")
        solution = self.highs.getSolution()
        return (float(self.highs.getInfo().objective_function_value), np.asarray(solution.col_value),
                np.asarray(solution.row_dual))


def matching_lp(matrix: np.ndarray, time_limit: float = 60.0) -> MatchingLp | None:
    """Column generation with odd-set (blossom) cuts, until no edge prices in and no odd
    component of fractional edges is left (or half the time limit is spent). None when the LP
    itself does not finish within the time limit.

    The bound is computed here from the duals, not taken from HiGHS: with node duals y and cut
    duals z <= 0 (a <= row's dual; above 0 is round-off and is cut to 0), every perfect matching M
    costs sum(y) + sum_S z_S |M in S| + sum_{e in M} r_e >= sum(y) + sum_S z_S (|S| - 1) / 2 +
    (1/2) sum over nodes of min(0, the node's least r_e), with r_e = c_e - y_u - y_v - (z of the sets holding both ends)
    computed by us for every edge. So it bounds every matching whatever the duals' accuracy, and
    so does the shrinking that relies on it (`shrink`)."""
    nodes = matrix.shape[0]
    nearest = np.argsort(matrix, axis=1, kind="stable")[:, : min(START_NEIGHBOURS, nodes - 1)]
    chosen = np.zeros((nodes, nodes), dtype=bool)
    rows = np.repeat(np.arange(nodes), nearest.shape[1])
    chosen[np.minimum(rows, nearest.ravel()), np.maximum(rows, nearest.ravel())] = True
    chosen[np.arange(0, nodes, 2), np.arange(1, nodes, 2)] = True  # a perfect matching: the LP is feasible
    upper = np.triu(np.ones((nodes, nodes), dtype=bool), 1)
    chosen &= upper
    scale = max(1.0, float(np.max(matrix[np.isfinite(matrix)])))
    clock = Stopwatch()
    lp = _GrowingLp(matrix)
    lp.add_edges(*np.nonzero(chosen))
    while True:
        try:
            _, values, duals = lp.solve(time_limit - clock.seconds)
        except SolverFailed:
            return None
        node_duals = duals[:nodes]
        cut_duals = np.minimum(duals[nodes:], 0.0)
        reduced = matrix - node_duals[:, None] - node_duals[None, :]
        for members, dual in zip(lp.cuts, cut_duals, strict=True):
            if dual != 0.0:
                reduced[np.ix_(members, members)] -= dual
        reduced = np.where(upper, reduced, np.inf)
        entering = (reduced < -1e-9 * scale) & ~chosen
        if entering.any() and clock.seconds < time_limit:
            budget = 20 * nodes
            candidates = np.flatnonzero(entering)
            if candidates.size > budget:
                candidates = candidates[np.argsort(reduced.ravel()[candidates], kind="stable")[:budget]]
            chosen.ravel()[candidates] = True
            lp.add_edges(*np.unravel_index(candidates, chosen.shape))
            continue
        known = {m.tobytes() for m in lp.cuts}
        new_cuts = [m for m in _odd_components(lp.u, lp.v, values, nodes) if m.tobytes() not in known]
        if not new_cuts or clock.seconds > time_limit / 2:
            sizes = np.array([m.sum() for m in lp.cuts], dtype=np.float64)
            # Each edge of a matching is counted at both ends: at most half of the sum, over nodes,
            # of each node's most negative reduced cost (0 when none is negative).
            full = np.where(np.isfinite(reduced), reduced, 0.0)
            full = np.minimum(full, full.T)
            negative = np.minimum(full.min(axis=1), 0.0).sum() / 2 if nodes > 1 else 0.0
            lower = float(node_duals.sum() + (cut_duals * (sizes - 1) / 2).sum() + negative)
            return MatchingLp(lower, reduced, lp.u, lp.v, values)
        for members in new_cuts:
            lp.add_cut(members)


def simple_matching_bound(matrix: np.ndarray) -> float:
    """Half the sum over nodes of each node's cheapest edge: every edge of a perfect matching
    is some node's edge twice over, and no node's edge costs less than its cheapest."""
    if matrix.shape[0] < 2:
        return 0.0
    return float(np.min(matrix, axis=1).sum() / 2)


def greedy_matching(matrix: np.ndarray, start: list[tuple[int, int]] | None = None) -> list[tuple[int, int]]:
    """Cheapest edges first, skipping matched nodes: a perfect matching of a complete graph
    (completing ``start``, a partial matching, when given)."""
    u, v = _all_edges(matrix.shape[0])
    order = np.argsort(matrix[u, v], kind="stable")
    matched = np.zeros(matrix.shape[0], dtype=bool)
    pairs = list(start or [])
    for a, b in pairs:
        matched[a] = matched[b] = True
    left = int((~matched).sum())
    for e in order:
        if left == 0:
            break
        a, b = int(u[e]), int(v[e])
        if not (matched[a] or matched[b]):
            matched[a] = matched[b] = True
            pairs.append((a, b))
            left -= 2
    return pairs


def _matching_cost(matrix: np.ndarray, pairs: list[tuple[int, int]]) -> float:
    return float(sum(matrix[a, b] for a, b in pairs))


def _pairs_from(u: np.ndarray, v: np.ndarray, values: np.ndarray) -> list[tuple[int, int]]:
    picked = values > 0.5
    return list(zip(u[picked].tolist(), v[picked].tolist(), strict=True))


def is_perfect(pairs: list[tuple[int, int]], nodes: int) -> bool:
    ends = [i for pair in pairs for i in pair]
    return len(ends) == nodes and sorted(ends) == list(range(nodes))


def shrink(matrix: np.ndarray, relaxation: MatchingLp, time_limit: float,
           seed: int) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int]]]:
    """The edges that can be in a matching better than the incumbent, and the incumbent.

    The incumbent is the better of the greedy matching and an integer matching
    on the LP's tight edges (reduced cost ~0, where its optimum lives: usually
    optimal or nearly), which keeps UB - LB, and so the kept edge set, small.
    An edge e in a matching M cheaper than UB has r_e <= UB - LB (the certified
    bound of `matching_lp` already counts every negative reduced cost), so only
    those edges and the incumbent's are kept.
    """
    incumbent = greedy_matching(matrix)
    scale = max(1.0, abs(relaxation.lower))
    tight_u, tight_v = np.nonzero(np.triu(relaxation.reduced <= TIGHT * scale, 1))
    on_tight = _solve_on(matrix, tight_u, tight_v, integer=True, time_limit=time_limit, seed=seed)
    if on_tight.values is not None:
        candidate = _pairs_from(tight_u, tight_v, on_tight.values)
        if is_perfect(candidate, matrix.shape[0]) and _matching_cost(matrix, candidate) < _matching_cost(
                matrix, incumbent):
            incumbent = candidate
    slack = _matching_cost(matrix, incumbent) - relaxation.lower
    keep = relaxation.reduced <= slack + TIGHT * scale
    for a, b in incumbent:
        keep[min(a, b), max(a, b)] = True
    u, v = np.nonzero(np.triu(keep, 1))
    return u, v, incumbent


def _cheaper(matrix: np.ndarray, *matchings: list[tuple[int, int]] | None) -> list[tuple[int, int]]:
    """The cheapest of the perfect matchings given (the first on ties)."""
    valid = [m for m in matchings if m is not None and is_perfect(m, matrix.shape[0])]
    return min(valid, key=lambda m: _matching_cost(matrix, m))


@register_method(PROBLEM, "milp", exact=True)
def _milp(costs: PairCosts, *, time_limit: float, seed: int) -> PairSchedule:
    """Perfect-matching MILP (x_e binary, one edge per node) by HiGHS, after the LP with blossom cuts.

    Optimal only with a certificate (`solvers.certify`): a perfect matching whose cost is what
    HiGHS reported, with HiGHS's bound between our own bounds (`simple_matching_bound`, the LP's
    certified bound) and the best matching we hold. Out of time, the best matching found comes
    back with status time_limit and the best bound we can trust."""
    clock = Stopwatch()
    matrix = _edge_costs(costs)
    nodes = matrix.shape[0]
    incumbent = greedy_matching(matrix)
    lower = simple_matching_bound(matrix)
    if nodes <= DIRECT_LIMIT:
        u, v = _all_edges(nodes)
    else:
        relaxation = matching_lp(matrix, max(1e-3, time_limit - clock.seconds))
        if relaxation is None:
            return _schedule(costs, incumbent, SolveStatus.TIME_LIMIT, "milp-highs", clock, lower)
        lower = max(lower, relaxation.lower)
        pairs = relaxation.integral_pairs()
        if pairs is not None and is_perfect(pairs, nodes) and check_claim(
                Claim(SolveStatus.OPTIMAL, _matching_cost(matrix, pairs), lower), _matching_cost(matrix, pairs),
                lower=lower) is None:
            # the LP optimum is a matching and its cost meets our own bound: proven optimal
            return _schedule(costs, pairs, SolveStatus.OPTIMAL, "milp-highs", clock)
        u, v, incumbent = shrink(matrix, relaxation, max(1e-3, time_limit - clock.seconds), seed)
    upper = _matching_cost(matrix, incumbent)
    remaining = max(1e-3, time_limit - clock.seconds)
    outcome = _solve_on(matrix, u, v, integer=True, time_limit=remaining, seed=seed)
    found = _pairs_from(u, v, outcome.values) if outcome.values is not None else None
    if found is None or not is_perfect(found, nodes):
        # The kept edges hold the incumbent, so no solution means HiGHS ran out of time (or failed).
        return _schedule(costs, incumbent, SolveStatus.TIME_LIMIT, "milp-highs", clock, lower)
    recomputed = _matching_cost(matrix, found)
    status, bound = certified(Claim(outcome.status, outcome.objective, outcome.bound), recomputed, lower=lower,
                              upper=upper, gap=0.0, method="pairs milp")
    best = _cheaper(matrix, found, incumbent)
    return _schedule(costs, best, status, "milp-highs", clock, bound)


@register_method(PROBLEM, "matching", exact=True)
def _blossom(costs: PairCosts, *, time_limit: float, seed: int) -> PairSchedule:
    """Edmonds' blossom algorithm (networkx's min_weight_matching) on the shrunk graph.

    Optimal when its answer is a perfect matching that costs no less than our own bound
    and no more than any matching we hold (`solvers.certify`); otherwise the best matching
    held comes back, not optimal."""
    import networkx as nx

    clock = Stopwatch()
    matrix = _edge_costs(costs)
    nodes = matrix.shape[0]
    incumbent = greedy_matching(matrix)
    lower = simple_matching_bound(matrix)
    if nodes <= DIRECT_LIMIT:
        u, v = _all_edges(nodes)
    else:
        relaxation = matching_lp(matrix, max(1e-3, time_limit - clock.seconds))
        if relaxation is None:
            return _schedule(costs, incumbent, SolveStatus.TIME_LIMIT, "blossom-networkx", clock, lower)
        lower = max(lower, relaxation.lower)
        u, v, incumbent = shrink(matrix, relaxation, max(1e-3, time_limit - clock.seconds), seed)
    graph = nx.Graph()
    graph.add_nodes_from(range(nodes))
    graph.add_weighted_edges_from(zip(u.tolist(), v.tolist(), matrix[u, v].tolist(), strict=True))
    pairs = sorted((min(a, b), max(a, b)) for a, b in nx.min_weight_matching(graph))
    if not is_perfect(pairs, nodes):
        return _schedule(costs, incumbent, SolveStatus.FEASIBLE, "blossom-networkx", clock, lower)
    cost = _matching_cost(matrix, pairs)
    # blossom proves its own optimum; what we can check is that it sits between what we know
    status, bound = certified(Claim(SolveStatus.OPTIMAL, cost, cost), cost, lower=lower,
                              upper=_matching_cost(matrix, incumbent), method="pairs matching")
    return _schedule(costs, _cheaper(matrix, pairs, incumbent), status, "blossom-networkx", clock, bound)
