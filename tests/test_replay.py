"""Replay of recorded runs (`planner.proof.replay`, `planner replay rumen`) and the attempt
records it reads (`planner.io.rumen_attempts`)."""

from __future__ import annotations

import json
import statistics
import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner

from models import Cluster, InvalidInput
from planner.cli.main import app, run
from planner.io.json_traces import TraceWarning, read_rumen
from planner.io.rumen_attempts import read_rumen_attempts
from planner.proof.replay import JOB_FIELDS, ReplayReport, ReplayWarning, trace_cluster, turnaround
from planner.proof.replay import replay as replay_jobs

DATA = Path(__file__).resolve().parent / "data"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "rumen"
runner = CliRunner()


def replay(path: Path, *args, **kwargs) -> ReplayReport:
    """`replay` of the trace file at ``path``."""
    return replay_jobs(read_rumen_attempts(path), *args, source=str(path), **kwargs)

T0 = 1_600_000_000_000  # epoch ms of the small trace's submission


def _attempt(host: str, start: float, finish: float, **extra) -> dict:
    return {"hostName": host, "startTime": T0 + int(start * 1000), "finishTime": T0 + int(finish * 1000),
            "result": "SUCCESS", "shuffleFinished": -1, "sortFinished": -1, "hdfsBytesRead": 100, **extra}


def small_trace(path: Path, *, extra_jobs: list[dict] | None = None) -> Path:
    """One job on two hosts in two racks (times in s after its submission at 0):

    ====  =======  =====  ======  ====================
    task  host     start  finish  replayed time
    ====  =======  =====  ======  ====================
    m0    r1/h1    2      12      10
    m1    r1/h1    2      7       5
    m2    r2/h2    2      10      8
    m3    r1/h1    8      14      6 (in m1's slot, 1 s after it freed)
    r0    r2/h2    11     20      20 - max(11, 14) = 6 (shuffle done 15, sort 16)
    ====  =======  =====  ======  ====================

    Ready at 2 (startup 2 s); recorded runtime 20 - 2 = 18 s. Cluster: 2 nodes, 2 racks; h1 ran
    2 maps at once, h2 1 map and 1 reduce; the whole cluster 3 maps at once: 3 map slots, 1
    reduce slot (node 0 gets 2 map slots and the reduce slot, node 1 one map slot). The trace
    names no heartbeat: 3 s; slowstart 0.05 (one map done opens the reduce). Turnaround: 1 s.

    Heartbeat 0: m0, m1, m2 start at 0 (the job's ready time); m1 ends at 5, m3 runs 5-11 and
    the reducer launches at 5; it computes 6 s from the last map (11): simulated 17 s, error
    17 / 18 - 1 = -5.6%.

    Heartbeat 3 (node 0 ticks at 0, 3, 6, ...; node 1 at 1.5, 4.5, ...): m0 and m1 start at 0,
    m2 at 1.5 (ends 9.5); m1 frees its slot at 5 and node 0's tick at 6 launches m3 (ends 12)
    and the reducer, which computes from 12 to 18: simulated 18 s, error 0.
    """
    job = {
        "jobID": "job_1", "outcome": "SUCCESS", "queue": "default", "priority": "NORMAL", "submitTime": T0,
        "mapTasks": [
            {"taskID": "m0", "attempts": [_attempt("/r1/h1", 2, 12)]},
            {"taskID": "m1", "attempts": [_attempt("/r1/h1", 2, 7), {**_attempt("/r2/h2", 1, 3), "result": "FAILED"}]},
            {"taskID": "m2", "attempts": [_attempt("/r2/h2", 2, 10)]},
            {"taskID": "m3", "attempts": [_attempt("/r1/h1", 8, 14)]},
        ],
        "reduceTasks": [{"taskID": "r0", "attempts": [_attempt(
            "/r2/h2", 11, 20, shuffleFinished=T0 + 15_000, sortFinished=T0 + 16_000, reduceShuffleBytes=4096,
            hdfsBytesRead=-1)]}],
    }
    path.write_text("\n".join(json.dumps(j) for j in [job, *(extra_jobs or [])]))
    return path


def test_attempt_records_of_the_small_trace(tmp_path):
    (job,) = read_rumen_attempts(small_trace(tmp_path / "t.json"))
    assert (job.name, job.submit, job.pool, job.priority) == ("job_1", 0.0, "default", 0)
    assert len(job.of_kind("map")) == 4  # the failed attempt of m1 is left out
    (reduce,) = job.of_kind("reduce")
    assert (reduce.host, reduce.rack, reduce.start, reduce.finish) == ("h2", "r2", 11.0, 20.0)
    assert (reduce.shuffle_finish, reduce.sort_finish, reduce.shuffle_bytes) == (15.0, 16.0, 4096)
    assert reduce.hdfs_bytes_read is None and reduce.seconds == 9.0
    first = job.of_kind("map")[0].record()
    assert first["job"] == "job_1" and first["kind"] == "map" and first["task"] == 0
    assert first["shuffle_finish"] is None and first["hdfs_bytes_read"] == 100


def test_attempt_records_of_wordcount():
    (job,) = read_rumen_attempts(DATA / "wordcount.json")
    maps, (reduce,) = job.of_kind("map"), job.of_kind("reduce")
    assert [a.host for a in job.attempts] == ["foo.example.com"] * 4 and {a.rack for a in job.attempts} == {
        "default-rack"}
    assert [a.hdfs_bytes_read for a in maps] == [704270, 577214, 163907]
    # relative to submitTime 1285322645148
    assert reduce.start == pytest.approx(15.659) and reduce.shuffle_finish == pytest.approx(22.814)
    assert reduce.sort_finish == pytest.approx(22.998) and reduce.finish == pytest.approx(25.611)
    # the same successful attempts read_rumen averages
    assert statistics.mean(a.seconds for a in maps) == pytest.approx(read_rumen(DATA / "wordcount.json")[0].map_time)


@pytest.mark.parametrize(("heartbeat", "simulated"), [(0.0, 17.0), (None, 18.0)])
def test_the_small_trace_replays_as_worked_by_hand(tmp_path, heartbeat, simulated):
    report = replay(small_trace(tmp_path / "t.json"), heartbeat=heartbeat)
    (job,) = report.jobs
    # m3 queued from 2 (ready) and a map slot was free from 7 (m1's end) to its start at 8: 1 s of
    # unexplained wait, within a 3 s heartbeat (0 then); the reduce's replayed time starts at the last
    # map's end (14) and it started before: no wait. Adjusted error (heartbeat 0): 17 / (18 - 1) - 1 = 0.
    waited = 1.0 if heartbeat == 0 else 0.0
    assert job == {"job": "job_1", "maps": 4, "reduces": 1, "submit": 0.0, "startup": 2.0, "startup_busy": 0.0,
                   "startup_unexplained": 2.0, "unexplained_wait": pytest.approx(waited), "recorded": 18.0,
                   "simulated": pytest.approx(simulated), "error": pytest.approx(simulated / 18 - 1),
                   "adjusted_error": pytest.approx(simulated / (18 - waited) - 1),
                   "note": "1.0 s (6% of its runtime) waiting with recorded slots free" if waited else ""}
    assert report.cluster == {"nodes": 2, "racks": 2, "map_slots": 3, "reduce_slots": 1,
                              "heartbeat": 3.0 if heartbeat is None else 0.0, "slowstart": 0.05,
                              "turnaround": pytest.approx(1.0)}
    assert report.median_error == pytest.approx(abs(simulated / 18 - 1))


def test_trace_cluster_and_turnaround(tmp_path):
    jobs = read_rumen_attempts(small_trace(tmp_path / "t.json"))
    cluster, slots = trace_cluster(jobs)
    assert (cluster.nodes, cluster.racks, cluster.map_slots, cluster.reduce_slots, cluster.heartbeat) == (
        2, 2, 2, 1, 3.0)
    assert slots == (3, 1) and turnaround(jobs) == pytest.approx(1.0)


def test_skipped_jobs_warn(tmp_path):
    failed = {"jobID": "job_2", "outcome": "FAILED", "submitTime": T0 + 1, "mapTasks": 3}
    no_maps = {"jobID": "job_3", "outcome": "SUCCESS", "submitTime": T0 + 2,
               "mapTasks": [{"attempts": [{**_attempt("/r1/h1", 3, 4), "result": "KILLED"}]}]}
    path = small_trace(tmp_path / "t.json", extra_jobs=[failed, no_maps])
    with pytest.warns((TraceWarning, ReplayWarning)) as caught:
        report = replay(path, heartbeat=0)
    assert [j["job"] for j in report.jobs] == ["job_1"]
    assert any("job_2: outcome 'FAILED', skipped" in str(w.message) for w in caught)
    assert any("job_3: no successful map attempts, skipped" in str(w.message) for w in caught)


def test_a_given_cluster_is_used(tmp_path):
    report = replay(small_trace(tmp_path / "t.json"), Cluster(nodes=1, map_slots=1, reduce_slots=1, heartbeat=0))
    # one map slot: 10 + 5 + 8 + 6 = 29 s of maps in a row, then the reduce's 6 s
    assert report.jobs[0]["simulated"] == pytest.approx(35.0)
    assert report.cluster["map_slots"] == 1 and report.cluster["heartbeat"] == 0


# What the real traces give (issue 16's goal: a median absolute error of at most 5%, SimMR's published
# accuracy). Measured: wordcount -2.3% (one job); 2jobs2min -2.5% and -2.7% (median 2.6%).
# All three are optimistic: the slot turnaround the trace records (2.9 s on the MRv1 wordcount run,
# 1.6 s on the YARN TeraGen runs) is longer than a heartbeat alone makes it.
MEASURED = {"wordcount.json": [-0.0227], "2jobs2min-rumen-jh.json": [-0.0245, -0.0268]}
GOAL = 0.05


@pytest.mark.parametrize("name", sorted(MEASURED))
def test_the_real_traces_replay_within_the_goal(name):
    report = replay(DATA / name)
    assert [job["error"] for job in report.jobs] == pytest.approx(MEASURED[name], abs=5e-4)
    assert report.median_error <= GOAL and report.worst_error <= GOAL


def test_the_median_over_every_trace():
    errors = [abs(job["error"]) for name in MEASURED for job in replay(DATA / name).jobs]
    assert statistics.median(errors) == pytest.approx(0.0245, abs=5e-4)
    assert statistics.median(errors) <= GOAL


@pytest.mark.skipif(not SHARED.is_dir(), reason="no ../shared/data/rumen here")
def test_the_shared_traces_are_the_tested_ones():
    for path in SHARED.glob("*.json"):
        assert path.read_bytes() == (DATA / path.name).read_bytes()


def test_the_report_writes_csv_and_json(tmp_path):
    report = replay(DATA / "wordcount.json")
    paths = report.write(tmp_path / "out")
    lines = paths["csv"].read_text().splitlines()
    assert lines[0] == ("job,maps,reduces,submit,startup,startup_busy,startup_unexplained,unexplained_wait,"
                        "recorded,simulated,error,adjusted_error,note") and len(lines) == 2
    written = json.loads(paths["json"].read_text())
    assert list(written) == ["summary", "cluster", "jobs", "notes"] and written["jobs"] == report.jobs
    assert isinstance(report, ReplayReport) and report.errors()[1]["job"] == "job_201009241532_0001"


def test_library_errors(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"jobID": "j", "submitTime": 1, "outcome": "SUCCESS", "mapTasks": [{"attempts": '
                   '[{"result": "SUCCESS", "startTime": 5, "finishTime": 3}]}]}')
    with pytest.raises(InvalidInput, match=r"jobs\[0\] \(line 1\)\.mapTasks\[0\]\.attempts\[0\]\.finishTime"):
        replay(bad)
    with pytest.raises(InvalidInput, match="unknown scheduler 'lottery'"):
        replay(DATA / "wordcount.json", scheduler="lottery")
    with pytest.warns(ReplayWarning), pytest.raises(InvalidInput, match="no job with a successful map attempt"):
        replay(_only_killed(tmp_path))
    with pytest.raises(InvalidInput, match="trace: must be the recorded jobs"):
        replay_jobs(str(DATA / "wordcount.json"))


def _only_killed(tmp_path: Path) -> Path:
    path = tmp_path / "killed.json"
    path.write_text(json.dumps({"jobID": "j", "submitTime": T0, "outcome": "SUCCESS",
                                "mapTasks": [{"attempts": [{**_attempt("/r/h", 1, 2), "result": "KILLED"}]}]}))
    return path


# -- the command --------------------------------------------------------------------------------------


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def test_command_prints_the_table_and_the_errors():
    result = invoke("replay", "rumen", DATA / "2jobs2min-rumen-jh.json")
    assert result.exit_code == 0, result.output
    assert "1205" in result.output and "-2.5%" in result.output and "-2.7%" in result.output
    assert "median" in result.output and "worst" in result.output and "turnaround" in result.output


def test_command_json_and_output_folder(tmp_path):
    result = invoke("replay", "rumen", DATA / "wordcount.json", "-o", tmp_path / "out", "--json")
    assert result.exit_code == 0, result.output
    parsed = json.loads(result.stdout)
    assert list(parsed) == ["jobs", "errors", "unexplained", "cluster", "notes"]
    assert list(parsed["jobs"][0]) == list(JOB_FIELDS) == [
        "job", "maps", "reduces", "submit", "startup", "startup_busy", "startup_unexplained", "unexplained_wait",
        "recorded", "simulated", "error", "adjusted_error", "note"]
    assert [row["kind"] for row in parsed["errors"]] == ["median", "worst", "median_adjusted"]
    assert parsed["unexplained"] == []
    assert parsed["cluster"]["heartbeat"] == 3.0 and parsed["cluster"]["scheduler"] == "fifo"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["replay.csv", "replay.json"]


def test_command_takes_a_cluster_scheduler_and_heartbeat(tmp_path):
    cluster = tmp_path / "c.yaml"
    cluster.write_text("nodes: 1\nmap_slots: 2\nreduce_slots: 1\nheartbeat: 3\n")
    result = invoke("replay", "rumen", DATA / "wordcount.json", "--cluster", cluster, "-s", "fair", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["jobs"][0]["error"] == pytest.approx(-0.0227, abs=5e-4)
    result = invoke("replay", "rumen", DATA / "wordcount.json", "--heartbeat", "0", "--json")
    assert json.loads(result.stdout)["jobs"][0]["error"] == pytest.approx(16.48 / 19.393 - 1, abs=1e-4)


def test_command_bad_input_exits_2_with_one_line(tmp_path, capsys):
    malformed = tmp_path / "m.json"
    malformed.write_text('{"jobID": ')
    a_file = tmp_path / "file.txt"
    a_file.write_text("")
    wc = DATA / "wordcount.json"
    cases = [
        (["replay", "swim", wc], "error: TRACE: 'swim' is not one of 'rumen', 'sls', 'spark'"),
        (["replay", "rumen", tmp_path / "none.json"], "none.json"),
        (["replay", "rumen", malformed], "m.json: line 1: malformed JSON"),
        (["replay", "rumen", wc, "-s", "lottery"], "error: --scheduler: unknown scheduler 'lottery'"),
        (["replay", "rumen", wc, "--heartbeat", "-1"], "error: --heartbeat: must be >= 0"),
        (["replay", "rumen", wc, "--seed", "-1"], "error: --seed: must be >= 0"),
        (["replay", "rumen", wc, "-o", a_file], "error: " + str(a_file) + ": --output: is a file"),
        (["replay", "rumen", wc, "--cluster", tmp_path / "none.yaml"], "none.yaml"),
    ]
    for args, text in cases:
        assert run([str(a) for a in args]) == 2, args
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and text in lines[0], (args, lines)
        assert not a_file.read_text() and not (tmp_path / "out").exists()


def test_command_help_shows_an_example():
    result = invoke("replay", "--help")
    assert result.exit_code == 0 and "Example: planner replay rumen" in result.output


def test_warnings_print_after_a_successful_replay(tmp_path):
    path = small_trace(tmp_path / "t.json", extra_jobs=[{"jobID": "job_2", "outcome": "KILLED",
                                                         "submitTime": T0 + 1}])
    with warnings.catch_warnings():
        result = invoke("replay", "rumen", path, "--json")
    assert result.exit_code == 0
    assert "warning: TraceWarning:" in result.stderr and "job_2: outcome 'KILLED', skipped" in result.stderr
