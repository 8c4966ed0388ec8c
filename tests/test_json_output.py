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
    "fit wave": ["fit", W, "--wave", "--cluster", C],
    "import rumen": ["import", "rumen", str(DATA / "2jobs2min-rumen-jh.json")],
    "import sls": ["import", "sls", str(DATA / "inputsls.json")],
    "import synth": ["import", "synth", str(DATA / "hadoop-conf" / "sls-synth.json")],
    "import swf": ["import", "swf", str(DATA / "sample.swf")],
    "fit runtimes": ["fit", str(EXAMPLES / "runtimes.csv")],
    "fit tasks": ["fit", str(EXAMPLES / "tasks.csv")],
    "plan slots": ["plan", W, "--cluster", C, "--strategy", "slots"],
    "plan johnson": ["plan", W, "--cluster", C, "--strategy", "johnson"],
    "plan target": ["plan", W, "--cluster", C, "--target", "yarn-fair", "--runs", "2", "--executor", "serial"],
    "plan pairs milp": ["plan", W, "--cluster", C, "--strategy", "pairs", "--solver", "milp"],
    "plan packing milp": ["plan", W, "--cluster", C, "--strategy", "packing", "--solver", "milp"],
    "plan packing milp-compact": ["plan", W, "--cluster", C, "--strategy", "packing", "--solver", "milp-compact",
                                  "--time-limit", "20"],
    "simulate": ["simulate", W, "--cluster", C, "--scheduler", "fair"],
    "compare": ["compare", W, "--cluster", C, "-s", "fifo", "-s", "fair", "--executor", "serial"],
    "sweep": ["sweep", W, "--cluster", C, "-s", "fifo", "--runs", "2", "--executor", "serial"],
    "replay rumen": ["replay", "rumen", str(DATA / "2jobs2min-rumen-jh.json")],
}


def documented_shapes() -> dict[str, list[dict[str, tuple[str, list[str]]]]]:
    """docs/json.md's tables: per command heading, each table as {key: (shape, fields)}."""
    shapes: dict[str, list[dict[str, tuple[str, list[str]]]]] = {}
    command, table = None, None
    for line in (ROOT / "docs" / "json.md").read_text().splitlines():
        if line.startswith("## `planner "):
            command, table = line.removeprefix("## `planner ").rstrip("`"), None
            shapes[command] = []
        elif command and line.startswith("| `"):
            key, shape, fields = (cell.strip() for cell in line.strip("|").split("|"))
            if table is None:
                table = {}
                shapes[command].append(table)
            table[key.strip("`")] = (shape, [f.strip().strip("`") for f in fields.split(",")])
        elif not line.startswith("|"):
            table = None
    return shapes


SHAPES = documented_shapes()


def check_shape(parsed: dict, documented: dict[str, tuple[str, list[str]]]) -> None:
    assert list(parsed) == list(documented)
    for key, (shape, fields) in documented.items():
        value = parsed[key]
        records = [value] if shape == "object" else value
        assert isinstance(value, dict if shape == "object" else list), key
        for record in records:
            assert list(record) == fields, key


def test_every_command_is_documented():
    assert set(SHAPES) == {"import", "fit", "plan", "export", "simulate", "validate", "compare", "sweep", "replay",
                           "demo"}
    assert [len(tables) for tables in SHAPES.values()] == [1, 3, 2, 1, 2, 2, 1, 1, 1, 1]  # validate: --runs N, auto


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_json_output_has_the_documented_keys(name, tmp_path):
    """Stable keys: the same whatever the files are called (no titles, no timings)."""
    parsed = json.loads(_planner(*COMMANDS[name], "--json", cwd=tmp_path))
    command = name.split()[0]
    documented = SHAPES[command][{"fit tasks": 1, "fit wave": 2, "plan target": 1}.get(name, 0)]
    check_shape(parsed, documented)
    if name == "plan pairs milp":
        assert parsed["phases"] and parsed["plan"]["phases"] == len({r["phase"] for r in parsed["phases"]})


def test_export_json_lists_the_files(tmp_path):
    """A plan written to a file, exported for Hadoop 1: one record per file of the folder."""
    _planner("plan", W, "--cluster", C, "-o", "plan.json", cwd=tmp_path)
    parsed = json.loads(_planner("export", "plan.json", "--cluster", C, "-w", W, "--to", "mrv1", "-o", "conf",
                                 "--json", cwd=tmp_path))
    check_shape(parsed, SHAPES["export"][0])
    assert sorted(row["file"] for row in parsed["files"]) == sorted(p.name for p in (tmp_path / "conf").iterdir())


def test_simulate_json_of_a_vm_plan(tmp_path):
    """A VM plan's run is VM-level: its own summary (the second simulate table), also with -o."""
    _planner("plan", W, "--cluster", C, "--strategy", "pairs", "-o", "plan.json", cwd=tmp_path)
    parsed = json.loads(_planner("simulate", W, "--cluster", C, "--plan", "plan.json", "-o", "r.json", "--json",
                                 cwd=tmp_path))
    check_shape(parsed, SHAPES["simulate"][1])
    assert json.loads((tmp_path / "r.json").read_text())["summary"] == parsed["result"]


def test_validate_and_demo_json_parse(tmp_path):
    """A packing plan written to a file, then validated (2 runs, and auto); and the demo with few runs."""
    plan = tmp_path / "plan.json"
    _planner("plan", W, "--cluster", C, "--strategy", "packing", "-o", str(plan), cwd=tmp_path)
    check_shape(json.loads(_planner("validate", W, "--plan", str(plan), "--cluster", C, "--runs", "2",
                                    "--executor", "serial", "--json", cwd=tmp_path)), SHAPES["validate"][0])
    check_shape(json.loads(_planner("validate", W, "--plan", str(plan), "--cluster", C, "--min-runs", "2",
                                    "--max-runs", "4", "--executor", "serial", "--json", cwd=tmp_path)),
                SHAPES["validate"][1])  # --runs auto, the default
    check_shape(json.loads(_planner("demo", "-o", str(tmp_path / "out"), "--runs", "2", "--executor", "serial",
                                    "--json", cwd=tmp_path)), SHAPES["demo"][0])
