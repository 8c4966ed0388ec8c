"""The `planner` command: import, fit and plan, tables and --json, exit status 2 on bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from models import Workload
from planner.cli.main import app

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, [str(a) for a in args])


def test_import_swim_writes_workload_and_prints_table(tmp_path, data_dir):
    out = tmp_path / "fb.yaml"
    result = invoke("import", "swim", data_dir / "FB-2009_samples_24_times_1hr_0_first50jobs.tsv", "-o", out)
    assert result.exit_code == 0, result.output
    assert "imported FB-2009" in result.output and "map_tasks" in result.output
    workload = Workload.from_file(out)
    assert len(workload) == 50 and workload["job0"].submit == 49.0


def test_import_swim_json_summary_with_settings(data_dir):
    result = invoke("import", "swim", data_dir / "FB-2009_samples_24_times_1hr_0_first50jobs.tsv",
                    "--limit", "5", "--set", "block_size=65536", "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)["workload"]
    assert summary["jobs"] == 5
    # job0's 740,773 B over 64 KiB blocks: ceil(11.30) = 12 maps, so at least 12 in total
    assert summary["map_tasks"] >= 12


def test_import_rumen_with_task_csv(tmp_path, data_dir):
    tasks = tmp_path / "tasks.csv"
    out = tmp_path / "wc.json"
    result = invoke("import", "rumen", data_dir / "wordcount.json", "-o", out, "--tasks-csv", tasks, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["workload"]["map_tasks"] == 3
    assert tasks.read_text().splitlines()[0] == "job,task,kind,status,host,start,end"
    # the task CSV feeds `planner fit` and gives the same means as the importer
    fitted = invoke("fit", tasks, "--json")
    assert fitted.exit_code == 0, fitted.output
    (row,) = json.loads(fitted.stdout)["profiles"]
    assert row["map_time"] == pytest.approx(Workload.from_file(out)[0].map_time)


def test_import_sls(data_dir):
    result = invoke("import", "sls", data_dir / "inputsls.json", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["workload"]["jobs"] == 2


def test_fit_runtimes_table_and_attach(tmp_path, data_dir):
    result = invoke("fit", data_dir / "sample-runtimes.csv")
    assert result.exit_code == 0, result.output
    assert "power-law profiles" in result.output and "sort" in result.output
    base = tmp_path / "base.yaml"
    base.write_text("jobs:\n  - {name: pi, map_tasks: 8, reduce_tasks: 1, map_time: 10, reduce_time: 20}\n"
                    "  - {name: sort, map_tasks: 8, map_time: 10}\n")
    out = tmp_path / "profiled.json"
    result = invoke("fit", data_dir / "sample-runtimes.csv", "--workload", base, "-o", out)
    assert result.exit_code == 0, result.output
    workload = Workload.from_file(out)
    assert workload["pi"].profile.a_ == pytest.approx(1200.0) and workload["pi"].map_tasks == 8


def test_fit_forced_kind_mismatch_is_bad_input(data_dir):
    result = invoke("fit", data_dir / "sample-runtimes.csv", "--kind", "tasks")
    assert result.exit_code == 2
    assert "header: expected columns job,kind,start,end" in result.stderr


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["import", "swim", "{tmp}/bad.tsv"], "bad.tsv: line 2.submit: must be a number, got 'soon'"),
        (["import", "swim", "{tmp}/missing.tsv"], "missing.tsv"),
        (["import", "swim", "{data}/FB-2009_samples_24_times_1hr_0_first50jobs.tsv", "-o", "{tmp}/w.txt"],
         "w.txt: --output"),
        (["import", "swim", "{data}/FB-2009_samples_24_times_1hr_0_first50jobs.tsv", "--set", "speed=3"],
         "--set: expected NAME=VALUE"),
        (["fit", "{tmp}/bad.csv"], "bad.csv: line 3.runtime: must be > 0, got -1"),
        (["fit", "{data}/sample-runtimes.csv", "--workload", "{tmp}/bad.yaml"], "bad.yaml: jobs[0].map_time"),
        (["fit", "{tmp}/plain.yaml", "--wave"], "--cluster: --wave needs the cluster the jobs will run on"),
    ],
)
def test_bad_input_exits_2_with_one_line_and_no_traceback(tmp_path, data_dir, args, needle):
    (tmp_path / "bad.tsv").write_text("job0\t1\t1\t10\t10\t10\njob1\tsoon\t1\t1\t1\t1\n")
    (tmp_path / "bad.csv").write_text("job,nodes,runtime\npi,2,10\npi,4,-1\n")
    (tmp_path / "bad.yaml").write_text("jobs:\n  - {name: pi, map_tasks: 1, map_time: -3}\n")
    (tmp_path / "plain.yaml").write_text("jobs:\n  - {name: pi, map_tasks: 1, map_time: 3}\n")
    argv = [a.format(tmp=tmp_path, data=data_dir, examples=EXAMPLES) for a in args]
    completed = subprocess.run(
        [sys.executable, "-m", "planner", *argv], capture_output=True, text=True, timeout=120, check=False
    )
    assert completed.returncode == 2, completed.stderr
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1, completed.stderr
    assert lines[0].startswith("error: ") and needle in lines[0]
    assert "Traceback" not in completed.stderr and completed.stdout == ""


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--strategy", "pairs", "--solver", "pso"],
         "error: --solver: unknown pairs method 'pso'; choose from exhaustive, matching, milp"),
        (["--solver", "milp"], "error: --solver: applies to the pairs and packing strategies only, not 'slots+johnson'"),
        (["--strategy", "packing", "--time-limit", "-5"], "error: --time-limit: must be > 0, got -5.0"),
        (["--strategy", "packing", "--seed", "-1"], "error: --seed: must be >= 0, got -1"),
    ],
)
def test_plan_bad_options_exit_2_naming_the_option(args, line):
    result = invoke("plan", EXAMPLES / "nightly.yaml", "-c", EXAMPLES / "cluster.yaml", *args)
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [line]


def test_help_shows_examples():
    for command in ("import", "fit", "plan", "simulate", "compare", "validate", "sweep", "demo"):
        result = invoke(command, "--help")
        assert result.exit_code == 0 and "Example: planner" in result.output
