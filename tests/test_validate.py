"""validate(): plans and baselines through the simulator under profile bias; robust plans."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from models import Cluster, InvalidInput, Job, PowerLawProfile, Workload
from planner.planning.make import make_plan
from planner.plans.plan import Plan
from planner.proof.setups import biased, run_setup, slot_setups
from planner.proof.validate import example_run, validate

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

#: One rack, every block on every node (all maps node-local), slots offered at once.
FLAT = Cluster(nodes=2, map_slots=2, reduce_slots=2, heartbeat=0.0, replication=2)


def one_job() -> Workload:
    return Workload([Job("only", 4, 1, 10.0, 10.0)], name="one")


def test_a_plan_the_fluid_model_gets_right_validates_with_zero_error():
    """One job, 4 maps x 10 s and 1 reduce x 10 s, on 8 slots (FLAT: all maps node-local,
    heartbeat 0). Capped fluid model: the maps run on min(s_m, 4) slots, the reduce on one:
    makespan 40 / min(s_m, 4) + 10, so every s_m >= 4 gives 20 s and the smallest, 4, wins.
    The simulator runs the 4 maps at once (0-10) and the reduce 10-20: 20 s. Without noise
    every run is 20 s: mean = p5 = p95 = 20, error 0.

    Baselines on S = 8: Fair 1:3 = 2:6 slots: maps in two waves (0-20), reduce 20-30: 30 s;
    Fair 2:2 = 4:4 and 3:1 = 6:2: 20 s; Fair and FRESH dynamic on 8 containers: maps at once, then
    the reduce: 20 s; FIFO on the cluster's 4:4: 20 s. Of the tied baselines FIFO's name sorts first."""
    workload = one_job()
    plan = make_plan(workload, FLAT, "slots", model="capped", k=1)
    assert (plan.map_slots, plan.reduce_slots, plan.predicted_makespan) == (4, 4, 20.0)
    report = validate(plan, workload, FLAT, runs=3, noise=0.0, curve_splits=0, executor="serial")
    planned = report.planned
    assert (planned["mean"], planned["p5"], planned["p95"], planned["error"]) == (20.0, 20.0, 20.0, 0.0)
    assert planned["fairness"] == 1.0 and planned["node_local"] == 1.0
    baselines = {r["setup"]: (r["map_slots"], r["reduce_slots"], r["mean"]) for r in report.setup("baseline")}
    assert baselines == {"Fair 1:3 (2:6)": (2, 6, 30.0), "Fair 2:2 (4:4)": (4, 4, 20.0),
                         "Fair 3:1 (6:2)": (6, 2, 20.0), "Fair on containers (8)": (4, 4, 20.0),
                         "FRESH dynamic (k=1, 8 containers)": (4, 4, 20.0), "FIFO, submission order (4:4)": (4, 4, 20.0)}
    summary = report.summary()
    assert summary["plan_wins"] and summary["gain"] == 0.0 and summary["best_baseline"] == "FIFO, submission order (4:4)"


def test_bias_is_uniform_in_the_noise_band_and_seeded():
    """Factors 1 + U[-0.3, 0.3] per job, the same for the same (seed, run), other for another run."""
    workload = Workload([Job(f"j{i}", 2, 1, 10.0, 20.0, profile=PowerLawProfile.from_coefficients(100, -0.5))
                         for i in range(200)])
    first, seed_a = biased(workload, 0.3, 7, 0)
    again, seed_b = biased(workload, 0.3, 7, 0)
    other, _ = biased(workload, 0.3, 7, 1)
    factors = np.array([job.map_time / 10.0 for job in first])
    assert factors.min() >= 0.7 and factors.max() <= 1.3 and factors.std() > 0.1
    assert [j.reduce_time / 20.0 for j in first] == pytest.approx(factors)
    assert [j.runtime(4) / 50.0 for j in first] == pytest.approx(factors)
    assert (first.to_records(), seed_a) == (again.to_records(), seed_b)
    assert first.to_records() != other.to_records()
    plain, _ = biased(workload, 0.0, 7, 0)
    assert plain.to_records() == workload.to_records()


def mixed() -> Workload:
    """Map-heavy and reduce-heavy jobs with different submit times (which validation ignores)."""
    return Workload([Job("m1", 12, 2, 10.0, 5.0), Job("r1", 4, 6, 5.0, 20.0, submit=30.0),
                     Job("m2", 8, 1, 12.0, 4.0, submit=10.0), Job("r2", 2, 4, 6.0, 25.0, submit=20.0)], name="mixed")


def test_every_configuration_sees_the_same_biased_batch():
    """Run r of each setup is run_setup(setup, noise, seed, r): re-running one
    sample by hand gives the same record; jobs arrive at their submit times, and the plan submits
    them in its order, never before they arrive (a plan made ready_now runs them all from 0)."""
    workload, cluster = mixed(), Cluster(nodes=4, racks=2)
    plan = make_plan(workload, cluster)
    report = validate(plan, workload, cluster, runs=4, noise=0.2, seed=5, curve_splits=2, executor="serial")
    setups = slot_setups(plan, workload, cluster, 2)
    assert [s.name for s in setups] == [r["setup"] for r in report.setups]
    sample = next(s for s in report.samples if s["setup"] == setups[3].name and s["run"] == 2)
    assert run_setup(setups[3], 0.2, 5, 2) == sample
    assert len(report.samples) == 4 * 8 + 2 * 4
    assert report.to_json() == validate(plan, workload, cluster, runs=4, noise=0.2, seed=5, curve_splits=2).to_json()
    single = example_run(plan, workload, cluster)
    arrival = {job.name: job.submit for job in workload}
    starts = [job["submit"] for job in sorted(single.jobs, key=lambda j: plan.order.index(j["name"]))]
    assert starts == sorted(starts) and all(job["submit"] >= arrival[job["name"]] for job in single.jobs)
    assert single.scheduler["order"] == list(plan.order)
    now = make_plan(workload, cluster, ready_now=True)
    assert all(job["submit"] == 0.0 for job in example_run(now, workload, cluster).jobs)


def test_johnson_plans_run_under_fifo_in_plan_order():
    workload, cluster = mixed(), Cluster(nodes=4, racks=2)
    plan = make_plan(workload, cluster, "johnson")
    setups = slot_setups(plan, workload, cluster, 0)
    assert setups[0].run.scheduler.name == "fifo" and setups[0].run.slots == (8, 8)
    assert list(setups[0].run.scheduler.ranks) == list(plan.order)


def test_a_johnson_plans_curve_is_computed_once(monkeypatch):
    """A "johnson" plan stores no curve (its runs are FIFO's, the k = 1 model): validate computes it
    once for the setups' predictions and the report, not twice (minutes each on a day's batch), and
    the report is the one it was."""
    from planner.proof import setups as setups_module

    workload, cluster = mixed(), Cluster(nodes=4, racks=2)
    plan = make_plan(workload, cluster, "johnson")
    before = validate(plan, workload, cluster, runs=2, curve_splits=2, executor="serial").to_json()
    calls = []
    real = setups_module.fluid_curve

    def counted(*args, **kwargs):
        calls.append(args[0].strategy)
        return real(*args, **kwargs)

    monkeypatch.setattr(setups_module, "fluid_curve", counted)
    monkeypatch.setattr("planner.proof.validate.fluid_curve", counted)
    assert validate(plan, workload, cluster, runs=2, curve_splits=2, executor="serial").to_json() == before
    assert calls == ["johnson"]


def profiled() -> tuple[Workload, Cluster]:
    jobs = [Job(name, 1, 0, 10.0, 0.0, intensity=intensity, profile=PowerLawProfile.from_coefficients(a, b))
            for name, a, b, intensity in (("scan", 120, -1, "io"), ("train", 60, -1, "cpu"), ("flat", 50, 0, "balanced"),
                                          ("etl", 90, -0.8, "io"), ("score", 40, -0.5, "cpu"))]
    return Workload(jobs, name="vm"), Cluster(nodes=2, disks=2, primaries_per_extra=2, overcommit_penalty=1.5)


def test_vm_plans_run_with_phase_barriers_against_sequential():
    """Without noise, phase barriers reproduce the plan's objective and the sequential baseline
    its baseline_makespan (sum of F_j(N)); backfill is never longer."""
    workload, cluster = profiled()
    plan = make_plan(workload, cluster, "packing", solver="greedy")
    report = validate(plan, workload, cluster, runs=2, noise=0.0, executor="serial")
    assert report.kind == "vms"
    assert report.planned["mean"] == pytest.approx(plan.predicted_makespan) and report.planned["error"] == pytest.approx(0.0)
    (sequential,) = report.setup("baseline")
    assert sequential["mean"] == pytest.approx(plan.baseline_makespan) == pytest.approx(
        sum(job.runtime(cluster.vms) for job in workload))
    (backfill,) = report.setup("variant")
    assert backfill["mean"] <= report.planned["mean"] + 1e-9
    assert report.planned["fairness"] is None and report.curve == []
    noisy = validate(plan, workload, cluster, runs=5, noise=0.3, executor="serial")
    assert noisy.planned["p5"] < noisy.planned["p95"]


@pytest.mark.parametrize("change, message", [
    ({"runs": 1}, r"^runs: must be >= 2"),
    ({"noise": 1.0}, r"^noise: must be below 1"),
    ({"noise": -0.1}, r"^noise: must be >= 0"),
    ({"seed": -1}, r"^seed: must be >= 0"),
])
def test_bad_settings_are_named(change, message):
    workload = one_job()
    plan = make_plan(workload, FLAT)
    with pytest.raises(InvalidInput, match=message):
        validate(plan, workload, FLAT, **change)


def test_a_plan_for_another_workload_or_cluster_is_refused():
    workload = one_job()
    plan = make_plan(workload, FLAT)
    with pytest.raises(InvalidInput, match=r"^workload_fingerprint: the plan was made for another workload"):
        validate(plan, mixed(), FLAT)
    with pytest.raises(InvalidInput, match=r"^cluster_fingerprint: the plan was made for another cluster"):
        validate(plan, workload, FLAT.with_changes(nodes=3))


def test_robust_plan_picks_the_best_simulated_p90_and_says_so(tmp_path):
    """Candidates: both orders x both models x splits within 5% of each optimum. The chosen one
    has the smallest p90 of all candidates; the plan records how it was chosen and survives a
    round trip through its file."""
    workload, cluster = mixed(), Cluster(nodes=4, racks=2)
    plan = make_plan(workload, cluster, robust=True, runs=4, seed=2, executor="serial")
    robust = plan.robust
    assert robust is not None and robust["runs"] == 4 and robust["statistic"] == "p90"
    candidates = robust["candidates"]
    assert {c["order"] for c in candidates} == {"submission", "johnson"}
    assert {c["model"] for c in candidates} == {"fresh", "capped"}
    best = min(c["p90"] for c in candidates)
    assert robust["p90"] == best
    chosen = next(c for c in candidates if f"{c['model']} model, {c['order']} order, {c['map_slots']} map slots"
                  == robust["chosen"])
    assert chosen["p90"] == best and plan.map_slots == chosen["map_slots"] and plan.model == chosen["model"]
    assert plan.strategy == ("slots+johnson" if chosen["order"] == "johnson" else "slots")
    assert plan.summary()["selection"].startswith("robust: best simulated p90 of")
    for c in candidates:
        fluid = make_plan(workload, cluster, "slots+johnson" if c["order"] == "johnson" else "slots", model=c["model"])
        assert c["predicted"] <= fluid.predicted_makespan * 1.05 + 1e-9
    plan.to_file(tmp_path / "plan.json")
    assert Plan.from_file(tmp_path / "plan.json") == plan
    assert json.loads((tmp_path / "plan.json").read_text())["version"] == 7
    again = make_plan(workload, cluster, robust=True, runs=4, seed=2)
    assert again.robust == plan.robust and again.order == plan.order


def test_robust_applies_to_slot_strategies_only():
    workload, cluster = profiled()
    with pytest.raises(InvalidInput, match=r"^robust: applies to the slot strategies"):
        make_plan(workload, cluster, "packing", robust=True)
    with pytest.raises(InvalidInput, match=r"^robust: must be true or false"):
        make_plan(workload, cluster, robust="yes")


def test_threads_share_nothing_between_runs():
    """Runs of one setup in threads of one process each simulate with their own scheduler copy:
    the report equals the serial one."""
    from concurrent.futures import ThreadPoolExecutor

    workload, cluster = mixed(), Cluster(nodes=4, racks=2)
    plan = make_plan(workload, cluster)
    serial = validate(plan, workload, cluster, runs=4, curve_splits=2, executor="serial")
    with ThreadPoolExecutor(4) as pool:
        assert validate(plan, workload, cluster, runs=4, curve_splits=2, executor=pool).to_json() == serial.to_json()


def test_edited_plan_files_are_refused_naming_the_field():
    workload, cluster = mixed(), Cluster(nodes=4, racks=2)
    plan = make_plan(workload, cluster)
    from dataclasses import replace

    cases = [
        (replace(plan, map_slots=200), r"^map_slots: 200 \+ reduce_slots \d+ must make the cluster's 16 slots"),
        (replace(plan, curve=(1.0, 2.0)), r"^curve: has 2 points; 16 slots need 15"),
        (replace(plan, order=("m1", "r1", "m2", "bogus")), r"^order: must name each of the workload's 4 jobs once"),
        (replace(plan, order=("m1", "r1", "m2")), r"^order: must name each of the workload's 4 jobs once; 'r2' is missing"),
    ]
    for edited, message in cases:
        with pytest.raises(InvalidInput, match=message):
            validate(edited, workload, cluster, runs=2)


def test_a_vm_plan_is_tied_to_the_profiles_it_was_made_from():
    """Changing one job's profile changes the workload's fingerprint: the old plan is refused."""
    workload, cluster = profiled()
    plan = make_plan(workload, cluster, "packing", solver="greedy")
    jobs = list(workload)
    jobs[0] = jobs[0].with_changes(profile=PowerLawProfile.from_coefficients(54000, -0.2))
    with pytest.raises(InvalidInput, match=r"^workload_fingerprint: the plan was made for another workload"):
        validate(plan, Workload(jobs, name=workload.name), cluster, runs=2)


def test_fair_ratios_that_round_to_one_split_run_once():
    """On 1 node of 1 + 1 slots every ratio rounds to 1:1: one Fair baseline, then the dynamic
    ones on 2 containers, then FIFO."""
    workload, cluster = one_job(), Cluster(nodes=1, map_slots=1, reduce_slots=1)
    plan = make_plan(workload, cluster)
    report = validate(plan, workload, cluster, runs=2, curve_splits=0, executor="serial")
    assert [r["setup"] for r in report.setup("baseline")] == [
        "Fair 1:3 (1:1)", "Fair on containers (2)", "FRESH dynamic (k=5, 2 containers)", "FIFO, submission order (1:1)"]


def test_robust_candidates_are_chosen_on_other_runs_than_validation():
    """Stream 1 (selection) and stream 0 (validation) draw different biases for the same seed."""
    workload = mixed()
    zero, seed_zero = biased(workload, 0.3, 0, 0)
    one, seed_one = biased(workload, 0.3, 0, 0, stream=1)
    assert zero.to_records() != one.to_records() and seed_zero != seed_one


def test_near_optimal_keeps_at_most_the_limit_with_the_optimum():
    """Curve (s_m = 1..8): 10, 6, 5.2, 5, 5.1, 5.2, 7, 9. Within 5% of 5: s_m 3, 4, 5, 6 (5.25 cap).
    Limit 3: evenly spread over [3, 4, 5, 6] -> 3, 5 (rounded positions 0, 1.5 -> 2, 3) and 6; the
    optimum 4 displaces the farthest, 6 -> 3, 4, 5. Limit 10: all four."""
    from planner.planning.robust import near_optimal

    curve = np.array([10, 6, 5.2, 5, 5.1, 5.2, 7, 9])
    assert near_optimal(curve, 0.05, 3) == [3, 4, 5]
    assert near_optimal(curve, 0.05, 10) == [3, 4, 5, 6]
    assert near_optimal(curve, 0.0, 5) == [4]


def test_robust_ties_go_to_the_model_nearest_the_simulation():
    """With k = 5 and five jobs the admission order changes nothing, and both models often pick
    the same split: such candidates share one setup, so they tie on p90 and mean. The plan then
    takes the model whose prediction is nearest the simulated mean."""
    workload = Workload.from_file(EXAMPLES / "nightly.yaml")
    cluster = Cluster.from_file(EXAMPLES / "cluster.yaml")
    plan = make_plan(workload, cluster, robust=True, runs=3, executor="serial")
    chosen = next(c for c in plan.robust["candidates"] if plan.robust["chosen"].startswith(c["model"])
                  and f"{c['order']} order, {c['map_slots']} " in plan.robust["chosen"])
    tied = [c for c in plan.robust["candidates"] if (c["p90"], c["mean"]) == (chosen["p90"], chosen["mean"])]
    assert len(tied) >= 2
    assert abs(chosen["predicted"] - chosen["mean"]) == min(abs(c["predicted"] - c["mean"]) for c in tied)


def test_a_robust_choice_off_the_optimum_is_feasible_with_its_gap(monkeypatch):
    """When the best p90 is not the model's optimum, the plan says "feasible", with the
    optimum as bound and the distance as gap."""
    import planner.planning.make as plan_module
    from planner.examples.workloads import set_a_batch

    # Six Set-A jobs on 16 slots: 7 map slots are the optimum (1,438 s), 8 within 5% (1,475 s).
    workload, cluster = Workload(set_a_batch(6)), Cluster(nodes=4)

    def second_best(candidates, *args, **kwargs):
        records = [{"model": c.model, "order": c.ordering, "map_slots": c.map_slots, "predicted": c.predicted,
                    "mean": 1.0, "p90": 1.0} for c in candidates]
        worst = max(range(len(candidates)), key=lambda i: candidates[i].predicted)
        return candidates[worst], records

    monkeypatch.setattr(plan_module, "choose_robust", second_best)
    plan = make_plan(workload, cluster, robust=True, runs=2, executor="serial")
    optimum = min(plan.curve)
    assert plan.status == "feasible" and plan.bound == optimum and plan.predicted_makespan > optimum
    assert plan.gap == pytest.approx((plan.predicted_makespan - optimum) / plan.predicted_makespan)


def test_a_robust_johnson_plan_keeps_its_order_and_proves_no_bound():
    workload, cluster = mixed(), Cluster(nodes=4, racks=2)
    plain = make_plan(workload, cluster, "johnson", ready_now=True)  # robust plans take every job as ready now
    plan = make_plan(workload, cluster, "johnson", robust=True, runs=2, executor="serial")
    assert plan.ready_now
    assert plan.order == plain.order and {c["order"] for c in plan.robust["candidates"]} == {"johnson"}
    assert (plan.status, plan.bound, plan.gap, plan.map_slots) == ("optimal", None, None, plain.map_slots)


def test_a_batch_over_the_curve_task_limit_simulates_no_other_split_by_default(monkeypatch):
    """The figure's other splits cost as much as the comparisons on a production day (8.85 M tasks a
    run): by default a batch of more than LARGE_BATCH_TASKS tasks simulates none, a smaller one six.
    one_job() is 4 maps + 1 reduce = 5 tasks: with the limit at 4 it is over it, at 5 it is not.
    An explicit curve_splits is taken as given either way; the report's text says none ran."""
    from planner.defaults import CURVE_SPLITS
    from planner.proof import validate as validating
    from planner.proof.report import render_markdown

    cluster = Cluster(nodes=4, map_slots=2, reduce_slots=2, heartbeat=0.0, replication=2)  # S = 16
    workload = one_job()
    monkeypatch.setattr(validating, "LARGE_BATCH_TASKS", 5)
    assert validating.curve_splits_for(workload, None) == CURVE_SPLITS == 6
    monkeypatch.setattr(validating, "LARGE_BATCH_TASKS", 4)
    assert validating.curve_splits_for(workload, None) == 0
    assert validating.curve_splits_for(workload, 2) == 2
    plan = make_plan(workload, cluster, "slots", model="capped", k=1)
    skipped = validate(plan, workload, cluster, runs=2, noise=0.0, executor="serial")
    assert skipped.setup("curve") == [] and skipped.table() == skipped.setups
    assert "No other split was simulated" in render_markdown(skipped, {})
    asked = validate(plan, workload, cluster, runs=2, noise=0.0, curve_splits=2, executor="serial")
    assert len(asked.setup("curve")) == 2
    assert "No other split was simulated" not in render_markdown(asked, {})
    with pytest.raises(InvalidInput, match="curve_splits"):
        validate(plan, workload, cluster, runs=2, curve_splits=-1, executor="serial")


@pytest.mark.filterwarnings("ignore::models.errors.TaskFloorWarning")
@pytest.mark.parametrize("strategy", ["slots+johnson", "johnson"])
def test_a_plan_made_without_its_curve_validates_without_computing_it(monkeypatch, strategy):
    """A batch too large for its whole fluid curve (`CURVE_ENTRIES`; set to 0 here) gets a plan
    with none. Validated without curve points, the report has no curve and no curve figure, and its
    predictions are the fluid model at their splits alone (`fluid_point`): the very numbers the
    whole curve gives there, as a validation of the plan made with its curve shows. With curve
    points the curve is computed as before."""
    from planner.planning import curves as curves_module
    from planner.proof.report import render_figures, render_markdown

    workload = Workload([Job(f"j{i}", 6 + i % 5, 2 + i % 3, 8.0 + i, 12.0 + 2 * i, submit=float(5 * i))
                         for i in range(12)])
    cluster = Cluster(nodes=6, map_slots=2, reduce_slots=2, heartbeat=0.0)
    kept = make_plan(workload, cluster, strategy, k=3)
    monkeypatch.setattr(curves_module, "CURVE_ENTRIES", 0)
    bare = make_plan(workload, cluster, strategy, k=3)
    assert bare.curve == () and len(kept.curve) == cluster.total_slots - 1
    without = validate(bare, workload, cluster, runs=2, curve_splits=0, executor="serial")
    with_curve = validate(kept, workload, cluster, runs=2, curve_splits=0, executor="serial")
    assert without.curve == [] and len(with_curve.curve) == cluster.total_slots - 1
    assert [(r["setup"], r["predicted"]) for r in without.setups] == \
        [(r["setup"], r["predicted"]) for r in with_curve.setups]
    assert without.planned["predicted"] == with_curve.curve[bare.map_slots - 1]
    assert "makespan_vs_map_slots" not in render_figures(without)
    assert "makespan_vs_map_slots" in render_figures(with_curve)
    assert "curve over every split was not computed" in render_markdown(without, {})
    asked = validate(bare, workload, cluster, runs=2, curve_splits=2, executor="serial")
    assert asked.curve == with_curve.curve and len(asked.setup("curve")) == 2
