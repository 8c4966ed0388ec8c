"""Calibrated profiles from Spark event logs (planner.io.spark.fitting): work and per-task overhead
apart, numbers worked out by hand on a small log, and the public samples."""

from __future__ import annotations

import warnings

import pytest

from models import InvalidInput, Job, Workload
from models.fileio import read_mapping
from planner.io.spark.fitting import OVERHEAD_FIELDS, PROFILE_JOB_FIELDS, fit_spark, percentile, with_overheads
from tests.support.cli import planner
from tests.support.spark import header, job_end, job_start, stage_info, stage_submitted, task_end, write_log


def _log(tmp_path):
    """One job: stage 0 (2 shuffle-map tasks), stage 1 (1 result task reading it).

    ========  ========  ===  ===========  =========  ==========  ====  ========  ======
    task      duration  run  deserialize  serialize  fetch wait  work  overhead  launch
    ========  ========  ===  ===========  =========  ==========  ====  ========  ======
    A (map)   1.0       0.9  0.06         0.01       -           0.9   0.1       0.03
    B (map)   2.0       1.7  0.2          0.02       -           1.7   0.3       0.08
    C (res.)  0.5       0.4  0.03         0          0.1         0.3   0.2       0.07
    ========  ========  ===  ===========  =========  ==========  ====  ========  ======

    work = run - fetch wait; overhead = duration - work; launch = overhead - the other parts."""
    return write_log(tmp_path / "app-fit", header({"1": 2}) + _sort_job(0, 0, 0))


def _sort_job(job: int, stage: int, start: int) -> list[dict]:
    """`_log`'s job "sort" as Spark job ``job`` of stages ``stage`` and ``stage + 1``, from ``start`` ms."""
    maps, result = stage_info(stage, 2), stage_info(stage + 1, 1, parents=(stage,))
    task = 3 * job
    return [job_start(job, start, [maps, result], spark_job_description="sort"), stage_submitted(maps, start),
            task_end(stage, task, start, start + 1000, run=900, deserialize=60, serialize=10),
            task_end(stage, task + 1, start, start + 2000, run=1700, deserialize=200, serialize=20),
            stage_submitted(result, start + 2050),
            task_end(stage + 1, task + 2, start + 2100, start + 2600, run=400, deserialize=30, fetch_wait=100,
                     kind="ResultTask"),
            job_end(job, start + 2600)]


def _fit(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fit_spark(*args, **kwargs)


def test_percentile_is_linear_between_sorted_values():
    """p95 of [0.1, 0.3]: position 0.95 * 1, so 0.1 + 0.95 * 0.2 = 0.29; of one value, that value."""
    assert percentile([0.3, 0.1], 95) == pytest.approx(0.29)
    assert percentile([4.0], 95) == 4.0 and percentile([1, 2, 3, 4, 5], 50) == 3
    with pytest.raises(InvalidInput, match="no values"):
        percentile([], 50)


def test_overheads_by_hand(tmp_path):
    """Shuffle map (A, B): overhead mean and median 0.2, p95 0.29; deserialize p95 0.06 + 0.95 * 0.14
    = 0.193; launch median (0.03 + 0.08) / 2 = 0.055. Result (C): 0.2, of which fetch wait 0.1."""
    profile = _fit(_log(tmp_path))
    shuffle_map, result = profile.overheads
    assert tuple(shuffle_map) == OVERHEAD_FIELDS
    assert (shuffle_map["kind"], shuffle_map["tasks"]) == ("shuffle_map", 2)
    assert (shuffle_map["overhead_mean"], shuffle_map["overhead_median"], shuffle_map["overhead_p95"]) == (
        pytest.approx(0.2), pytest.approx(0.2), pytest.approx(0.29))
    assert shuffle_map["deserialize_p95"] == pytest.approx(0.193)
    assert shuffle_map["launch_median"] == pytest.approx(0.055)
    assert (result["kind"], result["overhead_median"], result["fetch_wait_median"], result["launch_median"]) == (
        "result", pytest.approx(0.2), pytest.approx(0.1), pytest.approx(0.07))


def test_profile_workload_is_work_plus_overhead(tmp_path):
    """Map work (0.9 + 1.7) / 2 = 1.3 plus the median shuffle-map overhead 0.2: 1.5 s a map (the
    recorded mean duration is 1.5 too); reduce work 0.3 plus 0.2: 0.5 s."""
    profile = _fit(_log(tmp_path))
    assert profile.jobs == ({"job": "sort", "map_tasks": 2, "map_work": 1.3, "map_overhead": pytest.approx(0.2),
                             "reduce_tasks": 1, "reduce_work": 0.3, "reduce_overhead": pytest.approx(0.2)},)
    assert tuple(profile.jobs[0]) == PROFILE_JOB_FIELDS
    job = profile.workload["sort"]
    assert (job.map_tasks, job.map_time, job.reduce_tasks, job.reduce_time) == (2, 1.5, 1, 0.5)


def test_with_overheads_adds_the_kind_of_each_phase(tmp_path):
    """A job's nominal times (work alone) plus the overheads: maps of a job with reduces take the
    shuffle-map overhead (1.0 + 0.2), reduces the result one (2.0 + 0.2); a map-only job's maps
    are result tasks (0.5 + 0.2)."""
    profile = _fit(_log(tmp_path))
    nominal = Workload([Job("mr", 4, 2, 1.0, 2.0), Job("maps", 3, 0, 0.5)])
    calibrated = with_overheads(nominal, profile)
    assert (calibrated["mr"].map_time, calibrated["mr"].reduce_time) == (1.2, 2.2)
    assert calibrated["maps"].map_time == 0.7


def test_mean_statistic(tmp_path):
    profile = _fit(_log(tmp_path), statistic="mean")
    assert profile.overhead("shuffle_map") == pytest.approx(0.2) and profile.statistic == "mean"
    with pytest.raises(InvalidInput, match="statistic: must be one of median, mean"):
        _fit(_log(tmp_path), statistic="p95")


def _warm_log(tmp_path):
    """A warm-up job (one map-only task of 3.0 s, 0.5 s of it work: overhead 2.5) before the
    batch's job "sort" (`_log`'s, 5 s later)."""
    events = header({"1": 2})
    w0 = stage_info(0, 1)
    events += [job_start(0, 0, [w0], spark_job_description="warm"), stage_submitted(w0, 0),
               task_end(0, 0, 0, 3000, run=500, kind="ResultTask"), job_end(0, 3000)]
    return write_log(tmp_path / "app-warm", events + _sort_job(1, 1, 5000))


def test_jobs_leave_other_work_out_of_the_workload_and_the_overheads(tmp_path):
    """`_warm_log`. Fitting every job: the result kind's overhead median is (2.5 + 0.2) / 2 = 1.35.
    Fitting ["sort"] alone: the workload is sort and the overheads its tasks' (0.2 each kind), as
    in `test_overheads_by_hand`."""
    log = _warm_log(tmp_path)
    every = _fit(log)
    assert [job.name for job in every.workload] == ["warm", "sort"]
    assert every.overhead("result") == pytest.approx(1.35)
    batch = _fit(log, jobs=["sort"])
    assert [job.name for job in batch.workload] == ["sort"] and [r["job"] for r in batch.jobs] == ["sort"]
    assert (batch.overhead("shuffle_map"), batch.overhead("result")) == (pytest.approx(0.2), pytest.approx(0.2))
    assert (batch.workload["sort"].map_time, batch.workload["sort"].reduce_time) == (1.5, 0.5)
    with pytest.raises(InvalidInput, match=r"^jobs: 'nope' is not a job of the logs"):
        _fit(log, jobs=["nope"])
    with pytest.raises(InvalidInput, match=r"^jobs: must be a list of job names"):
        _fit(log, jobs="sort")


@pytest.mark.parametrize("name, kinds, tasks", [
    ("app-20161115172038-0000", ("result",), (16,)),
    ("local-1642039451826", ("shuffle_map", "result"), (33, 2)),
    ("eventlog_v2_local-1766844910796", ("result",), (2,)),
])
def test_samples_fit(data_dir, name, kinds, tasks):
    """The samples' successful attempts by kind; the 2.1 sample's failed retries are not counted.
    Its 16 tasks spent a median 0.2535 s deserializing (a cold local cluster), more than their work."""
    profile = _fit(data_dir / "spark-events" / name)
    assert tuple(r["kind"] for r in profile.overheads) == kinds
    assert tuple(r["tasks"] for r in profile.overheads) == tasks
    for job, row in zip(profile.workload, profile.jobs, strict=True):
        assert job.map_time == pytest.approx(max(0.001, row["map_work"] + row["map_overhead"]), abs=1e-6)
    if name.startswith("app-"):
        assert profile.overheads[0]["deserialize_median"] == 0.2535


def test_cli_fit_spark_jobs(tmp_path):
    """`planner fit LOG --job sort`: the overheads of sort's tasks alone (`_warm_log`); a job that
    is not in the log is one error line naming --job; --job on a CSV is refused."""
    import json

    log = _warm_log(tmp_path)
    status, out, err = planner("fit", log, "--job", "sort", "--json")
    assert status == 0, err
    found = json.loads(out)
    assert [row["job"] for row in found["jobs"]] == ["sort"]
    assert [row["overhead_median"] for row in found["overheads"]] == [pytest.approx(0.2), pytest.approx(0.2)]
    status, out, err = planner("fit", log, "--job", "nope")
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "--job: 'nope' is not a job of the logs" in err
    runtimes = tmp_path / "runtimes.csv"
    runtimes.write_text("job,nodes,runtime\na,1,10\na,2,6\n")
    status, _, err = planner("fit", runtimes, "--job", "a")
    assert status == 2 and "--job: applies to Spark event logs only" in err


def test_cli_fit_spark(tmp_path):
    log, nominal = _log(tmp_path), tmp_path / "nominal.yaml"
    Workload([Job("mr", 4, 2, 1.0, 2.0)]).to_file(nominal)
    out, profile = tmp_path / "calibrated.yaml", tmp_path / "profile.yaml"
    status, _, err = planner("fit", log, "--workload", nominal, "-o", out, "--profile-output", profile)
    assert status == 0, err
    assert Workload.from_file(out)["mr"].map_time == 1.2
    saved = read_mapping(profile)
    assert saved["statistic"] == "median" and saved["jobs"][0]["map_work"] == 1.3
    status, _, err = planner("fit", log, "--overhead", "mean", "-o", out)
    assert status == 0 and Workload.from_file(out)["sort"].reduce_time == 0.5
    status, _, err = planner("fit", tmp_path / "nominal.yaml", tmp_path / "nominal.yaml")
    assert status == 2 and "FILE: fits read one file unless they are Spark event logs" in err


def _map_only_log(tmp_path):
    """One stage of 2 result tasks, 1.0 s each with 0.8 s of run time (overhead 0.2 s); index 0 has a
    second successful attempt (a speculative copy that finished too) of 3.0 s, 2.9 s of run."""
    events = header({"1": 2})
    s0 = stage_info(0, 2)
    events += [job_start(0, 0, [s0]), stage_submitted(s0, 0),
               task_end(0, 0, 0, 1000, run=800, kind="ResultTask"),
               task_end(0, 1, 0, 1000, run=800, kind="ResultTask"),
               task_end(0, 2, 0, 3000, run=2900, kind="ResultTask", index=0, attempt=1, speculative=True),
               job_end(0, 3000)]
    return write_log(tmp_path / "app-maps", events)


def test_a_missing_kind_takes_the_other_kinds_overhead_and_says_so(tmp_path):
    """The logs have result tasks only: a nominal job's maps (shuffle-map tasks, 1.0 s) take the
    result tasks' median overhead (0.2, 0.2, 0.1 of the three attempts: 0.2) and a warning says so."""
    from planner.io.spark.logs import SparkImportWarning

    with pytest.warns(SparkImportWarning, match=r"no measured successful shuffle_map task: its overhead is the "
                                                r"result tasks' \(0\.2 s, median\)"):
        profile = fit_spark(_map_only_log(tmp_path))
    assert profile.missing_kinds() == ("shuffle_map",)
    with pytest.warns(SparkImportWarning, match="shuffle_map"):
        calibrated = with_overheads(Workload([Job("mr", 4, 2, 1.0, 2.0)]), profile)
    assert (calibrated["mr"].map_time, calibrated["mr"].reduce_time) == (1.2, 2.2)


def test_profile_work_counts_one_success_per_task(tmp_path):
    """The job's work is the mean of the attempts the batch keeps (index 0's first success, 0.8 s,
    and index 1's, 0.8 s): 0.8, not (0.8 + 0.8 + 2.9) / 3 = 1.5 over every successful attempt."""
    profile = _fit(_map_only_log(tmp_path))
    assert profile.jobs[0]["map_work"] == 0.8 and profile.workload["job-0"].map_time == 1.0
