"""The simulator's core type-checks: every attribute and call of `Simulation`
(`planner.simulator.core`) is declared, and optional values are narrowed before use.

The modules checked are listed in pyproject.toml (``[tool.mypy] files``). A failure prints
mypy's report.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytest.importorskip("mypy")


def _setup_module():
    """setup.py as a module: its functions (setup() itself runs only as a script)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("batchplan_setup", ROOT / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

def test_the_simulator_core_passes_mypy(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache")], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found" in done.stdout


def test_mypy_finds_an_undeclared_attribute_of_the_simulation(tmp_path):
    """The check can fail: a method that reads state `Simulation` does not declare."""
    broken = tmp_path / "planner_copy"
    real = ROOT / "planner" / "simulator" / "core.py"
    source = real.read_text()
    marker = "    def _finish(self, slot: int, now: float) -> None:\n"
    assert marker in source
    mutated = source.replace(marker, marker + "        self.no_such_state += 1\n", 1)
    broken.mkdir()
    (broken / "core.py").write_text(mutated)
    done = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"),
                           "--shadow-file", str(real), str(broken / "core.py"), str(real)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    assert '"Simulation" has no attribute "no_such_state"' in done.stdout


def test_every_compiled_module_is_type_checked():
    """mypyc compiles from mypy's types: a module compiled but not checked would build from
    types nobody looked at (planner/simulator/compiled.txt, pyproject's [tool.mypy] files)."""
    import tomllib

    checked = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]["files"])
    compiled = _setup_module().compiled_sources()
    assert compiled and set(compiled) <= checked
    assert all((ROOT / path).exists() for path in compiled + sorted(checked))


def test_every_compiled_module_runs_as_python():
    """A pure build (``BATCHPLAN_PURE=1``) runs the compiled modules' sources as Python, so each
    must import as Python: mypyc accepts a name that is both in ``__slots__`` and a method, where
    Python raises ValueError at the class (JobRun once listed its method block_nodes). A fresh
    process whose imports prefer a module's source to its extension imports each one."""
    names = [path.removesuffix(".py").replace("/", ".") for path in _setup_module().compiled_sources()]
    code = (
        "import importlib, importlib.machinery as m, sys\n"
        "loaders = [(m.SourceFileLoader, m.SOURCE_SUFFIXES), (m.ExtensionFileLoader, m.EXTENSION_SUFFIXES),"
        " (m.SourcelessFileLoader, m.BYTECODE_SUFFIXES)]\n"
        "sys.path_hooks.insert(0, m.FileFinder.path_hook(*loaders))\n"
        "sys.path_importer_cache.clear()\n"
        f"for name in {names!r}:\n"
        "    module = importlib.import_module(name)\n"
        "    assert module.__file__.endswith('.py'), module.__file__\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-3000:]


def test_an_edited_source_is_not_shadowed_by_its_old_extension(tmp_path):
    """`check_build`: a compiled module whose source changed since the build is refused at import."""
    import hashlib
    import json
    import sysconfig

    from planner.simulator.native import StaleBuild, check_build, compiled_modules

    source = tmp_path / "planner" / "simulator" / "core.py"
    source.parent.mkdir(parents=True)
    source.write_text("x = 1\n")
    record = tmp_path / "_build.json"
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    record.write_text(json.dumps({"compiled": {"planner/simulator/core.py": digest}}))
    check_build(record, tmp_path)  # no extension beside it: pure Python, nothing to check
    assert compiled_modules(record, tmp_path) == []
    source.with_name("core" + sysconfig.get_config_var("EXT_SUFFIX")).write_bytes(b"")
    assert compiled_modules(record, tmp_path) == ["planner/simulator/core.py"]
    check_build(record, tmp_path)  # built from this very source
    source.write_text("x = 2\n")
    with pytest.raises(StaleBuild, match=r"planner/simulator/core\.py changed since it was compiled"):
        check_build(record, tmp_path)
    with pytest.raises(ImportError):  # what importing the package then raises
        check_build(record, tmp_path)


def test_a_scheduler_used_before_it_is_bound_says_so():
    """`Scheduler.bound` narrows ``sim`` for the type checker and names the mistake at run time."""
    from planner.simulator import Fifo

    with pytest.raises(RuntimeError, match="scheduler 'fifo' is not bound to a simulation"):
        Fifo().bound()


@pytest.mark.parametrize("module", ["capacity", "fair", "fifo", "fresh", "natjam"])
def test_declared_settings_are_the_constructor_parameters(module):
    """A compiled scheduler declares its settings (Python cannot read its signature): they must be
    its ``__init__``'s parameters, read here from the source."""
    import ast

    from planner.simulator.config import scheduler_class

    tree = ast.parse((ROOT / "planner" / "simulator" / "schedulers" / f"{module}.py").read_text())
    init = next(node for cls in tree.body if isinstance(cls, ast.ClassDef) for node in cls.body
                if isinstance(node, ast.FunctionDef) and node.name == "__init__")
    parameters = tuple(arg.arg for arg in init.args.args[1:] + init.args.kwonlyargs)
    assert scheduler_class(module).settings == parameters


def test_a_pure_build_removes_what_a_compiled_one_left(tmp_path, monkeypatch):
    """``BATCHPLAN_PURE=1``: setup.py builds no extension and deletes the old ones (which would
    shadow the sources) and the build record, in the tree it is given."""
    setup = _setup_module()
    simulator = tmp_path / "planner" / "simulator"
    (simulator / "schedulers").mkdir(parents=True)
    (simulator / "compiled.txt").write_text("# listed\nplanner/simulator/core.py\nplanner/simulator/schedulers/fair.py\n")
    left = [simulator / "core.cpython-311-x86_64-linux-gnu.so", simulator / "schedulers" / "fair.cpython-311-x86_64-linux-gnu.so",
            simulator / "native_core__mypyc.cpython-311-x86_64-linux-gnu.so", simulator / "_build.json"]
    kept = simulator / "layout.cpython-311-x86_64-linux-gnu.so"  # not listed: not ours to delete
    for path in [*left, kept]:
        path.write_bytes(b"")
    assert setup.compiled_sources(tmp_path) == ["planner/simulator/core.py", "planner/simulator/schedulers/fair.py"]
    monkeypatch.setenv("BATCHPLAN_PURE", "1")
    assert setup.extensions(tmp_path) == []
    assert not any(path.exists() for path in left) and kept.exists()


def _compiled_trees() -> list[tuple[str, ast.Module]]:
    return [(path, ast.parse((ROOT / path).read_text())) for path in _setup_module().compiled_sources()]


def test_compiled_modules_avoid_forms_mypyc_runs_as_python():
    """Forms that compile to Python-level operations on the hot path (planner/simulator/compiled.txt
    says why): an augmented assignment to an item, a method held in a local (``f = self.m``, ``m``
    a method of the class or of a compiled base), a module constant (a name in capitals bound to
    a number) not declared Final, and a lambda or nested function that a call may return before
    reaching (its closure is built when the function is entered, whatever path the call takes;
    ``__init__`` and ``bind`` run once a run and may)."""
    trees = _compiled_trees()
    classes = {cls.name: cls for _, tree in trees for cls in ast.walk(tree) if isinstance(cls, ast.ClassDef)}

    def methods(name: str) -> set[str]:
        cls = classes[name]
        own = {node.name for node in cls.body if isinstance(node, ast.FunctionDef)}
        return own.union(*(methods(base.id) for base in cls.bases
                           if isinstance(base, ast.Name) and base.id in classes))

    found = []
    for path, tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Subscript):
                found.append(f"{path}:{node.lineno}: augmented assignment to an item")
        for cls in (node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)):
            held = methods(cls.name)
            for node in ast.walk(cls):
                if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Attribute)
                        and isinstance(node.value.value, ast.Name) and node.value.value.id == "self"
                        and node.value.attr in held):
                    found.append(f"{path}:{node.lineno}: method self.{node.value.attr} held in a local")
        for function in (node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)):
            if function.name not in ("__init__", "bind") and _closure_built_in_vain(function):
                found.append(f"{path}:{function.lineno}: {function.name} builds a closure a call may not use")
    # The constants of the compiled modules and of the modules they take constants from.
    sources = {path for path, _ in trees} | {
        node.module.replace(".", "/") + ".py" for _, tree in trees for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("planner.")
        and any(alias.name.isupper() for alias in node.names)}
    for path in sorted(sources):
        for node in ast.parse((ROOT / path).read_text()).body:
            if not isinstance(node, ast.Assign):
                continue
            names = [name.id for target in node.targets for name in ast.walk(target) if isinstance(name, ast.Name)]
            unpacked = any(isinstance(target, ast.Tuple) for target in node.targets)
            values = node.value.elts if unpacked and isinstance(node.value, ast.Tuple) else [node.value]
            if names and all(name.isupper() for name in names) and any(_is_number(value) for value in values):
                found.append(f"{path}:{node.lineno}: module constant {', '.join(names)} without Final")
    assert not found, "\n".join(found)


def _is_number(node: ast.expr) -> bool:
    """A number literal, or arithmetic on them (``1 << 16``, ``-1``)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int | float) and not isinstance(node.value, bool)
    if isinstance(node, ast.UnaryOp):
        return _is_number(node.operand)
    return isinstance(node, ast.BinOp) and _is_number(node.left) and _is_number(node.right)


def _closure_built_in_vain(function: ast.FunctionDef) -> bool:
    """Whether ``function`` holds a lambda or nested function inside a branch or loop, or after a
    return: paths that never reach it still pay for its closure."""
    for statement in function.body:
        inner = [node for node in ast.walk(statement) if isinstance(node, ast.Lambda | ast.FunctionDef)]
        if inner and isinstance(statement, ast.If | ast.For | ast.While | ast.Try | ast.With | ast.Match):
            return True
        if inner:
            return any(isinstance(node, ast.Return) for earlier in function.body[:function.body.index(statement)]
                       for node in ast.walk(earlier))
    return False
