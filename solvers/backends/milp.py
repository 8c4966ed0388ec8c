"""Solve a pyomo model with HiGHS. Builds nothing: formulations live with their problems."""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import threading
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from pyomo.contrib.solver.common.factory import SolverFactory
from pyomo.contrib.solver.common.results import SolutionStatus, TerminationCondition
from scipy import sparse

from models.checks import as_bool, as_float, as_instance, as_int, as_optional_float, as_str
from solvers.base import (
    InfeasibleProblem,
    SolverFailed,
    SolveStatus,
    Stopwatch,
    as_status,
    check_time_limit,
    relative_gap,
)

if TYPE_CHECKING:
    from pyomo.environ import ConcreteModel

_INFEASIBLE = {
    TerminationCondition.provenInfeasible,
    TerminationCondition.locallyInfeasible,
    TerminationCondition.infeasibleOrUnbounded,
}
_STOPPED = {TerminationCondition.maxTimeLimit, TerminationCondition.iterationLimit, TerminationCondition.interrupted}
_BANNER = threading.Lock()
_banner_printed = [False]  # a cell, not a global rebinding: set once per process


def silence_highs() -> None:
    """Let HiGHS print its banner, once per process, into /dev/null.

    highspy 1.16.0 prints "Running HiGHS ..." on the process's standard output
    (file descriptor 1, from C++) when the first `Highs` object is made, before
    any option can turn output off; later ones print nothing. stdout is the
    command's (``--json`` must parse), so the first one is made here with
    descriptor 1 pointed at /dev/null. Every HiGHS user in this package calls
    this before making a solver.
    """
    with _BANNER:
        if _banner_printed[0]:
            return
        import highspy

        sys.stdout.flush()
        saved = os.dup(1)
        try:
            with open(os.devnull, "w") as sink:
                os.dup2(sink.fileno(), 1)
                try:
                    highspy.Highs()
                finally:
                    _flush_c_stdout()
                    os.dup2(saved, 1)
        finally:
            os.close(saved)
        _banner_printed[0] = True


def quiet_highs(**options: object) -> Any:
    """A `highspy.Highs` that prints nothing (`silence_highs`), with ``output_flag`` off and ``options`` set."""
    import highspy

    silence_highs()
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    for name, value in options.items():
        highs.setOptionValue(name, value)
    return highs


def run_for(highs: Any, seconds: float) -> None:
    """Run ``highs`` for at most ``seconds`` more. HiGHS compares its limit with the object's run
    time over every run() so far, not this one's: an instance solved again and again (column
    generation) needs its limit moved on each time."""
    highs.setOptionValue("time_limit", highs.getRunTime() + seconds)
    highs.run()


def _flush_c_stdout() -> None:
    # C's stdio buffer may still hold the banner (stdout is a pipe): flush it into /dev/null.
    # No C library to ask (not on Linux or macOS): nothing is buffered there either.
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).fflush(None)


#: HiGHS's random_seed is a C int.
MAX_HIGHS_SEED = 2**31 - 1
#: Threads a solve may ask HiGHS for.
MAX_HIGHS_THREADS = 256


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

    def __post_init__(self) -> None:
        put = object.__setattr__
        put(self, "status", as_status(self.status))
        put(self, "objective", as_optional_float(self.objective, "objective"))
        put(self, "bound", as_optional_float(self.bound, "bound"))
        put(self, "gap", as_optional_float(self.gap, "gap", minimum=0.0))
        put(self, "seconds", as_float(self.seconds, "seconds", minimum=0.0))
        put(self, "termination", as_str(self.termination, "termination"))
        put(self, "solver", as_str(self.solver, "solver"))

    def in_units(self, unit: float) -> MilpOutcome:
        """This outcome of a model whose times were divided by ``unit``, in the original units
        (models are built in units of their largest time: HiGHS's tolerances are absolute)."""
        objective = None if self.objective is None else self.objective * unit
        bound = None if self.bound is None else self.bound * unit
        return replace(self, objective=objective, bound=bound)


def solve_milp(
    model: ConcreteModel,
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
    identical; one thread keeps them so. (No objective cutoff is offered:
    HiGHS 1.15.1 proved a wrong optimum with one; see solvers/packing/methods.py.)
    """
    import pyomo.environ as pyo

    as_instance(model, pyo.ConcreteModel, "model")
    time_limit = check_time_limit(time_limit)
    mip_gap = as_float(mip_gap, "mip_gap", minimum=0.0, maximum=1.0)
    threads = as_int(threads, "threads", minimum=1, maximum=MAX_HIGHS_THREADS)
    seed = as_int(seed, "seed", minimum=0, maximum=MAX_HIGHS_SEED)
    require_solution = as_bool(require_solution, "require_solution")
    silence_highs()
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
            # mip_abs_gap 0: HiGHS's default absolute gap (1e-6) would call anything optimal at small
            # time scales; the relative gap is the one asked for.
            solver_options={"random_seed": seed, "output_flag": False, "mip_abs_gap": 0.0},
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


@dataclass(frozen=True)
class ArrayOutcome:
    """A HiGHS solve of a model given as arrays: status, values and (for LPs) row duals."""

    status: SolveStatus
    objective: float | None
    bound: float | None
    gap: float | None
    seconds: float
    termination: str
    values: np.ndarray | None
    duals: np.ndarray | None
    solver: str = "highs"


def solve_arrays(
    cost: np.ndarray,
    columns: sparse.csc_matrix,
    row_lower: np.ndarray,
    row_upper: np.ndarray,
    col_lower: np.ndarray,
    col_upper: np.ndarray,
    *,
    integer: bool,
    time_limit: float = 60.0,
    mip_gap: float = 1e-4,
    threads: int = 1,
    seed: int = 0,
    start: np.ndarray | None = None,
) -> ArrayOutcome:
    """Minimize cost @ x subject to row_lower <= A x <= row_upper and column bounds, by highspy.

    For models too large to build quickly in pyomo (hundreds of thousands of
    columns). ``integer`` makes every column integer. Never raises for a time
    limit or infeasibility: the status says so. ``start`` is a starting
    solution handed to HiGHS (a MIP start; ignored by HiGHS when infeasible).
    """
    import highspy

    time_limit = as_float(time_limit, "time_limit", above=0.0)
    columns = sparse.csc_matrix(columns)
    silence_highs()
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = columns.shape[1], columns.shape[0]
    # Costs are handed over in units of the largest one: HiGHS's tolerances are absolute, and at
    # a tiny time scale (profiles of milliseconds) every solution would look optimal to it.
    cost = np.asarray(cost, dtype=np.float64)
    unit = float(np.max(np.abs(cost))) if cost.size and np.all(np.isfinite(cost)) else 1.0
    unit = unit if unit > 0 else 1.0
    lp.col_cost_ = cost / unit
    lp.col_lower_, lp.col_upper_ = np.asarray(col_lower, float), np.asarray(col_upper, float)
    lp.row_lower_, lp.row_upper_ = np.asarray(row_lower, float), np.asarray(row_upper, float)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = columns.indptr.astype(np.int32)
    lp.a_matrix_.index_ = columns.indices.astype(np.int32)
    lp.a_matrix_.value_ = columns.data.astype(np.float64)
    if integer:
        lp.integrality_ = [highspy.HighsVarType.kInteger] * lp.num_col_
    highs = highspy.Highs()
    for name, value in (("output_flag", False), ("threads", as_int(threads, "threads", minimum=1)),
                        ("time_limit", time_limit), ("mip_rel_gap", as_float(mip_gap, "mip_gap", minimum=0.0)),
                        ("random_seed", as_int(seed, "seed", minimum=0)), ("mip_abs_gap", 0.0)):
        highs.setOptionValue(name, value)
    clock = Stopwatch()
    highs.passModel(lp)
    if start is not None:
        start = np.asarray(start, dtype=np.float64)
        highs.setSolution(int(start.size), np.arange(start.size, dtype=np.int32), start)
    highs.run()
    seconds = clock.seconds
    model_status = highs.getModelStatus()
    text = highs.modelStatusToString(model_status)
    info = highs.getInfo()
    solution = highs.getSolution()
    has_solution = bool(solution.value_valid) and info.primal_solution_status == 2  # 2: feasible
    values = np.asarray(solution.col_value) if has_solution else None
    duals = np.asarray(solution.row_dual) * unit if (has_solution and not integer and solution.dual_valid) else None
    objective = float(info.objective_function_value) * unit if has_solution else None
    bound = float(info.mip_dual_bound) * unit if integer else objective
    if bound is not None and not np.isfinite(bound):
        bound = None
    if model_status == highspy.HighsModelStatus.kOptimal:
        status = SolveStatus.OPTIMAL
    elif model_status in (highspy.HighsModelStatus.kTimeLimit, highspy.HighsModelStatus.kIterationLimit):
        status = SolveStatus.TIME_LIMIT if has_solution else SolveStatus.INFEASIBLE
    elif model_status == highspy.HighsModelStatus.kInfeasible:
        status = SolveStatus.INFEASIBLE
    else:
        status = SolveStatus.FEASIBLE if has_solution else SolveStatus.ERROR
    return ArrayOutcome(status, objective, bound, relative_gap(objective, bound), seconds, text, values, duals)


class WarmLp:
    """An LP kept in one HiGHS instance, for column generation: columns are added between solves
    and each solve starts from the last basis (primal simplex: added columns keep it feasible).

    Costs reach HiGHS in units of ``unit`` (HiGHS's tolerances are absolute, see `solve_arrays`);
    objective and duals come back in the original units."""

    def __init__(self, row_lower: np.ndarray, row_upper: np.ndarray, *, unit: float, seed: int = 0) -> None:
        self.unit = float(unit) if unit > 0 and np.isfinite(unit) else 1.0
        self.rows = int(np.asarray(row_lower).size)
        self.highs = quiet_highs(threads=1, random_seed=as_int(seed, "seed", minimum=0), simplex_strategy=4)
        self.highs.addRows(
            self.rows,
            np.asarray(row_lower, float),
            np.asarray(row_upper, float),
            0,
            np.zeros(self.rows, dtype=np.int32),
            np.zeros(0, dtype=np.int32),
            np.zeros(0),
        )
        self.columns = 0

    def add_columns(self, cost: np.ndarray, columns: sparse.csc_matrix, lower: np.ndarray, upper: np.ndarray) -> None:
        columns = sparse.csc_matrix(columns)
        if columns.shape[1] == 0:
            return
        self.highs.addCols(
            columns.shape[1],
            np.asarray(cost, float) / self.unit,
            np.asarray(lower, float),
            np.asarray(upper, float),
            columns.nnz,
            columns.indptr[:-1].astype(np.int32),
            columns.indices.astype(np.int32),
            columns.data.astype(np.float64),
        )
        self.columns += columns.shape[1]

    def solve(self, time_limit: float) -> ArrayOutcome:
        """Minimize; status optimal with values, row duals and objective, or the status HiGHS ended with."""
        import highspy

        time_limit = as_float(time_limit, "time_limit", above=0.0)
        clock = Stopwatch()
        run_for(self.highs, time_limit)
        status = self.highs.getModelStatus()
        text = self.highs.modelStatusToString(status)
        if status != highspy.HighsModelStatus.kOptimal:
            stopped = status in (highspy.HighsModelStatus.kTimeLimit, highspy.HighsModelStatus.kIterationLimit)
            ended = SolveStatus.INFEASIBLE if status == highspy.HighsModelStatus.kInfeasible else SolveStatus.ERROR
            return ArrayOutcome(
                SolveStatus.TIME_LIMIT if stopped else ended, None, None, None, clock.seconds, text, None, None
            )
        solution = self.highs.getSolution()
        objective = float(self.highs.getInfo().objective_function_value) * self.unit
        duals = np.asarray(solution.row_dual) * self.unit if solution.dual_valid else None
        return ArrayOutcome(
            SolveStatus.OPTIMAL, objective, objective, 0.0, clock.seconds, text, np.asarray(solution.col_value), duals
        )
