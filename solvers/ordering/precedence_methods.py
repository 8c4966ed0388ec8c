"""Methods of "two_stage_precedence" (`solvers.ordering.precedence`): a critical-path list heuristic, a branch and
bound and exhaustive search over the topological orders (n <= 8, the cross-checks' reference).

Every method returns an order that lists each job after those it waits for, evaluated by the independent
evaluator (`solvers.ordering.precedence.evaluate`). The exact ones start from the heuristic's order (never
returning worse) and check their own certificate (`solvers.certify.certified`) before they say optimal: the
order's objective recomputed by the evaluator must be the one the search claims, and the claimed bound must lie
between our root bound (`precedence_lower_bound`) and the heuristic's objective.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterator, Sequence

import numpy as np

from models import InvalidInput
from solvers.base import SolveStatus, Stopwatch
from solvers.certify import Claim, certified
from solvers.ordering.precedence import (
    PROBLEM,
    PrecedenceInstance,
    PrecedenceOrderSolution,
    evaluate,
    keys,
    node_bound,
    own_status,
    root_bound_of,
    solution,
    value_of,
)
from solvers.registry import register_method

EXHAUSTIVE_LIMIT = 8
#: Share of the time limit the heuristic's local search may take (every method runs the heuristic first).
HEURISTIC_SHARE = 0.9
#: Share of the time limit the branch and bound spends on its incumbent (list rules, then local search).
INCUMBENT_SHARE = 0.1
#: Rounds of iterated local search (perturb, descend, keep when better) for the incumbent.
INCUMBENT_ROUNDS = 30
#: Full passes of the local search at most (each tries every job at every place its dependencies allow).
LOCAL_PASSES = 20
#: The local search runs on batches of at most this many jobs: a pass tries n places for each of n jobs, each
#: order evaluated in O(n), and on 1,000 jobs it took minutes for no gain over the list rules (0.5% above the bound
#: on the benchmark's workflows); larger batches get the best list rule (deterministic, O(n log n + edges)).
LOCAL_SEARCH_JOBS = 300
#: Cells (orders x jobs) of one block of candidate orders the local search evaluates at once.
BLOCK_CELLS = 1 << 21
#: The local search stops after evaluating this many positions (orders x jobs): a count, not a clock, so
#: that it ends where it ends on any machine (about one pass at 300 jobs: 5 s here).
LOCAL_SEARCH_CELLS = 30_000_000
#: Open nodes the branch and bound holds at most: past it, it stops as at its time limit. A node of 50 jobs (its
#: prefix, the ready times of the jobs after it, its dominance record) takes about 3 KB (measured: 17,000 open
#: nodes after 57 s on the benchmark's 50-job L_max workflow, 154 MB peak), so 100,000 nodes stay under 400 MB.
MAX_OPEN_NODES = 100_000


# ------------------------------------------------------------------------------------------ list rules


def list_rule(inst: PrecedenceInstance, priority: Sequence[tuple[float, ...]]) -> list[int]:
    """Whenever the map stage frees, admit the job of smallest ``priority`` among those ready by then (released,
    and every predecessor finished plus its delay); when none is, wait for the first to become ready."""
    r, a, b, _ = inst.lists
    n = inst.n
    waiting = [len(before) for before in inst.predecessors]
    ready_at = list(r)
    pending = [(ready_at[j], j) for j in range(n) if waiting[j] == 0]
    heapq.heapify(pending)
    available: list[tuple[tuple[float, ...], int]] = []
    first = second = 0.0
    order: list[int] = []
    while len(order) < n:
        if not available and pending[0][0] > first:
            first = pending[0][0]
        while pending and pending[0][0] <= first:
            _, j = heapq.heappop(pending)
            heapq.heappush(available, (priority[j], j))
        _, j = heapq.heappop(available)
        first = max(first, ready_at[j]) + a[j]
        second = max(second, first) + b[j]
        order.append(j)
        for k, lag in inst.successors[j]:
            ready_at[k] = max(ready_at[k], second + lag)
            waiting[k] -= 1
            if waiting[k] == 0:
                heapq.heappush(pending, (ready_at[k], k))
    return order


def priorities(inst: PrecedenceInstance) -> dict[str, list[tuple[float, ...]]]:
    """The list rules' priorities, by name. "critical-path": the longest remaining path first (a_j + q_j, the
    job's own stages and the longest chain after it), Johnson's rank on ties; "critical-path-band": the same with
    paths counted in bands of the mean job length, so that Johnson's rank orders the jobs of nearly equal paths;
    "johnson": Johnson's rank; with due dates also "latest-finish" (the earliest propagated latest finish d'_j)
    and "latest-start" (d'_j - a_j - b_j)."""
    rank = inst.johnson_rank
    path = (inst.a + inst.tails).tolist()
    band = float((inst.a + inst.b).mean()) if inst.n else 1.0
    band = band if band > 0 else 1.0
    rules = {
        "critical-path": [(-p, rank[j]) for j, p in enumerate(path)],
        "critical-path-band": [(-math.floor(p / band), rank[j]) for j, p in enumerate(path)],
        "johnson": [(float(rank[j]),) for j in range(inst.n)],
    }
    if np.isfinite(inst.d).any():
        late = np.where(np.isfinite(inst.d), inst.d, inst.horizon * 2 + 1.0)
        rules["latest-finish"] = [(float(late[j]), rank[j]) for j in range(inst.n)]
        rules["latest-start"] = [(float(late[j] - inst.a[j] - inst.b[j]), rank[j]) for j in range(inst.n)]
    return rules


def starting_orders(inst: PrecedenceInstance) -> list[list[int]]:
    """Each list rule's order, and Johnson's order made topological (`Precedence.respecting`)."""
    found = [list_rule(inst, priority) for priority in priorities(inst).values()]
    found.append(inst.graph.respecting(np.argsort(inst.johnson_rank, kind="stable").tolist()))
    return found


def best_of(inst: PrecedenceInstance, orders: list[list[int]]) -> tuple[list[int], tuple[float, float]]:
    """The order of least (objective, makespan), the first on ties."""
    primary, secondary = keys(inst, np.array(orders, dtype=np.int64).reshape(len(orders), inst.n))
    row = int(np.lexsort((secondary, primary))[0])
    return orders[row], (float(primary[row]), float(secondary[row]))


# ------------------------------------------------------------------------------------------ local search


def _better(inst: PrecedenceInstance, new: tuple[float, float], old: tuple[float, float]) -> bool:
    tiny = 1e-12 * inst.scale
    return new[0] < old[0] - tiny or (new[0] <= old[0] + tiny and new[1] < old[1] - tiny)


def _moves(inst: PrecedenceInstance, order: list[int], job: int) -> np.ndarray:
    """Every order with ``job`` moved to another place its dependencies allow (after its last predecessor,
    before its first successor)."""
    rest = [j for j in order if j != job]
    place = {j: p for p, j in enumerate(rest)}
    low = max((place[i] + 1 for i, _ in inst.predecessors[job]), default=0)
    high = min((place[k] for k, _ in inst.successors[job]), default=len(rest))
    current = order.index(job)
    spots = [p for p in range(low, high + 1) if p != current]
    rows = np.empty((len(spots), inst.n), dtype=np.int64)
    base = np.array(rest, dtype=np.int64)
    for row, p in enumerate(spots):
        rows[row, :p], rows[row, p], rows[row, p + 1:] = base[:p], job, base[p:]
    return rows


def local_search(inst: PrecedenceInstance, order: list[int], *, deadline: float = math.inf,
                 clock: Stopwatch | None = None) -> list[int]:
    """Best-improvement descent over moving one job (each in turn) to another allowed place, on (objective,
    makespan), for at most `LOCAL_PASSES` passes and `LOCAL_SEARCH_CELLS` evaluated positions (a count, so
    that the same inputs give the same order on any machine), or until ``deadline`` seconds, a safety net
    (``order`` itself beyond `LOCAL_SEARCH_JOBS` jobs)."""
    clock = clock or Stopwatch()
    if inst.n < 2 or inst.n > LOCAL_SEARCH_JOBS:
        return order
    current = best_of(inst, [order])[1]
    cells = 0
    for _ in range(LOCAL_PASSES):
        improved = False
        for job in list(order):
            if clock.seconds > deadline or cells > LOCAL_SEARCH_CELLS:
                return order
            moved = _moves(inst, order, job)
            if not len(moved):
                continue
            per_block = max(1, BLOCK_CELLS // inst.n)
            cells += len(moved) * inst.n
            for start in range(0, len(moved), per_block):
                block = moved[start:start + per_block]
                candidate, value = best_of(inst, block.tolist())
                if _better(inst, value, current):
                    order, current, improved = candidate, value, True
        if not improved:
            break
    return order


def heuristic_order(inst: PrecedenceInstance, *, deadline: float = math.inf,
                    clock: Stopwatch | None = None) -> list[int]:
    """The best of `starting_orders`, improved by `local_search` until ``deadline`` (deterministic when the
    deadline does not cut it)."""
    clock = clock or Stopwatch()
    if not inst.n:
        return []
    start, _ = best_of(inst, starting_orders(inst))
    return local_search(inst, start, deadline=deadline, clock=clock)


@register_method(PROBLEM, "critical_path", exact=False)
def _critical_path(inst: PrecedenceInstance, *, time_limit: float, seed: int, **_: object) -> PrecedenceOrderSolution:
    """List rules by the longest remaining path (Johnson's rank on ties), Johnson's and the latest finish, the
    best improved by local search; the lower bound, and optimal when the order meets it."""
    clock = Stopwatch()
    order = heuristic_order(inst, deadline=HEURISTIC_SHARE * time_limit, clock=clock)
    status, bound = own_status(inst, order, root_bound_of(inst))
    return solution(inst, order, status, "critical-path-list", clock, bound)


# ------------------------------------------------------------------------------------------ exhaustive


def topological_orders(inst: PrecedenceInstance) -> Iterator[tuple[int, ...]]:
    """Every order that lists each job after those it waits for, in lexicographic order."""
    n = inst.n
    waiting = [len(before) for before in inst.predecessors]
    prefix: list[int] = []
    placed = [False] * n

    def extend() -> Iterator[tuple[int, ...]]:
        if len(prefix) == n:
            yield tuple(prefix)
            return
        for j in range(n):
            if not placed[j] and waiting[j] == 0:
                placed[j] = True
                prefix.append(j)
                for k, _ in inst.successors[j]:
                    waiting[k] -= 1
                yield from extend()
                for k, _ in inst.successors[j]:
                    waiting[k] += 1
                prefix.pop()
                placed[j] = False

    yield from extend()


@register_method(PROBLEM, "exhaustive", exact=True)
def _exhaustive(inst: PrecedenceInstance, *, time_limit: float, seed: int, **_: object) -> PrecedenceOrderSolution:
    """Every topological order (n <= 8): the first best on (objective, makespan) in lexicographic order."""
    clock = Stopwatch()
    if inst.n > EXHAUSTIVE_LIMIT:
        raise InvalidInput("jobs", f"exhaustive search takes at most {EXHAUSTIVE_LIMIT} jobs, got {inst.n}")
    if not inst.n:
        return solution(inst, [], SolveStatus.OPTIMAL, "exhaustive", clock)
    best, (value, _) = best_of(inst, [list(order) for order in topological_orders(inst)])
    status, bound = certified(Claim(SolveStatus.OPTIMAL, value, value), value_of(inst, evaluate(inst, best)),
                              lower=root_bound_of(inst), method="two-stage precedence exhaustive")
    return solution(inst, best, status, "exhaustive", clock, bound)


# ------------------------------------------------------------------------------------------ branch and bound


class PrefixSearch:
    """Best-first search over the topological prefixes of an order (the least `node_bound` first, deeper first on
    ties), resumable: `run` expands nodes until a deadline.

    A node holds the stages' free times, the objective so far and, per job, the most of its placed predecessors'
    C2 + δ (its ready time). A child is dropped when its bound reaches the incumbent's objective (less a round-off
    tolerance), or when another prefix of the same jobs ends no later on both stages, with no worse objective so
    far and no later ready time for any job (its completions are then no worse). `bound` is the least of the
    incumbent, every dropped bound and every open node's bound, so it holds whenever the search stops."""

    def __init__(self, inst: PrecedenceInstance, start: list[int], lower: float) -> None:
        self.inst, self.kind = inst, inst.objective
        self.r, self.a, self.b, self.d = inst.lists
        self.tolerance = 0.5 if self.kind == "late_jobs" else 1e-9 * inst.scale
        self.best_order, self.best = list(start), value_of(inst, evaluate(inst, start))
        self.topological = list(inst.graph.order)
        empty = 0.0 if self.kind == "late_jobs" else -math.inf
        root = [0.0, 0.0, empty, tuple([0.0] * inst.n), True]
        self.heap: list[tuple] = [(lower, 0, 0, 0, (), root)]
        self.seen: dict[int, list[list]] = {}
        self.floor, self.count, self.expanded = math.inf, 0, 0

    @property
    def bound(self) -> float:
        open_bound = min((entry[0] for entry in self.heap if entry[5][4]), default=math.inf)
        return min(self.best, self.floor, open_bound)

    def _leaf(self, value: float, order: tuple[int, ...]) -> None:
        if value < self.best:
            self.best, self.best_order = value, list(order)
        self.floor = min(self.floor, value)

    def run(self, deadline: float, clock: Stopwatch) -> bool:
        """Expand nodes until ``deadline`` seconds; True when the search is complete."""
        inst, kind, heap = self.inst, self.kind, self.heap
        r, a, b, d = self.r, self.a, self.b, self.d
        while heap and clock.seconds < deadline and len(heap) < MAX_OPEN_NODES:
            lower, depth, _, mask, prefix, state = heapq.heappop(heap)
            if not state[4]:
                continue  # dominated after it was stored
            if lower >= self.best - self.tolerance:
                self.floor = min(self.floor, lower)
                continue
            self.expanded += 1
            first, second, partial, ready = state[0], state[1], state[2], state[3]
            remaining = [j for j in self.topological if not mask >> j & 1]
            for j in remaining:
                if any(not mask >> i & 1 for i, _ in inst.predecessors[j]):
                    continue  # waits for a job not placed yet
                f = max(first, r[j], ready[j]) + a[j]
                s = max(second, f) + b[j]
                part = (partial if kind == "makespan" else partial + (s > d[j]) if kind == "late_jobs"
                        else max(partial, s - d[j]))
                rest = [k for k in remaining if k != j]
                if not rest:
                    self._leaf(s if kind == "makespan" else part, (*prefix, j))
                    continue
                after = list(ready)
                after[j] = 0.0
                for k, lag in inst.successors[j]:
                    if s + lag > after[k]:
                        after[k] = s + lag
                key = mask | 1 << j
                stored = self.seen.setdefault(key, [])
                if any(o[0] <= f and o[1] <= s and o[2] <= part and all(x <= y for x, y in zip(o[3], after, strict=True))
                       for o in stored):
                    continue
                bound = max(lower, node_bound(inst, f, s, after, rest, part))
                if bound >= self.best - self.tolerance:
                    self.floor = min(self.floor, bound)
                    continue
                frozen = tuple(after)
                for other in stored:
                    if f <= other[0] and s <= other[1] and part <= other[2] and all(
                            x <= y for x, y in zip(frozen, other[3], strict=True)):
                        other[4] = False
                stored[:] = [other for other in stored if other[4]]
                child = [f, s, part, frozen, True]
                stored.append(child)
                self.count += 1
                heapq.heappush(heap, (bound, depth - 1, self.count, key, (*prefix, j), child))
        return not heap


def branch_and_bound(inst: PrecedenceInstance, start: list[int], lower: float, *, deadline: float,
                     clock: Stopwatch) -> tuple[list[int], float, float, int]:
    """`PrefixSearch` from ``start`` (the incumbent) and the root bound ``lower`` until ``deadline``: (best order,
    its objective as the search computed it, proven bound, nodes expanded)."""
    search = PrefixSearch(inst, start, lower)
    search.run(deadline, clock)
    return search.best_order, search.best, min(search.bound, search.best), search.expanded


def incumbent(inst: PrecedenceInstance, *, seed: int, time_limit: float, clock: Stopwatch,
              lower: float = -math.inf) -> list[int]:
    """`heuristic_order`, then iterated local search until `INCUMBENT_SHARE` of the time limit or the bound
    ``lower`` is met: move three random jobs to random allowed places, descend, keep the result when better
    (seeded)."""
    deadline = INCUMBENT_SHARE * time_limit
    order = heuristic_order(inst, deadline=deadline, clock=clock)
    if inst.n < 3:
        return order
    rng = np.random.default_rng(seed)
    best = best_of(inst, [order])[1]
    for _ in range(INCUMBENT_ROUNDS):
        if clock.seconds > deadline or best[0] <= lower + 1e-12 * inst.scale:
            break
        trial = list(order)
        for _ in range(3):
            moved = _moves(inst, trial, int(trial[int(rng.integers(inst.n))]))
            if len(moved):
                trial = moved[int(rng.integers(len(moved)))].tolist()
        trial = local_search(inst, trial, deadline=deadline, clock=clock)
        value = best_of(inst, [trial])[1]
        if _better(inst, value, best):
            order, best = trial, value
    return order


@register_method(PROBLEM, "branch_and_bound", exact=True)
def _branch_and_bound(inst: PrecedenceInstance, *, time_limit: float, seed: int,
                      **_: object) -> PrecedenceOrderSolution:
    """Best-first branch and bound over topological prefixes with `node_bound` and state dominance.

    Certified: the order's objective recomputed by the evaluator against the search's claim, its bound between
    our root bound and the incumbent's objective. Out of time (or nodes): the best order found, status
    time_limit, and the least bound of the open nodes."""
    clock = Stopwatch()
    lower = root_bound_of(inst)
    start = incumbent(inst, seed=seed, time_limit=time_limit, clock=clock, lower=lower)
    upper = value_of(inst, evaluate(inst, start))
    order, value, bound, _ = branch_and_bound(inst, start, lower, deadline=0.98 * time_limit, clock=clock)
    recomputed = value_of(inst, evaluate(inst, order))
    finished = bound >= value - (0.5 if inst.objective == "late_jobs" else 1e-9 * inst.scale)
    claim = Claim(SolveStatus.OPTIMAL if finished else SolveStatus.TIME_LIMIT, value, bound)
    status, proven = certified(claim, recomputed, lower=lower, upper=upper,
                               method="two-stage precedence branch and bound")
    return solution(inst, order, status, "branch-and-bound", clock, proven)
