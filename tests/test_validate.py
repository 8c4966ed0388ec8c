"""validate(): plans and baselines through the simulator under profile bias; robust plans."""

from __future__ import annotations

import json

import numpy as np
import pytest

from models import Cluster, InvalidInput, Job, PowerLawProfile, Workload
from planner.plan import Plan, make_plan
from planner.validate import biased, example_run, run_setup, slot_setups, validate

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
    Fair 2:2 = 4:4 and 3:1 = 6:2: 20 s; FIFO on the cluster's 4:4: 20 s."""
    workload = one_job()
    plan = make_plan(workload, FLAT, "slots", model="capped", k=1)
    assert (plan.map_slots, plan.reduce_slots, plan.predicted_makespan) == (4, 4, 20.0)
    report = validate(plan, workload, FLAT, runs=3, noise=0.0, curve_splits=0, executor="serial")
    planned = report.planned
    assert (planned["mean"], planned["p5"], planned["p95"], planned["error"]) == (20.0, 20.0, 20.0, 0.0)
    assert planned["fairness"] == 1.0 and planned["node_local"] == 1.0
    baselines = {r["setup"]: (r["map_slots"], r["reduce_slots"], r["mean"]) for r in report.setup("baseline")}
    assert baselines == {"Fair 1:3 (2:6)": (2, 6, 30.0), "Fair 2:2 (4:4)": (4, 4, 20.0),
                         "Fair 3:1 (6:2)": (6, 2, 20.0), "FIFO, submission order (4:4)": (4, 4, 20.0)}
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
    """Run r of each setup is run_setup(setup, batch, cluster, noise, seed, r): re-running one
    sample by hand gives the same record; every job of the batch starts from time 0."""
    workload, cluster = mixed(), Cluster(nodes=4, racks=2)
    plan = make_plan(workload, cluster)
    report = validate(plan, workload, cluster, runs=4, noise=0.2, seed=5, curve_splits=2, executor="serial")
    setups = slot_setups(plan, workload, cluster, 2)
    assert [s.name for s in setups] == [r["setup"] for r in report.setups]
    from planner.validate import batch

    sample = next(s for s in report.samples if s["setup"] == setups[3].name and s["run"] == 2)
    assert run_setup(setups[3], batch(workload), cluster, 0.2, 5, 2) == sample
    assert len(report.samples) == 4 * 5 + 2 * 4
    assert report.to_json() == validate(plan, workload, cluster, runs=4, noise=0.2, seed=5, curve_splits=2).to_json()
    single = example_run(plan, workload, cluster)
    assert all(job["submit"] == 0.0 for job in single.jobs)
    assert single.scheduler["order"] == list(plan.order)


def test_johnson_plans_run_under_fifo_in_plan_order():
    workload, cluster = mixed(), Cluster(nodes=4, racks=2)
    plan = make_plan(workload, cluster, "johnson")
    setups = slot_setups(plan, workload, cluster, 0)
    assert setups[0].scheduler.name == "fifo" and setups[0].slots == (8, 8)
    assert list(setups[0].scheduler.ranks) == list(plan.order)


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
    assert json.loads((tmp_path / "plan.json").read_text())["version"] == 3
    again = make_plan(workload, cluster, robust=True, runs=4, seed=2)
    assert again.robust == plan.robust and again.order == plan.order


def test_robust_applies_to_slot_strategies_only():
    workload, cluster = profiled()
    with pytest.raises(InvalidInput, match=r"^robust: applies to the slot strategies"):
        make_plan(workload, cluster, "packing", robust=True)
    with pytest.raises(InvalidInput, match=r"^robust: must be true or false"):
        make_plan(workload, cluster, robust="yes")
