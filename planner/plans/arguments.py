"""The plan, workload, cluster and options arguments of the public API, checked where they enter.

A function that takes a `Plan` with its workload and cluster (exporting, applying, validating it)
calls `check_planned` first, so that a dict, None or a file name in their place is one
`InvalidType` naming the parameter (``plan: must be a Plan, got '/tmp/p.json' (str)``), never an
AttributeError from deep inside. The classes are imported when checked: `planner.io` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from models import Cluster, Workload
from models.checks import as_instance

if TYPE_CHECKING:
    from planner.simulator.options import SimOptions


def check_planned(plan: object, workload: object, cluster: object, *, workload_optional: bool = False) -> None:
    """``plan`` a `Plan`, ``workload`` a `Workload` (or None when ``workload_optional``), ``cluster``
    a `Cluster`; `InvalidType` naming the first that is not."""
    from planner.plans.plan import Plan

    as_instance(plan, Plan, "plan")
    if workload is not None or not workload_optional:
        as_instance(workload, Workload, "workload")
    as_instance(cluster, Cluster, "cluster")


def as_options(options: object, field: str = "options") -> SimOptions | None:
    """``options`` itself when it is None or a `SimOptions`; else `InvalidType` naming ``field``."""
    from planner.simulator.options import SimOptions

    return None if options is None else as_instance(options, SimOptions, field)
