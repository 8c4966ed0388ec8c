"""What slot plans know of time: the jobs' arrivals, their deadlines and the batch window.

A plan uses the arrivals it is given: job j cannot start before its ``submit`` (its release
r_j), unless the plan is made with ``ready_now`` (every job ready at 0, said so in the plan).
Its due date is its ``deadline``, else the batch window's end when one is given, else none.

The order of a plan with releases or a deadline objective is solved as a two-stage flow shop
with release dates (`solvers.order_with_releases`, exact branch and bound within the time
limit) on the stage times of the cluster as configured (map_work / total map slots, reduce_work
/ total reduce slots, as Johnson's order is); the split is then FRESH's best for that order,
with the releases (`configure_slots(..., releases=...)`). Without releases and for the makespan
Johnson's rule is optimal for that model, and plans are exactly what they were. A batch with
dependencies (`Job.after`) is ordered as the same flow shop with precedence
(`solvers.ordering.precedence`), releases or not.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from models import Cluster, Workload
from models.checks import as_float
from models.errors import InvalidInput, TaskFloorWarning
from models.limits import MAX_SECONDS
from planner.plans.plan import Plan


class ArrivalsWarning(UserWarning):
    """A plan's model cannot use the jobs' arrivals (VM and robust plans start every job at 0)."""


def releases_of(workload: Workload, ready_now: bool) -> np.ndarray | None:
    """The jobs' releases counted from the first arrival, or None (`solvers.ordering.admission_orders.release_times`)."""
    from solvers.ordering.admission_orders import release_times

    releases = release_times(workload, ready_now)
    return None if releases is None else np.array(releases, dtype=np.float64)


def due_dates(workload: Workload, window: float | None, ready_now: bool = False) -> np.ndarray | None:
    """Each job's deadline, else the window's end, else inf, on the releases' clock (counted from
    the first arrival, `releases_of`); None when no job has either. The window must end after
    every arrival (a job that arrives after it cannot be in the batch)."""
    submits = [job.submit for job in workload]
    if window is not None and not ready_now and submits and max(submits) >= window:
        late = int(np.argmax(submits))
        raise InvalidInput("window", f"ends at {window:,.0f} s, before job {workload[late].name} arrives "
                                     f"({submits[late]:,.0f} s); give a later window or --ready-now")
    origin = 0.0 if ready_now or not submits else min(submits)
    due = np.array([job.deadline if job.deadline is not None else (window if window is not None else np.inf)
                    for job in workload], dtype=np.float64) - origin
    return due if np.any(np.isfinite(due)) else None


def check_window(window: object) -> float | None:
    """The batch window's end (absolute seconds, like submit times), > 0; None for none."""
    return None if window is None else as_float(window, "window", above=0.0, maximum=MAX_SECONDS)


def release_order(workload: Workload, cluster: Cluster, *, releases: np.ndarray | None, due: np.ndarray | None,
                  objective: str, time_limit: float, seed: int) -> tuple[list[int], dict[str, Any]]:
    """The admission order the two-stage release model finds best for ``objective`` (module
    docstring), and the record of that solve (the plan's ``ordering``)."""
    from solvers import order_with_releases
    from solvers.ordering.release_search import earliest_among_equals
    from solvers.ordering.two_stage import stage_times

    jobs = list(workload)
    a, b = stage_times(jobs, cluster.total_map_slots, cluster.total_reduce_slots)
    r = releases if releases is not None else np.zeros(len(jobs))
    if objective != "makespan" and due is None:
        raise InvalidInput("objective", f"{objective} needs deadlines: give jobs a deadline or the batch a window")
    if workload.has_dependencies:
        return _precedence_order(workload, a, b, r, due, objective, time_limit, seed)
    if len(jobs) > EXACT_ORDER_JOBS:
        return _list_order(a, b, r, due, objective)
    solved = order_with_releases(a, b, r, due, objective=objective, time_limit=time_limit, seed=seed)
    order = earliest_among_equals(a, b, r, due, objective, solved.order)
    record = {"problem": "two_stage_release", "method": solved.solver, "objective": objective,
              "status": str(solved.status), "value": float(solved.objective),
              "bound": None if solved.bound is None else float(solved.bound),
              "gap": None if solved.gap is None else float(solved.gap)}
    return [int(i) for i in order], record


def _precedence_order(workload: Workload, a: np.ndarray, b: np.ndarray, r: np.ndarray, due: np.ndarray | None,
                      objective: str, time_limit: float, seed: int) -> tuple[list[int], dict[str, Any]]:
    """A batch with dependencies: the two-stage flow shop with precedence and release dates
    (`solvers.ordering.precedence`; lateness against each job's latest finish, deadlines propagated
    backwards along the dependencies). Its ``value`` is the two-stage model's figure."""
    from solvers.ordering.precedence import PROBLEM, order_with_precedence

    solved = order_with_precedence(a, b, workload.precedence, r, due, objective=objective, time_limit=time_limit,
                                   seed=seed)
    return [int(i) for i in solved.order], {
        "problem": PROBLEM, "method": solved.solver, "objective": objective, "status": str(solved.status),
        "value": float(solved.objective), "bound": None if solved.bound is None else float(solved.bound),
        "gap": None if solved.gap is None else float(solved.gap)}


#: Batches larger than this are ordered by the release-aware Johnson list rule alone: the exact
#: search and its local search grow as n^3 in memory and time (1,000 jobs took 82 s and 7.8 GB).
EXACT_ORDER_JOBS = 200


def _list_order(a: np.ndarray, b: np.ndarray, r: np.ndarray, due: np.ndarray | None, objective: str
                ) -> tuple[list[int], dict[str, Any]]:
    """Beyond the exact search's reach: list rules (O(n log n)) admitting, whenever the map stage
    frees, the released job first by Johnson's rank, or (deadline objectives) by earliest due date;
    the better of the two for ``objective``, with the two-stage model's lower bound
    (`release_lower_bound`) so the record says how far from the best order it may be."""
    from solvers.ordering.release_search import johnson_rank, list_rule
    from solvers.ordering.releases import release_instance, release_lower_bound, release_schedule

    inst = release_instance(a, b, r, due, objective)
    rules = [("johnson-list", list_rule(inst, johnson_rank(inst)))]
    if due is not None:
        rules.append(("edd-list", list_rule(inst, np.asarray(due, dtype=float))))
    scored = []
    for name, order in rules:
        done = release_schedule(a, b, r, order, due)
        value = {"makespan": done.makespan, "max_lateness": done.max_lateness, "late_jobs": done.late_jobs}[objective]
        scored.append((float(value), len(scored), name, order))
    value, _, name, order = min(scored)
    bound = float(release_lower_bound(a, b, r, due, objective=objective))
    gap = None if value == 0 or bound == -np.inf else abs(value - bound) / abs(value)
    tried = " and ".join(rule for rule, _ in rules)
    return [int(i) for i in order], {
        "problem": "two_stage_release", "method": f"{name} (heuristic over {EXACT_ORDER_JOBS} jobs; best of {tried})",
        "objective": objective, "status": "optimal" if value <= bound + 1e-9 * abs(bound) else "feasible", "value": value,
        "bound": bound, "gap": gap}


def no_worse_than_submission(order: list[int], ordering: dict[str, Any], submitted: list[int],
                             curve: Callable[[list[int]], Any],
                             value_of: Callable[[list[int]], float]) -> tuple[list[int], dict[str, Any]]:
    """For the makespan, submission order when the fluid model (the plan's, at its best split:
    ``curve(order)``, a `SlotPlan`, e.g. `SlotCurves.plan`) predicts it shorter than the two-stage
    model's order: the two models disagree when k > 1. The record then describes submission order:
    its two-stage value (``value_of``), the gap to the model's bound (a bound on every order), and
    "optimal" only if it meets that bound."""
    if ordering["objective"] != "makespan":
        return order, ordering
    chosen = curve(order).makespan
    if curve(submitted).makespan < chosen:
        from solvers.base import relative_gap

        value = float(value_of(submitted))
        gap = relative_gap(value, ordering["bound"])
        return submitted, {**ordering, "method": f"submission order (predicted shorter than {ordering['method']})",
                           "value": value, "gap": gap,
                           "status": "optimal" if gap is not None and gap <= 1e-9 else "feasible"}
    return order, ordering


def warn_task_floor(plan: Plan, workload: Workload) -> Plan:
    """Warn (`TaskFloorWarning`) when a slot plan predicts less than a job needs from its arrival
    (counted from the first, unless the plan takes every job as ready now) for one map and then
    one reduce: no schedule can end before that, whatever the slots."""
    from solvers.ordering.admission_orders import release_times

    releases = release_times(workload, plan.ready_now) or [0.0] * len(workload)
    floor, longest, release = max(((r + job.map_time + job.reduce_time, job, r) for job, r in zip(
        workload, releases, strict=True)), key=lambda item: (item[0], item[1].name))
    if plan.predicted_makespan < floor:
        after = f" after it arrives at {release:,.0f} s, so nothing ends before {floor:,.0f} s" if release > 0 else ""
        warnings.warn(
            f"the plan predicts {plan.predicted_makespan:,.0f} s, but job {longest.name} alone needs at least "
            f"{floor - release:,.0f} s ({_tasks(longest.map_time, longest.reduce_time)}){after}: the fluid model "
            "divides work over slots and cannot see one long task; expect validation to take longer",
            TaskFloorWarning, stacklevel=3)
    elif workload.has_dependencies:
        _warn_chain_floor(plan, workload, releases)
    return plan


def _warn_chain_floor(plan: Plan, workload: Workload, releases: list[float]) -> None:
    """With dependencies: warn when the plan predicts less than the longest chain of jobs that wait
    for jobs, each alone on the plan's slots from its arrival (`solvers.bounds.alone`, plus delays):
    the fluid model shares the slots continuously and cannot see one job's waves."""
    from solvers.bounds import alone

    slots = plan.map_slots + plan.reduce_slots
    durations = [alone(job, slots) for job in workload]
    # on the plan's clock: from the first arrival, or all ready now
    floor = max(t.earliest_finish for t in workload.precedence.schedule(durations, releases=releases))
    if plan.predicted_makespan < floor - 1e-9:
        path = " -> ".join(workload.precedence.critical_path(durations, releases))
        warnings.warn(
            f"the plan predicts {plan.predicted_makespan:,.0f} s, but the chain {path}, each job alone on the "
            f"{slots} slots, needs at least {floor:,.0f} s: the fluid model shares slots continuously and cannot "
            "see a job's waves; expect validation to take longer", TaskFloorWarning, stacklevel=3)


def _tasks(map_time: float, reduce_time: float) -> str:
    first = f"a {map_time:,.0f} s map"
    return f"{first}, then a {reduce_time:,.0f} s reduce" if reduce_time > 0 else first


def warn_vm_arrivals(workload: Workload, ready_now: bool, what: str = "VM plans") -> None:
    """VM plans (and robust plans) treat every job as ready at 0: say so when jobs arrive later."""
    first = min((job.submit for job in workload), default=0.0)
    late = [job for job in workload if job.submit > first]
    if late and not ready_now:
        warnings.warn(f"{what} treat every job as ready at 0; {len(late)} job(s) arrive later, "
                      f"e.g. {late[0].name} at {late[0].submit:,.0f} s: the plan treats them as ready now",
                      ArrivalsWarning, stacklevel=3)


def makespan_only(objective: str, what: str) -> None:
    if objective != "makespan":
        raise InvalidInput("objective", f"{what} plans minimize the makespan; {objective} applies to slot plans")


def batch_bounds(night: Workload, slots: int, window: float | None) -> dict[str, Any]:
    """The bounds every schedule of the batch obeys on ``slots`` slots (`solvers.bounds`): the makespan
    (work and critical path, from the first arrival; with dependencies the critical path is the
    longest chain of jobs, each alone on the slots, from its arrival and its predecessors' ends), the mean and weighted response, the largest
    lateness (due dates: deadlines, else ``window``); and the first arrival."""
    from solvers.bounds import lateness_bound, response_bound

    jobs = list(night)
    releases = [job.submit for job in jobs]
    due = [job.deadline if job.deadline is not None else window for job in jobs]
    return {"slots": slots, **makespan_bounds(night, slots),
            "mean_response": response_bound(jobs, slots, releases),
            "weighted_response": response_bound(jobs, slots, releases, [job.weight for job in jobs]),
            "max_lateness": lateness_bound(jobs, slots, due, releases),
            "first_arrival": min(releases, default=0.0)}


def makespan_bounds(night: Workload, slots: int) -> dict[str, float]:
    """The makespan's bounds of `batch_bounds` alone (from the first arrival, on ``slots`` slots):
    ``work``, ``critical_path`` (with dependencies, the longest chain of jobs, each alone on the
    slots) and ``makespan``, the larger."""
    from solvers.bounds import critical_path_bound, work_bound

    jobs = list(night)
    releases = [job.submit for job in jobs]
    work, critical = work_bound(jobs, slots, releases), critical_path_bound(jobs, slots, releases)
    return {"work": work, "critical_path": critical, "makespan": max(work, critical)}


def makespan_bound_name(bounds: dict[str, Any]) -> str:
    """Which bound decides the makespan's (`batch_bounds`), in words: the work or the critical path."""
    if bounds.get("work", 0.0) >= bounds.get("critical_path", 0.0):
        return "the work bound (total work / slots)"
    return "the critical path (the longest job, or chain of jobs that wait for jobs, alone, from its arrival)"


def check_window_reachable(window: float | None, bounds: dict[str, Any]) -> None:
    """A window before the batch's earliest possible end (`batch_bounds`) is refused, naming the bound."""
    if window is None:
        return
    end = bounds["first_arrival"] + bounds["makespan"]
    if window < end:
        raise InvalidInput("window", f"{window:,.0f} s is before {end:,.0f} s, {makespan_bound_name(bounds)} on {bounds['slots']:,} "
                                     "slots: no schedule finishes the batch by then")
