"""Running the fuzz cases of `tests.fuzz_inputs` and judging them.

A case runs in this process (`planner.cli.main.run`, stdout and stderr captured, the case
folder as the current folder) or as a real ``python -m planner`` with the case folder as its
current folder, a 4 GiB address-space limit and its own process group: plainly, interrupted by
SIGINT (to the group, as Ctrl-C) or SIGTERM (to the process) at the case's moment, or three
times over (PYTHONHASHSEED 0, 0, 1) to compare its outputs byte for byte. Each case ends in
one class (`CLASSES`, the first that applies):

- hang: ran past its time limit (the case's own, else --timeout: 60 s); memory: MemoryError, killed,
  or a peak resident size past 4 GiB;
- traceback: a Python traceback, or an exception out of `run`;
- clobbered: a symlink, FIFO, device or folder of the case is no longer one after the run;
- leftover temp: a ``*.tmp`` file left in the case folder; leaked process: a process of the
  run's group still alive a second after it ended; stray file: a file the command was not
  asked to write appeared in the current folder; entity read: the text of the XXE canary file
  was printed; raw control characters: stderr holds a byte below 0x20 other than newline and
  tab, or 0x7f;
- bad exit: a status other than 0, 2, 3 (and 130 after SIGINT, 143 after SIGTERM);
- malformed error: status 2 without exactly one stderr line starting ``error:``; unnamed
  error: that line names no file, option or argument of the command;
- nondeterministic: the three runs' outputs differ; timing fields differ: they differ only in
  wall-clock fields (`TIMING`);
- ok, or refused up front (status 2 within `UP_FRONT_SECONDS`, for the oversized runs), or
  announced, stopped (an oversized run still going at its limit that printed its estimate within
  `UP_FRONT_SECONDS` and then progress with an ETA, and ended with 143 when sent SIGTERM: an
  allowed long run, stopped as an operator would stop it).

    .venv/bin/python -m tests.fuzz_inputs --cases 1000 --seed 0 [--timeout 60] [--jobs 2] [--log cases.jsonl]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from tests.fuzz_families import DETERMINISM, PROCESS, SUBPROCESS
from tests.fuzz_inputs import CANARY, CANARY_TEXT, ROOT, Case, family_of, make_case
from tests.fuzz_mutations import CHARDEV, DIRECTORY, FIFO, HERE, JOBS, LINK, LOOP, MISSING, OUTSIDE_LINK, READONLY, ZERO

#: Exit statuses a case may end with: success, bad input, no feasible plan.
ALLOWED = (0, 2, 3)
#: The status after each signal: 128 + its number.
SIGNALLED = {"SIGINT": 130, "SIGTERM": 143}
#: Seconds a real subprocess gets on top of the case's limit, for its imports.
STARTUP_SECONDS = 30.0
#: The address space a subprocess may take.
MEMORY_BYTES = 4 << 30
#: An oversized run that ends with status 2 this soon was refused before it started.
UP_FRONT_SECONDS = 15.0
#: Seconds an announced long run may take to stop after SIGTERM.
STOP_SECONDS = 15.0
#: Keys of JSON outputs that hold wall-clock times.
TIMING = re.compile(r"^(seconds|elapsed(_seconds)?|wall(_clock)?(_seconds)?|(solve|solver|run)_seconds)$")
#: The classes, in the order they are decided; the first two pass.
CLASSES = ("ok", "refused up front", "announced, stopped", "hang", "memory", "traceback", "clobbered", "leftover temp", "leaked process",
           "stray file", "entity read", "raw control characters", "bad exit", "malformed error", "unnamed error",
           "nondeterministic", "timing fields differ")
PASSING = ("ok", "refused up front", "announced, stopped")


class CaseTimeout(BaseException):
    """Raised in the case by the alarm (a BaseException: the code under test catches Exception)."""


@dataclass(frozen=True)
class Outcome:
    index: int
    family: str
    command: str
    description: str
    status: int | None
    stdout: str
    stderr: str
    seconds: float
    verdict: str  # one of CLASSES
    detail: str = ""

    def report(self) -> str:
        return (f"{self.verdict.upper()} {self.description}\n  status {self.status} after {self.seconds:.1f} s; "
                f"{self.detail}\n  stderr: {self.stderr[-1500:]!r}")


@dataclass
class Run:
    """What one run of a case gave."""

    status: int | None
    stdout: str
    stderr: str
    error: str = ""  # a traceback out of run(), "hang" or "memory"
    problems: tuple[tuple[str, str], ...] = ()  # (class, detail) found by the checks
    announced: bool = False  # still running at its limit, having said its estimate and shown an ETA


# Writing a case's folder.
def materialize(case: Case, folder: Path) -> list[str]:
    """Write the case's files into ``folder``; return its argv with the folder filled in."""
    folder.mkdir(parents=True, exist_ok=True)
    protect = []
    for name, content in case.files:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if content == DIRECTORY:
            path.mkdir()
        elif content == FIFO or (content == CHARDEV and os.geteuid() != 0):
            os.mkfifo(path)
        elif content == CHARDEV:  # what /dev/null is, made inside the case folder
            os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        elif content == ZERO:
            path.symlink_to("/dev/zero")
        elif content == LOOP:
            path.symlink_to(f"{path.name}.loop")
            path.with_name(f"{path.name}.loop").symlink_to(path.name)
        elif content == READONLY:
            path.mkdir(exist_ok=True)
            protect.append(path)
        elif isinstance(content, str) and content.startswith(LINK):
            path.symlink_to(os.path.relpath(folder / content[len(LINK):], path.parent))
        elif content == OUTSIDE_LINK:
            outside = folder.parent / f"{folder.name}-outside"
            outside.mkdir(exist_ok=True)
            (outside / "target.txt").write_text("a file outside the case folder\n")
            path.symlink_to(outside / "target.txt")
        elif isinstance(content, str) and content.startswith(JOBS):
            jobs, maps = (int(n) for n in content[len(JOBS):].split("x"))
            path.write_text(_jobs(jobs, maps))
        elif content != MISSING:
            path.write_bytes(content if isinstance(content, bytes) else content.encode())
    for path in protect:
        _read_only(path, True)
    return [arg.replace(HERE, str(folder)) for arg in case.argv]


def _jobs(jobs: int, maps: int) -> str:
    profile = '"profile": {"kind": "power_law", "a": 600.0, "b": -0.8, "nodes_min": 1, "nodes_max": 8}'
    rows = [f'{{"name": "j{i}", "map_tasks": {maps}, "reduce_tasks": {1 if maps > 1 else 0}, "map_time": 10, '
            f'"reduce_time": 10, {profile}}}' for i in range(jobs)]
    return '{"name": "oversized", "jobs": [\n' + ",\n".join(rows) + "\n]}\n"


def _read_only(path: Path, on: bool) -> None:
    """As root chmod changes nothing: make the folder immutable (chattr) instead."""
    if os.geteuid() == 0:
        subprocess.run(["chattr", "+i" if on else "-i", str(path)], check=False, capture_output=True)
    else:
        path.chmod(0o555 if on else 0o755)


def _cleanup(case: Case, folder: Path) -> None:
    for name, content in case.files:
        if content == READONLY and (folder / name).is_dir():
            _read_only(folder / name, False)
    shutil.rmtree(folder, ignore_errors=True)
    shutil.rmtree(folder.parent / f"{folder.name}-outside", ignore_errors=True)


# The checks after a run.
def _kind(path: Path) -> str:
    try:
        mode = path.lstat().st_mode
    except OSError:
        return "missing"
    for test, kind in ((stat.S_ISLNK, "symlink"), (stat.S_ISFIFO, "FIFO"), (stat.S_ISCHR, "device"),
                       (stat.S_ISDIR, "folder"), (stat.S_ISREG, "file")):
        if test(mode):
            return kind
    return "other"


def _special_kinds(case: Case) -> dict[str, str]:
    expected = {}
    for name, content in case.files:
        if content in (ZERO, LOOP, OUTSIDE_LINK) or (isinstance(content, str) and content.startswith(LINK)):
            expected[name] = "symlink"
        elif content == FIFO or (content == CHARDEV and os.geteuid() != 0):
            expected[name] = "FIFO"
        elif content == CHARDEV:
            expected[name] = "device"
        elif content in (DIRECTORY, READONLY):
            expected[name] = "folder"
    return expected


def listing(folder: Path) -> set[str]:
    return {str(path.relative_to(folder)) for path in folder.rglob("*")} if folder.exists() else set()


def check_folder(case: Case, folder: Path, before: set[str]) -> list[tuple[str, str]]:
    """Special files kept, no temporaries left, nothing written that was not asked for."""
    problems = []
    for name, kind in _special_kinds(case).items():
        if (now := _kind(folder / name)) != kind:
            problems.append(("clobbered", f"{name} was a {kind}, is now a {now}"))
    after = listing(folder)
    temporaries = sorted(name for name in after if Path(name).name.endswith(".tmp"))
    if temporaries:
        problems.append(("leftover temp", ", ".join(temporaries[:5])))
    named = {arg.split(f"{HERE}/", 1)[1].split("/")[0] for arg in case.argv if HERE in arg}
    stray = sorted(name for name in after - before if "/" not in name and name not in named | {"out"}
                   and not name.endswith(".tmp"))
    if stray:
        problems.append(("stray file", ", ".join(stray[:5])))
    return problems


def _control_characters(text: str) -> str:
    found = sorted({c for c in text if (ord(c) < 0x20 and c not in "\n\t") or ord(c) == 0x7F})
    return ", ".join(f"0x{ord(c):02x}" for c in found)


# Running.
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
    limit = case.limit or timeout
    clock = time.perf_counter()
    try:
        argv = materialize(case, folder)
        before = listing(folder)
        mode = SUBPROCESS if case.mode == PROCESS and case.subprocess else case.mode
        if mode == PROCESS:
            run = _in_process(argv, limit, folder)
        elif mode == DETERMINISM:
            run = _thrice(argv, limit, folder, root / f"logs{case.index:05d}")
        else:
            run = _in_subprocess(argv, limit, folder, root / f"logs{case.index:05d}", case.signal, case.delay,
                                 startup=0.0 if case.limit else STARTUP_SECONDS,
                                 stop_announced=case.family == "oversized run")
        run.problems = (*run.problems, *check_folder(case, folder, before))
    finally:
        _cleanup(case, folder)
    return judge(case, run, time.perf_counter() - clock)


def _in_process(argv: list[str], timeout: float, folder: Path) -> Run:
    from planner.cli.main import run

    out, err = io.StringIO(), io.StringIO()
    error = ""
    status: int | None = None
    here = os.getcwd()
    os.chdir(folder)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                with alarm(timeout):
                    status = run(argv)
            except CaseTimeout:
                error = "hang"
            except SystemExit as exit_:
                status = exit_.code if isinstance(exit_.code, int) else 1
            except MemoryError:
                error = "memory"
            except BaseException:  # what a user would see as a traceback
                error = traceback.format_exc()
    finally:
        os.chdir(here)
    return Run(status, out.getvalue(), err.getvalue(), error)


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))


def _in_subprocess(argv: list[str], timeout: float, folder: Path, logs: Path, sent: str = "", delay: float = 0.0,
                   hashseed: str = "0", startup: float = STARTUP_SECONDS, stop_announced: bool = False) -> Run:
    """``python -m planner`` in its own process group, cwd the case folder; signalled if ``sent``.

    With ``stop_announced``, a run still going at its limit that said its estimate within
    `UP_FRONT_SECONDS` and has shown a line with an ETA is stopped with SIGTERM, as an operator
    would stop it, and must end with 143 within `STOP_SECONDS`: an allowed long run (docs/limits.md,
    "Limits before work"), not a hang."""
    logs.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": hashseed, "COLUMNS": "100"}
    with open(logs / "stdout", "wb") as stdout, open(logs / "stderr", "wb") as stderr:
        process = subprocess.Popen([sys.executable, "-m", "planner", *argv], cwd=folder, env=env, stdout=stdout,
                                   stderr=stderr, stdin=subprocess.DEVNULL, start_new_session=True,
                                   preexec_fn=_limit_memory)
    start, signalled, status, peak, said_at = time.monotonic(), False, None, 0, None
    deadline = start + (timeout if sent else timeout + startup)  # a case's own limit includes its imports
    while time.monotonic() < deadline:
        pid, code, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            status, peak = os.waitstatus_to_exitcode(code), usage.ru_maxrss * 1024
            process.returncode = status
            break
        if stop_announced and said_at is None and estimate_said(logs / "stderr"):
            said_at = time.monotonic() - start
        if sent and not signalled and time.monotonic() - start >= delay:
            if sent == "SIGINT":
                os.killpg(process.pid, signal.SIGINT)  # Ctrl-C reaches the whole foreground group
            else:
                os.kill(process.pid, signal.SIGTERM)
            signalled = True
        time.sleep(0.02)
    problems: list[tuple[str, str]] = []
    error = ""
    announced = False
    if (status is None and said_at is not None and said_at <= UP_FRONT_SECONDS
            and progress_shown(logs / "stderr")):
        os.kill(process.pid, signal.SIGTERM)
        try:
            status = process.wait(STOP_SECONDS)
            announced = True
        except subprocess.TimeoutExpired:
            pass
    if status is None:
        error = "hang"
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    else:
        leaked = _group_members(process.pid, grace=1.0)
        if leaked:
            problems.append(("leaked process", f"{len(leaked)} left: {' | '.join(leaked[:3])}"))
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
    out = (logs / "stdout").read_bytes().decode(errors="replace")
    err = (logs / "stderr").read_bytes().decode(errors="replace")
    shutil.rmtree(logs, ignore_errors=True)
    if peak > MEMORY_BYTES or "MemoryError" in err or status == -signal.SIGKILL:
        error = error or "memory"
    if signalled and status is not None and status not in (*ALLOWED, SIGNALLED[sent]):
        problems.append(("bad exit", f"status {status} after {sent}"))
    return Run(status, out, err, error, tuple(problems), announced)


def estimate_said(stderr: Path) -> bool:
    """The run has printed its estimate (`planner.simulator.effort.announcement`)."""
    return "(estimated); progress follows" in stderr.read_bytes().decode(errors="replace")


def progress_shown(stderr: Path) -> bool:
    """A progress line with an ETA follows the estimate."""
    lines = stderr.read_bytes().decode(errors="replace").splitlines()
    first = next((i for i, line in enumerate(lines) if "(estimated); progress follows" in line), len(lines))
    return any("ETA" in line for line in lines[first + 1:])


def _group_members(group: int, grace: float) -> list[str]:
    import psutil

    deadline = time.monotonic() + grace
    while True:
        members = []
        for process in psutil.process_iter(["pid", "status", "cmdline"]):
            with contextlib.suppress(psutil.Error, ProcessLookupError, PermissionError):
                if os.getpgid(process.pid) == group and process.info["status"] != psutil.STATUS_ZOMBIE:
                    members.append(" ".join(process.info["cmdline"] or [])[:120])
        if not members or time.monotonic() > deadline:
            return members
        time.sleep(0.1)


def _thrice(argv: list[str], timeout: float, folder: Path, logs: Path) -> Run:
    """Run three times (PYTHONHASHSEED 0, 0, 1); compare --json output and the files under out/."""
    outputs = []
    for hashseed in ("0", "0", "1"):
        run = _in_subprocess(argv, timeout, folder, logs, hashseed=hashseed)
        if run.error or run.problems or run.status not in ALLOWED:
            return run
        files = {str(p.relative_to(folder)): p.read_bytes() for p in sorted((folder / "out").rglob("*")) if p.is_file()}
        if "--json" in argv:
            files["<stdout>"] = run.stdout.encode()
        outputs.append(files)
        shutil.rmtree(folder / "out", ignore_errors=True)
    differences = [difference for other in outputs[1:] if (difference := compare_outputs(outputs[0], other))]
    problems = []
    if any(kind == "nondeterministic" for kind, _ in differences):
        problems.append(next(d for d in differences if d[0] == "nondeterministic"))
    elif differences:
        problems.append(differences[0])
    return Run(run.status, run.stdout, run.stderr, "", tuple(problems))


def compare_outputs(first: dict[str, bytes], second: dict[str, bytes]) -> tuple[str, str] | None:
    if first.keys() != second.keys():
        return "nondeterministic", f"files differ: {sorted(first.keys() ^ second.keys())[:4]}"
    timing, other = [], []
    for name in first:
        if first[name] == second[name] or (name == "<stdout>" and _same_but_timings(first[name], second[name])):
            continue
        keys: set[str] = set()
        try:
            left, right = (_without_timing(json.loads(text), keys) for text in (first[name], second[name]))
        except ValueError:
            other.append(name)
            continue
        (timing if left == right else other).append(f"{name} ({', '.join(sorted(keys))})" if left == right else name)
    if other:
        return "nondeterministic", f"differ: {', '.join(other[:4])}"
    return ("timing fields differ", f"only timing fields: {', '.join(timing[:4])}") if timing else None


def _same_but_timings(first: bytes, second: bytes) -> bool:
    """Two ``--json`` documents equal but for their top-level ``timings``: the one place docs/json.md
    allows wall-clock times, "the only fields that vary from run to run"."""
    try:
        left, right = json.loads(first), json.loads(second)
    except ValueError:
        return False
    if not (isinstance(left, dict) and isinstance(right, dict)):
        return False
    left.pop("timings", None)
    right.pop("timings", None)
    return json.dumps(left) == json.dumps(right)


def _without_timing(data: object, keys: set[str]) -> object:
    if isinstance(data, dict):
        found = {k for k in data if TIMING.match(str(k))}
        keys |= found
        return {k: _without_timing(v, keys) for k, v in data.items() if k not in found}
    if isinstance(data, list):
        return [_without_timing(v, keys) for v in data]
    return data


# Judging.
_METAVARS = re.compile(r"\b(WORKLOAD|PLAN|FILE|FORMAT|COMMAND|KIND)\b|(?<![\w-])--?[a-z][a-z-]*")


def _mentions(line: str, name: str) -> bool:
    """The line shows ``name``, maybe with its control characters escaped."""
    pieces = [piece for piece in re.split(r"[\x00-\x1f\x7f]", name) if piece]
    return bool(pieces) and all(piece in line for piece in pieces)


def names_something(line: str, argv: Sequence[str]) -> bool:
    """An error line names a file of the command, an option, or an argument."""
    paths = [arg for arg in argv if "/" in arg or HERE in arg]
    names = {Path(arg.replace(HERE, "")).name for arg in paths} | {arg.replace(HERE, "").strip("/") for arg in paths}
    if any(name and _mentions(line, name[:200]) for name in names):
        return True
    return bool(_METAVARS.search(line.removeprefix("error: ")))


def judge(case: Case, run: Run, seconds: float) -> Outcome:
    found: list[tuple[str, str]] = []
    if run.error == "hang" or (case.limit and seconds > case.limit and not run.announced):
        found.append(("hang", f"ran past {case.limit or seconds:.0f} s"))
    elif run.error == "memory":
        found.append(("memory", "MemoryError, killed, or past 4 GiB"))
    elif run.error or "Traceback (most recent call last)" in run.stderr:
        last = (run.error or run.stderr).strip().splitlines()[-1]
        found.append(("traceback", last[:300]))
    found += run.problems
    if CANARY_TEXT in run.stdout + run.stderr:
        found.append(("entity read", "the canary file's text was printed"))
    if raw := _control_characters(run.stderr):
        found.append(("raw control characters", f"stderr holds {raw}"))
    lines = run.stderr.strip().splitlines()
    allowed = (*ALLOWED, SIGNALLED[case.signal]) if case.signal else ALLOWED
    if run.announced:
        allowed = (*allowed, SIGNALLED["SIGTERM"])
    if not found and run.status not in allowed:
        found.append(("bad exit", f"exit status {run.status}"))
    elif not found and run.status == 2:
        if len(lines) != 1 or not lines[0].startswith("error: "):
            errors = [line for line in lines if line.startswith("error: ")]
            found.append(("malformed error", f"{len(lines)} stderr lines, {len(errors)} starting 'error: '"))
        elif not names_something(lines[0], case.argv):
            found.append(("unnamed error", lines[0][:200]))
    if found:
        verdict, detail = min(found, key=lambda problem: CLASSES.index(problem[0]))
        detail = "; ".join(f"{kind}: {text}" for kind, text in found) if len(found) > 1 else detail
    elif case.family == "oversized run" and run.status == 2 and seconds < UP_FRONT_SECONDS:
        verdict, detail = "refused up front", lines[-1][:200] if lines else ""
    elif run.announced:
        verdict, detail = "announced, stopped", next((line for line in lines if "estimated" in line), "")[:200]
    else:
        verdict, detail = "ok", ""
    return Outcome(case.index, case.family, case.command, case.describe(), run.status, run.stdout[-3000:],
                   run.stderr[-3000:], seconds, verdict, detail)


def run_cases(cases: list[Case], timeout: float, *, progress: bool = False) -> list[Outcome]:
    Path(CANARY).write_text(CANARY_TEXT + "\n")
    with tempfile.TemporaryDirectory(prefix="planner-fuzz-") as folder:
        outcomes = []
        for case in cases:
            outcomes.append(run_case(case, Path(folder), timeout))
            if progress and len(outcomes) % 50 == 0:
                print(f"  {len(outcomes)} cases, {sum(o.verdict not in PASSING for o in outcomes)} failing",
                      file=sys.stderr, flush=True)
        return outcomes


def _run_indexes(indexes: list[int], seed: int, subprocess_every: int, timeout: float) -> list[Outcome]:
    """A worker's share: the cases of these indexes (made here, not shipped between processes)."""
    return run_cases([make_case(i, seed, subprocess_every=subprocess_every) for i in indexes], timeout)


def run_parallel(indexes: list[int], seed: int, subprocess_every: int, timeout: float, jobs: int,
                 log: Path | None = None) -> list[Outcome]:
    """The cases over ``jobs`` worker processes, a few at a time, with progress on stderr."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    chunks = [indexes[i:i + 5] for i in range(0, len(indexes), 5)]
    outcomes: list[Outcome] = []
    clock = time.perf_counter()
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool, \
            (open(log, "w") if log else contextlib.nullcontext()) as written:
        futures = [pool.submit(_run_indexes, chunk, seed, subprocess_every, timeout) for chunk in chunks]
        for done in as_completed(futures):
            for outcome in done.result():
                outcomes.append(outcome)
                if written:
                    print(json.dumps(asdict(outcome)), file=written, flush=True)
            if len(outcomes) % 100 < 5:
                print(f"  {len(outcomes)}/{len(indexes)} cases in {time.perf_counter() - clock:.0f} s, "
                      f"{sum(o.verdict not in PASSING for o in outcomes)} failing", file=sys.stderr, flush=True)
    return sorted(outcomes, key=lambda o: o.index)


# The table.
def table_rows(outcomes: list[Outcome]) -> list[tuple[str, str, int]]:
    """(family, class, count) for a campaign: what `format_table` prints, one campaign or several side by side."""
    counts = Counter((o.family, o.verdict) for o in outcomes)
    return sorted(((family, verdict, n) for (family, verdict), n in counts.items()),
                  key=lambda row: (row[0], CLASSES.index(row[1]) if row[1] in CLASSES else len(CLASSES)))


def format_table(campaigns: dict[str, list[tuple[str, str, int]]]) -> str:
    """Families by classes (Markdown), a block of rows per campaign (e.g. "cli" and "api")."""
    seen = {verdict for rows in campaigns.values() for _, verdict, _ in rows}
    columns = [c for c in CLASSES if c in seen] + sorted(seen - set(CLASSES))
    lines = ["| campaign | family | cases | " + " | ".join(columns) + " |", "|---|---|---:|" + "---:|" * len(columns)]
    for name, rows in campaigns.items():
        counts: dict[str, Counter[str]] = {}
        for family, verdict, n in rows:
            counts.setdefault(family, Counter())[verdict] += n
        counts["(all)"] = sum(counts.values(), Counter())
        for family, by_class in counts.items():
            cells = [str(by_class[c]) if by_class[c] else "" for c in columns]
            lines.append(f"| {name} | {family} | {sum(by_class.values())} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def summary(outcomes: list[Outcome], seconds: float) -> str:
    verdicts = Counter(o.verdict for o in outcomes)
    statuses = Counter(o.status for o in outcomes if o.verdict in PASSING)
    slowest = max(outcomes, key=lambda o: o.seconds, default=None)
    lines = [f"cases: {len(outcomes)} in {seconds:.0f} s",
             f"tracebacks: {verdicts['traceback']}", f"hangs: {verdicts['hang']}",
             f"failing: {sum(n for v, n in verdicts.items() if v not in PASSING)}",
             "exit status of the passing ones: " + ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items()))]
    if slowest is not None:
        lines.append(f"slowest: {slowest.seconds:.1f} s, {slowest.description[:200]}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz_inputs", description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--first", type=int, default=0, help="index of the first case")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per case before it counts as a hang")
    parser.add_argument("--subprocess-every", type=int, default=50, help="every Nth case runs as a real process")
    parser.add_argument("--jobs", type=int, default=1, help="cases at a time (worker processes)")
    parser.add_argument("--log", type=Path, help="write each outcome as a JSON line here")
    parser.add_argument("--family", action="append", help="run only the cases of this family (repeatable)")
    parser.add_argument("--show", type=int, default=20, help="failing cases to print per class")
    parser.add_argument("--api-cases", type=int, default=None,
                        help="cases of the Python API campaign (tests.fuzz_api) after these; default --cases, 0: none")
    parser.add_argument("--api-seed", type=int, default=None, help="its seed (default --seed)")
    options = parser.parse_args(argv)
    clock = time.perf_counter()
    indexes = list(range(options.first, options.first + options.cases))
    if options.family:
        indexes = [i for i in indexes if family_of(i, options.seed) in options.family]
    if options.jobs > 1:
        outcomes = run_parallel(indexes, options.seed, options.subprocess_every, options.timeout, options.jobs,
                                options.log)
    else:
        cases = [make_case(i, options.seed, subprocess_every=options.subprocess_every) for i in indexes]
        outcomes = run_cases(cases, options.timeout, progress=True)
    failing = [o for o in outcomes if o.verdict not in PASSING]
    for verdict in CLASSES:
        for outcome in [o for o in failing if o.verdict == verdict][: options.show]:
            print(outcome.report())
    campaigns = {"cli": table_rows(outcomes)}
    cli_seconds = time.perf_counter() - clock
    api_cases = options.cases if options.api_cases is None else options.api_cases
    if options.family:  # a CLI family asked for: the API campaign has no such family
        api_cases = 0
    api_failing = 0
    if api_cases > 0:
        from tests.fuzz_api import PASSING as API_PASSING
        from tests.fuzz_api import api_table_rows, make_api_case, run_api_cases

        api_seed = options.seed if options.api_seed is None else options.api_seed
        api_clock = time.perf_counter()
        api_outcomes = run_api_cases([make_api_case(i, api_seed) for i in range(api_cases)], options.timeout,
                                     progress=True)
        api_bad = [o for o in api_outcomes if o.verdict not in API_PASSING]
        api_failing = len(api_bad)
        for outcome in api_bad[: options.show]:
            print(outcome.report())
        campaigns["api"] = api_table_rows(api_outcomes)
        print(f"api cases: {len(api_outcomes)} (seed {api_seed}) in {time.perf_counter() - api_clock:.0f} s, "
              f"{api_failing} failing")
    print(format_table(campaigns))
    print(summary(outcomes, cli_seconds))
    return 1 if failing or api_failing else 0
