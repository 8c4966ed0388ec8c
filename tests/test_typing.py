"""The simulator's core type-checks: every attribute and call along `Simulation`'s chain of
classes (`planner.simulator.state`) is declared, and optional values are narrowed before use.

The modules checked are listed in pyproject.toml (``[tool.mypy] files``). A failure prints
mypy's report.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytest.importorskip("mypy")


def test_the_simulator_core_passes_mypy(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache")], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found" in done.stdout


def test_mypy_finds_an_undeclared_attribute_on_the_chain(tmp_path):
    """The check can fail: a mixin method that reads state `SimState` does not declare."""
    broken = tmp_path / "planner_copy"
    real = ROOT / "planner" / "simulator" / "ends.py"
    source = real.read_text()
    marker = "    def _finish(self, slot: int, now: float) -> None:\n"
    assert marker in source
    mutated = source.replace(marker, marker + "        self.no_such_state += 1\n", 1)
    broken.mkdir()
    (broken / "ends.py").write_text(mutated)
    done = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"),
                           "--shadow-file", str(real), str(broken / "ends.py"), str(real)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    assert '"Ends" has no attribute "no_such_state"' in done.stdout


def test_a_scheduler_used_before_it_is_bound_says_so():
    """`Scheduler.bound` narrows ``sim`` for the type checker and names the mistake at run time."""
    from planner.simulator import Fifo

    with pytest.raises(RuntimeError, match="scheduler 'fifo' is not bound to a simulation"):
        Fifo().bound()
