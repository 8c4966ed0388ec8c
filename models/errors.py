"""The error hierarchy shared by every layer.

Every error the toolkit raises on purpose is a `PlannerError`; errors about a
value the caller supplied are also `ValueError`s so that generic callers
(scikit-learn, argument parsers) treat them as such.
"""

from __future__ import annotations


class PlannerError(Exception):
    """Root of every error batchplan raises on purpose."""


class InvalidInput(PlannerError, ValueError):
    """A value or file the caller supplied is wrong.

    The message names where the problem is (the file, when known, and the field
    path) and what is wrong, e.g. ``jobs[3].map_time: must be > 0, got -2``.
    """

    def __init__(self, field: str, problem: str, *, source: str | None = None) -> None:
        self.field = field
        self.problem = problem
        self.source = source
        super().__init__(self._render())

    def _render(self) -> str:
        where = self.field or "(top level)"
        text = f"{where}: {self.problem}"
        return f"{self.source}: {text}" if self.source else text

    def within(self, prefix: str) -> InvalidInput:
        """The same problem, seen from a containing structure (``prefix.field``)."""
        if not self.field:
            field = prefix
        elif self.field.startswith("["):
            field = f"{prefix}{self.field}"
        else:
            field = f"{prefix}.{self.field}" if prefix else self.field
        return type(self)(field, self.problem, source=self.source)

    def in_file(self, source: str) -> InvalidInput:
        """The same problem, attributed to a file."""
        return type(self)(self.field, self.problem, source=source)

    def __reduce__(self):  # keep pickling (process pools) working with keyword fields
        return (_rebuild_invalid_input, (type(self), self.field, self.problem, self.source))


def _rebuild_invalid_input(kind: type[InvalidInput], field: str, problem: str, source: str | None) -> InvalidInput:
    return kind(field, problem, source=source)


class InvalidType(InvalidInput, TypeError):
    """A value the caller supplied has the wrong type (a dict where a `Workload` is expected, a
    string where a number is): an `InvalidInput`, and a `TypeError` for generic callers."""


class InvalidPlan(PlannerError):
    """A plan or schedule breaks a rule of the model it claims to satisfy."""


class InfeasibleProblem(PlannerError):
    """The problem has no feasible solution, or the solver found none in its time."""


class SolverFailed(PlannerError):
    """The solver stopped with an error."""


class ExtrapolationWarning(UserWarning):
    """A profile was asked for a prediction outside the range it was fitted on."""


class TaskFloorWarning(UserWarning):
    """A plan predicts less time than one of its jobs needs for one map and then one reduce: the
    fluid models divide work over slots and do not see a single long task."""

