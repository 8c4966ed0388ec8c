"""Plans for targets (`plan_for_target`): never worse than doing nothing, and what they gain.

Issue 38's floors, measured side by side in one run:

- **never worse than doing nothing**: for every case, target and objective, the number of
  baselines (the configuration as it is, FIFO and Fair on the target's resources) that beat the
  recommendation run for run (paired 95% interval of the mean difference excluding zero): floor 0.
  The row's ``seconds`` is the planning time with the default runs (floor: the demo batch under
  60 s, the 1,000-job window under 5 minutes, both on this machine's 2 cores);
- **mean response on containers** (demo batch, yarn-fair): the plan's over Fair's, floor 0.70
  (at least 30% below), with the lower bound (`solvers.bounds.response_bound`) beside it;
- **makespan on containers** (demo batch, yarn-fair): the plan's over the best baseline's minus
  one, floor 0.01, with the work and critical-path bound;
- **one number, one meaning**: |the plan's printed mean - `validate`'s mean| for the same target,
  runs and seed: floor 0;
- **deadlines** (FB-2009 batches of 200 and 1,000 jobs with their arrivals, each deadline = submit
  + 1.5 x the job's time alone on the cluster, yarn-fair, late_jobs): late jobs over Fair's, floor
  0.5 (the plan's lever here is the small-jobs queue with the other queues capped:
  `planner.planning.deploy.small_queue_candidates`); and the plan's predicted late jobs against a
  fresh validation (another seed): |predicted - simulated| - max(10% of simulated, 1), floor 0.

Before and after: on the demo batch and the FB-2009 window 1-3 h (ready now and with arrivals),
the plan main made before this issue (slots+johnson, k = 5, exported to each target) is measured
on the makespan against the same baselines, runs and seed: the rows "before: ..." count the
baselines that beat it run for run (no floor: it is the starting point).

Cases: the demo batch (40 FB-2009 jobs ready now, 20 nodes x (2 + 2) slots); five FB-2009
windows on 10 nodes x (4 + 2) (two ready now, three with their arrivals, one of them the 1,000-job
window 6-8 h); two FB-2010 slices of 300 s with their arrivals, on a cluster sized so that their
work takes about 1.2 times the slice. Objectives: makespan, mean_response, max_lateness,
late_jobs and window (the deadline ones with a window at 1.15 x the makespan bound after the
first arrival). The quick suite: the demo batch, three targets, makespan and mean response, and
the single-number rows.
"""

from __future__ import annotations

import time
from functools import cache
from pathlib import Path

from benchmarks.registry import Row, register
from models import Cluster, Workload
from planner.defaults import DEFAULT_TARGET_RUNS
from planner.examples.demo import DEMO_CLUSTER, nightly_batch
from planner.io.swim import read_swim
from planner.planning.arrivals import batch_bounds
from planner.planning.deploy import plan_for_target
from planner.plans.plan import Plan
from planner.proof.setups import all_ready
from planner.proof.validate import validate
from solvers.bounds import alone

NAME = "plans"
DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
TARGETS = ("mrv1", "yarn-fair", "yarn-capacity")
OBJECTIVES = ("makespan", "mean_response", "max_lateness", "late_jobs", "window")
FB_NODES = Cluster(nodes=10, map_slots=4, reduce_slots=2, racks=1)
#: (name, start, end, ready now): the FB-2009 windows.
FB09_WINDOWS = (("fb09-1h-3h", 3_600, 10_800, True), ("fb09-10h-12h", 36_000, 43_200, True),
                ("fb09-1h-3h-arrivals", 3_600, 10_800, False), ("fb09-14h-16h-arrivals", 50_400, 57_600, False),
                ("fb09-6h-8h-arrivals", 21_600, 28_800, False))
FB10_SLICES = (("fb10-0-300s", 0, 300), ("fb10-2700-3000s", 2_700, 3_000))
#: Floors (issue 38).
DEMO_SECONDS, LARGE_SECONDS = 60.0, 300.0
RESPONSE_RATIO, MAKESPAN_EXCESS, LATE_RATIO = 0.70, 0.01, 0.5
WINDOW_SLACK = 1.15
#: The cases where the plan main made before this issue (slots+johnson, k = 5, exported to the
#: target) is measured against the same baselines, for the before-and-after comparison.
BEFORE_CASES = ("demo", "fb09-1h-3h", "fb09-1h-3h-arrivals")


@cache
def _day(name: str) -> Workload:
    return read_swim(DATA / name)


def fb09_window(name: str, start: float, end: float) -> Workload:
    """The FB-2009 day's jobs submitted in [start, end) s, their submit times kept (`FB09_WINDOWS`)."""
    jobs = [job for job in _day("FB-2009_samples_24_times_1hr_0.tsv") if start <= job.submit < end]
    return Workload(jobs, name=name)


def _slice(name: str, start: float, end: float) -> tuple[Workload, Cluster]:
    """A FB-2010 slice, on nodes of 4 + 2 slots enough for its work to take 1.2 x the slice."""
    jobs = [job for job in _day("FB-2010_samples_24_times_1hr_0.tsv") if start <= job.submit < end]
    work = sum(job.work for job in jobs)
    nodes = max(2, round(work / (1.2 * (end - start)) / 6))
    return Workload(jobs, name=name), Cluster(nodes=nodes, map_slots=4, reduce_slots=2, racks=max(1, nodes // 40))


def cases(suite: str) -> list[tuple[str, Workload, Cluster, bool]]:
    chosen = [("demo", nightly_batch(), DEMO_CLUSTER, True)]
    if suite == "full":
        chosen += [(name, fb09_window(name, start, end), FB_NODES, ready) for name, start, end, ready in FB09_WINDOWS]
        for name, start, end in FB10_SLICES:
            workload, cluster = _slice(name, start, end)
            chosen.append((name, workload, cluster, False))
    return chosen


def _window_for(workload: Workload, cluster: Cluster, ready: bool) -> float:
    night = all_ready(workload) if ready else workload
    bounds = batch_bounds(night, cluster.total_slots, None)
    return bounds["first_arrival"] + WINDOW_SLACK * bounds["makespan"]


def _beaten_by(plan: Plan) -> list[str]:
    return [r["against"] for r in plan.simulated["comparisons"] if r["verdict"] == "plan worse"]


def _detail(plan: Plan) -> str:
    simulated = plan.simulated
    rows = {r["setup"]: r for r in simulated["candidates"]}
    parts = [f"{'keep' if simulated['keep'] else 'apply ' + simulated['chosen']}: mean {simulated['mean']:,.1f} "
             f"(p5 {simulated['p5']:,.1f}, p95 {simulated['p95']:,.1f})"]
    for record in simulated["comparisons"]:
        parts.append(f"{record['against']} {rows[record['against']]['mean']:,.1f} ({record['verdict']}, "
                     f"[{record['ci_low']:,.1f}, {record['ci_high']:,.1f}])")
    bounds = simulated["bounds"]
    parts.append(f"makespan {simulated['makespan']:,.0f} s, bound {bounds['makespan']:,.0f} s")
    return "; ".join(parts)


def _objective_bound(plan: Plan) -> float | None:
    bounds = plan.simulated["bounds"]
    return {"makespan": bounds["makespan"], "mean_response": bounds["mean_response"],
            "max_lateness": bounds["max_lateness"]}.get(plan.objective)


@register(NAME)
def run(suite: str) -> list[Row]:
    """Plans for targets: never worse than the configuration as it is, FIFO or Fair; what they gain."""
    rows: list[Row] = []
    kept: dict[tuple[str, str, str], Plan] = {}
    for name, workload, cluster, ready in cases(suite):
        objectives = OBJECTIVES if suite == "full" else ("makespan", "mean_response")
        window = _window_for(workload, cluster, ready)
        for target in TARGETS:
            for objective in objectives:
                due = objective in ("max_lateness", "late_jobs", "window")
                start = time.perf_counter()
                plan = plan_for_target(workload, cluster, target, objective=objective, ready_now=ready,
                                       window=window if due else None)
                seconds = time.perf_counter() - start
                kept[(name, target, objective)] = plan
                floor = DEMO_SECONDS if name == "demo" else LARGE_SECONDS if len(workload) >= 900 else None
                beaten = _beaten_by(plan)
                rows.append(Row(NAME, f"{name} ({len(workload)} jobs)/{target}/{objective}",
                                "keep" if plan.simulated["keep"] else plan.simulated["chosen"], float(len(beaten)),
                                _objective_bound(plan), None, seconds, plan.status, 1, floor_seconds=floor,
                                detail=(f"beaten by {', '.join(beaten)}; " if beaten else "") + _detail(plan),
                                floor_objective=0.0))
    for name, workload, cluster, ready in cases(suite):
        if name in BEFORE_CASES:
            rows += [_before_row(name, workload, cluster, ready, target) for target in TARGETS]
    rows += _demo_rows(kept)
    if suite == "full":
        rows += _deadline_rows()
    return rows


def _demo_rows(kept: dict[tuple[str, str, str], Plan]) -> list[Row]:
    """The single-number floors on the demo batch, yarn-fair."""
    batch = nightly_batch()
    rows = []
    plan = kept[("demo", "yarn-fair", "mean_response")]
    records = {r["setup"]: r for r in plan.simulated["candidates"]}
    fair = records["Fair on yarn-fair"]["mean"]
    bound = plan.simulated["bounds"]["mean_response"]
    rows.append(Row(NAME, "demo/yarn-fair: mean response over Fair's", "plan / Fair", plan.simulated["mean"] / fair,
                    bound / fair, None, plan.seconds, plan.status, 1,
                    detail=f"plan {plan.simulated['mean']:,.1f} s ({plan.simulated['chosen']}), Fair {fair:,.1f} s, "
                           f"lower bound {bound:,.1f} s (bound column: bound / Fair)",
                    floor_objective=RESPONSE_RATIO))
    plan = kept[("demo", "yarn-fair", "makespan")]
    records = {r["setup"]: r for r in plan.simulated["candidates"]}
    best = min(records[name]["makespan"] for name in ("as configured", "FIFO on yarn-fair", "Fair on yarn-fair"))
    bounds = plan.simulated["bounds"]
    rows.append(Row(NAME, "demo/yarn-fair: makespan over the best baseline's, minus 1", "plan / best - 1",
                    plan.simulated["makespan"] / best - 1.0, bounds["makespan"] / best - 1.0, None, plan.seconds,
                    plan.status, 1, detail=f"plan {plan.simulated['makespan']:,.0f} s, best baseline {best:,.0f} s, "
                                           f"work bound {bounds['work']:,.0f} s, critical path "
                                           f"{bounds['critical_path']:,.0f} s", floor_objective=MAKESPAN_EXCESS))
    plan = kept[("demo", "yarn-fair", "mean_response")]
    start = time.perf_counter()
    report = validate(plan, batch, DEMO_CLUSTER, runs=plan.simulated["runs"], noise=plan.simulated["noise"],
                      seed=plan.simulated["seed"])
    difference = abs(report.planned["mean"] - plan.simulated["mean"])
    rows.append(Row(NAME, "demo/yarn-fair: |plan's figure - validate's mean|", "same runs and seed", difference,
                    None, None, time.perf_counter() - start, "measured", 1,
                    detail=f"plan {plan.simulated['mean']!r}, validate {report.planned['mean']!r}",
                    floor_objective=0.0))
    return rows


def _deadline_batch(jobs: int) -> tuple[Workload, Cluster]:
    """The first ``jobs`` FB-2009 jobs from 6 h on, with their arrivals; deadline = submit + 1.5 x the
    job's time alone on the cluster (`solvers.bounds.alone`)."""
    day = sorted((job for job in _day("FB-2009_samples_24_times_1hr_0.tsv") if job.submit >= 21_600),
                 key=lambda job: (job.submit, job.name))[:jobs]
    cluster = FB_NODES
    slots = cluster.total_slots
    batch = [job.with_changes(deadline=job.submit + 1.5 * alone(job, slots)) for job in day]
    return Workload(batch, name=f"fb09-deadlines-{jobs}"), cluster


def _deadline_rows() -> list[Row]:
    rows = []
    for jobs in (200, 1_000):
        workload, cluster = _deadline_batch(jobs)
        start = time.perf_counter()
        plan = plan_for_target(workload, cluster, "yarn-fair", objective="late_jobs")
        seconds = time.perf_counter() - start
        records = {r["setup"]: r for r in plan.simulated["candidates"]}
        fair = records["Fair on yarn-fair"]["late_jobs"]
        ratio = plan.simulated["mean"] / fair if fair else (0.0 if plan.simulated["mean"] == 0 else float("inf"))
        rows.append(Row(NAME, f"deadlines {jobs} jobs/yarn-fair: late jobs over Fair's", plan.simulated["chosen"],
                        ratio, None, None, seconds, plan.status, 1,
                        detail=f"plan {plan.simulated['mean']:.2f} late per run, Fair {fair:.2f}; " + _detail(plan),
                        floor_objective=LATE_RATIO))
        report = validate(plan, workload, cluster, runs=plan.simulated["runs"], noise=plan.simulated["noise"],
                          seed=plan.simulated["seed"] + 1)
        simulated = report.planned["mean"]
        predicted = plan.simulated["mean"]
        excess = abs(predicted - simulated) - max(0.1 * simulated, 1.0)
        rows.append(Row(NAME, f"deadlines {jobs} jobs/yarn-fair: predicted late jobs against a fresh validation",
                        "|predicted - simulated| - max(10%, 1)", excess, None, None, report.seconds, "measured", 1,
                        detail=f"predicted {predicted:.2f} (seed {plan.simulated['seed']}), simulated {simulated:.2f} "
                               f"(seed {plan.simulated['seed'] + 1})", floor_objective=0.0))
    return rows


def _before_row(name: str, workload: Workload, cluster: Cluster, ready: bool, target: str) -> Row:
    """Before issue 38: the default slot plan (slots+johnson, k = 5) as its export to ``target``
    runs it, paired on the makespan with the baselines a plan for the target is measured against
    (the target's stock configuration as it is, FIFO and Fair), with the same runs and seed."""
    from planner.io.hadoop.merge import default_config, deployed_run, map_queues, merged_files
    from planner.io.targets import plan_run
    from planner.planning.make import make_plan
    from planner.plans.levers import Levers
    from planner.proof.deployed import compare, deployed_setup, measure, target_baselines

    start = time.perf_counter()
    legacy = make_plan(workload, cluster, "slots+johnson", ready_now=ready)
    night = all_ready(workload) if ready else workload
    arrived = {job.name: job.submit for job in night}
    current = default_config(target, cluster)
    queues = map_queues(workload, current, target, None)
    configured = deployed_run(merged_files(current, Levers(queues=queues), workload, cluster, target,
                                           ready_now=ready), workload, cluster)
    exported = plan_run(legacy, workload, cluster, target, ready_now=ready)  # in the workload's job order
    setups = [deployed_setup("before: slots+johnson as exported", "plan", exported, night, window=None,
                             arrivals=arrived),
              deployed_setup("as configured", "baseline", configured, night, window=None, arrivals=arrived),
              *target_baselines(night, configured, target, queues, window=None, arrivals=arrived)]
    measured = measure(setups, runs=DEFAULT_TARGET_RUNS, noise=0.3, seed=0)
    records = compare(measured[0], measured[1:], "makespan", 0)
    beaten = [r["against"] for r in records if r["verdict"] == "plan worse"]
    plan_mean = float(measured[0].values("makespan").mean())
    parts = [f"{r['against']} {float(m.values('makespan').mean()):,.0f} s ({r['verdict']})"
             for r, m in zip(records, measured[1:], strict=True)]
    return Row(NAME, f"before: {name} ({len(workload)} jobs)/{target}/makespan", "slots+johnson k=5 as exported",
               float(len(beaten)), None, None, time.perf_counter() - start, "measured", 1,
               detail=f"plan as exported {plan_mean:,.0f} s (fluid model: {legacy.predicted_makespan:,.0f} s); "
                      + "; ".join(parts), floor_objective=None)
