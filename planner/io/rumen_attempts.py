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

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from models import InvalidInput
from planner.io.json_traces import RumenJob, byte_count, rumen_jobs, rumen_tasks, successful_attempts

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
    jobs = []
    for head in rumen_jobs(path, keep_failed=keep_failed):
        attempts: list[RumenAttempt] = []
        for key, kind in (("mapTasks", "map"), ("reduceTasks", "reduce")):
            attempts += _attempts(head, key, kind, source)
        outcome, properties = head.job.get("outcome"), head.job.get("jobProperties")
        jobs.append(RecordedJob(
            name=head.name,
            submit=head.submit,
            outcome=outcome if isinstance(outcome, str) else None,
            pool=head.pool,
            priority=head.priority,
            properties=MappingProxyType({str(k): str(v) for k, v in properties.items()}
                                        if isinstance(properties, dict) else {}),
            attempts=tuple(attempts),
        ))
    if not jobs:
        raise InvalidInput("", "no successful jobs in the trace", source=source)
    return jobs


def _attempts(head: RumenJob, key: str, kind: str, source: str) -> list[RumenAttempt]:
    where = f"{head.where}.{key}"
    origin = head.origin
    found = []
    for t, attempt, start, finish in successful_attempts(rumen_tasks(head.job, key, where, source), where, source):
        host, rack = host_and_rack(attempt.get("hostName"))
        found.append(RumenAttempt(
            job=head.name, kind=kind, task=t, host=host, rack=rack,
            start=(start - origin) / 1000.0, finish=(finish - origin) / 1000.0,
            shuffle_finish=_moment(attempt.get("shuffleFinished"), origin) if kind == "reduce" else None,
            sort_finish=_moment(attempt.get("sortFinished"), origin) if kind == "reduce" else None,
            **{field: byte_count(attempt.get(counter)) for counter, field in BYTE_COUNTERS.items()},
        ))
    return found


def host_and_rack(value: object) -> tuple[str | None, str | None]:
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
