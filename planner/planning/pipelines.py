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
                 objective: str, time_limit: float, seed: int) -> tuple[list[int], dict[str, Any]]:
    """The order solver of the two-stage flow shop with precedence and release dates
    (`solvers.ordering.precedence`: branch and bound, certified, up to its exact size; its list rule
    with a lower bound beyond) on the cluster's map and reduce slots: its order (positions in the
    workload) and its record (`planner.plans.files.ORDERING_KEYS`: problem, method, objective,
    status, value, bound, gap; the value is the model's figure). ``due`` holds the jobs' own due
    dates (inf or None: none), on the releases' clock; the solver propagates them backwards."""
    from solvers.ordering.precedence import PROBLEM, order_with_precedence
    from solvers.ordering.two_stage import stage_times

    a, b = stage_times(list(workload), cluster.total_map_slots, cluster.total_reduce_slots)
    solved = order_with_precedence(a, b, workload.precedence, releases, due, objective=objective,
                                   time_limit=time_limit, seed=seed)
    return [int(i) for i in solved.order], {
        "problem": PROBLEM, "method": solved.solver, "objective": objective, "status": str(solved.status),
        "value": float(solved.objective), "bound": None if solved.bound is None else float(solved.bound),
        "gap": None if solved.gap is None else float(solved.gap)}


def two_stage_values(a: Sequence[float], b: Sequence[float], releases: Sequence[float] | None,
                     due: Sequence[float] | None, order: Sequence[int], workload: Workload) -> dict[str, float]:
    """The two-stage flow shop of the slot plans (stage times ``a``: map work over map slots, ``b``:
    reduce work over reduce slots) run in ``order`` with the dependencies, by the order solver's own
    evaluator (`solvers.ordering.precedence.evaluate`): a job starts its first stage once the one
    before it in the order has, its release has passed and each job it waits for has left the second
    stage (plus the delay); its second stage follows its first and the previous job's second. Returns
    the makespan (from 0), the largest lateness and the jobs late for their latest finish (``due``:
    the jobs' own due dates, propagated backwards; 0 without due dates).

    Hand-worked: a (a=2, b=3) then b (a=1, b=1) waiting for a: a ends stage 1 at 2 and stage 2 at
    5; b starts at 5 (not 2), ends stage 1 at 6 and stage 2 at 7: makespan 7.
    """
    from solvers.ordering.precedence import evaluate, precedence_instance

    schedule = evaluate(precedence_instance(a, b, workload.precedence, releases, due), order)
    return {"makespan": float(schedule.makespan),
            "max_lateness": 0.0 if schedule.max_lateness is None else float(schedule.max_lateness),
            "late_jobs": float(schedule.late_jobs)}


def pipeline_order(workload: Workload, cluster: Cluster, proposed: Sequence[int], proposer: str, *,
                   releases: np.ndarray | None, due: np.ndarray | None, objective: str, time_limit: float,
                   seed: int, repaired_only: bool = False) -> tuple[list[int], dict[str, Any]]:
    """A slot plan's order for a batch with dependencies, and its record (the plan's ``ordering``):
    the best for ``objective`` by `two_stage_values` of the ``proposed`` order repaired
    (`respecting`), the critical-path order (ties by Johnson's) and the order solver's
    (`solver_order`); ties to the first. ``due`` holds the jobs' own due dates on the releases'
    clock (the model propagates them backwards). ``repaired_only``: the proposed order repaired
    only (a "johnson" plan is Johnson's order), "feasible" without a bound. Otherwise the record
    carries the solver's proven bound (a bound on every order), and says "optimal" only when the
    chosen order's value, recomputed here, meets it."""
    from solvers.base import relative_gap
    from solvers.ordering.admission_orders import johnson_admission
    from solvers.ordering.two_stage import stage_times

    jobs = list(workload)
    a, b = stage_times(jobs, cluster.total_map_slots, cluster.total_reduce_slots)
    candidates: list[tuple[str, list[int]]] = [
        (f"{proposer}, kept where the dependencies allow", respecting(workload, proposed))]
    bound = None
    if not repaired_only:
        candidates.append(("critical path (longest remaining path first, ties by Johnson's order)",
                           critical_path_order(workload, cluster.total_slots, johnson_admission(workload, cluster))))
        solved_order, record = solver_order(workload, cluster, releases=releases, due=due, objective=objective,
                                            time_limit=time_limit, seed=seed)
        candidates.append((f"order solver ({record['method']}, {record['status']})", solved_order))
        bound = record["bound"]
    scored = [(two_stage_values(a, b, releases, due, order, workload)[objective], place)
              for place, (_, order) in enumerate(candidates)]
    value, place = min(scored)
    name, order = candidates[place]
    gap = None if bound is None else relative_gap(value, bound)
    proven = gap is not None and gap <= 1e-9
    return order, {"problem": "two_stage_precedence",
                   "method": f"{name}: best of {len(candidates)} orders by the two-stage model with dependencies",
                   "objective": objective, "status": "optimal" if proven else "feasible", "value": float(value),
                   "bound": bound, "gap": gap}
