"""Natjam on the command line: `planner simulate --scheduler natjam` and a settings file naming
natjam and its settings give the library's results; a bad setting exits 2 naming the field.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from models import Cluster, Workload
from planner.cli.main import app
from planner.io.settings import simulation_settings
from planner.simulator import Natjam, simulate

runner = CliRunner()
WORKLOAD = """\
jobs:
  - {name: research, map_tasks: 8, reduce_tasks: 8, map_time: 20, reduce_time: 60}
  - {name: urgent, map_tasks: 4, reduce_tasks: 2, map_time: 5, reduce_time: 10, submit: 50,
     priority: production, deadline: 120}
"""
CLUSTER = "nodes: 2\nmap_slots: 2\nreduce_slots: 2\nheartbeat: 0\n"
SETTINGS = """\
scheduler: natjam
job_eviction: LR
task_eviction: LRT
mode: kill
min_run: 5
evict_maps: true
options: {reduce_slowstart: 0.5}
"""


@pytest.fixture
def files(tmp_path) -> dict[str, Path]:
    paths = {"workload": tmp_path / "batch.yaml", "cluster": tmp_path / "cluster.yaml",
             "settings": tmp_path / "natjam.yaml"}
    paths["workload"].write_text(WORKLOAD)
    paths["cluster"].write_text(CLUSTER)
    paths["settings"].write_text(SETTINGS)
    return paths


def test_cli_simulate_natjam_matches_the_library(files, tmp_path):
    """`planner simulate W --cluster C --scheduler natjam`: research fills the 8 containers; the
    production job arrives at 50 and suspends research reduces. The summary and the result file are
    the library's."""
    out = tmp_path / "result.json"
    result = runner.invoke(app, ["simulate", str(files["workload"]), "--cluster", str(files["cluster"]),
                                 "--scheduler", "natjam", "--json", "-o", str(out)])
    assert result.exit_code == 0, result.output
    row = json.loads(result.stdout)["result"]
    expected = simulate(Workload.from_file(files["workload"]), Cluster.from_file(files["cluster"]), "natjam")
    assert row == pytest.approx(expected.summary())
    assert row["suspensions"] > 0 and row["kills"] == 0 and row["deadline_misses"] == 0
    assert out.read_text() == expected.to_json()
    data = json.loads(out.read_text())
    assert data["options"]["containers"] is True
    assert {record["name"]: record["deadline"] for record in data["jobs"]} == {"research": None, "urgent": 120.0}


def test_cli_settings_file_with_natjam_settings(files):
    """A settings file names natjam and its settings (and options); the run is the library's with
    the same scheduler."""
    result = runner.invoke(app, ["simulate", str(files["workload"]), "--cluster", str(files["cluster"]),
                                 "--config", str(files["settings"]), "--json"])
    assert result.exit_code == 0, result.output
    row = json.loads(result.stdout)["result"]
    scheduler, options = simulation_settings(files["settings"])
    assert isinstance(scheduler, Natjam)
    assert (scheduler.job_eviction, scheduler.task_eviction, scheduler.mode, scheduler.min_run,
            scheduler.evict_maps) == ("LR", "LRT", "kill", 5.0, True)
    assert options.reduce_slowstart == 0.5
    expected = simulate(Workload.from_file(files["workload"]), Cluster.from_file(files["cluster"]),
                        Natjam(job_eviction="LR", task_eviction="LRT", mode="kill", min_run=5.0, evict_maps=True),
                        options=options)
    assert row == pytest.approx(expected.summary())
    assert row["kills"] > 0 and row["suspensions"] == 0 and row["wasted_work"] == row["killed_work"] > 0


@pytest.mark.parametrize(("setting", "field"), [("mode: pause", "mode"), ("evict_maps: maybe", "evict_maps")])
def test_cli_bad_natjam_setting_exits_2_naming_the_field(files, setting, field):
    files["settings"].write_text(f"scheduler: natjam\n{setting}\n")
    result = runner.invoke(app, ["simulate", str(files["workload"]), "--cluster", str(files["cluster"]),
                                 "--config", str(files["settings"])])
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: ") and f"natjam.yaml: {field}:" in line
