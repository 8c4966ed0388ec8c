"""Admission orders of a batch, as positions in the workload: submission order and Johnson's."""

from __future__ import annotations

from models import Cluster, Workload
from solvers import order_two_stage, stage_times


def submission_order(workload: Workload) -> list[int]:
    """Indices by submit time, ties in file order."""
    return sorted(range(len(workload)), key=lambda i: (workload[i].submit, i))


def johnson_admission(workload: Workload, cluster: Cluster) -> list[int]:
    """Johnson's order on the stage times map_work / total map slots and reduce_work / total
    reduce slots of the cluster as configured, ties in submission order."""
    submitted = submission_order(workload)
    a, b = stage_times([workload[i] for i in submitted], cluster.total_map_slots, cluster.total_reduce_slots)
    return [submitted[i] for i in order_two_stage(a, b, "johnson").order]


def job_names(workload: Workload, order: list[int]) -> list[str]:
    return [workload[i].name for i in order]
