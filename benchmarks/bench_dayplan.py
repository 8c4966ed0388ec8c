"""A production day planned (issue 43, item 2): each slot strategy's CPU time on the FB-2010 day.

The workload: the SWIM FB-2010 day (`tests/data/FB-2010_samples_24_times_1hr_0.tsv`) as `read_swim`
imports the whole file, as `planner plan` does (24,442 jobs: the 24 hours' 24,437 and five
submitted at 86,405-86,408 s, which `validate-day` plans too), with its submit times as releases,
on 3,000 nodes in 100 racks (2 map and 2 reduce slots each, S = 12,000, heartbeat 3 s), as
`planner plan` makes its plans (k = 5, "fresh", makespan): "slots", "johnson" and
"slots+johnson", each in a child process. The VM
strategies (pairs, packing) refuse a day by their documented limits. Each row's seconds are the
CPU seconds (`time.process_time`) of `make_plan` alone (the import excluded); its objective is the
plan's predicted makespan, its detail the split, the baseline, the order's record and the splits
the best-split search evaluated. Floor (full suite): 60 s each. The quick suite plans the first 2
hours (2,577 jobs), without floors.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from benchmarks.registry import Row, child_record, register

TRACE = Path(__file__).resolve().parent.parent / "tests" / "data" / "FB-2010_samples_24_times_1hr_0.tsv"
NODES, RACKS = 3_000, 100
STRATEGIES = ("slots", "johnson", "slots+johnson")
CPU_FLOOR = 60.0
HOURS: dict[str, float | None] = {"quick": 2.0, "full": None}  # None: the whole file


def measure(hours: float | None, strategy: str) -> dict:
    """One plan in this process: the CPU seconds of the import and of `make_plan`, and the plan."""
    import hashlib
    import time
    import warnings

    from models import Cluster
    from models.errors import TaskFloorWarning
    from planner.io.swim import read_swim
    from planner.planning.make import make_plan

    start = time.process_time()
    workload = read_swim(TRACE, window=None if hours is None else (0.0, hours * 3600.0))
    imported = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TaskFloorWarning)  # the day's longest reduce outlasts the plan
        plan = make_plan(workload, Cluster(nodes=NODES, racks=RACKS), strategy)
    planned = time.process_time()
    return {
        "jobs": len(workload),
        "import_seconds": imported - start,
        "plan_seconds": planned - imported,
        "map_slots": plan.map_slots,
        "reduce_slots": plan.reduce_slots,
        "predicted": plan.predicted_makespan,
        "baseline": plan.baseline_makespan,
        "solver": plan.solver,
        "curve_points": len(plan.curve),
        "ordering": plan.ordering,
        "order_sha": hashlib.sha256("\n".join(plan.order).encode()).hexdigest()[:16],
    }


def _child(hours: float | None, strategy: str) -> dict:
    return child_record("benchmarks.bench_dayplan", str(hours), strategy, what=f"the day's {strategy} plan")


@register("dayplan")
def dayplan(suite: str) -> list[Row]:
    """A production day planned: CPU seconds of `make_plan` for each slot strategy on the FB-2010 day, 3,000 nodes."""
    hours = HOURS[suite]
    whole = hours is None
    rows = []
    for strategy in STRATEGIES:
        measured = _child(hours, strategy)
        ordering = measured["ordering"]
        instance = (f"FB-2010 {'day, the whole file' if whole else f'first {hours:g} h'} ({measured['jobs']:,} jobs, releases), "
                    f"{NODES:,} nodes / {RACKS} racks, S = {4 * NODES:,}, k = 5, fresh")
        record = "submission order" if ordering is None else (
            f"{ordering['method']}, value {ordering['value']:,.3f}, bound {ordering['bound']:,.3f}")
        detail = (f"objective = predicted makespan (s); seconds = CPU seconds of make_plan"
                  f"{f' (floor {CPU_FLOOR:g} s)' if whole else ''}; split {measured['map_slots']}:"
                  f"{measured['reduce_slots']}, baseline {measured['baseline']:,.3f} s, solver {measured['solver']}, "
                  f"{measured['curve_points']:,} curve points kept; order {record}; order sha256 "
                  f"{measured['order_sha']}; import {measured['import_seconds']:.1f} s")
        rows.append(Row("dayplan", instance, strategy, measured["predicted"], None, None, measured["plan_seconds"],
                        "ok", 1, CPU_FLOOR if whole else None, detail))
    return rows


if __name__ == "__main__":
    print(json.dumps(measure(None if sys.argv[1] == "None" else float(sys.argv[1]), sys.argv[2])))
