"""What the command prints for people and for scripts: tables at 80 columns, percentages as in the
reports, --version, the same options meaning the same on every command, impossible slot splits
refused."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from models import Cluster, Workload
from planner.cli.main import app
from planner.io.settings import simulation_settings
from planner.proof.formats import percent, shown_value
from planner.simulator import simulate

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
WORKLOAD, CLUSTER = EXAMPLES / "nightly.yaml", EXAMPLES / "cluster.yaml"
runner = CliRunner()


def invoke(*args: object, columns: int = 80):
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": str(columns)})


@pytest.fixture(scope="module")
def plan_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("plan") / "plan.json"
    assert invoke("plan", WORKLOAD, "-c", CLUSTER, "-o", path).exit_code == 0
    return path


TABLES = {
    "plan": ["plan", WORKLOAD, "-c", CLUSTER],
    "plan pairs": ["plan", WORKLOAD, "-c", CLUSTER, "--strategy", "pairs"],
    "simulate": ["simulate", WORKLOAD, "-c", CLUSTER, "-s", "fair"],
    "compare": ["compare", WORKLOAD, "-c", CLUSTER, "-s", "fifo", "-s", "fair", "-s", "fresh", "--slots", "40,40",
                "--executor", "serial"],
    "sweep": ["sweep", WORKLOAD, "-c", CLUSTER, "-s", "fifo", "--runs", "2", "--executor", "serial"],
    "fit": ["fit", EXAMPLES / "runtimes.csv"],
    "import": ["import", "swim", Path(__file__).parent / "data" / "FB-2009_samples_24_times_1hr_0_first50jobs.tsv"],
}


@pytest.mark.parametrize("name", sorted(TABLES))
def test_tables_fit_80_columns_with_whole_headers(name):
    """No line is wider than 80 characters and no header word is broken across lines (headers
    break at underscores only, so ``mean_response`` reads as ``mean`` over ``response``)."""
    result = invoke(*TABLES[name])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines and max(len(line) for line in lines) <= 80
    words = set(result.stdout.split())
    if name == "compare":  # three rows: a table of columns
        assert {"configuration", "makespan", "mean", "response", "utilization", "local"} <= words
    elif name != "fit":  # one wide record: field and value
        assert {"field", "value"} <= words


def test_validate_table_fits_80_columns_and_shows_percentages_as_the_report(plan_file, tmp_path):
    """The plan's error and gain read the same in the terminal and in report.md: signed percentages
    with one decimal (the JSON keeps the fractions)."""
    folder = tmp_path / "report"
    args = ("validate", WORKLOAD, "-c", CLUSTER, "-p", plan_file, "--runs", 3, "--executor", "serial")
    shown = invoke(*args, "-o", folder)
    assert shown.exit_code == 0, shown.output
    assert max(len(line) for line in shown.stdout.splitlines()) <= 80
    data = json.loads(invoke(*args, "--json").stdout)
    error, gain = data["validation"]["error"], data["validation"]["gain"]
    assert -1 < error < 1 and isinstance(gain, float)
    assert re.search(rf"\berror\s+{re.escape(percent(error))}", shown.stdout)
    assert re.search(rf"\bgain\s+{re.escape(percent(gain))}", shown.stdout)
    report = (folder / "report.md").read_text()
    assert percent(error) in report
    first = data["setups"][0]
    assert percent(first["error"]) in shown.stdout and percent(first["node_local"], signed=False) in shown.stdout


@pytest.mark.parametrize(("key", "value", "text"), [
    ("error", 0.0412, "+4.1%"), ("error", -0.2, "-20.0%"), ("gain", 0.161, "+16.1%"),
    ("predicted_gain", -0.05, "-5.0%"), ("gap", 0.0005, "0.1%"), ("node_local", 0.913, "91.3%"),
    ("utilization", 1.0, "100.0%"), ("noise", 0.3, "30.0%"), ("fairness", 0.90271, "0.903"),
    ("makespan", 895.7, "895.7"), ("makespan", 1152.4, "1,152"), ("jobs", 40, "40"), ("error", None, "-"),
    ("plan_wins", True, "True"),
])
def test_values_read_the_same_everywhere(key, value, text):
    assert shown_value(key, value) == text


def test_version():
    from importlib.metadata import version

    result = invoke("--version")
    assert result.exit_code == 0 and result.stdout.strip() == f"planner (batchplan) {version('batchplan')}"


@pytest.mark.parametrize("command", ["simulate", "compare", "sweep"])
def test_more_slots_than_the_cluster_has_are_refused(command, tmp_path):
    """examples/cluster.yaml has 80 slots (20 nodes x 4): --slots 100,100 asks for 200."""
    result = invoke(command, WORKLOAD, "-c", CLUSTER, "--slots", "100,100")
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: --slots: 100 + 100 = 200 slots; the cluster has 80 (20 nodes x 4)"
    assert invoke(command, WORKLOAD, "-c", CLUSTER, "--slots", "40,40", "--json").exit_code == 0


def test_the_workload_is_positional_on_every_command_that_reads_one():
    for command in ("plan", "simulate", "validate", "compare", "sweep"):
        usage = invoke(command, "--help").stdout
        assert re.search(rf"Usage: \S+ {command} \[OPTIONS\] \{{?WORKLOAD\b", usage), command


@pytest.mark.parametrize("command", ["compare", "sweep"])
@pytest.mark.parametrize("options", [
    ["--delay", "15,15"], ["--slowstart", "0.5"], ["--task-time-cv", "0.3"], ["--heartbeat", "0"],
    ["--containers"],
])
def test_compare_and_sweep_take_the_simulation_options_of_simulate(command, options):
    """One fair run through compare or sweep with a simulation option gives simulate's numbers."""
    shown = invoke(command, WORKLOAD, "-c", CLUSTER, "-s", "fair", "--runs", 1, "--executor", "serial", *options,
                   "--json")
    assert shown.exit_code == 0, shown.output
    (row,) = json.loads(shown.stdout)["configurations"]
    alone = invoke("simulate", WORKLOAD, "-c", CLUSTER, "-s", "fair", *options, "--json")
    expected = json.loads(alone.stdout)["result"]
    assert (row["makespan"], row["mean_response"], row["node_local"]) == (
        expected["makespan"], expected["mean_response"], expected["node_local"])


def test_compare_config_file_is_simulates(tmp_path):
    """--config on compare means what it means on simulate: the settings of a scheduler named alone
    (and, with no --scheduler, the file's scheduler)."""
    settings = tmp_path / "pools.yaml"
    settings.write_text("scheduler: fair\npools:\n  - {name: production, weight: 3, min_map: 20}\n"
                        "delay: {node_wait: 10, rack_wait: 10}\n")
    compared = invoke("compare", WORKLOAD, "-c", CLUSTER, "--config", settings, "--executor", "serial", "--json")
    assert compared.exit_code == 0, compared.output
    (row,) = json.loads(compared.stdout)["configurations"]
    chosen, options = simulation_settings(settings)
    expected = simulate(Workload.from_file(WORKLOAD), Cluster.from_file(CLUSTER), chosen, options=options)
    assert row["configuration"] == "fair" and row["makespan"] == expected.makespan
    assert row["mean_response"] == expected.mean_response


@pytest.mark.parametrize(("args", "line"), [
    (["rumen", "wordcount.json", "--limit", "3"], "error: --limit: rumen traces take no such option"),
    (["sls", "inputsls.json", "--keep-failed"], "error: --keep-failed: sls traces take no such option"),
    (["sls", "inputsls.json", "--set", "map_rate=3"], "error: --set map_rate: sls traces take no such option"),
    (["swim", "FB-2009_samples_24_times_1hr_0_first50jobs.tsv", "--keep-failed"],
     "error: --keep-failed: swim traces take no such option"),
])
def test_import_refuses_options_its_format_does_not_take(args, line):
    """Once silently ignored; an option meant for another format is a mistake worth naming."""
    data = Path(__file__).parent / "data"
    result = invoke("import", args[0], data / args[1], *args[2:])
    assert result.exit_code == 2 and result.stderr.strip() == line
