"""The same inputs and seed give the same bytes: every file written with ``-o`` and every ``--json``
document but its ``timings`` (docs/json.md), run in fresh processes under two PYTHONHASHSEEDs.

The campaign of issue 39 found plan files and ``--json`` differing only in the wall-clock
``seconds``; plan files now hold no wall time and ``--json`` keeps it under ``timings``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from models import Cluster, Job, Workload
from planner.planning.make import make_plan
from planner.plans.files import PLAN_VERSION
from planner.plans.plan import Plan

ROOT = Path(__file__).resolve().parent.parent
W, C = str(ROOT / "examples" / "nightly.yaml"), str(ROOT / "examples" / "cluster.yaml")
SERIAL = ("--runs", "2", "--executor", "serial")

#: (name, argv): each run in order in one folder; the later ones read the plan files of the earlier.
COMMANDS = (
    ("plan slots+johnson", ("plan", W, "-c", C, "--strategy", "slots+johnson", "-o", "sj.json")),
    ("plan pairs", ("plan", W, "-c", C, "--strategy", "pairs", "-o", "pairs.json")),
    ("plan target", ("plan", W, "-c", C, "--target", "yarn-fair", *SERIAL, "-o", "target.json")),
    ("simulate", ("simulate", W, "-c", C, "-s", "fair", "-o", "sim.json")),
    ("simulate vm plan", ("simulate", W, "-c", C, "--plan", "pairs.json", "-o", "vm.json")),
    ("validate", ("validate", W, "-c", C, "-p", "sj.json", *SERIAL, "-o", "report")),
    ("compare", ("compare", W, "-c", C, "-s", "fifo", "-s", "fair", "--executor", "serial", "-o", "comparison")),
)


def _run_all(folder: Path, hash_seed: str) -> dict[str, bytes]:
    """Every command with --json, in fresh interpreters: each one's stdout less its timings, and
    every file the commands wrote, by path."""
    folder.mkdir()
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("COV")}, "PYTHONHASHSEED": hash_seed,
           "PYTHONPATH": str(ROOT)}
    seen: dict[str, bytes] = {}
    for name, argv in COMMANDS:
        done = subprocess.run([sys.executable, "-m", "planner", *argv, "--json"], cwd=folder, env=env,
                              capture_output=True, timeout=300)
        assert done.returncode == 0, (name, done.stderr.decode(errors="replace"))
        printed = json.loads(done.stdout)
        timings = printed.pop("timings", {})
        assert all(isinstance(v, float) and v >= 0 for v in timings.values()), (name, timings)
        seen[f"--json of {name}"] = json.dumps(printed).encode()
        seen[f"timing keys of {name}"] = " ".join(timings).encode()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            seen[str(path.relative_to(folder))] = path.read_bytes()
    return seen


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory) -> tuple[dict[str, bytes], dict[str, bytes], Path]:
    """The commands run twice at once, under PYTHONHASHSEED 1 and 2 (their folders' names differ too)."""
    base = tmp_path_factory.mktemp("reproducible")
    with ThreadPoolExecutor(2) as pool:
        first, second = pool.map(lambda seed: _run_all(base / f"hash-{seed}", seed), ("1", "2"))
    return first, second, base / "hash-1"


def test_files_and_json_are_the_same_bytes_under_another_hash_seed(two_runs):
    first, second, _ = two_runs
    assert list(first) == list(second)
    assert {"sj.json", "pairs.json", "target.json", "sim.json", "vm.json", "report/validation.json",
            "comparison/comparison.csv", "comparison/comparison.json"} <= set(first)
    differ = [name for name in first if first[name] != second[name]]
    assert differ == []


def test_timings_are_the_only_wall_clock_fields(two_runs):
    """`timings` where docs/json.md puts it; no plan file holds `seconds` at any depth."""
    first, _, _ = two_runs
    assert first["timing keys of plan slots+johnson"] == first["timing keys of plan target"] == b"plan"
    assert first["timing keys of validate"] == b"validation"
    assert first["timing keys of simulate"] == first["timing keys of compare"] == b""
    for name in ("sj.json", "pairs.json", "target.json"):
        data = json.loads(first[name])
        assert data["version"] == PLAN_VERSION == 7
        assert "seconds" not in data and "seconds" not in (data["ordering"] or {}), name
    assert "seconds" not in json.loads(first["--json of plan slots+johnson"])["plan"]
    assert "seconds" not in json.loads(first["report/validation.json"])["summary"]


def test_a_vm_plan_run_is_written_with_o(two_runs):
    """`simulate --plan VM_PLAN -o r.json` (an AttributeError before): the VM-level run's file,
    whose noise-free barrier makespan is the plan's prediction and whose summary is --json's."""
    first, _, folder = two_runs
    written = json.loads(first["vm.json"])
    assert first["vm.json"] == (folder / "vm.json").read_bytes()
    assert list(written) == sorted(["summary", "seed", "noise", "backfill", "vms", "extra_vms", "cluster", "jobs",
                                    "phases"])
    plan = json.loads(first["pairs.json"])
    assert [job["name"] for job in written["jobs"]] == plan["order"]
    assert [[job["name"], job["vms"], job["role"]] for job in written["jobs"]] == [e for p in plan["phases"] for e in p]
    assert written["summary"] == json.loads(first["--json of simulate vm plan"])["result"]
    assert written["summary"]["makespan"] == pytest.approx(plan["predicted_makespan"], rel=1e-12)
    assert written["summary"]["mode"] == "barrier" and written["noise"] == 0.0 and written["seed"] == 0


def _ordered_plan() -> Plan:
    """A slot plan with an ordering record: two jobs arriving apart (the release-time solve)."""
    workload = Workload([Job("a", 2, 1, 100, 10), Job("b", 2, 1, 10, 100, submit=5)])
    return make_plan(workload, Cluster(nodes=1, map_slots=2, reduce_slots=1), k=1)


def test_a_plan_file_holds_no_wall_time_and_an_old_one_still_loads(tmp_path):
    """A version 5 file (with `seconds` and `ordering.seconds`) loads: `seconds` kept in memory,
    the ordering's dropped; written back it is the current file of the same plan."""
    plan = _ordered_plan()
    assert plan.ordering is not None and plan.seconds >= 0
    plan.to_file(tmp_path / "new.json")
    new = json.loads((tmp_path / "new.json").read_text())
    assert "seconds" not in new and "seconds" not in new["ordering"]
    again = Plan.from_file(tmp_path / "new.json")
    assert again == plan and again.seconds == 0.0
    old = {**new, "version": 5, "seconds": 0.25, "ordering": {**new["ordering"], "seconds": 0.125}}
    del old["pipeline"]  # new in version 7
    (tmp_path / "old.json").write_text(json.dumps(old, indent=2))
    loaded = Plan.from_file(tmp_path / "old.json")
    assert loaded == plan and loaded.seconds == 0.25 and "seconds" not in loaded.ordering
    loaded.to_file(tmp_path / "rewritten.json")
    assert (tmp_path / "rewritten.json").read_bytes() == (tmp_path / "new.json").read_bytes()
    (tmp_path / "bad.json").write_text(json.dumps({**old, "seconds": -1}))
    with pytest.raises(ValueError, match="seconds: must be >= 0"):
        Plan.from_file(tmp_path / "bad.json")
    (tmp_path / "bad.json").write_text(json.dumps({**old, "ordering": {**old["ordering"], "seconds": "slow"}}))
    with pytest.raises(ValueError, match=r"ordering\.seconds: must be a number"):
        Plan.from_file(tmp_path / "bad.json")


def test_plans_differing_only_in_wall_time_are_equal_and_the_same_file(tmp_path):
    from dataclasses import replace

    plan = _ordered_plan()
    slower = replace(plan, seconds=plan.seconds + 100.0)
    assert slower == plan and "seconds" not in slower.summary()
    plan.to_file(tmp_path / "a.json")
    slower.to_file(tmp_path / "b.json")
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
