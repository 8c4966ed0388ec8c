"""The surface users read is typed: every public function, method and constructor of the three
packages declares its parameters' and its return's types, and `Any` appears only where no type
exists: in a container of mixed values (``dict[str, Any]``, a flat record), as the type of
``**options`` forwarded to a constructor that checks each, and at the places listed here, each
with its reason.

Read from the source (`ast`), so that compiled modules (whose signatures Python cannot read) are
checked alike. The public names are those the packages serve (`_PUBLIC` of `models`, `solvers`
and `planner`) and the simulator's and the schedulers' ``__all__``.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Why a compiled constructor takes `Any`: mypyc checks a declared type where the call enters and
#: raises its own TypeError, before the constructor's check could answer with the `InvalidInput`
#: that names the field (the behaviour the tests of bad input hold). Each such constructor says
#: what it takes in its docstring and checks it (`models.checks`); the workaround is commented where
#: it is defined, and only modules compiled with mypyc may use it (`test_only_compiled_modules_...`).
COMPILED_CHECK = "compiled constructor: its own check answers a wrong type with InvalidInput"

#: (module, function or Class.method, parameter or "return") -> why `Any` is the type there.
ANY_ALLOWED = {
    ("planner.simulator.core", "Simulation.__init__", "cluster"): COMPILED_CHECK,
    ("planner.simulator.core", "Simulation.__init__", "options"): COMPILED_CHECK,
    ("planner.simulator.core", "Simulation.__init__", "progress"): COMPILED_CHECK,
    ("planner.simulator.core", "Simulation.__init__", "progress_every"): COMPILED_CHECK,
    ("planner.simulator.core", "Simulation.__init__", "slots"): COMPILED_CHECK,
    ("planner.simulator.locality", "DelayScheduling.__init__", "intensities"): COMPILED_CHECK,
    ("planner.simulator.locality", "DelayScheduling.__init__", "node_wait"): COMPILED_CHECK,
    ("planner.simulator.locality", "DelayScheduling.__init__", "rack_wait"): COMPILED_CHECK,
    ("planner.simulator.schedulers.capacity", "Capacity.__init__", "queues"): COMPILED_CHECK,
    ("planner.simulator.schedulers.fair", "Fair.__init__", "k"): COMPILED_CHECK,
    ("planner.simulator.schedulers.fair", "Fair.__init__", "pools"): COMPILED_CHECK,
    ("planner.simulator.schedulers.fair", "Fair.__init__", "preemption"): COMPILED_CHECK,
    ("planner.simulator.schedulers.fair", "Fair.__init__", "ties"): COMPILED_CHECK,
    ("planner.simulator.schedulers.fair", "Fair.__init__", "order"): COMPILED_CHECK,
    ("planner.simulator.schedulers.fair", "Fair.__init__", "rules"): COMPILED_CHECK,
    ("planner.simulator.schedulers.fifo", "Fifo.__init__", "order"): COMPILED_CHECK,
    ("planner.simulator.schedulers.fresh", "Fresh.__init__", "algorithm3"): COMPILED_CHECK,
    ("planner.simulator.schedulers.fresh", "Fresh.__init__", "dynamic"): COMPILED_CHECK,
    ("planner.simulator.schedulers.fresh", "Fresh.__init__", "k"): COMPILED_CHECK,
    ("planner.simulator.schedulers.fresh", "Fresh.__init__", "order"): COMPILED_CHECK,
    ("planner.simulator.schedulers.fresh", "Fresh.__init__", "tau1"): COMPILED_CHECK,
    ("planner.simulator.schedulers.fresh", "Fresh.__init__", "tau2"): COMPILED_CHECK,
    ("planner.simulator.schedulers.natjam", "Natjam.__init__", "deadline_policy"): COMPILED_CHECK,
    ("planner.simulator.schedulers.natjam", "Natjam.__init__", "evict_maps"): COMPILED_CHECK,
    ("planner.simulator.schedulers.natjam", "Natjam.__init__", "job_eviction"): COMPILED_CHECK,
    ("planner.simulator.schedulers.natjam", "Natjam.__init__", "min_run"): COMPILED_CHECK,
    ("planner.simulator.schedulers.natjam", "Natjam.__init__", "mode"): COMPILED_CHECK,
    ("planner.simulator.schedulers.natjam", "Natjam.__init__", "resume_overhead"): COMPILED_CHECK,
    ("planner.simulator.schedulers.natjam", "Natjam.__init__", "suspend_overhead"): COMPILED_CHECK,
    ("planner.simulator.schedulers.natjam", "Natjam.__init__", "task_eviction"): COMPILED_CHECK,
}


def _served() -> dict[str, str]:
    """Public name -> the module that defines it."""
    served: dict[str, str] = {}
    for package in ("models", "solvers", "planner"):
        for name, where in importlib.import_module(package)._PUBLIC.items():
            module, _, attribute = where.partition(":")
            served[f"{package}.{name}"] = f"{module}:{attribute or name}"
    for package in ("planner.simulator", "planner.simulator.schedulers"):
        module = importlib.import_module(package)
        for name in module.__all__:
            defined = getattr(module, name)
            home = getattr(defined, "__module__", None)
            if home and home.split(".")[0] in ("models", "solvers", "planner"):
                served[f"{package}.{name}"] = f"{home}:{getattr(defined, '__qualname__', name)}"
    return served


def _tree(module: str) -> ast.Module:
    path = ROOT / (module.replace(".", "/") + ".py")
    if not path.exists():
        path = ROOT / module.replace(".", "/") / "__init__.py"
    return ast.parse(path.read_text())


def _definition(tree: ast.Module, name: str) -> ast.AST | None:
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == name:
            return node
    return None


def _is_any(annotation: ast.expr | None) -> bool:
    """Whether the annotation is `Any`, or a union with `Any` in it (``str | Any``). `Any` inside
    a container (``dict[str, Any]``: a flat record's values, JSON's) is a type and passes."""
    if annotation is None:
        return False
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return _is_any(ast.parse(annotation.value, mode="eval").body)
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return _is_any(annotation.left) or _is_any(annotation.right)
    return isinstance(annotation, ast.Name) and annotation.id == "Any"


def _problems(module: str, function: ast.FunctionDef, owner: str = "") -> list[str]:
    """What ``function`` leaves untyped, or types as `Any` without a listed reason."""
    where = f"{owner}.{function.name}" if owner else function.name
    found = []
    arguments = function.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    if owner and every and every[0].arg in ("self", "cls"):
        every = every[1:]
    forwarded = [extra for extra in (arguments.vararg, arguments.kwarg) if extra is not None]
    for argument in every + forwarded:
        if argument.annotation is None:
            found.append(f"{module}:{where}({argument.arg}) has no type")
        elif (_is_any(argument.annotation) and argument not in forwarded
              and (module, where, argument.arg) not in ANY_ALLOWED):
            found.append(f"{module}:{where}({argument.arg}) is Any")
    if function.name != "__init__":
        if function.returns is None:
            found.append(f"{module}:{where} has no return type")
        elif _is_any(function.returns) and (module, where, "return") not in ANY_ALLOWED:
            found.append(f"{module}:{where} returns Any")
    return found


def _public_methods(node: ast.ClassDef) -> list[ast.FunctionDef]:
    return [item for item in node.body if isinstance(item, ast.FunctionDef)
            and (not item.name.startswith("_") or item.name == "__init__")]


def _check(module: str, qualified: str) -> list[str]:
    tree = _tree(module)
    node: ast.AST | None = tree
    parts = qualified.split(".")
    for part in parts:
        node = _definition(node, part) if isinstance(node, (ast.Module, ast.ClassDef)) else None
    if isinstance(node, ast.FunctionDef):
        return _problems(module, node)
    if isinstance(node, ast.ClassDef):
        return [p for method in _public_methods(node) for p in _problems(module, method, node.name)]
    return []  # a constant, an alias or a name bound otherwise: nothing to declare


SERVED = _served()


def test_the_surface_is_read():
    """A check that cannot fail is no check: it finds the names, and finds an untyped one."""
    assert "planner.make_plan" in SERVED and "planner.simulator.Fair" in SERVED and len(SERVED) > 120
    tree = ast.parse("def f(a, b: int, **c: Any) -> dict[str, Any]:\n    return {}\ndef g(x: int | Any):\n    pass\n")
    first, second = tree.body
    assert _problems("m", first) == ["m:f(a) has no type"]
    assert _problems("m", second) == ["m:g(x) is Any", "m:g has no return type"]


def test_every_any_allowed_is_still_there():
    """A listed exception that no longer applies is dropped from the list."""
    for module, where, parameter in ANY_ALLOWED:
        node: ast.AST | None = _tree(module)
        for part in where.split("."):
            node = _definition(node, part)
        assert isinstance(node, ast.FunctionDef), (module, where)
        annotations = {a.arg: a.annotation for a in [*node.args.posonlyargs, *node.args.args,
                                                      *node.args.kwonlyargs, node.args.vararg, node.args.kwarg]
                       if a is not None}
        annotation = node.returns if parameter == "return" else annotations.get(parameter)
        assert _is_any(annotation), (module, where, parameter)


def test_only_compiled_modules_take_any_for_their_checks():
    compiled = {line.strip().removesuffix(".py").replace("/", ".")
                for line in (ROOT / "planner" / "simulator" / "compiled.txt").read_text().splitlines()
                if line.strip() and not line.startswith("#")}
    assert {module for (module, _, _), why in ANY_ALLOWED.items() if why == COMPILED_CHECK} <= compiled


@pytest.mark.parametrize("name", sorted(SERVED))
def test_public_names_are_typed(name):
    module, _, qualified = SERVED[name].partition(":")
    assert not _check(module, qualified)
