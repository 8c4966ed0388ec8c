"""The packing "pso" method: every decoded particle is feasible, results are reproducible, small optima are found."""

from __future__ import annotations

import numpy as np
import pytest

import solvers.backends.pso
from models import Cluster
from solvers import PsoOptions, SolveStatus, evaluate_phases, pack_phases
from solvers.packing.problem import ROLES, Placement, packing_instance
from solvers.packing.pso import bounds, decode, phase_totals
from tests.support.packing import CLUSTER, brute_force, job

FAST = {"particles": 40, "iterations": 25}
MIXES = {"io": ["io"], "cpu": ["cpu"], "balanced": ["balanced"], "mixed": ["cpu", "io", "balanced"]}


def batch(n, intensities, seed):
    rng = np.random.default_rng(seed)
    return [job(f"j{i}", float(rng.uniform(20, 2000)), float(rng.uniform(-1, 0)), str(rng.choice(intensities)))
            for i in range(n)]


@pytest.mark.parametrize("mix", sorted(MIXES))
@pytest.mark.parametrize("cluster", [CLUSTER, Cluster(nodes=3, disks=2, primaries_per_extra=3, overcommit_penalty=1.2)])
def test_every_decoded_particle_is_feasible(mix, cluster):
    """Random positions, and the corners of the box, decode (after repair) to schedules the model accepts,
    and the vectorized cost equals the checked objective."""
    rng = np.random.default_rng(3)
    for n in (1, 3, 9):
        jobs = batch(n, MIXES[mix], seed=n)
        instance = packing_instance(jobs, cluster)
        lower, upper = bounds(instance)
        swarm = np.vstack([rng.uniform(lower, upper, size=(60, lower.size)), lower, upper,
                           np.where(np.arange(lower.size) < n, 0.0, upper)])  # everyone in phase 0 on N VMs
        phase, vms, role = decode(swarm, instance)
        costs = phase_totals(instance, phase, vms, role)
        for p in range(swarm.shape[0]):
            grouped: dict[int, list] = {}
            for j in range(n):
                grouped.setdefault(int(phase[p, j]), []).append(Placement(j, int(vms[p, j]), ROLES[role[p, j]]))
            assert evaluate_phases(list(grouped.values()), jobs, cluster) == pytest.approx(costs[p])


@pytest.mark.parametrize("mix", sorted(MIXES))
def test_schedules_are_feasible_and_never_worse_than_sequential(mix):
    for n in (1, 4, 8):
        jobs = batch(n, MIXES[mix], seed=10 + n)
        schedule = pack_phases(jobs, CLUSTER, "pso", seed=1, **FAST)
        assert schedule.status is SolveStatus.FEASIBLE and schedule.solver == "pso" and schedule.bound is None
        assert evaluate_phases(schedule, jobs, CLUSTER) == pytest.approx(schedule.objective)
        assert schedule.objective <= schedule.sequential_baseline + 1e-9


def test_same_seed_same_schedule_and_seeds_matter():
    jobs = batch(12, MIXES["mixed"], seed=4)
    cluster = Cluster(nodes=4, disks=2, primaries_per_extra=2, overcommit_penalty=1.3)
    first = pack_phases(jobs, cluster, "pso", seed=5, particles=30, iterations=10)
    again = pack_phases(jobs, cluster, "pso", seed=5, particles=30, iterations=10)
    assert again.phases == first.phases and again.objective == first.objective
    others = {pack_phases(jobs, cluster, "pso", seed=s, particles=30, iterations=10).phases for s in (6, 7, 8)}
    assert others - {first.phases}


def test_finds_the_brute_force_optimum_of_a_small_batch():
    jobs = [job("io", 120, -0.8, "io"), job("cpu", 90, -0.3, "cpu"), job("flat", 50, 0), job("half", 80, -0.5)]
    optimum = brute_force(jobs, CLUSTER)
    schedule = pack_phases(jobs, CLUSTER, "pso", seed=0, particles=150, iterations=60)
    assert schedule.objective == pytest.approx(optimum)


def test_finds_the_overcommitted_pair():
    """N = 4, r = 2, alpha = 1.1. io: 200 / n, cpu: a flat 30 s. Hosted on 4 VMs with the cpu job on 2 extra
    VMs: 1.1 * max(50, 30) = 55 s; the best split (3 + 1 VMs) takes 66.7 s; apart 50 + 30 = 80 s."""
    cluster = Cluster(nodes=2, disks=2, primaries_per_extra=2, overcommit_penalty=1.1)
    jobs = [job("io", 200, -1, "io"), job("cpu", 30, 0, "cpu")]
    assert brute_force(jobs, cluster) == pytest.approx(55.0)
    schedule = pack_phases(jobs, cluster, "pso", seed=0, **FAST)
    assert schedule.objective == pytest.approx(55.0)
    (phase,) = schedule.phases
    assert phase[0] == Placement(0, 4, "host") and phase[1].role == "extra" and phase[1].vms <= 2


def test_paper_defaults_unless_overridden(monkeypatch):
    real = solvers.backends.pso.minimize
    seen = []

    def spy(cost, lower, upper, *, options, seed):
        seen.append((options, seed, lower.size))
        return real(cost, lower, upper, options=PsoOptions(particles=5, iterations=2), seed=seed)

    monkeypatch.setattr(solvers.backends.pso, "minimize", spy)
    jobs = batch(3, MIXES["mixed"], seed=0)
    pack_phases(jobs, CLUSTER, "pso", seed=9)
    pack_phases(jobs, CLUSTER, "pso", seed=9, particles=60, iterations=30)
    pack_phases(jobs, CLUSTER, "pso", pso=PsoOptions(particles=70, w=0.5), iterations=8)
    assert [(o.particles, o.iterations) for o, _, _ in seen] == [(1500, 200), (60, 30), (70, 8)]
    assert seen[2][0].w == 0.5
    assert [(s, d) for _, s, d in seen] == [(9, 9), (9, 9), (0, 9)]
