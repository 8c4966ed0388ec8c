"""The test suite's own layout: test modules share helpers through tests/support/ (or conftest.py
fixtures), never by importing one another, so that a test module can move or split alone."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent


def _is_test_module(name: str) -> bool:
    """``name`` (dotted) names a test module: ``test_x``, ``tests.test_x`` or one in a package of tests."""
    return name.split(".")[-1].startswith("test_")


def imported_test_modules(source: str) -> list[str]:
    """The test modules ``source`` imports, at module level or inside functions, under
    ``if TYPE_CHECKING:`` too."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if _is_test_module(alias.name)]
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            if _is_test_module(module):
                found.append(module)
            else:  # from tests import test_x; from . import test_x
                prefix = module if module.endswith(".") else module + "."
                found += [prefix + alias.name for alias in node.names if _is_test_module(alias.name)]
    return found




@pytest.mark.parametrize(("source", "expected"), [
    ("from tests.test_fresh import Spy", ["tests.test_fresh"]),
    ("from test_packing import brute_force", ["test_packing"]),
    ("import tests.test_simulator as sim", ["tests.test_simulator"]),
    ("from tests import test_simulator", ["tests.test_simulator"]),
    ("from . import test_simulator", [".test_simulator"]),
    ("def f():\n    from tests.test_heartbeat_wakes import Counted\n", ["tests.test_heartbeat_wakes"]),
    ("if TYPE_CHECKING:\n    from test_fresh import Spy\n", ["test_fresh"]),
    ("from tests.support.fresh import Spy\nfrom tests.fuzz_inputs import make_case\nimport pytest", []),
])
def test_the_check_finds_an_import_of_a_test_module(source, expected):
    """The check can fail: on synthetic sources it finds every form of importing a test module,
    and nothing in imports of helper modules."""
    assert imported_test_modules(source) == expected


def test_no_test_module_imports_another():
    """No file of the suite (test modules, helpers, conftest.py) imports a test module."""
    files = sorted(TESTS.rglob("*.py"))
    assert len(files) > 50 and TESTS / "test_suite_layout.py" in files
    offenders = {str(path.relative_to(TESTS)): names for path in files
                 if (names := imported_test_modules(path.read_text()))}
    assert not offenders, f"test modules imported (move the helper to tests/support/): {offenders}"
