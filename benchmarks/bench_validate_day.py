"""The FB-2010 day's plan validated with ``--runs auto`` on this machine's two cores (issue 43).

The day: `tests/data/FB-2010_samples_24_times_1hr_0.tsv` as `planner import swim` reads it
(24,442 jobs), on 3,000 nodes in 100 racks (2 map and 2 reduce slots each, heartbeat 3 s). The
plan: `make_plan(..., "slots+johnson")`, as `planner plan` makes it (its CPU seconds in the
detail, not counted). The validation: `validate(plan, day, cluster)` with its defaults, what
`planner validate` runs before it writes its report: ``--runs auto`` (rounds of antithetic pairs
until every comparison with the static and dynamic baselines is settled), no curve points (a
batch of more than `LARGE_BATCH_TASKS` tasks simulates none by default), on the default local
process pool (one process per core).

Rows (full suite only):
- "validation (--runs auto)": objective = the runs each setup made; seconds = the validation's
  wall time; floor 30 minutes (issue 43); detail: its rounds, why it stopped, each verdict, the
  simulations and the machine's load.
- "one run's peak memory (largest setup)": each setup's first run in a fresh process of its own,
  handed the pickled setup as a Dask worker is (`python -m benchmarks.bench_validate_day FILE`);
  objective = the largest peak RSS in MB, floor 1 GB (issue 43); detail: each setup's peak and
  CPU seconds.
"""

from __future__ import annotations

import json
import os
import pickle
import sys
import tempfile
import time
import warnings
from pathlib import Path

from benchmarks.registry import Row, child_record, core_build, register

NAME = "validate-day"
ROOT = Path(__file__).resolve().parent.parent
DAY = ROOT / "tests" / "data" / "FB-2010_samples_24_times_1hr_0.tsv"
WALL_FLOOR = 30 * 60.0
MEMORY_FLOOR_MB = 1024.0


def one_run(path: Path) -> dict:
    """In this process: run 0 of the pickled setup in ``path`` (as a validation's worker runs it)."""
    import resource

    from planner.proof.setups import run_setup
    from planner.simulator.native import compiled_modules

    with path.open("rb") as handle:
        setup = pickle.load(handle)
    start = time.process_time()
    record = run_setup(setup, 0.3, 0, 0, finishes=setup.role == "plan", antithetic=True)
    return {"setup": setup.name, "cpu": time.process_time() - start, "makespan": record["makespan"],
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
            "compiled": len(compiled_modules())}


def _child(path: Path) -> dict:
    return child_record("benchmarks.bench_validate_day", str(path), what="the setup's run")


@register(NAME, suites=("full",))
def run(suite: str) -> list[Row]:
    """The FB-2010 day's plan validated with --runs auto on two cores; one run's peak memory per setup."""
    from models import Cluster
    from planner.io.swim import read_swim
    from planner.planning.make import make_plan
    from planner.proof.setups import slot_setups
    from planner.proof.validate import validate

    warnings.simplefilter("ignore")  # the plan's own warnings (arrivals, task floors) are not measured here
    workload, cluster = read_swim(DAY), Cluster(nodes=3_000, racks=100)
    instance = f"FB-2010 day ({len(workload):,} jobs), 3,000 nodes in 100 racks, slots+johnson"
    start = time.process_time()
    plan = make_plan(workload, cluster, "slots+johnson")
    plan_cpu = time.process_time() - start
    load = os.getloadavg()[0]
    clock = time.perf_counter()
    report = validate(plan, workload, cluster)
    seconds = time.perf_counter() - clock
    stopping = report.stopping or {}
    verdicts = "; ".join(f"{record['baseline']}: {record['verdict']}" for record in report.paired)
    rows = [Row(NAME, instance, "validation (--runs auto)", float(report.runs), None, None, round(seconds, 1), "ok", 1,
                WALL_FLOOR,
                detail=(f"rounds {', '.join(str(n) for n in stopping.get('rounds', []))}: {stopping.get('reason', '')}; "
                        f"{len(report.samples)} simulations on a local pool of {os.cpu_count()}; {verdicts}; "
                        f"plan made in {plan_cpu:,.0f} s CPU (not counted); load {load:.1f} before, "
                        f"{os.getloadavg()[0]:.1f} after"))]
    setups = slot_setups(plan, workload, cluster, 0, list(plan.curve))  # empty for the day: fluid_point
    measured = []
    with tempfile.TemporaryDirectory() as folder:
        for index, setup in enumerate(setups):
            path = Path(folder) / f"setup{index}.pickle"
            with path.open("wb") as handle:
                pickle.dump(setup, handle, protocol=pickle.HIGHEST_PROTOCOL)
            measured.append(_child(path))
    largest = max(measured, key=lambda item: item["peak_mb"])
    rows.append(Row(NAME, instance, "one run's peak memory (largest setup)", round(largest["peak_mb"], 1), None, None,
                    round(largest["cpu"], 1), "ok", 1, floor_objective=MEMORY_FLOOR_MB,
                    detail=(f"objective = peak RSS (MB) of a fresh process running one run of a setup, handed it "
                            f"pickled; seconds = that run's CPU; largest: {largest['setup']}; "
                            + "; ".join(f"{item['setup']}: {item['peak_mb']:,.0f} MB, {item['cpu']:,.0f} s CPU"
                                        for item in measured)
                            + f"; {core_build(largest['compiled'])}")))
    return rows


if __name__ == "__main__":
    print(json.dumps(one_run(Path(sys.argv[1]))))
