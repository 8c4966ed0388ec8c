"""Plans: strategies, files, fingerprints, and `planner plan`."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner

from models import Cluster, InvalidInput, Job, TaskFloorWarning, Workload
from models.profiles import DerivedProfileWarning
from planner.cli.main import app
from planner.planning.make import make_plan
from planner.plans.plan import Plan
from solvers import configure_slots, johnson_order

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def batch() -> tuple[Workload, Cluster]:
    """Two jobs on one node of 1 map + 1 reduce slot (S = 2), submitted long-map first.
    Submission order a, b (k = 1): a maps 0-100, reduces 100-110 while b maps 100-110, b reduces
    110-210: 210 s. Johnson on (100, 10) and (10, 100) puts b first: 120 s when both are ready
    at 0 (see test_slots); b arrives at 5, so b maps 5-15 and reduces 15-115 while a maps 15-115,
    then a reduces 115-125: 125 s with the arrivals."""
    workload = Workload([Job("a", 1, 1, 100, 10), Job("b", 1, 1, 10, 100, submit=5)], name="two")
    return workload, Cluster(nodes=1, map_slots=1, reduce_slots=1)


def test_strategies_by_hand():
    workload, cluster = batch()
    slots = make_plan(workload, cluster, "slots", k=1)
    assert slots.order == ("a", "b") and slots.predicted_makespan == 210.0 == slots.baseline_makespan
    johnson = make_plan(workload, cluster, "johnson", k=1)
    assert johnson.order == ("b", "a") and johnson.predicted_makespan == 125.0 and not johnson.ready_now
    assert johnson.ordering["status"] == "optimal" and johnson.ordering["value"] == 125.0
    assert (johnson.map_slots, johnson.reduce_slots) == (1, 1)
    both = make_plan(workload, cluster, "slots+johnson", k=1)
    assert both.order == ("b", "a") and both.predicted_makespan == 125.0
    assert both.summary()["predicted_gain"] == pytest.approx(1 - 125 / 210)
    now = make_plan(workload, cluster, "slots+johnson", k=1, ready_now=True)
    assert now.order == ("b", "a") and now.predicted_makespan == 120.0 and now.ready_now and now.ordering is None


def test_submission_order_sorts_by_submit_time():
    workload = Workload([Job("late", 1, 0, 5, submit=50), Job("early", 1, 0, 5, submit=0)])
    assert make_plan(workload, Cluster(nodes=1), "slots").order == ("early", "late")


def test_slots_plan_matches_configure_slots_on_a_real_trace(data_dir):
    from planner.io.swim import read_swim

    workload = read_swim(data_dir / "FB-2009_samples_24_times_1hr_0_first50jobs.tsv")
    cluster = Cluster(nodes=20)
    plan = make_plan(workload, cluster, "slots+johnson", k=5, ready_now=True)
    jobs = list(workload)
    # Johnson on the stage times of the cluster as configured (40 map and 40 reduce slots)
    expected_order = johnson_order([j.map_work / 40 for j in jobs], [j.reduce_work / 40 for j in jobs])
    best = configure_slots(jobs, 80, 5, order=expected_order.tolist())
    assert plan.order == tuple(jobs[i].name for i in expected_order)
    assert (plan.map_slots, plan.predicted_makespan) == (best.map_slots, best.makespan)
    assert len(plan.curve) == 79 and min(plan.curve) == plan.predicted_makespan
    assert sum(plan.node_map_slots(20)) == plan.map_slots


def test_node_map_slots_spread_evenly():
    plan = make_plan(*batch(), "slots", k=1)
    assert Plan(**{**plan.__dict__, "map_slots": 7}).node_map_slots(3) == [3, 2, 2]


def test_plan_file_round_trip_and_fingerprints(tmp_path):
    workload, cluster = batch()
    plan = make_plan(workload, cluster, k=1)
    plan.to_file(tmp_path / "plan.json")
    again = Plan.from_file(tmp_path / "plan.json")
    assert again == plan and again.matches(workload, cluster)
    assert not again.matches(workload, cluster.with_changes(nodes=2))
    assert not again.matches(Workload([*workload, Job("c", 1, 0, 1)]), cluster)


@pytest.mark.parametrize(
    ("change", "message"),
    [({"k": 0}, "k: must be >= 1"), ({"strategy": "magic"}, "strategy: must be one of"),
     ({"order": ["a", "a"]}, "order: names a job twice"), ({"extra": 1}, "extra: unknown key"),
     ({"version": 9}, "version: this batchplan reads plan versions 1 to 7, got 9"),
     ({"phases": [["a", 1, "primary"]]}, r"phases\[0\]\[0\]: must be \[job, vms, role\], got 'a'"),
     ({"phases": [[["a", 1, "primary"], ["b", 1, "primary"]]]}, "phases: a slots\\+johnson plan has no phases")],
)
def test_plan_file_errors(tmp_path, change, message):
    data = make_plan(*batch(), k=1).to_dict() | change
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InvalidInput, match=message) as caught:
        Plan.from_file(path)
    assert str(caught.value).startswith(str(path))


def test_plan_needs_json_and_valid_options(tmp_path):
    workload, cluster = batch()
    with pytest.raises(InvalidInput, match="plans are JSON files"):
        make_plan(workload, cluster).to_file(tmp_path / "plan.yaml")
    with pytest.raises(InvalidInput, match="k: must be >= 1"):
        make_plan(workload, cluster, k=0)
    with pytest.raises(InvalidInput, match="strategy: must be one of slots, johnson, slots\\+johnson, pairs, packing"):
        make_plan(workload, cluster, "magic")
    with pytest.warns(DerivedProfileWarning, match=r"have no runtime profile; derived from their tasks"):
        assert make_plan(workload, cluster, "pairs").phases  # jobs without a profile get the wave model's


def test_cli_plan_writes_file_and_json(tmp_path):
    out = tmp_path / "plan.json"
    result = CliRunner().invoke(app, ["plan", str(EXAMPLES / "nightly.yaml"), "--cluster", str(EXAMPLES / "cluster.yaml"),
                                      "--strategy", "slots+johnson", "-k", "2", "-o", str(out), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)["plan"]
    plan = Plan.from_file(out)
    assert summary["map_slots"] == plan.map_slots and plan.k == 2
    assert plan.map_slots + plan.reduce_slots == 80
    assert plan.matches(Workload.from_file(EXAMPLES / "nightly.yaml"), Cluster.from_file(EXAMPLES / "cluster.yaml"))


def test_cli_plan_bad_cluster_exits_2(tmp_path):
    completed = subprocess.run(
        [sys.executable, "-m", "planner", "plan", str(EXAMPLES / "nightly.yaml"), "--cluster", str(EXAMPLES / "nightly.yaml")],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert completed.returncode == 2
    (line,) = completed.stderr.strip().splitlines()
    assert line.startswith("error: ") and "nightly.yaml: name: unknown key" in line


def test_slot_plans_carry_bound_and_gap():
    workload, cluster = batch()
    both = make_plan(workload, cluster, "slots+johnson", k=1)
    assert (both.bound, both.gap, both.phases) == (125.0, 0.0, ())
    johnson = make_plan(workload, cluster, "johnson", k=1)
    assert (johnson.bound, johnson.gap) == (None, None)  # the split is the cluster's, not searched
    assert both.summary()["phases"] == 0 and both.phase_records() == []


def test_cli_plan_packing_prints_phase_table_and_writes_file(tmp_path):
    """The README's example: every job of examples/nightly.yaml has a profile."""
    out = tmp_path / "plan.json"
    result = CliRunner().invoke(app, ["plan", str(EXAMPLES / "nightly.yaml"), "--cluster", str(EXAMPLES / "cluster.yaml"),
                                      "--strategy", "packing", "--solver", "milp", "--time-limit", "30", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "phases of nightly.yaml" in result.stdout and "role" in result.stdout
    workload = Workload.from_file(EXAMPLES / "nightly.yaml")
    cluster = Cluster.from_file(EXAMPLES / "cluster.yaml")
    plan = Plan.from_file(out)
    assert plan.strategy == "packing" and plan.matches(workload, cluster) and plan.phases
    assert all(name in result.stdout for name in workload.names)
    assert plan.evaluate_phases(workload, cluster) == pytest.approx(plan.predicted_makespan)
    assert plan.predicted_makespan < plan.baseline_makespan
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.json"]  # written atomically: no temp file left


def test_cli_plan_pairs_json_has_phases(tmp_path):
    result = CliRunner().invoke(app, ["plan", str(EXAMPLES / "nightly.yaml"), "-c", str(EXAMPLES / "cluster.yaml"),
                                      "--strategy", "pairs", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    summary, rows = data["plan"], data["phases"]
    assert summary["phases"] == len({r["phase"] for r in rows}) and len(rows) == 5
    assert {r["role"] for r in rows} <= {"primary", "host", "extra"}


def test_cli_plan_bad_solver_writes_nothing(tmp_path):
    out = tmp_path / "plan.json"
    result = CliRunner().invoke(app, ["plan", str(EXAMPLES / "nightly.yaml"), "-c", str(EXAMPLES / "cluster.yaml"),
                                      "--strategy", "packing", "--solver", "magic", "-o", str(out)])
    assert result.exit_code == 2
    assert "error: --solver: unknown packing method 'magic'; choose from" in result.stderr
    assert not out.exists()


def test_make_plan_is_served_by_the_package():
    """`from planner import make_plan, Plan` (the documented names) is the same function and class as
    planner.planning.make's and planner.plans.plan's, loaded on first use."""
    import planner
    import planner.planning.make
    import planner.plans.plan

    assert planner.make_plan is planner.planning.make.make_plan and planner.Plan is planner.plans.plan.Plan
    with pytest.raises(AttributeError, match="no_such_name"):
        planner.no_such_name  # noqa: B018


def test_a_prediction_below_one_jobs_own_tasks_warns():
    """Job "long" runs one 500 s map then one 100 s reduce: no schedule ends before 600 s. Ten
    short jobs spread the fluid model's work over 16 slots, and it predicts less: a warning names
    the job and its floor; a batch without such a job plans silently."""
    short = [Job(f"s{i}", 8, 2, 10.0, 10.0) for i in range(10)]
    cluster = Cluster(nodes=4)
    with pytest.warns(TaskFloorWarning, match=r"job long alone needs at least 600 s \(a 500 s map, then a 100 s"):
        plan = make_plan(Workload([*short, Job("long", 1, 1, 500.0, 100.0)]), cluster)
    assert plan.predicted_makespan < 600
    with warnings.catch_warnings():
        warnings.simplefilter("error", TaskFloorWarning)
        make_plan(Workload(short), cluster)


def test_the_fb_2010_slice_warns_about_job53():
    """docs/plans.md: the FB-2010 day's first 300 s (77 jobs) on 100 nodes in 4 racks, imported
    without the output split: the plan predicts 2,004 s (from the first arrival; 1,984 s all
    ready at 0), but job53, map-only, writes 97 GiB from its one map of 4,959 s. Split (the
    default), job53 has 775 maps of 11 s and nothing warns."""
    from planner import read_swim

    trace = Path(__file__).parent / "data" / "FB-2010_samples_24_times_1hr_0_first300s.tsv"
    workload = read_swim(trace, split_output=False)
    assert len(workload) == 77
    with pytest.warns(TaskFloorWarning, match=r"predicts 2,004 s, but job job53 alone needs at least 4,959 s \(a 4,959 s map\) after it arrives at 182 s"):
        make_plan(workload, Cluster(nodes=100, racks=4))
    split = read_swim(trace)
    assert next(job.map_tasks for job in split if job.name == "job53") == 775
    with warnings.catch_warnings():
        warnings.simplefilter("error", TaskFloorWarning)
        make_plan(split, Cluster(nodes=100, racks=4))
