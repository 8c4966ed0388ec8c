"""Spark event logs as records and as a batch (planner.io.spark.logs): the public samples, and small
logs written here whose numbers are worked out by hand."""

from __future__ import annotations

import re
import warnings

import pytest

from models import InvalidInput
from planner.io.spark.logs import (
    RECORDED_FIELDS,
    SparkBatch,
    SparkImportWarning,
    read_spark_application,
    read_spark_batch,
    spark_batch,
)
from tests.support.cli import planner
from tests.support.spark import header, job_end, job_start, stage_info, stage_submitted, task_end, write_log

SAMPLES = ("app-20161115172038-0000", "local-1642039451826", "eventlog_v2_local-1766844910796")


def _quiet(function, *args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = function(*args)
    return result, [str(w.message) for w in caught if issubclass(w.category, SparkImportWarning)]


@pytest.mark.parametrize("name, version, jobs, tasks, executors, nodes, slots", [
    ("app-20161115172038-0000", "2.1.0-SNAPSHOT", 1, 26, 4, 4, 4),
    ("local-1642039451826", "3.3.0-SNAPSHOT", 6, 35, 1, 1, 8),
    ("eventlog_v2_local-1766844910796", "4.2.0-SNAPSHOT", 1, 2, 1, 1, 10),
])
def test_samples_import(data_dir, name, version, jobs, tasks, executors, nodes, slots):
    """The three public samples read without error: the 2.1 one on 4 executors of 4 cores
    (local-cluster, the driver is no executor), the local ones on the driver alone."""
    app, messages = _quiet(read_spark_application, data_dir / "spark-events" / name)
    assert (app.spark_version, len(app.jobs), len(app.tasks), len(app.executors)) == (version, jobs, tasks, executors)
    assert app.scheduler_mode == "FIFO"
    assert any("SparkListenerBlockManagerAdded" in m for m in messages)  # not modelled: named
    batch, _ = _quiet(spark_batch, app)
    assert isinstance(batch, SparkBatch)
    assert (batch.cluster.nodes, batch.cluster.map_slots + batch.cluster.reduce_slots) == (nodes, slots)
    assert batch.scheduler == "fifo" and [p.name for p in batch.pools] == ["default"]
    assert len(batch.workload) == jobs
    for job in batch.workload:  # one recorded time per task, and the mean is the job's task time
        times = batch.task_times[job.name]["map"]
        assert len(times) == job.map_tasks and job.map_time == pytest.approx(sum(times) / len(times), abs=1e-6)
    assert all(tuple(row) == RECORDED_FIELDS for row in batch.recorded)


def test_sample_2_1_failures_and_blacklisting(data_dir):
    """16 successes and 10 failed retries: the batch keeps one time per task and says so."""
    app, messages = _quiet(read_spark_application, data_dir / "spark-events" / "app-20161115172038-0000")
    assert sum(t.status == "failed" for t in app.tasks) == 10
    assert any("SparkListenerExecutorBlacklisted (2)" in m for m in messages)
    batch, notes = _quiet(spark_batch, app)
    assert batch.workload["job-0"].map_tasks == 16
    assert any("10 failed task attempt(s)" in n for n in batch.notes) and notes
    row = batch.recorded[0]
    assert (row["submit"], row["end"], row["runtime"]) == (6.776, 7.845, 1.069)


def test_sample_3_3_skipped_stages_become_dependencies(data_dir):
    """Job 1 reads the shuffle job 0 wrote (its stage 1 was skipped, the same RDDs as stage 0):
    it waits for job 0; so does 2 for 1, 4 for 3 and 5 for 4. Job 3 starts a new query."""
    batch, _ = _quiet(read_spark_batch, data_dir / "spark-events" / "local-1642039451826")
    after = {job.name: [d.job for d in job.after] for job in batch.workload}
    assert after == {"job-0": [], "job-1": ["job-0"], "job-2": ["job-1"], "job-3": [], "job-4": ["job-3"],
                     "job-5": ["job-4"]}
    assert any("6 stage(s) skipped" in n for n in batch.notes)


def _two_stage_log(tmp_path, **properties):
    events = header({"1": 2, "2": 2})
    s0, s1 = stage_info(0, 2, rdds=(1, 2)), stage_info(1, 1, parents=(0,), rdds=(3,))
    events += [job_start(0, 100, [s0, s1], **properties), stage_submitted(s0, 120),
               task_end(0, 3, 150, 180, run=20, index=1, reason="ExceptionFailure"),
               task_end(0, 0, 200, 1200, run=900, shuffle_write=300),
               task_end(0, 1, 200, 1600, run=1300, executor="2", shuffle_write=200),
               stage_submitted(s1, 1650), task_end(1, 2, 1700, 2200, run=400, kind="ResultTask", fetch_wait=50),
               job_end(0, 2250), {"Event": "SparkListenerApplicationEnd", "Timestamp": 1_003_000}]
    return write_log(tmp_path / "app-two", events)


def test_two_stage_job_is_a_mapreduce_job(tmp_path):
    """Stage 0 (2 tasks: 1.0 s and 1.4 s, launch to finish) and stage 1 (1 task: 0.5 s) of a job
    submitted at 0.1 s: map_time (1.0 + 1.4) / 2 = 1.2, reduce_time 0.5, shuffle 300 + 200 bytes.
    The failed attempt (index 1, 30 ms) is not replayed; it is counted in the notes. Recorded: first
    launch 0.15 s (the failed attempt), end 2.2 s, runtime 2.2 - 0.1 = 2.1 s. Two 2-core executors:
    2 nodes of 1 + 1 containers."""
    batch, messages = _quiet(read_spark_batch, _two_stage_log(tmp_path, spark_job_description="sort"))
    job = batch.workload["sort"]
    assert (job.map_tasks, job.reduce_tasks, job.map_time, job.reduce_time) == (2, 1, 1.2, 0.5)
    assert (job.submit, job.shuffle_bytes, job.input_bytes) == (0.1, 500.0, 0.0)
    assert batch.task_times == {"sort": {"map": (1.0, 1.4), "reduce": (0.5,)}}
    assert batch.recorded == ({"job": "sort", "spark_jobs": "0", "stages": "0,1", "pool": "default", "submit": 0.1,
                               "first_launch": 0.15, "end": 2.2, "runtime": 2.1, "app": "app-test"},)
    assert (batch.cluster.nodes, batch.cluster.map_slots, batch.cluster.reduce_slots) == (2, 1, 1)
    assert batch.cluster.heartbeat == 0.0
    assert batch.options.containers and batch.options.reduce_slowstart == 1.0
    assert batch.notes == ("1 failed task attempt(s) not replayed (their successful retries are)",)
    assert any("Result Size" in m for m in messages)  # a task metric not used, named


def test_task_records(tmp_path):
    """A task's fields: duration 0.5 s, run 0.4 s, so overhead 0.1 s; fetch wait 0.05 s; shuffle read 10 + 5."""
    app, _ = _quiet(read_spark_application, _two_stage_log(tmp_path))
    result = next(t for t in app.tasks if t.kind == "result")
    assert (result.launch, result.finish, result.run_time, result.fetch_wait_time) == (1.7, 2.2, 0.4, 0.05)
    assert result.overhead == pytest.approx(0.1) and result.shuffle_read_bytes == 15
    failed = next(t for t in app.tasks if t.status == "failed")
    assert failed.reason == "ExceptionFailure" and failed.index == 1
    assert app.end == 3.0 and app.stages[0].jobs == (0,)


def test_fair_pools_names_and_chains(tmp_path):
    """Under FAIR, the jobs' pools are the batch's (weight 1, minShare 0, FIFO inside). Two jobs with
    the same description get unique names; a job of three stages in a row (0 -> 1 -> 2) is a map-only
    step for stage 0 and a MapReduce step of stages 1 and 2, which waits for it."""
    events = header({"1": 4}, mode="FAIR")
    a0, a1, a2 = stage_info(0, 2), stage_info(1, 2, parents=(0,)), stage_info(2, 1, parents=(1,))
    b0 = stage_info(3, 1)
    events += [job_start(0, 0, [a0, a1, a2], spark_scheduler_pool="high", spark_job_description="etl"),
               job_start(1, 0, [b0], spark_scheduler_pool="low", spark_job_description="etl")]
    events += [stage_submitted(a0, 0), stage_submitted(b0, 0)]
    events += [task_end(0, 0, 10, 510, run=400), task_end(0, 1, 10, 1010, run=900),
               task_end(3, 2, 10, 210, run=150, kind="ResultTask"),
               stage_submitted(a1, 1020), task_end(1, 3, 1030, 1230, run=150), task_end(1, 4, 1030, 1430, run=350),
               stage_submitted(a2, 1440), task_end(2, 5, 1450, 1550, run=80, kind="ResultTask"),
               job_end(1, 220), job_end(0, 1560)]
    batch, _ = _quiet(read_spark_batch, write_log(tmp_path / "fair", events))
    assert batch.scheduler == "fair"
    assert [(p.name, p.weight, p.min_map, p.mode) for p in batch.pools] == [("high", 1.0, 0, "fifo"),
                                                                           ("low", 1.0, 0, "fifo")]
    assert batch.workload.names == ["etl/stage-0", "etl", "etl_job-1"]
    first, etl = batch.workload["etl/stage-0"], batch.workload["etl"]
    assert (first.map_tasks, first.reduce_tasks, first.map_time) == (2, 0, 0.75)
    assert (etl.map_tasks, etl.reduce_tasks, etl.map_time, etl.reduce_time) == (2, 1, 0.3, 0.1)
    assert [d.job for d in etl.after] == ["etl/stage-0"] and etl.pool == "high"


def test_local_mode_driver_is_the_executor(tmp_path):
    """local[*]: the driver (8 cores) is the only executor: one node of 4 + 4 containers."""
    events = header({"driver": 8}, master="local[*]")
    s0 = stage_info(0, 1)
    events += [job_start(0, 0, [s0]), stage_submitted(s0, 0),
               task_end(0, 0, 0, 100, run=90, kind="ResultTask", executor="driver"), job_end(0, 100)]
    batch, _ = _quiet(read_spark_batch, write_log(tmp_path / "local", events))
    assert (batch.cluster.nodes, batch.cluster.map_slots, batch.cluster.reduce_slots) == (1, 4, 4)


def test_no_jobs_is_an_error(tmp_path):
    log = write_log(tmp_path / "empty-app", header({"1": 2}))
    with pytest.raises(InvalidInput, match=r"empty-app: \(top level\): holds no Spark jobs"):
        read_spark_application(log)


def test_wrong_field_type_names_the_line(tmp_path):
    events = [*header({"1": 2}), {"Event": "SparkListenerJobStart", "Job ID": "zero", "Submission Time": 1}]
    with pytest.raises(InvalidInput, match=r"bad-type: line 6.Job ID: must be an integer"):
        read_spark_application(write_log(tmp_path / "bad-type", events))


def test_cli_imports_several_logs(tmp_path, data_dir):
    """Two applications, one batch, in the order they started (the written one in 1970, the sample
    in 2025): job-0 is in both, so each gets its application's id; the 55 years between them are
    left out, so the sample's job starts at the end of the first's (2.2 s) plus its own 1.636 s."""
    second = _two_stage_log(tmp_path)
    out, cluster = tmp_path / "batch.yaml", tmp_path / "cluster.yaml"
    status, shown, err = planner("import", "spark", data_dir / "spark-events" / "eventlog_v2_local-1766844910796",
                                 second, "-o", out, "--cluster-output", cluster)
    assert status == 0, err
    assert "imported eventlog_v2_local-1766844910796, app-two" in shown  # the header names both logs
    assert "app-test+local-1766844910796" in shown  # the workload: both applications, in start order
    from models import Cluster, Workload

    batch = Workload.from_file(out)
    assert batch.names == ["app-test/job-0", "local-1766844910796/job-0"]
    assert batch.jobs[1].submit == pytest.approx(2.2 + 1.636)
    # the driver of the first (10 cores), two 2-core executors of the second: 14 containers, as 7 nodes of 2
    assert (Cluster.from_file(cluster).nodes, Cluster.from_file(cluster).total_slots) == (7, 14)
    assert "SparkImportWarning" in err


def test_cli_refuses_several_files_for_other_formats(tmp_path, data_dir):
    status, _, err = planner("import", "rumen", data_dir / "wordcount.json", data_dir / "wordcount.json")
    assert status == 2 and "FILE: rumen traces are read one file at a time" in err


def test_a_stage_shared_with_an_earlier_job(tmp_path):
    """Job 1 lists stage 0 again (Spark reuses the shuffle-map stage job 0 ran, and skips it): stage 0
    stays job 0's, and job 1 (its result stage 2 reads stage 0) waits for job 0."""
    events = header({"1": 2})
    s0, s1, s2 = stage_info(0, 1), stage_info(1, 1, parents=(0,)), stage_info(2, 1, parents=(0,))
    events += [job_start(0, 0, [s0, s1]), stage_submitted(s0, 0), task_end(0, 0, 0, 100, run=90),
               stage_submitted(s1, 100), task_end(1, 1, 100, 200, run=90, kind="ResultTask"), job_end(0, 200),
               job_start(1, 300, [{**s0, "Submission Time": 1_000_000}, s2]), stage_submitted(s2, 300),
               task_end(2, 2, 300, 400, run=90, kind="ResultTask"), job_end(1, 400)]
    batch, _ = _quiet(read_spark_batch, write_log(tmp_path / "shared", events))
    assert [(job.name, job.map_tasks, job.reduce_tasks, [d.job for d in job.after]) for job in batch.workload] == [
        ("job-0", 1, 1, []), ("job-1", 1, 0, ["job-0"])]
    assert any("1 stage(s) skipped" in note for note in batch.notes)


def test_notes_name_what_the_batch_leaves_out(tmp_path):
    """Executor 2 comes after the job's submission and executor 1 leaves; a speculative copy of
    task 0 is killed; task 3 starts and the log never ends it. Each is a note (and the warning);
    the job keeps one time per task: 2 maps of 1.0 s (the successful attempts)."""
    events = header({"1": 2})
    s0 = stage_info(0, 2)
    events += [job_start(0, 0, [s0]), stage_submitted(s0, 0),
               {"Event": "SparkListenerExecutorAdded", "Timestamp": 1_000_050, "Executor ID": "2",
                "Executor Info": {"Host": "127.0.0.2", "Total Cores": 2}},
               task_end(0, 0, 0, 1000, run=900, kind="ResultTask"),
               task_end(0, 2, 500, 1000, run=400, index=0, attempt=1, speculative=True, reason="TaskKilled",
                        kind="ResultTask", executor="2"),
               task_end(0, 1, 100, 1100, run=900, kind="ResultTask", executor="2"),
               {"Event": "SparkListenerTaskStart", "Stage ID": 0, "Stage Attempt ID": 0,
                "Task Info": {"Task ID": 3, "Index": 1, "Attempt": 1, "Launch Time": 1_001_200, "Executor ID": "1"}},
               {"Event": "SparkListenerExecutorRemoved", "Timestamp": 1_002_000, "Executor ID": "1",
                "Removed Reason": "lost worker"},
               job_end(0, 1100)]
    batch, messages = _quiet(read_spark_batch, write_log(tmp_path / "notes", events))
    assert batch.task_times == {"job-0": {"map": (1.0, 1.0)}}
    assert batch.notes == (
        "1 killed task attempt(s) not replayed",
        "1 speculative task attempt(s): only the first success per task is kept",
        "1 task attempt(s) with no end in the log (cut short?) left out",
        "executor(s) 2 added after the first job was submitted: the cluster has them from the start",
        "executor(s) 1 (at 2.000 s: lost worker) removed: the cluster keeps them to the end",
    )
    assert any("lost worker" in m for m in messages)
    app, _ = _quiet(read_spark_application, tmp_path / "notes")
    unfinished = next(t for t in app.tasks if t.finish is None)
    assert (unfinished.task, unfinished.status, unfinished.reason) == (3, "failed", "no SparkListenerTaskEnd in the log")


def test_job_names_are_made_safe_and_the_text_kept(tmp_path):
    """A description of SQL text ("count a, b+2", tabs and a newline, 100 characters) becomes a
    name of letters, digits and -_.: (runs of anything else one "_"), at most 60 characters; the
    full text is in the notes (and the warning): nothing a TSV row (submissions.tsv) splits on."""
    long_text = "SELECT\tx,\ny FROM " + "t" * 90
    events = header({"1": 2})
    s0, s1 = stage_info(0, 1), stage_info(1, 1)
    events += [job_start(0, 0, [s0], spark_job_description="count a, b+2"), stage_submitted(s0, 0),
               task_end(0, 0, 0, 100, run=90, kind="ResultTask"), job_end(0, 100),
               job_start(1, 200, [s1], spark_job_description=long_text), stage_submitted(s1, 200),
               task_end(1, 1, 200, 300, run=90, kind="ResultTask"), job_end(1, 300)]
    batch, messages = _quiet(read_spark_batch, write_log(tmp_path / "names", events))
    assert batch.workload.names == ["count_a_b_2", "SELECT_x_y_FROM_" + "t" * 44]
    note = next(n for n in batch.notes if n.startswith("job names made safe"))
    assert "count_a_b_2 (Spark job 0): 'count a, b+2'" in note and repr(long_text) in note
    assert any("count a, b+2" in m for m in messages)
    assert all(re.fullmatch(r"[\w.:-]{1,60}", name) for name in batch.workload.names)
    status, _, err = planner("import", "spark", tmp_path / "names", "-o", tmp_path / "w.yaml")
    assert status == 0 and "count a, b+2" in err


@pytest.mark.parametrize("change, message", [
    (lambda e: e["Task Info"].__setitem__("Launch Time", -5),
     r"line 7\.Task Info\.Launch Time: must be a time from 0 to .* got -5"),
    (lambda e: e["Task Info"].__setitem__("Finish Time", 999_000),
     r"line 7\.Task Info\.Finish Time: is before the Launch Time \(999,000 < 1,000,000 ms\)"),
    (lambda e: e["Task Metrics"]["Input Metrics"].__setitem__("Bytes Read", -100),
     r"line 7\.Task Metrics\.Input Metrics\.Bytes Read: must be 0 to 1e\+18, got -100"),
    (lambda e: e["Task Metrics"]["Shuffle Write Metrics"].__setitem__("Shuffle Bytes Written", 10**25),
     r"line 7\.Task Metrics\.Shuffle Write Metrics\.Shuffle Bytes Written: must be 0 to 1e\+18"),
])
def test_bad_task_times_and_bytes_name_file_and_line(tmp_path, change, message):
    events = header({"1": 2})
    s0 = stage_info(0, 1)
    task = task_end(0, 0, 0, 100, run=90, kind="ResultTask")
    change(task)
    events += [job_start(0, 0, [s0]), task]
    with pytest.raises(InvalidInput, match=r"bad-task: " + message):
        read_spark_application(write_log(tmp_path / "bad-task", events))


@pytest.mark.parametrize("cores", [0, -8, 10**9])
def test_absurd_core_counts_name_file_and_line(tmp_path, cores):
    with pytest.raises(InvalidInput, match=rf"cores: line 5\.Executor Info\.Total Cores: must be 1 to 1,000, "
                                           rf"got {cores:,}"):
        read_spark_application(write_log(tmp_path / "cores", header({"1": cores})))


def test_unknown_stage_and_missing_application_start_are_named(tmp_path):
    """A TaskEnd of stage 9 that no event describes: named with its line; without an
    ApplicationStart the clock starts at the earliest timestamp (the executor's, 1,000,000 ms)."""
    events = [e for e in header({"1": 2}) if e["Event"] != "SparkListenerApplicationStart"]
    s0 = stage_info(0, 1)
    events += [job_start(0, 0, [s0]), stage_submitted(s0, 0), task_end(0, 0, 0, 100, run=90, kind="ResultTask"),
               task_end(9, 1, 0, 100, run=90, kind="ResultTask"), job_end(0, 100)]
    app, messages = _quiet(read_spark_application, write_log(tmp_path / "odd", events))
    assert any("stage 9 (first at line 8)" in m for m in messages)
    assert any("no SparkListenerApplicationStart: times count from the earliest timestamp in the log "
               "(1000000 ms" in m for m in messages)
    assert app.epoch_ms == 1_000_000


def _retried_stage_log(tmp_path, *, partitions: bool):
    """Stage 0 (4 tasks) runs: indexes 0-3 succeed, then stage 1's fetch of partitions 2 and 3
    fails, and stage 0 is resubmitted (attempt 1, 2 tasks): indexes 0 and 1 compute partitions 2
    and 3 again, in 300 ms and 500 ms. With ``Partition ID`` (Spark 3.3+) the key is the partition."""
    events = header({"1": 4})
    s0, s1 = stage_info(0, 4), stage_info(1, 1, parents=(0,))
    retry = {**s0, "Stage Attempt ID": 1, "Number of Tasks": 2}
    first = [task_end(0, n, 0, 100 * (n + 1), run=50) for n in range(4)]
    again = [task_end(0, 10 + n, 1000, 1300 + 200 * n, run=50, index=n) for n in range(2)]
    for n, task in enumerate(again):
        task["Stage Attempt ID"] = 1
        if partitions:
            task["Task Info"]["Partition ID"] = 2 + n
    if partitions:
        for n, task in enumerate(first):
            task["Task Info"]["Partition ID"] = n
    events += [job_start(0, 0, [s0, s1]), stage_submitted(s0, 0), *first, stage_submitted(s1, 500),
               task_end(1, 5, 500, 600, run=50, kind="ResultTask", reason="FetchFailed"),
               {"Event": "SparkListenerStageCompleted", "Stage Info": {**s1, "Failure Reason": "fetch"}},
               stage_submitted(retry, 1000), *again, stage_submitted({**s1, "Stage Attempt ID": 1}, 1800),
               task_end(1, 6, 1800, 1900, run=50, kind="ResultTask"), job_end(0, 1900)]
    return write_log(tmp_path / "retried", events)


@pytest.mark.parametrize("partitions, times", [
    # Partition ID: partitions 0-3 first finish in attempt 0 (0.1 .. 0.4 s); the retries are later.
    (True, (0.1, 0.2, 0.3, 0.4)),
    # (attempt, index): 6 successes for 4 tasks; the 2 of attempt 1 (0.3 s, 0.5 s) are kept, then
    # attempt 0's first 2 to finish (0.1 s, 0.2 s).
    (False, (0.1, 0.2, 0.3, 0.5)),
])
def test_resubmitted_stage_keeps_one_success_per_partition(tmp_path, partitions, times):
    batch, _ = _quiet(read_spark_batch, _retried_stage_log(tmp_path, partitions=partitions))
    job = batch.workload["job-0"]
    assert job.map_tasks == 4 and tuple(sorted(batch.task_times["job-0"]["map"])) == times
    assert any("stage(s) 0, 1 ran more than one attempt; one success per partition" in n for n in batch.notes)


@pytest.mark.parametrize("executors, hosts, nodes, per_node", [
    ({"1": 1, "2": 1, "3": 1, "4": 1}, None, 1, 4),       # 4 x 1 core on one host: a node of 4
    ({"1": 1, "2": 1, "3": 1, "4": 1}, "abcd", 2, 2),     # 4 x 1 core on 4 hosts: 2 nodes of 2
    ({"1": 4, "2": 4}, None, 2, 4),                       # alike, 2 or more: a node per executor
    ({"1": 1, "2": 2}, ("a", "b"), 1, 3),                 # 3 cores on hosts of 1 and 2: one node of 3
    ({"1": 1, "2": 1}, ("a", "b"), 1, 2),                 # 2 cores on 2 hosts of 1: one node of 2
    ({"1": 1}, None, 1, 2),                               # 1 core: the one inexact case, noted
])
def test_cluster_containers_are_the_executors_cores(tmp_path, executors, hosts, nodes, per_node):
    events = header(executors)
    if hosts:
        added = [e for e in events if e["Event"] == "SparkListenerExecutorAdded"]
        for event, host in zip(added, hosts, strict=True):
            event["Executor Info"]["Host"] = host
    s0 = stage_info(0, 1)
    events += [job_start(0, 0, [s0]), stage_submitted(s0, 0), task_end(0, 0, 0, 100, run=90, kind="ResultTask"),
               job_end(0, 100)]
    batch, _ = _quiet(read_spark_batch, write_log(tmp_path / "cluster", events))
    cluster = batch.cluster
    assert (cluster.nodes, cluster.map_slots + cluster.reduce_slots) == (nodes, per_node)
    if sum(executors.values()) > 1:
        assert cluster.total_slots == sum(executors.values())
