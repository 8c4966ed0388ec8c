"""What plans do with pipelines: batches whose jobs wait for other jobs (`Job.after`, `models.dag`).

Every order a plan proposes lists a job after the jobs it waits for: a proposed order (Johnson's,
shortest work first, earliest due date, a solver's...) is kept wherever the dependencies allow
and repaired where they do not (`respecting`: each next job is the earliest of the proposed order
whose predecessors are all placed). With dependencies plans also propose the critical-path order
(`critical_path_order`: the longest remaining path first, the list heuristic's priority; ties by
Johnson's order), and due dates are each job's latest finish (`latest_due_dates`: a job must end
early enough for the jobs waiting for it to meet theirs).

Durations are the planner's estimate of a job's time: alone on the cluster's slots
(`solvers.bounds.alone`: its map waves, then its reduce waves), a model's figure.

`solver_order` is where an exact or heuristic solver of the two-stage flow shop with precedence
adds its order as one more candidate (see its docstring).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from models import Cluster, Workload

__all__ = ["critical_path_order", "durations", "latest_due_dates", "pipeline_order", "respecting", "solver_order",
           "two_stage_values"]


def respecting(workload: Workload, order: Sequence[int]) -> list[int]:
    """``order`` (positions) as it is without dependencies, else the topological order nearest it
    (`models.dag.Precedence.respecting`)."""
    if not workload.has_dependencies:
        return [int(i) for i in order]
    return workload.precedence.respecting([int(i) for i in order])


def durations(workload: Workload, slots: int) -> list[float]:
    """Each job's time alone on ``slots`` slots (`solvers.bounds.alone`): the planner's duration."""
    from solvers.bounds import alone

    return [alone(job, slots) for job in workload]


def critical_path_order(workload: Workload, slots: int, tie_order: Sequence[int]) -> list[int]:
    """The longest remaining path first (`models.dag.Precedence.tails` over `durations`), ties in
    ``tie_order`` (Johnson's, say). Hand-worked: a (10 s) -> b (30 s), c (25 s) alone: tails a 40,
    b 30, c 25, so the order is a, b, c where Johnson's rule or longest-first could start c."""
    tails = workload.precedence.tails(durations(workload, slots))
    rank = {int(i): place for place, i in enumerate(tie_order)}
    proposed = sorted(range(len(workload)), key=lambda i: (-tails[i], rank[i]))
    return respecting(workload, proposed)  # zero durations can tie a job with its successor


def latest_due_dates(workload: Workload, due: Sequence[float | None], slots: int) -> list[float | None]:
    """``due`` (a date or None per job) propagated backwards along the dependencies: a job is due
    no later than each successor's due date less the successor's duration and the delay
    (`models.dag.Precedence.latest_finishes`); None stays None where no successor is due."""
    if not workload.has_dependencies:
        return list(due)
    latest = workload.precedence.latest_finishes(durations(workload, slots), deadlines=[
        None if d is None or not np.isfinite(d) else float(d) for d in due])
    return [None if not np.isfinite(value) else float(value) for value in latest]


def solver_order(workload: Workload, cluster: Cluster, *, releases: np.ndarray | None, due: np.ndarray | None,
                 objective: str, time_limit: float, seed: int) -> tuple[list[int], dict[str, Any]] | None:
    """The hook for an order solver of the two-stage flow shop with precedence and release dates
    (exact within its reach, else its list rule with a lower bound): return its order (positions
    in the workload) and its record (`planner.plans.files.ORDERING_KEYS`: problem, method,
    objective, status, value, bound, gap), and `make_plan` and the target plans take it as one
    more candidate, judged as the others are. None: no such solver is installed yet, and the
    plans use the repaired orders and the critical-path order alone."""
    del workload, cluster, releases, due, objective, time_limit, seed
    return None


def two_stage_values(a: Sequence[float], b: Sequence[float], releases: Sequence[float] | None,
                     due: Sequence[float] | None, order: Sequence[int], workload: Workload) -> dict[str, float]:
    """The two-stage flow shop of the slot plans (stage times ``a``: map work over map slots, ``b``:
    reduce work over reduce slots) run in ``order`` with the dependencies: a job starts its first
    stage once the one before it in the order has, its release has passed and each job it waits
    for has left the second stage (plus the delay); its second stage follows its first and the
    previous job's second. Returns the makespan (from 0), the largest lateness and the late jobs
    (lateness and late jobs 0 without due dates).

    Hand-worked: a (a=2, b=3) then b (a=1, b=1) waiting for a: a ends stage 1 at 2 and stage 2 at
    5; b starts at 5 (not 2), ends stage 1 at 6 and stage 2 at 7: makespan 7.
    """
    graph = workload.precedence
    finish = [0.0] * len(a)
    first = second = 0.0
    lateness = -np.inf
    late = 0
    for index in order:
        index = int(index)
        start = max(first, 0.0 if releases is None else float(releases[index]),
                    *(finish[before] + delay for before, delay in graph.predecessors[index]))
        first = start + float(a[index])
        second = max(first, second) + float(b[index])
        finish[index] = second
        if due is not None and np.isfinite(due[index]):
            lateness = max(lateness, second - float(due[index]))
            late += second > float(due[index]) + 1e-9
    return {"makespan": max(finish, default=0.0), "max_lateness": 0.0 if lateness == -np.inf else float(lateness),
            "late_jobs": float(late)}


def pipeline_order(workload: Workload, cluster: Cluster, proposed: Sequence[int], proposer: str, *,
                   releases: np.ndarray | None, due: np.ndarray | None, objective: str, time_limit: float,
                   seed: int, repaired_only: bool = False) -> tuple[list[int], dict[str, Any]]:
    """A slot plan's order for a batch with dependencies, and its record (the plan's ``ordering``):
    the best for ``objective`` by `two_stage_values` of the ``proposed`` order repaired
    (`respecting`), the critical-path order (ties by Johnson's) and the order solver's
    (`solver_order`, when one is installed); ties to the first. ``due`` is on the releases' clock
    and is propagated backwards here (`latest_due_dates`). ``repaired_only``: the proposed order repaired
    only (a "johnson" plan is Johnson's order). Only a solver's order can be proven best: the
    others are "feasible" and carry no bound."""
    from solvers.ordering.admission_orders import johnson_admission
    from solvers.ordering.two_stage import stage_times

    jobs = list(workload)
    a, b = stage_times(jobs, cluster.total_map_slots, cluster.total_reduce_slots)
    if due is not None:
        due = np.array([np.inf if d is None else d for d in latest_due_dates(workload, list(due), cluster.total_slots)])
    candidates: list[tuple[str, list[int], dict[str, Any] | None]] = [
        (f"{proposer}, kept where the dependencies allow", respecting(workload, proposed), None)]
    if not repaired_only:
        candidates.append(("critical path (longest remaining path first, ties by Johnson's order)",
         critical_path_order(workload, cluster.total_slots, johnson_admission(workload, cluster)), None))
    solved = None if repaired_only else solver_order(workload, cluster, releases=releases, due=due, objective=objective,
                                             time_limit=time_limit, seed=seed)
    if solved is not None:
        candidates.append((str(solved[1]["method"]), respecting(workload, solved[0]), solved[1]))
    scored = [(two_stage_values(a, b, releases, due, order, workload)[objective], place)
              for place, (_, order, _) in enumerate(candidates)]
    value, place = min(scored)
    name, order, record = candidates[place]
    if record is not None and list(order) == [int(i) for i in solved[0]]:  # type: ignore[index]
        return order, {**record, "problem": "two_stage_precedence"}
    return order, {"problem": "two_stage_precedence",
                   "method": f"{name} (best of {len(candidates)} orders by the two-stage model with dependencies)",
                   "objective": objective, "status": "feasible", "value": float(value), "bound": None, "gap": None}
