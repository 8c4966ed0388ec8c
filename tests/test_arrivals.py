"""Plans that honour arrivals and deadlines: releases, the batch window, the objectives, the
explicit "all ready now", and validation's deadline misses and runs done by the window."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from models import Cluster, InvalidInput, Job, Workload
from planner import make_plan, read_swim, validate
from planner.cli.main import app
from planner.io.hadoop.applied import submission_schedule
from planner.planning.arrivals import ArrivalsWarning
from planner.proof.report import deadline_columns, sections
from solvers.ordering.release_search import earliest_among_equals

ONE_NODE = Cluster(nodes=1, map_slots=1, reduce_slots=1)
ROOT = Path(__file__).resolve().parent.parent


def two_jobs(deadline: float | None = 115.0) -> Workload:
    """a: map 100 s, reduce 10 s, due at 115; b: map 10 s, reduce 100 s, no deadline; both ready at 0.

    Johnson (makespan): b, a. b maps 0-10, reduces 10-110; a maps 10-110, reduces 110-120: 120 s,
    a 5 s late. a, b: a maps 0-100, reduces 100-110 (5 s early); b maps 100-110, reduces 110-210:
    210 s. So the makespan order misses a's deadline and the lateness order meets it."""
    return Workload([Job("a", 1, 1, 100.0, 10.0, deadline=deadline), Job("b", 1, 1, 10.0, 100.0)], name="two")


def test_the_objective_chooses_the_order():
    makespan = make_plan(two_jobs(), ONE_NODE, "slots+johnson", k=1)
    assert makespan.order == ("b", "a") and makespan.predicted_makespan == 120.0
    lateness = make_plan(two_jobs(), ONE_NODE, "slots+johnson", k=1, objective="max_lateness")
    assert lateness.order == ("a", "b") and lateness.ordering["value"] == -5.0
    assert lateness.ordering["status"] == "optimal" and lateness.objective == "max_lateness"
    late = make_plan(two_jobs(), ONE_NODE, "johnson", k=1, objective="late_jobs")
    assert late.order == ("a", "b") and late.ordering["value"] == 0.0
    assert lateness.predicted_makespan == 210.0  # the fluid makespan of the order it chose


def test_the_window_is_the_due_date_of_jobs_without_one():
    """No deadlines, window 115: both jobs are due at 115. b, a: b done at 110, a at 120 (L = 5);
    a, b: a at 110, b at 210 (L = 95): the lateness order is Johnson's here."""
    plan = make_plan(two_jobs(None), ONE_NODE, "slots+johnson", k=1, objective="max_lateness", window=115.0)
    assert plan.order == ("b", "a") and plan.ordering["value"] == 5.0 and plan.window == 115.0
    with pytest.raises(InvalidInput, match="objective: max_lateness needs deadlines"):
        make_plan(two_jobs(None), ONE_NODE, "slots+johnson", objective="max_lateness")


def test_a_window_before_an_arrival_is_refused():
    workload = Workload([Job("a", 1, 0, 10.0, submit=0.0), Job("b", 1, 0, 10.0, submit=500.0)])
    with pytest.raises(InvalidInput, match=r"window: ends at 400 s, before job b arrives \(500 s\)"):
        make_plan(workload, ONE_NODE, window=400.0)
    assert make_plan(workload, ONE_NODE, window=400.0, ready_now=True).ready_now


def test_vm_and_robust_plans_say_they_take_jobs_as_ready_now(data_dir):
    workload = read_swim(data_dir / "FB-2009_samples_24_times_1hr_0_first50jobs.tsv", limit=6)
    with pytest.warns(ArrivalsWarning, match=r"VM plans treat every job as ready at 0; 5 job\(s\) arrive later"):
        plan = make_plan(workload, Cluster(nodes=4), "packing", solver="greedy")
    assert plan.ready_now
    with warnings.catch_warnings():
        warnings.simplefilter("error", ArrivalsWarning)
        make_plan(workload, Cluster(nodes=4), "packing", solver="greedy", ready_now=True)
    with pytest.raises(InvalidInput, match="objective: packing plans minimize the makespan"):
        make_plan(workload, Cluster(nodes=4), "packing", objective="late_jobs", window=1e5)


def test_a_day_of_arrivals_is_no_longer_planned_as_if_ready_at_zero(data_dir):
    """FB-2009's first 50 jobs arrive from 49 s to 2,826 s; the plan predicts 2,777 s from the first
    arrival (the last arrives 2,777 s after it); all ready at 0 the plan predicted 225 s."""
    workload = read_swim(data_dir / "FB-2009_samples_24_times_1hr_0_first50jobs.tsv")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan = make_plan(workload, Cluster(nodes=20), "slots+johnson", time_limit=20)
        now = make_plan(workload, Cluster(nodes=20), "slots+johnson", ready_now=True)
    spread = max(job.submit for job in workload) - min(job.submit for job in workload)
    assert plan.predicted_makespan >= spread > 10 * now.predicted_makespan
    assert plan.ordering["status"] == "optimal" and not plan.ready_now and now.ordering is None
    # Among the orders of the same makespan, the one that holds no early job back behind a late
    # one (the exact search's first find submitted nothing before 2,228 s).
    schedule = submission_schedule(plan, workload)
    arrival = {job.name: job.submit for job in workload}
    assert schedule[0].at == min(arrival.values())
    assert sum(s.at - arrival[s.job] for s in schedule) < 60 * len(schedule)


def test_the_polish_keeps_the_objective_and_lowers_the_total_completion():
    """Stage times 1 s and 1 s for three jobs released at 0, 5 and 10 s. Order (1, 0, 2): job 1 maps
    5-6 and reduces 6-7, job 0 (held back) 6-7 / 7-8, job 2 10-11 / 11-12: makespan 12, completions
    7 + 8 + 12 = 27. Moving job 0 first gives (0, 1, 2): 0-1 / 1-2, 5-6 / 6-7, 10-11 / 11-12: the
    same makespan 12 and 2 + 7 + 12 = 21. From (0, 2, 1) (makespan 13) nothing of makespan 13
    sums less, and a better makespan is not taken: the solve's value stays."""
    a = b = np.ones(3)
    r = np.array([0.0, 5.0, 10.0])
    assert earliest_among_equals(a, b, r, None, "makespan", np.array([1, 0, 2])).tolist() == [0, 1, 2]
    assert earliest_among_equals(a, b, r, None, "makespan", np.array([0, 2, 1])).tolist() == [0, 2, 1]


def test_validation_counts_deadline_misses_and_runs_done_by_the_window():
    """Window 150 s (b's due date; a's deadline is 150 too). The lateness order b, a ends near
    120 s (heartbeats add a few seconds): no miss, every run within the window. Submission order
    a, b ("slots") ends b near 210 s: one miss per run, no run within the window. Without a
    window, by_window is None."""
    workload = two_jobs(150.0)
    good = make_plan(workload, ONE_NODE, "slots+johnson", k=1, objective="max_lateness", window=150.0)
    assert good.order == ("b", "a")
    report = validate(good, workload, ONE_NODE, runs=2, noise=0.0, curve_splits=0, executor="serial")
    assert (report.planned["deadline_misses"], report.planned["by_window"]) == (0.0, 1.0)
    assert report.planned["mean"] < 150.0
    bad = make_plan(workload, ONE_NODE, "slots", k=1, window=150.0)
    assert bad.order == ("a", "b")
    late = validate(bad, workload, ONE_NODE, runs=2, noise=0.0, curve_splits=0, executor="serial").planned
    assert (late["deadline_misses"], late["by_window"]) == (1.0, 0.0) and late["mean"] > 200.0
    without = validate(make_plan(workload, ONE_NODE, k=1), workload, ONE_NODE, runs=2, noise=0.0,
                       curve_splits=0, executor="serial")
    assert without.planned["by_window"] is None
    text = "\n".join(str(block) for block in sections(report, {}))
    assert "deadline misses per run" in text and "runs by the window" in text


def test_the_report_shows_deadline_columns_only_when_they_mean_something():
    workload = Workload([Job("a", 2, 1, 10.0, 10.0), Job("b", 1, 1, 10.0, 10.0)])
    plan = make_plan(workload, ONE_NODE, k=1)
    report = validate(plan, workload, ONE_NODE, runs=2, noise=0.0, curve_splits=0, executor="serial")
    assert deadline_columns(report) == ()


def test_plan_from_the_command_line_with_an_objective(tmp_path):
    path = tmp_path / "w.yaml"
    two_jobs().to_file(path)
    cluster = tmp_path / "c.yaml"
    ONE_NODE.to_file(cluster)
    result = CliRunner().invoke(app, ["plan", str(path), "-c", str(cluster), "-k", "1", "--objective",
                                      "max_lateness", "--window", "300", "--json"])
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)["plan"]
    assert (plan["objective"], plan["window"], plan["ready_now"], plan["ordering_status"]) == (
        "max_lateness", 300.0, False, "optimal")
    assert plan["order"] == "a, b"
    bad = CliRunner().invoke(app, ["plan", str(path), "-c", str(cluster), "--window", "-5"])
    assert bad.exit_code == 2 and "--window" in bad.output


def test_the_task_floor_counts_from_the_arrival():
    """examples/nightly.yaml: train-ctr arrives 600 s after the first job and needs a 90 s map and a
    200 s reduce, so nothing ends before 890 s; the fluid model predicts 655 s and is told so."""
    from models import TaskFloorWarning

    workload = Workload.from_file(ROOT / "examples" / "nightly.yaml")
    cluster = Cluster.from_file(ROOT / "examples" / "cluster.yaml")
    with pytest.warns(TaskFloorWarning, match=r"train-ctr alone needs at least 290 s .* after it arrives at 600 s, "
                                              r"so nothing ends before 890 s"):
        make_plan(workload, cluster)


def test_large_batches_are_ordered_by_the_list_rule_and_slots_keeps_submission_order():
    """Over 200 jobs the exact search is not tried (it grows as n^3): Johnson's rule among the
    released jobs, with the two-stage model's lower bound: "optimal" only where the order meets it
    (here the map stage's load decides the makespan, and the list rule meets the bound), the method
    says it is a heuristic; "slots" minimizes only the makespan."""
    from planner.planning.arrivals import EXACT_ORDER_JOBS

    rng = np.random.default_rng(0)
    day = Workload([Job(f"j{i}", int(rng.integers(1, 50)), int(rng.integers(0, 10)), float(rng.uniform(5, 60)),
                        float(rng.uniform(5, 60)), submit=float(rng.uniform(0, 3600)))
                    for i in range(EXACT_ORDER_JOBS + 50)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan = make_plan(day, Cluster(nodes=100, racks=4), "johnson", time_limit=5)
    ordering = plan.ordering
    assert "johnson-list (heuristic over 200 jobs" in ordering["method"] and ordering["bound"] is not None
    assert (ordering["status"] == "optimal") == (ordering["value"] <= ordering["bound"] * (1 + 1e-9))
    with pytest.raises(InvalidInput, match="objective: \"slots\" \\(submission order\\) plans minimize the makespan"):
        make_plan(two_jobs(), ONE_NODE, "slots", objective="max_lateness")
