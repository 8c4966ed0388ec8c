"""Trace import speed (issue 2: the FB-2009 day imports in under 2 s); an Oozie workflow of 1,000
actions (issue 40: no floor, a figure to watch)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from benchmarks.registry import Row, register, timed
from models import Job
from planner.io.json_traces import read_rumen
from planner.io.oozie import read_oozie
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
    rows.append(_oozie_row(repeats))
    return rows


def oozie_stages(stages: int, width: int) -> str:
    """A generated workflow of ``stages`` x ``width`` map-reduce actions: each stage an fs clean-up
    step, then a fork of ``width`` actions and their join; each action of a stage waits for every
    action of the stage before (through the join and the fs step, which passes through)."""
    parts = ['<workflow-app xmlns="uri:oozie:workflow:0.5" name="generated"><start to="clean0"/>']
    for stage in range(stages):
        after = f"clean{stage + 1}" if stage + 1 < stages else "end"
        parts.append(f'<action name="clean{stage}"><fs><delete path="/out/{stage}"/></fs><ok to="fork{stage}"/>'
                     '<error to="fail"/></action>')
        parts.append(f'<fork name="fork{stage}">' + "".join(f'<path start="s{stage}-a{i}"/>' for i in range(width))
                     + "</fork>")
        parts.extend(f'<action name="s{stage}-a{i}"><map-reduce><configuration><property><name>'
                     f'mapred.job.queue.name</name><value>${{queue}}</value></property></configuration>'
                     f'</map-reduce><ok to="join{stage}"/><error to="fail"/></action>' for i in range(width))
        parts.append(f'<join name="join{stage}" to="{after}"/>')
    parts.append('<kill name="fail"><message>failed</message></kill><end name="end"/></workflow-app>')
    return "\n".join(parts)


def _oozie_row(repeats: int) -> Row:
    stages, width = 100, 10
    with tempfile.TemporaryDirectory(prefix="bench-oozie-") as folder:
        path = Path(folder) / "workflow.xml"
        path.write_text(oozie_stages(stages, width))
        seconds, workload = timed(lambda: read_oozie(path, properties={"queue": "etl"},
                                                     default_job=Job("default", 8, 2, 30.0, 60.0)), repeats)
    edges = sum(len(job.after) for job in workload)
    return Row("import", f"Oozie workflow, {stages} stages x {width} actions (generated)", "read_oozie",
               float(len(workload)), None, None, seconds, "ok", repeats, None,
               f"{len(workload)} jobs, {edges:,} dependencies")
