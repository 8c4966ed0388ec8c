"""`planner plan --robust`, validate, compare, sweep and demo: files, --json, exit statuses."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from models import Cluster, Workload
from planner.cli.main import app
from planner.plans.plan import Plan
from planner.simulator import simulate
from solvers import InfeasibleProblem

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
WORKLOAD, CLUSTER = EXAMPLES / "nightly.yaml", EXAMPLES / "cluster.yaml"
runner = CliRunner()


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def one_line_error(result, code: int = 2) -> str:
    assert result.exit_code == code, result.output
    (line,) = result.stderr.strip().splitlines()
    return line


@pytest.fixture(scope="module")
def plan_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("plan") / "plan.json"
    result = invoke("plan", WORKLOAD, "-c", CLUSTER, "--robust", "--runs", 3, "--executor", "serial", "-o", path,
                    "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)["plan"]
    assert summary["selection"].startswith("robust: best simulated p90 of")
    return path


def test_robust_plan_file_records_the_choice(plan_file):
    plan = Plan.from_file(plan_file)
    assert plan.robust is not None and plan.robust["runs"] == 3
    assert plan.robust["p90"] == min(c["p90"] for c in plan.robust["candidates"])
    assert plan.matches(Workload.from_file(WORKLOAD), Cluster.from_file(CLUSTER))


def test_validate_writes_the_report_and_prints_the_summary(plan_file, tmp_path):
    folder = tmp_path / "report"
    result = invoke("validate", WORKLOAD, "-p", plan_file, "-c", CLUSTER, "--runs", 3, "--seed", 4, "-o", folder,
                    "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    summary = data["validation"]
    assert (summary["runs"], summary["seed"], summary["strategy"]) == (3, 4, Plan.from_file(plan_file).strategy)
    rows = data["setups"]
    assert [row["setup"].split(" (")[0] for row in rows] == ["plan", "plan as exported", "Fair 1:3",
                                                            "Fair 2:2", "Fair 3:1", "Fair on containers", "FRESH dynamic",
                                                            "FIFO, submission order"]
    assert summary["simulated_mean"] == rows[0]["mean"]
    for name in ("report.md", "report.html", "validation.json", "makespan_vs_map_slots.png", "gantt.png",
                 "fairness_over_time.png", "predicted_vs_simulated.png"):
        assert (folder / name).stat().st_size > 0, name
    saved = json.loads((folder / "validation.json").read_text())
    assert saved["summary"]["simulated_mean"] == summary["simulated_mean"]
    assert "data:image/png;base64," in (folder / "report.html").read_text()


@pytest.mark.parametrize("args, line", [
    (["--noise", "1.5"], "error: --noise: must be below 1 (a bias of -100% would stop a job), got 1.5"),
    (["--runs", "1"], "error: --runs: must be >= 2, got 1"),
    (["--executor", "cloud"], "error: --executor: must be local, serial or dask://HOST:PORT, got 'cloud'"),
])
def test_validate_bad_options_exit_2_naming_the_option(plan_file, args, line):
    assert one_line_error(invoke("validate", WORKLOAD, "-p", plan_file, "-c", CLUSTER, *args)) == line


def test_validate_refuses_a_plan_made_for_another_workload(plan_file, tmp_path):
    other = tmp_path / "other.yaml"
    workload = Workload.from_file(WORKLOAD)
    Workload(list(workload)[:3], name="other").to_file(other)
    line = one_line_error(invoke("validate", other, "-p", plan_file, "-c", CLUSTER))
    assert line.startswith(f"error: {plan_file}: workload_fingerprint: the plan was made for another workload")


def test_a_missing_plan_file_is_bad_input(tmp_path):
    line = one_line_error(invoke("validate", WORKLOAD, "-p", tmp_path / "nope.json", "-c", CLUSTER))
    assert "nope.json" in line


def test_no_feasible_plan_exits_3(monkeypatch):
    def infeasible(*args, **kwargs):
        raise InfeasibleProblem("HiGHS: no solution within the time limit (maxTimeReached)")

    monkeypatch.setattr("planner.planning.make.make_plan", infeasible)  # the command imports it when it runs
    line = one_line_error(invoke("plan", WORKLOAD, "-c", CLUSTER), code=3)
    assert line == "error: no feasible plan: HiGHS: no solution within the time limit (maxTimeReached)"


def test_compare_runs_schedulers_side_by_side(tmp_path):
    """Each row is the mean of its seeds; FIFO's row equals `simulate` with the same seeds."""
    folder = tmp_path / "cmp"
    result = invoke("compare", WORKLOAD, "-c", CLUSTER, "-s", "fifo", "-s", "fair", "-s", "fresh", "--runs", 2,
                    "--seed", 3, "-o", folder, "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["configurations"]
    assert [row["configuration"] for row in rows] == ["fifo", "fair", "fresh"]
    workload, cluster = Workload.from_file(WORKLOAD), Cluster.from_file(CLUSTER)
    makespans = [simulate(workload, cluster, "fifo", seed=seed).makespan for seed in (3, 4)]
    assert rows[0]["makespan"] == pytest.approx(sum(makespans) / 2)
    assert (rows[0]["makespan_min"], rows[0]["makespan_max"]) == (min(makespans), max(makespans))
    assert (folder / "comparison.png").read_bytes().startswith(b"\x89PNG")
    assert len(json.loads((folder / "comparison.json").read_text())["runs"]) == 6
    with (folder / "comparison.csv").open() as stream:
        assert [row["configuration"] for row in csv.DictReader(stream)] == ["fifo", "fair", "fresh"]


def test_compare_names_a_bad_scheduler():
    line = one_line_error(invoke("compare", WORKLOAD, "-c", CLUSTER, "-s", "fifo", "-s", "lottery"))
    assert line.startswith("error: --scheduler: unknown scheduler 'lottery'")
    line = one_line_error(invoke("compare", WORKLOAD, "-c", CLUSTER, "-s", "fifo", "-s", "fifo"))
    assert line == "error: --scheduler: 'fifo' is given twice"


def test_sweep_grid_is_the_same_on_every_executor(tmp_path):
    """2 schedulers x 2 splits x 2 seeds = 8 runs, in grid order; serial and processes agree."""
    args = ["sweep", WORKLOAD, "-c", CLUSTER, "-s", "fifo", "-s", "fair", "--slots", "40,40", "--slots", "60,20",
            "--runs", 2]
    local, serial = tmp_path / "local.csv", tmp_path / "serial.csv"
    result = invoke(*args, "-o", local, "--json")
    assert result.exit_code == 0, result.output
    assert invoke(*args, "--executor", "serial", "-o", serial).exit_code == 0
    assert local.read_text() == serial.read_text()
    with local.open() as stream:
        runs = list(csv.DictReader(stream))
    assert [(r["configuration"], r["slots"], r["seed"]) for r in runs] == [
        (s, split, str(seed)) for s in ("fifo", "fair") for split in ("40:40", "60:20") for seed in (0, 1)]
    assert [(r["configuration"], r["slots"], r["runs"]) for r in json.loads(result.stdout)["configurations"]] == [
        ("fifo", "40:40", 2), ("fifo", "60:20", 2), ("fair", "40:40", 2), ("fair", "60:20", 2)]
    line = one_line_error(invoke(*args, "-o", tmp_path / "runs.txt"))
    assert line == f"error: {tmp_path / 'runs.txt'}: --output: sweep results are written as .csv or .json"
    line = one_line_error(invoke("sweep", WORKLOAD, "-c", CLUSTER, "--slots", "40"))
    assert line.startswith("error: --slots: must be two integers separated by a comma")


def test_demo_plans_validates_and_writes_the_report(tmp_path):
    folder = tmp_path / "out"
    result = invoke("demo", "-o", folder, "--runs", 3, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    batch = data["batch"]
    assert batch["jobs"] == 40
    # README: on containers shortest work first takes the mean response well below Fair's; on
    # Hadoop 1 Johnson's order shortens the makespan; each printed against the bound
    yarn, mrv1 = data["plan_yarn_fair"], data["plan_mrv1"]
    assert yarn["recommendation"].startswith("apply: shortest work first") and yarn["objective"] == "mean_response"
    assert mrv1["recommendation"].startswith("apply: Johnson order") and mrv1["objective"] == "makespan"
    for plan in (yarn, mrv1):
        assert plan["simulated_makespan"] >= plan["makespan_bound"] > 0
    summary = data["validation"]
    assert summary["runs"] == 3 and summary["best_baseline"] and summary["seed"] == 1
    assert summary["plan_wins"]
    assert [row["setup"] for row in data["setups"]] == [f"plan ({yarn['recommendation'][len('apply: '):]})",
                                                         "as configured", "FIFO on yarn-fair", "Fair on yarn-fair"]
    assert (folder / "report.html").stat().st_size > 50_000
    assert {Path(row["file"]).name for row in data["report"]} >= {"report.html", "report.md", "gantt.png"}


def test_the_bundled_nightly_batch_is_what_notice_and_readme_say(data_dir):
    """The first 40 jobs of the FB-2009 day converting to >= 10 maps and >= 1 reduce; 5,996 maps,
    1,496 reduces, about 183,000 map and 167,000 reduce slot-seconds."""
    from planner.examples.demo import nightly_batch
    from planner.io.summary import workload_summary
    from planner.io.swim import read_swim

    day = read_swim(data_dir / "FB-2009_samples_24_times_1hr_0.tsv")
    chosen = [job for job in day if job.map_tasks >= 10 and job.reduce_tasks >= 1][:40]
    batch = nightly_batch()
    assert batch.to_records() == Workload(chosen).to_records()
    summary = workload_summary(batch)
    assert (summary["map_tasks"], summary["reduce_tasks"]) == (5996, 1496)
    assert round(summary["map_work"], -3) == 183_000 and round(summary["reduce_work"], -3) == 167_000


def test_outputs_that_cannot_be_written_are_bad_input_before_the_work(plan_file, tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("not a folder")
    for args in (["validate", WORKLOAD, "-p", plan_file, "-c", CLUSTER], ["demo"],
                 ["compare", WORKLOAD, "-c", CLUSTER]):
        line = one_line_error(invoke(*args, "-o", afile))
        assert line == f"error: {afile}: --output: is a file; give a folder to write into"
    line = one_line_error(invoke("sweep", WORKLOAD, "-c", CLUSTER, "--runs", 1, "-o", afile / "runs.csv"))
    assert line.startswith(f"error: {afile / 'runs.csv'}: (output): cannot write here:")


def test_a_dask_address_without_a_port_is_bad_input(plan_file):
    line = one_line_error(invoke("validate", WORKLOAD, "-p", plan_file, "-c", CLUSTER, "--executor", "dask://localhost"))
    assert line.startswith("error: --executor: cannot reach the Dask scheduler at dask://localhost")


def test_robust_only_options_need_robust():
    line = one_line_error(invoke("plan", WORKLOAD, "-c", CLUSTER, "--noise", 0.1))
    assert line == "error: --noise: applies with --robust or --target only"
    line = one_line_error(invoke("plan", WORKLOAD, "-c", CLUSTER, "--robust", "--executor", "cloud"))
    assert line == "error: --executor: must be local, serial or dask://HOST:PORT, got 'cloud'"


def test_compare_errors_about_the_workload_name_its_file(tmp_path):
    """Capacity needs a queue per pool; the example's jobs use pools production and research."""
    line = one_line_error(invoke("compare", WORKLOAD, "-c", CLUSTER, "-s", "capacity"))
    assert line.startswith(f"error: {WORKLOAD}: jobs[0].pool: ")


def test_an_order_naming_unknown_jobs_is_refused(tmp_path):
    settings = tmp_path / "fifo.yaml"
    settings.write_text("scheduler: fifo\norder: [bogus, etl-clicks]\n")
    line = one_line_error(invoke("simulate", WORKLOAD, "-c", CLUSTER, "--config", settings))
    assert line.endswith("order[0]: 'bogus' is not a job of the workload")


def test_robust_tries_both_models_so_model_is_refused_with_it():
    line = one_line_error(invoke("plan", WORKLOAD, "-c", CLUSTER, "--robust", "--model", "capped"))
    assert line == "error: --model: --robust considers both fluid models; leave --model out"


def test_comparison_write_is_what_compare_o_writes(tmp_path):
    """The library writes the same three files as `planner compare -o`."""
    from planner.proof.compare import compare

    workload, cluster = Workload.from_file(WORKLOAD), Cluster.from_file(CLUSTER)
    paths = compare(workload, cluster, ["fifo", "fair"], executor="serial").write(tmp_path / "lib")
    assert invoke("compare", WORKLOAD, "-c", CLUSTER, "-s", "fifo", "-s", "fair", "--executor", "serial",
                  "-o", tmp_path / "cli").exit_code == 0
    for path in paths.values():
        assert path.read_bytes() == (tmp_path / "cli" / path.name).read_bytes()
