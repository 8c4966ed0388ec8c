"""What every solver result shares: a status, the objective, a bound and the time it took."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from enum import StrEnum

from models.checks import as_float, as_str
from models.errors import InfeasibleProblem as InfeasibleProblem  # re-exported: the errors live in models
from models.errors import InvalidInput
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


#: The longest time limit a solve accepts (a day: a nightly plan that takes longer is no plan).
MAX_TIME_LIMIT = 86_400.0


def check_time_limit(value: object) -> float:
    """A time limit in seconds: a finite number > 0 and at most `MAX_TIME_LIMIT` (a day)."""
    return as_float(value, "time_limit", above=0.0, maximum=MAX_TIME_LIMIT)


def method_choice(method: object, method_name: object, default: str) -> str:
    """The solver method asked for as ``method=`` (the documented name) or ``method_name=`` (kept
    working); naming two different ones is an error."""
    if method is not None and method_name is not None and method != method_name:
        raise InvalidInput("method", f"given twice, as {method!r} and as method_name {method_name!r}")
    chosen = method if method is not None else method_name if method_name is not None else default
    return as_str(chosen, "method")


def relative_gap(objective: float | None, bound: float | None) -> float | None:
    """|objective - bound| / max(|objective|, tiny); 0 when they agree, None without both."""
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
