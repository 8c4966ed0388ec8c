"""Multi-phase overcommit packing: every rule of the model, hand-solved cases, methods vs brute force."""

from __future__ import annotations

import numpy as np
import pytest

from models import Cluster, InvalidPlan
from solvers import PhaseSchedule, SolveStatus, evaluate_phases, methods, pack_phases
from solvers.packing.problem import packing_instance, phase_total
from tests.support.packing import CLUSTER, brute_force, job

JOBS = [job("io", 120, -1, "io"), job("cpu", 60, -1, "cpu"), job("flat", 50, 0)]


@pytest.mark.parametrize(
    ("phases", "message"),
    [
        ([[(0, 4, "primary")], [(1, 4, "primary")]], "job 2: runs in no phase"),
        ([[(0, 4, "primary"), (1, 1, "primary")], [(2, 4, "primary")]], "phase 0: primary and host jobs use 5 VMs"),
        ([[(0, 2, "host"), (1, 2, "extra")], [(2, 4, "primary")]], r"phase 0: r \* extra VMs = 2 \* 2 exceeds the host VMs \(2\)"),
        ([[(1, 4, "host")], [(0, 4, "primary"), (2, 0, "primary")]], "phase 0, job 1: only io jobs may host"),
        ([[(0, 4, "extra")], [(1, 4, "primary")], [(2, 4, "primary")]], "phase 0, job 0: only cpu jobs may run on extra"),
        ([[(0, 5, "primary")], [(1, 4, "primary")], [(2, 4, "primary")]], r"phase 0, job 0: VMs must be in 1\.\.4"),
        ([[(0, 4, "primary"), (0, 4, "primary")]], "phase 0, job 0: already runs in phase 0"),
        ([[(0, 4, "spare")]], "role must be one of"),
        ([[], [(0, 4, "primary")]], "phase 0: is empty"),
        ([[(7, 4, "primary")]], "job index 7"),
    ],
)
def test_every_rule_is_checked(phases, message):
    with pytest.raises(InvalidPlan, match=message):
        evaluate_phases(phases, JOBS, CLUSTER)


def test_objective_by_hand():
    """Phase 1: io hosts on 4 VMs (1.5 * 120 / 4 = 45 s), cpu as extra on 2 (1.5 * 60 / 2 = 45 s): 45 s.
    Phase 2: flat alone, 50 s. Total 95 s; all three alone on 4 VMs: 30 + 15 + 50 = 95 s as well."""
    phases = [[(0, 4, "host"), (1, 2, "extra")], [(2, 4, "primary")]]
    assert evaluate_phases(phases, JOBS, CLUSTER) == pytest.approx(95.0)
    assert evaluate_phases([[(0, 4, "primary")], [(1, 4, "primary")], [(2, 4, "primary")]], JOBS, CLUSTER) == 95.0


def test_tiny_optimum_by_hand_and_brute_force():
    """Two flat 50-s jobs on N = 4: together on 2 + 2 VMs: one phase of 50 s (apart: 100 s)."""
    jobs = [job("a", 50, 0), job("b", 50, 0)]
    assert brute_force(jobs, CLUSTER) == 50.0
    schedule = pack_phases(jobs, CLUSTER, "milp")
    assert schedule.objective == 50.0 and schedule.status is SolveStatus.OPTIMAL and len(schedule.phases) == 1


@pytest.mark.parametrize("name", sorted(methods("packing")))
def test_every_packing_method_honours_the_contract(name):
    options = {"particles": 40, "iterations": 20} if name == "pso" else {}
    rng = np.random.default_rng(6)
    for n in (1, 2, 3):
        jobs = [job(f"j{i}", float(rng.uniform(20, 200)), float(rng.uniform(-1, 0)),
                    str(rng.choice(["cpu", "io", "balanced"]))) for i in range(n)]
        schedule = pack_phases(jobs, CLUSTER, name, time_limit=30, seed=2, **options)
        assert isinstance(schedule, PhaseSchedule)
        assert evaluate_phases(schedule, jobs, CLUSTER) == pytest.approx(schedule.objective)
        assert schedule.objective <= schedule.sequential_baseline + 1e-9
        optimum = brute_force(jobs, CLUSTER)
        assert schedule.objective >= optimum - 1e-9
        if methods("packing")[name].exact:
            assert schedule.objective == pytest.approx(optimum) and schedule.status is SolveStatus.OPTIMAL
        again = pack_phases(jobs, CLUSTER, name, time_limit=30, seed=2, **options)
        assert again.phases == schedule.phases


def test_milp_time_limit_keeps_a_feasible_schedule():
    rng = np.random.default_rng(1)
    jobs = [job(f"j{i}", float(rng.uniform(500, 5000)), float(rng.uniform(-1, -0.3)),
                str(rng.choice(["cpu", "io", "balanced"]))) for i in range(14)]
    cluster = Cluster(nodes=9, disks=2)
    schedule = pack_phases(jobs, cluster, "milp", time_limit=1.0)
    assert schedule.status in (SolveStatus.TIME_LIMIT, SolveStatus.OPTIMAL)
    assert evaluate_phases(schedule, jobs, cluster) == pytest.approx(schedule.objective)
    assert schedule.bound is None or schedule.bound <= schedule.objective + 1e-6
    assert phase_total(schedule.phases, packing_instance(jobs, cluster)) == pytest.approx(schedule.objective)
