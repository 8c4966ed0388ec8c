"""The merged export (`planner.io.hadoop.merge`): a plan's levers written into the operator's own
Hadoop files (tests/data/hadoop-conf/, Apache-2.0) or the target's default configuration, read
back as the run the planner simulates; the queue mapping rule; the diff; the asynchronous
submission script run for real."""

from __future__ import annotations

import json
import os
import subprocess
import time
import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner

from models import Cluster, InvalidInput, Workload
from planner import make_plan
from planner.cli.main import app
from planner.io.hadoop.conf import hadoop_run, read_hadoop_conf
from planner.io.hadoop.merge import (
    CurrentConfig,
    config_diff,
    config_queues,
    default_config,
    deployed_run,
    export_levers,
    map_queues,
    merged_files,
    read_current,
)
from planner.io.hadoop.plan_files import read_submissions
from planner.io.hadoop.queue_map import parse_queue_map
from planner.io.targets import export_files
from planner.plans.levers import Levers
from planner.simulator import Capacity, Fair, Fifo
from planner.simulator.layout import ANY

ROOT = Path(__file__).resolve().parent.parent
CONF = ROOT / "tests" / "data" / "hadoop-conf"
NIGHTLY, CLUSTER = ROOT / "examples" / "nightly.yaml", ROOT / "examples" / "cluster.yaml"
TARGETS = ("mrv1", "yarn-fair", "yarn-capacity")
#: Schedule and notes an export adds beside the configuration.
ADDED = {"submissions.tsv", "submit.sh", "README.md", "changes.diff"}


@pytest.fixture(scope="module")
def batch() -> tuple[Workload, Cluster]:
    return Workload.from_file(NIGHTLY), Cluster.from_file(CLUSTER)


def _yarn_fair() -> CurrentConfig:
    return read_current([CONF / "yarn-fair-scheduler.xml", CONF / "yarn-fair-scheduler-allocation.xml"])


def _capacity() -> CurrentConfig:
    return read_current([CONF / "capacity-scheduler.xml"])


def _configs(cluster: Cluster) -> list[tuple[str, CurrentConfig]]:
    """(target, configuration): every target's default, and the operator's files of each YARN one."""
    return [*((target, default_config(target, cluster)) for target in TARGETS), ("yarn-fair", _yarn_fair()),
            ("yarn-capacity", _capacity())]


def _keep(workload: Workload, config: CurrentConfig, target: str) -> Levers:
    """What a plan that keeps the configuration gives: each job into the queue it maps to."""
    return Levers(queues=map_queues(workload, config, target, {"*": config_queues(config, target)[0]}))


# --- the configuration as it is -------------------------------------------------------------------

@pytest.mark.parametrize("target", TARGETS)
def test_the_default_configuration_reads_back_as_the_cluster_and_the_targets_scheduler(target, batch):
    workload, cluster = batch
    config = default_config(target, cluster)
    assert config.default and config.sources == () and len(config.fingerprint) == 16
    run = deployed_run(merged_files(config, _keep(workload, config, target), workload, cluster, target),
                       workload, cluster)
    kind = {"mrv1": Fifo, "yarn-fair": Fair, "yarn-capacity": Capacity}[target]
    assert isinstance(run.scheduler, kind)
    assert run.cluster.map_slots + run.cluster.reduce_slots == cluster.map_slots + cluster.reduce_slots == 4
    assert run.options is not None and run.options.containers == (target != "mrv1")
    assert config_queues(config, target) == ("default",)
    if target == "yarn-capacity":
        assert [(q.name, q.capacity) for q in run.scheduler.queues] == [("default", 1.0)]


def test_read_current_takes_files_and_folders_and_skips_a_previous_exports_notes(tmp_path, batch):
    workload, cluster = batch
    current = _yarn_fair()
    assert list(current.files) == ["yarn-fair-scheduler-allocation.xml", "yarn-fair-scheduler.xml"]
    assert not current.default and len(current.sources) == 2
    assert current.files["yarn-fair-scheduler.xml"] == (CONF / "yarn-fair-scheduler.xml").read_text()
    levers = Levers(queues={job.name: "sls_queue_1" for job in workload}, slowstart=0.5)
    export_levers(levers, workload, cluster, "yarn-fair", tmp_path / "out", current=current)
    again = read_current([tmp_path / "out"])  # last night's export as tonight's configuration
    assert set(again.files) == {*current.files, "mapred-site.xml"} and not ADDED & set(again.files)
    assert again.fingerprint != current.fingerprint
    assert read_current([CONF / "capacity-scheduler.xml"]).fingerprint == _capacity().fingerprint


def test_read_current_refuses_an_unreadable_file_and_two_files_of_one_name(tmp_path):
    with pytest.raises(InvalidInput, match=r"sls-nodes\.json: racks\[4\]"):
        read_current([CONF / "capacity-scheduler.xml", CONF / "sls-nodes.json"])
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "capacity-scheduler.xml").write_text((CONF / "capacity-scheduler.xml").read_text())
    with pytest.raises(InvalidInput, match=r"two files named capacity-scheduler\.xml: .* and .*") as caught:
        read_current([tmp_path / "a", CONF / "capacity-scheduler.xml"])
    assert "\n" not in str(caught.value)


# --- keep -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("case", range(5))
def test_keep_gives_the_configuration_byte_for_byte_and_an_empty_diff(case, batch):
    workload, cluster = batch
    target, config = _configs(cluster)[case]
    files = merged_files(config, _keep(workload, config, target), workload, cluster, target)
    assert set(files) == set(config.files) | ADDED
    assert all(files[name] == text for name, text in config.files.items())
    assert files["changes.diff"] == "" and config_diff(config, files) == ""
    assert "keep your configuration" in files["README.md"]
    if target != "yarn-capacity":  # nothing to map: every job in its own pool (fair) or the one queue (FIFO)
        assert merged_files(config, Levers(), workload, cluster, target)["changes.diff"] == ""


# --- every lever, every target ----------------------------------------------------------------------

def test_yarn_fair_levers_go_into_the_operators_queues(batch):
    workload, cluster = batch
    current = _yarn_fair()
    names = workload.names
    levers = Levers(policies={"sls_queue_1": "fifo", "tonight": "fifo"}, max_running={"sls_queue_3": 4},
                    weights={"sls_queue_2": 3.0}, slowstart=0.25,
                    queues={name: "tonight" if i < 2 else "sls_queue_3" for i, name in enumerate(names)},
                    priorities={names[0]: 5, names[1]: 2}, order=tuple(names),
                    submits={name: 10.0 * i for i, name in enumerate(names)})
    files = merged_files(current, levers, workload, cluster, "yarn-fair")
    run = deployed_run(files, workload, cluster)
    pools = run.scheduler.pools
    assert set(pools) == {"sls_queue_1", "sls_queue_2", "sls_queue_3", "tonight"}  # the operator's queues kept
    assert pools["sls_queue_1"].mode == "fifo" and pools["tonight"].mode == "fifo"
    assert pools["sls_queue_2"].weight == 3.0 and pools["sls_queue_1"].weight == 0.25
    assert pools["sls_queue_3"].max_running == 4 and pools["sls_queue_3"].min_map == 1
    assert run.options.reduce_slowstart == 0.25 and run.options.assign_multiple and run.options.containers
    assert run.scheduler.preemption is not None  # the operator's preemption, untouched
    # YARN's fair scheduler does not order applications by priority: they run at 0, whatever was asked
    assert [(j.name, j.submit, j.pool, j.priority) for j in run.workload] == [
        (names[0], 0.0, "tonight", 0), (names[1], 10.0, "tonight", 0), (names[2], 20.0, "sls_queue_3", 0),
        (names[3], 30.0, "sls_queue_3", 0), (names[4], 40.0, "sls_queue_3", 0)]
    assert "<name>yarn.cluster.max-application-priority</name><value>5</value>" in files["yarn-site.xml"]
    assert "<value>0.25</value>" in files["mapred-site.xml"]
    allocation = files["yarn-fair-scheduler-allocation.xml"]
    assert allocation.startswith((CONF / "yarn-fair-scheduler-allocation.xml").read_text().split("<allocations>")[0])
    assert '<user name="jenkins">' in allocation and "<!-- Limit on running jobs" in allocation
    assert "<maxRunningApps>4</maxRunningApps>" in allocation and '<queue name="tonight">' in allocation
    assert files["yarn-fair-scheduler.xml"] == current.files["yarn-fair-scheduler.xml"]


def test_a_cap_is_the_queues_max_resources_in_the_configurations_containers(batch):
    """caps: a queue's maxResources, the containers given times the configuration's container (its
    minimum allocation: 1,024 MB and 1 vcore in the stock yarn-site.xml; twice that in a copy with
    nodes twice as large), read back as the same number of containers; a new queue is added."""
    workload, cluster = batch
    names = workload.names
    levers = Levers(queues={name: "small" if i < 2 else "default" for i, name in enumerate(names)},
                    policies={"small": "fair"}, caps={"default": 6})
    config = default_config("yarn-fair", cluster)
    files = merged_files(config, levers, workload, cluster, "yarn-fair")
    assert "<maxResources>6144 mb, 6 vcores</maxResources>" in files["fair-scheduler.xml"]
    assert '<queue name="small">' in files["fair-scheduler.xml"]
    pools = deployed_run(files, workload, cluster).scheduler.pools
    assert set(pools) == {"default", "small"} and pools["default"].max_share(ANY) == 6
    assert pools["small"].max_share(ANY) is None
    site = config.files["yarn-site.xml"]
    for name, value in (("memory-mb", 4096), ("cpu-vcores", 4), ("allocation-mb", 1024), ("allocation-vcores", 1)):
        site = site.replace(f"{name}</name><value>{value}<", f"{name}</name><value>{2 * value}<")
    sized = CurrentConfig({**config.files, "yarn-site.xml": site})  # containers twice as large, as many per node
    files = merged_files(sized, levers, workload, cluster, "yarn-fair")
    assert "<maxResources>12288 mb, 12 vcores</maxResources>" in files["fair-scheduler.xml"]
    assert deployed_run(files, workload, cluster).scheduler.pools["default"].max_share(ANY) == 6
    big = merged_files(config, Levers(queues=levers.queues, caps={"default": 4000}), workload, cluster, "yarn-fair")
    assert "<maxResources>4096000 mb, 4000 vcores</maxResources>" in big["fair-scheduler.xml"]  # no exponent
    assert deployed_run(big, workload, cluster).scheduler.pools["default"].max_share(ANY) == 4000
    exponent = big["fair-scheduler.xml"].replace("4096000 mb", "4.096e+06 mb")
    with pytest.raises(InvalidInput, match=r"maxResources: must be whole numbers"):
        deployed_run({**big, "fair-scheduler.xml": exponent}, workload, cluster)
    nested = merged_files(config, Levers(queues={name: "night.etl" for name in names},
                                         policies={"night.etl": "fifo"}), workload, cluster, "yarn-fair")
    with pytest.raises(InvalidInput, match=r"levers\.caps\.night: is a parent queue"):
        merged_files(CurrentConfig({k: v for k, v in nested.items() if k in config.files}),
                     Levers(queues={name: "night.etl" for name in names}, caps={"night": 4}), workload, cluster,
                     "yarn-fair")
    with pytest.raises(InvalidInput, match=r"levers\.caps: caps are YARN fair-scheduler"):
        merged_files(default_config("mrv1", cluster), Levers(scheduler="fair", caps={"default": 2}), workload,
                     cluster, "mrv1")


def test_a_nested_yarn_queue_is_a_queue_inside_a_queue(batch):
    workload, cluster = batch
    config = default_config("yarn-fair", cluster)
    levers = Levers(queues={name: "night.etl" for name in workload.names}, max_running={"night.etl": 2},
                    policies={"night.etl": "fifo"})
    files = merged_files(config, levers, workload, cluster, "yarn-fair")
    assert ('<queue name="night">\n    <queue name="etl">\n      <schedulingPolicy>fifo</schedulingPolicy>\n'
            "      <maxRunningApps>2</maxRunningApps>\n    </queue>\n  </queue>\n</allocations>\n") in \
        files["fair-scheduler.xml"]
    pools = deployed_run(files, workload, cluster).scheduler.pools
    assert set(pools) == {"default", "night.etl"} and pools["night.etl"].max_running == 2
    assert pools["night.etl"].mode == "fifo"
    assert config_queues(CurrentConfig({"fair-scheduler.xml": files["fair-scheduler.xml"]}), "yarn-fair") == (
        "default", "night.etl")


def test_capacity_takes_an_ordering_policy_and_refuses_what_it_cannot_do(batch):
    workload, cluster = batch
    current = _capacity()
    queues = {name: "sls_queue_3" for name in workload.names}
    files = merged_files(current, Levers(queues=queues, policies={"sls_queue_3": "fifo"}), workload, cluster,
                         "yarn-capacity")
    diff = files["changes.diff"].splitlines()
    assert [line for line in diff if line.startswith("+") and not line.startswith("+++")] == [
        "+  <property><name>yarn.scheduler.capacity.root.sls_queue_3.ordering-policy</name><value>fifo</value>"
        "</property>"]
    assert not [line for line in diff if line.startswith("-") and not line.startswith("---")]
    files = merged_files(current, Levers(queues=queues, policies={"sls_queue_3": "fifo"}, slowstart=0.8,
                                         priorities={workload.names[2]: 4}), workload, cluster, "yarn-capacity")
    assert "<name>yarn.cluster.max-application-priority</name><value>4</value>" in files["yarn-site.xml"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the ordering policy is read, not ignored
        run = deployed_run(files, workload, cluster)
    assert [q.name for q in run.scheduler.queues] == ["sls_queue_1", "sls_queue_2", "sls_queue_3"]
    assert run.options.reduce_slowstart == 0.8 and {j.pool for j in run.workload} == {"sls_queue_3"}
    assert run.workload[workload.names[2]].priority == 4
    assert [q.ordering for q in run.scheduler.queues] == ["fifo", "fifo", "fifo"]
    files = merged_files(current, Levers(queues=queues, policies={"sls_queue_3": "fair"}), workload, cluster,
                         "yarn-capacity")
    assert "root.sls_queue_3.ordering-policy</name><value>fair</value>" in files["changes.diff"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # fair is read too (YARN's FairOrderingPolicy)
        run = deployed_run(files, workload, cluster)
    assert [q.ordering for q in run.scheduler.queues] == ["fifo", "fifo", "fair"]
    for levers, message in [
        (Levers(queues=queues, caps={"sls_queue_3": 4}), "levers.caps: caps are YARN fair-scheduler queues'"),
        (Levers(queues=queues, max_running={"sls_queue_3": 2}), "levers.max_running: the capacity scheduler"),
        (Levers(queues=queues, weights={"sls_queue_3": 2.0}), "levers.weights: the capacity scheduler"),
        (Levers(queues=queues, policies={"nope": "fifo"}), "no queue named 'nope'; queues: sls_queue_1"),
        (Levers(queues={**queues, workload.names[0]: "plan"}), r"levers.queues.etl-clicks: no queue named 'plan'"),
        (Levers(queues=queues, slots=(40, 40)), "levers.slots: yarn-capacity runs containers"),
    ]:
        with pytest.raises(InvalidInput, match=message) as caught:
            merged_files(current, levers, workload, cluster, "yarn-capacity")
        assert "\n" not in str(caught.value)


def test_mrv1_switches_to_fair_with_pools_slots_slowstart_and_priorities(batch):
    workload, cluster = batch
    config = default_config("mrv1", cluster)
    names = workload.names
    levers = Levers(scheduler="fair", queues={name: "plan" for name in names}, policies={"plan": "fifo"},
                    max_running={"plan": 3}, weights={"plan": 2.0}, slowstart=0.6, slots=(48, 32),
                    priorities={names[0]: 2, names[1]: -2})
    files = merged_files(config, levers, workload, cluster, "mrv1")
    assert "org.apache.hadoop.mapred.FairScheduler" in files["mapred-site.xml"]
    assert "<name>mapred.fairscheduler.allocation.file</name><value>fair-scheduler.xml</value>" in \
        files["mapred-site.xml"]
    assert "<name>mapred.reduce.slowstart.completed.maps</name><value>0.6</value>" in files["mapred-site.xml"]
    assert "<name>mapred.tasktracker.map.tasks.maximum</name><value>2</value>" in files["mapred-site.xml"]
    assert {"tasktracker-1.xml", "tasktracker-1.hosts", "tasktracker-2.xml", "topology.json"} <= set(files)
    run = deployed_run(files, workload, cluster)
    assert isinstance(run.scheduler, Fair) and run.slots == (48, 32)
    pool = run.scheduler.pools["plan"]
    assert (pool.mode, pool.max_running, pool.weight) == ("fifo", 3, 2.0)
    assert run.options.reduce_slowstart == 0.6 and not run.options.containers
    assert [j.priority for j in run.workload] == [2, -2, 0, 0, 0]
    assert "\t2\n" in files["submissions.tsv"] and "\t-2\n" in files["submissions.tsv"]
    assert "max-application-priority" not in "".join(text for name, text in files.items() if name != "README.md")
    with pytest.raises(InvalidInput, match=r"levers.priorities.etl-clicks: MRv1 has five priorities, -2..2"):
        merged_files(config, Levers(priorities={names[0]: 3}), workload, cluster, "mrv1")
    with pytest.raises(InvalidInput, match="capacity is not a scheduler of the mrv1 target"):
        merged_files(config, Levers(scheduler="capacity"), workload, cluster, "mrv1")
    with pytest.raises(InvalidInput, match=r"levers\.policies: the FIFO scheduler has one queue"):
        merged_files(config, Levers(policies={"default": "fifo"}), workload, cluster, "mrv1")


def test_mrv1_slot_groups_follow_the_operators_nodes_file_and_replace_old_groups(batch):
    workload, cluster = batch
    hosts = [f"host-{i}" for i in range(20)]
    nodes = "".join(json.dumps({"rack": f"r{r}", "nodes": [{"node": h} for h in hosts[r * 10:(r + 1) * 10]]}) + "\n"
                    for r in range(2))
    config = CurrentConfig({**default_config("mrv1", cluster).files, "nodes.json": nodes})
    first = merged_files(config, Levers(slots=(50, 30)), workload, cluster, "mrv1")
    assert "topology.json" not in first and "host-0\n" in first["tasktracker-1.hosts"]
    assert deployed_run(first, workload, cluster).slots == (50, 30)
    tonight = CurrentConfig({name: text for name, text in first.items() if name not in ADDED})
    second = merged_files(tonight, Levers(slots=(40, 40)), workload, cluster, "mrv1")
    assert deployed_run(second, workload, cluster).slots == (40, 40)
    assert "tasktracker-2.xml" not in second and "+++ /dev/null" in second["changes.diff"]


def test_yarn_switches_scheduler_and_fifo_sends_every_job_to_default(batch):
    workload, cluster = batch
    current = _yarn_fair()
    files = merged_files(current, Levers(scheduler="fifo"), workload, cluster, "yarn-fair")
    assert "scheduler.fifo.FifoScheduler" in files["yarn-site.xml"]
    run = deployed_run(files, workload, cluster)
    assert isinstance(run.scheduler, Fifo) and {j.pool for j in run.workload} == {"default"}
    capacity = merged_files(default_config("yarn-fair", cluster), Levers(
        scheduler="capacity", queues={name: "default" for name in workload.names}), workload, cluster, "yarn-fair")
    assert "capacity-scheduler.xml" in capacity
    assert isinstance(deployed_run(capacity, workload, cluster).scheduler, Capacity)
    with pytest.raises(InvalidInput, match=r"levers\.slots: yarn-fair runs containers"):
        merged_files(current, Levers(slots=(40, 40)), workload, cluster, "yarn-fair")


def test_the_diff_shows_exactly_the_property_changed_in_place(batch):
    """Slow-start replaced where the file has it, under the name it uses; nothing else moves."""
    workload, cluster = batch
    site = (CONF / "yarn-fair-scheduler.xml").read_text().replace(
        "</configuration>", "  <property>\n    <name>mapreduce.job.reduce.slowstart.completedmaps</name>\n"
                            "    <value>0.05</value>\n  </property>\n</configuration>")
    config = CurrentConfig({"mapred-site.xml": site})
    files = merged_files(config, Levers(slowstart=0.5), workload, cluster, "mrv1")
    changed = [line for line in files["changes.diff"].splitlines() if line[:1] in "+-"]
    assert changed == ["--- a/mapred-site.xml", "+++ b/mapred-site.xml", "-    <value>0.05</value>",
                       "+    <value>0.5</value>"]
    assert deployed_run(files, workload, cluster).options.reduce_slowstart == 0.5


def test_a_schedule_that_goes_back_in_time_or_misses_jobs_is_refused(batch):
    workload, cluster = batch
    config, names = default_config("mrv1", cluster), workload.names
    with pytest.raises(InvalidInput, match=r"levers.submits.sessionize: 5 s is before 'etl-clicks' at 10 s"):
        merged_files(config, Levers(order=tuple(names), submits={names[0]: 10.0, names[1]: 5.0}), workload,
                     cluster, "mrv1", ready_now=True)
    with pytest.raises(InvalidInput, match=r"levers\.order: leaves out 4 job"):
        merged_files(config, Levers(order=(names[0],)), workload, cluster, "mrv1")
    with pytest.raises(InvalidInput, match=r"levers\.priorities: names 'nope'"):
        merged_files(config, Levers(priorities={"nope": 1}), workload, cluster, "mrv1")


# --- queues -----------------------------------------------------------------------------------------

def test_map_queues_follows_the_documented_rule(batch):
    workload, cluster = batch
    capacity = _capacity()
    assert config_queues(capacity, "yarn-capacity") == ("sls_queue_1", "sls_queue_2", "sls_queue_3")
    mapped = map_queues(workload, capacity, "yarn-capacity",
                        {"etl-clicks": "sls_queue_1", "production": "sls_queue_2", "*": "sls_queue_3"})
    assert mapped == {"etl-clicks": "sls_queue_1", "sessionize": "sls_queue_2", "pagerank": "sls_queue_3",
                      "grep-logs": "sls_queue_3", "train-ctr": "sls_queue_3"}
    with pytest.raises(InvalidInput) as caught:
        map_queues(workload, capacity, "yarn-capacity", None)
    assert str(caught.value) == ("jobs[0].pool: no queue named 'production' (job 'etl-clicks'); queues: "
                                 "sls_queue_1, sls_queue_2, sls_queue_3; map it with --queue-map production=QUEUE")
    with pytest.raises(InvalidInput, match="queue_map: production=plan: no queue named 'plan'; queues: sls_queue_1"):
        map_queues(workload, capacity, "yarn-capacity", {"production": "plan"})
    fair = map_queues(workload, _yarn_fair(), "yarn-fair", {"research": "sls_queue_1"})
    assert fair == {"etl-clicks": "production", "sessionize": "production", "pagerank": "sls_queue_1",
                    "grep-logs": "sls_queue_1", "train-ctr": "sls_queue_1"}  # the fair scheduler makes 'production'
    assert set(map_queues(workload, default_config("mrv1", cluster), "mrv1", {"*": "x"}).values()) == {"default"}


def test_parse_queue_map_reads_the_command_lines_items():
    assert parse_queue_map(["production=sls_queue_1,research=sls_queue_2", " *=sls_queue_3 "]) == {
        "production": "sls_queue_1", "research": "sls_queue_2", "*": "sls_queue_3"}
    for items, message in [(["production"], "must be NAME=QUEUE"), (["=q"], "must be NAME=QUEUE"),
                           (["a=b=c"], "must be NAME=QUEUE"), (["a=b", "a=c"], "'a' is mapped twice")]:
        with pytest.raises(InvalidInput, match=f"queue_map: .*{message}"):
            parse_queue_map(items)


# --- the schedule, read back --------------------------------------------------------------------------

def test_an_old_four_column_schedule_still_reads_at_priority_zero(tmp_path, batch):
    workload, cluster = batch
    path = tmp_path / "submissions.tsv"
    path.write_text("position\tjob\tsubmit_at\tpool\n" + "".join(
        f"{i}\t{name}\t{i}.0\tplan\n" for i, name in enumerate(workload.names)))
    assert [s.priority for s in read_submissions(path)] == [0] * 5
    assert [j.priority for j in hadoop_run([path], workload, cluster).workload] == [0] * 5
    path.write_text("position\tjob\tsubmit_at\tpool\tpriority\n0\tetl-clicks\t0\tplan\thigh\n")
    with pytest.raises(InvalidInput, match=r"line 2.priority: must be an integer level, got 'high'"):
        read_hadoop_conf([path], warn=False)


def test_deployed_run_keeps_the_workloads_order_so_jobs_keep_their_noise(tmp_path, batch):
    """The simulator draws a job's task-time noise from the stream of its position in the workload:
    read back in the schedule's order, a reordered schedule would give each job another job's
    noise, and runs of two schedules would not pair job by job. The run keeps the workload's order,
    as `hadoop_run` of the folder does (the same result); the order does matter to the result."""
    workload, cluster = batch
    names = workload.names
    config = default_config("yarn-fair", cluster)
    for order in (tuple(names), tuple(reversed(names)), (names[2], names[0], names[4], names[1], names[3])):
        levers = Levers(order=order, submits={name: float(i) for i, name in enumerate(order)},
                        priorities={order[0]: 3}, policies={"default": "fifo"})
        run = deployed_run(merged_files(config, levers, workload, cluster, "yarn-fair"), workload, cluster)
        assert run.workload.names == names
        assert [run.workload[name].submit for name in order] == [0.0, 1.0, 2.0, 3.0, 4.0]
        folder = tmp_path / "-".join(order)
        export_levers(levers, workload, cluster, "yarn-fair", folder)
        as_read = hadoop_run([folder], workload, cluster, warn=False)
        assert run.simulate(5).to_json() == as_read.simulate(5).to_json()
        reordered = run.with_workload(Workload([run.workload[name] for name in order], name=workload.name))
        if order != tuple(names):
            assert _by_job(reordered.simulate(5).to_json()) != _by_job(run.simulate(5).to_json())


def _by_job(text: str) -> dict:
    """A result file's records in an order that does not depend on the order of the workload's jobs."""
    result = json.loads(text)
    for records in ("jobs", "tasks"):
        result[records] = sorted(result[records], key=lambda record: json.dumps(record, sort_keys=True))
    return result


def test_the_exported_folder_simulated_from_the_command_line_is_the_deployed_run(tmp_path, batch):
    workload, cluster = batch
    current = _yarn_fair()
    levers = Levers(queues={name: "sls_queue_3" for name in workload.names}, max_running={"sls_queue_3": 2},
                    slowstart=0.5)
    export_levers(levers, workload, cluster, "yarn-fair", tmp_path / "out", current=current)
    assert os.access(tmp_path / "out" / "submit.sh", os.X_OK)
    result = CliRunner().invoke(app, ["simulate", str(NIGHTLY), "-c", str(CLUSTER), "--hadoop-conf",
                                      str(tmp_path / "out"), "--seed", "3", "-o", str(tmp_path / "r.json")])
    assert result.exit_code == 0, result.output
    expected = deployed_run(merged_files(current, levers, workload, cluster, "yarn-fair"), workload, cluster)
    makespan = json.loads((tmp_path / "r.json").read_text())["summary"]["makespan"]
    assert makespan == expected.simulate(3).makespan


# --- submit.sh, run for real ---------------------------------------------------------------------------

def _fake_submit(tmp_path: Path, *, fail: bool = False) -> tuple[Path, Path]:
    log = tmp_path / "submitted.log"
    command = tmp_path / "fake-submit"
    command.write_text(f'#!/bin/sh\nsleep 2\necho "$@" >> "{log}"\n' + ("exit 3\n" if fail else ""))
    command.chmod(0o755)
    return command, log


@pytest.mark.parametrize("target", ["mrv1", "yarn-fair"])
def test_submit_sh_submits_asynchronously_with_queue_and_priority(tmp_path, batch, target):
    workload, cluster = batch
    config = default_config(target, cluster)
    levers = Levers(queues={name: "default" for name in workload.names}, priorities={"etl-clicks": 1})
    export_levers(levers, workload, cluster, target, tmp_path / "out", current=config, ready_now=True)
    command, log = _fake_submit(tmp_path)
    started = time.monotonic()
    done = subprocess.run(["sh", str(tmp_path / "out" / "submit.sh")], env={**os.environ, "SUBMIT": str(command)},
                          capture_output=True, text=True, timeout=60)
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    lines = log.read_text().splitlines()
    assert len(lines) == 5 and took < 3.5, (took, lines)  # five 2 s submissions at once, not one after another
    first = next(line for line in lines if line.startswith("etl-clicks "))
    if target == "mrv1":
        assert first == "etl-clicks -Dmapred.fairscheduler.pool=default -Dmapred.job.priority=HIGH"
    else:
        assert first == "etl-clicks -Dmapreduce.job.queuename=default -Dmapreduce.job.priority=1"


def test_submit_sh_fails_when_a_submission_fails(tmp_path, batch):
    workload, cluster = batch
    export_levers(Levers(), workload, cluster, "mrv1", tmp_path / "out", ready_now=True)
    command, log = _fake_submit(tmp_path, fail=True)
    done = subprocess.run(["sh", str(tmp_path / "out" / "submit.sh")], env={**os.environ, "SUBMIT": str(command)},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "5 submission(s) failed" in done.stderr
    assert len(log.read_text().splitlines()) == 5


def test_yarn_resets_a_priority_above_the_clusters_maximum(batch):
    """YARN's yarn.cluster.max-application-priority is 0 unless set: a plan that keeps the files
    keeps the jobs' own priorities in the schedule, and YARN (read back) runs them at 0; a plan
    giving priorities raises the maximum, and they hold under the capacity scheduler. The fair
    scheduler does not order applications by priority: they run at 0 whatever the maximum."""
    workload, cluster = batch
    for target in ("yarn-fair", "yarn-capacity"):
        config = default_config(target, cluster)
        if target == "yarn-capacity":  # its one queue, default
            workload = Workload([job.with_changes(pool="default") for job in workload], name=workload.name)
        kept = merged_files(config, Levers(), workload, cluster, target)
        assert "\t1\n" in kept["submissions.tsv"]  # etl-clicks's own priority, as submitted
        assert {job.priority for job in deployed_run(kept, workload, cluster).workload} == {0}
        given = merged_files(config, Levers(priorities={"pagerank": 2}), workload, cluster, target)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # the maximum is read, not ignored
            run = deployed_run(given, workload, cluster)
        expected = [0, 0, 0, 0, 0] if target == "yarn-fair" else [1, 1, 2, 0, 0]
        assert [job.priority for job in run.workload] == expected
    mrv1 = merged_files(default_config("mrv1", cluster), Levers(), workload, cluster, "mrv1")
    assert [job.priority for job in deployed_run(mrv1, workload, cluster).workload] == [1, 1, 0, 0, 0]


def test_a_plan_without_levers_is_not_merged(batch):
    workload, cluster = batch
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan = make_plan(workload, cluster, "slots+johnson", time_limit=20)
    with pytest.raises(InvalidInput, match="plan: has no levers"):
        export_files(plan, workload, cluster, "yarn-fair", current=default_config("yarn-fair", cluster))


@pytest.mark.parametrize("target", TARGETS)
def test_the_levers_on_each_targets_default_configuration(target, batch):
    workload, cluster = batch
    config = default_config(target, cluster)
    levers = Levers(scheduler="fair" if target == "mrv1" else None, slowstart=0.4, priorities={"pagerank": 1},
                    queues={name: "default" for name in workload.names}, policies={"default": "fifo"},
                    order=("sessionize", "etl-clicks", "pagerank", "grep-logs", "train-ctr"),
                    submits={"sessionize": 0.0, "etl-clicks": 0.0, "pagerank": 100.0, "grep-logs": 100.0,
                             "train-ctr": 600.0})
    files = merged_files(config, levers, workload, cluster, target)
    run = deployed_run(files, workload, cluster)
    assert run.options.reduce_slowstart == 0.4 and {job.pool for job in run.workload} == {"default"}
    assert [(job.name, job.submit) for job in run.workload] == [
        ("etl-clicks", 0.0), ("sessionize", 0.0), ("pagerank", 100.0), ("grep-logs", 100.0), ("train-ctr", 600.0)]
    assert run.workload["pagerank"].priority == (0 if target == "yarn-fair" else 1)  # YARN fair: no priorities
    assert [line.split("\t")[1] for line in files["submissions.tsv"].splitlines()[1:]] == list(levers.order)
    if target == "yarn-capacity":
        assert "root.default.ordering-policy</name><value>fifo" in files["capacity-scheduler.xml"]
        assert isinstance(run.scheduler, Capacity)
    else:
        assert isinstance(run.scheduler, Fair) and run.scheduler.pools["default"].mode == "fifo"
    assert run.cluster.map_slots + run.cluster.reduce_slots == 4  # node resources untouched
    changed = {line[6:] for line in files["changes.diff"].splitlines() if line.startswith("+++ b/")}
    assert changed == ({"mapred-site.xml", "fair-scheduler.xml"} if target == "mrv1" else
                       {"mapred-site.xml", "yarn-site.xml", "fair-scheduler.xml"} if target == "yarn-fair" else
                       {"mapred-site.xml", "yarn-site.xml", "capacity-scheduler.xml"})


def test_caps_are_whole_containers_within_the_limits_and_round_trip() -> None:
    from models.limits import MAX_TOTAL_SLOTS

    for bad, message in [(0, "must be >= 1"), (MAX_TOTAL_SLOTS + 1, "must be <= "), (2.5, "integer")]:
        with pytest.raises(InvalidInput, match=rf"levers\.caps\.q: .*{message}"):
            Levers(caps={"q": bad})
    levers = Levers(queues={"a": "small"}, caps={"default": 14}, policies={"small": "fair"})
    assert Levers.from_dict(levers.to_dict()) == levers and not levers.changes_nothing
    assert Levers.from_dict({k: v for k, v in levers.to_dict().items() if k != "caps"}).caps == {}
