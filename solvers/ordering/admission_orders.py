"""Admission orders of a batch, as positions in the workload: submission order and Johnson's.

Plans admit jobs in one of these orders and validation's FIFO baseline in the first; this module
imports no solver library, so a simulation worker that needs the submission order stays light.
Both honour the jobs' dependencies (`Job.after`): a job that would come before one it waits for
moves just after it (`models.dag.Precedence.respecting`: each next job is the earliest of the
order whose predecessors are all placed); without dependencies they are what they were.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from models.cluster import Cluster
    from models.workload import Workload


def submission_order(workload: Workload) -> list[int]:
    """Indices by submit time, ties in file order (each job after those it waits for)."""
    return respecting(workload, sorted(range(len(workload)), key=lambda i: (workload[i].submit, i)))


def respecting(workload: Workload, order: list[int]) -> list[int]:
    """``order``, with each job moved after the jobs it waits for where the workload has dependencies."""
    return workload.precedence.respecting(order) if workload.has_dependencies else order


def johnson_admission(workload: Workload, cluster: Cluster) -> list[int]:
    """Johnson's order on the stage times map_work / total map slots and reduce_work / total
    reduce slots of the cluster as configured, ties in submission order (each job after those it
    waits for: Johnson's order is then no longer optimal, and plans order such a batch by
    `solvers.ordering.precedence` instead)."""
    from solvers.ordering.two_stage import order_two_stage, stage_times  # pyomo: only when Johnson's order is asked for

    submitted = submission_order(workload)
    a, b = stage_times([workload[i] for i in submitted], cluster.total_map_slots, cluster.total_reduce_slots)
    return respecting(workload, [submitted[i] for i in order_two_stage(a, b, "johnson").order])


def release_times(workload: Workload, ready_now: bool = False) -> list[float] | None:
    """The jobs' releases: their submit times counted from the first arrival (a plan's makespan
    counts from the batch's first arrival, as validation's do), or None when every job is ready at
    the start (``ready_now``, or all submitted together)."""
    if ready_now or not len(workload):
        return None
    first = min(job.submit for job in workload)
    releases = [job.submit - first for job in workload]
    return releases if any(r > 0 for r in releases) else None


def job_names(workload: Workload, order: list[int]) -> list[str]:
    return [workload[i].name for i in order]
