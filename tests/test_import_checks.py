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
    """The first 50 FB-2009 jobs hold job38, whose one map runs 4,101 s: SWIM's conversion of a
    map-only job writing its 86 GB of output from its one map."""
    result = CliRunner().invoke(app, ["import", "swim", str(FB50), "--json"])
    assert result.exit_code == 0, result.output
    flagged = json.loads(result.stdout)["outliers"]
    assert flagged and all(o["seconds"] > o["limit"] for o in flagged)
    assert "job38" in {o["job"] for o in flagged}
    sliced = CliRunner().invoke(app, ["import", "swim", str(FB50), "--window", "100,400", "--json"])
    assert json.loads(sliced.stdout)["workload"]["jobs"] == len(read_swim(FB50, window=(100.0, 400.0)))
    bad = CliRunner().invoke(app, ["import", "swim", str(FB50), "--window", "soon"])
    assert bad.exit_code == 2 and "--window: must be two numbers" in bad.output
    rumen = CliRunner().invoke(app, ["import", "rumen", str(FB50.parent / "wordcount.json"), "--window", "0,10"])
    assert rumen.exit_code == 2 and "--window: rumen traces take no such option" in rumen.output
