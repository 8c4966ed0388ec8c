"""A real Dask cluster on this machine: `dask scheduler` and two `dask worker` processes on
127.0.0.1, as an operator starts them on several machines (docs/proving-plans.md, "Spreading runs
over a Dask cluster"). `planner sweep` and `planner validate` with `--executor dask://HOST:PORT`
write the same bytes as with `--executor serial` and `--executor local`, and the runs are seen
executing on the cluster's workers, so the test cannot pass by running them here. Then the ways a
cluster fails a sweep (the scheduler killed mid-sweep, a worker that cannot import batchplan)
end in one clear error instead of a hang.

Every process is started in its own process group and killed with it in teardown, pass or
fail; on Linux they also get SIGKILL when the test process dies (killed, teardown or not);
elsewhere workers exit 60 s after their scheduler is gone, and a scheduler after 10 minutes
without work.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed", reason="needs Dask: pip install 'batchplan[distributed]'")

from models import InvalidInput  # noqa: E402
from planner.proof.sweep import Spec, sweep  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
WORKLOAD, CLUSTER = EXAMPLES / "nightly.yaml", EXAMPLES / "cluster.yaml"
DASK_SCRIPT = Path(sys.executable).parent / "dask"
START_SECONDS = 60.0


#: On Linux a started process gets SIGKILL when this one dies (even by SIGKILL, without teardown).
DIE_WITH_PARENT = (
    [sys.executable, "-c", "import ctypes, os, sys; ctypes.CDLL(None).prctl(1, 9); os.execv(sys.argv[1], sys.argv[1:])"]
    if sys.platform.startswith("linux")
    else []
)


def dask_command(*args: object) -> list[str]:
    """`dask ...` from the environment running the tests (the console script, else the module)."""
    command = [str(DASK_SCRIPT)] if DASK_SCRIPT.exists() else [sys.executable, "-m", "dask"]
    return DIE_WITH_PARENT + command + [str(a) for a in args]


def environment(*first: Path) -> dict[str, str]:
    """This checkout on the path of every process, so that it runs this code even where batchplan
    is not installed; ``first`` goes before it (to shadow a package)."""
    paths = [*map(str, first), str(ROOT), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}


class Processes:
    """Processes started in their own process groups, with their output in log files."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.started = folder, []

    def start(self, name: str, command: list[str], env: dict[str, str] | None = None) -> subprocess.Popen:
        log = (self.folder / f"{name}.log").open("wb")
        process = subprocess.Popen(
            command,
            cwd=self.folder,
            env=env or environment(),
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        log.close()
        self.started.append((name, process))
        return process

    def log(self, name: str) -> str:
        return (self.folder / f"{name}.log").read_text(errors="replace")[-3000:]

    def stop(self, process: subprocess.Popen) -> None:
        """The process and everything it started (a worker's nanny and its worker process):
        SIGTERM to its group, then SIGKILL to whatever is left of it."""
        with contextlib.suppress(ProcessLookupError):  # start_new_session: the group is its own
            os.killpg(process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=10)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)

    def stop_all(self) -> None:
        for _, process in reversed(self.started):  # workers before their scheduler
            self.stop(process)

    def scheduler(self, name: str = "scheduler") -> str:
        """Start `dask scheduler` on a free port of 127.0.0.1; its address once it listens."""
        address_file = self.folder / f"{name}.json"
        options = "--host 127.0.0.1 --port 0 --no-dashboard --dashboard-address 127.0.0.1:0 --idle-timeout 600"
        process = self.start(name, dask_command("scheduler", *options.split(), "--scheduler-file", address_file))
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if process.poll() is not None:
                pytest.fail(f"dask scheduler exited with {process.returncode}:\n{self.log(name)}")
            try:
                return json.loads(address_file.read_text())["address"]
            except (OSError, ValueError, KeyError):  # not written yet, or half written
                time.sleep(0.1)
        pytest.fail(f"dask scheduler did not start in {START_SECONDS:g} s:\n{self.log(name)}")

    def worker(self, address: str, name: str, env: dict[str, str] | None = None) -> subprocess.Popen:
        options = f"--nworkers 1 --nthreads 1 --no-dashboard --name {name} --death-timeout 60"
        return self.start(
            name, dask_command("worker", address, *options.split(), "--local-directory", self.folder / name), env
        )

    def wait_for_workers(self, client, count: int, names: list[str]) -> None:
        deadline = time.monotonic() + START_SECONDS
        while len(client.scheduler_info()["workers"]) < count:
            for name, process in self.started:
                if name in names and process.poll() is not None:
                    pytest.fail(f"{name} exited with {process.returncode}:\n{self.log(name)}")
            if time.monotonic() > deadline:
                pytest.fail(
                    f"{count} workers did not join in {START_SECONDS:g} s:\n"
                    + "\n".join(self.log(name) for name in names)
                )
            time.sleep(0.2)


@pytest.fixture
def processes(tmp_path) -> Iterator[Processes]:
    started = Processes(tmp_path)
    try:
        yield started
    finally:
        started.stop_all()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Iterator[tuple[str, object, Processes]]:
    """A scheduler and two single-threaded workers; yields the address, a client to look at
    the workers with, and the processes."""
    started = Processes(tmp_path_factory.mktemp("dask"))
    try:
        address = started.scheduler()
        names = ["worker-a", "worker-b"]
        for name in names:
            started.worker(address, name)
        with distributed.Client(address, timeout="30s", set_as_default=False) as client:
            started.wait_for_workers(client, 2, names)
            yield address, client, started
    finally:
        started.stop_all()


def executed(client) -> dict[str, int]:
    """Runs executed so far by each worker, by its name."""
    counts = client.run(lambda dask_worker: (dask_worker.name, dask_worker.state.executed_count))
    return dict(counts.values())


def planner(folder: Path, *args: object) -> subprocess.CompletedProcess:
    """`planner ARGS` as a process of its own, as an operator runs it."""
    done = subprocess.run(
        [sys.executable, "-m", "planner", *map(str, args)],
        cwd=folder,
        env=environment(),
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return done


EXECUTORS = ("serial", "local", "dask")


def planner_on(executor: str, cluster, folder: Path, *args: object) -> tuple[subprocess.CompletedProcess, int]:
    """`planner ARGS --executor E` (``dask``: the test cluster), and how many runs the cluster's
    workers executed meanwhile, checked to be none unless on Dask. How Dask spreads them over its two
    workers is its scheduler's choice: under load one worker has taken all 52 runs of a validation
    (three times in two sessions), so the test does not ask for some on each."""
    address, client, _ = cluster
    where = address.replace("tcp://", "dask://") if executor == "dask" else executor
    before = executed(client)
    done = planner(folder, *args, "--executor", where)
    after = executed(client)
    ran = {name: after[name] - before.get(name, 0) for name in after}
    if executor == "dask":
        assert sum(ran.values()) > 0, ran
    else:
        assert sum(ran.values()) == 0, ran
    return done, sum(ran.values())


def test_sweep_on_the_cluster_writes_the_bytes_of_local_runs(cluster, tmp_path):
    """12 runs (FIFO and Fair, two splits, three seeds, task times with cv 0.3 so that seeds
    matter): the -o CSV and the --json output are byte for byte the same on every executor;
    all 12 ran on the cluster."""
    outputs = {}
    for executor in EXECUTORS:
        done, ran = planner_on(
            executor,
            cluster,
            tmp_path,
            "sweep",
            WORKLOAD,
            "-c",
            CLUSTER,
            "-s",
            "fifo",
            "-s",
            "fair",
            "--slots",
            "40,40",
            "--slots",
            "48,32",
            "--runs",
            3,
            "--task-time-cv",
            0.3,
            "-o",
            f"{executor}.csv",
            "--json",
        )
        if executor == "dask":
            assert ran == 12
        outputs[executor] = (done.stdout, (tmp_path / f"{executor}.csv").read_bytes())
    assert len(outputs["serial"][1].splitlines()) == 13  # header and 12 runs
    assert outputs["dask"] == outputs["local"] == outputs["serial"]


@pytest.fixture(scope="module")
def plan_file(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("plan")
    planner(folder, "plan", WORKLOAD, "-c", CLUSTER, "--strategy", "slots+johnson", "-o", "plan.json")
    return folder / "plan.json"


def test_validate_on_the_cluster_writes_the_report_of_local_runs(cluster, plan_file, tmp_path):
    """A 4-run validation of the example plan: every file of the -o report (validation.json,
    report.md, report.html, the PNG figures) is byte for byte the same on every executor, and
    so is the --json output but for its "timings", the validation's wall time (which
    validation.json leaves out for that reason). Each simulation (a sample) ran on the cluster."""
    reports, printed = {}, {}
    for executor in EXECUTORS:
        done, ran = planner_on(
            executor,
            cluster,
            tmp_path,
            "validate",
            WORKLOAD,
            "-c",
            CLUSTER,
            "-p",
            plan_file,
            "--runs",
            4,
            "-o",
            executor,
            "--json",
        )
        folder = tmp_path / executor
        reports[executor] = {path.name: path.read_bytes() for path in sorted(folder.iterdir())}
        samples = json.loads(reports[executor]["validation.json"])["samples"]
        if executor == "dask":
            assert ran == len(samples)
        data = json.loads(done.stdout)
        assert data.pop("timings")["validation"] > 0
        printed[executor] = data
    assert {"validation.json", "report.md", "report.html", "gantt.png"} <= set(reports["serial"])
    assert reports["dask"] == reports["local"] == reports["serial"]
    assert printed["dask"] == printed["local"] == printed["serial"]


def test_a_scheduler_killed_mid_sweep_ends_it_with_one_error(processes, monkeypatch):
    """Killed after the second of 40 runs: Dask's client cancels the runs (a FutureCancelledError
    and a traceback before the fix), or, when the loss races with the submission of many runs,
    its reconnection fails and nothing ever finishes (the test below). Either way the sweep
    stops within seconds naming the executor (DASK_CONNECT_SECONDS, 2 s here)."""
    monkeypatch.setattr("planner.proof.sweep.DASK_CONNECT_SECONDS", 2.0)
    address = processes.scheduler()
    processes.worker(address, "worker")
    with distributed.Client(address, timeout="30s", set_as_default=False) as client:
        processes.wait_for_workers(client, 1, ["worker"])
    scheduler = processes.started[0][1]

    def kill_at_two(done: int, total: int) -> None:
        if done == 2:
            os.killpg(scheduler.pid, signal.SIGKILL)

    clock = time.monotonic()
    with pytest.raises(InvalidInput, match=r"^executor: lost the Dask scheduler at dask://127\.0\.0\.1:\d+"):
        sweep([Spec(time.sleep, (0.2,)) for _ in range(40)], address.replace("tcp://", "dask://"), progress=kill_at_two)
    assert time.monotonic() - clock < 30


def test_a_worker_that_cannot_import_batchplan_is_an_error_not_a_hang(processes, monkeypatch, tmp_path):
    """A worker whose `planner` does not import (another environment) dies at its first run,
    and a scheduler with no worker would hold the sweep forever: after DASK_NO_WORKERS_SECONDS
    (2 s here) it fails, saying what to do."""
    monkeypatch.setattr("planner.proof.sweep.DASK_NO_WORKERS_SECONDS", 2.0)
    broken = tmp_path / "broken"
    (broken / "planner").mkdir(parents=True)
    (broken / "planner" / "__init__.py").write_text('raise ImportError("not this environment")\n')
    address = processes.scheduler()
    worker = processes.worker(address, "worker", env=environment(broken))
    with distributed.Client(address, timeout="30s", set_as_default=False) as client:
        processes.wait_for_workers(client, 1, ["worker"])
    with pytest.raises(InvalidInput, match=r"has had no worker for 2 s; start workers where batchplan is installed"):
        sweep([Spec(abs, (-value,)) for value in range(4)], address.replace("tcp://", "dask://"))
    assert "not this environment" in processes.log("worker")
    assert worker.wait(timeout=30) is not None  # the worker died of it


class StuckClient:
    """A Dask client as one is left when its reconnection to a lost scheduler failed (Dask
    2026.8: "dictionary changed size during iteration" in Client._reconnect, when the scheduler
    dies while runs are being submitted): reconnecting for ever, its runs never finishing."""

    status = "connecting"

    def submit(self, *args, **kwargs):
        return self

    def add_done_callback(self, callback):
        pass


def test_a_client_that_never_reconnects_ends_the_sweep(monkeypatch):
    from planner.proof.sweep import _on_dask

    monkeypatch.setattr("planner.proof.sweep.DASK_CONNECT_SECONDS", 0.3)
    monkeypatch.setattr("planner.proof.sweep.DASK_CHECK_SECONDS", 0.05)
    with pytest.raises(InvalidInput, match=r"^executor: lost the Dask scheduler at dask://h:1: no answer for 0.3 s$"):
        _on_dask(StuckClient(), [Spec(abs, (1,))] * 3, lambda step: None, "dask://h:1")
