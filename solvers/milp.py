"""Solve a pyomo model with HiGHS. Builds nothing: formulations live with their problems."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pyomo.contrib.solver.common.factory import SolverFactory
from pyomo.contrib.solver.common.results import SolutionStatus, TerminationCondition

from models.checks import as_float, as_int
from solvers.base import InfeasibleProblem, SolverFailed, SolveStatus, Stopwatch, relative_gap

_INFEASIBLE = {
    TerminationCondition.provenInfeasible,
    TerminationCondition.locallyInfeasible,
    TerminationCondition.infeasibleOrUnbounded,
}
_STOPPED = {TerminationCondition.maxTimeLimit, TerminationCondition.iterationLimit, TerminationCondition.interrupted}


@dataclass(frozen=True)
class MilpOutcome:
    """What HiGHS reported. When ``status.has_solution`` the model's variables hold the incumbent."""

    status: SolveStatus
    objective: float | None
    bound: float | None
    gap: float | None
    seconds: float
    termination: str
    solver: str = "highs"


def solve_milp(
    model: Any,
    *,
    time_limit: float = 60.0,
    mip_gap: float = 1e-4,
    threads: int = 1,
    seed: int = 0,
    require_solution: bool = True,
) -> MilpOutcome:
    """Solve ``model`` (a pyomo ConcreteModel with one objective) with HiGHS.

    A time limit is not an error: the incumbent (if any) is loaded into the
    model and returned with status ``time_limit`` and HiGHS's bound. When there
    is no solution (infeasible, or the limit hit before the first incumbent)
    and ``require_solution`` is set, `InfeasibleProblem` is raised; otherwise
    the outcome says so. ``seed`` is HiGHS's random_seed, so reruns are
    identical; one thread keeps them so.
    """
    time_limit = as_float(time_limit, "time_limit", above=0.0)
    mip_gap = as_float(mip_gap, "mip_gap", minimum=0.0)
    threads = as_int(threads, "threads", minimum=1)
    seed = as_int(seed, "seed", minimum=0)
    solver = SolverFactory("highs")
    clock = Stopwatch()
    try:
        results = solver.solve(
            model,
            load_solutions=False,
            raise_exception_on_nonoptimal_result=False,
            time_limit=time_limit,
            rel_gap=mip_gap,
            threads=threads,
            solver_options={"random_seed": seed, "output_flag": False},
        )
    except Exception as error:  # HiGHS or pyomo internals: report, never crash the caller
        raise SolverFailed(f"HiGHS failed: {error}") from error
    seconds = clock.seconds
    termination = results.termination_condition
    has_solution = results.solution_status in (SolutionStatus.feasible, SolutionStatus.optimal)
    objective = results.incumbent_objective if has_solution else None
    bound = results.objective_bound
    if bound is not None and abs(bound) == float("inf"):
        bound = None
    if has_solution:
        results.solution_loader.load_vars()
    if termination == TerminationCondition.convergenceCriteriaSatisfied and has_solution:
        status = SolveStatus.OPTIMAL
    elif termination in _STOPPED:
        status = SolveStatus.TIME_LIMIT if has_solution else SolveStatus.INFEASIBLE
    elif termination in _INFEASIBLE:
        status = SolveStatus.INFEASIBLE
    elif has_solution:
        status = SolveStatus.FEASIBLE
    else:
        status = SolveStatus.ERROR
    outcome = MilpOutcome(status, objective, bound, relative_gap(objective, bound), seconds, termination.name)
    if require_solution and not status.has_solution:
        if status is SolveStatus.ERROR:
            raise SolverFailed(f"HiGHS stopped with {termination.name} and no solution")
        reason = "no solution within the time limit" if termination in _STOPPED else "the model is infeasible"
        raise InfeasibleProblem(f"HiGHS: {reason} ({termination.name})")
    return outcome
