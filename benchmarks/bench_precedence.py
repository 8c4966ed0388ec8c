"""Ordering with precedence (`order_with_precedence`): branch and bound against exhaustive search over the
topological orders on 200 random 7-job workflows, branch and bound on 50-job workflows, and the critical-path
list heuristic against the lower bound on 1,000-job workflows.

The random workflows (`random_workflow`, seeded): stage times a_j, b_j uniform on [1, 100]; releases uniform on
[0, 0.5 sum a] (the map stage about twice as loaded as the window of arrivals, as `bench_release`); a hidden
topological order (a random permutation), in which each job waits for k jobs before it, k uniform on
{0, ..., min(3, jobs before it)}, chosen uniformly; each dependency has a delay uniform on [0, 50] with
probability 1/2, else none; due dates r_j + u_j (a_j + b_j), u_j uniform on [1.5, 4] (used by the lateness
objectives only).
"""

from __future__ import annotations

import time

import numpy as np

from benchmarks.registry import Row, register, timed

BENCHMARK = "precedence_ordering"
#: The issue's floors: 7 jobs equal to brute force on 200 instances; 50 jobs proven optimal or within 2% in
#: 60 s; 1,000 jobs within 10% of the lower bound.
AGREEMENT_CASES, AGREEMENT_JOBS = 200, 7
MEDIUM_JOBS, MEDIUM_SECONDS, MEDIUM_GAP = 50, 60.0, 0.02
#: The time limit handed to the branch and bound (the rest of the floor covers building and reading back).
MEDIUM_LIMIT = 58.0
LARGE_JOBS, LARGE_GAP = 1000, 0.10
#: The heuristic's time limit on 1,000 jobs (past `LOCAL_SEARCH_JOBS` it runs its list rules only, about 2 s).
LARGE_LIMIT = 10.0


def random_workflow(n: int, seed: int, *, width: int = 3, release_share: float = 0.5
                    ) -> tuple[np.ndarray, np.ndarray, list[list[tuple[int, float]]], np.ndarray, np.ndarray]:
    """(a, b, after, releases, due) of n jobs (module docstring); ``after[j]`` lists (position, delay) pairs."""
    rng = np.random.default_rng(seed)
    a, b = rng.uniform(1, 100, n), rng.uniform(1, 100, n)
    releases = rng.uniform(0, release_share * a.sum(), n)
    hidden = rng.permutation(n)
    after: list[list[tuple[int, float]]] = [[] for _ in range(n)]
    for place in range(1, n):
        job = int(hidden[place])
        count = int(rng.integers(0, min(place, width) + 1))
        for before in rng.choice(hidden[:place], size=count, replace=False):
            delay = float(rng.uniform(0, 50)) if rng.random() < 0.5 else 0.0
            after[job].append((int(before), delay))
    due = releases + (a + b) * rng.uniform(1.5, 4, n)
    return a, b, after, releases, due


def _agreement(objective: str, count: int) -> Row:
    """``count`` random 7-job workflows: objective = disagreements of branch_and_bound with exhaustive search
    over every topological order (status or objective)."""
    from solvers import SolveStatus
    from solvers.ordering.precedence import order_with_precedence

    started = time.perf_counter()
    wrong = 0
    for index in range(count):
        a, b, after, r, due = random_workflow(AGREEMENT_JOBS, index)
        best = order_with_precedence(a, b, after, r, due, objective=objective, method="exhaustive").objective
        found = order_with_precedence(a, b, after, r, due, objective=objective, method="branch_and_bound",
                                      time_limit=30)
        wrong += found.status is not SolveStatus.OPTIMAL or abs(found.objective - best) > 1e-6 * max(abs(best), 1)
    return Row(BENCHMARK, f"{count} random workflows of {AGREEMENT_JOBS} jobs (seeds 0-{count - 1}), {objective}",
               "branch_and_bound vs exhaustive", float(wrong), 0.0, float(wrong), time.perf_counter() - started,
               "agree" if wrong == 0 else "DISAGREE", 1, None,
               "disagreements with exhaustive search over every topological order", floor_gap=0.0)


def _solve(n: int, seed: int, method: str, limit: float, objective: str,
           floor: tuple[float | None, float | None]) -> Row:
    from solvers.ordering.precedence import order_with_precedence, precedence_instance, simple_bounds

    a, b, after, r, due = random_workflow(n, seed)
    seconds, found = timed(lambda: order_with_precedence(a, b, after, r, due, objective=objective, method=method,
                                                         time_limit=limit), 1)
    critical, work = simple_bounds(precedence_instance(a, b, after, r, due))
    edges = sum(len(before) for before in after)
    detail = (f"{n} jobs, {edges} dependencies; {found.solver}; model makespan {found.makespan:.6g}; "
              f"critical path {critical:.6g}, work {work:.6g}")
    return Row(BENCHMARK, f"random workflow n={n} seed={seed}, {objective}", method, found.objective, found.bound,
               found.gap, seconds, str(found.status), 1, floor[0], detail, floor[1])


@register(BENCHMARK)
def precedence_ordering(suite: str) -> list[Row]:
    """order_with_precedence on random workflows (DAGs with delays, releases), 7 to 1,000 jobs.

    Floors: branch_and_bound equal to exhaustive search on 200 7-job instances; 50 jobs proven optimal or within
    2% in 60 s; the critical-path list heuristic within 10% of the lower bound on 1,000 jobs."""
    full = suite == "full"
    rows = [_agreement(objective, AGREEMENT_CASES) for objective in ("makespan",) + (
        ("max_lateness", "late_jobs") if full else ())]
    for seed in range(10 if full else 3):
        rows.append(_solve(MEDIUM_JOBS, seed, "branch_and_bound", MEDIUM_LIMIT, "makespan",
                           (MEDIUM_SECONDS, MEDIUM_GAP)))
    for seed in range(3 if full else 1):  # no floor: the is the makespan's (a lateness's relative gap
        # depends on where the clock starts)
        rows.append(_solve(MEDIUM_JOBS, seed, "branch_and_bound", MEDIUM_LIMIT, "max_lateness", (None, None)))
    for seed in range(5 if full else 2):
        rows.append(_solve(LARGE_JOBS, seed, "critical_path", LARGE_LIMIT, "makespan", (None, LARGE_GAP)))
    return rows
