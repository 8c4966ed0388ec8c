"""The plan against a baseline, run for run: numbers worked by hand."""

from __future__ import annotations

import pytest

from planner.proof.paired import paired_difference, verdict_text


def test_a_plan_faster_in_every_run():
    """Differences 2, 2, 2, 2: every resample's median is 2, so the interval is [2, 2]."""
    record = paired_difference([10.0] * 4, [12.0] * 4, seed=0)
    assert record == {"runs": 4, "plan_wins": 4, "win_rate": 1.0, "median_difference": 2.0, "ci_low": 2.0,
                      "ci_high": 2.0, "verdict": "plan faster"}


def test_a_tie_in_the_median_is_no_clear_difference():
    """Differences -1, +1, -1, +1: median 0; resamples give medians from -1 to +1, so the
    interval holds zero whatever the seed."""
    for seed in range(5):
        record = paired_difference([10.0, 10.0, 10.0, 10.0], [9.0, 11.0, 9.0, 11.0], seed=seed)
        assert record["plan_wins"] == 2 and record["median_difference"] == 0.0
        assert record["ci_low"] < 0 < record["ci_high"] and record["verdict"] == "no clear difference"


def test_a_slower_plan_and_determinism():
    plan, baseline = [10.0, 11.0, 12.0, 13.0, 14.0], [9.0, 9.5, 10.0, 12.5, 13.0]
    record = paired_difference(plan, baseline, seed=3)
    assert record["verdict"] == "plan slower" and record["ci_high"] < 0
    assert record == paired_difference(plan, baseline, seed=3)


def test_beats_only_where_the_interval_excludes_zero():
    faster = {"baseline": "Fair", "runs": 30, "plan_wins": 27, "verdict": "plan faster"}
    unclear = {"baseline": "FIFO", "runs": 30, "plan_wins": 16, "verdict": "no clear difference"}
    slower = {"baseline": "Fair 3:1", "runs": 30, "plan_wins": 3, "verdict": "plan slower"}
    assert verdict_text([faster]).startswith("Run for run it beats every baseline: it was faster in at least 27 of 30")
    mixed = verdict_text([faster, unclear, slower])
    assert mixed == ("Run for run it beats 1 of the 3 baselines (the 95% interval of the median difference excludes "
                     "zero); against FIFO the difference is not clear (the interval holds zero); Fair 3:1 is faster "
                     "run for run.")
    assert "beats" not in verdict_text([unclear])
    assert verdict_text([]) == ""


@pytest.mark.parametrize("runs", [2, 30])
def test_the_interval_holds_the_median(runs):
    plan = [100.0 + i for i in range(runs)]
    baseline = [100.0 + 2 * i for i in range(runs)]
    record = paired_difference(plan, baseline, seed=1)
    assert record["ci_low"] <= record["median_difference"] <= record["ci_high"]
