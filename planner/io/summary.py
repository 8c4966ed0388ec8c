"""Flat summaries of workloads and fits, shared by the command line and notebooks."""

from __future__ import annotations

from typing import Any

import numpy as np

from models import Workload
from models.checks import as_instance


def workload_summary(workload: Workload) -> dict[str, Any]:
    """Counts and totals of a workload as one flat record."""
    jobs = as_instance(workload, Workload, "workload").jobs
    maps = np.array([j.map_tasks for j in jobs], dtype=np.int64)
    reduces = np.array([j.reduce_tasks for j in jobs], dtype=np.int64)
    submits = np.array([j.submit for j in jobs])
    map_work = sum(j.map_work for j in jobs)
    reduce_work = sum(j.reduce_work for j in jobs)
    return {
        "workload": workload.name or "",
        "jobs": len(jobs),
        "map_only_jobs": int(np.sum(reduces == 0)),
        "map_tasks": int(maps.sum()),
        "reduce_tasks": int(reduces.sum()),
        "mean_map_time": float(map_work / maps.sum()) if maps.sum() else 0.0,
        "mean_reduce_time": float(reduce_work / reduces.sum()) if reduces.sum() else 0.0,
        "map_work": float(map_work),
        "reduce_work": float(reduce_work),
        "first_submit": float(submits.min()) if len(jobs) else 0.0,
        "last_submit": float(submits.max()) if len(jobs) else 0.0,
        "pools": len({j.pool for j in jobs}),
        "with_profile": sum(j.profile is not None for j in jobs),
    }


#: A task longer than this (an hour), or a job whose longest map and reduce together take longer
#: (a day), is flagged when a trace is imported: usually a conversion to check, not a real job.
OUTLIER_TASK_SECONDS = 3_600.0
OUTLIER_JOB_SECONDS = 86_400.0


def outliers(workload: Workload) -> list[dict[str, Any]]:
    """Jobs with a task over an hour or a critical path (a map then a reduce) over a day, one
    record each: job, what, seconds, limit."""
    found = []
    for job in workload:
        path = job.map_time + job.reduce_time
        longest = max(job.map_time, job.reduce_time)
        if path > OUTLIER_JOB_SECONDS:
            found.append({"job": job.name, "what": "a map and a reduce take over a day", "seconds": path,
                          "limit": OUTLIER_JOB_SECONDS})
        elif longest > OUTLIER_TASK_SECONDS:
            kind = "map" if job.map_time >= job.reduce_time else "reduce"
            found.append({"job": job.name, "what": f"a {kind} task takes over an hour", "seconds": longest,
                          "limit": OUTLIER_TASK_SECONDS})
    return found


def phase_records(workload: Workload) -> list[dict[str, Any]]:
    """Task counts and mean task times per job: the columns a phase profile fits."""
    return [
        {
            "job": j.name,
            "maps": j.map_tasks,
            "reduces": j.reduce_tasks,
            "map_time": j.map_time,
            "reduce_time": j.reduce_time,
            "submit": j.submit,
        }
        for j in workload
    ]
