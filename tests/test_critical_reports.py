"""Reports of a batch with dependencies: the critical path and each job's slack (the model's and a
simulated run's, `planner.proof.critical`), the Gantt chart with its dependency arrows
(`planner.plots.plot_jobs`), and which job most often delays the end over validation runs.

The hand-worked batch (`HAND`, on 4 slots; a job alone there, `solvers.bounds.alone`, takes
ceil(maps / 4) map waves then ceil(reduces / 4) reduce waves):

====  ========================  ================  =================================
job   tasks                     alone on 4 slots  waits for
====  ========================  ================  =================================
a     8 maps x 10, 4 red. x 20  2x10 + 1x20 = 40  -
b     4 maps x 5                1x5 = 5           a
c     2 maps x 30, 2 red. x 10  30 + 10 = 40      a, 10 s after it finishes
d     4 maps x 10               10                b, c
e     12 maps x 10 (submit 15)  3x10 = 30         -
====  ========================  ================  =================================

Model, forwards: a 0-40; b 40-45; c from 40 + 10 = 50 to 90; d from max(45, 90) = 90 to 100,
held by c; e 15-45. The end is 100. Backwards: d's latest finish 100; b's and c's 100 - 10 = 90
(slack 45 and 0); a's min(90 - 5, 90 - 40 - 10) = 40 (slack 0); e's 100 (slack 55). The critical
path: d, held by c, held by a: a -> c -> d, 100 s (no schedule of the batch ends sooner).

Simulated, from a run's records (`RUN`; ready, start, finish):
a 0, 0, 50; b 50, 55, 60 (held by a); c 60, 62, 110 (a's finish + 10); d 110, 112, 130 (held by
c); e 15, 20, 70. Spans from ready to finish: a 50, b 10, c 50, d 20, e 55; the end 130.
Backwards: d 130; b and c 130 - 20 = 110 (slack 50 and 0); a min(110 - 10, 110 - 50 - 10) = 50
(slack 0); e 130 (slack 60). The chain: d (the last to finish), held by c, held by a; its waits
for a slot 0 + 2 + 2 = 4 s.
"""

from __future__ import annotations

import json
import warnings
from itertools import pairwise
from pathlib import Path

import pytest

from models import Cluster, InvalidInput, Job, Workload
from models.errors import TaskFloorWarning
from planner.planning.make import make_plan
from planner.planning.report import critical_sections, plan_critical_path
from planner.proof.critical import (
    chain_counts,
    chain_summary,
    critical_path,
    model_slack,
    simulated_chain,
    simulated_slack,
)
from planner.proof.validate import example_run, validate
from planner.simulator import Fifo, simulate
from tests.support.cli import planner

ROOT = Path(__file__).resolve().parent.parent
PIPELINES = ROOT / "tests" / "data" / "pipelines-demo.yaml"
CLUSTER = ROOT / "examples" / "cluster.yaml"
NIGHTLY = ROOT / "examples" / "nightly.yaml"

HAND = Workload([
    Job("a", 8, 4, 10.0, 20.0),
    Job("b", 4, 0, 5.0, 0.0, after=("a",)),
    Job("c", 2, 2, 30.0, 10.0, after=({"job": "a", "delay": 10},)),
    Job("d", 4, 0, 10.0, 0.0, after=("b", "c")),
    Job("e", 12, 0, 10.0, 0.0, submit=15.0),
], name="hand")

RUN = [
    {"name": "a", "submit": 0.0, "ready": 0.0, "start": 0.0, "finish": 50.0, "held_by": None},
    {"name": "b", "submit": 0.0, "ready": 50.0, "start": 55.0, "finish": 60.0, "held_by": "a"},
    {"name": "c", "submit": 0.0, "ready": 60.0, "start": 62.0, "finish": 110.0, "held_by": "a"},
    {"name": "d", "submit": 0.0, "ready": 110.0, "start": 112.0, "finish": 130.0, "held_by": "c"},
    {"name": "e", "submit": 15.0, "ready": 15.0, "start": 20.0, "finish": 70.0, "held_by": None},
]


def _by_job(records):
    return {record["job"]: record for record in records}


def test_the_models_slack_by_hand():
    found = _by_job(model_slack(HAND, 4))
    assert [found[j]["duration"] for j in "abcde"] == [40, 5, 40, 10, 30]
    assert [(found[j]["earliest_start"], found[j]["earliest_finish"]) for j in "abcde"] == [
        (0, 40), (40, 45), (50, 90), (90, 100), (15, 45)]
    assert [found[j]["latest_finish"] for j in "abcde"] == [40, 90, 90, 100, 100]
    assert [found[j]["slack"] for j in "abcde"] == [0, 45, 0, 0, 55]
    assert [found[j]["held_by"] for j in "abcde"] == [None, "a", "a", "c", None]
    assert [j for j in "abcde" if found[j]["critical"]] == ["a", "c", "d"]


def test_a_ready_now_model_starts_every_job_at_zero():
    found = _by_job(model_slack(HAND, 4, ready_now=True))
    assert (found["e"]["earliest_start"], found["e"]["earliest_finish"], found["e"]["slack"]) == (0, 30, 70)


def test_the_simulated_chain_and_slack_by_hand():
    assert simulated_chain(RUN) == ["a", "c", "d"]
    found = _by_job(simulated_slack(RUN, HAND.precedence))
    assert [found[j]["latest_finish"] for j in "abcde"] == [50, 110, 110, 130, 130]
    assert [found[j]["slack"] for j in "abcde"] == [0, 50, 0, 0, 60]
    assert [found[j]["wait"] for j in "abcde"] == [0, 5, 2, 2, 5]
    assert [j for j in "abcde" if found[j]["critical"]] == ["a", "c", "d"]


def test_both_figures_side_by_side():
    path = critical_path(HAND, 4, RUN)
    assert path.summary == {"model_path": "a -> c -> d", "model_end": 100, "model_length": 100,
                            "model_estimate": "each job alone on all 4 slots (its map waves, then its reduce waves)",
                            "simulated_path": "a -> c -> d", "simulated_end": 130, "simulated_waiting": 4}
    record = _by_job(path.jobs)["b"]
    assert (record["model_slack"], record["simulated_slack"], record["simulated_held_by"]) == (45, 50, "a")
    assert [r["job"] for r in path.least_slack(3)] == ["a", "c", "d"]  # no slack, in the batch's order
    model_only = critical_path(HAND, 4)
    assert model_only.summary["simulated_path"] is None and _by_job(model_only.jobs)["b"]["simulated_slack"] is None
    assert chain_summary(model_slack(HAND, 4), None, 4)["model_length"] == 100


def test_the_chain_refuses_runs_without_holds():
    with pytest.raises(InvalidInput, match="held_by"):
        simulated_chain([{"name": "a", "finish": 1.0}])
    with pytest.raises(InvalidInput, match="not a job of this run"):
        simulated_chain([{"name": "a", "finish": 1.0, "held_by": "z"}])
    with pytest.raises(InvalidInput, match="missing"):
        simulated_slack(RUN[:4], HAND.precedence)


def test_chain_counts_by_hand():
    """Four runs: a on 3 chains, d on 3 (last in 3), c on 2 (held the last job in 2), b and e on 1;
    order: most often on a chain, then most often binding, then the name."""
    records = chain_counts([["a", "c", "d"], ["a", "c", "d"], ["e"], ["a", "b", "d"]])
    assert [r["job"] for r in records] == ["a", "d", "c", "b", "e"]
    found = _by_job(records)
    assert (found["a"]["on_chain"], found["a"]["on_chain_share"]) == (3, 0.75)
    assert (found["c"]["binding_last"], found["c"]["binding_last_share"]) == (2, 0.5)
    assert (found["d"]["last"], found["d"]["last_share"], found["e"]["last"]) == (3, 0.75, 1)
    assert chain_counts([]) == []


@pytest.fixture(scope="module")
def pipelines():
    return Workload.from_file(PIPELINES), Cluster.from_file(CLUSTER)


@pytest.fixture(scope="module")
def simulated(pipelines):
    workload, cluster = pipelines
    return simulate(workload, cluster, Fifo(), seed=0)


def test_a_simulated_runs_chain_holds_its_jobs(pipelines, simulated):
    """The chain ends at the last job to finish, each of its jobs was held by the one before, and
    has no slack; every dependency leaves each job's latest finish no earlier than its finish."""
    workload, _ = pipelines
    jobs = {record["name"]: record for record in simulated.jobs}
    chain = simulated_chain(simulated.jobs)
    assert jobs[chain[-1]]["finish"] == max(r["finish"] for r in simulated.jobs)
    assert jobs[chain[0]]["held_by"] is None
    assert all(jobs[after]["held_by"] == before for before, after in pairwise(chain))
    assert len(chain) >= 3  # the demo's pipelines are deep
    found = _by_job(simulated_slack(simulated.jobs, workload.precedence))
    assert all(found[name]["slack"] == 0 for name in chain)
    assert all(record["slack"] >= 0 for record in found.values())
    for job in workload:
        for dependency in job.after:
            assert found[dependency.job]["latest_finish"] <= found[job.name]["latest_finish"] - (
                jobs[job.name]["finish"] - jobs[job.name]["ready"]) - dependency.delay + 1e-6


def test_the_model_is_a_lower_bound_of_the_run(pipelines, simulated):
    workload, cluster = pipelines
    path = critical_path(workload, cluster.total_slots, simulated.jobs)
    assert path.summary["model_length"] <= simulated.makespan
    assert path.summary["model_path"].split(" -> ")[-1] in {r["job"] for r in path.jobs}


def _arrows(ax):
    return [patch for patch in ax.patches if patch.get_gid() == "dependency"]


def test_the_gantt_draws_one_arrow_per_dependency(simulated):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from planner.plots import PLAN, plot_gantt, plot_jobs

    assert len(simulated.dependencies) == 13
    ax = plot_gantt(simulated, Figure().add_subplot())  # a batch with dependencies: jobs as rows
    assert len(_arrows(ax)) == 13
    names = [label.get_text() for label in ax.get_yticklabels()]
    assert sorted(names) == sorted(simulated.job_names)
    chain = simulated_chain(simulated.jobs)
    red = [arrow for arrow in _arrows(ax) if matplotlib.colors.to_rgb(arrow.get_edgecolor()) == matplotlib.colors.to_rgb(PLAN)]
    assert len(red) == len(chain) - 1  # the chain's own dependencies
    few = plot_jobs(simulated, Figure().add_subplot(), max_jobs=5)
    shown = {label.get_text() for label in few.get_yticklabels()}
    assert len(shown) == 5 and set(chain) <= shown  # the chain's jobs first
    between = [edge for edge in simulated.dependencies if edge[0] in shown and edge[1] in shown]
    assert len(_arrows(few)) == len(between)
    slots = simulated.plot_gantt(Figure().add_subplot(), rows="slots")
    assert _arrows(slots) == [] and slots.get_ylabel() == "slot"
    assert simulated.plot_gantt(Figure().add_subplot()).get_ylabel() == "job"
    with pytest.raises(InvalidInput, match="rows"):
        plot_gantt(simulated, Figure().add_subplot(), rows="nodes")
    with pytest.raises(InvalidInput, match="max_jobs"):
        plot_jobs(simulated, Figure().add_subplot(), max_jobs=0)


def test_a_run_without_dependencies_keeps_its_slot_chart():
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    batch = Workload([job.with_changes(after=()) for job in HAND], name="flat")
    result = simulate(batch, Cluster.from_file(CLUSTER), Fifo(), seed=0)
    assert result.dependencies == ()
    assert result.plot_gantt(Figure().add_subplot()).get_ylabel() == "slot"


@pytest.fixture(scope="module")
def pipeline_plan(pipelines):
    workload, cluster = pipelines
    with warnings.catch_warnings():  # the fluid model may not see adhoc-audit's long tasks
        warnings.simplefilter("ignore", TaskFloorWarning)
        return make_plan(workload, cluster, "slots")


def test_the_plans_critical_path(pipelines, pipeline_plan):
    workload, cluster = pipelines
    example = example_run(pipeline_plan, workload, cluster)
    path = plan_critical_path(pipeline_plan, workload, cluster, example=example)
    assert path == plan_critical_path(pipeline_plan, workload, cluster)  # the same run, seed 0
    # the model, each job alone on 80 slots: ingest-clicks (submit 60) 3 x 25 + 1 x 50 = 125 s, sessionize
    # 30 + 120 = 150, features 2 x 35 + 70 = 140, train 60 + 300 = 360 after a 120 s copy, score 15 + 30 = 45
    assert path.summary["model_path"] == "ingest-clicks -> sessionize -> features -> train -> score"
    assert path.summary["model_end"] == 60 + 125 + 150 + 140 + 120 + 360 + 45
    assert path.summary["simulated_path"].endswith("train -> score")
    assert path.summary["simulated_end"] == max(r["finish"] for r in example.jobs)
    keys, _, records, one = zip(*critical_sections(path, shown=4), strict=True)
    assert keys == ("critical", "slack") and one == (True, False) and len(records[1]) == 4


def test_validation_counts_the_chains(pipelines, pipeline_plan, tmp_path):
    workload, cluster = pipelines
    report = validate(pipeline_plan, workload, cluster, runs=3, curve_splits=0, executor="serial")
    records = report.critical_jobs
    assert records and records[0]["job"] in {"train", "score", "features", "sessionize", "ingest-clicks"}
    assert sum(r["last"] for r in records) == 3  # one last job a run
    assert sum(r["binding_last"] for r in records) <= 3
    assert all(r["on_chain_share"] == r["on_chain"] / 3 for r in records)
    assert all("chain" not in sample and "finishes" not in sample for sample in report.samples)
    assert json.loads(report.to_json())["critical_jobs"] == records
    from planner.proof.report import write_report

    written = write_report(report, tmp_path / "report", example=example_run(pipeline_plan, workload, cluster))
    text = written["markdown"].read_text()
    assert "## Which jobs delay the end" in text and f"| {records[0]['job']} | {records[0]['on_chain']} |" in text
    assert "the simulated critical chain in red" in text


def test_no_dependencies_no_critical_sections(tmp_path):
    workload, cluster = Workload.from_file(NIGHTLY), Cluster.from_file(CLUSTER)
    with pytest.warns(TaskFloorWarning):  # nor train-ctr's
        plan = make_plan(workload, cluster, "slots")
    report = validate(plan, workload, cluster, runs=2, curve_splits=0, executor="serial")
    assert report.critical_jobs == []
    status, out, _ = planner("plan", NIGHTLY, "-c", CLUSTER, "--strategy", "slots", "--json")
    assert status == 0 and list(json.loads(out)) == ["plan", "phases", "timings"]


def test_the_command_line_prints_both_figures(tmp_path):
    status, out, err = planner("plan", PIPELINES, "-c", CLUSTER, "--strategy", "slots", "--json",
                               "-o", tmp_path / "plan.json")
    assert status == 0, err
    parsed = json.loads(out)
    assert list(parsed) == ["plan", "phases", "critical", "slack", "timings"]
    assert parsed["critical"]["model_path"] == "ingest-clicks -> sessionize -> features -> train -> score"
    assert len(parsed["slack"]) == 14 and list(parsed["slack"][0])[:2] == ["job", "model_duration"]
    status, out, err = planner("plan", PIPELINES, "-c", CLUSTER, "--strategy", "slots")
    assert status == 0 and "critical path: the model's" in out and "simulated" in out
    status, out, err = planner("validate", PIPELINES, "-c", CLUSTER, "-p", tmp_path / "plan.json", "--runs", 2,
                               "--executor", "serial", "--json")
    assert status == 0, err
    parsed = json.loads(out)
    assert list(parsed) == ["validation", "setups", "paired", "jobs", "critical", "timings"]
    assert sum(r["last"] for r in parsed["critical"]) == 2


def test_a_plan_for_a_target_prints_both_figures_too():
    status, out, err = planner("plan", PIPELINES, "-c", CLUSTER, "--target", "yarn-fair", "--runs", 2,
                               "--executor", "serial", "--json")
    assert status == 0, err
    parsed = json.loads(out)
    assert list(parsed) == ["plan", "setups", "comparisons", "jobs", "critical", "slack", "timings"]
    assert parsed["critical"]["model_end"] == 1000  # the model's does not depend on the plan
    chain = [r["job"] for r in parsed["slack"] if r["simulated_critical"]]
    assert chain and all(r["simulated_slack"] == 0 for r in parsed["slack"] if r["simulated_critical"])
