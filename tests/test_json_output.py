"""Every command's ``--json`` output parses, run as a user runs it: a real process, stdout read whole.

Solver libraries print from C (highspy 1.16.0's banner on descriptor 1), which no in-process test
runner sees; only a subprocess shows what a script reading stdout gets.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
DATA = ROOT / "tests" / "data"
W, C = str(EXAMPLES / "nightly.yaml"), str(EXAMPLES / "cluster.yaml")


def _planner(*args: str, cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COV")}
    done = subprocess.run([sys.executable, "-m", "planner", *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


COMMANDS = {
    "import swim": ["import", "swim", str(DATA / "FB-2009_samples_24_times_1hr_0_first50jobs.tsv"), "--limit", "5"],
    "import rumen": ["import", "rumen", str(DATA / "2jobs2min-rumen-jh.json")],
    "import sls": ["import", "sls", str(DATA / "inputsls.json")],
    "fit runtimes": ["fit", str(EXAMPLES / "runtimes.csv")],
    "fit tasks": ["fit", str(EXAMPLES / "tasks.csv")],
    "plan slots": ["plan", W, "--cluster", C, "--strategy", "slots"],
    "plan johnson": ["plan", W, "--cluster", C, "--strategy", "johnson"],
    "plan pairs milp": ["plan", W, "--cluster", C, "--strategy", "pairs", "--solver", "milp"],
    "plan packing milp": ["plan", W, "--cluster", C, "--strategy", "packing", "--solver", "milp"],
    "plan packing milp-compact": ["plan", W, "--cluster", C, "--strategy", "packing", "--solver", "milp-compact",
                                  "--time-limit", "20"],
    "simulate": ["simulate", W, "--cluster", C, "--scheduler", "fair"],
    "compare": ["compare", W, "--cluster", C, "-s", "fifo", "-s", "fair", "--executor", "serial"],
    "sweep": ["sweep", W, "--cluster", C, "-s", "fifo", "--runs", "2", "--executor", "serial"],
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_json_output_parses(name, tmp_path):
    parsed = json.loads(_planner(*COMMANDS[name], "--json", cwd=tmp_path))
    assert parsed


def test_validate_and_demo_json_parse(tmp_path):
    """A packing plan written to a file, then validated; and the demo with few runs."""
    plan = tmp_path / "plan.json"
    _planner("plan", W, "--cluster", C, "--strategy", "packing", "-o", str(plan), cwd=tmp_path)
    assert json.loads(_planner("validate", str(plan), "--workload", W, "--cluster", C, "--runs", "2",
                               "--executor", "serial", "--json", cwd=tmp_path))
    assert json.loads(_planner("demo", "-o", str(tmp_path / "out"), "--runs", "2", "--executor", "serial", "--json",
                               cwd=tmp_path))
