"""Validation that stops when the answer is known (`planner.proof.adaptive`, ``--runs auto``):
the rounds and the looks worked by hand, the stopping rule on made-up comparisons, an auto
validation against the fixed one with the same runs (slot and target plans), the command line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from models import Cluster, InvalidInput, Workload
from planner.cli.main import app
from planner.planning.make import make_plan
from planner.proof.adaptive import AutoRuns, in_rounds, look, look_confidence, runs_choice
from planner.proof.validate import validate

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_the_rounds_grow_by_half_from_min_to_max():
    """10, then x 1.5 rounded up: 15, 22.5 -> 23, 34.5 -> 35, 52.5 -> 53, 79.5 -> 80, 120, 180 -> 150
    (the most). From 2: 2, 3, 4.5 -> 5, 7.5 -> 8; min == max: one round."""
    assert AutoRuns().schedule() == [10, 15, 23, 35, 53, 80, 120, 150]
    assert AutoRuns(min_runs=2, max_runs=8).schedule() == [2, 3, 5, 8]
    assert AutoRuns(min_runs=30, max_runs=30).schedule() == [30]
    # antithetic runs come in pairs: every round even (5 -> 6, 15 -> 16, 23 -> 24, ...)
    assert AutoRuns(min_runs=2, max_runs=8).schedule(pairs=True) == [2, 4, 6, 8]
    assert AutoRuns().schedule(pairs=True) == [10, 16, 24, 36, 54, 80, 120, 150]  # docs/proving-plans.md
    assert AutoRuns(min_runs=5, max_runs=25).schedule(pairs=True) == [6, 8, 12, 18, 26]


def test_runs_are_auto_a_number_or_refused():
    assert runs_choice("auto") == AutoRuns() and runs_choice("AUTO ") == AutoRuns()
    assert runs_choice("12") == 12 and runs_choice(40) == 40
    custom = AutoRuns(min_runs=4, max_runs=20, precision=0.05)
    assert runs_choice(custom) is custom
    with pytest.raises(InvalidInput, match="runs: must be 'auto' or a whole number of runs, got 'many'"):
        runs_choice("many")
    with pytest.raises(InvalidInput, match="runs: must be >= 2"):
        runs_choice(1)
    with pytest.raises(InvalidInput, match="runs: must be 'auto' or a whole number"):
        runs_choice(2.5)
    with pytest.raises(InvalidInput, match=r"max_runs: must be >= min_runs \(20\), got 10"):
        AutoRuns(min_runs=20, max_runs=10)
    with pytest.raises(InvalidInput, match="precision: must be > 0"):
        AutoRuns(precision=0.0)
    with pytest.raises(InvalidInput, match=r"max_runs: 100,000 runs from 2 take \d+ rounds; at most 20"):
        AutoRuns(min_runs=2, max_runs=100_000)


def test_a_production_day_starts_with_two_antithetic_pairs(monkeypatch, nightly):
    """A batch of more than LARGE_BATCH_TASKS (1,000,000) tasks a run, a production day (the FB-2010
    day: 8.85 M, minutes a run), starts with AUTO_MIN_RUNS_LARGE = 4 runs: rounds 4, 6, 10, 14, 22,
    ... (4 x 1.5 = 6, 9 -> 10 in pairs, 13.5 -> 14, 21 -> 22), ten looks to 150; a smaller batch with 10; a min_runs given is
    kept, and the default is at most max_runs. validate() takes the batch's tasks: the example
    batch (its tasks counted below) with the limit just under and at them."""
    from planner.proof import adaptive

    assert AutoRuns().for_batch(1_000_000).min_runs == 10
    assert AutoRuns().for_batch(1_000_001).min_runs == 4
    assert AutoRuns().for_batch(1_000_001).schedule(pairs=True) == [4, 6, 10, 14, 22, 32, 48, 72, 108, 150]
    assert AutoRuns(min_runs=8).for_batch(10**7).min_runs == 8
    assert AutoRuns(max_runs=6).for_batch(10).min_runs == 6 and AutoRuns(max_runs=6).first_round() == 6
    workload, cluster = nightly
    tasks = sum(job.map_tasks + job.reduce_tasks for job in workload)
    plan = make_plan(workload, cluster, "slots+johnson")
    monkeypatch.setattr(adaptive, "LARGE_BATCH_TASKS", tasks - 1)
    large = validate(plan, workload, cluster, runs=AutoRuns(max_runs=6), curve_splits=0, executor="serial")
    assert large.stopping["min_runs"] == 4 and large.stopping["rounds"][0] == 4
    monkeypatch.setattr(adaptive, "LARGE_BATCH_TASKS", tasks)
    small = validate(plan, workload, cluster, runs=AutoRuns(max_runs=6), curve_splits=0, executor="serial")
    assert small.stopping["min_runs"] == 6 and small.stopping["rounds"] == [6]


def test_antithetic_pairs_are_resampled_whole():
    """Differences 1, -1, 3, -3 in two antithetic pairs: every resample of whole pairs has mean 0,
    so the interval of the mean is [0, 0]; resampled run by run it is not."""
    from planner.proof.paired import paired_mean, resampled

    plan, other = np.zeros(4), np.array([1.0, -1.0, 3.0, -3.0])
    assert paired_mean(plan, other, 0, block=2)["ci_low"] == paired_mean(plan, other, 0, block=2)["ci_high"] == 0.0
    assert paired_mean(plan, other, 0)["ci_high"] > 0.0
    assert resampled(other, 0, block=2).shape == (2_000, 4)
    with pytest.raises(InvalidInput, match="runs: 3 runs are not whole blocks of 2"):
        resampled(other[:3], 0, block=2)


def test_a_look_decides_settles_within_precision_or_waits():
    """Every run 2 s better (differences all 2): no spread, the interval is [2, 2], it excludes
    zero and so does the report's bootstrap: decided. Equal runs: [0, 0], half-width 0, within any
    precision. Differences of +100 and -100 s in turn on runs of 1,000 s (12 runs): mean 0,
    standard deviation 104.4, so at 99% the t interval's half-width is t(0.995, 11) x 104.4 /
    sqrt(12) = 3.106 x 30.15 = 93.6 s: it holds zero and is far over 1% of 1,000 s = 10 s: not
    settled; with a precision of 20% (200 s) it is within precision. As 6 antithetic pairs the
    same runs are six pairs of mean 0: no spread, half-width 0."""
    plan = np.full(12, 1000.0)
    decided = look(plan, plan + 2.0, "median", 0.01, 0, 0.99)
    assert decided["settled"] == "decided" and decided["look_low"] == decided["look_high"] == 2.0
    assert look(plan, plan.copy(), "mean", 0.01, 0, 0.99)["settled"] == "within precision"
    swing = plan + np.array([100.0, -100.0] * 6)
    waiting = look(plan, swing, "median", 0.01, 0, 0.99)
    assert waiting["settled"] is None and waiting["half_width"] == pytest.approx(93.6, abs=0.1)
    assert waiting["precision_abs"] == pytest.approx(0.01 * 1000.0)
    assert look(plan, swing, "median", 0.2, 0, 0.99)["settled"] == "within precision"
    paired = look(plan, swing, "median", 0.01, 0, 0.99, block=2)
    assert paired["half_width"] == 0.0 and paired["settled"] == "within precision"


def test_each_look_is_held_to_its_share_of_five_percent():
    """L looks at 1 - 0.05 / L each: 8 rounds (the default) 99.375%, one round 95%."""
    assert look_confidence(8) == pytest.approx(0.99375) and look_confidence(1) == pytest.approx(0.95)


def test_the_rounds_stop_when_every_comparison_is_settled_or_at_the_most():
    """Made-up runs of 100 s: against A the plan is 5 s better in every run (decided in the first
    round); against B the difference is +5 and -5 s in turn. Rounds 4, 6, 9: three looks at
    1 - 0.05 / 3 = 98.33%. B's half-width at 4 runs is t(0.99167, 3) x 5.77 / 2 = 14.1 s and at
    9 runs t(0.99167, 8) x 5.27 / 3 = 3.02 x 1.757 = 5.3 s, always over 1% of 100 s: every round is run and B is
    named as not settled; with a precision of 20% (20 s) B settles in the first round."""
    made: list[int] = []

    def run_more(first: int, last: int) -> None:
        made.extend(range(first, last))

    def comparisons():
        runs = len(made)
        plan = np.full(runs, 100.0)
        return [("A", plan, plan + 5.0), ("B", plan, plan + np.resize([5.0, -5.0], runs))]

    stopped = in_rounds(AutoRuns(min_runs=4, max_runs=9), run_more, comparisons, "mean", seed=3)
    assert made == list(range(9)) and stopped["rounds"] == [4, 6, 9] and stopped["runs"] == 9
    assert stopped["look_confidence"] == pytest.approx(1 - 0.05 / 3)
    assert stopped["reason"].startswith("the most runs (9) were made; not settled: B")
    assert [item["settled"] for item in stopped["looks"]] == ["decided", None]
    assert stopped["looks"][1]["half_width"] == pytest.approx(5.3, abs=0.05)
    made.clear()
    early = in_rounds(AutoRuns(min_runs=4, max_runs=9, precision=0.2), run_more, comparisons, "mean", seed=3)
    assert made == [0, 1, 2, 3] and early["rounds"] == [4]
    assert early["looks"][1]["half_width"] == pytest.approx(14.1, abs=0.1)
    assert early["reason"] == ("every comparison settled after 4 runs: 1 decided (the 98.33% interval excludes "
                               "zero), 1 within the precision (20.0% of the mean)")


@pytest.fixture(scope="module")
def nightly():
    return Workload.from_file(EXAMPLES / "nightly.yaml"), Cluster.from_file(EXAMPLES / "cluster.yaml")


def test_antithetic_runs_are_mirrored_pairs():
    """Runs 2m and 2m + 1 scale each job by 1 + u and 1 - u (the same u), with the same simulation
    seed; the next pair draws another u; none of them is an independent run's draw."""
    from planner.proof.setups import biased

    workload = Workload.from_file(EXAMPLES / "nightly.yaml")
    first, seed_a = biased(workload, 0.3, 7, 0, antithetic=True)
    mirror, seed_b = biased(workload, 0.3, 7, 1, antithetic=True)
    after, _ = biased(workload, 0.3, 7, 2, antithetic=True)
    base = np.array([job.map_time for job in workload])
    up, down = (np.array([job.map_time for job in w]) / base - 1.0 for w in (first, mirror))
    assert np.allclose(up, -down) and seed_a == seed_b and np.abs(up).max() <= 0.3
    assert not np.allclose(np.array([job.map_time for job in after]) / base - 1.0, up)
    independent, _ = biased(workload, 0.3, 7, 0)
    assert not np.allclose(np.array([job.map_time for job in independent]) / base - 1.0, up)


def test_an_auto_validation_is_the_fixed_one_with_its_runs(nightly):
    """The runs are the same whatever the mode (run r depends on the seed and r only), so an auto
    validation that stopped at n runs reports what a fixed validation of n runs reports: with
    antithetic pairs (auto's default) against a fixed validation of n antithetic runs, and with
    independent runs against the default fixed one."""
    workload, cluster = nightly
    plan = make_plan(workload, cluster, "slots+johnson")
    auto = validate(plan, workload, cluster, runs=AutoRuns(min_runs=4, max_runs=12), seed=5, curve_splits=2,
                    executor="serial")
    stopping = auto.stopping
    assert stopping is not None and stopping["runs"] == auto.runs == stopping["rounds"][-1]
    assert stopping["rounds"] == AutoRuns(min_runs=4, max_runs=12).schedule(pairs=True)[:len(stopping["rounds"])]
    assert {item["baseline"] for item in stopping["looks"]} == {r["setup"] for r in auto.setup("baseline")}
    assert auto.summary()["stopped"] == stopping["reason"] and auto.antithetic and auto.runs % 2 == 0
    fixed = validate(plan, workload, cluster, runs=auto.runs, seed=5, curve_splits=2, executor="serial",
                     antithetic=True)
    assert fixed.stopping is None and fixed.summary()["stopped"] is None
    plan_rows = [s for s in auto.samples if s["setup"] == auto.planned["setup"]]
    assert plan_rows == [s for s in fixed.samples if s["setup"] == fixed.planned["setup"]]
    assert auto.paired == fixed.paired and auto.table() == fixed.table()  # the curve points aside (below)
    # the figure's curve points run in the first round only: min(min_runs, 10) runs
    assert {r["runs"] for r in auto.setup("curve")} == {4}
    independent = validate(plan, workload, cluster, runs=AutoRuns(min_runs=3, max_runs=7), seed=5, curve_splits=0,
                           executor="serial", antithetic=False)
    assert not independent.antithetic and independent.stopping["rounds"][0] == 3
    alike = validate(plan, workload, cluster, runs=independent.runs, seed=5, curve_splits=0, executor="serial")
    assert alike.paired == independent.paired and alike.samples == independent.samples
    with pytest.raises(InvalidInput, match="runs: antithetic runs come in pairs: give an even number, got 3"):
        validate(plan, workload, cluster, runs=3, antithetic=True, executor="serial")


def test_a_target_plan_validates_in_rounds_too(nightly):
    """A plan for yarn-fair: its baselines are the configuration as it is, FIFO and Fair; the
    auto validation pairs them on the plan's objective (the mean) and is the fixed one with its runs."""
    from planner.planning.deploy import plan_for_target

    workload, cluster = nightly
    plan = plan_for_target(workload, cluster, "yarn-fair", runs=4, executor="serial")
    auto = validate(plan, workload, cluster, runs=AutoRuns(min_runs=4, max_runs=9), executor="serial")
    assert auto.kind == "target" and auto.stopping is not None and auto.runs == auto.stopping["runs"]
    assert {item["baseline"] for item in auto.stopping["looks"]} == {r["setup"] for r in auto.setup("baseline")}
    fixed = validate(plan, workload, cluster, runs=auto.runs, executor="serial", antithetic=True)
    assert auto.paired == fixed.paired and auto.samples == fixed.samples


def test_the_command_runs_auto_by_default_and_says_why_it_stopped(tmp_path):
    runner = CliRunner()
    plan = tmp_path / "plan.json"
    made = runner.invoke(app, ["plan", str(EXAMPLES / "nightly.yaml"), "-c", str(EXAMPLES / "cluster.yaml"),
                               "--strategy", "slots+johnson", "-o", str(plan)])
    assert made.exit_code == 0, made.output
    base = ["validate", str(EXAMPLES / "nightly.yaml"), "-c", str(EXAMPLES / "cluster.yaml"), "-p", str(plan),
            "--executor", "serial"]
    shown = runner.invoke(app, [*base, "--min-runs", "4", "--max-runs", "9", "--json"])
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.stdout)
    assert data["validation"]["runs"] == data["stopping"][0]["runs"]
    assert data["validation"]["stopped"].startswith(("every comparison settled", "the most runs (9)"))
    terminal = runner.invoke(app, [*base, "--min-runs", "4", "--max-runs", "9"])
    assert terminal.exit_code == 0 and "--runs auto:" in terminal.stdout
    fixed = runner.invoke(app, [*base, "--runs", "3", "--json"])
    assert fixed.exit_code == 0 and json.loads(fixed.stdout)["validation"]["stopped"] is None
    assert json.loads(fixed.stdout)["validation"]["antithetic"] is False and data["validation"]["antithetic"] is True
    odd = runner.invoke(app, [*base, "--runs", "3", "--antithetic"])
    assert odd.exit_code == 2 and "--runs: antithetic runs come in pairs" in odd.stderr
    bad = runner.invoke(app, [*base, "--runs", "many"])
    assert bad.exit_code == 2 and "--runs: must be 'auto' or a whole number of runs" in bad.stderr
    backwards = runner.invoke(app, [*base, "--min-runs", "20", "--max-runs", "10"])
    assert backwards.exit_code == 2 and "--max-runs: must be >= min_runs (20)" in backwards.stderr


def test_the_looks_use_a_t_interval_because_the_bootstrap_is_too_narrow_at_few_runs():
    """docs/proving-plans.md: with 5 normal units of true mean 0, the report's percentile bootstrap
    at 99% excludes zero in about 8% of trials (10 units: about 5%), 8 and 5 times its level;
    the Student t interval at 99% in about 1%, as its level says. 400 seeded trials each."""
    from scipy.stats import t as student

    from planner.proof.paired import paired_mean

    rng = np.random.default_rng(1)
    for units, least in ((5, 0.04), (10, 0.03)):
        bootstrap = student_rate = 0
        for trial in range(400):
            differences = rng.standard_normal(units)
            interval = paired_mean(np.zeros(units), differences, trial, confidence=0.99)
            bootstrap += interval["ci_low"] > 0 or interval["ci_high"] < 0
            half = student.ppf(0.995, units - 1) * differences.std(ddof=1) / np.sqrt(units)
            student_rate += abs(differences.mean()) > half
        assert bootstrap / 400 >= least and student_rate / 400 <= 0.02
