"""Certified answers: exact methods against exhaustive search, and how they keep their time limits."""

from __future__ import annotations

import time
from importlib.metadata import version

import numpy as np

from benchmarks.registry import Row, register
from planner.examples.workloads import crosscheck_cases, packing_workload, paper_cluster, random_batch
from solvers import SolveStatus, order_two_stage, pack_phases, schedule_pairs
from solvers.ordering.two_stage import two_stage_makespan

#: What a solve may take beyond its time limit (building the model, reading the answer back).
OVERHEAD = 1.0


def _crosscheck(method: str, count: int) -> Row:
    """``count`` instances against exhaustive search: objective = disagreements (status or value)."""
    started = time.perf_counter()
    wrong = 0
    if method.startswith("two_stage"):
        import itertools

        for index in range(count):
            rng = np.random.default_rng(np.random.SeedSequence([17, index]))
            n = int(rng.integers(2, 7))
            a, b = rng.uniform(1, 100, n).round(1), rng.uniform(1, 100, n).round(1)
            best = min(two_stage_makespan(a, b, order) for order in itertools.permutations(range(n)))
            found = order_two_stage(a, b, method="milp")
            wrong += found.status is not SolveStatus.OPTIMAL or found.objective > best * (1 + 1e-4) + 1e-9
    else:
        problem, name = method.split(" ")
        sizes = (2, 4) if problem == "packing" else (2, 7)
        for jobs, cluster in crosscheck_cases(count, seed=14 if problem == "packing" else 16, jobs=sizes):
            if problem == "packing":
                best = pack_phases(jobs, cluster, method="exhaustive").objective
                found = pack_phases(jobs, cluster, method=name, time_limit=30)
            else:
                best = schedule_pairs(jobs, cluster, method="exhaustive").objective
                found = schedule_pairs(jobs, cluster, method=name)
            wrong += found.status is not SolveStatus.OPTIMAL or abs(found.objective - best) > 1e-6 * best
    seconds = time.perf_counter() - started
    # gap = the disagreements too, so that the floor (gap 0) fails the run on any of them
    return Row("certify", f"{count} random small instances", method, float(wrong), 0.0, float(wrong), seconds,
               "agree" if wrong == 0 else "DISAGREE", 1, None,
               f"disagreements with exhaustive search; highspy {version('highspy')}", floor_gap=0.0)


def _limited(label: str, solve, limit: float) -> Row:
    started = time.perf_counter()
    result = solve(limit)
    seconds = time.perf_counter() - started
    return Row("certify", label, f"{result.solver} (limit {limit:g} s)", result.objective, result.bound, result.gap,
               seconds, str(result.status), 1, limit + OVERHEAD, f"time limit {limit:g} s plus {OVERHEAD:g} s")


@register("certify")
def certify(suite: str) -> list[Row]:
    """Every exact method against exhaustive search on seeded small instances (objective = number of
    disagreements, 0 required), the Packing paper's W1-W6 by "milp" and "milp-compact", and each
    exact method stopped by its time limit on an instance too large to prove (floor: limit + 1 s)."""
    count = 200 if suite == "full" else 40
    limit = 5.0 if suite == "full" else 2.0
    rows = [_crosscheck(method, count) for method in
            ("packing milp", "packing milp-compact", "pairs milp", "pairs matching", "two_stage milp")]
    cluster = paper_cluster(10)
    for name in ("W1", "W2", "W3", "W4", "W5", "W6") if suite == "full" else ("W1",):
        jobs = packing_workload(name)
        for method in ("milp", "milp-compact"):
            started = time.perf_counter()
            schedule = pack_phases(jobs, cluster, method=method, time_limit=60)
            rows.append(Row("certify", f"{name} (P = 10)", f"packing {method}", schedule.objective, schedule.bound,
                            schedule.gap, time.perf_counter() - started, str(schedule.status), 1))
    big = random_batch(30, 1)
    rows.append(_limited("packing, 30 jobs, P = 20", lambda t: pack_phases(big, paper_cluster(20), method="milp",
                                                                           time_limit=t), limit))
    rows.append(_limited("packing, 30 jobs, P = 20", lambda t: pack_phases(big, paper_cluster(20),
                                                                           method="milp-compact", time_limit=t), limit))
    if suite == "full":  # the same with 20 s: Farley's bound lets the column generation prove it (README)
        rows.append(_limited("packing, 30 jobs, P = 20", lambda t: pack_phases(big, paper_cluster(20), method="milp",
                                                                               time_limit=t), 20.0))
    many = random_batch(1000, 2)
    for method in ("milp", "matching"):
        rows.append(_limited("pairs, 1000 jobs", lambda t, m=method: schedule_pairs(many, cluster, method=m,
                                                                                    time_limit=t), limit / 5))
    rng = np.random.default_rng(0)
    a, b = rng.uniform(1, 100, 120), rng.uniform(1, 100, 120)
    rows.append(_limited("two-stage, 120 jobs", lambda t: order_two_stage(a, b, method="milp", time_limit=t), limit))
    return rows
