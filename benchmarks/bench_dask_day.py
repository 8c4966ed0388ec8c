"""The whole FB-2010 day's validation on a Dask cluster of two workers: the smallest one measured.

A validation of the day (24,437 jobs, 8.5M tasks, on 3,000 nodes in 100 racks) runs each of its
simulations for minutes, so the 150-run validation of docs/proving-plans.md (1,260 simulations)
is hours of CPU. What is measured here is the same validation with ``runs=2`` (`planner
validate --runs 2`, the least it takes): 2 runs of the plan and of each of its seven baselines and
variants and 2 of each of six other splits, 28 simulations, on a `dask scheduler` and two `dask
worker --nworkers 1 --nthreads 1` processes on 127.0.0.1 (`bench_dask.dask_cluster`). The plan is
`make_plan(..., "slots+johnson")`, as `planner plan` makes it, and its time is not counted.

Row: seconds = the validation's wall time; detail: the simulations and the seconds per
simulation on the two workers, and what 150 runs (1,260 simulations) take at that pace.
Full suite only (about 75 minutes with the plan); no floor: issue 18 asks for the time measured.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from benchmarks.bench_dask import WORKERS, dask_cluster
from benchmarks.registry import Row, register
from models import Cluster
from planner.io.swim import read_swim
from planner.planning.make import make_plan
from planner.proof.validate import validate

NAME = "dask-day"
DAY = Path(__file__).resolve().parent.parent / "tests" / "data" / "FB-2010_samples_24_times_1hr_0.tsv"
RUNS = 2
FULL_RUNS, FULL_SIMULATIONS = 150, 1_260  # the validation of docs/proving-plans.md


@register(NAME, suites=("full",))
def run(suite: str) -> list[Row]:
    """The FB-2010 day's validation (runs=2) on a 2-worker Dask cluster: wall time, and 150 runs at that pace."""
    workload, cluster = read_swim(DAY), Cluster(nodes=3000, racks=100)
    plan = make_plan(workload, cluster, "slots+johnson")
    with dask_cluster() as where:
        load = os.getloadavg()[0]
        clock = time.perf_counter()
        report = validate(plan, workload, cluster, runs=RUNS, executor=where, curve_splits=6)  # as committed: 28
        seconds = time.perf_counter() - clock
    simulations = len(report.samples)
    pace = seconds / simulations  # wall seconds per simulation with both workers busy
    detail = (f"{RUNS} runs, {simulations} simulations, {pace:.0f} s each on {WORKERS} workers; "
              f"{FULL_RUNS} runs ({FULL_SIMULATIONS:,} simulations) at that pace: {FULL_SIMULATIONS * pace / 3600:.1f} h; "
              f"load average {load:.1f} before, {os.getloadavg()[0]:.1f} after")  # fmt: skip
    instance = f"FB-2010 day ({len(workload):,} jobs), 3,000 nodes in 100 racks"
    return [Row(NAME, instance, f"dask, {WORKERS} workers", report.planned["mean"], None, None, seconds, "ok", 1,
                detail=detail)]
