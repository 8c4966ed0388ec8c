"""Spark event logs as records (`read_spark_application`) and as a batch (`spark_batch`).

`read_spark_application` reads one application's event log (a file or a rolling folder, plain or
compressed: `planner.io.spark.events` streams it) into the records of `planner.io.spark.records`.
Field spellings of Spark 2.x to 4.x are read, each with a default where older versions lack it
(2.1 has no ``Partition ID`` and no ``Submission Time`` in a job's stage infos). Listener events
that are not modelled (block managers, resource profiles, SQL executions, blacklisting, ...) and
task metrics that are not used are named in one `SparkImportWarning`.

`spark_batch` turns an application into what the simulator takes (see docs/profiles-and-importers.md,
"Spark event logs"):

- a Spark job of a shuffle-map stage and a result stage is one MapReduce-style `Job` (maps and
  reduces: the two stages' task counts; task times: the mean successful attempt, launch to
  finish); a job of one stage is map-only; in a job of more stages, the result stage (with its
  single parent stage, when no other stage reads it) is the job's step and every other stage a
  map-only step before it, linked by `Job.after`;
- a stage whose shuffle an earlier job wrote (Spark skipped it) makes the step that reads it wait
  for the step that wrote it; the jobs keep their recorded order and submission times;
- one node per executor (the driver only in local mode), its cores as containers; no heartbeat
  (Spark offers a core the moment a task ends);
- the scheduler from ``spark.scheduler.mode``, the pools the jobs named (weight 1, minShare 0, FIFO
  inside: Spark's defaults for a pool the allocation file does not list);
- the recorded task times (`SimOptions.task_times` form) and per-job records for a replay, and
  ``notes``: what the batch does not model (failed, killed and speculative attempts, skipped
  stages, executors that came and went), also given as a `SparkImportWarning`.
"""

from __future__ import annotations

import math
import re
import statistics
import warnings
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from models.checks import as_path, shown
from models.errors import InvalidInput, InvalidType
from models.limits import MAX_NODES, MAX_SECONDS, MIN_TASK_SECONDS
from planner.io.spark.events import SparkEvent, SparkLogWarning, read_events
from planner.io.spark.records import (
    SparkApplication,
    SparkExecutor,
    SparkJob,
    SparkStage,
    SparkTask,
    partition_key,
)

if TYPE_CHECKING:
    from models.cluster import Cluster
    from models.workload import Workload
    from planner.simulator.options import SimOptions
    from planner.simulator.schedulers.pools import Pool

__all__ = ["RECORDED_FIELDS", "SparkBatch", "SparkImportWarning", "read_spark", "read_spark_application",
           "read_spark_batch", "spark_batch", "spark_batch_of", "successful_attempts"]

#: The fields of a `SparkBatch.recorded` row.
RECORDED_FIELDS = ("job", "spark_jobs", "stages", "pool", "submit", "first_launch", "end", "runtime", "app")
#: The listener events `read_spark_application` reads; any other is named in a warning.
MODELLED_EVENTS = frozenset({
    "SparkListenerLogStart", "SparkListenerApplicationStart", "SparkListenerApplicationEnd",
    "SparkListenerEnvironmentUpdate", "SparkListenerExecutorAdded", "SparkListenerExecutorRemoved",
    "SparkListenerJobStart", "SparkListenerJobEnd", "SparkListenerStageSubmitted", "SparkListenerStageCompleted",
    "SparkListenerTaskStart", "SparkListenerTaskEnd",
})
#: The ``Task Metrics`` a task record keeps; the others are named in the warning.
USED_TASK_METRICS = frozenset({
    "Executor Deserialize Time", "Executor Run Time", "Result Serialization Time", "JVM GC Time",
    "Shuffle Read Metrics", "Shuffle Write Metrics", "Input Metrics", "Output Metrics",
})
#: Applications of one batch keep their recorded offsets, except that idle time longer than this
#: between the end of the earlier ones and a later one's start is left out (logs of other days).
MAX_IDLE_BETWEEN_APPS = 3600.0
#: The largest byte count a task metric may hold (1 EB): more is a broken log, not a measurement.
MAX_METRIC_BYTES = 10**18
#: The most cores an executor of a log may have (`models.limits.MAX_SLOTS_PER_NODE`).
MAX_LOG_EXECUTOR_CORES = 1_000
#: The latest timestamp a log may hold (ms since 1970: the year 2500); times are not negative.
MAX_EPOCH_MS = 16_725_225_600_000
#: The longest job name made from ``spark.job.description``/``spark.jobGroup.id`` (characters).
MAX_JOB_NAME = 60
_UNSAFE_NAME = re.compile(r"[^\w.:-]+")
_TASK_KINDS = {"ShuffleMapTask": "shuffle_map", "ResultTask": "result"}
_KILLED_REASONS = ("TaskKilled", "TaskKilledException")


class SparkImportWarning(SparkLogWarning):
    """Something a Spark event log holds that the records or the batch do not model (named)."""


# ----------------------------------------------------------------------------- reading the log


def _fail(event: SparkEvent, key: str, problem: str) -> InvalidInput:
    return InvalidInput(f"line {event.line}.{key}", problem, source=event.source)


def _value(event: SparkEvent, mapping: Mapping[str, Any], key: str, kind: str, *, required: bool = False,
           where: str = "") -> Any:
    """``mapping[key]`` checked to be of ``kind`` ("int", "str", "bool", "map", "list"); None when absent
    (an error when ``required``)."""
    name = f"{where}{key}"
    if key not in mapping or mapping[key] is None:
        if required:
            raise _fail(event, name, f"is missing from the {event.kind} event")
        return None
    value = mapping[key]
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int | float) or (
                isinstance(value, float) and not value.is_integer()):
            raise _fail(event, name, f"must be an integer, got {shown(value)}")
        return int(value)
    if kind == "str":
        if isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)
        if not isinstance(value, str):
            raise _fail(event, name, f"must be a string, got {shown(value)}")
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            raise _fail(event, name, f"must be true or false, got {shown(value)}")
        return value
    if kind == "map":
        if not isinstance(value, dict):
            raise _fail(event, name, f"must be a JSON object, got {shown(value)}")
        return value
    if not isinstance(value, list):
        raise _fail(event, name, f"must be a list, got {shown(value)}")
    return value


def _properties(event: SparkEvent, value: Any, key: str) -> dict[str, str]:
    """Spark properties: a JSON object, or (older logs) a list of [name, value] pairs."""
    if value is None:
        return {}
    if isinstance(value, list):
        pairs = value
    elif isinstance(value, dict):
        pairs = list(value.items())
    else:
        raise _fail(event, key, f"must be a JSON object of properties, got {shown(value)}")
    found: dict[str, str] = {}
    for pair in pairs:
        if not isinstance(pair, list | tuple) or len(pair) != 2 or not isinstance(pair[0], str):
            raise _fail(event, key, f"must pair property names with values, got {shown(pair)}")
        found[pair[0]] = pair[1] if isinstance(pair[1], str) else str(pair[1])
    return found


@dataclass
class _StageDraft:
    stage: int
    attempt: int
    name: str
    tasks: int
    parents: tuple[int, ...]
    rdds: tuple[int, ...]
    submit_ms: int | None = None
    complete_ms: int | None = None
    failure: str | None = None


@dataclass
class _LogState:
    """What the events said so far (times still in Spark's milliseconds)."""

    source: str
    app_id: str | None = None
    name: str | None = None
    user: str | None = None
    version: str | None = None
    start_ms: int | None = None
    end_ms: int | None = None
    earliest_ms: int | None = None
    properties: dict[str, str] = field(default_factory=dict)
    executors: dict[str, list[Any]] = field(default_factory=dict)
    jobs: dict[int, dict[str, Any]] = field(default_factory=dict)
    stages: dict[tuple[int, int], _StageDraft] = field(default_factory=dict)
    stage_jobs: dict[int, list[int]] = field(default_factory=dict)
    stage_kinds: dict[int, str] = field(default_factory=dict)
    tasks: list[dict[str, Any]] = field(default_factory=list)
    started: dict[int, dict[str, Any]] = field(default_factory=dict)
    unmodelled: Counter = field(default_factory=Counter)
    unused_metrics: set[str] = field(default_factory=set)

    def saw(self, ms: int | None) -> None:
        if ms is not None and ms > 0 and (self.earliest_ms is None or ms < self.earliest_ms):
            self.earliest_ms = ms


def read_spark_application(path: str | Path) -> SparkApplication:
    """The records of the Spark application whose event log is at ``path`` (module docstring).

    Errors (`InvalidInput`) name the file and the line: a line that is not a listener event, a
    field of the wrong type, a log without listener events or without an application's jobs."""
    state = _LogState(str(as_path(path, "path")))
    for event in read_events(path):
        _read_event(state, event)
    return _application(state)


def _read_event(state: _LogState, event: SparkEvent) -> None:
    kind, fields = event.kind, event.fields
    if kind not in MODELLED_EVENTS:
        state.unmodelled[kind] += 1
        return
    if kind == "SparkListenerLogStart":
        state.version = _value(event, fields, "Spark Version", "str")
    elif kind == "SparkListenerApplicationStart":
        state.app_id = _value(event, fields, "App ID", "str") or state.app_id
        state.name = _value(event, fields, "App Name", "str")
        state.user = _value(event, fields, "User", "str")
        state.start_ms = _time(event, fields, "Timestamp", required=True)
        state.saw(state.start_ms)
    elif kind == "SparkListenerApplicationEnd":
        state.end_ms = _time(event, fields, "Timestamp", required=True)
    elif kind == "SparkListenerEnvironmentUpdate":
        state.properties.update(_properties(event, fields.get("Spark Properties"), "Spark Properties"))
    elif kind == "SparkListenerExecutorAdded":
        _executor_added(state, event)
    elif kind == "SparkListenerExecutorRemoved":
        executor = _value(event, fields, "Executor ID", "str", required=True)
        removed = _value(event, fields, "Timestamp", "int", required=True)
        if executor in state.executors:
            state.executors[executor][4:6] = [removed, _value(event, fields, "Removed Reason", "str")]
    elif kind == "SparkListenerJobStart":
        _job_start(state, event)
    elif kind == "SparkListenerJobEnd":
        job = _value(event, fields, "Job ID", "int", required=True)
        if job not in state.jobs:
            raise _fail(event, "Job ID", f"job {job} ends but never started")
        result = _value(event, fields, "Job Result", "map") or {}
        state.jobs[job].update(end=_value(event, fields, "Completion Time", "int"),
                               result=_value(event, result, "Result", "str", where="Job Result."))
    elif kind in ("SparkListenerStageSubmitted", "SparkListenerStageCompleted"):
        _stage_event(state, event)
    elif kind == "SparkListenerTaskStart":
        info = _value(event, fields, "Task Info", "map", required=True)
        task = _value(event, info, "Task ID", "int", required=True, where="Task Info.")
        state.started[task] = {"stage": _value(event, fields, "Stage ID", "int", required=True),
                               "stage_attempt": _value(event, fields, "Stage Attempt ID", "int") or 0,
                               "info": info, "event": event}
    else:
        _task_end(state, event)


def _executor_added(state: _LogState, event: SparkEvent) -> None:
    fields = event.fields
    executor = _value(event, fields, "Executor ID", "str", required=True)
    info = _value(event, fields, "Executor Info", "map", required=True)
    cores = _value(event, info, "Total Cores", "int", required=True, where="Executor Info.")
    if not 1 <= cores <= MAX_LOG_EXECUTOR_CORES:
        raise _fail(event, "Executor Info.Total Cores", f"must be 1 to {MAX_LOG_EXECUTOR_CORES:,}, got {cores:,}")
    added = _time(event, fields, "Timestamp", required=True)
    state.saw(added)
    state.executors[executor] = [executor, _value(event, info, "Host", "str", where="Executor Info.") or "",
                                 cores, added, None, None]


def _stage_info(state: _LogState, event: SparkEvent, info: Mapping[str, Any], where: str, *,
                in_job: bool = False) -> _StageDraft:
    """The stage attempt ``info`` describes, made on first sight. A job's ``Stage Infos`` (``in_job``)
    say when a stage was made, not when it ran: they never mark it submitted."""
    stage = _value(event, info, "Stage ID", "int", required=True, where=where)
    attempt = _value(event, info, "Stage Attempt ID", "int", where=where) or 0
    parents = tuple(_value(event, {"Parent IDs": p}, "Parent IDs", "int", where=where)
                    for p in (_value(event, info, "Parent IDs", "list", where=where) or []))
    rdds = []
    for rdd in _value(event, info, "RDD Info", "list", where=where) or []:
        if isinstance(rdd, dict) and isinstance(rdd.get("RDD ID"), int):
            rdds.append(rdd["RDD ID"])
    draft = state.stages.get((stage, attempt))
    if draft is None:
        tasks = _value(event, info, "Number of Tasks", "int", required=True, where=where)
        draft = _StageDraft(stage, attempt, _value(event, info, "Stage Name", "str", where=where) or "",
                            tasks, parents, tuple(sorted(rdds)))
        state.stages[(stage, attempt)] = draft
    submitted = _value(event, info, "Submission Time", "int", where=where)
    if submitted is not None and not in_job:
        draft.submit_ms = submitted
        state.saw(submitted)
    return draft


def _job_start(state: _LogState, event: SparkEvent) -> None:
    fields = event.fields
    job = _value(event, fields, "Job ID", "int", required=True)
    if job in state.jobs:
        raise _fail(event, "Job ID", f"job {job} starts twice")
    submit = _time(event, fields, "Submission Time", required=True)
    state.saw(submit)
    infos = _value(event, fields, "Stage Infos", "list") or []
    ids = _value(event, fields, "Stage IDs", "list")
    for position, info in enumerate(infos):
        if not isinstance(info, dict):
            raise _fail(event, f"Stage Infos[{position}]", f"must be a JSON object, got {shown(info)}")
        _stage_info(state, event, info, f"Stage Infos[{position}].", in_job=True)
    stage_ids = [_value(event, {"Stage IDs": s}, "Stage IDs", "int") for s in ids] if ids is not None else [
        _value(event, info, "Stage ID", "int") for info in infos]
    for stage in stage_ids:
        state.stage_jobs.setdefault(stage, []).append(job)
    properties = _properties(event, fields.get("Properties"), "Properties")
    state.jobs[job] = {"submit": submit, "stages": tuple(stage_ids), "properties": properties,
                       "end": None, "result": None}


def _stage_event(state: _LogState, event: SparkEvent) -> None:
    info = _value(event, event.fields, "Stage Info", "map", required=True)
    draft = _stage_info(state, event, info, "Stage Info.")
    if event.kind == "SparkListenerStageCompleted":
        draft.complete_ms = _value(event, info, "Completion Time", "int", where="Stage Info.")
        draft.failure = _value(event, info, "Failure Reason", "str", where="Stage Info.")


def _task_end(state: _LogState, event: SparkEvent) -> None:
    fields = event.fields
    info = _value(event, fields, "Task Info", "map", required=True)
    stage = _value(event, fields, "Stage ID", "int", required=True)
    task_id = _value(event, info, "Task ID", "int", required=True, where="Task Info.")
    state.started.pop(task_id, None)
    kind = _TASK_KINDS.get(_value(event, fields, "Task Type", "str") or "", "result")
    state.stage_kinds.setdefault(stage, kind)
    reason = _value(event, fields, "Task End Reason", "map") or {}
    said = _value(event, reason, "Reason", "str", where="Task End Reason.") or "Success"
    killed = said in _KILLED_REASONS or bool(_value(event, info, "Killed", "bool", where="Task Info."))
    status = "success" if said == "Success" and not killed else "killed" if killed else "failed"
    detail = said
    if status != "success":
        cause = reason.get("Class Name") or reason.get("Reason")
        detail = said if cause == said or not isinstance(cause, str) else f"{said}: {cause}"
    metrics = _value(event, fields, "Task Metrics", "map") or {}
    state.unused_metrics.update(key for key in metrics if key not in USED_TASK_METRICS)
    state.tasks.append(_task_fields(state, event, info, stage, kind, status, None if status == "success" else detail,
                                    metrics))


def _ms(value: int | None) -> float | None:
    return None if value is None else value / 1000.0


def _task_fields(state: _LogState, event: SparkEvent, info: Mapping[str, Any], stage: int, kind: str, status: str,
                 reason: str | None, metrics: Mapping[str, Any]) -> dict[str, Any]:
    def metric(mapping: Mapping[str, Any], key: str, where: str = "Task Metrics.") -> int | None:
        value = _value(event, mapping, key, "int", where=where)
        if value is not None and not 0 <= value <= MAX_METRIC_BYTES and (
                "Bytes" in key or key.endswith("Time")):
            raise _fail(event, f"{where}{key}", f"must be 0 to {MAX_METRIC_BYTES:.0e}, got {value:,}")
        return value

    launch = _time(event, info, "Launch Time", required=True, where="Task Info.")
    finish = _time(event, info, "Finish Time", where="Task Info.")
    if finish and finish < launch:
        raise _fail(event, "Task Info.Finish Time", f"is before the Launch Time ({finish:,} < {launch:,} ms)")
    partition = _value(event, info, "Partition ID", "int", where="Task Info.")
    state.saw(launch)
    shuffle_read = _value(event, metrics, "Shuffle Read Metrics", "map", where="Task Metrics.")
    shuffle_write = _value(event, metrics, "Shuffle Write Metrics", "map", where="Task Metrics.")
    inputs = _value(event, metrics, "Input Metrics", "map", where="Task Metrics.")
    outputs = _value(event, metrics, "Output Metrics", "map", where="Task Metrics.")
    read_bytes = None
    if shuffle_read is not None:
        parts = [metric(shuffle_read, key, "Task Metrics.Shuffle Read Metrics.")
                 for key in ("Remote Bytes Read", "Local Bytes Read")]
        read_bytes = None if all(part is None for part in parts) else sum(part or 0 for part in parts)
    getting = metric(info, "Getting Result Time", "Task Info.")
    return {
        "stage": stage, "stage_attempt": _value(event, event.fields, "Stage Attempt ID", "int") or 0,
        "task": _value(event, info, "Task ID", "int", where="Task Info."),
        "index": _value(event, info, "Index", "int", required=True, where="Task Info."),
        "attempt": _value(event, info, "Attempt", "int", where="Task Info.") or 0, "kind": kind,
        "executor": _value(event, info, "Executor ID", "str", where="Task Info.") or "",
        "host": _value(event, info, "Host", "str", where="Task Info.") or "",
        "locality": _value(event, info, "Locality", "str", where="Task Info.") or "",
        "launch_ms": launch, "finish_ms": finish if finish else None, "status": status,
        "speculative": bool(_value(event, info, "Speculative", "bool", where="Task Info.")), "reason": reason,
        "run_time": _ms(metric(metrics, "Executor Run Time")),
        "deserialize_time": _ms(metric(metrics, "Executor Deserialize Time")),
        "result_serialize_time": _ms(metric(metrics, "Result Serialization Time")),
        # Getting Result Time is a timestamp (when the driver began fetching a large result), 0 if never.
        "getting_result_ms": getting if getting else None,
        "fetch_wait_time": None if shuffle_read is None else _ms(
            metric(shuffle_read, "Fetch Wait Time", "Task Metrics.Shuffle Read Metrics.")),
        "gc_time": _ms(metric(metrics, "JVM GC Time")),
        "input_bytes": None if inputs is None else metric(inputs, "Bytes Read", "Task Metrics.Input Metrics."),
        "shuffle_read_bytes": read_bytes,
        "shuffle_write_bytes": None if shuffle_write is None else metric(
            shuffle_write, "Shuffle Bytes Written", "Task Metrics.Shuffle Write Metrics."),
        "output_bytes": None if outputs is None else metric(outputs, "Bytes Written", "Task Metrics.Output Metrics."),
        "partition": partition if partition is not None and partition >= 0 else None, "line": event.line,
    }


def _time(event: SparkEvent, mapping: Mapping[str, Any], key: str, *, required: bool = False,
          where: str = "") -> int | None:
    """A timestamp (ms since 1970): an integer from 0 to `MAX_EPOCH_MS`."""
    value = _value(event, mapping, key, "int", required=required, where=where)
    if value is not None and not 0 <= value <= MAX_EPOCH_MS:
        raise _fail(event, f"{where}{key}", f"must be a time from 0 to {MAX_EPOCH_MS:,} ms (the year 2500), "
                                            f"got {value:,}")
    return value


def _application(state: _LogState) -> SparkApplication:
    if not state.jobs and not state.tasks:
        raise InvalidInput("", "holds no Spark jobs (no SparkListenerJobStart): nothing to import",
                           source=state.source)
    for task_id, start in state.started.items():  # attempts the log does not end (cut short)
        event = start["event"]
        fields = _task_fields(state, event, start["info"], start["stage"],
                              state.stage_kinds.get(start["stage"], "result"), "failed",
                              "no SparkListenerTaskEnd in the log", {})
        fields.update(task=task_id, finish_ms=None, stage_attempt=start["stage_attempt"])
        state.tasks.append(fields)
    epoch = state.start_ms if state.start_ms is not None else state.earliest_ms or 0
    if state.start_ms is None:
        warnings.warn(f"{state.source}: no SparkListenerApplicationStart: times count from the earliest timestamp "
                      f"in the log ({epoch} ms since 1970: a job's submission, a stage's, an executor's or a task's "
                      "launch)", SparkImportWarning, stacklevel=3)
    known = {stage for stage, _ in state.stages}
    unknown: dict[int, int] = {}
    for raw in state.tasks:
        if raw["stage"] not in known:
            unknown.setdefault(raw["stage"], raw.pop("line", 0))
        raw.pop("line", None)
    if unknown:
        warnings.warn(f"{state.source}: task attempts of stage(s) no stage event or job describes, left out of the "
                      "batch: " + ", ".join(f"stage {stage} (first at line {line})" for stage, line in unknown.items()),
                      SparkImportWarning, stacklevel=3)

    def seconds(ms: int | None) -> float | None:
        return None if ms is None else (ms - epoch) / 1000.0

    executors = tuple(SparkExecutor(e, host, cores, seconds(added) or 0.0, seconds(removed), reason)
                      for e, host, cores, added, removed, reason in state.executors.values())
    jobs = []
    for job, raw in state.jobs.items():
        properties = raw["properties"]
        jobs.append(SparkJob(job, seconds(raw["submit"]) or 0.0, seconds(raw["end"]), raw["result"],
                             properties.get("spark.scheduler.pool") or "default", raw["stages"],
                             properties.get("spark.job.description") or None,
                             properties.get("spark.jobGroup.id") or None, properties))
    stages = tuple(SparkStage(d.stage, d.attempt, d.name, d.tasks, d.parents,
                              tuple(state.stage_jobs.get(d.stage, ())), seconds(d.submit_ms), seconds(d.complete_ms),
                              d.failure, d.rdds) for d in state.stages.values())
    tasks = []
    for raw in state.tasks:
        getting_ms = raw.pop("getting_result_ms")
        launch_ms, finish_ms = raw.pop("launch_ms"), raw.pop("finish_ms")
        raw["getting_result_time"] = (max(0.0, (finish_ms - getting_ms) / 1000.0)
                                      if getting_ms is not None and finish_ms is not None else
                                      (0.0 if finish_ms is not None and raw["run_time"] is not None else None))
        tasks.append(SparkTask(launch=seconds(launch_ms) or 0.0, finish=seconds(finish_ms), **raw))
    mode = (state.properties.get("spark.scheduler.mode") or "FIFO").strip().upper()
    if state.unmodelled or state.unused_metrics:
        parts = []
        if state.unmodelled:
            parts.append("events " + ", ".join(f"{kind} ({count})" for kind, count in sorted(state.unmodelled.items())))
        if state.unused_metrics:
            parts.append("task metrics " + ", ".join(sorted(state.unused_metrics)))
        warnings.warn(f"{state.source}: not modelled, left out: {'; '.join(parts)}", SparkImportWarning, stacklevel=3)
    app_id = state.app_id or Path(state.source).name.removeprefix("eventlog_v2_")
    return SparkApplication(app_id, state.name or app_id, state.version, state.source, epoch,
                            seconds(state.end_ms), dict(state.properties), mode if mode in ("FIFO", "FAIR") else "FIFO",
                            executors, tuple(jobs), stages, tuple(tasks), state.user)


# ----------------------------------------------------------------------------- the batch


@dataclass(frozen=True)
class SparkBatch:
    """An application's jobs as a batch (module docstring): ``workload`` (one `Job` per Spark job,
    or a chain of steps for a job of more than two stages), ``cluster`` (a node per executor, cores
    as containers), ``options`` (containers, reduces after every map, no locality slowdowns: the
    recorded times hold them), ``scheduler`` ("fifo" or "fair"), ``pools`` (the pools the jobs
    used), ``task_times`` (every step's successful task durations, launch to finish, in launch
    order: `SimOptions.task_times` for a replay), ``recorded`` (one flat row per step:
    `RECORDED_FIELDS`, times in seconds from the application's start, ``app`` its id) and ``notes`` (what the
    batch leaves out)."""

    workload: Workload
    cluster: Cluster
    options: SimOptions
    scheduler: str
    pools: tuple[Pool, ...]
    task_times: Mapping[str, Mapping[str, tuple[float, ...]]]
    recorded: tuple[dict[str, Any], ...]
    notes: tuple[str, ...]


@dataclass
class _Step:
    name: str
    spark_job: SparkJob
    stages: list[int]
    map_stage: int
    reduce_stage: int | None
    after: list[str] = field(default_factory=list)


def successful_attempts(tasks: Sequence[SparkTask], count: int | None = None) -> list[SparkTask]:
    """One successful attempt per partition (the first to finish), in launch order. The partition is
    the attempt's ``Partition ID`` (Spark 3.3 and later). An older log has only the ``Index``, a
    task's place in its stage attempt: a resubmitted stage runs the missing partitions again, indexed
    from 0, so the key is (stage attempt, index), and where that gives more than the stage's
    ``count`` tasks, the later attempts' successes are kept first (they are the partitions run
    again), then the earlier ones' in the order they finished, up to ``count``."""
    chosen: dict[tuple[int, int], SparkTask] = {}
    done = sorted((t for t in tasks if t.status == "success" and t.finish is not None),
                  key=lambda t: (t.finish, t.task))
    for task in done:
        chosen.setdefault(partition_key(task), task)
    kept = list(chosen.values())
    if count is not None and len(kept) > count and any(t.partition is None for t in kept):
        kept = sorted(kept, key=lambda t: (-t.stage_attempt, t.finish, t.task))[:count]
    return sorted(kept, key=lambda t: (t.launch, t.task))


def _seconds(value: float) -> float:
    return min(MAX_SECONDS, max(MIN_TASK_SECONDS, value))


def _order(stages: Iterable[int], parents: Mapping[int, tuple[int, ...]]) -> list[int]:
    """The stages parents first (ties by id)."""
    pending = sorted(stages)
    placed: list[int] = []
    while pending:
        ready = next((s for s in pending if all(p in placed or p not in pending for p in parents.get(s, ()))),
                     pending[0])
        placed.append(ready)
        pending.remove(ready)
    return placed


def spark_batch(app: SparkApplication) -> SparkBatch:
    """The batch of ``app``'s jobs (module docstring); ``notes`` also come as a `SparkImportWarning`."""
    from models.cluster import Cluster
    from models.dag import Dependency
    from models.job import Job
    from models.workload import Workload
    from planner.simulator.options import SimOptions
    from planner.simulator.schedulers.pools import Pool

    if not isinstance(app, SparkApplication):
        raise InvalidType("app", f"must be a SparkApplication (read_spark_application(path)), got "
                                 f"{type(app).__name__}")
    notes: list[str] = []
    first_attempt: dict[int, SparkStage] = {}
    ran: dict[int, SparkStage] = {}
    for attempt in app.stages:
        first_attempt.setdefault(attempt.stage, attempt)
        if attempt.submit is not None:
            ran.setdefault(attempt.stage, attempt)
    parents = {s: st.parents for s, st in first_attempt.items()}
    tasks_of: dict[int, list[SparkTask]] = {}
    for task in app.tasks:
        tasks_of.setdefault(task.stage, []).append(task)
    _attempt_notes(app, notes)

    def successes(stage: int) -> list[SparkTask]:
        return successful_attempts(tasks_of.get(stage, ()), first_attempt[stage].tasks)

    steps: list[_Step] = []
    step_of_stage: dict[int, str] = {}
    writer_by_rdds: dict[tuple[int, ...], int] = {}
    names: set[str] = set()
    renamed: list[str] = []
    skipped = 0
    for job in app.jobs:
        own = [s for s in job.stages if s in ran and (first_attempt[s].jobs or (job.job,))[0] == job.job]
        skipped += len(job.stages) - len(own)
        empty = [s for s in own if not successes(s)]
        if not own or empty:
            why = "ran no stage" if not own else f"stage {empty[0]} has no successful task"
            notes.append(f"Spark job {job.job} left out: it {why}" if not own else f"Spark job {job.job} left out: {why}"
                         f" ({job.result or 'no end in the log'})")
            continue
        name = _job_name(job, names, renamed)
        names.add(name)
        job_steps = _job_steps(job, name, _order(own, parents), parents)
        for step in job_steps:
            names.add(step.name)
            for stage in step.stages:
                step_of_stage[stage] = step.name
                if first_attempt[stage].rdds:
                    writer_by_rdds[first_attempt[stage].rdds] = stage
            for stage in step.stages:
                for parent in parents.get(stage, ()):
                    source = parent if parent in step_of_stage else writer_by_rdds.get(
                        first_attempt[parent].rdds if parent in first_attempt else ())
                    if source is None:
                        notes.append(f"stage {stage} (Spark job {job.job}) reads stage {parent}, which did not run "
                                     "and matches no stage that ran: no dependency made")
                        continue
                    writer = step_of_stage.get(source)
                    if writer is not None and writer != step.name and writer not in step.after:
                        step.after.append(writer)
        steps.extend(job_steps)
    if renamed:
        notes.append("job names made safe (letters, digits, -_.: and at most "
                      f"{MAX_JOB_NAME} characters) from their description or group: " + "; ".join(renamed))
    if skipped:
        notes.append(f"{skipped} stage(s) skipped by Spark (their shuffle was written by an earlier job): not run")
    if not steps:
        raise InvalidInput("", "no Spark job with successful tasks: nothing to import", source=app.source)

    jobs: list[Job] = []
    task_times: dict[str, Mapping[str, tuple[float, ...]]] = {}
    recorded: list[dict[str, Any]] = []
    for step in steps:
        maps = successes(step.map_stage)
        reduces = successes(step.reduce_stage) if step.reduce_stage is not None else []
        map_count = max(first_attempt[step.map_stage].tasks, len(maps))
        reduce_count = max(first_attempt[step.reduce_stage].tasks, len(reduces)) if (
            step.reduce_stage is not None and reduces) else 0
        times = {"map": _times(maps, map_count, step.map_stage, notes)}
        if step.reduce_stage is not None and reduces:
            times["reduce"] = _times(reduces, reduce_count, step.reduce_stage, notes)
        task_times[step.name] = times
        jobs.append(Job(step.name, map_tasks=map_count, reduce_tasks=reduce_count,
                        map_time=round(statistics.fmean(times["map"]), 6),
                        reduce_time=round(statistics.fmean(times["reduce"]), 6) if reduces else 0.0,
                        submit=max(0.0, step.spark_job.submit), pool=step.spark_job.pool,
                        input_bytes=_total(maps, "input_bytes"),
                        shuffle_bytes=_total(maps, "shuffle_write_bytes") if reduces else None,
                        output_bytes=_total(reduces or maps, "output_bytes"), after=tuple(Dependency(name) for name in step.after)))
        attempts = [t for s in step.stages for t in tasks_of.get(s, ())]
        end = max(t.finish or 0.0 for t in successes(step.stages[-1]))
        recorded.append({"job": step.name, "spark_jobs": str(step.spark_job.job),
                         "stages": ",".join(str(s) for s in step.stages), "pool": step.spark_job.pool,
                         "submit": step.spark_job.submit, "first_launch": min(t.launch for t in attempts),
                         "end": end, "runtime": round(end - step.spark_job.submit, 6), "app": app.app_id})
    cluster = _cluster(app, notes, Cluster)
    unit = {"cpu": 1.0, "io": 1.0, "balanced": 1.0}
    options = SimOptions(containers=True, reduce_slowstart=1.0, rack_factor=unit, off_rack_factor=unit)
    pools = tuple(Pool(name, weight=1.0, min_map=0, min_reduce=0, mode="fifo")
                  for name in dict.fromkeys(job.pool for job in jobs))
    if notes:
        warnings.warn(f"{app.source}: " + "; ".join(notes), SparkImportWarning, stacklevel=2)
    return SparkBatch(Workload(jobs, name=app.app_id), cluster, options,
                      "fair" if app.scheduler_mode == "FAIR" else "fifo", pools, task_times, tuple(recorded),
                      tuple(notes))


def _job_name(job: SparkJob, taken: set[str], renamed: list[str]) -> str:
    """The job's name: its ``spark.job.description``, else ``spark.jobGroup.id``, else ``job-<id>``,
    made safe (runs of anything but letters, digits and ``-_.:`` become one ``_``, at most
    `MAX_JOB_NAME` characters) and unique (``_job-<id>``, then a number, added); a name changed from
    the text is listed in ``renamed`` with the full text."""
    text = job.description or job.group
    base = _UNSAFE_NAME.sub("_", text).strip("_")[:MAX_JOB_NAME].rstrip("_") if text else ""
    base = base or f"job-{job.job}"
    name, extra = base, 0
    while name in taken:
        suffix = f"_job-{job.job}" + (f"_{extra}" if extra else "")
        name, extra = base[:MAX_JOB_NAME - len(suffix)] + suffix, extra + 1
    if text and name != text:
        renamed.append(f"{name} (Spark job {job.job}): {text!r}")
    return name


def _job_steps(job: SparkJob, name: str, stages: list[int], parents: Mapping[int, tuple[int, ...]]) -> list[_Step]:
    """A Spark job's steps: the result stage (the last, which no other reads) with its single parent
    when no other stage reads that parent, as the job's own step; every other stage a map-only step."""
    result = stages[-1]
    read = Counter(p for s in stages for p in parents.get(s, ()) if p in stages)
    own_parents = [p for p in parents.get(result, ()) if p in stages]
    pair = own_parents[0] if len(parents.get(result, ())) == 1 and len(own_parents) == 1 and read[
        own_parents[0]] == 1 else None
    steps = [_Step(f"{name}/stage-{s}", job, [s], s, None) for s in stages if s not in (result, pair)]
    if pair is not None:
        steps.append(_Step(name, job, [pair, result], pair, result))
    else:
        steps.append(_Step(name, job, [result], result, None))
    return steps


def _times(tasks: list[SparkTask], count: int, stage: int, notes: list[str]) -> tuple[float, ...]:
    """Every task's recorded duration (launch to finish); tasks the log has no success of take the mean."""
    times = [_seconds(round(t.duration or 0.0, 6)) for t in tasks]
    if len(times) < count:
        notes.append(f"stage {stage}: {count - len(times)} of {count} tasks have no successful attempt in the log; "
                     "they take the mean of the others")
        times += [statistics.fmean(times)] * (count - len(times))
    return tuple(times)


def _total(tasks: list[SparkTask], name: str) -> float | None:
    values = [getattr(t, name) for t in tasks]
    return None if all(v is None for v in values) else float(sum(v or 0 for v in values))


def _attempt_notes(app: SparkApplication, notes: list[str]) -> None:
    counts = Counter(t.status for t in app.tasks)
    speculative = sum(1 for t in app.tasks if t.speculative)
    unfinished = sum(1 for t in app.tasks if t.finish is None)
    if counts["failed"] - unfinished:
        notes.append(f"{counts['failed'] - unfinished} failed task attempt(s) not replayed (their successful "
                     "retries are)")
    if counts["killed"]:
        notes.append(f"{counts['killed']} killed task attempt(s) not replayed")
    if speculative:
        notes.append(f"{speculative} speculative task attempt(s): only the first success per task is kept")
    if unfinished:
        notes.append(f"{unfinished} task attempt(s) with no end in the log (cut short?) left out")
    retried = sorted({s.stage for s in app.stages if s.attempt > 0})
    if retried:
        notes.append(f"stage(s) {', '.join(map(str, retried))} ran more than one attempt; one success per "
                     "partition is kept, from any attempt")
    failed = [j.job for j in app.jobs if j.result not in (None, "JobSucceeded")]
    if failed:
        notes.append(f"Spark job(s) {', '.join(map(str, failed))} did not succeed")


def _cluster(app: SparkApplication, notes: list[str], cluster_type: type) -> Cluster:
    local = app.properties.get("spark.master", "").startswith("local[") or app.properties.get(
        "spark.master", "") == "local"
    executors = [e for e in app.executors if e.executor != "driver"]
    if local or not executors:
        executors = [e for e in app.executors if e.executor == "driver"] or executors
    if not executors:  # a log without ExecutorAdded: the executors the tasks ran on, one core per task at once
        seen = sorted({t.executor for t in app.tasks if t.executor})
        notes.append(f"the log adds no executor: {len(seen)} executor(s) taken from the tasks, with as many cores "
                     "as tasks they ran at once")
        executors = [SparkExecutor(e, "", _peak([t for t in app.tasks if t.executor == e]), 0.0) for e in seen]
    nodes, per_node = _nodes(executors, notes)
    first_submit = min((j.submit for j in app.jobs), default=0.0)
    late = [e.executor for e in executors if e.added > first_submit]
    gone = [e for e in executors if e.removed is not None]
    if late:
        notes.append(f"executor(s) {', '.join(late)} added after the first job was submitted: the cluster has them "
                     "from the start")
    if gone:
        notes.append("executor(s) " + ", ".join(f"{e.executor} (at {e.removed:.3f} s: {e.reason or 'no reason'})"
                                                for e in gone) + " removed: the cluster keeps them to the end")
    map_slots = max(1, math.ceil(per_node / 2))
    return cluster_type(nodes=nodes, map_slots=map_slots, reduce_slots=max(1, per_node - map_slots),
                        racks=1, heartbeat=0.0, replication=min(3, nodes))


def _nodes(executors: Sequence[SparkExecutor], notes: list[str]) -> tuple[int, int]:
    """Nodes and containers per node holding exactly the executors' cores (a node has at least 2
    containers, one of each kind, all alike): a node per executor when they all have the same
    cores, 2 or more; else a node per host when the hosts' summed cores are alike, 2 or more; else
    the total cores split into the fewest nodes of equal size under `MAX_LOG_EXECUTOR_CORES` (the
    smallest divisor of the total from 2 up; a prime total is one node). One core in all is the one
    case that cannot be exact: a node of 2 containers, noted."""
    cores = Counter(e.cores for e in executors)
    if len(cores) == 1 and next(iter(cores)) >= 2:
        return len(executors), next(iter(cores))
    total = sum(e.cores for e in executors)
    hosts: Counter = Counter()
    for executor in executors:
        hosts[executor.host or executor.executor] += executor.cores
    if len(set(hosts.values())) == 1 and next(iter(hosts.values())) >= 2:
        per_node = next(iter(hosts.values()))
        notes.append(f"executors of {', '.join(f'{c} x {n}' for n, c in sorted(cores.items()))} core(s): a node per "
                     f"host ({len(hosts)} of {per_node} cores), {total} containers in all as the executors' cores")
        return len(hosts), per_node
    if total == 1:
        notes.append("one executor of 1 core: a node of 2 containers (a node has at least one of each kind), "
                     "twice the recorded cores")
        return 1, 2
    per_node = next((d for d in range(2, MAX_LOG_EXECUTOR_CORES + 1) if total % d == 0 and total // d <= MAX_NODES),
                    None)
    if per_node is None:
        per_node = min(MAX_LOG_EXECUTOR_CORES, max(2, math.ceil(total / MAX_NODES)))
    nodes = math.ceil(total / per_node)
    notes.append(f"executors of {', '.join(f'{c} x {n}' for n, c in sorted(cores.items()))} core(s) on hosts of "
                 f"different cores: {nodes} node(s) of {per_node} containers, {nodes * per_node} in all "
                 f"(the executors have {total} cores)")
    return nodes, per_node


def _peak(tasks: list[SparkTask]) -> int:
    edges = sorted([(t.launch, 1) for t in tasks] + [(t.finish, -1) for t in tasks if t.finish is not None],
                   key=lambda edge: (edge[0], edge[1]))
    running = peak = 0
    for _, step in edges:
        running += step
        peak = max(peak, running)
    return max(1, peak)


# ----------------------------------------------------------------------------- several logs, the importer


def read_spark_batch(paths: str | Path | Sequence[str | Path]) -> SparkBatch:
    """The batch of one event log, or of several applications' logs as one batch: submissions on
    one clock (each application's times shifted by how much later than the first it started, less
    idle time over `MAX_IDLE_BETWEEN_APPS` between applications), the
    job names of an application prefixed with its id (``<app id>/<name>``) where two applications
    use the same name, the executors of all as the cluster (the containers add up: the nodes, or,
    where the applications' nodes differ in size, the total split as `_nodes` splits it), the
    first application's scheduler mode; the workload is named after the applications' ids."""
    items = [paths] if isinstance(paths, str | Path) else list(paths) if isinstance(paths, Sequence) else None
    if not items:
        raise InvalidType("paths", f"must be an event log's path or a list of them, got {shown(paths)}")
    return spark_batch_of([read_spark_application(path) for path in items])


def spark_batch_of(apps: Sequence[SparkApplication]) -> SparkBatch:
    """`spark_batch` of one application, or the applications' batches as one (`read_spark_batch`)."""
    if not apps:
        raise InvalidInput("apps", "must hold at least one SparkApplication")
    pairs = [(app, spark_batch(app)) for app in apps]
    if len(pairs) == 1:
        return pairs[0][1]
    return _merged(pairs)


def _merged(pairs: list[tuple[SparkApplication, SparkBatch]]) -> SparkBatch:
    from models.workload import Workload

    ids = [app.app_id for app, _ in pairs]
    if len(set(ids)) < len(ids):
        twice = next(i for i in ids if ids.count(i) > 1)
        raise InvalidInput("paths", f"application {shown(twice)} is given twice", source=pairs[0][0].source)
    pairs = sorted(pairs, key=lambda pair: pair[0].epoch_ms)
    start = pairs[0][0].epoch_ms
    seen = Counter(job.name for _, batch in pairs for job in batch.workload)
    jobs: list[Any] = []
    task_times: dict[str, Mapping[str, tuple[float, ...]]] = {}
    recorded: list[dict[str, Any]] = []
    notes: list[str] = []
    pools: dict[str, Pool] = {}
    cut, clock_end = 0.0, 0.0
    for app, batch in pairs:
        shift = (app.epoch_ms - start) / 1000.0 - cut
        if shift > clock_end + MAX_IDLE_BETWEEN_APPS:
            notes.append(f"{app.app_id} started {shift - clock_end:,.0f} s after the applications before it ended: "
                         "the idle time between is left out")
            cut += shift - clock_end
            shift = clock_end
        clock_end = max([clock_end] + [row["end"] + shift for row in batch.recorded])
        names = {job.name: (f"{app.app_id}/{job.name}" if seen[job.name] > 1 else job.name) for job in batch.workload}
        for job in batch.workload:
            jobs.append(job.with_changes(name=names[job.name], submit=job.submit + shift,
                                         after=tuple(replace(d, job=names[d.job]) for d in job.after)))
            task_times[names[job.name]] = batch.task_times[job.name]
        for row in batch.recorded:
            recorded.append({**row, "job": names[row["job"]],
                             **{key: row[key] + shift for key in ("submit", "first_launch", "end")}})
        notes.extend(f"{app.app_id}: {note}" for note in batch.notes)
        pools.update((pool.name, pool) for pool in batch.pools)
    first = pairs[0][1]
    clusters = [batch.cluster for _, batch in pairs]
    cluster = first.cluster
    if len({(c.map_slots, c.reduce_slots) for c in clusters}) > 1:  # nodes of different sizes: re-split the total
        nodes, per_node = _nodes([SparkExecutor(f"{n}.{k}", f"{n}.{k}", c.map_slots + c.reduce_slots, 0.0)
                                  for n, c in enumerate(clusters) for k in range(c.nodes)], notes)
        map_slots = max(1, math.ceil(per_node / 2))
        cluster = cluster.with_changes(map_slots=map_slots, reduce_slots=max(1, per_node - map_slots))
    else:
        nodes = sum(c.nodes for c in clusters)
    modes = {batch.scheduler for _, batch in pairs}
    if len(modes) > 1:
        notes.append(f"the applications ran under different scheduler modes: the batch takes the first's "
                     f"({first.scheduler})")
    cluster = cluster.with_changes(nodes=nodes, replication=min(3, nodes))
    return SparkBatch(Workload(jobs, name="+".join(app.app_id for app, _ in pairs)), cluster, first.options,
                      first.scheduler, tuple(pools.values()), task_times, tuple(recorded), tuple(notes))


def read_spark(path: str | Path | Sequence[str | Path]) -> Workload:
    """The importer ``spark`` (`planner import spark LOG...`): the workload of `read_spark_batch`."""
    return read_spark_batch(path).workload
