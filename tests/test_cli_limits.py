"""Inputs from an outside fuzzing that once crashed or hung `planner`: each is now one line on
stderr with exit status 2 (or a bounded run), never a traceback."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fuzz_mutations import bomb
from tests.support.cli import error_line, planner

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
NIGHTLY, CLUSTER = EXAMPLES / "nightly.yaml", EXAMPLES / "cluster.yaml"
FIELDS = {"name": "a", "map_tasks": "4", "reduce_tasks": "1", "map_time": "10.0", "reduce_time": "5.0"}


def job_yaml(**raw: str) -> str:
    """A one-job workload file with some fields given as raw YAML text."""
    fields = {**FIELDS, **raw}
    return "jobs:\n  - {" + ", ".join(f"{key}: {value}" for key, value in fields.items()) + "}\n"




@pytest.mark.parametrize(("job", "cluster", "needle"), [
    ({"map_tasks": "100000000000000000000"}, "", "jobs[0].map_tasks: must be <= 1,000,000, got 100000000000000000000"),
    ({"map_time": "1.0e+400"}, "", "jobs[0].map_time: must be a finite number, got inf"),
    ({"map_time": "1" + "0" * 5000}, "", "(top level): line 2: a number of 5,001 characters; numbers may have at most 100"),
    ({"priority": "1100"}, "", "jobs[0].priority: must be <= 100, got 1100"),
    ({"priority": "-1100"}, "", "jobs[0].priority: must be >= -100, got -1100"),
    ({"weight": "1.0e+308"}, "", "jobs[0].weight: must be <= 1e+06, got 1e+308"),
    ({"submit": "1.0e+300"}, "", "jobs[0].submit: must be <= 1e+09"),
    ({}, "heartbeat: 1.0e+308\n", "c.yaml: heartbeat: must be <= 3600, got 1e+308"),
    ({}, "heartbeat: 1.0e-9\n", "c.yaml: heartbeat: must be 0 (no heartbeat) or >= 0.001 s, got 1e-09"),
    ({}, "nodes: 10000000\n", "c.yaml: nodes: must be <= 100,000, got 10000000"),
    ({}, "nodes: 100000\nmap_slots: 1000\n", "c.yaml: nodes: the cluster has 100,200,000 slots"),
])
def test_absurd_values_in_files_name_their_limit(tmp_path, job, cluster, needle):
    (tmp_path / "w.yaml").write_text(job_yaml(**job))
    (tmp_path / "c.yaml").write_text(cluster if "nodes" in cluster else "nodes: 4\n" + cluster)
    assert needle in error_line("simulate", tmp_path / "w.yaml", "-c", tmp_path / "c.yaml", "--scheduler", "fair")


@pytest.mark.parametrize(("args", "line"), [
    (["--task-time-cv", "1e308"], "error: --task-time-cv: must be <= 10, got 1e+308"),
    (["--slots", "1000000000,1"], "error: --slots: 1,000,000,000 + 1 slots; at most 1,000,000 in all"),
    (["--heartbeat", "1e308"], "error: --heartbeat: must be <= 3600, got 1e+308"),
    (["--delay", "1e308,1"], "error: --delay: must be <= 1e+09, got 1e+308"),
    (["--seed", "4294967296"], "error: --seed: must be <= 4,294,967,295, got 4294967296"),
    (["--seed", "abc"], "error: --seed: Input should be a valid integer, unable to parse string as an integer"),
    (["--bogus"], "error: No such option: --bogus"),
])
def test_absurd_simulate_options_name_their_limit(args, line):
    assert error_line("simulate", NIGHTLY, "-c", CLUSTER, *args) == line


@pytest.mark.parametrize(("args", "line"), [
    (["sweep", "--runs", "1000000000"], "error: --runs: must be <= 100,000, got 1000000000"),
    (["compare", "--seed", "4294967295", "--runs", "2"], "error: --seed: the seeds 4294967295..4294967296 pass 4294967295"),
    (["plan", "-k", str(10**30)], "error: -k: must be <= 100,000, got 1000000000000000000000000000000"),
    (["plan", "--time-limit", "1e9", "--strategy", "packing"], "error: --time-limit: must be <= 86400, got 1000000000.0"),
])
def test_absurd_run_options_name_their_limit(args, line):
    verb, *rest = args
    assert error_line(verb, NIGHTLY, "-c", CLUSTER, *rest) == line


def test_packing_refuses_a_cluster_beyond_its_vm_limit(tmp_path):
    (tmp_path / "big.yaml").write_text("nodes: 100\ndisks: 2\n")
    assert error_line("plan", NIGHTLY, "-c", tmp_path / "big.yaml", "--strategy", "packing").endswith(
        "big.yaml: disks: packing plans take at most 128 VMs (nodes x disks); this cluster has 200")


def test_a_batch_whose_heartbeats_would_never_end_is_refused(tmp_path):
    """A map of 3e7 s on a 3 s heartbeat: the nodes with a free reduce slot would heartbeat for years."""
    (tmp_path / "w.yaml").write_text(job_yaml(map_time="3.0e+7"))
    line = error_line("simulate", tmp_path / "w.yaml", "-c", CLUSTER)
    assert "cluster.yaml: heartbeat: the batch runs at least 3e+07 s" in line and "MAX_HEARTBEATS" in line
    status, _, _ = planner("simulate", tmp_path / "w.yaml", "-c", CLUSTER, "--heartbeat", "0")
    assert status == 0


def test_yaml_alias_bomb_is_refused_before_it_expands(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(bomb(9))
    assert len(path.read_bytes()) < 600
    clock = time.perf_counter()
    assert error_line("simulate", path, "-c", CLUSTER).endswith("aliases expand to more than 100,000 nodes")
    assert time.perf_counter() - clock < 5


@pytest.mark.parametrize(("name", "text", "needle"), [
    ("deep.json", "[" * 100_000 + "]" * 100_000, "deep.json: (top level): document is nested too deeply"),
    ("deep.yaml", "jobs: " + "[" * 100_000, "deep.yaml: (top level): line 1: nested more than 64 levels deep"),
    ("rec.yaml", "jobs: &a [*a]\n", "alias *a refers to no finished anchor (undefined or recursive)"),
    ("long.yaml", job_yaml(pool="x" * 300_000, poool="1"), "jobs[0].poool: unknown key"),
])
def test_nested_recursive_and_huge_documents(tmp_path, name, text, needle):
    (tmp_path / name).write_text(text)
    line = error_line("simulate", tmp_path / name, "-c", CLUSTER)
    assert needle in line and len(line) <= 1000


def test_a_huge_value_is_cut_in_the_message(tmp_path):
    (tmp_path / "w.yaml").write_text(job_yaml(pool="[" + ", ".join(["'" + "x" * 1000 + "'"] * 1000) + "]"))
    line = error_line("simulate", tmp_path / "w.yaml", "-c", CLUSTER)
    assert "jobs[0].pool: must be a string, got ['xxx" in line and len(line) < 300


def test_csv_cell_over_128_kib(tmp_path):
    (tmp_path / "r.csv").write_text("job,nodes,runtime\npi,2," + "9" * 200_000 + "\n")
    assert error_line("fit", tmp_path / "r.csv") == "error: " + str(tmp_path / "r.csv") + (
        ": line 2: a cell is longer than 128 KiB")


def test_fifo_directory_device_and_missing_files_never_block(tmp_path):
    os.mkfifo(tmp_path / "pipe.yaml")
    (tmp_path / "dir.yaml").mkdir()
    (tmp_path / "zero.yaml").symlink_to("/dev/zero")
    (tmp_path / "file.yaml").write_text("nodes: 2\n")
    for name, problem in (("pipe.yaml", "is not a regular file (a named pipe), expected a file"),
                          ("dir.yaml", "is a directory, expected a file"),
                          ("zero.yaml", "is not a regular file (a character device), expected a file"),
                          ("missing.yaml", "no such file"),
                          ("file.yaml/inner.yaml", "cannot read: Not a directory")):
        line = error_line("simulate", tmp_path / name, "-c", CLUSTER)
        assert line == f"error: {tmp_path / name}: (top level): {problem}"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_unreadable_file(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text("jobs: []\n")
    path.chmod(0)
    assert error_line("simulate", path, "-c", CLUSTER).endswith("(top level): cannot read: Permission denied")


def test_rumen_failed_job_with_task_counts_and_no_task_list(tmp_path, data_dir):
    good = (data_dir / "wordcount.json").read_text()
    failed = ('{"jobID": "job_x", "outcome": "FAILED", "submitTime": 1285322645611, "totalMaps": 5, '
              '"mapTasks": 5, "reduceTasks": 2}\n')
    (tmp_path / "t.json").write_text(good + "\n" + failed)
    status, _, stderr = planner("import", "rumen", tmp_path / "t.json", "--json")
    assert status == 0 and stderr == f"warning: TraceWarning: {tmp_path / 't.json'}: job_x: outcome 'FAILED', skipped\n"
    assert error_line("import", "rumen", tmp_path / "t.json", "--tasks-csv", tmp_path / "t.csv").endswith(
        f"t.json: jobs[1] (line {good.count(chr(10)) + 2}).mapTasks: must be a list of tasks, got int")


def test_trace_errors_name_the_file(tmp_path, data_dir):
    good = (data_dir / "wordcount.json").read_text()
    (tmp_path / "twice.json").write_text(good + "\n" + good)
    assert error_line("import", "rumen", tmp_path / "twice.json") == (
        f"error: {tmp_path / 'twice.json'}: jobs[1] (line {good.count(chr(10)) + 2}).name: duplicate job name "
        "'job_201009241532_0001' (also jobs[0] (line 1))")
    (tmp_path / "big.tsv").write_text("job0\t1\t1\t" + "9" * 400 + "\t10\t10\n")
    assert error_line("import", "swim", tmp_path / "big.tsv").endswith(
        "big.tsv: line 1.map_input_bytes: a number of 400 characters; numbers may have at most 100")
    (tmp_path / "big.tsv").write_text("job0\t1\t1\t1e400\t10\t10\n")
    assert error_line("import", "swim", tmp_path / "big.tsv").endswith("line 1.map_input_bytes: must be an integer, got inf")


def test_fit_never_writes_a_non_finite_parameter(tmp_path):
    (tmp_path / "r.csv").write_text("job,nodes,runtime\nx,100000,1\nx,1000000,1e-300\n")
    line = error_line("fit", tmp_path / "r.csv", "-o", tmp_path / "out.yaml")
    assert line.startswith(f"error: {tmp_path / 'r.csv'}: runtime: job 'x': the fitted power law F(n) = inf")
    assert not (tmp_path / "out.yaml").exists()
    (tmp_path / "w.yaml").write_text("jobs:\n  - {name: y, map_tasks: 1, map_time: 1}\n")
    (tmp_path / "ok.csv").write_text("job,nodes,runtime\nx,2,10\nx,4,5\n")
    assert error_line("fit", tmp_path / "ok.csv", "--workload", tmp_path / "w.yaml").startswith(
        f"error: {tmp_path / 'ok.csv'}: job: no job named 'x' in the workload")


def _live_in_group(group: int) -> list[int]:
    """Processes of a process group that are not zombies (read from /proc)."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == group and fields[0] != "Z":
                alive.append(int(stat.parent.name))
    return alive


def _default_interrupt() -> None:
    # A shell runs background jobs with Ctrl-C ignored, and children inherit that (CI started
    # with `&`): give the command the default, as a terminal would.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(*args: object) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "planner", *map(str, args)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_default_interrupt)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_ctrl_c_while_starting_exits_130_without_a_traceback(tmp_path):
    # The command starts in a few tenths of a second; a job of a million maps keeps it busy for
    # seconds after, so the interrupt lands while it starts or works, never after it is done.
    (tmp_path / "big.yaml").write_text("jobs:\n  - {name: big, map_tasks: 1000000, map_time: 1}\n")
    process = _start("simulate", tmp_path / "big.yaml", "-c", CLUSTER)
    _wait_until_our_code_runs(process.pid)
    os.killpg(process.pid, signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130 and "Traceback" not in stderr, stderr


def test_a_ctrl_c_inside_exec_of_a_string_still_exits_130(tmp_path):
    """CPython marks a KeyboardInterrupt raised in ``exec`` of a string as unhandled even once
    caught, and ``python -m`` then ends the process by SIGINT (-2), not with the command's 130:
    the race the Ctrl-C test above met when the interrupt landed in a dataclass being built.
    Here the command's work is that ``exec``, interrupted every time."""
    (tmp_path / "interrupted_command.py").write_text(
        "from planner.cli import main as cli\n"
        "def interrupted(argv=None):\n"
        "    exec('raise KeyboardInterrupt')  # as a dataclass builds its __init__\n"
        "cli.run = interrupted\n"
        "raise SystemExit(cli.main([]))\n")
    done = subprocess.run([sys.executable, "-m", "interrupted_command"], cwd=tmp_path, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, preexec_fn=_default_interrupt,
                          timeout=60)
    assert done.returncode == 130 and "Traceback" not in done.stderr, (done.returncode, done.stderr)


def _wait_until_our_code_runs(pid: int) -> None:
    """Until the command runs our code (numpy's core is mapped in: `simulate` imports it once its
    options are read), at most 30 s. A fixed sleep is not enough on a loaded machine: a Ctrl-C
    that lands while the interpreter itself starts kills it (by the signal, or as a fatal error
    in its site import) before any of our code can answer it."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            if "_multiarray_umath" in Path(f"/proc/{pid}/maps").read_text():
                return
        time.sleep(0.01)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_sigterm_ends_the_local_pool_workers():
    process = _start("sweep", NIGHTLY, "-c", CLUSTER, "-s", "fifo", "-s", "fair", "--runs", "5000")
    deadline = time.monotonic() + 60
    while len(_live_in_group(process.pid)) < 2 and time.monotonic() < deadline:  # the workers are up
        time.sleep(0.2)
    assert len(_live_in_group(process.pid)) >= 2
    process.send_signal(signal.SIGTERM)
    process.communicate(timeout=60)
    deadline = time.monotonic() + 10
    while _live_in_group(process.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _live_in_group(process.pid) == []
