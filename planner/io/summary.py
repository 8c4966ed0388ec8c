"""Flat summaries of workloads and fits, shared by the command line and notebooks."""

from __future__ import annotations

from typing import Any

import numpy as np

from models import Workload


def workload_summary(workload: Workload) -> dict[str, Any]:
    """Counts and totals of a workload as one flat record."""
    jobs = workload.jobs
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
