"""VM pair scheduling: exact methods against each other and their scaling in the number of jobs."""

from __future__ import annotations

from benchmarks.registry import Row, register, timed
from models import Cluster
from planner.examples.workloads import random_batch
from solvers import schedule_pairs

CLUSTER = Cluster(nodes=10, disks=2, primaries_per_extra=2, overcommit_penalty=1.3)
FLOORS = {200: 2.0, 1000: 30.0, 2000: 60.0}  # 2,000 jobs: proven within the default limit (issue 18)


@register("pairs")
def pair_scheduling(suite: str) -> list[Row]:
    """schedule_pairs by MILP, blossom and exhaustive search on P = 10 machines, k = 2 (N = 20 VMs).

    10 to 1,000 jobs (random_batch(n), seed 0), and 2,000 by MILP at its default 60 s limit in the full suite."""
    sizes = [(10, ("exhaustive", "milp", "matching")), (200, ("milp", "matching")), (1000, ("milp",))]
    if suite == "full":
        sizes.insert(2, (500, ("milp", "matching")))
        sizes.append((2000, ("milp",)))
    rows = []
    for n, names in sizes:
        jobs = random_batch(n)
        for name in names:
            repeats = 3 if n <= 200 else 1
            seconds, schedule = timed(lambda jobs=jobs, name=name: schedule_pairs(jobs, CLUSTER, name), repeats)
            floor = FLOORS.get(n) if name == "milp" else None
            rows.append(Row("pairs", f"{n} jobs", name, schedule.objective, schedule.bound, schedule.gap, seconds,
                            str(schedule.status), repeats, floor,
                            f"sequential baseline {schedule.sequential_baseline:.0f} s; "
                            f"{sum(g.mode == 'overcommit' for g in schedule.groups)} overcommitted pairs"))
    return rows
