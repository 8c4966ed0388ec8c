"""The successful task attempts of a Rumen trace, as recorded: where and when each one ran.

`read_rumen` keeps what a plan needs (task counts, mean times); a replay of the recorded run
(`planner.proof.replay`) needs each attempt: its host and rack, its start and finish, for a
reduce the ends of its shuffle and sort, and the bytes it moved. `read_rumen_attempts(path)`
returns one `RecordedJob` per job with its `RumenAttempt`s; `RumenAttempt.record()` is the
same attempt as a flat record. Times are seconds relative to the earliest job submission in
the file (as `rumen_task_records`); problems raise `InvalidInput` naming the file, the job's
place and the trace's own key, as `read_rumen` does.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from models import InvalidInput
from models.checks import key_name, shown
from planner.io.json_traces import RUMEN_PRIORITIES, TraceWarning, _epoch_ms, _job_name, _json_jobs

#: The attempt counters kept, by the trace's own key (-1 or absent: the trace does not say).
BYTE_COUNTERS = {"hdfsBytesRead": "hdfs_bytes_read", "hdfsBytesWritten": "hdfs_bytes_written",
                 "fileBytesRead": "file_bytes_read", "fileBytesWritten": "file_bytes_written",
                 "mapOutputBytes": "map_output_bytes", "reduceShuffleBytes": "shuffle_bytes"}


@dataclass(frozen=True)
class RumenAttempt:
    """One successful task attempt.

    ``task`` is the task's position in its job's ``mapTasks`` or ``reduceTasks``; ``host`` and
    ``rack`` come from ``hostName`` (``/rack/host``; rack None when the name has no rack);
    ``start`` and ``finish`` are ``startTime`` and ``finishTime``; ``shuffle_finish`` and
    ``sort_finish`` (reduces: ``shuffleFinished``, ``sortFinished``) are None when the trace
    has -1. The byte counters are the trace's own (``hdfsBytesRead`` as ``hdfs_bytes_read``
    ...; `BYTE_COUNTERS`), None where the trace has -1.
    """

    job: str
    kind: str
    task: int
    host: str | None
    rack: str | None
    start: float
    finish: float
    shuffle_finish: float | None = None
    sort_finish: float | None = None
    hdfs_bytes_read: int | None = None
    hdfs_bytes_written: int | None = None
    file_bytes_read: int | None = None
    file_bytes_written: int | None = None
    map_output_bytes: int | None = None
    shuffle_bytes: int | None = None

    @property
    def seconds(self) -> float:
        """finish - start."""
        return self.finish - self.start

    def record(self) -> dict[str, Any]:
        """The attempt as a flat record (the fields above, in order)."""
        return asdict(self)


@dataclass(frozen=True)
class RecordedJob:
    """A job of a Rumen trace as it ran: ``submit`` (seconds after the earliest submission),
    ``outcome``, ``pool`` (``queue``), ``priority`` (a level, `RUMEN_PRIORITIES`),
    ``properties`` (the trace's ``jobProperties``, strings) and its successful ``attempts``
    (maps, then reduces, in the trace's order)."""

    name: str
    submit: float
    outcome: str | None
    pool: str
    priority: int
    properties: Mapping[str, str]
    attempts: tuple[RumenAttempt, ...]

    def of_kind(self, kind: str) -> list[RumenAttempt]:
        """The attempts of one kind ("map" or "reduce")."""
        return [attempt for attempt in self.attempts if attempt.kind == kind]


def read_rumen_attempts(path: str | Path, *, keep_failed: bool = False) -> list[RecordedJob]:
    """Every job of a Rumen trace with its successful attempts.

    Jobs whose ``outcome`` is not SUCCESS are skipped with a `TraceWarning` unless
    ``keep_failed`` (as `read_rumen`); attempts whose ``result`` is not SUCCESS are left out.
    """
    source = str(path)
    records = _json_jobs(path)
    origin = min(_epoch_ms(job, "submitTime", where, source) for where, job in records)
    jobs = []
    for where, job in records:
        name = _job_name(job, "jobID", where, source)
        outcome = job.get("outcome")
        if outcome != "SUCCESS" and not keep_failed:
            warnings.warn(f"{source}: {key_name(name)}: outcome {shown(outcome)}, skipped", TraceWarning, stacklevel=2)
            continue
        attempts: list[RumenAttempt] = []
        for key, kind in (("mapTasks", "map"), ("reduceTasks", "reduce")):
            attempts += _attempts(job, key, kind, name, f"{where}.{key}", source, origin)
        queue, level = job.get("queue"), job.get("priority", "NORMAL")
        properties = job.get("jobProperties")
        jobs.append(RecordedJob(
            name=name,
            submit=(_epoch_ms(job, "submitTime", where, source) - origin) / 1000.0,
            outcome=outcome if isinstance(outcome, str) else None,
            pool=queue if isinstance(queue, str) and queue.strip() else "default",
            priority=RUMEN_PRIORITIES.get(level.upper(), 0) if isinstance(level, str) else 0,
            properties=MappingProxyType({str(k): str(v) for k, v in properties.items()}
                                        if isinstance(properties, dict) else {}),
            attempts=tuple(attempts),
        ))
    if not jobs:
        raise InvalidInput("", "no successful jobs in the trace", source=source)
    return jobs


def _attempts(job: dict, key: str, kind: str, name: str, where: str, source: str,
              origin: float) -> list[RumenAttempt]:
    tasks = job.get(key)
    if tasks is None:
        return []
    if not isinstance(tasks, list):  # a failed job may carry counts where the tasks belong
        raise InvalidInput(where, f"must be a list of tasks, got {type(tasks).__name__}", source=source)
    found = []
    for t, task in enumerate(tasks):
        attempts = task.get("attempts") if isinstance(task, dict) else None
        if not isinstance(attempts, list):
            raise InvalidInput(f"{where}[{t}].attempts", "must be a list", source=source)
        for a, attempt in enumerate(attempts):
            if not isinstance(attempt, dict) or attempt.get("result") != "SUCCESS":
                continue
            at = f"{where}[{t}].attempts[{a}]"
            start = _epoch_ms(attempt, "startTime", at, source)
            finish = _epoch_ms(attempt, "finishTime", at, source)
            if finish < start:
                raise InvalidInput(f"{at}.finishTime", f"is before startTime ({finish:.0f} < {start:.0f})",
                                   source=source)
            host, rack = _host(attempt.get("hostName"))
            found.append(RumenAttempt(
                job=name, kind=kind, task=t, host=host, rack=rack,
                start=(start - origin) / 1000.0, finish=(finish - origin) / 1000.0,
                shuffle_finish=_moment(attempt.get("shuffleFinished"), origin) if kind == "reduce" else None,
                sort_finish=_moment(attempt.get("sortFinished"), origin) if kind == "reduce" else None,
                **{field: _count(attempt.get(counter)) for counter, field in BYTE_COUNTERS.items()},
            ))
    return found


def _host(value: object) -> tuple[str | None, str | None]:
    """(host, rack) of a ``hostName`` such as ``/default-rack/a2117.smile.com``."""
    if not isinstance(value, str) or not value.strip("/ "):
        return None, None
    parts = [part for part in value.strip().split("/") if part]
    return parts[-1], "/".join(parts[:-1]) or None


def _moment(value: object, origin: float) -> float | None:
    """An epoch-ms time of the trace relative to ``origin``, in seconds; None for -1 or junk."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        return None
    return (value - origin) / 1000.0


def _count(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value
