"""Multi-phase overcommit packing: greedy vs MILP (objective, bound, gap, time) against the sequential baseline."""

from __future__ import annotations

import numpy as np

from benchmarks.registry import Row, register, timed
from models import Cluster, Job, PowerLawProfile
from solvers import pack_phases

CLUSTER = Cluster(nodes=9, disks=2, primaries_per_extra=2, overcommit_penalty=1.3)
GAP_FLOOR = 0.02


def batch(n: int, seed: int = 0) -> list[Job]:
    """F(n) = a n^b with a in 500-5000 s and b in -1..-0.3, intensities cpu / io / balanced at equal odds."""
    rng = np.random.default_rng(seed)
    return [
        Job(f"j{i}", intensity=str(rng.choice(["cpu", "io", "balanced"])),
            profile=PowerLawProfile.from_coefficients(float(rng.uniform(500, 5000)), float(rng.uniform(-1, -0.3))))
        for i in range(n)
    ]


@register("packing")
def packing(suite: str) -> list[Row]:
    """pack_phases by greedy and MILP on random batches, P = 9, k = 2, r = 2, alpha = 1.3."""
    sizes = (8, 12, 20) if suite == "quick" else (8, 12, 16, 20, 30)
    rows = []
    for n in sizes:
        jobs = batch(n)
        for name in ("greedy", "milp"):
            seconds, schedule = timed(lambda jobs=jobs, name=name: pack_phases(jobs, CLUSTER, name, time_limit=60), 1)
            detail = f"{len(schedule.phases)} phases; sequential {schedule.sequential_baseline:.0f} s"
            if name == "milp" and n == 20:
                met = schedule.gap is not None and schedule.gap <= GAP_FLOOR
                detail += f"; gap floor {GAP_FLOOR:.0%} within 60 s: {'met' if met else 'MISSED'}"
            rows.append(Row("packing", f"random n={n}", name, schedule.objective, schedule.bound, schedule.gap,
                            seconds, str(schedule.status), 1, None, detail))
    return rows
