"""Map/reduce phase profiles fitted from task records."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator

from models.checks import as_float, as_instance, as_int, as_iterable, as_str, key_name, shown
from models.errors import InvalidInput
from models.job import Job
from models.limits import MAX_SECONDS, MAX_TASKS, MAX_VMS
from models.profiles.base import require_fitted
from models.profiles.power_law import PowerLawProfile

TASK_KINDS = ("map", "reduce")
_SUCCESS = {"success", "succeeded", "ok"}


def wave_runtime(
    map_tasks: int, reduce_tasks: int, map_time: float, reduce_time: float, map_slots: int, reduce_slots: int
) -> float:
    """A job's runtime alone on ``map_slots`` and ``reduce_slots``: whole waves of tasks.

    ceil(maps / map_slots) * map_time + ceil(reduces / reduce_slots) * reduce_time. Task counts
    and times are those a `Job` takes (at most `MAX_TASKS` tasks and `MAX_SECONDS` seconds) and
    slots at least 1, so the result is finite.
    """
    map_tasks = as_int(map_tasks, "map_tasks", minimum=0, maximum=MAX_TASKS)
    reduce_tasks = as_int(reduce_tasks, "reduce_tasks", minimum=0, maximum=MAX_TASKS)
    map_time = as_float(map_time, "map_time", minimum=0.0, maximum=MAX_SECONDS)
    reduce_time = as_float(reduce_time, "reduce_time", minimum=0.0, maximum=MAX_SECONDS)
    map_slots = as_int(map_slots, "map_slots", minimum=1)
    reduce_slots = as_int(reduce_slots, "reduce_slots", minimum=1)
    return -(-map_tasks // map_slots) * map_time + -(-reduce_tasks // reduce_slots) * reduce_time


class PhaseProfile(BaseEstimator):
    """Per-job task counts and mean task times, fitted from task records.

    ``fit(records)`` takes an iterable of mappings (or anything with
    ``to_dict("records")``, such as a DataFrame) with keys ``job``, ``kind``
    ("map" or "reduce"; ``type`` is accepted as a synonym, case is ignored),
    ``start`` and ``end`` in seconds, and optionally ``status``: rows whose status
    is not a success ("SUCCESS", "succeeded", "ok") are ignored, since only
    successful attempts describe how long a task takes.

    Learned attributes, aligned with ``jobs_`` (ordered by each job's first task
    start, then name): ``map_tasks_``, ``reduce_tasks_``, ``map_time_``,
    ``reduce_time_`` (mean seconds per task, 0 with no tasks of that kind) and
    ``submit_`` (first task start, relative to the earliest record).

    ``profile(n, job=None)`` is the job's runtime alone on n map and n reduce
    slots by whole waves (`wave_runtime`); ``job`` may be omitted when one job
    was fitted.
    """

    def __init__(self, min_tasks: int = 1) -> None:
        self.min_tasks = min_tasks

    def fit(self, records: Any, y: None = None) -> PhaseProfile:
        min_tasks = as_int(self.min_tasks, "min_tasks", minimum=1)
        rows = _as_rows(records)
        stats: dict[str, dict[str, list[float]]] = {}
        first_start: dict[str, float] = {}
        for index, row in enumerate(rows):
            try:
                parsed = _parse_row(row)
            except InvalidInput as error:
                raise error.within(f"records[{index}]") from None
            if parsed is None:
                continue
            job, kind, start, end = parsed
            stats.setdefault(job, {"map": [], "reduce": []})[kind].append(end - start)
            first_start[job] = min(first_start.get(job, start), start)
        if not stats:
            raise InvalidInput("records", "no successful task records to fit")
        for job, kinds in stats.items():
            if len(kinds["map"]) < min_tasks:
                raise InvalidInput("records", f"job {shown(job)} has {len(kinds['map'])} map tasks, need {min_tasks}")
        origin = min(first_start.values())
        names = sorted(stats, key=lambda name: (first_start[name], name))
        self.jobs_ = tuple(names)
        self.map_tasks_ = np.array([len(stats[n]["map"]) for n in names], dtype=np.int64)
        self.reduce_tasks_ = np.array([len(stats[n]["reduce"]) for n in names], dtype=np.int64)
        self.map_time_ = np.array([_mean(stats[n]["map"]) for n in names])
        self.reduce_time_ = np.array([_mean(stats[n]["reduce"]) for n in names])
        self.submit_ = np.array([first_start[n] - origin for n in names])
        return self

    def to_jobs(self, **fields: Any) -> list[Job]:
        """One `Job` per fitted job; extra ``fields`` (pool, intensity, ...) apply to all."""
        require_fitted(self, "jobs_")
        jobs = []
        for i, name in enumerate(self.jobs_):
            try:
                jobs.append(Job(name=name, map_tasks=int(self.map_tasks_[i]), reduce_tasks=int(self.reduce_tasks_[i]),
                                map_time=float(self.map_time_[i]), reduce_time=float(self.reduce_time_[i]),
                                submit=float(self.submit_[i]), **fields))
            except InvalidInput as error:  # e.g. a mean task time beyond the limits: say whose
                raise InvalidInput(f"{key_name(name)}.{error.field}", error.problem) from None
        return jobs

    def __call__(self, n: int, job: str | None = None) -> float:
        require_fitted(self, "jobs_")
        if job is None:
            if len(self.jobs_) != 1:
                raise InvalidInput("job", f"name one of the {len(self.jobs_)} fitted jobs")
            i = 0
        elif job in self.jobs_:
            i = self.jobs_.index(job)
        else:
            raise InvalidInput("job", f"unknown job {shown(job)}")
        slots = as_int(n, "n", minimum=1)
        return wave_runtime(
            int(self.map_tasks_[i]),
            int(self.reduce_tasks_[i]),
            float(self.map_time_[i]),
            float(self.reduce_time_[i]),
            slots,
            slots,
        )


def _as_rows(records: Any) -> Iterable[Mapping]:
    to_dict = getattr(records, "to_dict", None)
    if callable(to_dict):
        return to_dict("records")
    if isinstance(records, (str, bytes, Mapping)) or not isinstance(records, Iterable):
        raise InvalidInput("records", f"must be an iterable of task records, got {type(records).__name__}")
    return records


def _parse_row(row: object) -> tuple[str, str, float, float] | None:
    if not isinstance(row, Mapping):
        raise InvalidInput("", f"must be a mapping, got {type(row).__name__}")
    status = row.get("status")
    if status not in (None, "") and str(status).strip().lower() not in _SUCCESS:
        return None
    for key in ("job", "start", "end"):
        if key not in row:
            raise InvalidInput(key, "is required")
    kind_key = "kind" if "kind" in row else "type"
    if kind_key not in row:
        raise InvalidInput("kind", "is required (map or reduce)")
    job = as_str(str(row["job"]) if isinstance(row["job"], (int, np.integer)) else row["job"], "job")
    kind = as_str(row[kind_key], kind_key).strip().lower()
    if kind not in TASK_KINDS:
        raise InvalidInput(kind_key, f"must be map or reduce, got {shown(row[kind_key])}")
    start = as_float(row["start"], "start")
    end = as_float(row["end"], "end")
    if end < start:
        raise InvalidInput("end", f"must be >= start ({start:g}), got {end:g}")
    return job, kind, start, end


def _mean(values: list[float]) -> float:
    return float(np.mean(values)) if values else 0.0


def wave_power_law(job: Job, map_slots: int, reduce_slots: int, nodes: Any) -> PowerLawProfile:
    """A `PowerLawProfile` fitted to a job's whole-wave runtime on each of ``nodes``.

    Turns a task-level profile (counts and mean times) into the runtime-vs-nodes
    form VM-level planning needs: on n nodes the job has n * map_slots map and
    n * reduce_slots reduce slots to itself.
    """
    as_instance(job, Job, "job")
    map_slots = as_int(map_slots, "map_slots", minimum=1)
    reduce_slots = as_int(reduce_slots, "reduce_slots", minimum=1)
    counts = np.asarray(sorted({as_int(n, "nodes", minimum=1, maximum=MAX_VMS) for n in as_iterable(nodes, "nodes")}),
                        dtype=np.float64)
    if len(counts) < 2:
        raise InvalidInput("nodes", "need at least two node counts to fit a power law")
    runtimes = [
        wave_runtime(
            job.map_tasks, job.reduce_tasks, job.map_time, job.reduce_time, int(n) * map_slots, int(n) * reduce_slots
        )
        for n in counts
    ]
    return PowerLawProfile().fit(counts.reshape(-1, 1), np.asarray(runtimes))
