"""batchplan's planner: traces, fitting, plans, the simulator and the command line."""

from __future__ import annotations

# First, before the heavy imports below: Ctrl-C while the command starts exits quietly (see there).
import planner.startup  # noqa: F401  # isort: skip
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

#: Names served on first use (`__getattr__`), so that importing the package (and starting the
#: command) does not import the solvers and the simulator.
_LAZY = {"make_plan": "planner.plan", "Plan": "planner.plan"}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'planner' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


__all__ = [
    "Plan",
    "RuntimeFit",
    "SwimConversion",
    "TraceWarning",
    "fit_runtimes",
    "fit_tasks",
    "make_plan",
    "read_rumen",
    "read_sls",
    "read_swim",
    "rumen_task_records",
    "runtime_workload",
    "workload_summary",
]
