"""Calibrated task times from Spark event logs: each job's work and the per-task overhead, apart.

A Spark task holds its core for longer than it computes. Of a successful attempt's duration
(``Finish Time - Launch Time``):

- the **work** is ``Executor Run Time - Fetch Wait Time``: the task's own computation;
- the **overhead** is the rest, ``duration - work``, in five parts: ``deserialize`` (``Executor
  Deserialize Time``), ``result_serialize`` (``Result Serialization Time``), ``getting_result``
  (the driver fetching a large result), ``fetch_wait`` (waiting for shuffle blocks, inside the run
  time) and ``launch`` (what is left: sending the task, starting it, reporting its end).

`fit_spark` measures both in one or more logs. The overhead is summed up per Spark task kind
(``shuffle_map``, ``result``): its mean, median and 95th percentile and those of every part
(`SparkProfile.overheads`, one flat record per kind). The work is kept per job and phase
(`SparkProfile.jobs`: the mean work per task). The profile's workload is the logs' batch
(`planner.io.spark.logs.spark_batch`) with every task time ``work + overhead``, the overhead of
the phase's kind (its median by default: the first tasks on a cold executor take seconds, and a
mean spreads that over every job; ``statistic="mean"`` keeps the total slot time): a prediction
from it does not replay the recorded times, it runs each job's mean work. `with_overheads` adds the
overheads to another workload whose task times are work alone (the jobs' nominal times): a map
phase takes the ``shuffle_map`` overhead when the job has reduces and the ``result`` overhead when it
is map-only; a reduce phase takes the ``result`` overhead. A kind the logs have no measured
successful task of takes the other kind's overhead, and a `SparkImportWarning` says so. The work
is measured on the successful attempts the batch keeps (one per partition), not on every attempt.

Percentiles are linear between the sorted values (NumPy's default): the p-th of ``v[0..n-1]`` is
at position ``p/100 * (n - 1)``.
"""

from __future__ import annotations

import math
import statistics
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from models.checks import as_instance, as_str, shown
from models.errors import InvalidInput, InvalidType
from models.limits import MAX_SECONDS, MIN_TASK_SECONDS
from models.workload import Workload
from planner.io.spark.logs import SparkImportWarning
from planner.io.spark.records import SparkApplication, SparkTask

__all__ = ["OVERHEAD_FIELDS", "OVERHEAD_PARTS", "PROFILE_JOB_FIELDS", "SparkProfile", "fit_spark", "percentile",
           "task_overheads", "with_overheads"]

#: The parts of a task's overhead, in the order records list them.
OVERHEAD_PARTS = ("launch", "deserialize", "result_serialize", "getting_result", "fetch_wait")
#: The fields of a `SparkProfile.overheads` record: per kind, the overhead's and each part's statistics.
OVERHEAD_FIELDS = ("kind", "tasks", "overhead_mean", "overhead_median", "overhead_p95",
                   *(f"{part}_{stat}" for part in OVERHEAD_PARTS for stat in ("mean", "median", "p95")))
#: The fields of a `SparkProfile.jobs` record: a batch job's work and overhead per task, by phase.
PROFILE_JOB_FIELDS = ("job", "map_tasks", "map_work", "map_overhead", "reduce_tasks", "reduce_work",
                      "reduce_overhead")
#: The overhead statistics a profile may add to the work ("median" by default).
STATISTICS = ("median", "mean")


def percentile(values: Sequence[float], share: float) -> float:
    """The ``share`` percentile (0-100) of ``values``, linear between sorted values (module docstring)."""
    if not values:
        raise InvalidInput("values", "a percentile of no values")
    ordered = sorted(values)
    position = share / 100 * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _parts(task: SparkTask) -> dict[str, float] | None:
    """A successful attempt's work and overhead parts (None: the log lacks its run time)."""
    if task.status != "success" or task.finish is None or task.run_time is None:
        return None
    duration = task.finish - task.launch
    fetch = task.fetch_wait_time or 0.0
    work = max(0.0, task.run_time - fetch)
    parts = {"deserialize": task.deserialize_time or 0.0, "result_serialize": task.result_serialize_time or 0.0,
             "getting_result": task.getting_result_time or 0.0, "fetch_wait": fetch}
    overhead = max(0.0, duration - work)
    parts["launch"] = max(0.0, overhead - sum(parts.values()))
    return {"work": work, "overhead": overhead, **parts}


def task_overheads(tasks: Iterable[SparkTask]) -> list[dict[str, Any]]:
    """Per Spark task kind (shuffle_map, then result), the overhead of the successful attempts:
    flat records of `OVERHEAD_FIELDS` (seconds; kinds without such attempts are left out)."""
    by_kind: dict[str, list[dict[str, float]]] = {"shuffle_map": [], "result": []}
    for task in tasks:
        parts = _parts(as_instance(task, SparkTask, "tasks[]"))
        if parts is not None:
            by_kind[task.kind].append(parts)
    records = []
    for kind, rows in by_kind.items():
        if not rows:
            continue
        record: dict[str, Any] = {"kind": kind, "tasks": len(rows)}
        for part in ("overhead", *OVERHEAD_PARTS):
            values = [row[part] for row in rows]
            record[f"{part}_mean"] = round(statistics.fmean(values), 6)
            record[f"{part}_median"] = round(statistics.median(values), 6)
            record[f"{part}_p95"] = round(percentile(values, 95), 6)
        records.append(record)
    return records


@dataclass(frozen=True)
class SparkProfile:
    """What `fit_spark` measured: ``overheads`` (per Spark task kind, `OVERHEAD_FIELDS`), ``jobs``
    (per batch job, `PROFILE_JOB_FIELDS`: mean work and overhead per task of each phase), the
    ``statistic`` of the overhead the workload adds ("mean" or "median"), and ``workload``: the
    logs' batch with task times work + overhead."""

    overheads: tuple[dict[str, Any], ...]
    jobs: tuple[dict[str, Any], ...]
    statistic: str
    workload: Workload

    def overhead(self, kind: str) -> float:
        """The overhead per task of Spark task kind ``kind``; when the logs had no successful task of
        that kind, the other kind's (0 when they had neither)."""
        found = next((r for r in self.overheads if r["kind"] == kind), None) or next(iter(self.overheads), None)
        return 0.0 if found is None else found[f"overhead_{self.statistic}"]

    def missing_kinds(self) -> tuple[str, ...]:
        """The Spark task kinds the logs had no measured successful task of (their overhead is the other kind's)."""
        measured = {r["kind"] for r in self.overheads}
        return tuple(kind for kind in ("shuffle_map", "result") if kind not in measured)

    def to_dict(self) -> dict[str, Any]:
        """The profile's file form (the workload is written on its own)."""
        return {"statistic": self.statistic, "overheads": [dict(r) for r in self.overheads],
                "jobs": [dict(r) for r in self.jobs]}


def fit_spark(paths: str | Path | Sequence[str | Path], *, statistic: str = "median",
              jobs: Iterable[str] | None = None) -> SparkProfile:
    """The work and overheads of the applications whose event logs are at ``paths`` (one log or
    several: one batch, as `planner.io.spark.logs.read_spark_batch` makes it; module docstring).

    ``jobs``: the batch's jobs (names, as the import gives them) to fit, the others left out of the
    workload and of the overheads: an application that ran other work before or beside the batch
    (a warm-up, an interactive query) would lend the batch its tasks' overheads. Every name must be
    a job of the logs, and a job kept must not wait for one left out."""
    from planner.io.spark.logs import read_spark_application, spark_batch_of

    as_str(statistic, "statistic", choices=STATISTICS)
    items = [paths] if isinstance(paths, str | Path) else list(paths) if isinstance(paths, Sequence) else None
    if not items:
        raise InvalidType("paths", f"must be an event log's path or a list of them, got {shown(paths)}")
    apps = [read_spark_application(path) for path in items]
    batch = spark_batch_of(apps)
    workload, recorded = batch.workload, batch.recorded
    if jobs is not None:
        workload, recorded = _kept(workload, recorded, jobs)
    stages = {(row["app"], int(stage)) for row in recorded for stage in row["stages"].split(",")}
    tasks = [task for app in apps for task in app.tasks if jobs is None or (app.app_id, task.stage) in stages]
    overheads = task_overheads(tasks)
    profile = _profile(apps, workload, recorded, overheads, statistic)
    _warn_missing(profile, stacklevel=3)
    return profile


def _kept(workload: Workload, recorded: Sequence[Mapping[str, Any]],
          jobs: Iterable[str]) -> tuple[Workload, list[Mapping[str, Any]]]:
    """The workload's jobs named in ``jobs`` and their recorded rows, in the workload's order."""
    if isinstance(jobs, str) or not isinstance(jobs, Iterable):
        raise InvalidType("jobs", f"must be a list of job names, got {shown(jobs)}")
    wanted = [as_str(name, f"jobs[{index}]") for index, name in enumerate(jobs)]
    names = {job.name for job in workload}
    missing = [name for name in wanted if name not in names]
    if missing:
        raise InvalidInput("jobs", f"{shown(missing[0])} is not a job of the logs")
    kept = set(wanted)
    for job in workload:
        left = next((need.job for need in job.after if job.name in kept and need.job not in kept), None)
        if left is not None:
            raise InvalidInput("jobs", f"{shown(job.name)} waits for {shown(left)}, which is left out")
    pairs = [(job, row) for job, row in zip(workload.jobs, recorded, strict=True) if job.name in kept]
    return Workload([job for job, _ in pairs], name=workload.name), [row for _, row in pairs]


def _warn_missing(profile: SparkProfile, stacklevel: int) -> None:
    missing = profile.missing_kinds()
    if missing and len(missing) < 2:
        other = next(r["kind"] for r in profile.overheads)
        warnings.warn(f"the logs have no measured successful {missing[0]} task: its overhead is the {other} "
                      f"tasks' ({profile.overhead(other)} s, {profile.statistic})", SparkImportWarning,
                      stacklevel=stacklevel)
    elif missing:
        warnings.warn("the logs have no measured successful task: the overhead is 0", SparkImportWarning,
                      stacklevel=stacklevel)


def _profile(apps: list[SparkApplication], workload: Workload, recorded: Sequence[Mapping[str, Any]],
             overheads: list[dict[str, Any]], statistic: str) -> SparkProfile:
    """Per batch job and phase: the mean work of the successful attempts the batch keeps (one per
    partition: `planner.io.spark.logs.successful_attempts`), plus the overhead of the phase's task kind."""
    from planner.io.spark.logs import successful_attempts

    profile = SparkProfile(tuple(overheads), (), statistic, workload)
    jobs, rows = [], []
    for job, row in zip(workload.jobs, recorded, strict=True):
        app = next(a for a in apps if row["app"] == a.app_id)
        stages = [int(s) for s in row["stages"].split(",")]
        phases = [stages[-2], stages[-1]] if job.reduce_tasks else [stages[-1]]
        record: dict[str, Any] = {"job": job.name}
        changes: dict[str, float] = {}
        for phase, stage in zip(("map", "reduce"), phases, strict=False):
            planned = next((s.tasks for s in app.stages if s.stage == stage), None)
            chosen = successful_attempts([t for t in app.tasks if t.stage == stage], planned)
            measured = [p for p in (_parts(t) for t in chosen) if p is not None]
            kind = next((t.kind for t in app.tasks if t.stage == stage), "result")
            count = job.map_tasks if phase == "map" else job.reduce_tasks
            work = statistics.fmean(p["work"] for p in measured) if measured else getattr(job, f"{phase}_time")
            overhead = profile.overhead(kind) if measured else 0.0
            record.update({f"{phase}_tasks": count, f"{phase}_work": round(work, 6), f"{phase}_overhead": overhead})
            changes[f"{phase}_time"] = _task_time(work + overhead)
        if not job.reduce_tasks:
            record.update({"reduce_tasks": 0, "reduce_work": 0.0, "reduce_overhead": 0.0})
        rows.append(record)
        jobs.append(job.with_changes(**changes))
    return SparkProfile(tuple(overheads), tuple(rows), statistic, Workload(jobs, name=workload.name))


def _task_time(seconds: float) -> float:
    return round(min(MAX_SECONDS, max(MIN_TASK_SECONDS, seconds)), 6)


def with_overheads(workload: Workload, profile: SparkProfile) -> Workload:
    """``workload`` (task times: work alone) with the profile's overhead added to every task time:
    a map phase the ``shuffle_map`` overhead when the job has reduces, else the ``result`` one; a
    reduce phase the ``result`` one (module docstring)."""
    as_instance(workload, Workload, "workload")
    as_instance(profile, SparkProfile, "profile")
    _warn_missing(profile, stacklevel=3)
    shuffle_map, result = profile.overhead("shuffle_map"), profile.overhead("result")
    jobs = []
    for job in workload:
        changes: dict[str, float] = {}
        if job.map_tasks:
            changes["map_time"] = _task_time(job.map_time + (shuffle_map if job.reduce_tasks else result))
        if job.reduce_tasks:
            changes["reduce_time"] = _task_time(job.reduce_time + result)
        jobs.append(job.with_changes(**changes) if changes else job)
    return Workload(jobs, name=workload.name)
