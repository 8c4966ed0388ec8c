"""A real Spark engine (`planner.proof.spark_engine`): one local-cluster of 2 executors x 2 cores
started from the pip package runs a batch of five small jobs (two sorts and two word counts of
generated data, one sleep) under FAIR pools, with the submission script an export ships. Checked
on the event log Spark wrote: its lines are listener events, one JobStart per planned job with the
job's group, description and planned pool, the tasks of each job's two stages, the FAIR mode; on
the script's report: every job done, and the waits ("after" plus its delay) kept, in the report
and in Spark's own job times; the gate (a job of sleeping tasks on every core) ran between the
warm-up and the batch, and responses count from its end; and afterwards no scratch folder and no
process is left.

The engine part is skipped only when Java is missing (pyspark is in the test extra: without it the
test fails). The whole file takes about a minute here (start-up ~20 s, the batch ~15 s).
The rest (job checks, fairscheduler.xml, spark-defaults.conf, the Java check) runs without Spark.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from pathlib import Path

import pytest

from models import InvalidInput
from planner.io.spark.conf import read_spark_defaults
from planner.proof.spark_engine import (
    GATE_GROUP,
    WARMUP_GROUP,
    EngineJob,
    SparkEngineError,
    fair_scheduler_xml,
    java_problem,
    pyspark_problem,
    run_engine_batch,
    spark_available,
)

JAVA_PROBLEM = java_problem()
needs_java = pytest.mark.skipif(JAVA_PROBLEM is not None, reason=f"a real Spark engine needs Java: {JAVA_PROBLEM}")

JOBS = [
    EngineJob("extract", "sort", maps=4, reduces=2, records=20_000, seed=1),
    EngineJob("words", "wordcount", maps=4, reduces=2, records=40_000, seed=2),
    EngineJob("nap", "sleep", maps=2, reduces=1, seconds=0.3),
    EngineJob("load", "sort", maps=2, reduces=2, records=10_000, seed=3),
    EngineJob("summary", "wordcount", maps=2, reduces=1, records=10_000, seed=4),
]
ROWS = [
    {"job": "extract", "pool": "etl", "submit": 0.0, "after": []},
    {"job": "words", "pool": "adhoc", "submit": 0.0, "after": []},
    {"job": "nap", "pool": "adhoc", "submit": 0.2, "after": []},
    {"job": "load", "pool": "etl", "submit": 0.0, "after": [["extract", 0.5]]},
    {"job": "summary", "pool": "etl", "submit": 0.0, "after": [["words", 0.0], ["load", 0.0]]},
]
POOLS = {"etl": {"weight": 2, "minShare": 1, "schedulingMode": "FAIR"}, "adhoc": {"schedulingMode": "FIFO"}}


def _processes_naming(text: str) -> list[str]:
    """Command lines of the running processes that hold ``text``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                line = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if text in line:
                found.append(line)
    return found


@needs_java
def test_a_batch_on_a_real_engine(tmp_path_factory):
    """One real run (one test, so that parallel test workers never start two engines); its
    scratch folders under a folder of the test's own."""
    scratch = tmp_path_factory.mktemp("engine-scratch")
    logs = tmp_path_factory.mktemp("engine-logs")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tempfile, "tempdir", str(scratch))
        run = run_engine_batch(JOBS, ROWS, log_dir=logs, mode="FAIR", pools=POOLS, executors=2, cores=2,
                               memory_mb=512, timeout=240, warmup=True, warmup_seconds=0.5, gate_seconds=1.5)
    check_the_event_log_has_one_job_start_per_planned_job_in_its_pool(run)
    check_every_job_ran_and_the_waits_were_kept(run)
    check_the_gate_held_every_core_while_the_batch_was_submitted(run)
    check_nothing_is_left_running_or_on_disk(run, scratch)


def _events(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as stream:
        return [json.loads(line) for line in stream]


def check_the_event_log_has_one_job_start_per_planned_job_in_its_pool(run) -> None:
    assert run.event_log.is_file() and run.event_log.name == run.application_id  # plain, one file
    events = _events(run.event_log)
    assert all(event["Event"].startswith("SparkListener") for event in events)
    kinds = Counter(event["Event"] for event in events)
    assert kinds["SparkListenerApplicationStart"] == kinds["SparkListenerApplicationEnd"] == 1
    assert kinds["SparkListenerExecutorAdded"] == 2
    environment = next(event for event in events if event["Event"] == "SparkListenerEnvironmentUpdate")
    assert environment["Spark Properties"]["spark.scheduler.mode"] == "FAIR"
    assert environment["Spark Properties"]["spark.master"] == "local-cluster[2,2,512]"
    starts = [event for event in events if event["Event"] == "SparkListenerJobStart"]
    # the warm-up first, in its group: a job of two tasks per core in each of its two stages, then
    # one of each kind the batch has but sleeps (sort, wordcount), a task per core in each stage,
    # then rounds (warmup_seconds 0.5: at least two, and none begun after 1 s) of a job of each
    # shape of the batch but sleeps (4), all ended before the batch's first job was submitted
    warmups = [event for event in starts if event["Properties"].get("spark.jobGroup.id") == WARMUP_GROUP]
    rounds = len(run.warmup_rounds)
    assert rounds == 2 or (rounds > 2 and sum(run.warmup_rounds[:-1]) < 1.0)
    assert all(seconds > 0 for seconds in run.warmup_rounds)
    assert [event["Job ID"] for event in warmups] == sorted(event["Job ID"] for event in starts)[:3 + 4 * rounds]
    tasks_by_stage = Counter(event["Stage ID"] for event in events if event["Event"] == "SparkListenerTaskEnd")
    shapes = Counter(tuple(tasks_by_stage[stage] for stage in event["Stage IDs"]) for event in warmups[3:])
    assert shapes == {(4, 2): 2 * rounds, (2, 2): rounds, (2, 1): rounds}  # (maps, reduces) of the 4 shapes
    ended = [event for event in events if event["Event"] == "SparkListenerJobEnd"
             and event["Job ID"] in {warmup["Job ID"] for warmup in warmups}]
    starts = [event for event in starts if event not in warmups
              and event["Properties"].get("spark.jobGroup.id") != GATE_GROUP]
    assert len(ended) == len(warmups)
    assert max(e["Completion Time"] for e in ended) <= min(e["Submission Time"] for e in starts)
    assert [tasks_by_stage[stage] for stage in warmups[0]["Stage IDs"]] == [8, 8]  # 2 x 2 executors x 2 cores
    assert [tasks_by_stage[stage] for stage in warmups[1]["Stage IDs"]] == [4, 4]
    planned = {row["job"]: row["pool"] for row in ROWS}
    assert sorted(event["Properties"]["spark.jobGroup.id"] for event in starts) == sorted(planned)
    tasks_by_stage = Counter(event["Stage ID"] for event in events if event["Event"] == "SparkListenerTaskEnd")
    for event in starts:
        name = event["Properties"]["spark.jobGroup.id"]
        assert event["Properties"]["spark.scheduler.pool"] == planned[name]
        assert event["Properties"]["spark.job.description"] == name
        job = next(job for job in JOBS if job.name == name)
        assert len(event["Stage IDs"]) == 2  # a map stage and a result stage
        assert sorted(tasks_by_stage[stage] for stage in event["Stage IDs"]) == sorted([job.maps, job.reduces])


def check_every_job_ran_and_the_waits_were_kept(run) -> None:
    """load waits for extract's end + 0.5 s; summary for words and load; in the script's report
    and in Spark's own times (JobStart's submission after the awaited JobEnd, in ms)."""
    assert run.succeeded and [job.job for job in run.jobs] == [row["job"] for row in ROWS]
    by_name = {job.job: job for job in run.jobs}
    assert by_name["load"].submitted == pytest.approx(by_name["extract"].finished + 0.5)
    assert by_name["load"].started >= by_name["load"].submitted
    assert by_name["summary"].started >= max(by_name["words"].finished, by_name["load"].finished)
    assert by_name["nap"].started >= 0.2
    events = _events(run.event_log)
    group_of = {event["Job ID"]: event["Properties"]["spark.jobGroup.id"]
                for event in events if event["Event"] == "SparkListenerJobStart"}
    submitted = {group_of[event["Job ID"]]: event["Submission Time"]
                 for event in events if event["Event"] == "SparkListenerJobStart"}
    ended = {group_of[event["Job ID"]]: event["Completion Time"]
             for event in events if event["Event"] == "SparkListenerJobEnd"}
    assert submitted["load"] >= ended["extract"] + 500
    assert submitted["summary"] >= max(ended["words"], ended["load"])
    assert run.makespan == max(job.finished for job in run.jobs)
    assert run.batch_seconds >= run.makespan and run.wall_seconds > run.ready_seconds > run.context_seconds
    assert run.peak_rss_mb > 0


def check_the_gate_held_every_core_while_the_batch_was_submitted(run) -> None:
    """The gate: one job of GATE_GROUP, one sleeping task per core (2 executors x 2 cores) in one
    stage, submitted after the warm-up's last job ended and before the batch's first job; every
    core held (the driver saw its four tasks running) before the batch began, and the batch's jobs
    due at 0 s (extract, words) count their response from its end."""
    events = _events(run.event_log)
    starts = [event for event in events if event["Event"] == "SparkListenerJobStart"]
    gates = [event for event in starts if event["Properties"].get("spark.jobGroup.id") == GATE_GROUP]
    assert len(gates) == 1 and len(gates[0]["Stage IDs"]) == 1
    gate = gates[0]
    tasks = [event for event in events if event["Event"] == "SparkListenerTaskEnd"
             and event["Stage ID"] == gate["Stage IDs"][0]]
    assert len(tasks) == 4 and all(event["Task Info"]["Finish Time"] - event["Task Info"]["Launch Time"] >= 1500
                                   for event in tasks)
    groups = [event["Properties"].get("spark.jobGroup.id") for event in sorted(starts, key=lambda e: e["Job ID"])]
    first_batch = next(index for index, group in enumerate(groups) if group not in (WARMUP_GROUP, GATE_GROUP))
    assert groups.index(GATE_GROUP) == first_batch - 1 and WARMUP_GROUP not in groups[first_batch:]
    # the driver saw the tasks start (each writes a file) and began the batch at once: most of the
    # 1.5 s is left when the batch starts (its end as the driver learns it, a little after 1.5 s)
    assert run.gate_held is True and run.gate_end is not None and 1.0 < run.gate_end < 2.5
    by_name = {job.job: job for job in run.jobs}
    assert by_name["extract"].submitted < run.gate_end  # due while the gate held every core
    assert run.released(by_name["extract"]) == run.gate_end
    assert run.responses["extract"] == pytest.approx(by_name["extract"].finished - run.gate_end)
    assert run.responses["load"] == pytest.approx(by_name["load"].finished - by_name["load"].submitted)
    assert run.mean_response == pytest.approx(sum(run.responses.values()) / 5)


def check_nothing_is_left_running_or_on_disk(run, scratch: Path) -> None:
    assert list(scratch.iterdir()) == []
    assert _processes_naming(str(scratch)) == []
    assert sorted(run.event_log.parent.iterdir()) == sorted([run.event_log, run.allocation_file])
    environment = next(event for event in _events(run.event_log) if event["Event"] == "SparkListenerEnvironmentUpdate")
    assert environment["Spark Properties"]["spark.scheduler.allocation.file"] == str(run.allocation_file)
    assert '<pool name="etl">' in run.allocation_file.read_text()  # the pools' settings stay with the log


# Without Spark


def test_an_engine_job_is_checked() -> None:
    with pytest.raises(InvalidInput, match=r"x.kind: must be one of sort, wordcount, sleep"):
        EngineJob("x", "terasort")
    with pytest.raises(InvalidInput, match=r"x.maps: must be >= 1"):
        EngineJob("x", "sort", maps=0)
    with pytest.raises(InvalidInput, match=r"x.seconds: a sleep job needs seconds > 0"):
        EngineJob("x", "sleep")
    assert EngineJob("x", "sleep", seconds=2.0).spec()["reduce_seconds"] == 2.0


def test_fair_scheduler_xml_writes_every_pool_with_sparks_defaults() -> None:
    text = fair_scheduler_xml({"etl": {"weight": 3, "minShare": 2, "schedulingMode": "FAIR"}, "a&b": {}})
    assert '<pool name="etl">' in text and "<weight>3</weight>" in text and "<minShare>2</minShare>" in text
    assert '<pool name="a&amp;b">' in text and text.count("<schedulingMode>FIFO</schedulingMode>") == 1
    with pytest.raises(InvalidInput, match=r"pools.etl.share: unknown key"):
        fair_scheduler_xml({"etl": {"share": 1}})


def test_spark_defaults_are_read_as_java_reads_them(tmp_path: Path) -> None:
    """`read_spark_defaults` (planner.io.spark.conf): Java's properties rules, a key without a
    value is set to ""; a bad escape is one error naming the file and line."""
    conf = tmp_path / "spark-defaults.conf"
    conf.write_text("# planned\nspark.scheduler.mode  FAIR\n\nspark.scheduler.allocation.file=pools.xml\n"
                    "! old\nspark.app.name: night\\\n  ly\nspark.lonely\n")
    assert read_spark_defaults(conf) == {"spark.scheduler.mode": "FAIR", "spark.scheduler.allocation.file": "pools.xml",
                                         "spark.app.name": "nightly", "spark.lonely": ""}
    conf.write_text("spark.scheduler.mode FAIR\nspark.x \\u12\n")
    with pytest.raises(InvalidInput, match=r"spark-defaults.conf"):
        read_spark_defaults(conf)


def test_without_java_the_engine_says_why_and_starts_nothing(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    assert java_problem() == f"JAVA_HOME={tmp_path} has no bin/java (Spark 4 needs Java 17 or 21: apt-get install openjdk-17-jre-headless)"
    assert spark_available() == java_problem()
    with pytest.raises(SparkEngineError, match="has no bin/java"):
        run_engine_batch(JOBS, ROWS, log_dir=tmp_path / "logs")
    assert not (tmp_path / "logs").exists()


def test_the_engine_refuses_a_cluster_beyond_its_limits(tmp_path: Path) -> None:
    """`MAX_EXECUTORS` (16) and `MIN_EXECUTOR_MB` (256), checked before anything starts."""
    with pytest.raises(InvalidInput, match="executors: must be <= 16, got 17"):
        run_engine_batch(JOBS, ROWS, log_dir=tmp_path, executors=17)
    with pytest.raises(InvalidInput, match="memory_mb: must be >= 256, got 128"):
        run_engine_batch(JOBS, ROWS, log_dir=tmp_path, memory_mb=128)
    assert list(tmp_path.iterdir()) == []


def test_the_engine_refuses_a_conf_whose_mode_is_not_the_runs(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match=r"conf: spark\.scheduler\.mode is FAIR, mode is FIFO"):
        run_engine_batch(JOBS, ROWS, log_dir=tmp_path, mode="FIFO", conf={"spark.scheduler.mode": "FAIR"})
    assert list(tmp_path.iterdir()) == []


def test_a_steady_warm_up_needs_the_warm_up(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="warmup_seconds: needs warmup=True"):
        run_engine_batch(JOBS, ROWS, log_dir=tmp_path, warmup_seconds=5)
    with pytest.raises(InvalidInput, match="warmup_seconds: must be >= 0"):
        run_engine_batch(JOBS, ROWS, log_dir=tmp_path, warmup=True, warmup_seconds=-1)


def test_a_gate_has_limits(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="gate_seconds: must be >= 0"):
        run_engine_batch(JOBS, ROWS, log_dir=tmp_path, gate_seconds=-1)
    with pytest.raises(InvalidInput, match="gate_seconds: must be <= 600"):
        run_engine_batch(JOBS, ROWS, log_dir=tmp_path, gate_seconds=601)


def test_the_engine_refuses_a_planned_job_it_has_no_job_for(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="schedule_rows: no engine job for missing"):
        run_engine_batch(JOBS, [*ROWS, {"job": "missing", "pool": "etl", "submit": 0}], log_dir=tmp_path)


def test_without_pyspark_the_engine_says_what_to_install(monkeypatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pyspark" else real(name, *a))
    assert pyspark_problem() == "pyspark is not installed (pip install 'batchplan[spark]')"


def test_the_engines_own_properties_replace_a_callers_with_a_warning(tmp_path: Path) -> None:
    from planner.proof.spark_engine import _properties

    with pytest.warns(UserWarning, match=r"the engine sets spark.eventLog.dir, spark.master itself"):
        chosen = _properties(master="local-cluster[2,2,512]", mode="FAIR", allocation_file="pools.xml", executors=2,
                             cores=2, memory_mb=512, log_dir=tmp_path, local_dir=tmp_path, compression="zstd",
                             rolling=False, app_name="a",
                             conf={"spark.master": "yarn", "spark.eventLog.dir": "/x", "spark.speculation": "true"})
    assert chosen["spark.master"] == "local-cluster[2,2,512]" and chosen["spark.speculation"] == "true"
    assert chosen["spark.eventLog.compression.codec"] == "zstd" and chosen["spark.eventLog.compress"] == "true"
    assert chosen["spark.scheduler.allocation.file"] == "pools.xml" and chosen["spark.driver.host"] == "127.0.0.1"


def test_stopping_ends_the_whole_process_group() -> None:
    """The driver's group: a shell and two children of its own; SIGTERM reaches them all."""
    import subprocess

    from planner.proof.spark_engine import _group_alive, _stop_group

    process = subprocess.Popen(["sh", "-c", "sleep 60 & sleep 60 & wait"], start_new_session=True)
    try:
        _stop_group(process)
        assert not _group_alive(process.pid)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
