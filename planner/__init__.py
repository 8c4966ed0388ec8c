"""batchplan's planner: traces, fitting, plans, the simulator and the command line."""

from __future__ import annotations

from planner.fitting import RuntimeFit, fit_runtimes, fit_tasks, runtime_workload
from planner.summary import workload_summary
from planner.traces import (
    SwimConversion,
    TraceWarning,
    read_rumen,
    read_sls,
    read_swim,
    rumen_task_records,
)

__all__ = [
    "RuntimeFit",
    "SwimConversion",
    "TraceWarning",
    "fit_runtimes",
    "fit_tasks",
    "read_rumen",
    "read_sls",
    "read_swim",
    "rumen_task_records",
    "runtime_workload",
    "workload_summary",
]
