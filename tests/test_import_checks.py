"""Importing with a submit-time window, and the outliers an import flags."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from models import InvalidInput, Job, Workload
from planner import read_swim
from planner.cli.main import app
from planner.io.summary import OUTLIER_JOB_SECONDS, OUTLIER_TASK_SECONDS, outliers

FB50 = Path(__file__).parent / "data" / "FB-2009_samples_24_times_1hr_0_first50jobs.tsv"


def test_a_window_keeps_the_jobs_submitted_in_it_counted_from_its_start():
    whole = read_swim(FB50)
    sliced = read_swim(FB50, window=(100.0, 400.0))
    expected = [job for job in whole if 100.0 <= job.submit < 400.0]
    assert [job.name for job in sliced] == [job.name for job in expected] and expected
    assert [job.submit for job in sliced] == pytest.approx([job.submit - 100.0 for job in expected])
    assert len(read_swim(FB50, window=(100.0, 400.0), limit=2)) == 2


@pytest.mark.parametrize(("window", "message"), [
    ((400.0, 100.0), "window: must end after it starts"),
    ((-1.0, 10.0), "window.start: must be >= 0"),
    ((1e8, 2e8), "window: no jobs in the trace submitted in the window"),
])
def test_bad_windows(window, message):
    with pytest.raises(InvalidInput, match=message):
        read_swim(FB50, window=window)


def test_outliers_are_a_task_over_an_hour_or_a_path_over_a_day():
    jobs = Workload([Job("ok", 1, 1, 3_600.0, 60.0), Job("long-map", 1, 0, 3_601.0),
                     Job("long-reduce", 1, 1, 10.0, 4_000.0), Job("day", 1, 1, 80_000.0, 7_000.0)])
    assert [(o["job"], o["what"]) for o in outliers(jobs)] == [
        ("long-map", "a map task takes over an hour"), ("long-reduce", "a reduce task takes over an hour"),
        ("day", "a map and a reduce take over a day")]
    assert (OUTLIER_TASK_SECONDS, OUTLIER_JOB_SECONDS) == (3_600.0, 86_400.0)


def test_import_reports_outliers_and_takes_a_window_from_the_command_line():
    """The first 50 FB-2009 jobs hold job38, a map-only job writing 86 GB of output. Unsplit
    (--no-split-output) its one map writes it all and runs 4,101 s, an outlier; split (the
    default) it gets a map per 128 MiB block of output, none over an hour, and nothing is flagged."""
    result = CliRunner().invoke(app, ["import", "swim", str(FB50), "--no-split-output", "--json"])
    assert result.exit_code == 0, result.output
    flagged = json.loads(result.stdout)["outliers"]
    assert flagged and all(o["seconds"] > o["limit"] for o in flagged)
    assert "job38" in {o["job"] for o in flagged}
    split = json.loads(CliRunner().invoke(app, ["import", "swim", str(FB50), "--json"]).stdout)
    assert split["outliers"] == [] and split["workload"]["map_tasks"] == 1291
    sliced = CliRunner().invoke(app, ["import", "swim", str(FB50), "--window", "100,400", "--json"])
    assert json.loads(sliced.stdout)["workload"]["jobs"] == len(read_swim(FB50, window=(100.0, 400.0)))
    bad = CliRunner().invoke(app, ["import", "swim", str(FB50), "--window", "soon"])
    assert bad.exit_code == 2 and "--window: must be two numbers" in bad.output
    rumen = CliRunner().invoke(app, ["import", "rumen", str(FB50.parent / "wordcount.json"), "--window", "0,10"])
    assert rumen.exit_code == 2 and "--window: rumen traces take no such option" in rumen.output


def test_output_heavy_map_only_jobs_are_split_by_default():
    """docs/profiles-and-importers.md: job38 (map-only, 85,899,343,844 bytes of output from a tiny
    input) gets ceil(output / 128 MiB) = 640 maps of 5 + (input / 640) / 5 MiB/s + (output / 640)
    / 20 MiB/s = 11.4 s, instead of one map of 4,101 s; jobs with reduces keep their maps. On the
    whole FB-2009 day: 5,894 jobs, 265,145 tasks (227,608 unsplit)."""
    split = {job.name: job for job in read_swim(FB50)}
    whole = {job.name: job for job in read_swim(FB50, split_output=False)}
    assert (split["job38"].map_tasks, whole["job38"].map_tasks) == (640, 1)
    assert split["job38"].map_time == pytest.approx(11.4, abs=0.01) and whole["job38"].map_time > 4100
    assert all(split[n].map_tasks == whole[n].map_tasks for n in split if split[n].reduce_tasks)
    assert sum(job.map_tasks for job in split.values()) == 1291
    with pytest.raises(InvalidInput, match="split_output: must be true or false"):
        read_swim(FB50, split_output="yes")
