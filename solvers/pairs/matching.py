"""Exact minimum-weight perfect matching for pair scheduling: MILP (HiGHS) and blossom (networkx).

Both work on the complete graph of the jobs (plus a dummy when their number is
odd) and both shrink it first, without losing optimality, by LP reduced-cost
fixing:

1. the LP relaxation (sum of x_e at each node = 1, 0 <= x <= 1, plus Edmonds'
   odd-set cuts sum of x_e inside S <= (|S| - 1) / 2 for the odd components of
   fractional edges, added as they appear) is solved by column generation
   (solvers/pairs/matching_lp.py: started from the assignment relaxation's duals, then
   edges whose reduced cost c_uv - y_u - y_v is negative enter, until none
   does). Its value LB is a lower bound, and every edge has reduced
   cost r_e = c_e - y_u - y_v - (cut duals of the sets holding both ends) >= 0;
   when its optimum is integral it is the optimal matching;
2. any perfect matching M costs LB + the sum of r_e over its edges, so with an
   incumbent of cost UB, an edge with r_e > UB - LB lies in no matching better
   than the incumbent and is dropped;
3. the exact method runs on the edges that remain (which include the
   incumbent's). The incumbent is an integer matching on the LP's tight
   edges (reduced cost ~0; when they hold none, on the 4n and then 16n edges
   of least reduced cost), so UB - LB and the remaining edge set are small.

Small graphs (up to `DIRECT_LIMIT` nodes) skip the shrinking.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from solvers.backends.milp import solve_arrays
from solvers.base import SolveStatus, Stopwatch
from solvers.certify import Claim, certified, check_claim
from solvers.pairs.matching_lp import MatchingLp, _pairs_from, matching_lp
from solvers.pairs.problem import PROBLEM, PairCosts, PairSchedule, _edge_costs, _schedule
from solvers.registry import register_method

DIRECT_LIMIT = 60
#: Edges networkx's blossom goes through in a second past the direct limit (measured on 1,000 jobs,
#: 2 busy cores: 1,860 kept edges in 2.7 s, 31,000 in 47 s), counted low.
BLOSSOM_EDGES_PER_SECOND = 500
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


def is_perfect(pairs: list[tuple[int, int]], nodes: int) -> bool:
    ends = [i for pair in pairs for i in pair]
    return len(ends) == nodes and sorted(ends) == list(range(nodes))


def _least_reduced_matching(
    matrix: np.ndarray, reduced: np.ndarray, scale: float, time_limit: float, seed: int
) -> list[tuple[int, int]] | None:
    """An integer matching on the edges of least reduced cost: the tight ones (~0), or when they
    hold no perfect matching the 4n, then the 16n cheapest (n nodes; every edge when there are
    fewer); None when none does in time."""
    clock = Stopwatch()
    nodes = matrix.shape[0]
    values = reduced[np.isfinite(reduced)]
    thresholds = [TIGHT * scale] + [
        float(np.partition(values, k)[k]) for k in (min(4 * nodes, values.size - 1), min(16 * nodes, values.size - 1))
    ]
    tried = -np.inf
    for index, threshold in enumerate(thresholds):
        if threshold <= tried:
            continue
        tried = threshold
        u, v = np.nonzero(np.triu(reduced <= threshold, 1))
        share = (time_limit - clock.seconds) / (2 if index + 1 < len(thresholds) else 1)
        solved = _solve_on(matrix, u, v, integer=True, time_limit=max(1e-3, share), seed=seed)
        if solved.values is not None:
            candidate = _pairs_from(u, v, solved.values)
            if is_perfect(candidate, nodes):
                return candidate
        if clock.seconds >= time_limit:
            break
    return None


def shrink(
    matrix: np.ndarray, relaxation: MatchingLp, time_limit: float, seed: int
) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int]]]:
    """The edges that can be in a matching better than the incumbent, and the incumbent.

    The incumbent is the better of the greedy matching and an integer matching
    on the LP's tight edges (reduced cost ~0, where its optimum lives: usually
    optimal or nearly; `_least_reduced_matching`), which keeps UB - LB, and so the kept
    edge set, small. An edge e in a matching M cheaper than UB has r_e <= UB - LB (the certified
    bound of `matching_lp` already counts every negative reduced cost), so only
    those edges and the incumbent's are kept.
    """
    incumbent = greedy_matching(matrix)
    scale = max(1.0, abs(relaxation.lower))
    candidate = _least_reduced_matching(matrix, relaxation.reduced, scale, time_limit, seed)
    if candidate is not None and _matching_cost(matrix, candidate) < _matching_cost(matrix, incumbent):
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
        if u.size > BLOSSOM_EDGES_PER_SECOND * (time_limit - clock.seconds):
            # networkx cannot be stopped: with more edges left than it goes through in the time
            # left (a shrink short of time keeps nearly all), the incumbent comes back
            return _schedule(costs, incumbent, SolveStatus.TIME_LIMIT, "blossom-networkx", clock, lower)
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
