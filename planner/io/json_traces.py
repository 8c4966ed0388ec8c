"""Importers of the JSON trace formats: Hadoop Rumen job histories and the SLS job format.

Both are streams of JSON objects, one per job. Problems raise `InvalidInput` naming the file,
the job's place (``jobs[2] (line 40)``) and the trace's own key, e.g.
``trace.json: jobs[1] (line 40).name: duplicate job name 'job_7' (also jobs[0] (line 1))``.
`planner.io` exports the readers.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from models import InvalidInput, Job, Workload
from models.checks import as_bool, as_float, as_path, key_name, shown
from models.fileio import iter_json_objects
from models.limits import MAX_BYTES
from planner.limits import MAX_TRACE_MS

#: Rumen job priorities as integer levels (higher is more important).
RUMEN_PRIORITIES = {"VERY_LOW": -2, "LOW": -1, "NORMAL": 0, "HIGH": 1, "VERY_HIGH": 2}


class TraceWarning(UserWarning):
    """A trace record was skipped or repaired on import."""


def trace_workload(jobs: list[Job], source: str, places: list[str]) -> Workload:
    """The workload of a trace's jobs; an error (too many tasks in all) names the job's place."""
    try:
        return Workload(jobs, name=Path(source).stem)
    except InvalidInput as error:
        # jobs[i] counts the jobs kept; the trace's reader knows them by their place in the file
        def place(match: re.Match) -> str:
            return places[int(match.group(1))]

        field, problem = (re.sub(r"^jobs\[(\d+)\]", place, error.field),
                          re.sub(r"\bjobs\[(\d+)\]", place, error.problem))
        raise InvalidInput(field, problem, source=source) from None


def _json_jobs(path: str | Path) -> list[tuple[str, dict]]:
    """(place, job object) pairs of a JSON job stream; the place reads ``jobs[i] (line n)``."""
    jobs: list[tuple[str, dict]] = []
    for index, (line, job) in enumerate(iter_json_objects(path)):
        where = f"jobs[{index}] (line {line})"
        if not isinstance(job, dict):
            raise InvalidInput(where, f"must be a JSON object, got {type(job).__name__}", source=str(path))
        jobs.append((where, job))
    if not jobs:
        raise InvalidInput("", "no jobs in the trace", source=str(path))
    return jobs


def read_rumen(path: str | Path, *, keep_failed: bool = False) -> Workload:
    """Import a Hadoop Rumen job-history trace (a stream of JSON job objects).

    Per job: task counts from its map and reduce task lists, mean task times from
    successful attempts only (finishTime - startTime, ms to s), submit time
    relative to the earliest job in the file, pool from ``queue`` and priority
    from Rumen's levels (`RUMEN_PRIORITIES`). Jobs whose ``outcome`` is not
    SUCCESS are skipped with a `TraceWarning` unless ``keep_failed``.
    """
    path = as_path(path, "path")
    keep_failed = as_bool(keep_failed, "keep_failed")
    source = str(path)
    jobs: list[Job] = []
    places: list[str] = []
    for head in rumen_jobs(path, keep_failed=keep_failed):
        where, job, name = head.where, head.job, head.name
        maps = _rumen_phase(job, "mapTasks", f"{where}.mapTasks", source)
        reduces = _rumen_phase(job, "reduceTasks", f"{where}.reduceTasks", source)
        if maps is None or reduces is None or maps[0] == 0:
            warnings.warn(f"{source}: {key_name(name)}: no successful map attempts, skipped", TraceWarning, stacklevel=2)
            continue
        jobs.append(_job(where, source, {"jobID": "name", "mapTasks": "map_tasks", "reduceTasks": "reduce_tasks",
                                         "submitTime": "submit"},
                         name, maps[0], reduces[0], maps[1], reduces[1], submit=head.submit,
                         pool=head.pool, priority=head.priority, **rumen_bytes(job, reduces[0], where, source)))
        places.append(where)
    if not jobs:
        raise InvalidInput("", "no successful jobs in the trace", source=source)
    return trace_workload(jobs, source, places)


def rumen_bytes(job: dict, reduces: int, where: str, source: str) -> dict[str, float]:
    """The job's bytes where the trace records them for every task (`byte_count`): ``input_bytes``
    from its maps' ``inputBytes``, ``shuffle_bytes`` from its successful reduce attempts'
    ``reduceShuffleBytes`` (0 for a map-only job), ``output_bytes`` from the ``outputBytes`` of
    its reduces (of its maps for a map-only job)."""
    maps = rumen_tasks(job, "mapTasks", f"{where}.mapTasks", source)
    reduce_tasks = rumen_tasks(job, "reduceTasks", f"{where}.reduceTasks", source)
    found: dict[str, float] = {}
    inputs = _counts(task.get("inputBytes") for task in maps if isinstance(task, dict))
    if inputs is not None:
        found["input_bytes"] = inputs
    if reduces == 0:
        found["shuffle_bytes"] = 0.0
    else:
        attempts = successful_attempts(reduce_tasks, f"{where}.reduceTasks", source)
        shuffled = [attempt.get("reduceShuffleBytes") for _, attempt, _, _ in attempts]
        if len(shuffled) == reduces and (total := _counts(shuffled)) is not None:
            found["shuffle_bytes"] = total
    outputs = _counts(task.get("outputBytes") for task in (reduce_tasks if reduces else maps)
                      if isinstance(task, dict))
    if outputs is not None:
        found["output_bytes"] = outputs
    return found


def byte_count(value: object) -> int | None:
    """A byte counter of a Rumen trace: a whole number in 0..`MAX_BYTES`; None where the trace
    does not say (Rumen writes -1) or says nonsense."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_BYTES:
        return None
    return value


def _counts(values: Iterable[object]) -> float | None:
    """The sum of byte counters, None unless every one is known (and there is one at least)."""
    counted = [byte_count(value) for value in values]
    return float(sum(counted)) if counted and None not in counted else None


@dataclass(frozen=True)
class RumenJob:
    """A job object of a Rumen trace with what every reader takes from it: its place in the file
    (``jobs[2] (line 9)``), the object, its name (``jobID``), submit time (seconds after the
    earliest submission, ``origin``, which is in the trace's epoch milliseconds), pool
    (``queue``) and priority (a level of `RUMEN_PRIORITIES`)."""

    where: str
    job: dict
    name: str
    submit: float
    pool: str
    priority: int
    origin: float


def rumen_jobs(path: str | Path, *, keep_failed: bool = False) -> Iterator[RumenJob]:
    """The jobs of a Rumen trace, in file order; those whose ``outcome`` is not SUCCESS are
    skipped with a `TraceWarning` unless ``keep_failed``."""
    source = str(path)
    records = _json_jobs(path)
    origin = min(_epoch_ms(job, "submitTime", where, source) for where, job in records)
    for where, job in records:
        name = _job_name(job, "jobID", where, source)
        outcome = job.get("outcome")
        if outcome != "SUCCESS" and not keep_failed:
            warnings.warn(f"{source}: {key_name(name)}: outcome {shown(outcome)}, skipped", TraceWarning, stacklevel=3)
            continue
        queue, level = job.get("queue"), job.get("priority", "NORMAL")
        yield RumenJob(where, job, name, (_epoch_ms(job, "submitTime", where, source) - origin) / 1000.0,
                       queue if isinstance(queue, str) and queue.strip() else "default",
                       RUMEN_PRIORITIES.get(level.upper(), 0) if isinstance(level, str) else 0, origin)


def _job(where: str, source: str, keys: dict[str, str], *args: Any, **kwargs: Any) -> Job:
    """A `Job` from a trace record; an error names the record's place and the trace's own key
    (``keys`` maps them to Job fields: ``jobs[2] (line 9).mapTasks: must be <= 1,000,000``)."""
    try:
        return Job(*args, **kwargs)
    except InvalidInput as error:
        fields = {field: key for key, field in keys.items()}
        head = error.field.split(".")[0]
        raise InvalidInput(f"{where}.{fields.get(head, error.field)}", error.problem, source=source) from None


def _job_name(job: dict, key: str, where: str, source: str) -> str:
    """The job's name under ``key``: a non-empty string."""
    name = job.get(key)
    if not isinstance(name, str) or not name.strip():
        raise InvalidInput(f"{where}.{key}", "must be a non-empty string", source=source)
    return name


def _epoch_ms(job: dict, key: str, where: str, source: str) -> float:
    if key not in job:
        raise InvalidInput(f"{where}.{key}", "is required", source=source)
    try:
        return as_float(job[key], key, minimum=0.0, maximum=MAX_TRACE_MS)
    except InvalidInput as error:
        raise InvalidInput(f"{where}.{key}", error.problem, source=source) from None


def _rumen_phase(job: dict, key: str, where: str, source: str) -> tuple[int, float] | None:
    """(task count, mean successful attempt seconds); None when tasks exist but none succeeded."""
    tasks = [] if job.get(key) is None else job[key]
    if not isinstance(tasks, list):
        raise InvalidInput(where, f"must be a list, got {type(tasks).__name__}", source=source)
    durations = [(end - start) / 1000.0 for _, _, start, end in successful_attempts(tasks, where, source)]
    if not tasks:
        return 0, 0.0
    if not durations:
        return None
    return len(tasks), _mean(durations)


def rumen_tasks(job: dict, key: str, where: str, source: str) -> list:
    """The task list of ``job`` under ``key`` ("mapTasks" or "reduceTasks"); [] when absent."""
    tasks = job.get(key)
    if tasks is None:
        return []
    if not isinstance(tasks, list):  # a failed job may carry counts where the tasks belong
        raise InvalidInput(where, f"must be a list of tasks, got {type(tasks).__name__}", source=source)
    return tasks


def _task_attempts(tasks: list, where: str, source: str) -> Iterator[tuple[int, dict, str, dict]]:
    """(task position, task, place, attempt) for every attempt object of a Rumen task list."""
    for t, task in enumerate(tasks):
        attempts = task.get("attempts") if isinstance(task, dict) else None
        if not isinstance(attempts, list):
            raise InvalidInput(f"{where}[{t}].attempts", "must be a list", source=source)
        for a, attempt in enumerate(attempts):
            if isinstance(attempt, dict):
                yield t, task, f"{where}[{t}].attempts[{a}]", attempt


def successful_attempts(tasks: list, where: str, source: str) -> Iterator[tuple[int, dict, float, float]]:
    """(task position, attempt, start ms, finish ms) of each successful attempt of a task list;
    a finish before the start is refused."""
    for t, _, at, attempt in _task_attempts(tasks, where, source):
        if attempt.get("result") != "SUCCESS":
            continue
        start = _epoch_ms(attempt, "startTime", at, source)
        end = _epoch_ms(attempt, "finishTime", at, source)
        if end < start:
            raise InvalidInput(f"{at}.finishTime", f"is before startTime ({end:.0f} < {start:.0f})", source=source)
        yield t, attempt, start, end


@dataclass(frozen=True)
class SlsContainer:
    """A container of an SLS job: ``kind`` ("map" or "reduce", from ``container.type``),
    ``start`` and ``end`` (``container.start.ms``, ``container.end.ms``, seconds after the
    earliest job's ``job.start.ms``), ``host`` (``container.host`` as written, None without one)
    and ``place`` (``jobs[0] (line 1).job.tasks[2]``)."""

    kind: str
    start: float
    end: float
    host: str | None
    place: str


@dataclass(frozen=True)
class SlsJob:
    """A job object of an SLS job file with what every reader takes from it: its place in the file,
    the object, its name (``job.id``), ``submit`` (``job.start.ms``, seconds after the earliest),
    ``pool`` (``job.queue.name``, "default" without one) and its ``containers``."""

    where: str
    job: dict
    name: str
    submit: float
    pool: str
    containers: tuple[SlsContainer, ...]


def sls_jobs(path: str | Path) -> list[SlsJob]:
    """The jobs of an SLS job file, in file order, each with its containers (a job with no map
    container, a container type other than map or reduce, or an end before the start is refused)."""
    source = str(as_path(path, "path"))
    raw = _json_jobs(path)
    origin = min(_epoch_ms(job, "job.start.ms", where, source) for where, job in raw)
    jobs = []
    for where, job in raw:
        name = _job_name(job, "job.id", where, source)
        tasks = job.get("job.tasks")
        if not isinstance(tasks, list) or not tasks:
            raise InvalidInput(f"{where}.job.tasks", "must be a non-empty list of containers", source=source)
        containers = []
        for t, task in enumerate(tasks):
            at = f"{where}.job.tasks[{t}]"
            if not isinstance(task, dict):
                raise InvalidInput(at, "must be a JSON object", source=source)
            kind = task.get("container.type")
            kind = kind.lower() if isinstance(kind, str) else ""
            if kind not in ("map", "reduce"):
                raise InvalidInput(f"{at}.container.type",
                                   f"must be map or reduce, got {shown(task.get('container.type'))}", source=source)
            start = _epoch_ms(task, "container.start.ms", at, source)
            end = _epoch_ms(task, "container.end.ms", at, source)
            if end < start:
                raise InvalidInput(f"{at}.container.end.ms", "is before container.start.ms", source=source)
            host = task.get("container.host")
            containers.append(SlsContainer(kind, (start - origin) / 1000.0, (end - origin) / 1000.0,
                                           host if isinstance(host, str) and host.strip() else None, at))
        if not any(container.kind == "map" for container in containers):
            raise InvalidInput(f"{where}.job.tasks", "has no map containers", source=source)
        queue = job.get("job.queue.name")
        jobs.append(SlsJob(where, job, name, (_epoch_ms(job, "job.start.ms", where, source) - origin) / 1000.0,
                           queue if isinstance(queue, str) and queue.strip() else "default", tuple(containers)))
    return jobs


def read_sls(path: str | Path) -> Workload:
    """Import Hadoop SLS's own JSON job format (a stream of job objects).

    Per job: ``job.id`` names it, ``job.start.ms`` (relative to the earliest job)
    is its submit time, ``job.queue.name`` its pool; each entry of ``job.tasks``
    is a container whose ``container.type`` (map or reduce) and end - start
    duration give the task counts and mean times.
    """
    source = str(as_path(path, "path"))
    parsed = sls_jobs(path)
    jobs = []
    for head in parsed:
        times: dict[str, list[float]] = {"map": [], "reduce": []}
        for container in head.containers:
            times[container.kind].append(container.end - container.start)
        jobs.append(_job(head.where, source, {"job.id": "name", "job.tasks": "map_tasks", "job.start.ms": "submit"},
                         head.name, len(times["map"]), len(times["reduce"]), _mean(times["map"]),
                         _mean(times["reduce"]), submit=head.submit, pool=head.pool))
    return trace_workload(jobs, source, [head.where for head in parsed])


def _mean(seconds: list[float]) -> float:
    # math.fsum: a sum of large durations may overflow where their mean does not
    return math.fsum(seconds) / len(seconds) if seconds else 0.0


def rumen_task_records(path: str | Path) -> list[dict[str, Any]]:
    """Every task attempt of a Rumen trace as a flat record.

    Keys: job, task, kind ("map"/"reduce"), status (the attempt's result), host,
    start, end (seconds relative to the earliest job submission in the file).
    These are the records `PhaseProfile.fit` and ``planner fit tasks.csv`` take.
    """
    source = str(as_path(path, "path"))
    jobs = _json_jobs(path)
    origin = min(_epoch_ms(job, "submitTime", where, source) for where, job in jobs)
    records = []
    for where, job in jobs:
        for key, kind in (("mapTasks", "map"), ("reduceTasks", "reduce")):
            tasks = rumen_tasks(job, key, f"{where}.{key}", source)
            for _, task, at, attempt in _task_attempts(tasks, f"{where}.{key}", source):
                records.append(
                    {
                        "job": _text(job.get("jobID")),
                        "task": _text(task.get("taskID")),
                        "kind": kind,
                        "status": _text(attempt.get("result")),
                        "host": _text(attempt.get("hostName")),
                        "start": (_epoch_ms(attempt, "startTime", at, source) - origin) / 1000.0,
                        "end": (_epoch_ms(attempt, "finishTime", at, source) - origin) / 1000.0,
                    }
                )
    return records


def _text(value: object) -> str | None:
    """A label for a CSV cell: strings as they are, anything else as a short repr."""
    return value if value is None or isinstance(value, str) else shown(value)
