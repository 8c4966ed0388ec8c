"""Validation that stops when the answer is known (`planner.proof.adaptive`, ``--runs auto``)
against a fixed validation of the most runs, side by side in one run.

Each case validates one plan three times on a local process pool (`validate(plan, ..., runs=N)`, what
`planner validate --runs N` runs before it writes its report): once with ``AutoRuns(max_runs=N)``
(10, 16, 24, ... runs in antithetic pairs until every comparison with a baseline is settled:
its t interval at 1 - 0.05 / rounds excludes zero, with the report's verdict agreeing, or its
half-width is at most 1% of the mean), once with N
independent runs fixed (the validation it replaces) and once with N antithetic runs fixed.

Full suite, N = 150:
- the slots+johnson plan of the FB-2010 trace's first 300 s (77 jobs, the `dask` benchmark's
  slice) on 100 nodes in 4 racks (heartbeat 3 s): 7 baselines and variants, six curve points;
- the slots+johnson plan of the demo batch (40 FB-2009 jobs) on the demo cluster;
- the demo batch's plan for yarn-fair (`plan_for_target`, 20 runs, objective makespan), validated
  as it was chosen: against the configuration as it is, FIFO and Fair on containers (the mean).
Quick suite: the example batch's slots+johnson plan, N = 30.

Rows per case:
- "runs": objective = the runs the auto validation made (detail: its rounds and why it stopped);
- "verdicts as the fixed validation's": objective = the comparisons whose verdict (95%, as the
  report gives it) differs from the fixed validation's; floor: none differ. The detail also
  counts the comparisons the auto validation settled "within precision" whose fixed-N median
  (or mean) difference is within that precision (the claim such a settlement makes);
- "time": objective = the auto validation's wall time over the fixed one's (seconds: the auto
  validation's; detail: both, and the machine's load);
- "variance per run": the variance reduction of antithetic pairs, measured: a third validation
  of N antithetic runs fixed; per baseline the variance of the mean difference per simulation
  (the pair means' variance over N / 2 pairs) over the independent runs' (variance over N);
  objective = the median over the baselines (below 1: antithetic pairs help).
"""

from __future__ import annotations

import os
import time
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np

from benchmarks.registry import Row, register
from models import Cluster, Workload
from planner.io.swim import read_swim
from planner.planning.make import make_plan
from planner.plans.plan import Plan
from planner.proof.adaptive import AutoRuns
from planner.proof.validate import ValidationReport, validate

NAME = "adaptive"
ROOT = Path(__file__).resolve().parent.parent
FB2010_SLICE = ROOT / "tests" / "data" / "FB-2010_samples_24_times_1hr_0_first300s.tsv"
FB2010_DAY = ROOT / "tests" / "data" / "FB-2010_samples_24_times_1hr_0.tsv"
HOUR = "adaptive-hour"
EXAMPLES = ROOT / "examples"


def cases(suite: str) -> list[tuple[str, Plan, Workload, Cluster, int]]:
    warnings.simplefilter("ignore")  # the plans' own warnings (arrivals, task floors) are not measured here
    if suite != "full":
        workload, cluster = Workload.from_file(EXAMPLES / "nightly.yaml"), Cluster.from_file(EXAMPLES / "cluster.yaml")
        return [("examples/nightly.yaml (5 jobs), slots+johnson", make_plan(workload, cluster, "slots+johnson"),
                 workload, cluster, 30)]
    from planner.examples.demo import DEMO_CLUSTER, nightly_batch
    from planner.planning.deploy import plan_for_target

    fb = read_swim(FB2010_SLICE)
    slice_cluster = Cluster(nodes=100, racks=4)
    demo = nightly_batch()
    return [
        ("FB-2010 first 300 s (77 jobs), 100 nodes, slots+johnson", make_plan(fb, slice_cluster, "slots+johnson"),
         fb, slice_cluster, 150),
        ("demo (40 jobs), slots+johnson", make_plan(demo, DEMO_CLUSTER, "slots+johnson"), demo, DEMO_CLUSTER, 150),
        ("demo (40 jobs), plan for yarn-fair", plan_for_target(demo, DEMO_CLUSTER, "yarn-fair"), demo, DEMO_CLUSTER,
         150),
    ]


def difference_key(report: ValidationReport) -> str:
    return "mean_difference" if report.kind == "target" else "median_difference"


def differences(report: ValidationReport) -> dict[str, np.ndarray]:
    """Each baseline's per-run differences (baseline - plan, the report's measure), in run order."""
    from planner.proof.paired import values_by_setup

    by_setup = values_by_setup(report)
    plan = by_setup[report.planned["setup"]]
    runs = sorted(plan)
    return {record["setup"]: np.array([by_setup[record["setup"]][r] - plan[r] for r in runs])
            for record in report.setup("baseline")}


def variance_ratios(independent: ValidationReport, antithetic: ValidationReport) -> dict[str, float]:
    """Per baseline: the variance of the mean difference per simulation with antithetic pairs
    (var of the pair means / pairs) over that with independent runs (var / runs), at the same runs."""
    ratios = {}
    pairs = differences(antithetic)
    for name, alone in differences(independent).items():
        means = pairs[name].reshape(-1, 2).mean(axis=1)
        alone_var = alone.var(ddof=1) / len(alone)
        ratios[name] = float(means.var(ddof=1) / len(means) / alone_var) if alone_var > 0 else float("nan")
    return ratios


def rows_for(name: str, plan: Plan, workload: Workload, cluster: Cluster, most: int, *,
             mirrored_too: bool = True, curve_splits: int | None = None) -> list[Row]:
    """The case's rows; without ``mirrored_too`` no fixed antithetic validation (nor its variance row)."""
    load_before = os.getloadavg()[0]
    clock = time.perf_counter()
    auto = validate(plan, workload, cluster, runs=AutoRuns(max_runs=most), curve_splits=curve_splits)
    auto_seconds = time.perf_counter() - clock
    clock = time.perf_counter()
    fixed = validate(plan, workload, cluster, runs=most, curve_splits=curve_splits)
    fixed_seconds = time.perf_counter() - clock
    load = f"load {load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
    mirrored = validate(plan, workload, cluster, runs=most, antithetic=True, curve_splits=curve_splits) \
        if mirrored_too else None
    stopping = auto.stopping or {}
    key = difference_key(fixed)
    theirs = {record["baseline"]: record for record in fixed.paired}
    differ = [record["baseline"] for record in auto.paired if record["verdict"] != theirs[record["baseline"]]["verdict"]]
    looks = {item["baseline"]: item for item in stopping.get("looks", [])}
    within = [b for b, item in looks.items() if item["settled"] == "within precision"]
    held = [b for b in within if abs(theirs[b][key]) <= looks[b]["precision_abs"]]
    verdicts = "; ".join(f"{record['baseline']}: {record['verdict']} ({theirs[record['baseline']]['verdict']} at {most})"
                         for record in auto.paired)
    mirrored_differ = [] if mirrored is None else [
        r["baseline"] for r in mirrored.paired if r["verdict"] != theirs[r["baseline"]]["verdict"]]
    mirrored_text = ("" if mirrored is None else f"; a fixed {most}-run antithetic validation differs on "
                     f"{len(mirrored_differ)}{': ' + ', '.join(mirrored_differ) if mirrored_differ else ''}")
    rows = [
        Row(NAME, name, "runs (auto, antithetic)", float(auto.runs), float(most), None, round(auto_seconds, 2), "ok",
            1, detail=f"rounds {', '.join(str(n) for n in stopping.get('rounds', []))}: {stopping.get('reason', '')}"),
        Row(NAME, name, f"verdicts as the fixed {most}-run validation's", float(len(differ)), None, None,
            round(auto_seconds, 2), "same" if not differ else "differ", 1, floor_objective=0.0,
            detail=(f"{len(auto.paired) - len(differ)} of {len(auto.paired)} the same"
                    f"{'; differ: ' + ', '.join(differ) if differ else ''}; settled within precision: {len(within)}, "
                    f"of which the {most}-run difference is within the precision: {len(held)}; {verdicts}"
                    f"{mirrored_text}")),
        Row(NAME, name, "time (auto / fixed)", round(auto_seconds / fixed_seconds, 4), None, None,
            round(auto_seconds, 2), "ok", 1,
            detail=f"auto {auto_seconds:,.1f} s ({auto.runs} runs), fixed {fixed_seconds:,.1f} s ({most} runs); "
                   f"local process pool; {load}"),
    ]
    if mirrored is not None:
        ratios = variance_ratios(fixed, mirrored)
        rows.append(Row(NAME, name, "variance per run, antithetic / independent (median over baselines)",
                        round(float(np.nanmedian(list(ratios.values()))), 4), None, None, 0.0, "ok", 1,
                        detail=f"{most} runs each; the variance of the mean difference per simulation; "
                               + "; ".join(f"{b}: {r:.2f}" for b, r in ratios.items())))
    return rows


@register(NAME, suites=("quick", "full"))
def run(suite: str) -> list[Row]:
    """--runs auto against a fixed validation of the most runs: runs made, verdicts, time."""
    rows = []
    for name, plan, workload, cluster, most in cases(suite):
        rows += rows_for(name, plan, workload, cluster, most)
    return rows


@register(HOUR, suites=("full",))
def run_hour(suite: str) -> list[Row]:
    """--runs auto against 150 fixed runs on the FB-2010 first hour (977 jobs, 3,000 nodes)."""
    warnings.simplefilter("ignore")
    workload = Workload([job for job in read_swim(FB2010_DAY) if job.submit < 3600.0], name="FB-2010 first hour")
    cluster = Cluster(nodes=3_000, racks=100)
    plan = make_plan(workload, cluster, "slots+johnson")
    return [replace(row, benchmark=HOUR) for row in
            rows_for(f"FB-2010 first hour ({len(workload)} jobs), 3,000 nodes, slots+johnson", plan, workload,
                     cluster, 150, mirrored_too=False, curve_splits=0)]
