"""Trace import speed (issue 2: the FB-2009 day imports in under 2 s)."""

from __future__ import annotations

from pathlib import Path

from benchmarks.registry import Row, register, timed
from planner.io.json_traces import read_rumen
from planner.io.swim import read_swim

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


@register("import")
def import_traces(suite: str) -> list[Row]:
    """Wall time to import public traces into workloads."""
    repeats = 3 if suite == "quick" else 7
    cases = [("FB-2009 day (SWIM)", DATA / "FB-2009_samples_24_times_1hr_0.tsv", read_swim, 2.0)]
    fb2010 = SHARED / "swim" / "FB-2010_samples_24_times_1hr_0.tsv"
    if suite == "full" and fb2010.exists():
        cases.append(("FB-2010 day (SWIM)", fb2010, read_swim, None))
    cases.append(("2 TeraGen jobs (Rumen)", DATA / "2jobs2min-rumen-jh.json", read_rumen, None))
    rows = []
    for instance, path, reader, floor in cases:
        seconds, workload = timed(lambda path=path, reader=reader: reader(path), repeats)
        rows.append(
            Row("import", instance, reader.__name__, float(len(workload)), None, None, seconds, "ok", repeats,
                floor, f"{len(workload)} jobs, {sum(j.map_tasks for j in workload)} map tasks")
        )
    return rows
