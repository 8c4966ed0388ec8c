"""The public surface: every name `planner`, `models` and `solvers` export resolves, to the object
its defining module holds, and `planner`'s are served without importing the heavy libraries
until one is used."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import models
import planner
import solvers

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("package", [planner, models, solvers], ids=lambda p: p.__name__)
def test_every_exported_name_resolves(package):
    assert package.__all__ == sorted(package.__all__) or package is solvers
    for name in package.__all__:
        assert getattr(package, name) is not None, name
    assert set(package.__all__) <= set(dir(package))


@pytest.mark.parametrize("package", [planner, models], ids=lambda p: p.__name__)
def test_lazy_names_are_their_modules_objects(package):
    for name, module in package._PUBLIC.items():
        assert getattr(package, name) is getattr(importlib.import_module(module), name), name


def test_the_readme_names():
    """The names the issue asks for, in one import."""
    from planner import Plan, compare, make_plan, read_rumen, read_sls, read_swim, simulate, sweep, validate

    assert Plan.__name__ == "Plan" and all(map(callable, (compare, make_plan, read_rumen, read_sls, read_swim,
                                                          simulate, sweep, validate)))


def test_unknown_names_raise_attribute_error():
    with pytest.raises(AttributeError, match="module 'planner' has no attribute 'nope'"):
        planner.nope  # noqa: B018
    with pytest.raises(AttributeError, match="module 'models' has no attribute 'nope'"):
        models.nope  # noqa: B018


def test_one_name_imports_only_what_it_needs():
    """``from planner import read_swim`` reads traces without the simulator, the solvers or pyomo."""
    code = ("import sys; from planner import read_swim; "
            "print(sorted(m for m in ('planner.simulator', 'solvers', 'pyomo', 'matplotlib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
