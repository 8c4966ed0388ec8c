"""The SYNTH (Hadoop SLS synthetic workloads) and SWF (Standard Workload Format) importers.

SYNTH: tests/data/hadoop-conf/sls-synth.json is SLS's own test file (see tests/data/NOTICE.md);
larger descriptions are written here. SWF: tests/data/sample.swf is this project's own log.
"""

from __future__ import annotations

import copy
import inspect
import json
import math
import re
import warnings

import numpy as np
import pytest
from typer.testing import CliRunner

from models import Cluster, InvalidInput, Workload
from planner.cli.main import app
from planner.io.importers import IMPORTERS, read_trace
from planner.io.json_traces import TraceWarning
from planner.io.swf import SWF_FIELDS, read_swf
from planner.io.synth import read_synth, synth_cluster

SYNTH = "hadoop-conf/sls-synth.json"
runner = CliRunner()


def _quiet(reader, *args, **kwargs):
    """The reader's result, its `TraceWarning`s (the settings not modelled) swallowed."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TraceWarning)
        return reader(*args, **kwargs)


def _synth_file(tmp_path, data, name="synth.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def _base(data_dir) -> dict:
    return json.loads((data_dir / SYNTH).read_text())


# -- SYNTH ------------------------------------------------------------------------------------------


def test_synth_is_deterministic_and_the_file_seed_is_the_default(data_dir):
    path = data_dir / SYNTH
    first = _quiet(read_synth, path)
    assert first == _quiet(read_synth, path)  # same file, same workload
    assert first == _quiet(read_synth, path, seed=2)  # the file's rand_seed is 2
    assert first != _quiet(read_synth, path, seed=3)
    assert len(first) == 10 and first.name == "sls-synth"
    assert first.names == [f"class_1_{k:06d}" for k in range(10)]  # SLS's names, in submit order
    submits = [job.submit for job in first]
    assert submits == sorted(submits) and all(1.0 <= s < 60.0 for s in submits)
    assert all(s != int(s) for s in submits)  # real numbers, not SLS's whole seconds
    assert {job.pool for job in first} == {"sls_queue_1"}


def test_synth_limit_keeps_the_first_jobs_of_the_full_draw(data_dir):
    full = _quiet(read_synth, data_dir / SYNTH)
    assert _quiet(read_synth, data_dir / SYNTH, limit=4).jobs == full.jobs[:4]


def test_synth_without_a_seed_uses_0_as_sls_does(tmp_path, data_dir):
    data = _base(data_dir)
    del data["rand_seed"]
    drawn = _quiet(read_synth, _synth_file(tmp_path, data)).jobs
    assert drawn == _quiet(read_synth, data_dir / SYNTH, seed=0).jobs != _quiet(read_synth, data_dir / SYNTH).jobs


def _two_workloads(data_dir, num_jobs: int) -> dict:
    """SLS's class in workload A (weight 1, queue qa); workload B (weight 3, queue qb) holds a
    map-only class whose stddevs are 0 (SLS: avg / 6) and a class with no deadlines."""
    data = _base(data_dir)
    data["num_jobs"] = num_jobs
    first = data["workloads"][0]
    first.update(workload_weight=1, queue_name="qa")
    map_only = {"class_name": "maponly", "class_weight": 1, "mtasks_avg": 12, "mtime_avg": 30, "rtasks_avg": 0}
    plain = {"class_name": "plain", "class_weight": 3, "mtasks_avg": 2, "mtasks_stddev": 0.5, "mtime_avg": 5,
             "rtasks_avg": 1, "rtasks_stddev": 0.1, "rtime_avg": 8}
    data["workloads"].append({"workload_weight": 3, "queue_name": "qb", "job_classes": [map_only, plain],
                              "time_distribution": [{"time": 0, "weight": 1}, {"time": 100, "weight": 3},
                                                    {"time": 200, "weight": 0}]})
    return data


def test_synth_draws_follow_the_distributions(tmp_path, data_dir):
    """20,000 jobs. Every tolerance is over 5 standard errors of its estimate, so the test is not
    flaky, and well under any real mistake (a normal instead of SLS's mean, a wrong weight):

    - workload shares 1:3: the share of qa is 0.25, standard error sqrt(0.25 * 0.75 / 20000) =
      0.003; tolerance 0.02;
    - class_1 (qa, ~5,000 jobs): maps log-normal with mean 5 and stddev 1; rounding adds no bias
      and 1/12 to the variance: mean 5 (standard error 1 / sqrt(5000) = 0.014; tolerance 0.1),
      stddev sqrt(1 + 1/12) = 1.04 (tolerance 0.1); reduces mean 5; a job's map time is the mean
      of its maps' times, each with mean 10: mean 10 (tolerance 0.2);
    - maponly (qb, ~3,750 jobs): a stddev of 0 is 12 / 6 = 2 maps: stddev sqrt(4 + 1/12) = 2.02
      (tolerance 0.15); no reduces;
    - classes in qb 1:3: a maponly share of 0.25 (tolerance 0.03);
    - submit times in qb: weight 1 on [0, 100), 3 on [100, 200), none after: a share of 0.25
      below 100 (tolerance 0.03), all below 200;
    - deadlines: chance_of_reservation 0.5 for class_1 (tolerance 0.03), none for the others;
      slack = factor x duration, factor ~10 (stddev 0.001) and duration mean 60: mean 600
      (standard error 10 * 5 / sqrt(2500) = 1; tolerance 10).
    """
    workload = _quiet(read_synth, _synth_file(tmp_path, _two_workloads(data_dir, 20_000)))
    jobs = list(workload)
    assert len(jobs) == 20_000
    assert np.mean([j.pool == "qa" for j in jobs]) == pytest.approx(0.25, abs=0.02)
    sls = [j for j in jobs if j.name.startswith("class_1_")]
    maps = np.array([j.map_tasks for j in sls])
    assert maps.mean() == pytest.approx(5, abs=0.1) and maps.std() == pytest.approx(math.sqrt(1 + 1 / 12), abs=0.1)
    assert np.mean([j.reduce_tasks for j in sls]) == pytest.approx(5, abs=0.1)
    assert np.mean([j.map_time for j in sls]) == pytest.approx(10, abs=0.2)
    # each task's time is drawn on its own: a 5-map job's mean time has stddev 2 / sqrt(5) = 0.89
    # (one draw per job would give 2)
    assert np.std([j.map_time for j in sls if j.map_tasks == 5]) == pytest.approx(2 / math.sqrt(5), abs=0.1)
    assert np.mean([j.reduce_time for j in sls]) == pytest.approx(20, abs=0.4)
    map_only = [j for j in jobs if j.name.startswith("maponly_")]
    assert np.std([j.map_tasks for j in map_only]) == pytest.approx(math.sqrt(4 + 1 / 12), abs=0.15)
    assert {(j.reduce_tasks, j.reduce_time) for j in map_only} == {(0, 0.0)}
    assert all(j.map_tasks >= 1 for j in jobs)
    in_qb = [j for j in jobs if j.pool == "qb"]
    assert len(map_only) / len(in_qb) == pytest.approx(0.25, abs=0.03)  # class weights 1:3
    qb = np.array([j.submit for j in in_qb])
    assert np.mean(qb < 100) == pytest.approx(0.25, abs=0.03) and qb.max() < 200
    with_deadline = [j for j in sls if j.deadline is not None]
    assert len(with_deadline) / len(sls) == pytest.approx(0.5, abs=0.03)
    assert np.mean([j.deadline - j.submit for j in with_deadline]) == pytest.approx(600, abs=10)
    assert all(j.deadline is None for j in jobs if j.pool == "qb")


def test_synth_floors_one_map_and_a_millisecond(tmp_path, data_dir):
    """mtasks_avg 0.4 rounds to 0 maps: a job keeps 1; mtime_avg 0.1 ms: every task takes
    `MIN_TASK_SECONDS` (1 ms)."""
    data = _base(data_dir)
    data["workloads"][0]["job_classes"][0].update(mtasks_avg=0.4, mtasks_stddev=0.01, mtime_avg=1e-4,
                                                  mtime_stddev=1e-5)
    workload = _quiet(read_synth, _synth_file(tmp_path, data))
    assert {(j.map_tasks, j.map_time) for j in workload} == {(1, 0.001)}


def test_synth_duration_only_makes_deadlines(tmp_path, data_dir):
    data = _base(data_dir)
    data["workloads"][0]["job_classes"][0]["chance_of_reservation"] = 0
    first = _quiet(read_synth, _synth_file(tmp_path, data, "a.json"))
    data["workloads"][0]["job_classes"][0].update(dur_avg=6000, dur_stddev=50)
    assert _quiet(read_synth, _synth_file(tmp_path, data, "b.json")).jobs == first.jobs
    assert all(job.deadline is None for job in first)


def test_synth_last_time_point_is_its_time_exactly(tmp_path, data_dir):
    """Piecewise constant: a point's weight spreads over [its time, the next point's); the last
    point has no next one, so its jobs are submitted at its time."""
    data = _base(data_dir)
    data["workloads"][0]["time_distribution"] = [{"time": 0, "weight": 0}, {"time": 50, "weight": 1}]
    assert {j.submit for j in _quiet(read_synth, _synth_file(tmp_path, data))} == {50.0}


def test_synth_names_what_it_does_not_model(tmp_path, data_dir):
    with pytest.warns(TraceWarning) as caught:
        read_synth(data_dir / SYNTH)
    (message,) = [str(w.message) for w in caught]
    for named in ("memory", "vcores", "execution types", "user_name", "YARN reservations", "num_nodes",
                  "nodes_per_rack", "synth_cluster"):
        assert named in message, named
    plain = {"num_jobs": 3, "workloads": [{"workload_weight": 1, "time_distribution": [{"time": 0, "weight": 1}],
                                          "job_classes": [{"class_weight": 1, "mtasks_avg": 2, "mtime_avg": 4}]}]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing ignored, nothing to say
        workload = read_synth(_synth_file(tmp_path, plain))
    assert {(j.pool, j.reduce_tasks, j.deadline) for j in workload} == {("default", 0, None)}
    assert workload.names == ["job_000000", "job_000001", "job_000002"]


def test_synth_cluster(data_dir, tmp_path):
    assert synth_cluster(data_dir / SYNTH) == Cluster(nodes=20, racks=5)
    assert synth_cluster(data_dir / SYNTH, map_slots=4).map_slots == 4
    data = _base(data_dir)
    data["nodes_per_rack"] = 0  # SLS reads it as 1
    assert synth_cluster(_synth_file(tmp_path, data)).racks == 20
    del data["num_nodes"]
    with pytest.raises(InvalidInput, match=r"synth.json: num_nodes: is required for a cluster"):
        synth_cluster(_synth_file(tmp_path, data))


def _synth_change(data: dict, change: str) -> None:
    job_class = data["workloads"][0]["job_classes"][0]
    if change == "no workloads":
        del data["workloads"]
    elif change == "num_jobs 0":
        data["num_jobs"] = 0
    elif change == "negative seed":
        data["rand_seed"] = -3
    elif change == "typo":
        job_class["mtask_avg"] = job_class.pop("mtasks_avg")
    elif change == "newer form":
        job_class["tasks"] = []
    elif change == "times not increasing":
        data["workloads"][0]["time_distribution"][1]["time"] = 1
    elif change == "no time weight":
        data["workloads"][0]["time_distribution"][0]["weight"] = 0
    elif change == "no maps":
        job_class["mtasks_avg"] = 0
    elif change == "reduces without a time":
        job_class["rtime_avg"] = 0
    elif change == "chance above 1":
        job_class["chance_of_reservation"] = 1.5
    elif change == "too many tasks":
        data["num_jobs"] = 12_000
        job_class["mtasks_avg"] = 1_000


SYNTH_ERRORS = [
    ("no workloads", r"workloads: is required"),
    ("num_jobs 0", r"num_jobs: must be >= 1, got 0"),
    ("negative seed", r"rand_seed: must be >= 0, got -3"),
    ("typo", r"workloads\[0\]\.job_classes\[0\]\.mtask_avg: unknown key"),
    ("newer form", r"job_classes\[0\]\.tasks: SLS's newer job-class form"),
    ("times not increasing", r"time_distribution\[1\]\.time: must be after the previous point's \(1 s\), got 1"),
    ("no time weight", r"workloads\[0\]\.time_distribution: the weights add up to 0"),
    ("no maps", r"job_classes\[0\]\.mtasks_avg: must be > 0"),
    ("reduces without a time", r"job_classes\[0\]\.rtime_avg: must be > 0 when rtasks_avg is"),
    ("chance above 1", r"job_classes\[0\]\.chance_of_reservation: must be <= 1"),
    ("too many tasks", r"num_jobs: the 12,000 jobs drawn have .* tasks; a workload has at most 10,000,000"),
]


@pytest.mark.parametrize(("change", "message"), SYNTH_ERRORS, ids=[c for c, _ in SYNTH_ERRORS])
def test_synth_errors_name_the_file_and_the_field(tmp_path, data_dir, change, message):
    data = copy.deepcopy(_base(data_dir))
    _synth_change(data, change)
    path = _synth_file(tmp_path, data)
    with pytest.raises(InvalidInput, match=message) as caught:
        _quiet(read_synth, path)
    text = str(caught.value)
    assert text.startswith(f"{path}: ") and "\n" not in text
    _exits_2_with_one_line(["import", "synth", str(path)], message)


def test_synth_bad_json_and_bad_options(tmp_path, data_dir):
    path = tmp_path / "broken.json"
    path.write_text('{"num_jobs": 3,')
    with pytest.raises(InvalidInput, match=r"broken.json: \(top level\): malformed JSON"):
        read_synth(path)
    with pytest.raises(InvalidInput, match=r"^seed: must be >= 0, got -1"):
        read_synth(data_dir / SYNTH, seed=-1)
    with pytest.raises(InvalidInput, match=r"^limit: must be >= 1"):
        read_synth(data_dir / SYNTH, limit=0)


# -- SWF --------------------------------------------------------------------------------------------


def test_swf_sample_field_by_field(data_dir):
    """sample.swf has 18 job lines; 12 jobs are kept. Submit times count from job 2's 100 s (job 1,
    at 40 s, was cancelled before it ran). Per job: maps = allocated processors, map_time = run time:

    - job2: 16 maps x 300 s, submit 100 - 100 = 0, queue 1: pool queue-1;
    - job4: allocated -1, so its 8 requested processors: 8 x 1,200 s, submit 60;
    - job5: status 0 (failed after 600 s): kept, 32 x 600 s, submit 100, queue-2;
    - job7: run time 90.5 s (real numbers allowed), 2 maps, queue -1 so user 5: pool user-5;
    - job11: its own line (8 x 700 s, submit 350); its two partial executions are skipped;
    - job14: status, user and queue unknown: pool default;
    - job16: cancelled after running 150 s: kept, 1 x 150 s, submit 540.

    In all 16 + 1 + 8 + 32 + 2 + 64 + 1 + 8 + 12 + 2 + 4 + 1 = 151 maps, no reduces.
    """
    workload = _quiet(read_swf, data_dir / "sample.swf")
    assert workload.name == "sample"
    assert workload.names == ["job2", "job3", "job4", "job5", "job7", "job9", "job10", "job11", "job13", "job14",
                              "job15", "job16"]
    rows = {j.name: (j.map_tasks, j.map_time, j.submit, j.pool) for j in workload}
    assert rows["job2"] == (16, 300.0, 0.0, "queue-1")
    assert rows["job4"] == (8, 1200.0, 60.0, "queue-1")
    assert rows["job5"] == (32, 600.0, 100.0, "queue-2")
    assert rows["job7"] == (2, 90.5, 160.0, "user-5")
    assert rows["job11"] == (8, 700.0, 350.0, "queue-1")
    assert rows["job14"] == (2, 30.0, 460.0, "default")
    assert rows["job16"] == (1, 150.0, 540.0, "queue-1")
    assert sum(j.map_tasks for j in workload) == 151
    assert {(j.reduce_tasks, j.reduce_time, j.deadline) for j in workload} == {(0, 0.0, None)}


def test_swf_counts_what_it_skips_and_names_what_it_ignores(data_dir):
    """Skipped: jobs 1 and 12 (cancelled, no run time), job 6 (ran 0 s), job 8 (no processors) and
    job 11's two partial-execution lines: 6 of the 18 job lines."""
    with pytest.warns(TraceWarning) as caught:
        read_swf(data_dir / "sample.swf")
    skipped, ignored = [str(w.message) for w in caught]
    assert skipped.endswith("sample.swf: skipped 6 of 18 job lines: 2 cancelled before they ran (status 5), "
                            "1 with no run time (0 or -1), 1 with no processor count, "
                            "2 partial executions (status 2, 3, 4)")
    assert ignored.endswith("not modelled, ignored: wait_time, average_cpu_time, used_memory, requested_time, "
                            "requested_memory, group_id, executable_number, partition_number, "
                            "preceding_job_number, think_time")


def test_swf_window_limit_and_pools(data_dir):
    """window (150, 400): jobs 4, 5, 7 and 9 (6 and 8 skipped), submits 160, 200, 260, 330 - 150."""
    path = data_dir / "sample.swf"
    with pytest.warns(TraceWarning) as caught:
        windowed = read_swf(path, window=(150, 400))
    # none of the kept jobs knows a preceding job or a think time (job 10 does, at 400 s)
    assert str(caught[-1].message).endswith("requested_memory, group_id, executable_number, partition_number")
    assert [(j.name, j.submit) for j in windowed] == [("job4", 10.0), ("job5", 50.0), ("job7", 110.0),
                                                       ("job9", 180.0)]
    assert _quiet(read_swf, path, limit=3).names == ["job2", "job3", "job4"]
    by_user = _quiet(read_swf, path, pool_by="user")
    assert by_user["job2"].pool == "user-1" and by_user["job14"].pool == "default"
    with pytest.raises(InvalidInput, match=r"^pool_by: must be one of queue, user; got 'group'"):
        read_swf(path, pool_by="group")
    with pytest.raises(InvalidInput, match=r"sample.swf: window: no jobs to import submitted in the window"):
        _quiet(read_swf, path, window=(5000, 6000))


def test_swf_allocated_zero_takes_the_request_and_run_times_have_a_floor(tmp_path):
    path = tmp_path / "edge.swf"
    path.write_text(_swf_line(allocated_processors="0", requested_processors="3", run_time="0.0004"))
    (job,) = _quiet(read_swf, path)
    assert (job.name, job.map_tasks, job.map_time, job.submit, job.pool) == ("job1", 3, 0.001, 0.0, "default")


def _swf_line(**values: float | str) -> str:
    fields = dict.fromkeys(SWF_FIELDS, "-1") | {"job_number": "1", "submit_time": "0", "run_time": "10",
                                                "allocated_processors": "2", "status": "1"}
    return " ".join(str(v) for v in (fields | values).values()) + "\n"


SWF_ERRORS = [
    ("1 0 10 2\n", r"line 1: expected 18 whitespace-separated fields, got 4"),
    (_swf_line(run_time="x"), r"line 1\.run_time: must be a number, got 'x'"),
    (_swf_line(run_time="-5"), r"line 1\.run_time: must be >= 0, or -1 \(unknown\), got '-5'"),
    (_swf_line(allocated_processors="2.5"), r"line 1\.allocated_processors: must be a whole number, got '2.5'"),
    (_swf_line(user_id="3.5"), r"line 1\.user_id: must be a whole number, got '3.5'"),
    (_swf_line(status="7"), r"line 1\.status: must be one of -1, 0, 1, 2, 3, 4, 5, got 7"),
    (_swf_line(job_number="-1"), r"line 1\.job_number: must be known \(>= 0\), got -1"),
    (_swf_line(submit_time="-1"), r"line 1\.submit_time: must be known \(>= 0\), got -1"),
    (_swf_line(think_time="inf"), r"line 1\.think_time: must be a finite number, got 'inf'"),
    (_swf_line(wait_time="1" * 101), r"line 1\.wait_time: a number of 101 characters"),
    (_swf_line(allocated_processors="2000000"), r"line 1\.allocated_processors: must be <= 1,000,000"),
    (_swf_line() + _swf_line(submit_time="5"), r"line 2\.job_number: duplicate job number 1 \(also line 1\)"),
    ("; only a header\n\n", r"\(top level\): no jobs to import"),
    (_swf_line(run_time="0"), r"\(top level\): no jobs to import"),
]


@pytest.mark.parametrize(("text", "message"), SWF_ERRORS)
def test_swf_errors_name_the_file_line_and_field(tmp_path, text, message):
    path = tmp_path / "bad.swf"
    path.write_text(text)
    with pytest.raises(InvalidInput, match=message) as caught:
        _quiet(read_swf, path)
    assert str(caught.value).startswith(f"{path}: ") and "\n" not in str(caught.value)
    _exits_2_with_one_line(["import", "swf", str(path)], message)


# -- the registry and the command line --------------------------------------------------------------


def _exits_2_with_one_line(argv: list[str], message: str) -> None:
    result = runner.invoke(app, argv)
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: ") and re.search(message, line), line


@pytest.mark.parametrize(("name", "sample", "reader"), [("synth", SYNTH, read_synth), ("swf", "sample.swf", read_swf)])
def test_the_new_importers_keep_the_registry_contract(name, sample, reader, data_dir):
    """Each reader takes a path and the options it declares, and the registry reads its sample
    as the reader does."""
    importer = IMPORTERS[name]
    assert importer.reader() is reader
    parameters = inspect.signature(reader).parameters
    assert all(option in parameters for option in importer.options)
    workload = _quiet(read_trace, name, data_dir / sample)
    assert isinstance(workload, Workload) and workload == _quiet(reader, data_dir / sample)
    assert _quiet(read_trace, name, data_dir / sample, limit=2) == _quiet(reader, data_dir / sample, limit=2)


def test_import_then_plan_and_simulate_on_the_command_line(tmp_path, data_dir):
    cluster = str(tmp_path.parent / "cluster.yaml")
    Cluster(nodes=20, racks=2).to_file(cluster)
    for argv, jobs in ((["synth", str(data_dir / SYNTH)], 10), (["swf", str(data_dir / "sample.swf")], 12)):
        out = str(tmp_path / f"{argv[0]}.yaml")
        imported = runner.invoke(app, ["import", *argv, "-o", out, "--json"])
        assert imported.exit_code == 0, imported.output
        assert json.loads(imported.stdout)["workload"]["jobs"] == jobs
        assert "warning: TraceWarning:" in imported.stderr
        reader = read_synth if argv[0] == "synth" else read_swf
        assert Workload.from_file(out) == _quiet(reader, argv[1])  # on the command line: the file's seed
        simulated = runner.invoke(app, ["simulate", out, "-c", cluster, "-s", "fair", "--json"])
        assert simulated.exit_code == 0, simulated.output
        assert json.loads(simulated.stdout)["result"]["jobs"] == jobs
        planned = runner.invoke(app, ["plan", out, "-c", cluster, "--json"])
        assert planned.exit_code == 0, planned.output
        assert json.loads(planned.stdout)["plan"]["predicted_makespan"] > 0
    skipped = runner.invoke(app, ["import", "swf", str(data_dir / "sample.swf"), "--window", "150,400"])
    assert skipped.exit_code == 0 and "skipped 2 of 6 job lines" in skipped.stderr
    wrong = runner.invoke(app, ["import", "synth", str(data_dir / SYNTH), "--window", "0,10"])
    assert wrong.exit_code == 2 and wrong.stderr.strip() == "error: --window: synth traces take no such option"


def test_synth_seed_from_the_command_line(data_dir, tmp_path):
    """--seed overrides the file's rand_seed: the same workload as read_synth(seed=...)."""
    out = tmp_path / "s.yaml"
    result = runner.invoke(app, ["import", "synth", str(data_dir / SYNTH), "--seed", "7", "-o", str(out)])
    assert result.exit_code == 0, result.output
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TraceWarning)
        assert Workload.from_file(out).to_dict() == read_synth(data_dir / SYNTH, seed=7).to_dict()
        assert read_synth(data_dir / SYNTH, seed=7).to_dict() != read_synth(data_dir / SYNTH).to_dict()
    other = runner.invoke(app, ["import", "swim", str(data_dir / "FB-2009_samples_24_times_1hr_0_first50jobs.tsv"),
                                "--seed", "7"])
    assert other.exit_code == 2 and "--seed: swim traces take no such option" in other.output
