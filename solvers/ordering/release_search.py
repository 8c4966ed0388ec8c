"""Searching orders of a batch with release times: list rules, local search, the method "johnson", and
a polish among orders of equal value (`solvers.ordering.releases` holds the instance and the evaluation).

The local search evaluates its candidate orders in blocks of at most `BLOCK_CELLS` cells (orders x jobs), so
its memory stays bounded however many jobs there are (all swaps of 1,000 jobs at once took 7.8 GB), and checks
its deadline between blocks.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from solvers.base import Stopwatch
from solvers.ordering.releases import (
    HEURISTIC_SHARE,
    LOCAL_PASSES,
    PROBLEM,
    ReleaseInstance,
    ReleaseOrderSolution,
    completions_by_position,
    keys,
    own_status,
    release_instance,
    root_bound,
    solution,
)
from solvers.ordering.two_stage import johnson_order
from solvers.registry import register_method

#: Cells (orders x jobs) of one block of candidate orders the local search evaluates at once.
BLOCK_CELLS = 1 << 22


def list_rule(inst: ReleaseInstance, priority: np.ndarray) -> np.ndarray:
    """Whenever stage 1 frees, admit the released job of smallest ``priority`` (or the next one)."""
    pending = sorted(range(inst.n), key=lambda j: (inst.r[j], priority[j], j))
    t, i, order, ready = 0.0, 0, [], []  # ready: (priority, job) of the released jobs waiting
    while len(order) < inst.n:
        if not ready:
            t = max(t, float(inst.r[pending[i]]))
        while i < inst.n and inst.r[pending[i]] <= t:
            heapq.heappush(ready, (float(priority[pending[i]]), pending[i]))
            i += 1
        _, job = heapq.heappop(ready)
        order.append(job)
        t = max(t, float(inst.r[job])) + float(inst.a[job])
    return np.array(order, dtype=np.int64)


def johnson_rank(inst: ReleaseInstance) -> np.ndarray:
    """Each job's position in Johnson's order (the priority of the release-aware Johnson list rule,
    ``list_rule(inst, johnson_rank(inst))``)."""
    rank = np.empty(inst.n)
    rank[johnson_order(inst.a, inst.b)] = np.arange(inst.n)
    return rank


def starting_orders(inst: ReleaseInstance) -> list[np.ndarray]:
    """Johnson's order; the list rule by Johnson's rank, by release, by due date and by d_j - b_j;
    the due-date order."""
    rank = johnson_rank(inst)
    due = np.where(np.isfinite(inst.d), inst.d, inst.horizon + inst.d.size)
    rules = [rank, inst.r + rank / (inst.n + 1), due, due - inst.b]
    return [johnson_order(inst.a, inst.b), *(list_rule(inst, p) for p in rules),
            np.lexsort((rank, due)).astype(np.int64)]


def _better(inst: ReleaseInstance, new: tuple[float, float], old: tuple[float, float]) -> bool:
    tiny = 1e-12 * inst.scale  # round-off is no improvement (and would let the descent cycle)
    return new[0] < old[0] - tiny or (new[0] <= old[0] + tiny and new[1] < old[1] - tiny)


def _best_row(inst: ReleaseInstance, orders: np.ndarray) -> tuple[np.ndarray, tuple[float, float]]:
    primary, secondary = keys(inst, orders)
    row = int(np.lexsort((secondary, primary))[0])
    return orders[row], (float(primary[row]), float(secondary[row]))


def _best_swap(inst: ReleaseInstance, order: np.ndarray, left: np.ndarray, right: np.ndarray, deadline: float,
               clock: Stopwatch) -> tuple[np.ndarray, tuple[float, float]]:
    """The best order one swap (``left[k]``, ``right[k]``) away from ``order``, by the keys of
    `_best_row`, built and evaluated in blocks of `BLOCK_CELLS` cells; past ``deadline`` the blocks
    evaluated so far decide."""
    per_block = max(1, BLOCK_CELLS // order.size)
    primaries, secondaries = [], []
    for start in range(0, left.size, per_block):
        if primaries and clock.seconds > deadline:
            break
        first, second = left[start:start + per_block], right[start:start + per_block]
        block = np.repeat(order[None, :], first.size, axis=0)
        rows = np.arange(first.size)
        block[rows, first], block[rows, second] = order[second], order[first]
        primary, secondary = keys(inst, block)
        primaries.append(primary)
        secondaries.append(secondary)
    primary, secondary = np.concatenate(primaries), np.concatenate(secondaries)
    k = int(np.lexsort((secondary, primary))[0])
    best = order.copy()
    best[left[k]], best[right[k]] = order[right[k]], order[left[k]]
    return best, (float(primary[k]), float(secondary[k]))


def local_search(inst: ReleaseInstance, order: np.ndarray, *, deadline: float = math.inf,
                 clock: Stopwatch | None = None) -> np.ndarray:
    """Best-improvement descent over moving one job elsewhere (for each job in turn) and swapping any
    two, on (objective, makespan), for at most `LOCAL_PASSES` passes or until ``deadline`` seconds."""
    n, clock = inst.n, clock or Stopwatch()
    if n < 2:
        return order
    current = _best_row(inst, order[None, :])[1]
    slots = np.arange(n)
    left, right = np.triu_indices(n, 1)
    for _ in range(LOCAL_PASSES):
        improved = False
        for job in order.copy():
            if clock.seconds > deadline:
                return order
            rest = order[order != job]
            moved = np.where(slots[None, :] < slots[:, None], rest[np.minimum(slots, n - 2)][None, :],
                             rest[np.maximum(slots - 1, 0)][None, :])
            moved[slots, slots] = job
            candidate, value = _best_row(inst, moved)
            if _better(inst, value, current):
                order, current, improved = candidate, value, True
        candidate, value = _best_swap(inst, order, left, right, deadline, clock)
        if _better(inst, value, current):
            order, current, improved = candidate, value, True
        if not improved:
            break
    return order


def heuristic_order(inst: ReleaseInstance, *, deadline: float = math.inf,
                    clock: Stopwatch | None = None) -> np.ndarray:
    """The best of `starting_orders`, each improved by `local_search` (deterministic)."""
    clock = clock or Stopwatch()
    found = [local_search(inst, start, deadline=deadline, clock=clock) for start in starting_orders(inst)]
    return _best_row(inst, np.array(found, dtype=np.int64).reshape(len(found), inst.n))[0]


@register_method(PROBLEM, "johnson", exact=False)
def _johnson(inst: ReleaseInstance, *, time_limit: float, seed: int, **_: object) -> ReleaseOrderSolution:
    """Johnson-based list rules adapted to release dates, the best improved by local search."""
    clock = Stopwatch()
    order = heuristic_order(inst, deadline=HEURISTIC_SHARE * time_limit, clock=clock)
    status, bound = own_status(inst, order, root_bound(inst))
    return solution(inst, order, status, "johnson-list", clock, bound)


#: The polish of `earliest_among_equals`: at most this many passes, on at most this many jobs (a
#: pass evaluates n^2 orders of n jobs: 0.05 s for 77 jobs). Counted, not timed: its result does
#: not depend on the machine.
POLISH_PASSES = 10
POLISH_JOBS = 300


def earliest_among_equals(a: np.ndarray, b: np.ndarray, r: np.ndarray, due: np.ndarray | None, objective: str,
                          order: np.ndarray) -> np.ndarray:
    """``order``, or an order with the same objective value and a smaller sum of completion times.

    Many orders share the best makespan when jobs arrive over the night: an exact method may hold
    back jobs that arrived early behind one that arrives late, at no cost to the makespan (on
    FB-2009's first 50 jobs, every submission waited until 2,228 s). Moving a job to an earlier
    position whenever that keeps the objective and lowers the total completion time (the best
    such move per job, `POLISH_PASSES` passes at most, batches of up to `POLISH_JOBS` jobs)
    keeps the solve's value, status and bound."""
    n, best = len(order), np.asarray(order, dtype=np.int64)
    if n > POLISH_JOBS:
        return best
    inst = release_instance(a, b, r, due, objective)
    value = float(keys(inst, best[None, :])[0][0])
    total = float(completions_by_position(inst, best[None, :]).sum())
    slack = 1e-9 * max(1.0, abs(value))
    for _ in range(POLISH_PASSES):
        improved = False
        for i in range(1, n):
            job, rest = best[i], np.delete(best, i)
            candidates = np.array([np.insert(rest, j, job) for j in range(i)], dtype=np.int64)
            primary = keys(inst, candidates)[0]
            sums = completions_by_position(inst, candidates).sum(axis=1)
            fine = np.flatnonzero((np.abs(primary - value) <= slack) & (sums < total - slack))
            if fine.size:
                pick = int(fine[np.argmin(sums[fine])])
                best, total, improved = candidates[pick], float(sums[pick]), True
        if not improved:
            break
    return best
