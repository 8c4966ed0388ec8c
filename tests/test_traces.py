"""Trace importers on the real public traces in tests/data, and on broken copies of them."""

from __future__ import annotations

import json
import math

import pytest

from models import InvalidInput, Workload
from planner.io.json_traces import TraceWarning, iter_json_objects, read_rumen, read_sls, rumen_task_records
from planner.io.swim import GiB, MiB, SwimConversion, read_swim

FB_DAY = "FB-2009_samples_24_times_1hr_0.tsv"
FB_50 = "FB-2009_samples_24_times_1hr_0_first50jobs.tsv"


def test_swim_first_job_by_hand(data_dir):
    """job0: submit 49 s, input 740,773 B, shuffle 2,339,561 B, output 627,471 B.

    maps = max(1, ceil(740773 / 128 MiB)) = 1; map_time = 5 + 740773 / 5 MiB = 5.14129 s.
    reduces = ceil(2339561 / 1 GiB) = 1;
    reduce_time = 5 + 2339561 / 10 MiB + 627471 / 20 MiB = 5 + 0.22312 + 0.02992 = 5.25304 s.
    """
    workload = read_swim(data_dir / FB_50)
    assert len(workload) == 50 and workload.name == FB_50[:-4]
    job = workload["job0"]
    assert (job.map_tasks, job.reduce_tasks, job.submit) == (1, 1, 49.0)
    assert job.map_time == pytest.approx(5.141291, abs=1e-6)
    assert job.reduce_time == pytest.approx(5.253038, abs=1e-6)


def test_swim_map_only_job_writes_output_in_maps(data_dir):
    """job4: input 3,623,279 B, shuffle 0, output 9,838,062 B: a map-only job.

    map_time = 5 + 3623279 / 5 MiB + 9838062 / 20 MiB = 5 + 0.69108 + 0.46912 = 6.16020 s.
    """
    job = read_swim(data_dir / FB_50)["job4"]
    assert (job.map_tasks, job.reduce_tasks, job.reduce_time) == (1, 0, 0.0)
    assert job.map_time == pytest.approx(6.160201, abs=1e-6)


def test_swim_largest_job_of_the_day_by_hand(data_dir):
    """job969 (line 970): input 7,551,263,722,208 B, shuffle 51,038,659,744 B, output 103,464 B.

    maps = ceil(7551263722208 / 134217728) = ceil(56261.3) = 56262 and each map reads
    7551263722208 / 56262 B, so map_time = 5 + that / 5 MiB = 30.59968 s (just under a full block's 30.6 s);
    reduces = ceil(51038659744 / 1 GiB) = ceil(47.53) = 48;
    reduce_time = 5 + 51038659744 / 48 / 10 MiB + 103464 / 48 / 20 MiB = 106.40481 s.
    """
    workload = read_swim(data_dir / FB_DAY)
    assert len(workload) == 5894
    job = workload["job969"]
    assert (job.map_tasks, job.reduce_tasks, job.submit) == (56262, 48, 17519.0)
    assert job.map_time == pytest.approx(30.599681, abs=1e-6)
    assert job.reduce_time == pytest.approx(106.404809, abs=1e-6)
    assert max(j.submit for j in workload) == 86404.0  # the trace spans one day and a few seconds


def test_swim_conversion_overrides_and_options(data_dir):
    """With 64 KiB blocks job0's 740,773 B input needs ceil(740773 / 65536) = ceil(11.30) = 12 maps."""
    workload = read_swim(data_dir / FB_50, limit=3, block_size=64 * 1024, pool="night", intensity="io")
    assert workload.names == ["job0", "job1", "job2"]
    assert workload["job0"].map_tasks == 12
    assert {j.pool for j in workload} == {"night"} and {j.intensity for j in workload} == {"io"}
    with pytest.raises(InvalidInput, match="block_size: must be > 0"):
        read_swim(data_dir / FB_50, block_size=0)
    with pytest.raises(InvalidInput, match=r"conversion: .*unexpected keyword"):
        read_swim(data_dir / FB_50, block=1)


def test_swim_conversion_defaults_are_documented_numbers():
    convert = SwimConversion()
    assert (convert.block_size, convert.bytes_per_reduce) == (128 * MiB, 1 * GiB)
    full_block = convert.job("x", 0.0, 128 * MiB, 0, 0)
    assert full_block.map_time == pytest.approx(5 + 25.6)
    one_reduce = convert.job("y", 0.0, 1, GiB, 0)
    assert one_reduce.reduce_time == pytest.approx(5 + 102.4)
    empty = SwimConversion(map_startup=0).job("z", 0.0, 0, 0, 0)
    assert empty.map_tasks == 1 and empty.map_time > 0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("job0\t1\t1\t10\t10\n", r"line 1: expected 6 tab-separated columns, got 5"),
        ("job0\t1\t1\t10\t10\t10\njob1\tx\t1\t1\t1\t1\n", r"line 2\.submit: must be a number, got 'x'"),
        ("job0\t1\t1\t-10\t10\t10\n", r"line 1\.map_input_bytes: must be >= 0"),
        ("job0\t1\t1\t10\t10\t10\njob0\t2\t1\t10\t10\t10\n", r"line 2\.job_id: duplicate job id 'job0' \(also line 1\)"),
        ("\t1\t1\t10\t10\t10\n", r"line 1\.job_id: must not be empty"),
        ("# only a comment\n\n", "no jobs in the trace"),
    ],
)
def test_swim_errors_name_file_line_and_field(tmp_path, text, message):
    path = tmp_path / "bad.tsv"
    path.write_text(text)
    with pytest.raises(InvalidInput, match=message) as caught:
        read_swim(path)
    assert str(path) in str(caught.value)


def test_swim_missing_file(tmp_path):
    with pytest.raises(InvalidInput, match="no such file"):
        read_swim(tmp_path / "nope.tsv")


def test_rumen_wordcount_by_hand(data_dir):
    """wordcount.json: one successful job, 3 maps and 1 reduce, all attempts SUCCESS.

    Map attempts last 13.114 - 6.218 = 6.896, 12.758 - 6.230 = 6.528 and 19.717 - 15.659 = 4.058 s:
    mean 17.482 / 3 = 5.82733 s. The reduce lasts 25.611 - 15.659 = 9.952 s.
    """
    workload = read_rumen(data_dir / "wordcount.json")
    (job,) = list(workload)
    assert job.name == "job_201009241532_0001"
    assert (job.map_tasks, job.reduce_tasks, job.submit, job.pool, job.priority) == (3, 1, 0.0, "default", 0)
    assert job.map_time == pytest.approx(5.827333, abs=1e-6)
    assert job.reduce_time == pytest.approx(9.952)


def _independent_rumen_means(path):
    """The same quantities computed straight from the JSON, for the larger trace."""
    decoder, text, out, pos = json.JSONDecoder(), path.read_text(), [], 0
    while pos < len(text.rstrip()):
        job, pos = decoder.raw_decode(text, pos)
        pos = len(text) - len(text[pos:].lstrip())
        times = [
            (a["finishTime"] - a["startTime"]) / 1000
            for t in job["mapTasks"]
            for a in t["attempts"]
            if a["result"] == "SUCCESS"
        ]
        out.append((job["jobID"], len(job["mapTasks"]), sum(times) / len(times), job["submitTime"]))
    return out


def test_rumen_two_teragen_jobs(data_dir):
    path = data_dir / "2jobs2min-rumen-jh.json"
    workload = read_rumen(path)
    expected = _independent_rumen_means(path)
    assert [j.name for j in workload] == [e[0] for e in expected]
    for job, (_, maps, mean, submit) in zip(workload, expected, strict=True):
        assert (job.map_tasks, job.reduce_tasks) == (maps, 0) == (96, 0)
        assert job.map_time == pytest.approx(mean)
        assert job.submit == pytest.approx((submit - expected[0][3]) / 1000)
        assert job.pool == "sls_queue_1"
    assert workload[1].submit == pytest.approx(105.204)


def _wordcount(data_dir) -> dict:
    return json.loads((data_dir / "wordcount.json").read_text())


def test_rumen_failed_jobs_skipped_with_warning_or_kept(tmp_path, data_dir):
    good = _wordcount(data_dir)
    failed = {**good, "jobID": "job_failed", "outcome": "FAILED", "priority": "HIGH", "queue": "prod"}
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps(good) + "\n" + json.dumps(failed) + "\n")
    with pytest.warns(TraceWarning, match="job_failed: outcome 'FAILED', skipped"):
        workload = read_rumen(path)
    assert workload.names == [good["jobID"]]
    kept = read_rumen(path, keep_failed=True)
    assert kept.names == [good["jobID"], "job_failed"]
    assert (kept["job_failed"].priority, kept["job_failed"].pool) == (1, "prod")


def test_rumen_failed_attempts_do_not_count(tmp_path, data_dir):
    """Mark the 4.058 s map attempt FAILED: the task still counts (3 maps), the mean is (6.896 + 6.528) / 2."""
    job = _wordcount(data_dir)
    job["mapTasks"][2]["attempts"][0]["result"] = "FAILED"
    path = tmp_path / "one-failed-attempt.json"
    path.write_text(json.dumps(job))
    workload = read_rumen(path)
    assert workload[0].map_tasks == 3
    assert workload[0].map_time == pytest.approx((6.896 + 6.528) / 2)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda j: j.pop("submitTime"), r"jobs\[0\] \(line 1\)\.submitTime: is required"),
        (lambda j: j.update(submitTime="soon"), r"jobs\[0\] \(line 1\)\.submitTime: must be a number"),
        (lambda j: j.update(jobID=""), r"jobs\[0\] \(line 1\)\.jobID: must be a non-empty string"),
        (lambda j: j.update(mapTasks={}), r"\.mapTasks: must be a list"),
        (lambda j: j["mapTasks"][0].update(attempts=None), r"\.mapTasks\[0\]\.attempts: must be a list"),
        (lambda j: j["mapTasks"][1]["attempts"][0].update(finishTime=0),
         r"\.mapTasks\[1\]\.attempts\[0\]\.finishTime: is before startTime"),
    ],
)
def test_rumen_errors_name_file_job_and_field(tmp_path, data_dir, mutate, message):
    job = _wordcount(data_dir)
    mutate(job)
    path = tmp_path / "bad-rumen.json"
    path.write_text(json.dumps(job))
    with pytest.raises(InvalidInput, match=message) as caught:
        read_rumen(path)
    assert str(caught.value).startswith(str(path))


def test_rumen_malformed_json_names_line(tmp_path, data_dir):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_wordcount(data_dir)) + "\n{\"jobID\": ,}\n")
    with pytest.raises(InvalidInput, match=r"line 2: malformed JSON"):
        read_rumen(path)


def test_json_stream_and_array_forms(tmp_path):
    stream = tmp_path / "s.json"
    stream.write_text('{"a": 1}\n\n{"a": 2}\n')
    assert list(iter_json_objects(stream)) == [(1, {"a": 1}), (3, {"a": 2})]
    array = tmp_path / "a.json"
    array.write_text('[{"a": 1}, {"a": 2}]')
    assert [v for _, v in iter_json_objects(array)] == [{"a": 1}, {"a": 2}]


def test_rumen_task_records_feed_phase_profiles(data_dir):
    from models import PhaseProfile

    records = rumen_task_records(data_dir / "wordcount.json")
    assert len(records) == 4 and {r["kind"] for r in records} == {"map", "reduce"}
    assert records[0]["start"] == pytest.approx(6.218) and records[0]["end"] == pytest.approx(13.114)
    profile = PhaseProfile().fit(records)
    assert profile.map_time_[0] == pytest.approx(5.827333, abs=1e-6)
    assert profile.reduce_time_[0] == pytest.approx(9.952)


def test_sls_by_hand(data_dir):
    """inputsls.json job_1: maps of 23707 - 6664 = 17043, 21593 - 6665 = 14928 and
    86613 - 68770 = 17843 ms: mean 49814 / 3 ms = 16.60467 s; no reduce containers.
    job_2 starts at 105204 ms, so submits 105.204 s after job_1."""
    workload = read_sls(data_dir / "inputsls.json")
    assert workload.names == ["job_1", "job_2"]
    first, second = workload
    assert (first.map_tasks, first.reduce_tasks, first.pool) == (3, 0, "sls_queue_1")
    assert first.map_time == pytest.approx(49.814 / 3)
    assert second.submit == pytest.approx(105.204) and second.pool == "sls_queue_2"


def test_sls_errors(tmp_path, data_dir):
    jobs = list(iter_json_objects(data_dir / "inputsls.json"))
    job = dict(jobs[0][1])
    job["job.tasks"] = [{**job["job.tasks"][0], "container.type": "shuffle"}]
    path = tmp_path / "bad-sls.json"
    path.write_text(json.dumps(job))
    with pytest.raises(InvalidInput, match=r"job\.tasks\[0\]\.container\.type: must be map or reduce, got 'shuffle'"):
        read_sls(path)
    job["job.tasks"] = []
    path.write_text(json.dumps(job))
    with pytest.raises(InvalidInput, match=r"job\.tasks: must be a non-empty list"):
        read_sls(path)


def test_imported_workload_round_trips_through_files(tmp_path, data_dir):
    workload = read_swim(data_dir / FB_50)
    for name in ("w.yaml", "w.json"):
        workload.to_file(tmp_path / name)
        again = Workload.from_file(tmp_path / name)
        assert again.to_records() == workload.to_records()
    assert all(math.isfinite(j.map_time) for j in workload)
