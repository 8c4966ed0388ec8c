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
    its module when there is one: ``from planner.proof import report``); with ``type_checking``,
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


#: The modules every room of `planner` shares.
SHARED = ("planner.limits", "planner.defaults", "planner.plots")


def _under(module: str, *prefixes: str) -> bool:
    """True when ``module`` is one of ``prefixes`` or inside one; the modules every room shares
    (`planner.limits`, `planner.defaults`, `planner.plots`) count as inside every room of `planner`."""
    shared = SHARED
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
    # files in and out: the simulator's settings and results, a cluster software's formats
    ("planner.io", ("models", "planner.io", "planner.plans", "planner.simulator", "planner.limits")),
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
    # figures draw what a room gives them: shared by every room, they import none
    ("planner.plots", ("models",)),
])
def test_rooms_import_only_what_is_below_them(room, allowed):
    wrong = sorted(e for e in _imports_of(room) if not _under(e[1], *allowed))
    assert not wrong, f"{room} imports outside its room's rule: {wrong}"


#: The modules of planner.io that hold the simulator's own files, the export targets' registry and the
#: cluster software's formats (they may import the simulator); the other modules of the room are trace
#: importers.
#: (A Spark event log's batch, `spark_batch`, carries the simulator's options and pools: Spark's
#: recorded scheduler, and so does the profile fitted from it.)
SIMULATOR_FORMATS = ("planner.io.settings", "planner.io.results", "planner.io.targets", "planner.io.hadoop",
                     "planner.io.spark")


def test_trace_importers_read_with_models_vocabulary_only():
    importers = {m for m in GRAPH if _under(m, "planner.io") and not _under(m, *SIMULATOR_FORMATS)}
    assert "planner.io.swim" in importers and "planner.io.hadoop.conf" not in importers
    wrong = sorted((m, t) for m in importers for t in GRAPH[m] if t not in importers
                   and not _under(t, "models", "planner.limits"))
    assert not wrong, f"trace importers import beyond models: {wrong}"


#: What reading or writing a file looks like in source: modules imported, methods and functions called.
FILE_MODULES = ("models.fileio", "xml", "csv", "pickle", "tomllib", "yaml")
FILE_CALLS = ("open", "read_text", "write_text", "read_bytes", "write_bytes")
#: Simulator modules allowed to touch files, with the reason.
FILE_EXCEPTIONS = {
    # the install's own build record and the hashes of the sources compiled, not a user's file
    "planner.simulator.native": "the compiled build's record (_build.json) and source hashes",
}


def _file_uses(tree: ast.AST) -> list[str]:
    """Where ``tree`` reads or writes a file: imports of file-format modules (`FILE_MODULES`, at
    any level, TYPE_CHECKING included) and calls of ``open`` or of a path's read/write methods."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        modules: list[str] = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        found.extend((node.lineno, f"import {m}") for m in modules
                     if any(m == f or m.startswith(f + ".") for f in FILE_MODULES))
        if isinstance(node, ast.Call):
            function = node.func
            name = (function.id if isinstance(function, ast.Name)
                    else function.attr if isinstance(function, ast.Attribute) else None)
            if name in FILE_CALLS:
                found.append((node.lineno, f"{name}()"))
    return [f"line {line}: {what}" for line, what in sorted(found)]


def test_the_file_check_finds_file_access():
    """A check that cannot fail is no check: each form of file access in a made-up module."""
    source = ("import json\nimport xml.etree.ElementTree as ET\nfrom models.fileio import read_mapping\n"
              "from models import fileio\n"
              "def f(path):\n    with open(path) as stream:\n        return stream.read()\n"
              "def g(path):\n    path.write_text(json.dumps({}))\n    return path.read_text()\n")
    found = _file_uses(ast.parse(source))
    assert found == ["line 2: import xml.etree.ElementTree", "line 3: import models.fileio",
                     "line 3: import models.fileio.read_mapping", "line 4: import models.fileio",
                     "line 6: open()", "line 9: write_text()", "line 10: read_text()"]
    assert not _file_uses(ast.parse("import json\ndef f(result):\n    return json.dumps(result.to_dict())\n"))


def test_the_simulator_reads_and_writes_no_file_format():
    """Files are planner.io's: settings files, result files and Hadoop's files are read and written
    there; the simulator takes and gives objects (and text, `SimResult.to_json`)."""
    simulator = {name: path for name, path in _modules().items() if _under(name, "planner.simulator")}
    uses = {name: found for name, path in simulator.items()
            if (found := _file_uses(ast.parse(path.read_text()))) and name not in FILE_EXCEPTIONS}
    assert not uses, f"simulator modules touching files (move it to planner.io): {uses}"
    assert set(FILE_EXCEPTIONS) <= set(simulator)


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
    """The room ``module`` is in (a shared module is a room of its own)."""
    return module if module in SHARED else next((room for room in ROOMS if _under(module, room)), module)


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
    for room in ("planner.io", "planner.io.hadoop", "planner.plans", "planner.planning", "planner.proof",
                 "planner.simulator", "planner.examples",
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


# -- where new things go (docs/layout.md), each tried with a throwaway one --------------------------


def test_a_new_trace_importer_goes_in_the_registry(tmp_path, monkeypatch):
    """docs/layout.md's trace importer row: a module with ``read(path, **options) -> Workload``,
    registered with `register_importer`, is read through by `read_trace`."""
    from models import Job, Workload
    from models.errors import InvalidInput
    from planner.io.importers import IMPORTERS, Importer, read_trace, register_importer

    module = tmp_path / "throwaway_trace_format.py"
    module.write_text(
        "from pathlib import Path\n"
        "from models import Job, Workload\n\n"
        "def read(path, *, scale=1.0):\n"
        "    rows = [line.split() for line in Path(path).read_text().splitlines() if line.strip()]\n"
        "    return Workload([Job(name=name, map_tasks=int(maps), reduce_tasks=0, map_time=float(time) * scale)\n"
        "                     for name, maps, time in rows], name=Path(path).stem)\n")
    trace = tmp_path / "night.trace"
    trace.write_text("a 4 10\nb 2 30\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "throwaway" not in IMPORTERS
    register_importer(Importer("throwaway", "throwaway_trace_format", "read", "a test's format", options=("scale",)))
    try:
        workload = read_trace("throwaway", trace, scale=2.0)
        assert isinstance(workload, Workload) and workload.name == "night"
        assert [(job.name, job.map_tasks, job.map_time) for job in workload] == [("a", 4, 20.0), ("b", 2, 60.0)]
        assert isinstance(workload.jobs[0], Job)
        # a notebook cell run twice registers an equal importer: harmless; another under the name is not
        again = Importer("throwaway", "throwaway_trace_format", "read", "a test's format", options=("scale",))
        assert register_importer(again) is again and IMPORTERS["throwaway"] == again
        with pytest.raises(InvalidInput, match="already registered"):
            register_importer(Importer("throwaway", "throwaway_trace_format", "read", "another format"))
    finally:
        IMPORTERS.pop("throwaway", None)
        sys.modules.pop("throwaway_trace_format", None)
    assert "throwaway" not in IMPORTERS
