"""What every solver result shares: a status, the objective, a bound and the time it took."""

from __future__ import annotations

import math
import numbers
import time
from dataclasses import dataclass
from enum import StrEnum

from models.checks import as_float, as_optional_float, as_str, shown
from models.errors import InfeasibleProblem as InfeasibleProblem  # re-exported: the errors live in models
from models.errors import InvalidInput, InvalidType
from models.errors import SolverFailed as SolverFailed


class SolveStatus(StrEnum):
    """How a solve ended.

    - ``optimal``: the objective is proven optimal (within the requested gap);
    - ``feasible``: a valid solution without a proof of optimality (heuristics);
    - ``time_limit``: the time limit stopped the search; the incumbent is returned;
    - ``infeasible``: the problem has no solution;
    - ``error``: the solver failed.
    """

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    TIME_LIMIT = "time_limit"
    INFEASIBLE = "infeasible"
    ERROR = "error"

    @property
    def has_solution(self) -> bool:
        return self in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE, SolveStatus.TIME_LIMIT)

    @classmethod
    def _missing_(cls, value: object) -> SolveStatus:
        raise InvalidInput("value", f"must be one of {', '.join(cls)}; got {shown(value)}")


def as_status(value: object, field: str = "status") -> SolveStatus:
    """A `SolveStatus`, or its name as a string ("optimal")."""
    if isinstance(value, SolveStatus):
        return value
    if not isinstance(value, str):
        raise InvalidType(field, f"must be a SolveStatus, got {shown(value)} ({type(value).__name__})")
    try:
        return SolveStatus(value)
    except InvalidInput as error:
        raise InvalidInput(field, error.problem) from None


#: The longest time limit a solve accepts (a day: a nightly plan that takes longer is no plan).
MAX_TIME_LIMIT = 86_400.0


def check_time_limit(value: object) -> float:
    """A time limit in seconds: a finite number > 0 and at most `MAX_TIME_LIMIT` (a day)."""
    return as_float(value, "time_limit", above=0.0, maximum=MAX_TIME_LIMIT)


def method_choice(method: object, method_name: object, default: str, problem: str | None = None) -> str:
    """The solver method asked for as ``method=`` (the documented name) or ``method_name=`` (kept
    working); naming two different ones is an error. With ``problem``, an unknown name is
    refused here, naming the parameter it came in."""
    if method is not None and method_name is not None and method != method_name:
        raise InvalidInput("method", f"given twice, as {shown(method)} and as method_name {shown(method_name)}")
    field = "method" if method is not None or method_name is None else "method_name"
    chosen = as_str(method if method is not None else method_name if method_name is not None else default, field)
    if problem is not None:
        from solvers.registry import lookup

        lookup(problem, chosen, field)
    return chosen


def relative_gap(objective: float | None, bound: float | None) -> float | None:
    """|objective - bound| / max(|objective|, tiny); 0 when they agree, None without both (None,
    or a number that is not finite)."""
    for name, value in (("objective", objective), ("bound", bound)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Real)):
            raise InvalidType(name, f"must be a number or None, got {shown(value)} ({type(value).__name__})")
    if objective is None or bound is None or not (math.isfinite(objective) and math.isfinite(bound)):
        return None
    difference = abs(objective - bound)
    if difference <= 1e-12 * abs(objective):  # relative: an absolute floor hides gaps at small scales
        return 0.0
    return difference / max(abs(objective), 1e-12)


@dataclass(frozen=True)
class Solution:
    """The fields every solution carries (problem-specific solutions add theirs).

    ``bound`` is the best proven bound on the objective (None when the method
    proves none); ``gap`` the relative distance between objective and bound.
    """

    status: SolveStatus
    objective: float
    bound: float | None
    gap: float | None
    solver: str
    seconds: float

    def __post_init__(self) -> None:
        put = object.__setattr__
        put(self, "status", as_status(self.status))
        put(self, "objective", as_float(self.objective, "objective"))
        put(self, "bound", as_optional_float(self.bound, "bound"))
        put(self, "gap", as_optional_float(self.gap, "gap", minimum=0.0))
        put(self, "solver", as_str(self.solver, "solver"))
        put(self, "seconds", as_float(self.seconds, "seconds", minimum=0.0))

    def record(self) -> dict[str, object]:
        return {
            "status": str(self.status),
            "objective": self.objective,
            "bound": self.bound,
            "gap": self.gap,
            "solver": self.solver,
            "seconds": self.seconds,
        }


class Stopwatch:
    """Wall time since construction."""

    def __init__(self) -> None:
        self._start = time.perf_counter()

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self._start
