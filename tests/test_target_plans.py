"""Plans for a target (`plan_for_target`): chosen by simulating the configuration as exported,
never worse than the configuration as it is, proven by `validate` with the same number."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from models import Cluster, InvalidInput, Job, Workload
from planner.cli.main import app
from planner.examples.demo import nightly_batch
from planner.io.hadoop.merge import config_diff, default_config, deployed_run, merged_files, read_current
from planner.io.targets import export_plan
from planner.planning.deploy import decide, plan_for_target, proposals, small_queue_candidates
from planner.planning.make import make_plan
from planner.plans.levers import Levers
from planner.plans.plan import Plan
from planner.proof.deployed import Measured
from planner.proof.validate import validate

DATA = Path(__file__).resolve().parent / "data" / "hadoop-conf"
runner = CliRunner()
SMALL = Cluster(nodes=4, map_slots=2, reduce_slots=2, racks=1)


@pytest.fixture(scope="module")
def batch() -> Workload:
    """Twelve FB-2009 jobs, in two pools, on 16 slots: enough contention for orders to matter."""
    jobs = [job.with_changes(pool="etl" if i % 2 else "reports") for i, job in enumerate(list(nightly_batch())[:12])]
    return Workload(jobs, name="twelve")


@pytest.fixture(scope="module")
def response_plan(batch) -> Plan:
    return plan_for_target(batch, SMALL, "yarn-fair", objective="mean_response", ready_now=True, runs=4,
                           executor="serial")


def test_the_recommendation_beats_the_configuration_run_for_run(response_plan) -> None:
    simulated = response_plan.simulated
    assert not simulated["keep"] and response_plan.status == "improved"
    configured = next(r for r in simulated["comparisons"] if r["against"] == "as configured")
    assert configured["verdict"] == "plan better" and configured["ci_low"] > 0
    # no baseline beats it run for run
    assert all(r["verdict"] != "plan worse" for r in simulated["comparisons"])
    chosen = next(r for r in simulated["candidates"] if r["setup"] == simulated["chosen"])
    # the best of the first round (a slow-start variant replaces it only when it pays: MIN_GAIN)
    first_round = [r["mean"] for r in simulated["candidates"] if "slow-start" not in r["setup"]]
    assert chosen["mean"] == simulated["mean"] <= min(first_round)
    assert simulated["mean"] >= simulated["bounds"]["mean_response"]
    assert response_plan.predicted_makespan >= simulated["bounds"]["makespan"]
    assert {r["job"] for r in simulated["jobs"]} == {job.name for job in nightly_batch()[:12]}
    # the target's own levers were tried: slow-starts and running-application limits
    names = {r["setup"] for r in simulated["candidates"]}
    assert any("slow-start" in name for name in names) and any("at most 2 running" in name for name in names)


def test_the_plans_number_is_validations_mean(response_plan, batch) -> None:
    """One number, one meaning: the same target, runs, noise and seed give the same mean."""
    report = validate(response_plan, batch, SMALL, runs=4, executor="serial")
    assert report.kind == "target" and report.metric == "arrival_response"
    assert report.planned["mean"] == response_plan.simulated["mean"]
    assert report.planned["error"] is None and report.planned["predicted"] == response_plan.simulated["mean"]
    assert {r["setup"] for r in report.setup("baseline")} == {"as configured", "FIFO on yarn-fair",
                                                               "Fair on yarn-fair"}
    assert len(report.jobs_outcome) == len(batch)


def test_the_export_is_the_plan_and_its_folder_validates_the_same(response_plan, batch, tmp_path) -> None:
    folder = tmp_path / "export"
    names = export_plan(response_plan, batch, SMALL, "yarn-fair", folder)
    assert {"submissions.tsv", "submit.sh", "changes.diff", "fair-scheduler.xml"} <= set(names)
    assert (folder / "changes.diff").read_text()  # the plan changes something
    from_folder = validate(response_plan, batch, SMALL, runs=4, executor="serial", hadoop_conf=[folder])
    plan_row = from_folder.planned
    assert plan_row["setup"].endswith("as exported)") and plan_row["mean"] == response_plan.simulated["mean"]
    # another plan's folder is refused, naming the first job that differs
    other = plan_for_target(batch, SMALL, "yarn-fair", objective="makespan", ready_now=True, runs=2,
                            executor="serial")
    assert other.levers.submits != response_plan.levers.submits
    with pytest.raises(InvalidInput, match="is not this plan's export: job"):
        validate(other, batch, SMALL, runs=2, executor="serial", hadoop_conf=[folder])
    with pytest.raises(InvalidInput, match="is not an export for mrv1"):
        validate(plan_for_target(batch, SMALL, "mrv1", ready_now=True, runs=2, executor="serial"), batch, SMALL,
                 runs=2, executor="serial", hadoop_conf=[folder])


def test_plan_files_keep_the_target_fields(response_plan, tmp_path) -> None:
    from planner.io.hadoop.applied import HADOOP_TARGETS
    from planner.plans.files import TARGETS

    assert (*HADOOP_TARGETS, "spark") == TARGETS
    path = tmp_path / "plan.json"
    response_plan.to_file(path)
    again = Plan.from_file(path)
    assert again == response_plan
    data = json.loads(path.read_text())
    data["strategy"], data["objective"] = "johnson", "makespan"
    (tmp_path / "bad.json").write_text(json.dumps(data))
    with pytest.raises(InvalidInput, match="only a 'target' plan"):
        Plan.from_file(tmp_path / "bad.json")
    for change, message in (({"target": "spark-ish"}, "target: must be one of"),
                            ({"simulated": {"runs": 3}}, "simulated.objective: is required"),
                            ({"simulated": {**response_plan.simulated, "runs": "x"}}, "simulated.runs")):
        data = json.loads(path.read_text()) | change
        (tmp_path / "bad.json").write_text(json.dumps(data))
        with pytest.raises(InvalidInput, match=message):
            Plan.from_file(tmp_path / "bad.json")


def test_nothing_to_gain_keeps_the_configuration_and_changes_nothing(tmp_path) -> None:
    """One job alone: every candidate runs it the same way."""
    alone = Workload([Job("only", 8, 2, 10.0, 20.0)], name="one")
    plan = plan_for_target(alone, SMALL, "yarn-capacity", runs=3, executor="serial")
    assert plan.simulated["keep"] and plan.status == "keep"
    assert plan.levers is not None and plan.levers.changes_nothing
    assert "keep your configuration" in plan.simulated["reason"]
    current = default_config("yarn-capacity", SMALL)
    files = merged_files(current, plan.levers, alone, SMALL, "yarn-capacity")
    assert config_diff(current, files) == ""


def test_jobs_map_to_the_operators_capacity_queues(batch) -> None:
    conf = [DATA / "capacity-scheduler.xml"]
    with pytest.raises(InvalidInput, match=r"no queue named 'reports'.*sls_queue_1"):
        plan_for_target(batch, SMALL, "yarn-capacity", hadoop_conf=conf, ready_now=True, runs=2, executor="serial")
    plan = plan_for_target(batch, SMALL, "yarn-capacity", hadoop_conf=conf, ready_now=True, runs=2,
                           executor="serial", queue_map={"etl": "sls_queue_1", "*": "sls_queue_2"})
    assert set(plan.levers.queues.values()) == {"sls_queue_1", "sls_queue_2"}
    with pytest.raises(InvalidInput, match="'etl_typo' is neither a job nor a pool"):
        plan_for_target(batch, SMALL, "yarn-capacity", hadoop_conf=conf, ready_now=True, runs=2,
                        executor="serial", queue_map={"etl_typo": "sls_queue_1", "*": "sls_queue_2"})
    assert plan.config_fingerprint == read_current(conf).fingerprint
    with pytest.raises(InvalidInput, match=r"the plan was made from .*capacity-scheduler\.xml: give those files"):
        validate(plan, batch, SMALL, runs=2, executor="serial")
    with pytest.raises(InvalidInput, match="not the configuration the plan was made from"):
        validate(plan, batch, SMALL, runs=2, executor="serial", hadoop_conf=[DATA / "yarn-fair-scheduler.xml"])


def test_mrv1_plans_may_split_the_slots_and_label_the_models_figure(batch) -> None:
    plan = plan_for_target(batch, SMALL, "mrv1", ready_now=True, runs=3, executor="serial")
    splits = [r for r in plan.simulated["candidates"] if r["model_makespan"] is not None]
    assert splits  # the fluid model proposed a split other than the cluster's 8:8
    for record in splits:  # only the split it proposed carries the model's own figure
        assert record["setup"].startswith("Johnson order, ") and record["setup"].endswith(" slots")
    assert any(r["setup"] == "Fair" for r in plan.simulated["candidates"])


def test_a_window_before_the_bound_is_refused_naming_it(batch) -> None:
    with pytest.raises(InvalidInput, match="work bound"):
        plan_for_target(batch, SMALL, "yarn-fair", objective="window", window=10.0, ready_now=True, runs=2)
    with pytest.raises(InvalidInput, match="no schedule finishes the batch by then"):
        make_plan(batch, SMALL, "johnson", objective="max_lateness", window=10.0, ready_now=True)


def test_deadline_objectives_need_due_dates(batch) -> None:
    with pytest.raises(InvalidInput, match="needs due dates"):
        plan_for_target(batch, SMALL, "yarn-fair", objective="late_jobs", ready_now=True, runs=2)


def test_deadline_plans_say_which_order_method_proposed(batch) -> None:
    plan = plan_for_target(batch, SMALL, "yarn-fair", objective="late_jobs", window=3_000.0, ready_now=True, runs=3,
                           executor="serial")
    proposers = {r["setup"]: r["proposer"] for r in plan.simulated["candidates"]}
    assert "earliest due date" in proposers
    assert "two-stage flow shop with release dates" in proposers["two-stage order with deadlines"]
    assert plan.simulated["p_window"] is not None


def test_large_batches_order_deadlines_by_a_stated_heuristic() -> None:
    """Past the exact search's reach the order is a list rule, said so, with the model's bound."""
    jobs = [Job(f"j{i:03d}", 4 + i % 7, 1 + i % 3, 10.0 + i % 5, 20.0, submit=float(i), deadline=400.0 + 3 * i)
            for i in range(210)]
    plan = make_plan(Workload(jobs), Cluster(nodes=10, map_slots=2, reduce_slots=2), "johnson",
                     objective="max_lateness")
    assert plan.ordering is not None and "heuristic over 200 jobs" in plan.ordering["method"]
    assert plan.ordering["bound"] is not None and plan.ordering["bound"] <= plan.ordering["value"]


def test_the_command_line_plans_exports_and_validates(batch, tmp_path) -> None:
    workload = tmp_path / "twelve.json"
    workload.write_text(json.dumps(batch.to_dict()))
    cluster = tmp_path / "cluster.json"
    cluster.write_text(json.dumps(SMALL.to_dict()))
    shutil.copy(DATA / "capacity-scheduler.xml", tmp_path / "capacity-scheduler.xml")
    plan = tmp_path / "plan.json"
    result = runner.invoke(app, ["plan", str(workload), "-c", str(cluster), "--target", "yarn-fair", "--objective",
                                 "mean_response", "--ready-now", "--runs", "3", "--executor", "serial", "-o",
                                 str(plan), "--json"])
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    mean = printed["plan"]["simulated_mean"]
    assert printed["plan"]["makespan_bound"] > 0 and printed["jobs"]
    result = runner.invoke(app, ["validate", str(workload), "-c", str(cluster), "-p", str(plan), "--runs", "3",
                                 "--executor", "serial", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["validation"]["simulated_mean"] == mean
    out = tmp_path / "out"
    result = runner.invoke(app, ["export", str(plan), "-c", str(cluster), "-w", str(workload), "--to", "yarn-fair",
                                 "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert (out / "changes.diff").exists()
    runs = [runner.invoke(app, ["simulate", str(workload), "-c", str(cluster), *how, "--json"])
            for how in (["--plan", str(plan)], ["--hadoop-conf", str(out)])]
    assert [r.exit_code for r in runs] == [0, 0], runs[0].output + runs[1].output
    assert json.loads(runs[0].stdout)["result"] == json.loads(runs[1].stdout)["result"]
    result = runner.invoke(app, ["plan", str(workload), "-c", str(cluster), "--target", "yarn-capacity",
                                 "--hadoop-conf", str(tmp_path / "capacity-scheduler.xml"), "--runs", "2"])
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert "no queue named" in line and "--queue-map" in line


def test_the_example_batch_keeps_its_configuration() -> None:
    """README: on examples/nightly.yaml the plan says "keep your configuration" (its jobs barely overlap)."""
    examples = Path(__file__).resolve().parent.parent / "examples"
    workload, cluster = Workload.from_file(examples / "nightly.yaml"), Cluster.from_file(examples / "cluster.yaml")
    plan = plan_for_target(workload, cluster, "yarn-fair", objective="mean_response", executor="serial")
    assert plan.simulated["keep"] and plan.levers.changes_nothing
    report = validate(plan, workload, cluster, runs=3, executor="serial")
    assert report.planned["mean"] > 0


def test_simulate_maps_jobs_to_the_configurations_queues(tmp_path) -> None:
    """`planner simulate --hadoop-conf capacity-scheduler.xml`: a job whose pool is not a queue is one
    error line naming --queue-map; with the map it runs in the mapped queues."""
    examples = Path(__file__).resolve().parent.parent / "examples"
    base = ["simulate", str(examples / "nightly.yaml"), "-c", str(examples / "cluster.yaml"), "--hadoop-conf",
            str(DATA / "capacity-scheduler.xml")]
    refused = runner.invoke(app, base)
    assert refused.exit_code == 2
    (line,) = refused.stderr.strip().splitlines()
    assert "no queue named 'production'" in line and "--queue-map production=QUEUE" in line
    mapped = runner.invoke(app, [*base, "--queue-map", "production=sls_queue_3,*=sls_queue_1", "--json"])
    assert mapped.exit_code == 0, mapped.output
    assert json.loads(mapped.stdout)["result"]["jobs"] == 5
    typo = runner.invoke(app, [*base, "--queue-map", "prodution=sls_queue_3"])
    assert typo.exit_code == 2 and "--queue-map" in typo.stderr and "neither a job nor a pool" in typo.stderr


def test_yarn_fair_keeps_containers_for_short_jobs_when_deadlines_need_it() -> None:
    """16 containers; a long job (64 maps of 100 s, alone 4 waves = 400 s, due at 600) at 0, and four
    10-second jobs arriving every 100 s from 50, each due 15 s after it arrives. Under Fair a short
    job waits for one of the long job's tasks to end (50 s): all four are late. The small-jobs
    queue with 2 containers kept (the long job's queue capped at 14: 5 waves, 500 s, on time) starts
    each at once: none late, and the plan says so and exports the cap."""
    jobs = [Job("long", 64, 0, 100.0, submit=0.0, deadline=600.0)]
    jobs += [Job(f"short{i}", 1, 0, 10.0, submit=50.0 + 100.0 * i, deadline=65.0 + 100.0 * i) for i in range(4)]
    plan = plan_for_target(Workload(jobs, name="long-and-short"), SMALL, "yarn-fair", objective="late_jobs", runs=4,
                           noise=0.1, executor="serial")
    records = {r["setup"]: r for r in plan.simulated["candidates"]}
    assert records["Fair on yarn-fair"]["mean"] == 4.0
    assert plan.simulated["chosen"].startswith("small-jobs queue (alone <= 10 s, 2 containers kept)")
    assert plan.simulated["mean"] == 0.0 and not plan.simulated["keep"]
    assert plan.levers.caps == {"default": 14} and plan.levers.policies == {"small": "fair"}
    assert {name for name, queue in plan.levers.queues.items() if queue == "small"} == {f"short{i}" for i in range(4)}
    # validate pairs it with the same baselines: the jobs in the configuration's queue, not the plan's
    workload = Workload(jobs, name="long-and-short")
    report = validate(plan, workload, SMALL, runs=4, noise=0.1, seed=0, executor="serial")
    means = {r["setup"]: r["mean"] for r in report.setups}
    assert means["as configured"] == records["as configured"]["mean"] == 4.0
    assert means["Fair on yarn-fair"] == 4.0 and report.planned["mean"] == 0.0


def test_the_small_jobs_queue_takes_a_name_no_queue_has_and_keeps_lower_caps(batch) -> None:
    """The new queue's name is neither a configured queue (leaf or parent: "small" of "small.x") nor
    a pool jobs use; a queue the configuration caps below the candidate's cap keeps its own."""
    config = default_config("yarn-fair", SMALL)
    queues = {name: "default" for name in batch.names}
    run = deployed_run(merged_files(config, Levers(queues=queues), batch, SMALL, "yarn-fair"), batch, SMALL)
    candidates = small_queue_candidates(batch, run, queues, ("default", "small.x", "small_1"))
    assert candidates and len({c.name for c in candidates}) == len(candidates)
    for candidate in candidates:
        assert set(candidate.levers.queues.values()) <= {"default", "small_2"}
        assert set(candidate.levers.caps) == {"default"} and candidate.levers.caps["default"] < 16
    used = {**queues, batch.names[0]: "small"}  # a pool the configuration lacks, which YARN creates
    assert {q for c in small_queue_candidates(batch, run, used, ("default",)) for q in c.levers.queues.values()} \
        >= {"small_1"}
    capped = deployed_run(merged_files(config, Levers(queues=queues, caps={"default": 3}), batch, SMALL, "yarn-fair"),
                          batch, SMALL)
    assert all(c.levers.caps == {} for c in small_queue_candidates(batch, capped, queues, ("default",)))


def test_capacity_plans_propose_fair_ordering_where_queues_are_fifo(batch, tmp_path) -> None:
    queues = {name: "default" for name in batch.names}
    config = default_config("yarn-capacity", SMALL)
    run = deployed_run(merged_files(config, Levers(queues=queues), batch, SMALL, "yarn-capacity"), batch, SMALL)
    proposed = {c.name: c for c in proposals(batch, run, "yarn-capacity", queues, "capacity", None,
                                             objective="mean_response", window=None, seed=0)}
    assert proposed["fair ordering"].levers.policies == {"default": "fair"}
    assert proposed["FIFO, arrival order"].levers.policies == {}  # FIFO already: nothing written
    fair = merged_files(config, Levers(queues=queues, policies={"default": "fair"}), batch, SMALL, "yarn-capacity")
    for name in ("capacity-scheduler.xml", "yarn-site.xml"):
        (tmp_path / name).write_text(fair[name])
    run = deployed_run(merged_files(read_current([tmp_path / "capacity-scheduler.xml", tmp_path / "yarn-site.xml"]),
                                    Levers(queues=queues), batch, SMALL, "yarn-capacity"), batch, SMALL)
    assert [q.ordering for q in run.scheduler.queues] == ["fair"]
    proposed = {c.name: c for c in proposals(batch, run, "yarn-capacity", queues, "capacity", None,
                                             objective="mean_response", window=None, seed=0)}
    assert "fair ordering" not in proposed  # already fair
    assert proposed["FIFO, arrival order"].levers.policies == {"default": "fifo"}
    assert proposed["shortest work first"].levers.policies == {"default": "fifo"}


def _measured(name: str, values: list[float]) -> Measured:
    return Measured(name, "baseline", tuple({"makespan": v} for v in values))


def test_the_minimum_gain_is_waived_only_when_a_baseline_beats_the_configuration() -> None:
    """Makespans over 6 runs; the configuration's mean is 1,000 s, so a change must gain 1% = 10 s.
    The plan is 5 s shorter in every run (0.5%): not enough, so keep. A baseline 4 s shorter than the
    configuration in every run beats it run for run: keeping would be beaten, the plan is beaten by
    no baseline (it is 1 s shorter than that one in every run), so apply it, naming that baseline.
    A baseline shorter than the plan in every run: keep (the plan would be beaten too). A plan 12 s
    shorter (1.2%) pays on its own."""
    configured = _measured("as configured", [990.0, 995.0, 1000.0, 1000.0, 1005.0, 1010.0])
    plan = _measured("plan", [v - 5.0 for v in (990.0, 995.0, 1000.0, 1000.0, 1005.0, 1010.0)])
    close = _measured("Fair", [v - 4.0 for v in (990.0, 995.0, 1000.0, 1000.0, 1005.0, 1010.0)])
    better = _measured("FIFO", [v - 8.0 for v in (990.0, 995.0, 1000.0, 1000.0, 1005.0, 1010.0)])
    far = _measured("Fair far", [v + 50.0 for v in (990.0, 995.0, 1000.0, 1000.0, 1005.0, 1010.0)])
    assert decide(plan, configured, [far], "makespan", 1000.0, 0) == (True, ())
    assert decide(plan, configured, [close, far], "makespan", 1000.0, 0) == (False, ("Fair",))
    assert decide(plan, configured, [better], "makespan", 1000.0, 0) == (True, ())
    pays = _measured("plan", [v - 12.0 for v in (990.0, 995.0, 1000.0, 1000.0, 1005.0, 1010.0)])
    assert decide(pays, configured, [better], "makespan", 1000.0, 0) == (False, ())




def test_a_fair_scheduler_without_an_allocation_file_gets_one(tmp_path) -> None:
    """A yarn-site.xml that runs the fair scheduler on its defaults (no allocation file): a plan
    that sets a queue's policy writes a fair-scheduler.xml and names it in yarn-site.xml (this
    failed with a ValueError before)."""
    site = tmp_path / "yarn-site.xml"
    site.write_text("<configuration><property><name>yarn.resourcemanager.scheduler.class</name><value>org.apache."
                    "hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler</value></property>"
                    "</configuration>")
    current = read_current([site])
    workload = Workload([Job(name=f"j{i}", map_tasks=4, reduce_tasks=1, map_time=10.0, reduce_time=5.0)
                         for i in range(3)])
    cluster = Cluster(nodes=2, map_slots=2, reduce_slots=2)
    files = merged_files(current, Levers(queues={job.name: "default" for job in workload},
                                         policies={"default": "fifo"}), workload, cluster, "yarn-fair")
    assert "fair-scheduler.xml" in files and '<queue name="default">' in files["fair-scheduler.xml"]
    assert "yarn.scheduler.fair.allocation.file" in files["yarn-site.xml"]
