"""Importers for public workload traces: SWIM, Hadoop Rumen and the SLS job format.

Each importer returns a `Workload` whose jobs carry task counts, mean task
times and submit times. Problems in a file raise `InvalidInput` naming the
file, the place (line or job) and the field.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from models import InvalidInput, Job, Workload
from models.checks import as_float, as_int
from models.fileio import read_text

MiB = 1 << 20
GiB = 1 << 30

SWIM_COLUMNS = ("job_id", "submit", "gap", "map_input_bytes", "shuffle_bytes", "reduce_output_bytes")
#: Rumen job priorities as integer levels (higher is more important).
RUMEN_PRIORITIES = {"VERY_LOW": -2, "LOW": -1, "NORMAL": 0, "HIGH": 1, "VERY_HIGH": 2}


class TraceWarning(UserWarning):
    """A trace record was skipped or repaired on import."""


@dataclass(frozen=True)
class SwimConversion:
    """How SWIM's byte counts become task counts and task times.

    SWIM records bytes only. A job gets ``max(1, ceil(input / block_size))``
    map tasks and ``ceil(shuffle / bytes_per_reduce)`` reduce tasks (0 when the
    shuffle is empty: a map-only job). A task takes a fixed start-up cost plus
    its share of the bytes at a per-task rate:

    - map_time = map_startup + (input / maps) / map_rate, plus
      (output / maps) / output_rate for a map-only job (its maps write the output);
    - reduce_time = reduce_startup + (shuffle / reduces) / shuffle_rate
      + (output / reduces) / output_rate.

    With the defaults a full 128 MiB block maps in 5 + 25.6 = 30.6 s and a reduce
    of 1 GiB of shuffle takes 5 + 102.4 = 107.4 s before writing its output,
    typical of Hadoop clusters of the SWIM traces' era.
    """

    block_size: float = 128 * MiB
    bytes_per_reduce: float = 1 * GiB
    map_startup: float = 5.0
    map_rate: float = 5 * MiB
    reduce_startup: float = 5.0
    shuffle_rate: float = 10 * MiB
    output_rate: float = 20 * MiB

    def __post_init__(self) -> None:
        for item in fields(self):
            minimum = {"map_startup": 0.0, "reduce_startup": 0.0}.get(item.name)
            value = getattr(self, item.name)
            if minimum is None:
                checked = as_float(value, item.name, above=0.0)
            else:
                checked = as_float(value, item.name, minimum=minimum)
            object.__setattr__(self, item.name, checked)

    def job(
        self, name: str, submit: float, input_bytes: int, shuffle_bytes: int, output_bytes: int, **extra: Any
    ) -> Job:
        maps = max(1, math.ceil(input_bytes / self.block_size))
        reduces = math.ceil(shuffle_bytes / self.bytes_per_reduce) if shuffle_bytes > 0 else 0
        map_time = self.map_startup + input_bytes / maps / self.map_rate
        reduce_time = 0.0
        if reduces:
            reduce_time = (
                self.reduce_startup
                + shuffle_bytes / reduces / self.shuffle_rate
                + output_bytes / reduces / self.output_rate
            )
        else:
            map_time += output_bytes / maps / self.output_rate
        if map_time <= 0:  # zero start-up and zero bytes: keep the task, give it a tick
            map_time = 1e-3
        return Job(name, maps, reduces, map_time, reduce_time, submit=submit, **extra)


def read_swim(
    path: str | Path,
    *,
    limit: int | None = None,
    pool: str = "default",
    intensity: str = "balanced",
    **conversion: Any,
) -> Workload:
    """Import a SWIM workload trace (tab-separated, no header; see `SWIM_COLUMNS`).

    ``conversion`` overrides the `SwimConversion` parameters; ``limit`` keeps the
    first jobs only.
    """
    try:
        convert = SwimConversion(**conversion)
    except TypeError as error:
        raise InvalidInput("conversion", str(error)) from None
    source = str(path)
    jobs: list[Job] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if limit is not None and len(jobs) >= limit:
            break
        cells = line.rstrip("\r\n").split("\t")
        where = f"line {number}"
        if len(cells) != len(SWIM_COLUMNS):
            raise InvalidInput(
                where, f"expected {len(SWIM_COLUMNS)} tab-separated columns, got {len(cells)}", source=source
            )
        name = cells[0].strip()
        if not name:
            raise InvalidInput(f"{where}.job_id", "must not be empty", source=source)
        if name in seen:
            raise InvalidInput(f"{where}.job_id", f"duplicate job id {name!r} (also line {seen[name]})", source=source)
        seen[name] = number
        try:
            submit = as_float(_number(cells[1], "submit"), "submit", minimum=0.0)
            counts = [as_int(_number(cells[i], SWIM_COLUMNS[i]), SWIM_COLUMNS[i], minimum=0) for i in (3, 4, 5)]
            jobs.append(convert.job(name, submit, *counts, pool=pool, intensity=intensity))
        except InvalidInput as error:
            raise InvalidInput(f"{where}.{error.field}", error.problem, source=source) from None
    if not jobs:
        raise InvalidInput("", "no jobs in the trace", source=source)
    return Workload(jobs, name=Path(path).stem)


def _number(text: str, field: str) -> float | int:
    cleaned = text.strip()
    try:
        return int(cleaned)
    except ValueError:
        pass
    try:
        return float(cleaned)
    except ValueError:
        raise InvalidInput(field, f"must be a number, got {text!r}") from None


def iter_json_objects(path: str | Path) -> Iterator[tuple[int, Any]]:
    """The values of a file holding a stream of JSON documents (Rumen's form), or one array.

    Yields (line number, value) pairs; a top-level array is unpacked.
    """
    text = read_text(path)
    decoder = json.JSONDecoder()
    position = 0
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position >= len(text):
            return
        line = text.count("\n", 0, position) + 1
        try:
            value, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError as error:
            raise InvalidInput(
                f"line {error.lineno}", f"malformed JSON at column {error.colno}: {error.msg}", source=str(path)
            ) from None
        if isinstance(value, list):
            for item in value:
                yield line, item
        else:
            yield line, value


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
    source = str(path)
    records = _json_jobs(path)
    origin = None
    for where, job in records:
        submit = _epoch_ms(job, "submitTime", where, source)
        origin = submit if origin is None else min(origin, submit)
    jobs: list[Job] = []
    for where, job in records:
        name = job.get("jobID")
        if not isinstance(name, str) or not name:
            raise InvalidInput(f"{where}.jobID", "must be a non-empty string", source=source)
        outcome = job.get("outcome")
        if outcome != "SUCCESS" and not keep_failed:
            warnings.warn(f"{source}: {name}: outcome {outcome!r}, skipped", TraceWarning, stacklevel=2)
            continue
        maps = _rumen_phase(job, "mapTasks", f"{where}.mapTasks", source)
        reduces = _rumen_phase(job, "reduceTasks", f"{where}.reduceTasks", source)
        if maps is None or reduces is None or maps[0] == 0:
            warnings.warn(f"{source}: {name}: no successful map attempts, skipped", TraceWarning, stacklevel=2)
            continue
        queue = job.get("queue")
        priority = RUMEN_PRIORITIES.get(str(job.get("priority", "NORMAL")).upper(), 0)
        jobs.append(
            Job(
                name,
                maps[0],
                reduces[0],
                maps[1],
                reduces[1],
                submit=(_epoch_ms(job, "submitTime", where, source) - origin) / 1000.0,
                pool=queue if isinstance(queue, str) and queue.strip() else "default",
                priority=priority,
            )
        )
    if not jobs:
        raise InvalidInput("", "no successful jobs in the trace", source=source)
    return Workload(jobs, name=Path(path).stem)


def _epoch_ms(job: dict, key: str, where: str, source: str) -> float:
    if key not in job:
        raise InvalidInput(f"{where}.{key}", "is required", source=source)
    try:
        return as_float(job[key], key, minimum=0.0)
    except InvalidInput as error:
        raise InvalidInput(f"{where}.{key}", error.problem, source=source) from None


def _rumen_phase(job: dict, key: str, where: str, source: str) -> tuple[int, float] | None:
    """(task count, mean successful attempt seconds); None when tasks exist but none succeeded."""
    tasks = job.get(key)
    if tasks is None:
        tasks = []
    if not isinstance(tasks, list):
        raise InvalidInput(where, f"must be a list, got {type(tasks).__name__}", source=source)
    durations = []
    for t, task in enumerate(tasks):
        attempts = task.get("attempts") if isinstance(task, dict) else None
        if not isinstance(attempts, list):
            raise InvalidInput(f"{where}[{t}].attempts", "must be a list", source=source)
        for a, attempt in enumerate(attempts):
            if not isinstance(attempt, dict) or attempt.get("result") != "SUCCESS":
                continue
            at = f"{where}[{t}].attempts[{a}]"
            start = _epoch_ms(attempt, "startTime", at, source)
            end = _epoch_ms(attempt, "finishTime", at, source)
            if end < start:
                raise InvalidInput(f"{at}.finishTime", f"is before startTime ({end:.0f} < {start:.0f})", source=source)
            durations.append((end - start) / 1000.0)
    if not tasks:
        return 0, 0.0
    if not durations:
        return None
    return len(tasks), sum(durations) / len(durations)


def read_sls(path: str | Path) -> Workload:
    """Import Hadoop SLS's own JSON job format (a stream of job objects).

    Per job: ``job.id`` names it, ``job.start.ms`` (relative to the earliest job)
    is its submit time, ``job.queue.name`` its pool; each entry of ``job.tasks``
    is a container whose ``container.type`` (map or reduce) and end - start
    duration give the task counts and mean times.
    """
    source = str(path)
    raw = _json_jobs(path)
    origin = min(_epoch_ms(job, "job.start.ms", where, source) for where, job in raw)
    jobs = []
    for where, job in raw:
        name = job.get("job.id")
        if not isinstance(name, str) or not name:
            raise InvalidInput(f"{where}.job.id", "must be a non-empty string", source=source)
        tasks = job.get("job.tasks")
        if not isinstance(tasks, list) or not tasks:
            raise InvalidInput(f"{where}.job.tasks", "must be a non-empty list of containers", source=source)
        times: dict[str, list[float]] = {"map": [], "reduce": []}
        for t, task in enumerate(tasks):
            at = f"{where}.job.tasks[{t}]"
            if not isinstance(task, dict):
                raise InvalidInput(at, "must be a JSON object", source=source)
            kind = str(task.get("container.type", "")).lower()
            if kind not in times:
                raise InvalidInput(
                    f"{at}.container.type", f"must be map or reduce, got {task.get('container.type')!r}", source=source
                )
            start = _epoch_ms(task, "container.start.ms", at, source)
            end = _epoch_ms(task, "container.end.ms", at, source)
            if end < start:
                raise InvalidInput(f"{at}.container.end.ms", "is before container.start.ms", source=source)
            times[kind].append((end - start) / 1000.0)
        if not times["map"]:
            raise InvalidInput(f"{where}.job.tasks", "has no map containers", source=source)
        queue = job.get("job.queue.name")
        jobs.append(
            Job(
                name,
                len(times["map"]),
                len(times["reduce"]),
                sum(times["map"]) / len(times["map"]),
                sum(times["reduce"]) / len(times["reduce"]) if times["reduce"] else 0.0,
                submit=(_epoch_ms(job, "job.start.ms", where, source) - origin) / 1000.0,
                pool=queue if isinstance(queue, str) and queue.strip() else "default",
            )
        )
    return Workload(jobs, name=Path(path).stem)


def rumen_task_records(path: str | Path) -> list[dict[str, Any]]:
    """Every task attempt of a Rumen trace as a flat record.

    Keys: job, task, kind ("map"/"reduce"), status (the attempt's result), host,
    start, end (seconds relative to the earliest job submission in the file).
    These are the records `PhaseProfile.fit` and ``planner fit tasks.csv`` take.
    """
    source = str(path)
    jobs = _json_jobs(path)
    origin = min(_epoch_ms(job, "submitTime", where, source) for where, job in jobs)
    records = []
    for where, job in jobs:
        for key, kind in (("mapTasks", "map"), ("reduceTasks", "reduce")):
            for t, task in enumerate(job.get(key) or []):
                for a, attempt in enumerate(task.get("attempts") or [] if isinstance(task, dict) else []):
                    if not isinstance(attempt, dict):
                        continue
                    at = f"{where}.{key}[{t}].attempts[{a}]"
                    records.append(
                        {
                            "job": job.get("jobID"),
                            "task": task.get("taskID"),
                            "kind": kind,
                            "status": attempt.get("result"),
                            "host": attempt.get("hostName"),
                            "start": (_epoch_ms(attempt, "startTime", at, source) - origin) / 1000.0,
                            "end": (_epoch_ms(attempt, "finishTime", at, source) - origin) / 1000.0,
                        }
                    )
    return records
