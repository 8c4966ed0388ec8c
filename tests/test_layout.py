"""The tree: the layering rule, the rooms of `planner/`, no import cycles, a light start.

Imports are read from the source (`ast`), at module level and inside functions alike (both run),
but not under ``if TYPE_CHECKING:`` (annotations only).
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


def _run_time_imports(tree: ast.AST, known: set[str]) -> set[str]:
    """Modules of ours that `tree` imports when it runs (a name imported from a package counts as
    its module when there is one: ``from planner.proof import plots``)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
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


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: _run_time_imports(ast.parse(path.read_text()), known) - {name} for name, path in modules.items()}


GRAPH = _graph()


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
    assert "planner.plans.robust" in GRAPH["planner.plans.plan"]
    assert "planner.simulator" in GRAPH["planner.proof.validate"]
    assert "models" in GRAPH["solvers.slots"]
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
    # proofs run plans; they never make one (no planner.plans.plan, no robust)
    ("planner.proof", ("models", "solvers", "planner.proof", "planner.simulator", "planner.limits")),
    ("planner.plans", ("models", "solvers", "planner.plans", "planner.proof", "planner.simulator", "planner.limits")),
    ("planner.examples", ("models", "solvers", "planner.examples", "planner.io", "planner.plans", "planner.proof",
                          "planner.simulator")),
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


def test_no_import_cycles():
    """No module reaches itself through run-time imports (two modules importing each other included)."""
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def walk(node: str, path: list[str]) -> None:
        state[node] = 1
        for target in sorted(GRAPH[node]):
            if state.get(target) == 1:
                cycles.append([*path[path.index(target):], target] if target in path else [node, target])
            elif target not in state:
                walk(target, [*path, target])
        state[node] = 2

    for module in sorted(GRAPH):
        if module not in state:
            walk(module, [module])
    # A package's __init__ importing its own modules is the package, not a cycle.
    real = [c for c in cycles if not all(_under(m, c[0]) or _under(c[0], m) for m in c)]
    assert not real, f"import cycles: {real}"


def test_every_room_says_what_lives_there():
    for room in ("planner.io", "planner.plans", "planner.proof", "planner.simulator", "planner.examples",
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


@pytest.mark.parametrize("module", ["planner.proof.validate", "planner.proof.compare", "planner.plans.robust",
                                    "planner.simulator"])
def test_simulation_workers_start_light(module):
    """A sweep's worker imports the module of its run function: NumPy, but no SciPy, scikit-learn,
    pyomo or matplotlib (each worker process would pay a second or more for them)."""
    code = f"import {module}, sys; print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['numpy']", f"{module} imports {out.stdout.strip()}"
