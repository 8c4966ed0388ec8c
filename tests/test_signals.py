"""SIGTERM and Ctrl-C (SIGINT) stop the `planner` command cleanly: exit status 143 or 130, no
traceback, no temporary file left by the atomic writer, no worker process left (docs/limits.md)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from planner.cli.console import exits_cleanly
from planner.cli.startup import Terminated

ROOT = Path(__file__).resolve().parent.parent
CLUSTER = ROOT / "examples" / "cluster.yaml"
NIGHTLY = ROOT / "examples" / "nightly.yaml"

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc and POSIX signals")


def _default_signals() -> None:
    # A shell starts background jobs with Ctrl-C ignored and children inherit it: give the
    # command the defaults, as a terminal would.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _start(*args: object, cwd: Path = ROOT) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "planner", *map(str, args)], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, preexec_fn=_default_signals)


def _big_batch(folder: Path) -> Path:
    """Four jobs of 20,000 maps: a result file of some 14 MB, written for seconds."""
    path = folder / "big.yaml"
    path.write_text("jobs:\n" + "".join(
        f"  - {{name: j{n}, map_tasks: 20000, reduce_tasks: 100, map_time: 10, reduce_time: 20}}\n"
        for n in range(4)))
    return path


def _temporaries(folder: Path) -> list[Path]:
    return sorted(folder.glob(".out.json.*.tmp"))


def _alive(pid: int) -> bool:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    return False


def _live_in_group(group: int) -> list[int]:
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == group and fields[0] != "Z":
                alive.append(int(stat.parent.name))
    return alive


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_while_the_result_is_written_removes_the_temporary_file(tmp_path, signum, status):
    process = _start("simulate", _big_batch(tmp_path), "-c", CLUSTER, "-o", "out.json", cwd=tmp_path)
    deadline = time.monotonic() + 120
    while not _temporaries(tmp_path) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    assert _temporaries(tmp_path), "the result was never being written"
    os.killpg(process.pid, signum)  # as a terminal's Ctrl-C or a supervisor's stop would
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == status, (process.returncode, stderr)
    assert "Traceback" not in stderr and "Error" not in stderr, stderr
    assert _temporaries(tmp_path) == [] and not (tmp_path / "out.json").exists()


def _catches(pid: int, signum: int) -> bool:
    """Whether process ``pid`` has a handler for ``signum`` (its SigCgt mask in /proc)."""
    with contextlib.suppress(OSError, StopIteration):
        line = next(line for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                    if line.startswith("SigCgt:"))
        return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    return False


def test_sigterm_while_the_command_starts_exits_143_quietly(tmp_path):
    """From the moment `planner` installs its handler (first thing as it is imported), while the
    rest of the command line is still being imported."""
    process = _start("simulate", _big_batch(tmp_path), "-c", CLUSTER, "-o", "out.json", cwd=tmp_path)
    deadline = time.monotonic() + 30
    while not _catches(process.pid, signal.SIGTERM) and time.monotonic() < deadline:
        time.sleep(0.001)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 143 and "Traceback" not in stderr, (process.returncode, stderr)
    assert _temporaries(tmp_path) == []


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_during_a_sweep_stops_its_workers_quietly(signum, status):
    process = _start("sweep", NIGHTLY, "-c", CLUSTER, "-s", "fifo", "-s", "fair", "--runs", "5000")
    deadline = time.monotonic() + 60
    while len(_live_in_group(process.pid)) < 2 and time.monotonic() < deadline:  # the workers are up
        time.sleep(0.05)
    assert len(_live_in_group(process.pid)) >= 2
    os.killpg(process.pid, signum)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == status and "Traceback" not in stderr, (process.returncode, stderr)
    deadline = time.monotonic() + 10
    while _live_in_group(process.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _live_in_group(process.pid) == []


@pytest.mark.parametrize("delay", [0.0, 0.1, 0.3, 0.5, 0.8])
def test_ctrl_c_early_in_a_sweep_prints_no_traceback(delay):
    """The whole group gets the Ctrl-C, workers being forked included. Timed from the moment
    `planner` is first imported (before it, a Ctrl-C interrupts Python's own start-up)."""
    process = _start("sweep", NIGHTLY, "-c", CLUSTER, "-s", "fifo", "-s", "fair", "--runs", "5000")
    deadline = time.monotonic() + 30
    while not _catches(process.pid, signal.SIGTERM) and time.monotonic() < deadline:
        time.sleep(0.001)
    time.sleep(delay)
    os.killpg(process.pid, signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130 and "Traceback" not in stderr, (process.returncode, stderr)
    deadline = time.monotonic() + 10
    while _live_in_group(process.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _live_in_group(process.pid) == []


def test_a_program_importing_planner_keeps_its_sigterm_handling(tmp_path):
    """The handlers are the command's: a library user's SIGTERM still ends it by the signal."""
    done = subprocess.run([sys.executable, "-c", "import os, signal, planner.cli.main\n"
                                               "os.kill(os.getpid(), signal.SIGTERM)\nimport time; time.sleep(5)"],
                          cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
                          preexec_fn=_default_signals, timeout=60)
    assert done.returncode == -signal.SIGTERM


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_once_the_work_is_done_leaves_the_status_alone(signum):
    """Python's exit puts the default handlers back, and a signal landing there killed the command
    by the signal (-15, -2) after its outputs were complete (the fuzz campaign: 6 of 105 signal
    cases): `end_command`, as `main` returns, ignores both in the command, so the status stays
    the command's. A program that is not the command keeps its handlers (the test above)."""
    code = ("import os, signal, sys\n"
            "import planner.cli.startup as startup\n"
            "startup.is_the_command = lambda argv=None: True\n"
            "startup.end_command()\n"
            f"os.kill(os.getpid(), {int(signum)})\n"
            "print('finished')\n")
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, preexec_fn=_default_signals, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "finished\n", "")


@pytest.mark.parametrize("signalled", [KeyboardInterrupt(), Terminated()], ids=["SIGINT", "SIGTERM"])
def test_an_import_the_signal_interrupted_ends_as_the_signal(signalled):
    """A signal during a C extension's initialization (SciPy's pybind11 HiGHS wrapper, in the fuzz
    campaign) comes out as "ImportError: initialization failed" caused by the signal's exception:
    the command re-raises the signal's exception (130 or 143), any other ImportError stays itself."""

    def interrupted_import():
        try:
            raise signalled
        except BaseException as error:
            raise ImportError("initialization failed") from error

    with pytest.raises(type(signalled)):
        exits_cleanly(interrupted_import)()
    with pytest.raises(ImportError, match="no module"):
        exits_cleanly(lambda: (_ for _ in ()).throw(ImportError("no module")))()


@pytest.mark.parametrize(("signum", "expected"), [(signal.SIGINT, "KeyboardInterrupt"), (signal.SIGTERM, "Terminated")])
def test_an_exception_raised_in_place_of_the_signals_ends_as_the_signal(signum, expected):
    """CPython can replace the signal's exception by another with no link back to it: a Ctrl-C
    landing while ``from numpy import _distributor_init_local`` fails came out as "TypeError:
    expected a message argument" and a traceback (status 1, once in CI). The command's handlers
    remember the signal, so the command still ends as it asked; with no signal received the error
    is itself (the other half of the test above)."""
    code = ("import os, signal, time\n"
            "import planner.cli.startup as startup\n"
            "startup.is_the_command = lambda argv=None: True\n"
            "startup.begin_startup(); startup.end_startup()\n"
            "from planner.cli.console import exits_cleanly\n"
            "def lost():\n"
            "    try:\n"
            f"        os.kill(os.getpid(), {int(signum)}); time.sleep(10)\n"
            "    except BaseException:\n"
            "        pass\n"
            "    raise TypeError('expected a message argument')\n"
            "try:\n"
            "    exits_cleanly(lost)()\n"
            "except BaseException as error:\n"
            "    print(type(error).__name__)\n")
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, preexec_fn=_default_signals, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, f"{expected}\n", "")


def test_without_a_signal_an_unexplained_error_stays_itself():
    with pytest.raises(TypeError, match="expected a message"):
        exits_cleanly(lambda: (_ for _ in ()).throw(TypeError("expected a message argument")))()
