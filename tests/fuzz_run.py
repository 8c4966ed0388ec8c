"""Running the fuzz cases of `tests.fuzz_inputs` and judging them.

A case runs in this process (`planner.cli.main.run`, stdout and stderr captured) or, for a few,
as a real ``python -m planner`` subprocess. Either way it has a time limit; running past it
is a hang. A case passes when its exit status is 0, 2 or 3, when status 2 comes with exactly
one stderr line starting ``error:``, and when no traceback appears.

    .venv/bin/python -m tests.fuzz_inputs --cases 1000 --seed 0 [--timeout 60] [--subprocess-every 50]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.fuzz_inputs import DIRECTORY, FIFO, HERE, MISSING, ROOT, ZERO, Case, make_case

#: Exit statuses a case may end with: success, bad input, no feasible plan.
ALLOWED = (0, 2, 3)
#: Seconds a real subprocess gets on top of the case's limit, for its imports.
STARTUP_SECONDS = 30.0


class CaseTimeout(BaseException):
    """Raised in the case by the alarm (a BaseException: the code under test catches Exception)."""


@dataclass(frozen=True)
class Outcome:
    case: Case
    status: int | None
    stdout: str
    stderr: str
    seconds: float
    verdict: str  # "ok", "traceback", "hang", "format"
    detail: str = ""

    def report(self) -> str:
        return (f"{self.verdict.upper()} {self.case.describe()}\n  status {self.status} after {self.seconds:.1f} s; "
                f"{self.detail}\n  stderr: {self.stderr[-1500:]!r}")


def materialize(case: Case, folder: Path) -> list[str]:
    """Write the case's files into ``folder``; return its argv with the folder filled in."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in case.files:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if content == DIRECTORY:
            path.mkdir()
        elif content == FIFO:
            os.mkfifo(path)
        elif content == ZERO:
            path.symlink_to("/dev/zero")
        elif content != MISSING:
            path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return [arg.replace(HERE, str(folder)) for arg in case.argv]


@contextlib.contextmanager
def alarm(seconds: float) -> Iterator[None]:
    def ring(signum: int, frame: object) -> None:
        raise CaseTimeout

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_case(case: Case, root: Path, timeout: float) -> Outcome:
    """Run one case in a fresh folder under ``root`` (removed afterwards) and judge it."""
    folder = root / f"case{case.index:05d}"
    argv = materialize(case, folder)
    clock = time.perf_counter()
    try:
        if case.subprocess:
            status, stdout, stderr, error = _in_subprocess(argv, timeout)
        else:
            status, stdout, stderr, error = _in_process(argv, timeout)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return judge(case, status, stdout, stderr, time.perf_counter() - clock, error)


def _in_process(argv: list[str], timeout: float) -> tuple[int | None, str, str, str]:
    from planner.cli.main import run

    out, err = io.StringIO(), io.StringIO()
    error = ""
    status: int | None = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            with alarm(timeout):
                status = run(argv)
        except CaseTimeout:
            error = "hang"
        except SystemExit as exit_:
            status = exit_.code if isinstance(exit_.code, int) else 1
        except BaseException:  # what a user would see as a traceback
            error = traceback.format_exc()
    return status, out.getvalue(), err.getvalue(), error


def _in_subprocess(argv: list[str], timeout: float) -> tuple[int | None, str, str, str]:
    try:
        done = subprocess.run([sys.executable, "-m", "planner", *argv], capture_output=True, text=True, cwd=ROOT,
                              timeout=timeout + STARTUP_SECONDS, check=False, errors="replace")
    except subprocess.TimeoutExpired as expired:
        return None, "", str(expired.stderr or ""), "hang"
    return done.returncode, done.stdout, done.stderr, ""


def judge(case: Case, status: int | None, stdout: str, stderr: str, seconds: float, error: str) -> Outcome:
    if error == "hang":
        return Outcome(case, status, stdout, stderr, seconds, "hang", "ran past its time limit")
    if error or "Traceback (most recent call last)" in stderr or status not in ALLOWED:
        last = error.strip().splitlines()[-1] if error.strip() else f"exit status {status}"
        return Outcome(case, status, stdout, stderr, seconds, "traceback", last)
    lines = stderr.strip().splitlines()
    if status == 2 and (len(lines) != 1 or not lines[0].startswith("error: ")):
        return Outcome(case, status, stdout, stderr, seconds, "format", f"{len(lines)} stderr lines")
    return Outcome(case, status, stdout, stderr, seconds, "ok")


def run_cases(cases: list[Case], timeout: float, *, progress: bool = False) -> list[Outcome]:
    with tempfile.TemporaryDirectory(prefix="planner-fuzz-") as folder:
        outcomes = []
        for case in cases:
            outcomes.append(run_case(case, Path(folder), timeout))
            if progress and len(outcomes) % 50 == 0:
                print(f"  {len(outcomes)} cases, {sum(o.verdict != 'ok' for o in outcomes)} failing",
                      file=sys.stderr, flush=True)
        return outcomes


def summary(outcomes: list[Outcome], seconds: float) -> str:
    verdicts = Counter(o.verdict for o in outcomes)
    statuses = Counter(o.status for o in outcomes if o.verdict == "ok")
    slowest = max(outcomes, key=lambda o: o.seconds, default=None)
    lines = [f"cases: {len(outcomes)} ({sum(o.case.subprocess for o in outcomes)} as subprocesses) in {seconds:.0f} s",
             f"tracebacks: {verdicts['traceback']}", f"hangs: {verdicts['hang']}",
             f"malformed errors: {verdicts['format']}",
             "exit status of the passing ones: " + ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items()))]
    if slowest is not None:
        lines.append(f"slowest: {slowest.seconds:.1f} s, {slowest.case.describe()[:200]}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz_inputs", description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--first", type=int, default=0, help="index of the first case")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per case before it counts as a hang")
    parser.add_argument("--subprocess-every", type=int, default=50, help="every Nth case runs as a real process")
    parser.add_argument("--show", type=int, default=20, help="failing cases to print")
    options = parser.parse_args(argv)
    clock = time.perf_counter()
    cases = [make_case(i, options.seed, subprocess_every=options.subprocess_every)
             for i in range(options.first, options.first + options.cases)]
    outcomes = run_cases(cases, options.timeout, progress=True)
    failing = [o for o in outcomes if o.verdict != "ok"]
    for outcome in failing[: options.show]:
        print(outcome.report())
    print(summary(outcomes, time.perf_counter() - clock))
    return 1 if failing else 0
