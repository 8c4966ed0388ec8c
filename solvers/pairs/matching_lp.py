"""The matching LP behind the exact pair methods (solvers/pairs/matching.py): its relaxation with
Edmonds' odd-set cuts, solved by column generation in one warm-started HiGHS instance.

Where the column generation starts decides its speed. Each node's cheapest edges are a poor
start on the pair costs: C_ij is close to F_i(N) + F_j(N) (a pair saves a little over running
apart), so every node's cheapest edges go to the shortest jobs, and the LP needed about 240,000
of the 2,000,000 edges of 2,000 jobs, in over a minute, before its duals settled. The start
here comes from the assignment relaxation instead (`assignment_start`): the fractional
matching LP (degree rows only) is the assignment problem on the costs C_ij = C_ji (a cycle
cover; its value halved), which SciPy solves exactly, and its duals, halved per node, are the
LP's. Each node's cheapest edges by reduced cost under them, with the assignment's own edges
(the LP's optimum), make a start of about 6 edges per node from which only a handful enter.
Nothing rests on the start: the column generation prices every edge as before, and the bound
is computed from the final duals (`matching_lp`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.optimize import linear_sum_assignment
from scipy.sparse.csgraph import connected_components

from solvers.backends.milp import quiet_highs, run_for
from solvers.base import SolverFailed, Stopwatch

START_NEIGHBOURS = 10
#: Seconds per nodes^3 SciPy's assignment takes on pair costs (measured 0.7e-9 on 2 busy cores:
#: 5.7 s for 2,000 jobs); it cannot be stopped, so it runs only when twice this fits in the time left.
ASSIGNMENT_SECONDS = 1e-9


def _pairs_from(u: np.ndarray, v: np.ndarray, values: np.ndarray) -> list[tuple[int, int]]:
    picked = values > 0.5
    return list(zip(u[picked].tolist(), v[picked].tolist(), strict=True))


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
        self.matrix = matrix
        self.nodes = matrix.shape[0]
        self.highs = quiet_highs(threads=1, random_seed=0)
        ones = np.ones(self.nodes)
        self.highs.addRows(
            self.nodes, ones, ones, 0, np.zeros(self.nodes, dtype=np.int32), np.zeros(0, dtype=np.int32), np.zeros(0)
        )
        self.u = np.zeros(0, dtype=np.int64)
        self.v = np.zeros(0, dtype=np.int64)
        self.cuts: list[np.ndarray] = []

    def add_edges(self, u: np.ndarray, v: np.ndarray) -> None:
        entries = (
            [
                [int(a), int(b)] + [self.nodes + c for c, m in enumerate(self.cuts) if m[a] and m[b]]
                for a, b in zip(u.tolist(), v.tolist(), strict=True)
            ]
            if self.cuts
            else None
        )
        if entries is None:
            index = np.empty(2 * u.size, dtype=np.int32)
            index[0::2], index[1::2] = u, v
            starts = np.arange(0, 2 * u.size, 2, dtype=np.int32)
        else:
            starts = np.cumsum([0] + [len(e) for e in entries[:-1]]).astype(np.int32)
            index = np.array([i for e in entries for i in e], dtype=np.int32)
        # No upper bound of 1: the degree rows imply it, and an explicit one lets HiGHS price edges at
        # that bound negatively, which would weaken the bound we compute from the duals.
        self.highs.addCols(
            u.size,
            self.matrix[u, v],
            np.zeros(u.size),
            np.full(u.size, np.inf),
            index.size,
            starts,
            index,
            np.ones(index.size),
        )
        self.u = np.concatenate([self.u, u])
        self.v = np.concatenate([self.v, v])

    def add_cut(self, members: np.ndarray) -> None:
        inside = np.flatnonzero(members[self.u] & members[self.v]).astype(np.int32)
        self.highs.addRows(
            1,
            np.array([-np.inf]),
            np.array([(members.sum() - 1) / 2]),
            inside.size,
            np.zeros(1, dtype=np.int32),
            inside,
            np.ones(inside.size),
        )
        self.cuts.append(members)

    def solve(self, time_limit: float) -> tuple[float, np.ndarray, np.ndarray]:
        import highspy

        run_for(self.highs, max(1e-3, time_limit))
        if self.highs.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            raise SolverFailed(f"the matching LP ended {self.highs.modelStatusToString(self.highs.getModelStatus())}")
        solution = self.highs.getSolution()
        return (
            float(self.highs.getInfo().objective_function_value),
            np.asarray(solution.col_value),
            np.asarray(solution.row_dual),
        )


def assignment_start(matrix: np.ndarray, time_limit: float) -> tuple[np.ndarray, np.ndarray] | None:
    """Node potentials y and the assignment sigma of the assignment relaxation (module docstring),
    or None when it would not fit in ``time_limit`` seconds.

    SciPy gives the assignment but not its duals; they are the shortest distances in the
    exchange graph (u_i <= u_k - C[k, sigma_k] + C[i, sigma_k], relaxed from u = 0, Bellman-Ford,
    vectorized), then v_sigma(k) = C[k, sigma_k] - u_k and y = (u + v) / 2, so that
    C_ij - y_i - y_j = ((C_ij - u_i - v_j) + (C_ji - u_j - v_i)) / 2 >= 0. The diagonal (no self
    pairs) costs 4x the largest cost: then swapping a fixed point i with any k,
    (i, sigma_k) + (k, i) for (i, i) + (k, sigma_k), always costs less, so no optimum uses it.
    Only the start of the column generation uses these, so stopping the relaxation early for
    time costs speed, never correctness."""
    clock = Stopwatch()
    nodes = matrix.shape[0]
    if nodes < 4 or ASSIGNMENT_SECONDS * nodes**3 * 2 > time_limit:
        return None
    finite = np.isfinite(matrix)
    largest = max(1.0, float(np.max(np.abs(matrix[finite]))))
    costs = np.where(finite, matrix, 4.0 * largest)
    _, sigma = linear_sum_assignment(costs)
    through = costs[:, sigma]  # through[i, k]: row i takes the column of row k
    own = through.diagonal().copy()
    u = np.zeros(nodes)
    for _ in range(nodes):
        relaxed = np.minimum(u, (through + (u - own)[None, :]).min(axis=1))
        if np.all(relaxed >= u - 1e-12 * largest) or clock.seconds > time_limit / 2:
            break
        u = relaxed
    v = np.empty(nodes)
    v[sigma] = own - u
    return (u + v) / 2, sigma


def _start(matrix: np.ndarray, time_limit: float) -> np.ndarray:
    """The first columns (upper-triangular mask): each node's `START_NEIGHBOURS` cheapest edges by
    reduced cost under the assignment's duals, and its edges (by cost when it did not run), plus
    (0, 1), (2, 3), ..., a perfect matching, so that the LP is feasible whatever else is there."""
    nodes = matrix.shape[0]
    start = assignment_start(matrix, time_limit)
    ranked = matrix if start is None else matrix - start[0][:, None] - start[0][None, :]
    ranked = np.where(np.isfinite(ranked), ranked, np.inf)
    count = min(START_NEIGHBOURS, nodes - 1)
    nearest = np.argpartition(ranked, count - 1, axis=1)[:, :count] if count > 0 else np.zeros((nodes, 0), int)
    rows = np.repeat(np.arange(nodes), nearest.shape[1])
    pairs = [(rows, nearest.ravel()), (np.arange(0, nodes - 1, 2), np.arange(1, nodes, 2))]
    if start is not None:
        pairs.append((np.arange(nodes), start[1]))
    chosen = np.zeros((nodes, nodes), dtype=bool)
    for a, b in pairs:
        chosen[np.minimum(a, b), np.maximum(a, b)] = True
    return np.triu(chosen, 1)


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
    clock = Stopwatch()
    chosen = _start(matrix, time_limit)
    upper = np.triu(np.ones((nodes, nodes), dtype=bool), 1)
    scale = max(1.0, float(np.max(matrix[np.isfinite(matrix)])))
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
