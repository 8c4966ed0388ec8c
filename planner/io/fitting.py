"""Fitting profiles from measurement files (what `planner fit` runs).

Two CSV forms, told apart by their header:

- runtimes: ``job,nodes,runtime`` rows (and optionally ``intensity``), one per
  measured run; a `PowerLawProfile` is fitted per job.
- task records: ``job,kind,start,end`` rows (``type`` may stand for ``kind``;
  an optional ``status`` column drops unsuccessful attempts); one
  `PhaseProfile` covers all jobs.

Every error names the file (``runtimes.csv: line 3.runtime: must be > 0, got -1``). A fit
whose parameters leave what a profile file may hold (`models.limits`: MIN_TASK_SECONDS <= a <=
MAX_SECONDS, |b| <= MAX_EXPONENT, both finite) is refused rather than written.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from models import INTENSITIES, InvalidInput, InvalidType, Job, PhaseProfile, PowerLawProfile, Workload
from models.checks import as_float, as_instance, as_int, as_path, as_str, key_name, shown
from models.fileio import read_text
from models.limits import MAX_CSV_FIELD, MAX_EXPONENT, MAX_NUMBER_CHARS, MAX_SECONDS, MAX_VMS, MIN_TASK_SECONDS
from planner.limits import MAX_TRACE_MS

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

    def __post_init__(self) -> None:
        """Each field of its type, the power law's numbers finite (``r2`` may be NaN: a profile
        read from a file has none)."""
        as_str(self.job, "job")
        for name in ("a", "b", "nodes_min", "nodes_max"):
            as_float(getattr(self, name), name)
        if not (isinstance(self.r2, float) and math.isnan(self.r2)):
            as_float(self.r2, "r2")
        as_int(self.observations, "observations", minimum=1)
        as_str(self.intensity, "intensity", choices=INTENSITIES)
        as_instance(self.profile, PowerLawProfile, "profile")

    def record(self) -> dict[str, Any]:
        return {
            k: getattr(self, k) for k in ("job", "a", "b", "r2", "nodes_min", "nodes_max", "observations", "intensity")
        }


def read_csv_rows(path: str | Path) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """Header and (line number, row) pairs of a CSV file."""
    text = read_text(path)
    reader = csv.DictReader(io.StringIO(text))
    rows = []
    try:
        header = [name.strip() for name in (reader.fieldnames or [])]
        if not header:
            raise InvalidInput("", "empty CSV file; expected a header row", source=str(path))
        reader.fieldnames = header
        for row in reader:
            if None in row:
                raise InvalidInput(f"line {reader.line_num}", "more cells than header columns", source=str(path))
            rows.append((reader.line_num, row))
    except csv.Error as error:  # a cell over the csv module's limit, a NUL byte, a stray quote
        problem = (f"a cell is longer than {MAX_CSV_FIELD // 1024} KiB" if "field larger" in str(error)
                   else f"malformed CSV: {shown(str(error))[1:-1]}")
        raise InvalidInput(f"line {reader.line_num + 1}", problem, source=str(path)) from None
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
        f"got {key_name(','.join(header))}",
    )


def _cell_number(row: dict[str, str], column: str, line: int, source: str, limit: float) -> float:
    """The number in a cell, finite and at most ``limit`` in magnitude."""
    text = (row.get(column) or "").strip()
    where = f"line {line}.{column}"
    if len(text) > MAX_NUMBER_CHARS:
        raise InvalidInput(where, f"a number of {len(text):,} characters; numbers may have at most "
                                  f"{MAX_NUMBER_CHARS}", source=source)
    try:
        value = float(text)
    except ValueError:
        raise InvalidInput(where, f"must be a number, got {shown(text)}", source=source) from None
    if not np.isfinite(value):
        raise InvalidInput(where, f"must be finite, got {shown(text)}", source=source)
    if abs(value) > limit:
        raise InvalidInput(where, f"must be at most {limit:g} in magnitude, got {shown(text)}", source=source)
    return value


def _rows_of_kind(path: str | Path, kind: str, columns: tuple[str, ...]) -> list[tuple[int, dict[str, str]]]:
    header, rows = read_csv_rows(path)
    try:
        if csv_kind(header) != kind:
            raise InvalidInput("header", f"expected columns {','.join(columns)}; got {key_name(','.join(header))}")
    except InvalidInput as error:
        raise error.in_file(str(path)) from None
    return rows


def fit_runtimes(path: str | Path) -> list[RuntimeFit]:
    """A power law per job from a runtimes CSV, in order of first appearance."""
    path = as_path(path, "path")
    source = str(path)
    rows = _rows_of_kind(path, "runtimes", RUNTIME_COLUMNS)
    samples: dict[str, list[tuple[float, float]]] = {}
    intensity: dict[str, str] = {}
    for line, row in rows:
        job = (row.get("job") or "").strip()
        if not job:
            raise InvalidInput(f"line {line}.job", "must not be empty", source=source)
        nodes = _cell_number(row, "nodes", line, source, MAX_VMS)
        runtime = _cell_number(row, "runtime", line, source, MAX_SECONDS)
        if nodes <= 0:
            raise InvalidInput(f"line {line}.nodes", f"must be > 0, got {nodes:g}", source=source)
        if runtime <= 0:
            raise InvalidInput(f"line {line}.runtime", f"must be > 0, got {runtime:g}", source=source)
        samples.setdefault(job, []).append((nodes, runtime))
        label = (row.get("intensity") or "").strip()
        if label:
            if label not in INTENSITIES:
                raise InvalidInput(f"line {line}.intensity",
                                   f"must be one of {', '.join(INTENSITIES)}; got {shown(label)}", source=source)
            if intensity.setdefault(job, label) != label:
                raise InvalidInput(f"line {line}.intensity",
                                   f"job {shown(job)} was {intensity[job]!r} on an earlier line", source=source)
    if not samples:
        raise InvalidInput("", "no rows to fit", source=source)
    fits = []
    for job, points in samples.items():
        nodes = np.array([p[0] for p in points])
        if len(np.unique(nodes)) < 2:
            raise InvalidInput("nodes", f"job {shown(job)} needs runs on at least two node counts", source=source)
        profile = PowerLawProfile().fit(nodes.reshape(-1, 1), np.array([p[1] for p in points]))
        _check_fit(profile, job, source)
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


def _check_fit(profile: PowerLawProfile, job: str, source: str) -> None:
    """Refuse a fit that a profile file could not hold (or that is not finite at all)."""
    a, b = profile.a_, profile.b_
    if not (np.isfinite(a) and np.isfinite(b) and MIN_TASK_SECONDS <= a <= MAX_SECONDS and abs(b) <= MAX_EXPONENT):
        raise InvalidInput(
            "runtime", f"job {shown(job)}: the fitted power law F(n) = {a:.4g} * n^{b:.4g} is beyond what a profile "
                       f"may be ({MIN_TASK_SECONDS:g} <= a <= {MAX_SECONDS:g} s, |b| <= {MAX_EXPONENT:g}); its runtimes do not follow a "
                       "power law over these node counts", source=source)


def runtime_workload(fits: list[RuntimeFit], base: Workload | None = None) -> Workload:
    """Jobs carrying the fitted profiles.

    With ``base``, its jobs get the profiles of the same name (and keep
    everything else); without, each fit becomes a profile-only job for
    VM-level planning.
    """
    if isinstance(fits, str | bytes | Mapping) or not isinstance(fits, Iterable):
        raise InvalidType("fits", f"must be a list of RuntimeFit (fit_runtimes(path)), got {shown(fits)} "
                                  f"({type(fits).__name__})")
    fits = [as_instance(fit, RuntimeFit, f"fits[{i}]") for i, fit in enumerate(fits)]
    if not fits:
        raise InvalidInput("fits", "must hold at least one RuntimeFit, got none")
    if base is not None:
        as_instance(base, Workload, "base")
    if base is None:
        return Workload([Job(f.job, profile=f.profile, intensity=f.intensity) for f in fits])
    by_name = {f.job: f for f in fits}
    missing = sorted(set(by_name) - set(base.names))
    if missing:
        raise InvalidInput("job", f"no job named {shown(missing[0])} in the workload")
    jobs = [job.with_changes(profile=by_name[job.name].profile) if job.name in by_name else job for job in base]
    return Workload(jobs, name=base.name)


def fit_tasks(path: str | Path) -> PhaseProfile:
    """A `PhaseProfile` from a task-records CSV."""
    path = as_path(path, "path")
    source = str(path)
    rows = _rows_of_kind(path, "tasks", TASK_COLUMNS)
    records = []
    for line, row in rows:
        record: dict[str, Any] = {k: (v or "").strip() for k, v in row.items()}
        record["start"] = _cell_number(row, "start", line, source, MAX_TRACE_MS / 1000)
        record["end"] = _cell_number(row, "end", line, source, MAX_TRACE_MS / 1000)
        records.append((line, record))
    try:
        return PhaseProfile().fit([r for _, r in records])
    except InvalidInput as error:
        field = error.field
        if field.startswith("records["):
            index = int(field[len("records[") : field.index("]")])
            field = f"line {records[index][0]}{field[field.index(']') + 1 :]}"
        raise InvalidInput(field, error.problem, source=source) from None


def task_workload(profile: PhaseProfile, source: str | Path) -> Workload:
    """The jobs of a fitted `PhaseProfile` as a workload named after the file; a job the models
    refuse (a mean task time beyond the limits, too many tasks) is named with the file."""
    as_instance(profile, PhaseProfile, "profile")
    if not hasattr(profile, "jobs_"):
        raise InvalidInput("profile", "must be fitted first (fit_tasks(path) or PhaseProfile().fit(records))")
    source = as_path(source, "source")
    try:
        return Workload(profile.to_jobs(), name=Path(source).stem)
    except InvalidInput as error:
        raise error.in_file(str(source)) from None
