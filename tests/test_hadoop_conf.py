"""Hadoop's own configuration files as the simulator's cluster, scheduler and options.

The files under tests/data/hadoop-conf/ are Hadoop's scheduler load simulator's (Apache-2.0, see
tests/data/NOTICE.md); the MRv1 files are written here, in the form Hadoop 0.20's fair scheduler
documents.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner

from models import Cluster, InvalidInput, Job
from planner.cli.main import app
from planner.io.hadoop.conf import IgnoredSetting, hadoop_settings, read_hadoop_conf
from planner.simulator import (
    Capacity,
    Fair,
    Pool,
    Preemption,
    SimOptions,
    simulate,
)

CONF = Path(__file__).parent / "data" / "hadoop-conf"
YARN_FAIR = [CONF / "yarn-fair-scheduler.xml", CONF / "yarn-fair-scheduler-allocation.xml"]

MRV1_ALLOCATIONS = """<?xml version="1.0"?>
<allocations>
  <pool name="production">
    <minMaps>4</minMaps>
    <minReduces>2</minReduces>
    <weight>2.0</weight>
    <minSharePreemptionTimeout>30</minSharePreemptionTimeout>
  </pool>
  <pool name="research">
    <maxMaps>2</maxMaps>
    <maxReduces>1</maxReduces>
    <schedulingMode>fifo</schedulingMode>
    <maxRunningJobs>3</maxRunningJobs>
  </pool>
  <poolMaxJobsDefault>5</poolMaxJobsDefault>
  <fairSharePreemptionTimeout>600</fairSharePreemptionTimeout>
  <user name="alice"><maxRunningJobs>2</maxRunningJobs></user>
</allocations>
"""
MAPRED_SITE = """<?xml version="1.0"?>
<configuration>
  <property><name>mapred.jobtracker.taskScheduler</name><value>org.apache.hadoop.mapred.FairScheduler</value></property>
  <property><name>mapred.tasktracker.map.tasks.maximum</name><value>6</value></property>
  <property><name>mapred.tasktracker.reduce.tasks.maximum</name><value>4</value></property>
  <property><name>mapred.reduce.slowstart.completed.maps</name><value>0.05</value></property>
  <property><name>mapred.fairscheduler.preemption</name><value>true</value></property>
  <property><name>mapred.child.java.opts</name><value>-Xmx512m</value></property>
</configuration>
"""


def quietly(paths):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        setup = read_hadoop_conf(paths)
    return setup, [str(w.message) for w in caught if issubclass(w.category, IgnoredSetting)]


# -- the SLS files -------------------------------------------------------------------------------------
def test_yarn_fair_scheduler_files():
    """Three queues, weights 0.25/0.25/0.5, min resources of 1024 MB and 1 vcore (one container of
    the default 1024 MB x 1 vcore), min-share preemption after 2 s, preemption and assign-multiple
    on; YARN runs containers. The user limits are not modelled: named in the warning."""
    setup, warned = quietly(YARN_FAIR)
    assert isinstance(setup.scheduler, Fair)
    assert list(setup.scheduler.pools.values()) == [
        Pool("sls_queue_1", weight=0.25, min_map=1), Pool("sls_queue_2", weight=0.25, min_map=1),
        Pool("sls_queue_3", weight=0.5, min_map=1)]
    assert setup.scheduler.preemption == Preemption(min_share_timeout=2.0, fair_share_timeout=None)
    # the files set no slow-start: Hadoop's 0.05
    assert setup.options == {"containers": True, "assign_multiple": True, "reduce_slowstart": 0.05}
    assert len(warned) == 1 and "user 'jenkins'" in warned[0] and "userMaxAppsDefault = 1000" in warned[0]


def test_capacity_scheduler_file():
    setup, warned = quietly([CONF / "capacity-scheduler.xml"])
    assert isinstance(setup.scheduler, Capacity)
    assert [(q.name, q.capacity, q.max_capacity) for q in setup.scheduler.queues] == [
        ("sls_queue_1", 0.25, 1.0), ("sls_queue_2", 0.25, 1.0), ("sls_queue_3", 0.5, 1.0)]
    assert setup.options == {"containers": True, "reduce_slowstart": 0.05} and not warned


def test_the_sls_nodes_file_with_its_broken_entry_is_one_line_naming_the_element():
    with pytest.raises(InvalidInput) as error:
        read_hadoop_conf([CONF / "sls-nodes.json"])
    assert str(error.value) == (f"{CONF / 'sls-nodes.json'}: racks[4] (line 69).nodes[3].node: must be a host "
                                "name, got nothing")


def test_the_sls_nodes_file_mended_gives_nodes_and_racks(tmp_path):
    text = (CONF / "sls-nodes.json").read_text().replace('    {\n    }', '    {\n      "node": "node20"\n    }')
    (tmp_path / "nodes.json").write_text(text)
    setup, _ = quietly([tmp_path / "nodes.json"])
    assert setup.cluster == {"nodes": 20, "racks": 5}
    assert setup.on(Cluster(nodes=3)).nodes == 20


def test_the_sls_trace_runs_on_the_cluster_as_configured():
    """SLS's own two-job trace under its fair scheduler files: the same run as the pools given
    by hand, on containers with assign-multiple."""
    from planner import read_sls

    jobs = read_sls(Path(__file__).parent / "data" / "inputsls.json")
    with pytest.warns(IgnoredSetting, match="user 'jenkins'"):
        cluster, scheduler, options = hadoop_settings(YARN_FAIR, Cluster(nodes=20, racks=5))
    by_hand = Fair(pools=[Pool("sls_queue_1", weight=0.25, min_map=1), Pool("sls_queue_2", weight=0.25, min_map=1),
                          Pool("sls_queue_3", weight=0.5, min_map=1)],
                   preemption=Preemption(min_share_timeout=2.0, fair_share_timeout=None))
    configured = simulate(jobs, cluster, scheduler, options=options)
    by_hand_options = SimOptions(containers=True, reduce_slowstart=0.05)  # Hadoop's slow-start: no file sets one
    assert configured.to_json() == simulate(jobs, cluster, by_hand, options=by_hand_options).to_json()


# -- MRv1 ------------------------------------------------------------------------------------------------
def test_mrv1_allocation_and_mapred_site(tmp_path):
    """Pools with min shares, caps, a mode, running-job limits (poolMaxJobsDefault for the pool
    without its own), the min-share timeout and the global fair-share timeout; mapred-site's
    slots, slow-start, scheduler class and preemption; a JVM option and the user limit warned."""
    (tmp_path / "pools.xml").write_text(MRV1_ALLOCATIONS)
    (tmp_path / "mapred-site.xml").write_text(MAPRED_SITE)
    setup, warned = quietly([tmp_path / "mapred-site.xml", tmp_path / "pools.xml"])
    assert list(setup.scheduler.pools.values()) == [
        Pool("production", weight=2.0, min_map=4, min_reduce=2, max_running=5),
        Pool("research", max_map=2, max_reduce=1, mode="fifo", max_running=3)]
    assert setup.scheduler.preemption == Preemption(min_share_timeout=30.0, fair_share_timeout=600.0)
    assert setup.cluster == {"map_slots": 6, "reduce_slots": 4}
    assert setup.options == {"reduce_slowstart": 0.05}
    assert "mapred.child.java.opts = -Xmx512m" in warned[0] and "user 'alice'" in warned[0]


def test_a_pool_cap_holds_in_the_simulation():
    """A pool capped at 2 maps runs its 6 maps of 10 s two at a time on 10 free map slots:
    3 waves, 30 s (10 s uncapped)."""
    cluster = Cluster(nodes=5, map_slots=2, reduce_slots=1, heartbeat=0)
    job = [Job("a", 6, 0, 10.0, pool="research")]
    options = SimOptions(rack_factor={"balanced": 1.0}, off_rack_factor={"balanced": 1.0})
    capped = simulate(job, cluster, Fair(pools=[Pool("research", max_map=2)]), options=options)
    assert capped.makespan == 30.0
    assert simulate(job, cluster, Fair(pools=[Pool("research")]), options=options).makespan == 10.0


def test_nested_queues_take_their_share_of_the_parents(tmp_path):
    """YARN: root has a (weight 3) and b (weight 1); a has a1 and a2 (weights 1 and 1): a1 and a2
    get 3/4 x 1/2 = 0.375 of the cluster each, b 0.25. Capacity: a 60% with a1 50% of it: 0.3."""
    (tmp_path / "fair.xml").write_text("""<allocations>
      <queue name="a"><weight>3</weight>
        <queue name="a1"><maxResources>8192 mb, 8 vcores</maxResources></queue>
        <queue name="a2"/>
      </queue>
      <queue name="b"><weight>1</weight><maxRunningApps>2</maxRunningApps></queue>
    </allocations>""")
    setup, _ = quietly([tmp_path / "fair.xml"])
    assert list(setup.scheduler.pools.values()) == [
        Pool("a.a1", weight=0.375, max_map=8, max_reduce=0), Pool("a.a2", weight=0.375), Pool("b", weight=0.25,
                                                                                              max_running=2)]
    properties = {"root.queues": "a,b", "root.a.capacity": "60", "root.a.queues": "a1,a2",
                  "root.a.a1.capacity": "50", "root.a.a2.capacity": "50", "root.a.maximum-capacity": "80",
                  "root.b.capacity": "40", "root.b.user-limit-factor": "2",
                  "root.a.a1.ordering-policy": "fair", "root.a.a1.ordering-policy.fair.enable-size-based-weight": "true",
                  "root.a.a2.ordering-policy": "fifo-with-partitions",
                  "root.b.ordering-policy": "org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy."
                                            "FairOrderingPolicy"}
    (tmp_path / "capacity-scheduler.xml").write_text("<configuration>" + "".join(
        f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>"
        for k, v in properties.items()) + "</configuration>")
    setup, warned = quietly([tmp_path / "capacity-scheduler.xml"])
    assert [(q.name, q.capacity, q.max_capacity) for q in setup.scheduler.queues] == [
        ("a.a1", pytest.approx(0.3), pytest.approx(0.8)), ("a.a2", pytest.approx(0.3), pytest.approx(0.8)),
        ("b", pytest.approx(0.4), 1.0)]
    assert [q.ordering for q in setup.scheduler.queues] == ["fair", "fifo", "fair"]
    assert "user-limit-factor = 2" in warned[0] and "enable-size-based-weight = true" in warned[0]
    assert "ordering-policy = fifo-with-partitions (read as fifo" in warned[0]


# -- bad files ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "message"), [
    ("<configuration><property><value>1</value></property></configuration>", "property[0]: has no <name>"),
    ("<configuration><property><name>dfs.replication</name><value>x</value></property></configuration>",
     "property[0] (dfs.replication): must be a number, got 'x'"),
    ("<configuration><property><name>a</name><value>1</value></property>"
     "<property><name>a</name><value>2</value></property></configuration>", "property[1] (a): given twice"),
    ("<configuration><property>", "line 1: malformed XML"),
    ('<!DOCTYPE x [<!ENTITY a "aaaa">]><configuration/>', "document type declarations and entities are not"),
    ("<allocations><pool><weight>1</weight></pool></allocations>", "pool[0]: has no name attribute"),
    ('<allocations><pool name="p"><minMaps>two</minMaps></pool></allocations>',
     "pool[0] (p).minMaps: must be a number, got 'two'"),
    ('<allocations><pool name="p"><minMaps>nan</minMaps></pool></allocations>',
     "pool[0] (p).minMaps: must be a finite number"),
    ("<configuration><property><name>mapred.tasktracker.map.tasks.maximum</name><value>2.5</value></property>"
     "</configuration>", "property[0] (mapred.tasktracker.map.tasks.maximum): must be a whole number, got '2.5'"),
    ('<allocations><queue name="q"><minResources>lots</minResources></queue></allocations>',
     "queue q.minResources: must be 'N mb, M vcores'"),
    ("<settings/>", "settings: expected <configuration>"),
])
def test_bad_files_are_one_line_naming_the_element(tmp_path, text, message):
    path = tmp_path / "conf.xml"
    path.write_text(text)
    with pytest.raises(InvalidInput) as error:
        quietly([path])
    assert str(error.value).startswith(f"{path}: ") and message in str(error.value), str(error.value)
    assert "\n" not in str(error.value)


# -- the command line ------------------------------------------------------------------------------------------
def test_simulate_with_hadoop_conf_from_the_command_line(tmp_path):
    from planner import read_sls

    read_sls(Path(__file__).parent / "data" / "inputsls.json").to_file(tmp_path / "sls.yaml")
    Cluster(nodes=20, racks=5).to_file(tmp_path / "c.yaml")
    args = ["simulate", str(tmp_path / "sls.yaml"), "-c", str(tmp_path / "c.yaml"), "--json",
            *(item for path in YARN_FAIR for item in ("--hadoop-conf", str(path)))]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["result"]["scheduler"] == "fair"
    both = CliRunner().invoke(app, [*args, "--scheduler", "fifo"])
    assert both.exit_code == 2 and "--scheduler: --hadoop-conf sets the scheduler" in both.output
    broken = CliRunner().invoke(app, [*args[:5], "--hadoop-conf", str(CONF / "sls-nodes.json")])
    assert broken.exit_code == 2 and "nodes[3].node: must be a host name" in broken.output


def test_an_unknown_scheduler_class_is_refused(tmp_path):
    (tmp_path / "yarn-site.xml").write_text(
        "<configuration><property><name>yarn.resourcemanager.scheduler.class</name>"
        "<value>org.example.MyScheduler</value></property></configuration>")
    with pytest.raises(InvalidInput, match=r"unknown scheduler class 'org\.example\.MyScheduler'"):
        quietly([tmp_path / "yarn-site.xml"])


def test_compare_and_validate_take_the_cluster_as_configured(tmp_path):
    """`compare --hadoop-conf` adds "as configured" next to the schedulers given; `validate
    --hadoop-conf` adds it as a baseline of a slot plan."""
    from planner import read_sls

    read_sls(Path(__file__).parent / "data" / "inputsls.json").to_file(tmp_path / "sls.yaml")
    Cluster(nodes=20, racks=5).to_file(tmp_path / "c.yaml")
    common = [str(tmp_path / "sls.yaml"), "-c", str(tmp_path / "c.yaml"), "--executor", "serial", "--json",
              "--hadoop-conf", str(CONF / "capacity-scheduler.xml")]
    compared = CliRunner().invoke(app, ["compare", *common, "-s", "fifo"])
    assert compared.exit_code == 0, compared.output
    rows = json.loads(compared.stdout)["configurations"]
    assert [row["configuration"] for row in rows] == ["fifo", "as configured"]
    planned = CliRunner().invoke(app, ["plan", str(tmp_path / "sls.yaml"), "-c", str(tmp_path / "c.yaml"),
                                       "-o", str(tmp_path / "plan.json")])
    assert planned.exit_code == 0, planned.output
    validated = CliRunner().invoke(app, ["validate", *common, "--plan", str(tmp_path / "plan.json"), "--runs", "2"])
    assert validated.exit_code == 0, validated.output
    setups = [row["setup"] for row in json.loads(validated.stdout)["setups"]]
    assert setups[2] == "the cluster as configured"  # after the plan and its Hadoop 1 export
