"""Attempts in columns, records on demand, result files written a chunk at a time, progress.

The simulation logs nine numbers per ended attempt into typed columns and reports progress every
``progress_every`` attempts (`planner.simulator.attempt_log`); the records, the summary and the
result file are built from the columns.
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from models import Cluster, Job
from models.errors import InvalidInput
from planner.cli.console import progress_shown
from planner.cli.main import app
from planner.examples.workloads import set_a_batch
from planner.io.results import write_result_json
from planner.simulator import Fair, Natjam, Progress, SimOptions, simulate
from planner.simulator.attempt_log import COLUMNS, AttemptLog

ROOT = Path(__file__).resolve().parent.parent
NIGHTLY = ROOT / "examples" / "nightly.yaml"
CLUSTER = ROOT / "examples" / "cluster.yaml"


@pytest.fixture(scope="module")
def natjam_run():
    """Natjam with suspensions: attempts of every fate and both kinds."""
    jobs = [Job(f"j{i}", 12, 3, 40.0 + i, 60.0, submit=30.0 * i, priority=1 if i % 3 == 0 else 0) for i in range(12)]
    return jobs, Cluster(nodes=4, map_slots=2, reduce_slots=2)


def _natjam(natjam_run, **extra):
    jobs, cluster = natjam_run
    return simulate(jobs, cluster, Natjam(), options=SimOptions(containers=True, task_time_cv=0.3), **extra)


def test_columns_are_typed_and_match_the_attempts(natjam_run):
    result = _natjam(natjam_run)
    columns = result.columns()
    assert [name for name, _ in COLUMNS] == list(columns)
    assert all(columns[name].dtype == dtype for name, dtype in COLUMNS)
    assert {int(fate) for fate in columns["fate"]} == {0, 2}  # done and suspended attempts
    assert [tuple(row) for row in zip(*(columns[name].tolist() for name in columns), strict=True)] == [
        tuple(attempt) for attempt in result.attempts]
    # Python numbers, as the simulation logged them: ints for codes and counts, floats for times.
    first = result.attempts[0]
    assert type(first.job) is int and type(first.start) is float
    assert result.attempt_count == len(result.attempts) == result.summary()["attempts"]


def test_the_chunk_size_changes_nothing_but_the_progress_reports(natjam_run):
    """Reports every 7 attempts (so dozens of them) and at the default (none here): the same
    attempts, records, summary and file text."""
    whole = _natjam(natjam_run)
    reports: list[Progress] = []
    chunked = _natjam(natjam_run, progress=reports.append, progress_every=7)
    assert chunked.attempts == whole.attempts
    assert chunked.tasks == whole.tasks
    assert chunked.summary() == whole.summary()
    assert chunked.to_json() == whole.to_json()
    assert len(reports) == whole.attempt_count // 7
    assert [report.now for report in reports] == sorted(report.now for report in reports)
    assert all(0 < report.share <= 1 and report.total == 12 * 15 for report in reports)


def test_progress_counts_completed_tasks_only():
    """One job of 10 maps of 5 s on 2 slots (no heartbeat), reports every 2 attempts: after the k-th report
    2k tasks are done at 5k s (maps end in pairs), 2k/10 of the tasks."""
    reports: list[Progress] = []
    simulate([Job("a", 10, 0, 5.0)], Cluster(nodes=1, map_slots=2, reduce_slots=1, heartbeat=0), "fifo",
             progress=reports.append, progress_every=2)
    assert [(report.now, report.done, report.share) for report in reports] == [
        (5.0 * k, 2 * k, 2 * k / 10) for k in range(1, 6)]
    assert reports[-1].eta == 0.0
    assert reports[-1].describe() == "t = 25 s, 100.0% of tasks done, ETA 0 s"


def test_progress_text_and_eta():
    """Half done after 90 s of wall time: 90 s to go."""
    report = Progress(now=43_210.4, done=50, total=100, elapsed=90.0)
    assert report.eta == 90.0
    assert report.describe() == "t = 43,210 s, 50.0% of tasks done, ETA 1 min 30 s"
    assert Progress(0.0, 0, 100, 1.0).describe().endswith("ETA unknown")
    assert Progress(0.0, 1, 1000, 10.0).describe().endswith("ETA 2 h 46 min")


def test_bad_progress_settings_are_refused(natjam_run):
    jobs, cluster = natjam_run
    with pytest.raises(InvalidInput, match="progress_every: must be >= 1"):
        simulate(jobs, cluster, "fifo", progress_every=0)
    with pytest.raises(InvalidInput, match="progress: must be a function"):
        simulate(jobs, cluster, "fifo", progress=3)


def test_the_log_pickles_as_its_columns(natjam_run):
    """Results travel to Dask workers and back: the log pickles as its columns."""
    result = _natjam(natjam_run, progress_every=5)
    again = pickle.loads(pickle.dumps(result.attempt_log))
    assert list(again.rows()) == list(result.attempt_log.rows())
    assert len(again) == result.attempt_count


def test_an_empty_log():
    log = AttemptLog()
    assert len(log) == 0 and list(log.rows()) == [] and len(log.start_order()) == 0
    assert all(len(column) == 0 for column in log.columns().values())


@pytest.mark.parametrize("chunk", [1, 3, 1000])
def test_the_result_file_is_written_in_chunks_with_the_same_bytes(tmp_path, natjam_run, chunk):
    result = _natjam(natjam_run)
    path = tmp_path / "result.json"
    write_result_json(path, result, chunk=chunk)
    assert path.read_text() == result.to_json()
    write_result_json(path, result, tasks=False, chunk=chunk)
    assert path.read_text() == result.to_json(tasks=False)
    assert "tasks" not in json.loads(path.read_text())
    assert not list(tmp_path.glob(".*.tmp"))  # written through a temporary file, renamed


def test_simulate_writes_the_file_or_only_its_summary(tmp_path):
    runner = CliRunner()
    whole, summary = tmp_path / "whole.json", tmp_path / "summary.json"
    args = ["simulate", str(NIGHTLY), "-c", str(CLUSTER), "-s", "fair", "--delay", "15,15"]
    assert runner.invoke(app, [*args, "-o", str(whole)]).exit_code == 0
    outcome = runner.invoke(app, [*args, "-o", str(summary), "--summary-only", "--json"])
    assert outcome.exit_code == 0, outcome.output
    expected = simulate(__import__("models").Workload.from_file(NIGHTLY),
                        __import__("models").Cluster.from_file(CLUSTER), Fair(delay=(15, 15)))
    assert whole.read_text() == expected.to_json()
    assert summary.read_text() == expected.to_json(tasks=False)
    assert json.loads(outcome.stdout)["result"] == json.loads(summary.read_text())["summary"]
    refused = runner.invoke(app, [*args, "--summary-only"])
    assert refused.exit_code == 2
    assert "--summary-only: applies to the result file; give -o/--output" in refused.output


def test_progress_lines_off_a_terminal(capsys):
    """Off a terminal (here: captured), a line per ``every`` seconds; every=0: each report."""
    result_reports = []
    with progress_shown("simulating day", every=0.0) as show:
        simulate(set_a_batch(5), Cluster(nodes=4), "fifo", progress=lambda p: (result_reports.append(p), show(p)),
                 progress_every=100)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == len(result_reports) > 2
    assert lines[0].startswith("simulating day: t = ") and "% of tasks done, ETA" in lines[0]
    with progress_shown("simulating day") as show:  # the default: nothing within the first minute
        show(result_reports[0])
    assert capsys.readouterr().err == ""


def test_finished_jobs_let_go_of_their_tasks():
    """A finished job keeps its counters, task times and block places (compact), not its
    locality indexes."""
    from planner.simulator.core import Simulation

    sim = Simulation(set_a_batch(3), Cluster(nodes=4), Fair())
    sim.run()
    for job in sim.jobs:
        assert job.finish is not None and job.maps_done == job.maps
        assert len(job.map_state) == 0 and len(job.on_node.tasks) == 0
        assert len(job.map_times) == job.maps and job.replicas.shape == (job.maps, 3)
        assert job.replicas.dtype == np.int16 and job.map_times.dtype == np.float64
    assert np.isfinite(sim.jobs[0].finish)


def test_the_columns_grow_past_their_capacity_and_say_when_a_chunk_is_full():
    """Room for 2 attempts, 5 logged, a report every 2: `add` says True at the 2nd and 4th; the
    columns hold all 5 with their types (locality -1 for a reduce, fate 2 for a suspension), and
    columns taken before the last add do not hide it."""
    log = AttemptLog(chunk=2, capacity=2)
    said = [log.add(job, job % 2, 10 + job, 3, 7, 1.5 * job, 2.5 * job, -1 if job % 2 else 1, 2 if job == 4 else 0)
            for job in range(4)]
    assert said == [False, True, False, True]
    assert len(log.columns()["job"]) == 4
    assert log.add(4, 0, 14, 3, 7, 6.0, 10.0, 0, 2) is False
    columns = log.columns()
    assert len(log) == 5 and columns["job"].tolist() == [0, 1, 2, 3, 4]
    assert columns["locality"].tolist() == [1, -1, 1, -1, 0] and columns["fate"].tolist() == [0, 0, 0, 0, 2]
    assert columns["end"].tolist() == [0.0, 2.5, 5.0, 7.5, 10.0]
    assert all(columns[name].dtype == dtype for name, dtype in COLUMNS)
    assert list(log.rows())[1] == (1, 1, 11, 3, 7, 1.5, 2.5, -1, 0)
