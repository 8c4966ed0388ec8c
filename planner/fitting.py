"""Fitting profiles from measurement files (what `planner fit` runs).

Two CSV forms, told apart by their header:

- runtimes: ``job,nodes,runtime`` rows (and optionally ``intensity``), one per
  measured run; a `PowerLawProfile` is fitted per job.
- task records: ``job,kind,start,end`` rows (``type`` may stand for ``kind``;
  an optional ``status`` column drops unsuccessful attempts); one
  `PhaseProfile` covers all jobs.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from models import INTENSITIES, InvalidInput, Job, PhaseProfile, PowerLawProfile, Workload
from models.fileio import read_text

RUNTIME_COLUMNS = ("job", "nodes", "runtime")
TASK_COLUMNS = ("job", "kind", "start", "end")


@dataclass(frozen=True)
class RuntimeFit:
    """One job's fitted power law, as a flat record."""

    job: str
    a: float
    b: float
    r2: float
    nodes_min: float
    nodes_max: float
    observations: int
    intensity: str
    profile: PowerLawProfile

    def record(self) -> dict[str, Any]:
        return {
            k: getattr(self, k) for k in ("job", "a", "b", "r2", "nodes_min", "nodes_max", "observations", "intensity")
        }


def read_csv_rows(path: str | Path) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """Header and (line number, row) pairs of a CSV file."""
    text = read_text(path)
    reader = csv.DictReader(io.StringIO(text))
    header = [name.strip() for name in (reader.fieldnames or [])]
    if not header:
        raise InvalidInput("", "empty CSV file; expected a header row", source=str(path))
    reader.fieldnames = header
    rows = []
    for row in reader:
        if None in row:
            raise InvalidInput(f"line {reader.line_num}", "more cells than header columns", source=str(path))
        rows.append((reader.line_num, row))
    return header, rows


def csv_kind(header: list[str]) -> str:
    """ "runtimes" or "tasks", from a CSV header."""
    names = set(header)
    if set(RUNTIME_COLUMNS) <= names:
        return "runtimes"
    if {"job", "start", "end"} <= names and ({"kind"} & names or {"type"} & names):
        return "tasks"
    raise InvalidInput(
        "header",
        f"expected columns {','.join(RUNTIME_COLUMNS)} (runtimes) or {','.join(TASK_COLUMNS)} (task records); "
        f"got {','.join(header)}",
    )


def _cell_number(row: dict[str, str], column: str, line: int, source: str) -> float:
    text = (row.get(column) or "").strip()
    try:
        value = float(text)
    except ValueError:
        raise InvalidInput(f"line {line}.{column}", f"must be a number, got {text!r}", source=source) from None
    if not np.isfinite(value):
        raise InvalidInput(f"line {line}.{column}", f"must be finite, got {text!r}", source=source)
    return value


def _rows_of_kind(path: str | Path, kind: str, columns: tuple[str, ...]) -> list[tuple[int, dict[str, str]]]:
    header, rows = read_csv_rows(path)
    try:
        if csv_kind(header) != kind:
            raise InvalidInput("header", f"expected columns {','.join(columns)}; got {','.join(header)}")
    except InvalidInput as error:
        raise error.in_file(str(path)) from None
    return rows


def fit_runtimes(path: str | Path) -> list[RuntimeFit]:
    """A power law per job from a runtimes CSV, in order of first appearance."""
    source = str(path)
    rows = _rows_of_kind(path, "runtimes", RUNTIME_COLUMNS)
    samples: dict[str, list[tuple[float, float]]] = {}
    intensity: dict[str, str] = {}
    for line, row in rows:
        job = (row.get("job") or "").strip()
        if not job:
            raise InvalidInput(f"line {line}.job", "must not be empty", source=source)
        nodes = _cell_number(row, "nodes", line, source)
        runtime = _cell_number(row, "runtime", line, source)
        if nodes <= 0:
            raise InvalidInput(f"line {line}.nodes", f"must be > 0, got {nodes:g}", source=source)
        if runtime <= 0:
            raise InvalidInput(f"line {line}.runtime", f"must be > 0, got {runtime:g}", source=source)
        samples.setdefault(job, []).append((nodes, runtime))
        label = (row.get("intensity") or "").strip()
        if label:
            if label not in INTENSITIES:
                raise InvalidInput(
                    f"line {line}.intensity", f"must be one of {', '.join(INTENSITIES)}; got {label!r}", source=source
                )
            if intensity.setdefault(job, label) != label:
                raise InvalidInput(
                    f"line {line}.intensity", f"job {job!r} was {intensity[job]!r} on an earlier line", source=source
                )
    if not samples:
        raise InvalidInput("", "no rows to fit", source=source)
    fits = []
    for job, points in samples.items():
        nodes = np.array([p[0] for p in points])
        if len(np.unique(nodes)) < 2:
            raise InvalidInput("nodes", f"job {job!r} needs runs on at least two node counts", source=source)
        profile = PowerLawProfile().fit(nodes.reshape(-1, 1), np.array([p[1] for p in points]))
        fits.append(
            RuntimeFit(
                job,
                profile.a_,
                profile.b_,
                profile.r2_,
                *profile.n_range_,
                len(points),
                intensity.get(job, "balanced"),
                profile,
            )
        )
    return fits


def runtime_workload(fits: list[RuntimeFit], base: Workload | None = None) -> Workload:
    """Jobs carrying the fitted profiles.

    With ``base``, its jobs get the profiles of the same name (and keep
    everything else); without, each fit becomes a profile-only job for
    VM-level planning.
    """
    if base is None:
        return Workload([Job(f.job, profile=f.profile, intensity=f.intensity) for f in fits])
    by_name = {f.job: f for f in fits}
    missing = sorted(set(by_name) - set(base.names))
    if missing:
        raise InvalidInput("job", f"no job named {missing[0]!r} in the workload")
    jobs = [job.with_changes(profile=by_name[job.name].profile) if job.name in by_name else job for job in base]
    return Workload(jobs, name=base.name)


def fit_tasks(path: str | Path) -> PhaseProfile:
    """A `PhaseProfile` from a task-records CSV."""
    source = str(path)
    rows = _rows_of_kind(path, "tasks", TASK_COLUMNS)
    records = []
    for line, row in rows:
        record: dict[str, Any] = {k: (v or "").strip() for k, v in row.items()}
        record["start"] = _cell_number(row, "start", line, source)
        record["end"] = _cell_number(row, "end", line, source)
        records.append((line, record))
    try:
        return PhaseProfile().fit([r for _, r in records])
    except InvalidInput as error:
        field = error.field
        if field.startswith("records["):
            index = int(field[len("records[") : field.index("]")])
            field = f"line {records[index][0]}{field[field.index(']') + 1 :]}"
        raise InvalidInput(field, error.problem, source=source) from None
