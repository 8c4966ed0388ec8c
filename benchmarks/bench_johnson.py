"""Johnson ordering: agreement with brute force, 1M-job timing, and the two-stage methods."""

from __future__ import annotations

import itertools

import numpy as np

from benchmarks.registry import Row, register, timed
from solvers import PsoOptions, johnson_order, order_two_stage, two_stage_makespan
from solvers.ordering.two_stage import lower_bound, makespans


def _optimum(a: np.ndarray, b: np.ndarray) -> float:
    orders = np.array(list(itertools.permutations(range(a.size))), dtype=np.int64)
    return float(makespans(a, b, orders).min())


@register("johnson")
def johnson(suite: str) -> list[Row]:
    """Johnson's rule vs brute force, its speed on a million jobs, and the MILP and swarm methods."""
    rng = np.random.default_rng(0)
    rows = []
    trials = 300 if suite == "quick" else 2000
    agree = 0
    for _ in range(trials):
        n = int(rng.integers(2, 9))
        a, b = rng.integers(1, 50, n).astype(float), rng.integers(1, 50, n).astype(float)
        agree += two_stage_makespan(a, b, johnson_order(a, b)) == _optimum(a, b)
    rows.append(Row("johnson", f"{trials} random batches, n=2..8", "johnson vs brute force", agree / trials,
                    None, None, 0.0, "ok", 1, None, f"{agree}/{trials} optimal"))
    a, b = rng.uniform(0, 100, 1_000_000), rng.uniform(0, 100, 1_000_000)
    seconds, order = timed(lambda: johnson_order(a, b), 5)
    rows.append(Row("johnson", "1,000,000 jobs", "johnson", two_stage_makespan(a, b, order), lower_bound(a, b),
                    None, seconds, "optimal", 5, 0.5, "median of 5 runs"))
    sizes = (8, 12) if suite == "quick" else (8, 12, 20, 30)
    for n in sizes:
        a, b = rng.integers(1, 100, n).astype(float), rng.integers(1, 100, n).astype(float)
        for name in ("johnson", "milp", "pso"):
            options = {"pso": PsoOptions(particles=300, iterations=100)} if name == "pso" and suite == "quick" else {}
            seconds, solution = timed(lambda a=a, b=b, name=name, o=options: order_two_stage(a, b, name, time_limit=30, **o), 1)
            rows.append(Row("johnson", f"random n={n}", name, solution.objective, solution.bound, solution.gap,
                            seconds, str(solution.status), 1, None, solution.solver))
    return rows
