"""The SWF importer: the Parallel Workloads Archive's Standard Workload Format as a `Workload`.

An SWF file (Feitelson et al.) holds one job per line, 18 whitespace-separated numbers
(`SWF_FIELDS`), -1 where a value is unknown; lines starting with ``;`` are header comments. Its
jobs are parallel jobs, not MapReduce ones, so each becomes a single-phase (map-only) job:
one map task per processor, each running the job's run time. Problems raise `InvalidInput`
naming the file, the line and the field, e.g. ``log.swf: line 7.run_time: must be a number,
got 'x'``.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from pathlib import Path

from models import InvalidInput, Job, Workload
from models.checks import as_int, as_path, shown
from models.fileio import read_text
from models.limits import MAX_BYTES, MAX_JOBS, MAX_NUMBER_CHARS, MAX_SECONDS, MAX_TASKS, MIN_TASK_SECONDS
from planner.io.json_traces import TraceWarning, trace_workload
from planner.io.swim import submit_window

__all__ = ["POOL_SOURCES", "SKIP_REASONS", "SWF_FIELDS", "SWF_IGNORED", "read_swf"]

#: The 18 fields of a line, in order (the SWF definition's names, in snake case).
SWF_FIELDS = ("job_number", "submit_time", "wait_time", "run_time", "allocated_processors", "average_cpu_time",
              "used_memory", "requested_processors", "requested_time", "requested_memory", "status", "user_id",
              "group_id", "executable_number", "queue_number", "partition_number", "preceding_job_number",
              "think_time")
#: Fields that hold seconds (real numbers allowed); the others are whole numbers, memory in KB.
_SECONDS = frozenset({"submit_time", "wait_time", "run_time", "average_cpu_time", "requested_time", "think_time"})
_REAL = _SECONDS | {"used_memory", "requested_memory"}
#: Fields not modelled: named in a warning when a kept job knows them (not -1). The wait time is
#: the logged system's own scheduling, which a simulation replaces; we model no memory, no
#: requested limits, and no dependencies between jobs (preceding job and think time).
SWF_IGNORED = ("wait_time", "average_cpu_time", "used_memory", "requested_time", "requested_memory", "group_id",
               "executable_number", "partition_number", "preceding_job_number", "think_time")
#: SWF status codes: 0 failed, 1 completed, 5 cancelled; 2, 3, 4 are partial executions of a
#: checkpointed or swapped job (the job has its own line as well); -1 unknown.
_STATUSES = (-1, 0, 1, 2, 3, 4, 5)
_PARTIAL = (2, 3, 4)
_CANCELLED = 5
#: Where a job's pool comes from first (`read_swf`'s ``pool_by``).
POOL_SOURCES = ("queue", "user")
#: Why a job line is skipped, in the order the warning counts them.
SKIP_REASONS = ("cancelled before they ran (status 5)", "with no run time (0 or -1)", "with no processor count",
                "partial executions (status 2, 3, 4)")


def read_swf(
    path: str | Path,
    *,
    limit: int | None = None,
    window: tuple[float, float] | None = None,
    pool_by: str = "queue",
) -> Workload:
    """Import an SWF log as map-only jobs.

    Per job line: name ``job<job_number>``; ``map_tasks`` = allocated processors (the requested
    ones when the allocation is unknown or 0); ``map_time`` = run time (s, at least
    `MIN_TASK_SECONDS`); no reduces. Submit times count from the earliest kept job's, so the batch
    starts at 0; with ``window=(start, end)`` the jobs submitted in [start, end) s of the log are
    kept, their submit times counted from ``start``. ``limit`` keeps the first N kept jobs.
    ``pool_by="queue"``: pool ``queue-N`` from the queue number, else ``user-N`` from the user id,
    else "default"; ``pool_by="user"``: ``user-N``, else "default".

    Skipped and counted in one `TraceWarning`: jobs cancelled before they ran (status 5 and no
    run time), jobs with no run time (0 or unknown), jobs with no processor count, and partial
    executions (status 2, 3, 4: the job's own line counts the whole job). Failed jobs (status 0)
    and jobs cancelled after they ran are kept: they held their processors. Fields not modelled
    (`SWF_IGNORED`) that a kept job knows are named in another `TraceWarning`.
    """
    path = as_path(path, "path")
    if limit is not None:
        limit = as_int(limit, "limit", minimum=1, maximum=MAX_JOBS)
    if not isinstance(pool_by, str) or pool_by not in POOL_SOURCES:
        raise InvalidInput("pool_by", f"must be one of {', '.join(POOL_SOURCES)}; got {shown(pool_by)}")
    start, end = submit_window(window)
    source = str(path)
    kept: list[tuple[int, dict[str, float]]] = []
    seen: dict[int, int] = {}
    skipped: Counter[str] = Counter()
    known: set[str] = set()
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        text = line.strip()
        if not text or text.startswith(";"):
            continue
        if limit is not None and len(kept) >= limit:
            break
        record = _record(text, number, source)
        job = int(record["job_number"])
        status = int(record["status"])
        if status not in _PARTIAL:
            if job in seen:
                raise InvalidInput(f"line {number}.job_number", f"duplicate job number {job} (also line {seen[job]})",
                                   source=source)
            seen[job] = number
        if not start <= record["submit_time"] < end:
            continue
        reason = _skip_reason(record, status)
        if reason:
            skipped[reason] += 1
            continue
        if len(kept) >= MAX_JOBS:
            raise InvalidInput(f"line {number}", f"a workload has at most {MAX_JOBS:,} jobs; a limit takes the "
                                                 "first ones", source=source)
        known.update(name for name in SWF_IGNORED if record[name] != -1)
        kept.append((number, record))
    if skipped:
        count = sum(skipped.values())
        reasons = ", ".join(f"{skipped[reason]} {reason}" for reason in SKIP_REASONS if skipped[reason])
        warnings.warn(f"{source}: skipped {count} of {count + len(kept)} job lines: {reasons}", TraceWarning,
                      stacklevel=2)
    if not kept:
        where = "" if window is None else f" submitted in the window [{start:g}, {end:g}) s"
        raise InvalidInput("" if window is None else "window", f"no jobs to import{where}", source=source)
    origin = start if window is not None else min(record["submit_time"] for _, record in kept)
    jobs = [_job(record, origin, pool_by, number, source) for number, record in kept]
    if known:
        warnings.warn(f"{source}: not modelled, ignored: {', '.join(n for n in SWF_IGNORED if n in known)}",
                      TraceWarning, stacklevel=2)
    return trace_workload(jobs, source, [f"line {number}" for number, _ in kept])


def _record(text: str, number: int, source: str) -> dict[str, float]:
    """The 18 fields of a job line, checked: numbers, -1 or >= 0, whole where SWF says so."""
    cells = text.split()
    if len(cells) != len(SWF_FIELDS):
        raise InvalidInput(f"line {number}", f"expected {len(SWF_FIELDS)} whitespace-separated fields, got "
                                             f"{len(cells)}", source=source)
    record: dict[str, float] = {}
    for name, cell in zip(SWF_FIELDS, cells, strict=True):
        try:
            record[name] = _field(name, cell)
        except InvalidInput as error:
            raise InvalidInput(f"line {number}.{error.field}", error.problem, source=source) from None
    for name in ("job_number", "submit_time"):
        if record[name] == -1:
            raise InvalidInput(f"line {number}.{name}", "must be known (>= 0), got -1", source=source)
    if int(record["status"]) not in _STATUSES:
        raise InvalidInput(f"line {number}.status", f"must be one of {', '.join(map(str, _STATUSES))}, got "
                                                    f"{record['status']:g}", source=source)
    return record


def _field(name: str, cell: str) -> float:
    if len(cell) > MAX_NUMBER_CHARS:
        raise InvalidInput(name, f"a number of {len(cell):,} characters; numbers may have at most "
                                 f"{MAX_NUMBER_CHARS}")
    try:
        value = float(cell)
    except ValueError:
        raise InvalidInput(name, f"must be a number, got {shown(cell)}") from None
    if not math.isfinite(value):
        raise InvalidInput(name, f"must be a finite number, got {shown(cell)}")
    if name not in _REAL and value != int(value):
        raise InvalidInput(name, f"must be a whole number, got {shown(cell)}")
    if value < 0 and value != -1:
        raise InvalidInput(name, f"must be >= 0, or -1 (unknown), got {shown(cell)}")
    # seconds as every model bounds them; counts and ids (processors, memory in KB, numbers) like bytes
    top = MAX_SECONDS if name in _SECONDS else MAX_BYTES
    if value > top:
        raise InvalidInput(name, f"must be <= {top:g}, got {shown(cell)}")
    return value


def _processors(record: dict[str, float]) -> int:
    allocated = int(record["allocated_processors"])
    return allocated if allocated > 0 else max(int(record["requested_processors"]), 0)


def _skip_reason(record: dict[str, float], status: int) -> str | None:
    if status in _PARTIAL:
        return SKIP_REASONS[3]
    if record["run_time"] <= 0:
        return SKIP_REASONS[0] if status == _CANCELLED else SKIP_REASONS[1]
    if _processors(record) == 0:
        return SKIP_REASONS[2]
    return None


def _job(record: dict[str, float], origin: float, pool_by: str, number: int, source: str) -> Job:
    processors = _processors(record)
    if processors > MAX_TASKS:
        field = "allocated_processors" if record["allocated_processors"] > 0 else "requested_processors"
        raise InvalidInput(f"line {number}.{field}", f"must be <= {MAX_TASKS:,} (one map task each), got "
                                                     f"{processors:,}", source=source)
    return Job(f"job{int(record['job_number'])}", processors, 0, max(record["run_time"], MIN_TASK_SECONDS),
               submit=record["submit_time"] - origin, pool=_pool(record, pool_by))


def _pool(record: dict[str, float], pool_by: str) -> str:
    queue, user = int(record["queue_number"]), int(record["user_id"])
    if pool_by == "queue" and queue >= 0:
        return f"queue-{queue}"
    return f"user-{user}" if user >= 0 else "default"
