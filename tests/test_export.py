"""Plans out to Hadoop's configuration and back: `export_plan`, `plan_run`, `hadoop_run`.

The round trip is the contract: simulating the exported folder gives the very bytes that
simulating the plan itself gives, for every target and every kind of plan, on the demo batch
and on the first 50 jobs of the real FB-2009 SWIM trace (tests/data, New BSD).
"""

from __future__ import annotations

import dataclasses
import json
import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner

from models import Cluster, InvalidInput, Job, Workload
from planner import make_plan, read_swim
from planner.cli.main import app
from planner.io.hadoop.applied import HADOOP_TARGETS, SUBMIT_GAP, submission_schedule
from planner.io.hadoop.conf import hadoop_run, hadoop_settings, read_hadoop_conf
from planner.io.hadoop.export import host_names
from planner.io.targets import export_files, export_plan, plan_run
from planner.simulator.layout import build_layout

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).parent / "data"
NIGHTLY, CLUSTER = ROOT / "examples" / "nightly.yaml", ROOT / "examples" / "cluster.yaml"


def _plan(workload: Workload, cluster: Cluster, strategy: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # task-floor and derived-profile notes
        return make_plan(workload, cluster, strategy, time_limit=20)


def _round_trip(plan, workload, cluster, target, folder, seed=5):
    export_plan(plan, workload, cluster, target, folder)
    direct = plan_run(plan, workload, cluster, target).simulate(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the exported files hold nothing the simulator ignores
        read_back = hadoop_run([folder], workload, cluster).simulate(seed)
    return direct, read_back


@pytest.mark.parametrize("target", HADOOP_TARGETS)
@pytest.mark.parametrize("strategy", ["slots+johnson", "johnson", "packing"])
def test_round_trip_on_the_demo_batch_is_byte_identical(tmp_path, target, strategy):
    workload, cluster = Workload.from_file(NIGHTLY), Cluster.from_file(CLUSTER)
    plan = _plan(workload, cluster, strategy)
    direct, read_back = _round_trip(plan, workload, cluster, target, tmp_path / "out")
    assert direct.to_json() == read_back.to_json()
    assert direct.makespan > 0


@pytest.mark.parametrize("target", HADOOP_TARGETS)
def test_round_trip_on_fb2009_jobs_is_byte_identical(tmp_path, target):
    """50 real jobs submitted over about 20 minutes, 30 nodes of 3 + 2 slots in 3 racks: the plan's
    split (not a multiple of 30) is laid out in groups, the submit times are honoured."""
    workload = read_swim(DATA / "FB-2009_samples_24_times_1hr_0_first50jobs.tsv")
    cluster = Cluster(nodes=30, racks=3, map_slots=3, reduce_slots=2)
    plan = _plan(workload, cluster, "slots+johnson")
    direct, read_back = _round_trip(plan, workload, cluster, target, tmp_path / "out")
    assert direct.to_json() == read_back.to_json()
    submits = {job["name"]: job["submit"] for job in direct.jobs}
    assert all(submits[job.name] >= job.submit for job in workload)


def test_a_split_that_is_not_a_multiple_of_the_nodes_goes_out_in_groups():
    """48 map and 32 reduce slots on 20 nodes of 2 + 2: 48 = 20 * 2 + 8, so the first 8 nodes take
    3 map slots and, to keep their 4 slots, 1 reduce slot; the other 12 take 2 + 2 (8 * 1 + 12 * 2
    = 32 reduce slots). The simulator lays the split out the same way."""
    cluster = Cluster(nodes=20, racks=2, map_slots=2, reduce_slots=2)
    workload = Workload([Job("a", 10, 4, 5.0, 5.0), Job("b", 6, 2, 3.0, 4.0)])
    plan = _plan(workload, cluster, "slots").__class__(**{**_plan(workload, cluster, "slots").__dict__,
                                                           "map_slots": 48, "reduce_slots": 32})
    files = export_files(plan, workload, cluster, "mrv1")
    assert files["tasktracker-1.hosts"].split() == [f"node{i:03d}" for i in range(1, 9)]
    assert "<value>3</value>" in files["tasktracker-1.xml"] and "<value>1</value>" in files["tasktracker-1.xml"]
    assert files["tasktracker-2.hosts"].split() == [f"node{i:03d}" for i in range(9, 21)]
    layout = build_layout(cluster, slots=(48, 32))
    per_node = [sum(1 for n in layout.slot_node if n == node) for node in range(20)]
    assert per_node == [4] * 20
    assert host_names(cluster) == [[f"node{i:03d}" for i in range(1, 11)], [f"node{i:03d}" for i in range(11, 21)]]


def test_the_schedule_keeps_the_order_and_the_releases():
    """Order c, a, b with releases a=0, b=50, c=100: c goes at 100, a right after it (it was ready),
    b after a; with ready_now all go at once, a gap apart."""
    workload = Workload([Job("a", 1, 0, 1.0, submit=0.0), Job("b", 1, 0, 1.0, submit=50.0),
                         Job("c", 1, 0, 1.0, submit=100.0)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fluid model's task floor on one-second jobs
        made = make_plan(workload, Cluster(nodes=1, map_slots=1, reduce_slots=1, heartbeat=0), "johnson")
    plan = dataclasses.replace(made, order=("c", "a", "b"), ready_now=False)  # the schedule reads these two
    schedule = submission_schedule(plan, workload)
    assert [s.job for s in schedule] == ["c", "a", "b"]
    assert [s.at for s in schedule] == pytest.approx([100.0, 100.0 + SUBMIT_GAP, 100.0 + 2 * SUBMIT_GAP])
    gaps = [0.0, SUBMIT_GAP, 2 * SUBMIT_GAP]
    assert [s.at for s in submission_schedule(plan, workload, ready_now=True)] == pytest.approx(gaps)
    assert [s.at for s in submission_schedule(plan, None)] == pytest.approx(gaps)


def test_export_refuses_other_inputs_and_used_folders(tmp_path):
    workload, cluster = Workload.from_file(NIGHTLY), Cluster.from_file(CLUSTER)
    plan = _plan(workload, cluster, "slots+johnson")
    with pytest.raises(InvalidInput, match="cluster: is not the cluster the plan was made for"):
        export_files(plan, workload, cluster.with_changes(nodes=21), "mrv1")
    with pytest.raises(InvalidInput, match="workload: is not the workload"):
        export_files(plan, Workload(list(workload)[:2]), cluster, "mrv1")
    with pytest.raises(InvalidInput, match="target"):
        export_files(plan, workload, cluster, "mesos")
    used = tmp_path / "used"
    used.mkdir()
    (used / "keep.txt").write_text("mine")
    with pytest.raises(InvalidInput, match="exists and is not an empty folder"):
        export_plan(plan, workload, cluster, "mrv1", used)
    assert sorted(p.name for p in used.iterdir()) == ["keep.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["used"]  # no staging folder left behind


def test_groups_the_simulator_cannot_lay_out_are_refused(tmp_path):
    workload, cluster = Workload.from_file(NIGHTLY), Cluster.from_file(CLUSTER)
    folder = tmp_path / "out"
    export_plan(_plan(workload, cluster, "slots+johnson"), workload, cluster, "mrv1", folder)
    hosts = (folder / "tasktracker-1.hosts").read_text().split()
    (folder / "tasktracker-1.hosts").write_text("\n".join(hosts[1:]) + "\n")
    (folder / "tasktracker-2.hosts").write_text((folder / "tasktracker-2.hosts").read_text() + hosts[0] + "\n")
    with pytest.raises(InvalidInput, match=r"tasktracker-1\.xml: hosts: per-host slots the simulator cannot lay out"):
        read_hadoop_conf([folder], warn=False)
    (folder / "tasktracker-2.hosts").write_text("node999\n")
    with pytest.raises(InvalidInput, match="host 'node999' is not in the nodes file"):
        read_hadoop_conf([folder], warn=False)
    (folder / "topology.json").unlink()
    with pytest.raises(InvalidInput, match="slot groups need the nodes file"):
        read_hadoop_conf([folder], warn=False)


@pytest.mark.parametrize(("content", "message"), [
    ("job\tposition\n", "line 1: must be the header"),
    ("position\tjob\tsubmit_at\tpool\n0\ta\t5\tplan\n1\tb\t4\tplan\n", r"line 3.submit_at: 4 is before"),
    ("position\tjob\tsubmit_at\tpool\n0\ta\tsoon\tplan\n", r"line 2.submit_at: must be a number, got 'soon'"),
    ("position\tjob\tsubmit_at\tpool\n0\ta\t1\n", "line 2: has 3 columns"),
    ("position\tjob\tsubmit_at\tpool\n1\ta\t1\tplan\n", r"line 2.position: must be 0"),
])
def test_a_broken_submission_schedule_is_one_line_naming_file_and_line(tmp_path, content, message):
    path = tmp_path / "submissions.tsv"
    path.write_text(content)
    with pytest.raises(InvalidInput, match=message) as caught:
        read_hadoop_conf([path], warn=False)
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)


def test_a_schedule_for_other_jobs_is_refused(tmp_path):
    path = tmp_path / "submissions.tsv"
    path.write_text("position\tjob\tsubmit_at\tpool\n0\tnope\t0\tplan\n")
    with pytest.raises(InvalidInput, match="'nope' is not a job"):
        hadoop_run([path], Workload.from_file(NIGHTLY), Cluster.from_file(CLUSTER))


def test_the_command_line_round_trip(tmp_path):
    """planner plan, export, then simulate the folder and the plan: the same result file."""
    runner = CliRunner()
    common = [str(NIGHTLY), "-c", str(CLUSTER)]
    assert runner.invoke(app, ["plan", *common, "-o", str(tmp_path / "plan.json")]).exit_code == 0
    exported = runner.invoke(app, ["export", str(tmp_path / "plan.json"), "-c", str(CLUSTER), "-w", str(NIGHTLY),
                                   "--to", "yarn-fair", "-o", str(tmp_path / "conf"), "--json"])
    assert exported.exit_code == 0, exported.output
    assert {"README.md", "yarn-site.xml", "fair-scheduler.xml", "submit.sh"} <= {
        row["file"] for row in json.loads(exported.stdout)["files"]}
    folder = runner.invoke(app, ["simulate", *common, "--hadoop-conf", str(tmp_path / "conf"),
                                 "-o", str(tmp_path / "a.json")])
    direct = runner.invoke(app, ["simulate", *common, "--plan", str(tmp_path / "plan.json"), "--target",
                                 "yarn-fair", "-o", str(tmp_path / "b.json")])
    assert folder.exit_code == direct.exit_code == 0, folder.output + direct.output
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    both = runner.invoke(app, ["simulate", *common, "--plan", str(tmp_path / "plan.json"), "-s", "fair"])
    assert both.exit_code == 2 and "--scheduler: --plan sets the scheduler" in both.output
    alone = runner.invoke(app, ["simulate", *common, "-s", "fair", "--target", "yarn-fair"])
    assert alone.exit_code == 2 and "--target: applies with --plan only" in alone.output


def test_a_ready_now_plan_goes_out_ready_now_and_needs_no_workload(tmp_path):
    """A plan made ready_now (or an old plan file, read so) submits every job from 0, exported or
    run, as validation runs it; a plan on arrivals needs its workload for the submit times."""
    workload = read_swim(DATA / "FB-2009_samples_24_times_1hr_0_first50jobs.tsv")
    cluster = Cluster(nodes=20)
    plan = _plan(workload, cluster, "slots+johnson").__class__(**{**_plan(workload, cluster, "slots+johnson").__dict__})
    now = make_plan(workload, cluster, "slots+johnson", ready_now=True)
    assert max(s.at for s in submission_schedule(now, workload)) < 1.0
    files = export_files(now, None, cluster, "mrv1")
    assert all(float(line.split("\t")[2]) < 1.0 for line in files["submissions.tsv"].splitlines()[1:])
    with pytest.raises(InvalidInput, match=r"workload: the plan uses the jobs' arrivals: give its workload \(-w\)"):
        export_files(plan, None, cluster, "mrv1")
    direct, read_back = _round_trip(now, workload, cluster, "mrv1", tmp_path / "now")
    assert direct.to_json() == read_back.to_json()


def test_validation_refuses_an_export_folder_as_the_cluster_as_configured(tmp_path):
    workload, cluster = Workload.from_file(NIGHTLY), Cluster.from_file(CLUSTER)
    plan = _plan(workload, cluster, "slots+johnson")
    export_plan(plan, workload, cluster, "mrv1", tmp_path / "out")
    with pytest.raises(InvalidInput, match="holds a plan's export"):
        hadoop_settings([tmp_path / "out"], cluster)


def test_hand_edited_folders_are_refused_not_misread(tmp_path):
    workload, cluster = Workload.from_file(NIGHTLY), Cluster.from_file(CLUSTER)
    folder = tmp_path / "out"
    export_plan(_plan(workload, cluster, "slots+johnson"), workload, cluster, "mrv1", folder)
    (folder / "zz.tsv").write_text("position\tjob\tsubmit_at\tpool\n")
    with pytest.raises(InvalidInput, match=r"zz\.tsv: file: is not a file Hadoop or `planner export` writes"):
        read_hadoop_conf([folder], warn=False)
    (folder / "zz.tsv").unlink()
    (folder / ".DS_Store").write_bytes(b"\x00\x01")  # hidden files are not configuration
    (folder / "phases.tsv").write_text("phase\tjob\tvms\trole\n0\tgrep-logs\t1\tprimary\n")
    with pytest.raises(InvalidInput, match="not both"):
        read_hadoop_conf([folder], warn=False)
    (folder / "phases.tsv").unlink()
    (folder / "submissions.tsv").write_text("position\tjob\tsubmit_at\tpool\n")
    with pytest.raises(InvalidInput, match=r"submissions\.tsv: file: submits no job"):
        read_hadoop_conf([folder], warn=False)
    (folder / "submissions.tsv").unlink()
    for hosts in folder.glob("*.hosts"):
        hosts.unlink()
    with pytest.raises(InvalidInput, match=r"tasktracker-1\.xml: file: a slot group needs its hosts file"):
        read_hadoop_conf([folder], warn=False)


def test_our_own_topology_reads_back_without_a_warning(tmp_path):
    """7 nodes in 3 racks are laid out 3, 2, 2: the nodes file says so and nothing is ignored."""
    workload, cluster = Workload.from_file(NIGHTLY), Cluster(nodes=7, racks=3)
    plan = _plan(workload, cluster, "slots+johnson")
    direct, read_back = _round_trip(plan, workload, cluster, "mrv1", tmp_path / "out")  # warnings are errors
    assert direct.to_json() == read_back.to_json()


def test_simulate_flags_that_do_not_go_together(tmp_path):
    runner = CliRunner()
    common = [str(NIGHTLY), "-c", str(CLUSTER)]
    assert runner.invoke(app, ["plan", *common, "-o", str(tmp_path / "plan.json")]).exit_code == 0
    assert runner.invoke(app, ["export", str(tmp_path / "plan.json"), "-c", str(CLUSTER), "-w", str(NIGHTLY),
                               "--to", "mrv1", "-o", str(tmp_path / "conf")]).exit_code == 0
    target = runner.invoke(app, ["simulate", *common, "--hadoop-conf", str(tmp_path / "conf"), "--target",
                                 "yarn-fair"])
    assert target.exit_code == 2 and "--target: does not go with --hadoop-conf" in target.output
    slots = runner.invoke(app, ["simulate", *common, "--hadoop-conf", str(tmp_path / "conf"), "--slots", "40,40"])
    assert slots.exit_code == 2 and "--slots: the folder's slot groups set the slots" in slots.output
    site = tmp_path / "hdfs-site.xml"
    site.write_text((tmp_path / "conf" / "hdfs-site.xml").read_text())
    plain = runner.invoke(app, ["simulate", *common, "--hadoop-conf", str(site), "--slots", "40,40"])
    assert plain.exit_code == 0, plain.output
    beat = runner.invoke(app, ["simulate", *common, "--plan", str(tmp_path / "plan.json"), "--heartbeat", "1"])
    assert beat.exit_code == 0, beat.output
    typed = runner.invoke(app, ["simulate", *common, "--plan", str(tmp_path / "plan.json"), "--containers"])
    assert typed.exit_code == 2 and "--containers: Hadoop 1" in typed.output
