"""Printing for the command line: rich tables, or JSON with --json.

A command prints `Section`s: each has a stable JSON key (documented in docs/json.md) and a
title for the terminal, which may name files and timings. rich is imported when a table is
printed, not when the command starts.
"""

from __future__ import annotations

import json
import math
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from models.checks import shown
from models.cluster import Cluster
from models.errors import InfeasibleProblem, InvalidInput, PlannerError
from models.limits import MAX_TOTAL_SLOTS
from planner.cli.startup import Terminated, signal_behind
from planner.limits import check_heartbeats
from planner.proof.formats import shown_value

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from models.job import Job
    from planner.simulator.progress import Progress

F = TypeVar("F", bound=Callable[..., Any])

JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]

EXIT_BAD_INPUT = 2
EXIT_NO_PLAN = 3
#: The longest error or warning line printed; a longer one keeps its start (the file and field)
#: and its end (the problem) around an ellipsis.
MAX_LINE = 1_000


def one_line(text: str) -> str:
    """``text`` on one line (whitespace collapsed), at most `MAX_LINE` characters, every other
    unprintable character escaped (`escaped`): text from an input file reaches the terminal inert."""
    line = escaped(" ".join(text.split()))
    if len(line) <= MAX_LINE:
        return line
    head = MAX_LINE * 3 // 5
    return f"{line[:head]} ... {line[head - MAX_LINE + 5:]}"


def escaped(text: str) -> str:
    """``text`` with each unprintable character (controls such as ESC and NUL, C1 controls, bidi
    overrides, lone surrogates of undecodable file names) written as a Python escape: ``\\x1b``,
    ``\\x00``, ``\\u202e``."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else _escape(char) for char in text)


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def exits_cleanly(command: F) -> F:
    """Turn a `PlannerError` into one line on stderr and exit status 2 (no traceback);
    status 3 when no feasible plan was found.

    Warnings print as one line each once the command has succeeded; a command that fails
    prints its error line only (the warnings that led there, e.g. skipped trace records,
    would bury it)."""

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        seen: list[str] = []
        try:
            with warnings.catch_warnings():  # restores the default display afterwards
                warnings.showwarning = lambda message, category, *_, **__: seen.append(
                    one_line(f"warning: {category.__name__}: {message}"))
                result = command(*args, **kwargs)
        except InfeasibleProblem as error:
            print(one_line(f"error: no feasible plan: {error}"), file=sys.stderr)
            raise typer.Exit(EXIT_NO_PLAN) from None
        except PlannerError as error:
            print(one_line(f"error: {error}"), file=sys.stderr)
            raise typer.Exit(EXIT_BAD_INPUT) from None
        except OSError as error:  # a path no reader checked: still one line naming it
            print(one_line(f"error: {os_error_line(error)}"), file=sys.stderr)
            raise typer.Exit(EXIT_BAD_INPUT) from None
        except Exception as error:  # an import or a library call the signal interrupted
            signalled = interrupt_behind(error)
            if signalled is None:
                raise
            raise signalled from None
        for line in dict.fromkeys(seen):  # once each, in order
            print(line, file=sys.stderr)
        return result

    return wrapper  # type: ignore[return-value]


def interrupt_behind(error: BaseException) -> BaseException | None:
    """The Ctrl-C (KeyboardInterrupt) or SIGTERM (`Terminated`) that caused ``error``, if one did.

    A C extension whose initialization is interrupted (pybind11's, such as SciPy's HiGHS wrapper)
    reports "ImportError: initialization failed" caused by the signal's exception (CPython's own
    "SystemError: ... raised unreported exception" likewise): the command then ends as the signal
    asked (130 or 143), not with that traceback."""
    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, (KeyboardInterrupt, Terminated)):
            return cause
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return signal_behind()  # an exception CPython raised in place of the signal's (startup.signal_behind)


def os_error_line(error: OSError) -> str:
    """``PATH: the problem`` for an OSError (``FILE: cannot write here: ...`` when it names no file)."""
    from models.fileio import os_problem

    path = error.filename if error.filename is not None else "(system)"
    return f"{path}: {os_problem(error)}"


@contextmanager
def working(message: str) -> Iterator[None]:
    """A spinner on stderr while a long step runs; only on a terminal, so pipes, files and
    tests see nothing of it."""
    from rich.console import Console

    console = Console(stderr=True)
    if not console.is_terminal:
        yield
        return
    with console.status(message):
        yield


#: Off a terminal, a long run's progress is a line on stderr at most this often (wall seconds).
PROGRESS_LINE_SECONDS = 60.0


@contextmanager
def progress_shown(message: str, every: float = PROGRESS_LINE_SECONDS) -> Iterator[Callable[[Progress], None]]:
    """A spinner on stderr whose text follows a simulation's `Progress` (simulated time, share
    of tasks done, ETA); off a terminal (a log file) a line every ``every`` seconds instead,
    the first after ``every`` seconds, so short runs and tests print nothing."""
    with _status_shown(message, every) as show:
        yield lambda progress: show(f"{message}: {progress.describe()}")


@contextmanager
def steps_shown(message: str, unit: str, every: float | None = None,
                numbered: bool = False) -> Iterator[Callable[[int, int], None]]:
    """`progress_shown` for a function of (done, total) ``unit``s, with an ETA from the pace since
    ``done`` last started again from below or after a complete round (e.g. each new fluid curve;
    ``numbered``: the message counts those rounds, from 1); ``every`` defaults to
    `PROGRESS_LINE_SECONDS`."""
    import time

    from planner.simulator.progress import Progress, duration_text

    started, last, rounds = [time.perf_counter()], [0, 0], [1]

    def text(done: int, total: int) -> str:
        now = time.perf_counter()
        if done < last[0] or 0 < last[1] <= last[0]:  # fewer done, or the last round was complete
            started[0] = now
            rounds[0] += 1
        last[:] = [done, total]
        so_far = Progress(0.0, done, total, now - started[0])  # its share and ETA
        title = f"{message} {rounds[0]}" if numbered else message
        return f"{title}: {done:,} of {total:,} {unit} ({100 * so_far.share:.0f}%), ETA {duration_text(so_far.eta)}"

    with _status_shown(message, PROGRESS_LINE_SECONDS if every is None else every) as show:
        yield lambda done, total: show(text(done, total))


@contextmanager
def _status_shown(message: str, every: float) -> Iterator[Callable[[str], None]]:
    """A function of a line of text: the spinner's text on a terminal (``message`` until the
    first), else printed on stderr at most every ``every`` seconds, the first after ``every``."""
    import time

    from rich.console import Console

    console = Console(stderr=True)
    if console.is_terminal:
        with console.status(message) as status:
            yield status.update
        return
    last = [time.perf_counter()]

    def line(text: str) -> None:
        if time.perf_counter() - last[0] >= every:
            last[0] = time.perf_counter()
            print(one_line(text), file=sys.stderr, flush=True)

    yield line


@dataclass(frozen=True)
class Section:
    """What a command prints: flat records under a stable JSON key and a title for people.

    ``one``: the section is a single record, a JSON object rather than a list of them."""

    key: str
    title: str
    rows: Sequence[dict[str, Any]]
    one: bool = False


#: Columns aligned left (text); every other column is a number, aligned right.
TEXT_COLUMNS = frozenset({"job", "workload", "field", "role", "setup", "configuration", "file", "slots", "value",
                          "scheduler", "strategy", "plan", "best_baseline", "order", "selection", "kind",
                          "note"})


#: Jobs a terminal table shows of a per-job section (JSON has them all).
JOBS_SHOWN = 40


def jobs_section(key: str, title: str, records: Sequence[dict[str, Any]], *, as_json: bool) -> Section:
    """Each job's outcome (finish, lateness): every job in JSON; on a terminal, the `JOBS_SHOWN`
    latest against their due date (else the last to finish) when there are more, said in the title."""
    if as_json or len(records) <= JOBS_SHOWN:
        return Section(key, title, records)

    def late_first(record: dict[str, Any]) -> tuple[float, float]:
        lateness = record.get("lateness")
        return (-(lateness if lateness is not None else -math.inf), -(record.get("finish") or 0.0))

    shown_records = sorted(records, key=late_first)[:JOBS_SHOWN]
    return Section(key, f"{title}: the {JOBS_SHOWN} latest of {len(records):,} (--json gives every job)",
                   shown_records)


def records_table(records: Sequence[dict[str, str]], title: str) -> Table:
    """A table of records whose values are already text (`emit` formats them once)."""
    from rich import box
    from rich.table import Table

    # Light borders and headers that break at their underscores: eight columns fit 80 characters.
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True,
                  min_width=len(title))  # the title on one line when the console is wide enough
    columns = list(records[0]) if records else []
    for column in columns:
        header = column.replace("_", "\n")
        table.add_column(header, justify="left" if column in TEXT_COLUMNS else "right", overflow="fold",
                         min_width=max(len(word) for word in header.split("\n")))
    for record in records:
        table.add_row(*(record.get(c, "-") for c in columns))
    return table


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if hasattr(value, "item") and callable(value.item):
        return value.item()
    return value


def json_object(sections: Sequence[Section]) -> dict[str, Any]:
    """The --json object: each section's records (or its one record) under its key."""
    data: dict[str, Any] = {}
    for section in sections:
        rows = [{k: _jsonable(v) for k, v in r.items()} for r in section.rows]
        data[section.key] = (rows[0] if rows else {}) if section.one else rows
    return data


def emit(sections: Sequence[Section], *, as_json: bool, console: Console | None = None) -> None:
    """Print the sections as tables, or all of them as one JSON object."""
    if as_json:
        sys.stdout.write(json.dumps(json_object(sections), indent=2) + "\n")
        return
    if console is None:
        from rich.console import Console

        console = Console()
    for section in sections:
        rows = [{k: shown_value(k, v) for k, v in r.items()} for r in section.rows]
        if not rows:  # e.g. the phases of a slot plan: nothing to show
            continue
        if len(rows) == 1 and len(rows[0]) > 6:  # one wide record reads better as field/value
            rows = [{"field": k, "value": v} for k, v in rows[0].items()]
        console.print(records_table(rows, section.title))


def attribute(error: InvalidInput, options: dict[str, str], *, plan: Path | None = None,
              workload: Path | None = None, cluster: Path | None = None) -> InvalidInput:
    """Name the flag or the file an error from the library is about. An error that names its file
    or a flag already stays as it is; else a field in ``options`` (library name -> flag) becomes
    the flag; else the plan file (the workload and cluster were read and checked before the
    plan was used); else the cluster's file for a cluster field, the workload's for the rest."""
    if error.source is not None or error.field.startswith("-"):
        return error
    head = error.field.split(".")[0].split("[")[0]
    if head in options:
        return InvalidInput(options[head], error.problem)
    if plan is not None:
        return error.in_file(str(plan))
    if cluster is not None and (head in Cluster.__dataclass_fields__ or head == "cluster"):
        return error.in_file(str(cluster))
    if workload is not None:
        return error.in_file(str(workload))
    return error


def parse_pair(text: str | None, option: str, kind: type, example: str) -> tuple | None:
    """``"15,15"`` as a pair of numbers of ``kind``; None stays None."""
    if text is None:
        return None
    parts = text.split(",")
    noun = "integers" if kind is int else "numbers"
    try:
        if len(parts) != 2 or any(len(part) > 40 for part in parts):
            raise ValueError
        return tuple(kind(part) for part in parts)
    except ValueError:
        raise InvalidInput(option, f"must be two {noun} separated by a comma, e.g. {example}; got {shown(text)}"
                           ) from None


def parse_slots(text: str | None, option: str = "--slots") -> tuple[int, int] | None:
    """``"30,10"`` as map and reduce slot totals, together at most `MAX_TOTAL_SLOTS` (the simulator
    checks the rest: no negative totals, a map slot at least)."""
    pair = parse_pair(text, option, int, "30,10")
    if pair is not None and sum(pair) > MAX_TOTAL_SLOTS:
        raise InvalidInput(option, f"{pair[0]:,} + {pair[1]:,} slots; at most {MAX_TOTAL_SLOTS:,} in all")
    return pair


def check_output_file(path: Path | None, flag: str = "--output") -> None:
    """Before any work: an output file's path must be able to take a file (`models.fileio.output_file`:
    not a folder nor a special file; a symbolic link is written through unless it dangles)."""
    if path is not None:
        from models.fileio import output_file

        output_file(path, flag)


def check_output_folder(path: Path | None, flag: str = "--output") -> None:
    """Before any work: an output folder's path must be able to take a folder of files
    (`models.fileio.output_folder`: not a file nor a special file, a link not dangling)."""
    if path is not None:
        from models.fileio import output_folder

        output_folder(path, flag)


def heartbeats_fit(jobs: Sequence[Job], cluster: Cluster, splits: Sequence[tuple[int, int] | None], *,
                   cluster_file: Path, flag: str | None = None) -> None:
    """`check_heartbeats` for each split, naming ``flag`` (the heartbeat came from an option)
    or else the cluster file."""
    try:
        for split in splits:
            check_heartbeats(jobs, cluster, split)
    except InvalidInput as error:
        raise (InvalidInput(flag, error.problem) if flag else error.in_file(str(cluster_file))) from None
