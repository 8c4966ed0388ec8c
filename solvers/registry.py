"""Solver methods registered by name, per problem.

A method is a function ``solve(instance, *, time_limit, seed, **options) ->
Solution`` for one problem (e.g. "two_stage"). Registering validates the name
and refuses a second function under a taken name; registering the same function
again (a module reloaded, a notebook cell run twice) replaces the entry and is
harmless. `method` looks one up and names the choices when the name is unknown.
One contract test runs every registered method of a problem on a shared
instance set.

A new method goes in its problem's sub-package (``solvers/<problem>/``) and its
module is listed in `METHOD_MODULES`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from models.checks import as_bool, as_callable, as_str, shown
from models.errors import InvalidInput, InvalidType


@dataclass(frozen=True)
class Method:
    problem: str
    name: str
    solve: Callable[..., object]
    exact: bool
    description: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "problem", as_str(self.problem, "problem"))
        object.__setattr__(self, "name", as_str(self.name, "name"))
        as_callable(self.solve, "solve")
        object.__setattr__(self, "exact", as_bool(self.exact, "exact"))
        if not isinstance(self.description, str):
            raise InvalidType("description", f"must be a string, got {shown(self.description)}")


_METHODS: dict[tuple[str, str], Method] = {}

#: The modules whose import registers the built-in methods. They are imported when methods are
#: first looked up, not when `solvers` is: pyomo, SciPy and pyswarms load only for a solve.
METHOD_MODULES = (
    "solvers.ordering.two_stage",
    "solvers.pairs.problem", "solvers.pairs.matching",
    "solvers.packing.methods", "solvers.packing.exact", "solvers.packing.pso", "solvers.packing.exhaustive",
    "solvers.ordering.release_search", "solvers.ordering.release_methods",
    "solvers.ordering.precedence_methods",
)


def _load_methods() -> None:
    import importlib

    for module in METHOD_MODULES:
        importlib.import_module(module)  # registers on first import; a no-op after


def register_method(problem: str, name: str, *, exact: bool) -> Callable[[Callable], Callable]:
    """Decorator: register ``solve`` as method ``name`` of ``problem``.

    ``exact`` says whether the method proves optimality when it finishes
    within its limits (its solutions then carry status optimal).
    """
    problem = as_str(problem, "problem")
    name = as_str(name, "name")
    exact = as_bool(exact, "exact")

    def decorate(solve: Callable) -> Callable:
        taken = _METHODS.get((problem, name))
        if taken is not None and not _same_function(taken.solve, solve):
            raise InvalidInput("name", f"method {name!r} of {problem!r} is already registered")
        description = (solve.__doc__ or "").strip().splitlines()[0] if solve.__doc__ else name
        _METHODS[(problem, name)] = Method(problem, name, solve, exact, description)
        return solve

    return decorate


def _same_function(registered: Callable, solve: Callable) -> bool:
    """The same function, or its definition run again (same module and qualified name: a
    reloaded module or a notebook cell run twice makes a new function object)."""
    if registered is solve:
        return True
    where = (getattr(solve, "__module__", None), getattr(solve, "__qualname__", None))
    return None not in where and where == (getattr(registered, "__module__", None),
                                           getattr(registered, "__qualname__", None))


def methods(problem: str) -> dict[str, Method]:
    """The registered methods of a problem, by name (none for an unknown problem)."""
    problem = as_str(problem, "problem")
    _load_methods()
    return {name: m for (p, name), m in _METHODS.items() if p == problem}


def method(problem: str, name: str) -> Method:
    """The method ``name`` of ``problem``."""
    return lookup(problem, name, "name")


def lookup(problem: str, name: str, field: str = "method") -> Method:
    """`method`, for a caller whose parameter ``field`` names the method (a problem's solve
    function takes it as ``method``)."""
    problem = as_str(problem, "problem")
    name = as_str(name, field)
    _load_methods()
    found = _METHODS.get((problem, name))
    if found is None:
        choices = sorted(methods(problem))
        if not choices:
            problems = ", ".join(sorted({p for p, _ in _METHODS}))
            raise InvalidInput("problem", f"unknown problem {shown(problem)}; choose from {problems}")
        raise InvalidInput(field, f"unknown method {shown(name)} for {problem}; choose from {', '.join(choices)}")
    return found
