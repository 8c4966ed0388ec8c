"""Replay of SLS job files and Spark event logs (`planner.proof.replay`, `planner replay sls|spark`),
and what a replay reports that the trace does not explain (start-up, waits with free slots, clocks)."""

from __future__ import annotations

import json
import warnings
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from models import InvalidInput
from planner.cli.main import app, run
from planner.io.json_traces import TraceWarning
from planner.io.sls_jobs import read_sls_jobs
from planner.io.spark.records import SparkApplication, SparkExecutor, SparkJob, SparkStage, SparkTask
from planner.proof.replay import NOTED_WAIT, free_steps, longest_free_wait, replay

DATA = Path(__file__).resolve().parent / "data"
SLS = DATA / "inputsls.json"
SPARK = DATA / "spark-events"
runner = CliRunner()


def sls_replay(path: Path, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TraceWarning)
        return replay(read_sls_jobs(path), source=str(path), **kwargs)


def write_sls(path: Path, jobs: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(job) for job in jobs))
    return path


def sls_job(name: str, start_ms: int, containers: list[tuple[str, int, int]], queue: str = "q") -> dict:
    return {"job.id": name, "job.start.ms": start_ms, "job.queue.name": queue,
            "job.tasks": [{"container.host": f"/rack/{host}", "container.start.ms": start, "container.end.ms": end,
                           "container.type": "map"} for host, start, end in containers]}


# -- SLS ------------------------------------------------------------------------------------------


def test_sls_records():
    with pytest.warns(TraceWarning, match="not modelled by the replay, ignored: am.type, job.end.ms, "
                                          r"job.tasks\[\].container.execution.type, job.tasks\[\].container.priority, "
                                          "job.user"):
        first, second = read_sls_jobs(SLS)
    assert (first.name, first.submit, first.pool, first.outcome) == ("job_1", 0.0, "sls_queue_1", "SUCCESS")
    assert [(a.kind, a.task, a.host, a.rack, a.start, a.finish) for a in first.attempts] == [
        ("map", 0, "node1", "default-rack", 6.664, 23.707), ("map", 1, "node3", "default-rack", 6.665, 21.593),
        ("map", 2, "node2", "default-rack", 68.77, 86.613)]
    assert second.submit == pytest.approx(105.204) and second.pool == "sls_queue_2"


def test_the_shared_sls_file_replays_as_worked_by_hand():
    """SLS's own test file (tests/data/inputsls.json, two jobs of map containers on three nodes).

    Cluster: 3 nodes, one map slot each at their peak, 2 in all (the most the cluster ran at
    once); no heartbeat in the file: 3 s (node 0 ticks at 0, 3, ...; node 1 at 1, 4, ...).

    job_1: ready 6.664 (startup 6.664 s, nothing running: all unexplained); containers of
    17.043 s (node1), 14.928 s (node3) and 17.843 s (node2, started at 68.77); recorded 86.613 -
    6.664 = 79.949 s. The third waited at the head of the job's queue with a slot free from 21.593
    (node3's end) to 68.77 (at 6.664 the second, 1 ms later than the first, had the free slot):
    47.177 s, less a heartbeat: 44.177 s of unexplained wait. Simulated: 17.043 from 0, 14.928
    from 1 (ends 15.928), then 17.843 from node 1's tick at 16: 33.843 s; error 33.843 / 79.949 - 1
    = -57.7%; adjusted 33.843 / (79.949 - 44.177) - 1 = -5.4%.

    job_2: submitted 105.204, ready 111.788 (startup 6.584), containers 19.589 s and 22.163 s,
    recorded 22.197 s. Simulated from 105.124 (its ready less job_1's): node 1's tick at 106 runs
    the first (to 125.589), node 0's at 108 the second (to 130.163): 25.039 s, error +12.8%.
    Median error (57.7 + 12.8) / 2 = 35.2%; adjusted (5.4 + 12.8) / 2 = 9.1%.
    """
    report = sls_replay(SLS)
    assert report.cluster == {"nodes": 3, "racks": 1, "map_slots": 2, "reduce_slots": 0, "heartbeat": 3.0,
                              "slowstart": 0.05, "turnaround": None}
    first, second = report.jobs
    assert first["startup"] == pytest.approx(6.664) and first["startup_busy"] == 0.0
    assert first["startup_unexplained"] == pytest.approx(6.664)
    assert first["unexplained_wait"] == pytest.approx(44.177)
    assert first["recorded"] == pytest.approx(79.949) and first["simulated"] == pytest.approx(33.843)
    assert first["error"] == pytest.approx(33.843 / 79.949 - 1)
    assert first["adjusted_error"] == pytest.approx(33.843 / (79.949 - 44.177) - 1)
    assert first["note"] == "44.2 s (55% of its runtime) waiting with recorded slots free"
    assert second["startup"] == pytest.approx(6.584) and second["unexplained_wait"] == 0.0
    assert second["recorded"] == pytest.approx(22.197) and second["simulated"] == pytest.approx(25.039)
    assert second["note"] == "" and second["adjusted_error"] == second["error"]
    summary = report.summary()
    assert summary["median_error"] == pytest.approx(0.3524, abs=1e-4)
    assert summary["median_adjusted_error"] == pytest.approx(0.0910, abs=1e-4)
    assert summary["waiting_jobs"] == "job_1" and summary["clock_effects"] is None
    assert [row["job"] for row in report.unexplained()] == ["job_1"]


def test_the_recorded_queues_are_the_pools():
    report = sls_replay(SLS, scheduler="fair")
    assert report.scheduler == "fair" and len(report.jobs) == 2
    assert {job.pool for job in read_sls_jobs_quiet(SLS)} == {"sls_queue_1", "sls_queue_2"}


def read_sls_jobs_quiet(path: Path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TraceWarning)
        return read_sls_jobs(path)


def test_a_start_up_spent_waiting_for_the_traces_jobs_is_explained(tmp_path):
    """One host; job A holds both slots from 0 to 10 s (peak 2: 2 slots).

    - B, submitted at 2, starts at 10 (ends 15): its 8 s start-up had every slot busy: startup_busy 8,
      unexplained 0.
    - C, submitted at 2, starts at 12 (ends 14): busy from 2 to 10 (8 s); from 10 one slot is free
      (B holds the other): 2 s unexplained.
    """
    path = write_sls(tmp_path / "t.json", [
        sls_job("A", 0, [("h", 0, 10_000), ("h", 0, 10_000)]),
        sls_job("B", 2_000, [("h", 10_000, 15_000)]),
        sls_job("C", 2_000, [("h", 12_000, 14_000)]),
    ])
    jobs = {job["job"]: job for job in sls_replay(path).jobs}
    assert (jobs["B"]["startup"], jobs["B"]["startup_busy"], jobs["B"]["startup_unexplained"]) == (8.0, 8.0, 0.0)
    assert jobs["C"]["startup"] == 10.0 and jobs["C"]["startup_busy"] == 8.0
    assert jobs["C"]["startup_unexplained"] == 2.0
    assert jobs["C"]["note"] == "start-up 10.0 s, 8.0 s of it with every recorded slot busy"


def test_a_negative_start_up_is_a_clock_effect(tmp_path):
    """A container recorded 2 s before its job's submission: the hosts' clocks disagree. The
    start-up is -2 s, nothing of it is counted as busy or unexplained, and the note says so."""
    path = write_sls(tmp_path / "t.json", [sls_job("A", 0, [("h", 0, 4_000)]),
                                           sls_job("B", 5_000, [("h", 3_000, 6_000)])])
    report = sls_replay(path)
    b = report.jobs[1]
    assert b["startup"] == -2.0 and b["startup_busy"] == 0.0 and b["startup_unexplained"] == 0.0
    assert b["note"] == "clock effect: first task 2.0 s before its submission"
    assert report.summary()["clock_effects"] == "B"


def test_a_negative_rumen_start_up_is_a_clock_effect(tmp_path):
    """The issue's unseen Rumen trace had a start-up of -109 s: a job whose first attempt started
    109 s before its submitTime. Replayed from its first attempt as any job, and named."""
    from planner.io.rumen_attempts import read_rumen_attempts

    t0 = 1_250_000_000_000
    attempt = {"hostName": "/r/h", "startTime": t0 - 109_000, "finishTime": t0 - 99_000, "result": "SUCCESS"}
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"jobID": "job_1", "outcome": "SUCCESS", "submitTime": t0,
                                "mapTasks": [{"attempts": [attempt]}]}))
    report = replay(read_rumen_attempts(path), source=str(path))
    (job,) = report.jobs
    assert job["startup"] == -109.0 and job["recorded"] == 10.0
    assert job["note"] == "clock effect: first task 109.0 s before its submission"
    assert report.summary()["clock_effects"] == "job_1"


def test_the_rumen_traces_waits_and_adjusted_errors():
    """docs/proving-plans.md: errors unchanged, waits 0 s (MRv1, 3 s heartbeat) and 2.5 s / 2.2 s
    (TeraGen, 1 s heartbeat), adjusted errors -2.3%, +0.6%, -0.1%."""
    from planner.io.rumen_attempts import read_rumen_attempts

    found = [(job["error"], job["unexplained_wait"], job["adjusted_error"])
             for name in ("wordcount.json", "2jobs2min-rumen-jh.json")
             for job in replay(read_rumen_attempts(DATA / name)).jobs]
    assert found == [pytest.approx((-0.0227, 0.0, -0.0227), abs=5e-4),
                     pytest.approx((-0.0245, 2.451, 0.0056), abs=5e-4),
                     pytest.approx((-0.0268, 2.190, -0.0007), abs=5e-4)]


def test_waits_by_hand():
    """Two slots, busy [0, 4] and [0, 10]; the job's tasks: x eligible at 0, started 6; y eligible
    at 0, started 12. From 4 one slot is free, from 10 two: x (first in the start order) waits
    4-6 = 2 s; y is second in the queue until 6 (one free slot: not its), then first: 6-12 = 6 s.
    The longest, 6 s, less a 1 s heartbeat: 5 s."""
    steps = {"map": free_steps([(-float("inf"), 2)], [(0.0, 4.0), (0.0, 10.0)])}
    tasks = [("map", 0.0, 6.0), ("map", 0.0, 12.0)]
    assert longest_free_wait(tasks, steps, 0.0, 20.0, 1.0) == pytest.approx(5.0)
    assert longest_free_wait(tasks, steps, 0.0, 20.0, 0.0) == pytest.approx(6.0)
    assert longest_free_wait(tasks, steps, 0.0, 20.0, 7.0) == 0.0
    assert longest_free_wait([("reduce", 0.0, 6.0)], steps, 0.0, 20.0, 0.0) == 0.0  # no reduce slot recorded


def test_bad_sls_input_names_the_file_and_field(tmp_path):
    path = write_sls(tmp_path / "bad.json", [sls_job("A", 0, [("h", 5_000, 4_000)])])
    with pytest.raises(InvalidInput, match=r"bad.json: jobs\[0\] \(line 1\)\.job\.tasks\[0\]\.container\.end\.ms: "
                                           "is before container.start.ms"):
        read_sls_jobs(path)


# -- Spark ----------------------------------------------------------------------------------------


def spark_app(mode: str = "FIFO") -> SparkApplication:
    """One executor of 2 cores; two Spark jobs of a map stage and a result stage (times in s):

    ===  =====  =====  ======  ===============================================
    job  stage  kind   submit  tasks (launch-finish)
    ===  =====  =====  ======  ===============================================
    0    0      map    0.1     0.2-3.2, 0.2-1.2
    0    1      result 3.25    3.3-5.3
    1    2      map    1.05    1.2-2.2, 2.2-3.2
    1    3      result 3.22    3.3-4.3
    ===  =====  =====  ======  ===============================================

    Job 0 submitted at 0, first task at 0.2 with cores free all along: ready 0.2 (startup 0.2, the
    driver's, unexplained); recorded 5.3 - 0.2 = 5.1 s. Job 1 submitted at 1.0, first task at 1.2
    with both cores busy until then: the wait is the scheduler's, so ready is the submission, 1.0
    (startup 0.2, all of it busy, replayed); recorded 4.3 - 1.0 = 3.3 s.

    Replay (origin 0.2, heartbeat 0, FIFO by job id, each result stage a step that waits for its
    map stage's last task plus the recorded wait until Spark submitted it: job 0's 3.25 - 3.2 =
    0.05 s, job 1's 3.22 - 3.2 = 0.02 s): job 0's maps run 0-3 and 0-1; job 1 arrives at 0.8 and
    waits for the core job 0 frees at 1; its maps run 1-2 and 2-3; job 1's result is ready at 3.02
    and runs 3.02-4.02, job 0's at 3.05 and runs 3.05-5.05. Simulated: job 0 5.05 s (error
    5.05 / 5.1 - 1 = -1.0%), job 1 4.02 - 0.8 = 3.22 s (error 3.22 / 3.3 - 1 = -2.4%). Result tasks
    waited 0.05 s (job 0: stage submitted 3.25, launched 3.3, cores free) and 0.08 s (job 1):
    under `NOTED_WAIT`, not named.
    """

    def task(stage: int, index: int, kind: str, launch: float, finish: float, status: str = "success") -> SparkTask:
        return SparkTask(stage=stage, stage_attempt=0, task=stage * 10 + index, index=index, attempt=0,
                         kind=kind, executor="0", host="h", locality="PROCESS_LOCAL", launch=launch,
                         finish=finish, status=status, run_time=finish - launch)

    pool = {"FIFO": ("default", "default"), "FAIR": ("high", "low")}[mode]
    jobs = (SparkJob(0, 0.0, 5.35, "JobSucceeded", pool[0], (0, 1)),
            SparkJob(1, 1.0, 4.35, "JobSucceeded", pool[1], (2, 3)))
    stages = (SparkStage(0, 0, "map", 2, (), (0,), 0.1, 3.2, rdds=(1,)),
              SparkStage(1, 0, "result", 1, (0,), (0,), 3.25, 5.3, rdds=(2,)),
              SparkStage(2, 0, "map", 2, (), (1,), 1.05, 3.2, rdds=(3,)),
              SparkStage(3, 0, "result", 1, (2,), (1,), 3.22, 4.3, rdds=(4,)))
    tasks = (task(0, 0, "shuffle_map", 0.2, 3.2), task(0, 1, "shuffle_map", 0.2, 1.2),
             task(2, 0, "shuffle_map", 1.2, 2.2), task(2, 1, "shuffle_map", 2.2, 3.2),
             task(1, 0, "result", 3.3, 5.3), task(3, 0, "result", 3.3, 4.3))
    return SparkApplication("app-1", "by hand", "4.3.0", "by-hand.log", 0, 6.0,
                            {"spark.master": "spark://m:7077", "spark.scheduler.mode": mode}, mode,
                            (SparkExecutor("0", "h", 2, 0.0),), jobs, stages, tasks)


def test_a_spark_application_replays_as_worked_by_hand():
    report = replay(spark_app())
    assert report.scheduler == "fifo" and report.cluster["map_slots"] == 2 and report.cluster["heartbeat"] == 0.0
    job0, job1 = report.jobs
    assert (job0["job"], job0["maps"], job0["reduces"]) == ("job-0", 2, 1)
    assert job0["startup"] == pytest.approx(0.2) and job0["startup_busy"] == 0.0
    assert job0["recorded"] == pytest.approx(5.1) and job0["simulated"] == pytest.approx(5.05)
    assert job0["error"] == pytest.approx(5.05 / 5.1 - 1)
    assert job0["unexplained_wait"] == pytest.approx(0.05) and job0["note"] == ""
    assert job1["startup"] == pytest.approx(0.2) and job1["startup_busy"] == pytest.approx(0.2)
    assert job1["startup_unexplained"] == 0.0 and job1["note"] == ""
    assert job1["recorded"] == pytest.approx(3.3) and job1["simulated"] == pytest.approx(3.22)
    assert job1["unexplained_wait"] == pytest.approx(0.08) and NOTED_WAIT > 0.08
    assert job1["adjusted_error"] == job1["error"] == pytest.approx(3.22 / 3.3 - 1)
    assert report.summary()["waiting_jobs"] is None


def test_a_failed_attempt_counts_in_its_task_time():
    """Job 0's long map's first attempt failed after 0.5 s (0.2-0.7) and its retry ran 0.7-3.2
    (2.5 s): the task takes 3.0 s, as if it had run uninterrupted, and the replay is as before
    (5.05 s)."""
    app = spark_app()
    failed = SparkTask(stage=0, stage_attempt=0, task=99, index=0, attempt=0, kind="shuffle_map", executor="0",
                       host="h", locality="PROCESS_LOCAL", launch=0.2, finish=0.7, status="failed")
    retry = next(t for t in app.tasks if t.stage == 0 and t.index == 0)
    tasks = (*(t for t in app.tasks if t is not retry), failed, replace(retry, launch=0.7, attempt=1))
    report = replay(replace(app, tasks=tasks))
    assert report.jobs[0]["simulated"] == pytest.approx(5.05)
    assert report.notes == ("1 failed task attempt(s) replayed as part of their task's time (a retry runs after "
                            "its failure)",)


def test_a_fair_application_replays_under_fair_with_its_pools():
    report = replay(spark_app("FAIR"))
    assert report.scheduler == "fair" and len(report.jobs) == 2


SAMPLES = {  # the public samples: (jobs, median error, worst error), measured
    "app-20161115172038-0000": (1, 0.0377, 0.0377),
    "local-1642039451826": (6, 0.0137, 0.0370),
    "eventlog_v2_local-1766844910796": (1, 0.0, 0.0),
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_the_public_spark_samples_replay_within_ten_percent(name):
    from planner.io.spark.logs import read_spark_application

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = replay(read_spark_application(SPARK / name))
    jobs, median, worst = SAMPLES[name]
    assert len(report.jobs) == jobs
    assert report.median_error == pytest.approx(median, abs=5e-4) and report.worst_error == pytest.approx(worst,
                                                                                                          abs=5e-4)
    assert report.median_error <= 0.10


def test_the_samples_report_what_the_replay_leaves_out():
    from planner.io.spark.logs import read_spark_application

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        failed = replay(read_spark_application(SPARK / "app-20161115172038-0000"))
        skipped = replay(read_spark_application(SPARK / "local-1642039451826"))
    assert failed.notes == ("10 failed task attempt(s) replayed as part of their task's time (a retry runs after "
                            "its failure)",)
    assert skipped.notes == ("6 stage(s) skipped by Spark (their shuffle was written by an earlier job): not run",)


# -- the command ----------------------------------------------------------------------------------


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def test_command_replays_sls_and_spark_as_json(tmp_path):
    result = invoke("replay", "sls", SLS, "--json", "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    parsed = json.loads(result.stdout)
    assert list(parsed) == ["jobs", "errors", "unexplained", "cluster", "notes"]
    assert [row["job"] for row in parsed["unexplained"]] == ["job_1"]
    assert parsed["errors"][2] == {"kind": "median_adjusted", "job": None,
                                   "absolute_error": pytest.approx(0.0910, abs=1e-4)}
    written = json.loads((tmp_path / "out" / "replay.json").read_text())
    assert written["summary"]["waiting_jobs"] == "job_1"
    result = invoke("replay", "spark", SPARK / "local-1642039451826", "--json")
    assert result.exit_code == 0, result.output
    parsed = json.loads(result.stdout)
    assert len(parsed["jobs"]) == 6 and parsed["cluster"]["scheduler"] == "fifo"
    assert parsed["notes"] == [{"note": "6 stage(s) skipped by Spark (their shuffle was written by an earlier job): "
                                        "not run"}]


def test_command_prints_the_unexplained_waits():
    result = invoke("replay", "sls", SLS)
    assert result.exit_code == 0, result.output
    assert "waits the trace does not explain" in result.output and "44.2 s" in result.output
    assert "median_adjusted" in result.output and "9.1%" in result.output


def test_command_bad_input_exits_2_with_one_line(tmp_path, capsys):
    bad_sls = write_sls(tmp_path / "bad.json", [sls_job("A", 0, [("h", 5_000, 4_000)])])
    bad_log = tmp_path / "app-1"
    bad_log.write_text('{"Event": "SparkListenerLogStart", "Spark Version": "4.3.0"}\nnot json\n{"Event": "x"}\n')
    cases = [
        (["replay", "sls", bad_sls], "bad.json: jobs[0] (line 1).job.tasks[0].container.end.ms: is before"),
        (["replay", "sls", tmp_path / "none.json"], "none.json"),
        (["replay", "spark", bad_log], "app-1: line 2"),
        (["replay", "spark", tmp_path / "no-such-log"], "no-such-log"),
    ]
    for args, text in cases:
        assert run([str(a) for a in args]) == 2, args
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and text in lines[0], (args, lines)


def test_the_allocation_file_gives_a_spark_replay_its_pools(tmp_path, capsys):
    """The log names the allocation file but does not hold it: ``pools`` (``--spark-conf``) give the
    recorded pools their mode, weight and minShare; a pool the file does not list stays Spark's
    default, and a pool only the file lists is kept too. Rumen and SLS traces have no pools."""
    from planner.io.spark.conf import SparkPool
    from planner.proof.spark_replay import spark_recording

    given = [SparkPool("high", mode="FAIR", weight=3, min_share=1), SparkPool("spare", weight=2)]
    pools = spark_recording(spark_app("FAIR"), pools=given).scheduler.pools  # name -> Pool
    assert (pools["high"].weight, pools["high"].min_map, pools["high"].mode) == (3.0, 1, "fair")
    assert (pools["low"].weight, pools["low"].min_map) == (1.0, 0) and pools["spare"].weight == 2.0
    with pytest.raises(InvalidInput, match=r"^pools: .*Rumen or SLS"):
        replay(read_sls_jobs(DATA / "inputsls.json"), pools=given)
    xml = tmp_path / "fairscheduler.xml"
    xml.write_text('<?xml version="1.0"?><allocations><pool name="etl"><weight>2</weight></pool></allocations>')
    assert run(["replay", "sls", str(DATA / "inputsls.json"), "--spark-conf", str(xml)]) == 2
    assert capsys.readouterr().err.startswith("error: --spark-conf: ")
