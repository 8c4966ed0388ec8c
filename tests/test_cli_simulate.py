"""`planner simulate`: summary tables and --json, the result file, settings files, exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from models import Cluster, Workload
from planner.cli.main import app
from planner.simulator import Capacity, Fair, Pool, Preemption, Queue, SimOptions, simulate

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
NIGHTLY = EXAMPLES / "nightly.yaml"
CLUSTER = EXAMPLES / "cluster.yaml"
SWIM = ROOT / "planner" / "data" / "FB-2009_samples_24_times_1hr_0_first50jobs.tsv"
SUMMARY_FIELDS = ["scheduler", "jobs", "attempts", "makespan", "mean_response", "node_local", "rack_local",
                  "off_rack", "utilization", "fairness", "killed_work", "suspensions", "kills", "wasted_work",
                  "deadline_misses"]

# nightly.yaml's jobs are in pools "production" and "research".
QUEUES = """\
scheduler: capacity
queues:
  - {name: production, capacity: 0.6}
  - {name: research, capacity: 0.4, max_capacity: 0.5}
"""
POOLS = """\
scheduler: fair
pools:
  - {name: production, weight: 2, min_map: 10, min_reduce: 4}
  - {name: research, mode: fifo}
delay: [15, 15]
preemption: {min_share_timeout: 30}
options: {reduce_slowstart: 0.8}
"""

runner = CliRunner()


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def summary_of(result) -> dict:
    """The result record of ``simulate --json``."""
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["result"]


@pytest.fixture
def queues(tmp_path) -> Path:
    path = tmp_path / "queues.yaml"
    path.write_text(QUEUES)
    return path


@pytest.fixture
def pools(tmp_path) -> Path:
    path = tmp_path / "pools.yaml"
    path.write_text(POOLS)
    return path


@pytest.fixture(scope="module")
def swim_workload(tmp_path_factory) -> Path:
    """The bundled SWIM sample, imported with `planner import swim`."""
    path = tmp_path_factory.mktemp("swim") / "fb50.yaml"
    result = invoke("import", "swim", SWIM, "-o", path)
    assert result.exit_code == 0, result.output
    return path


def test_table_shows_the_summary():
    result = invoke("simulate", NIGHTLY, "--cluster", CLUSTER)
    assert result.exit_code == 0, result.output
    assert "simulation of nightly.yaml" in result.output
    for field in SUMMARY_FIELDS:
        assert field in result.output
    assert result.stderr == ""


@pytest.mark.parametrize("scheduler", ["fifo", "fair", "capacity"])
def test_each_scheduler_json_matches_the_library(scheduler, queues):
    """The printed summary is SimResult.summary() of the same run made in Python."""
    settings = ["--config", queues] if scheduler == "capacity" else []
    result = invoke("simulate", NIGHTLY, "-c", CLUSTER, "--scheduler", scheduler, *settings, "--json")
    row = summary_of(result)
    assert list(row) == SUMMARY_FIELDS
    assert row["scheduler"] == scheduler and row["jobs"] == 5
    assert row["node_local"] + row["rack_local"] + row["off_rack"] == pytest.approx(1.0)
    chosen = (Capacity([Queue("production", 0.6), Queue("research", 0.4, 0.5)]) if scheduler == "capacity"
              else scheduler)
    expected = simulate(Workload.from_file(NIGHTLY), Cluster.from_file(CLUSTER), chosen).summary()
    assert row == pytest.approx(expected)


def test_output_file_is_the_library_json_and_repeats_byte_for_byte(tmp_path):
    args = ["simulate", NIGHTLY, "-c", CLUSTER, "--scheduler", "fair", "--delay", "15,15", "--task-time-cv", "0.5",
            "--seed", "7"]
    first, second, other = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    assert invoke(*args, "-o", first).exit_code == 0
    assert invoke(*args, "-o", second).exit_code == 0
    assert first.read_bytes() == second.read_bytes()
    expected = simulate(Workload.from_file(NIGHTLY), Cluster.from_file(CLUSTER), Fair(delay=(15, 15)), seed=7,
                        options=SimOptions(task_time_cv=0.5))
    assert first.read_text() == expected.to_json()
    data = json.loads(first.read_text())
    assert data["seed"] == 7 and data["scheduler"]["delay"] == {"node_wait": 15.0, "rack_wait": 15.0,
                                                               "intensities": None}
    assert len(data["jobs"]) == 5 and data["summary"]["attempts"] == len(data["tasks"])
    # another seed draws other task times
    assert invoke(*args[:-1], "8", "-o", other).exit_code == 0
    assert other.read_bytes() != first.read_bytes()
    assert not list(tmp_path.glob(".*.tmp"))  # the atomic write left no temporary file


def test_settings_file_and_flags(pools, tmp_path):
    """--config gives pools, delay, preemption and options; flags replace the file's values."""
    out = tmp_path / "r.json"
    result = invoke("simulate", NIGHTLY, "-c", CLUSTER, "--config", pools, "-o", out, "--json")
    assert summary_of(result)["jobs"] == 5
    data = json.loads(out.read_text())
    assert data["scheduler"]["pools"][0] == {"name": "production", "weight": 2.0, "min_map": 10, "min_reduce": 4,
                                             "mode": "fair", "max_running": None}
    assert data["scheduler"]["preemption"]["min_share_timeout"] == 30.0
    assert data["options"]["reduce_slowstart"] == 0.8
    built = Fair([Pool("production", 2, 10, 4), Pool("research", mode="fifo")], delay=(15, 15),
                 preemption=Preemption(min_share_timeout=30))
    expected = simulate(Workload.from_file(NIGHTLY), Cluster.from_file(CLUSTER), built,
                        options=SimOptions(reduce_slowstart=0.8))
    assert out.read_text() == expected.to_json()

    result = invoke("simulate", NIGHTLY, "-c", CLUSTER, "--config", pools, "--scheduler", "fair",
                    "--delay", "5,0", "--slowstart", "0.5", "-o", out)
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["scheduler"]["delay"] == {"node_wait": 5.0, "rack_wait": 0.0, "intensities": None}
    assert data["options"]["reduce_slowstart"] == 0.5
    assert data["scheduler"]["pools"][1]["mode"] == "fifo"  # the rest of the file still applies


def test_slots_containers_and_heartbeat(tmp_path):
    out = tmp_path / "r.json"
    result = invoke("simulate", NIGHTLY, "-c", CLUSTER, "--slots", "30,10", "--heartbeat", "0", "-o", out)
    assert result.exit_code == 0, result.output
    expected = simulate(Workload.from_file(NIGHTLY), Cluster.from_file(CLUSTER).with_changes(heartbeat=0.0),
                        slots=(30, 10))
    assert out.read_text() == expected.to_json()
    assert json.loads(out.read_text())["slots"] == 40

    result = invoke("simulate", NIGHTLY, "-c", CLUSTER, "--containers", "-o", out)
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["options"]["containers"] is True and data["slots"] == 80  # 20 nodes x (2 + 2)


@pytest.mark.parametrize("scheduler", ["fifo", "fair", "capacity"])
def test_swim_sample_under_each_scheduler(swim_workload, scheduler):
    """The bundled SWIM sample (50 jobs, one pool "default") runs under every scheduler."""
    result = invoke("simulate", swim_workload, "-c", CLUSTER, "--scheduler", scheduler, "--json")
    row = summary_of(result)
    assert row["jobs"] == 50 and row["killed_work"] == 0
    # 1,291 maps (168 with --no-split-output: 8 map-only jobs write more than they read) and 48
    # reduces (see `planner import swim`): one attempt each when nothing is killed
    assert row["attempts"] == 1291 + 48
    assert 0 < row["utilization"] <= 1 and 0 < row["fairness"] <= 1


def test_swim_sample_delay_scheduling_raises_node_locality(swim_workload, tmp_path):
    plain = summary_of(invoke("simulate", swim_workload, "-c", CLUSTER, "--scheduler", "fair", "--json"))
    delayed = summary_of(
        invoke("simulate", swim_workload, "-c", CLUSTER, "--scheduler", "fair", "--delay", "15,15", "--json"),
    )
    assert delayed["node_local"] > plain["node_local"]


def test_help_shows_examples():
    result = invoke("simulate", "--help")
    assert result.exit_code == 0 and "Example: planner simulate" in result.output
    assert "capacity, fair, fifo" in result.output


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--delay", "15"], "error: --delay: must be two numbers separated by a comma, e.g. 15,15; got '15'"),
        (["--delay", "a,b"], "error: --delay: must be two numbers separated by a comma, e.g. 15,15; got 'a,b'"),
        (["--delay", "15,-1"], "error: --delay: must be >= 0, got -1.0"),
        (["--slots", "30"], "error: --slots: must be two integers separated by a comma, e.g. 30,10; got '30'"),
        (["--slots", "30,0"], "error: --slots: jobs have reduce tasks but the cluster has no reduce slots"),
        (["--scheduler", "lifo"],
         "error: --scheduler: unknown scheduler 'lifo'; known: capacity, fair, fifo, fresh, natjam"),
        (["--scheduler", "capacity"],
         f"error: {NIGHTLY}: jobs[0].pool: no queue named 'production'; queues: default"),
        (["--slowstart", "2"], "error: --slowstart: must be <= 1, got 2.0"),
        (["--task-time-cv", "-1"], "error: --task-time-cv: must be >= 0, got -1.0"),
        (["--heartbeat", "-3"], "error: --heartbeat: must be >= 0, got -3.0"),
        (["--seed", "-1"], "error: --seed: must be >= 0, got -1"),
    ],
)
def test_bad_flags_exit_2_naming_the_flag(args, line):
    result = invoke("simulate", NIGHTLY, "-c", CLUSTER, *args)
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [line]
    assert result.stdout == ""


BAD_FILES = [
    ({"typo.yaml": "scheduler: fair\npools:\n  - {name: production}\n  - {name: research, weigth: 2}\n"},
     ["--config", "{tmp}/typo.yaml"], "typo.yaml: pools[1].weigth: unknown key; expected one of max_map, max_reduce, max_running"),
    ({"one.yaml": "scheduler: capacity\nqueues:\n  - {name: production, capacity: 0.6}\n"},
     ["--config", "{tmp}/one.yaml"], "nightly.yaml: jobs[2].pool: no queue named 'research'; queues: production"),
    ({"cap.yaml": QUEUES}, ["--config", "{tmp}/cap.yaml", "--scheduler", "fair"],
     "cap.yaml: scheduler: the settings are for 'capacity', but 'fair' was asked for"),
    ({"opt.yaml": "options: {slowstart: 1}\n"}, ["--config", "{tmp}/opt.yaml"],
     "opt.yaml: options.slowstart: unknown key"),
    ({"fifo.yaml": "pools: [{name: production}]\n"}, ["--config", "{tmp}/fifo.yaml"],
     "fifo.yaml: pools: unknown key for the fifo scheduler; expected one of delay, options, order, scheduler"),
    ({}, ["--config", "{tmp}/missing.yaml"], "missing.yaml: (top level): no such file"),
    ({}, ["-o", "{tmp}/result.txt"], "result.txt: --output: simulation results are written as .json"),
]


@pytest.mark.parametrize(("files", "args", "needle"), BAD_FILES)
def test_bad_settings_files_exit_2_with_one_line(tmp_path, files, args, needle):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    result = invoke("simulate", NIGHTLY, "-c", CLUSTER, *(a.format(tmp=tmp_path) for a in args))
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0]
    assert result.stdout == ""
    assert not (tmp_path / "result.txt").exists()


@pytest.mark.parametrize(("files", "args", "needle"), [BAD_FILES[0], BAD_FILES[1]])
def test_bad_input_in_a_real_process_has_no_traceback(tmp_path, files, args, needle):
    """Run as the operator would: status 2, one line on stderr, nothing on stdout."""
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    argv = [a.format(tmp=tmp_path) for a in args]
    completed = subprocess.run(
        [sys.executable, "-m", "planner", "simulate", str(NIGHTLY), "--cluster", str(CLUSTER), *argv],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert completed.returncode == 2, completed.stderr
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1, completed.stderr
    assert lines[0].startswith("error: ") and needle in lines[0]
    assert "Traceback" not in completed.stderr and completed.stdout == ""


def test_job_without_tasks_exits_2_naming_the_job(tmp_path):
    workload = tmp_path / "profiled.yaml"
    workload.write_text("jobs:\n  - {name: scan, map_tasks: 4, map_time: 10}\n"
                        "  - {name: train, profile: {kind: power_law, a: 600, b: -1}}\n")
    result = invoke("simulate", workload, "-c", CLUSTER)
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        f"error: {workload}: jobs[1].map_tasks: job 'train' has no tasks to simulate"
    ]


def test_failed_run_writes_no_result_file(tmp_path):
    out = tmp_path / "result.json"
    result = invoke("simulate", NIGHTLY, "-c", CLUSTER, "--scheduler", "capacity", "-o", out)
    assert result.exit_code == 2 and not out.exists()
