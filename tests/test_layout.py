"""The tree: the layering rule, the rooms of `planner/`, no import cycles, a light start.

Imports are read from the source (`ast`), at module level and inside functions alike (both run).
The rooms' rules read run-time imports only (not those under ``if TYPE_CHECKING:``); the cycle
check counts those too: a circle that only type checking closes is still a circle.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("models", "solvers", "planner")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _run_time_imports(tree: ast.AST, known: set[str], *, type_checking: bool = False) -> set[str]:
    """Modules of ours that `tree` imports when it runs (a name imported from a package counts as
    its module when there is one: ``from planner.proof import plots``); with ``type_checking``,
    also those imported for annotations only."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node) and not type_checking:
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.split(".")[0] in PACKAGES)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in PACKAGES:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in known)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found & known


def _graph(*, type_checking: bool = False) -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: _run_time_imports(ast.parse(path.read_text()), known, type_checking=type_checking) - {name}
            for name, path in modules.items()}


GRAPH = _graph()
#: The same, with the imports made for type checking only.
TYPED_GRAPH = _graph(type_checking=True)


def _imports_of(prefix: str) -> set[tuple[str, str]]:
    return {(m, t) for m, targets in GRAPH.items() if m == prefix or m.startswith(prefix + ".") for t in targets}


def _under(module: str, *prefixes: str) -> bool:
    """True when ``module`` is one of ``prefixes`` or inside one; the modules every room shares
    (`planner.limits`, `planner.defaults`) count as inside every room of `planner`."""
    shared = ("planner.limits", "planner.defaults")
    if module in shared and any(p.startswith("planner.") for p in prefixes):
        return True
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def test_the_graph_is_read():
    """A check that cannot fail is no check: the graph holds edges we know are there."""
    assert "planner.planning.robust" in GRAPH["planner.planning.make"]
    assert "planner.plans.plan" in GRAPH["planner.proof.setups"]
    assert "planner.simulator" in GRAPH["planner.proof.validate"]
    assert "models" in GRAPH["solvers.slots.configure"]
    assert len(GRAPH) > 80


def test_layering_rule():
    """planner -> solvers -> models, downward only; the simulator never imports solvers."""
    assert not {e for e in _imports_of("models") if not _under(e[1], "models")}
    assert not {e for e in _imports_of("solvers") if not _under(e[1], "models", "solvers")}
    assert not {e for e in _imports_of("planner.simulator") if _under(e[1], "solvers")}


@pytest.mark.parametrize(("room", "allowed"), [
    # files in: read with models' vocabulary only
    ("planner.io", ("models", "planner.io", "planner.limits")),
    # the simulator runs plans given as plain data
    ("planner.simulator", ("models", "planner.simulator", "planner.limits")),
    # the Plan record and its file: below every room that reads or runs plans
    ("planner.plans", ("models", "solvers", "planner.plans", "planner.simulator", "planner.limits")),
    # proofs run plans; they never make one (no planner.planning)
    ("planner.proof", ("models", "solvers", "planner.proof", "planner.plans", "planner.simulator", "planner.io",
                       "planner.limits")),
    ("planner.planning", ("models", "solvers", "planner.planning", "planner.plans", "planner.proof",
                          "planner.simulator", "planner.io", "planner.limits")),
    ("planner.examples", ("models", "solvers", "planner.examples", "planner.io", "planner.plans",
                          "planner.planning", "planner.proof", "planner.simulator")),
])
def test_rooms_import_only_what_is_below_them(room, allowed):
    wrong = sorted(e for e in _imports_of(room) if not _under(e[1], *allowed))
    assert not wrong, f"{room} imports outside its room's rule: {wrong}"


def test_nothing_imports_the_command_line():
    """The command line is the top: only the package's startup hook and `python -m planner` import it."""
    users = sorted(m for m, targets in GRAPH.items() for t in targets
                   if (t == "planner.cli" or t.startswith("planner.cli.")) and not m.startswith("planner.cli")
                   and m not in ("planner", "planner.__main__"))
    assert not users
    assert GRAPH["planner"] <= {"planner.cli", "planner.cli.startup", "models.lazy"}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The circles of ``graph`` that are not a package's __init__ importing its own modules."""
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def walk(node: str, path: list[str]) -> None:
        state[node] = 1
        for target in sorted(graph[node]):
            if state.get(target) == 1:
                cycles.append([*path[path.index(target):], target] if target in path else [node, target])
            elif target not in state:
                walk(target, [*path, target])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            walk(module, [module])
    # A package's __init__ importing its own modules is the package, not a cycle.
    return [c for c in cycles if not all(_under(m, c[0]) or _under(c[0], m) for m in c)]


def test_the_cycle_check_finds_a_circle():
    """Two modules importing each other, and one closed by a type-checking import only."""
    graph = {"planner.a": {"planner.b"}, "planner.b": {"planner.a"}, "planner.c": set()}
    assert _cycles(graph) == [["planner.a", "planner.b", "planner.a"]]
    source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from planner.b import X\n"
    known = {"planner.a", "planner.b"}
    assert _run_time_imports(ast.parse(source), known) == set()
    assert _run_time_imports(ast.parse(source), known, type_checking=True) == {"planner.b"}


def test_no_import_cycles():
    """No module reaches itself through its run-time imports (two modules importing each other
    included), function-level imports counted."""
    assert not _cycles(GRAPH), f"import cycles: {_cycles(GRAPH)}"


ROOMS = ("models", "solvers", "planner.io", "planner.plans", "planner.planning", "planner.proof",
         "planner.simulator", "planner.examples", "planner.cli")


def _room(module: str) -> str:
    return next((room for room in ROOMS if _under(module, room) and module not in ("planner.limits",
                                                                                   "planner.defaults")), module)


def test_no_circle_between_rooms_even_for_type_checking():
    """Rooms import each other one way only, counting the imports made for type checking: the
    `Plan` record is typed in every room that takes one without plans and proofs reaching each
    other."""
    rooms: dict[str, set[str]] = {}
    for module, targets in TYPED_GRAPH.items():
        rooms.setdefault(_room(module), set()).update(_room(t) for t in targets)
    graph = {room: targets - {room} for room, targets in rooms.items()}
    assert not _cycles(graph), f"rooms in a circle: {_cycles(graph)}"
    assert "planner.plans" in graph["planner.proof"] and "planner.proof" in graph["planner.planning"]


def test_no_circle_among_the_schedulers_even_for_type_checking():
    schedulers = {m: {t for t in targets if t.startswith("planner.simulator.schedulers.")}
                  for m, targets in TYPED_GRAPH.items() if m.startswith("planner.simulator.schedulers.")}
    assert not _cycles(schedulers), f"schedulers in a circle: {_cycles(schedulers)}"


def test_every_room_says_what_lives_there():
    for room in ("planner.io", "planner.plans", "planner.planning", "planner.proof", "planner.simulator", "planner.examples",
                 "planner.cli", "planner.simulator.schedulers"):
        path = ROOT / room.replace(".", "/") / "__init__.py"
        doc = ast.get_docstring(ast.parse(path.read_text()))
        assert doc and len(doc) > 80, room


HEAVY = ("numpy", "scipy", "sklearn", "pyomo", "pandas", "matplotlib", "pyswarms", "highspy", "dask")


@pytest.mark.parametrize("statement", ["import planner", "import planner.cli.main", "import models.errors",
                                       "import planner.io.importers"])
def test_light_imports(statement):
    """Starting the command imports no heavy library (each costs a tenth of a second or more)."""
    code = f"{statement}; import sys; print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", f"{statement} imports {out.stdout.strip()}"


@pytest.mark.parametrize("module", ["planner.proof.validate", "planner.proof.compare", "planner.planning.robust",
                                    "planner.simulator"])
def test_simulation_workers_start_light(module):
    """A sweep's worker imports the module of its run function: NumPy, but no SciPy, scikit-learn,
    pyomo or matplotlib (each worker process would pay a second or more for them)."""
    code = f"import {module}, sys; print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['numpy']", f"{module} imports {out.stdout.strip()}"
