"""Solver methods by name (`solvers.registry`): a new method registers the way docs/layout.md's
"Where new things go" says, registering the same function again is harmless, and the modules that
register the built-in methods (`METHOD_MODULES`) load only when a method is looked up."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import solvers
from models import InvalidInput
from solvers import registry
from solvers.ordering.two_stage import OrderSolution, johnson_order, two_stage_makespan

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def own_registry(monkeypatch):
    """The built-in methods, in a registry the test may add to; the real one comes back after."""
    solvers.methods("two_stage")  # the built-in methods register before the copy
    monkeypatch.setattr(registry, "_METHODS", dict(registry._METHODS))


def test_a_throwaway_method_registers_runs_and_goes():
    """docs/layout.md, "solver method": the decorator registers it for an existing problem,
    `solvers.method(problem, name)` finds it, and its answer is the problem's."""
    a, b = np.array([3.0, 1.0, 4.0]), np.array([2.0, 5.0, 1.0])
    solvers.methods("two_stage")  # the built-in methods register in the real registry first
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(registry, "_METHODS", dict(registry._METHODS))  # taken back at the end

        @solvers.register_method("two_stage", "reversed-johnson", exact=False)
        def _reversed_johnson(a, b, *, time_limit: float, seed: int, **_: object) -> OrderSolution:
            """Johnson's order backwards (a throwaway method for this test)."""
            order = johnson_order(a, b)[::-1]
            return OrderSolution(status=solvers.SolveStatus.FEASIBLE, objective=two_stage_makespan(a, b, order),
                                 bound=None, gap=None, solver="reversed-johnson", seconds=0.0, order=order,
                                 makespan=two_stage_makespan(a, b, order))

        found = solvers.method("two_stage", "reversed-johnson")
        assert found.solve is _reversed_johnson and not found.exact
        assert found.description == "Johnson's order backwards (a throwaway method for this test)."
        assert "reversed-johnson" in solvers.methods("two_stage")
        solution = found.solve(a, b, time_limit=1.0, seed=0)
        assert list(solution.order) == list(johnson_order(a, b)[::-1])
        assert solution.objective >= solvers.order_two_stage(a, b, "johnson").objective
        assert solvers.order_two_stage(a, b, method="reversed-johnson") == solution  # the dispatcher finds it too
    assert "reversed-johnson" not in solvers.methods("two_stage")  # cleaned up
    with pytest.raises(InvalidInput, match="unknown method 'reversed-johnson'"):
        solvers.method("two_stage", "reversed-johnson")


def test_registering_the_same_function_again_is_harmless(own_registry):
    def solve(instance, *, time_limit, seed):
        """A method."""

    register = solvers.register_method("two_stage", "twice", exact=False)
    assert register(solve) is solve
    assert register(solve) is solve
    assert solvers.method("two_stage", "twice").solve is solve


def test_a_definition_run_again_replaces_its_entry(own_registry):
    """A module reloaded (or a notebook cell run twice) makes a new function of the same name."""
    namespace: dict = {"__name__": "notebook_cell"}
    source = "def solve(instance, *, time_limit, seed):\n    return 'first'\n"
    exec(compile(source, "<cell>", "exec"), namespace)  # a notebook cell, run twice
    solvers.register_method("pairs", "cell", exact=False)(namespace["solve"])
    exec(compile(source.replace("first", "second"), "<cell>", "exec"), namespace)
    solvers.register_method("pairs", "cell", exact=False)(namespace["solve"])
    assert solvers.method("pairs", "cell").solve(None, time_limit=1.0, seed=0) == "second"


def test_a_built_in_module_reloaded_registers_again(own_registry):
    exhaustive = importlib.import_module("solvers.packing.exhaustive")
    importlib.reload(exhaustive)
    assert solvers.method("packing", "exhaustive").solve is exhaustive._exhaustive


def test_another_function_under_a_taken_name_is_refused(own_registry):
    def first(instance, *, time_limit, seed):
        pass

    def second(instance, *, time_limit, seed):
        pass

    solvers.register_method("two_stage", "taken", exact=False)(first)
    with pytest.raises(InvalidInput, match="'taken' of 'two_stage' is already registered"):
        solvers.register_method("two_stage", "taken", exact=False)(second)
    with pytest.raises(InvalidInput, match="already registered"):
        solvers.register_method("two_stage", "johnson", exact=True)(first)
    assert solvers.method("two_stage", "taken").solve is first


def test_every_method_module_registers_methods():
    """Each module `METHOD_MODULES` lists registers at least one method (a stale entry would
    import nothing new, or fail)."""
    solvers.methods("packing")
    defined_in = {m.solve.__module__ for m in registry._METHODS.values()}
    assert set(registry.METHOD_MODULES) <= defined_in


@pytest.mark.parametrize("module", ["solvers", "solvers.slots.configure", "solvers.ordering.admission_orders",
                                    "solvers.registry"])
def test_solver_pieces_import_light(module):
    """Importing one piece of `solvers` imports no solver library: pyomo, SciPy and pyswarms load
    for a solve."""
    heavy = ("scipy", "pyomo", "pyswarms", "highspy", "networkx")
    code = f"import {module}, sys; print(sorted(m for m in {heavy!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", f"{module} imports {out.stdout.strip()}"
