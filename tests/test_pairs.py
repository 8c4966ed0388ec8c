"""VM pair scheduling: pair costs by hand, and the three exact methods against each other."""

from __future__ import annotations

import math

import numpy as np
import pytest

from models import Cluster, InvalidInput, Job, PowerLawProfile
from solvers import SolveStatus, methods, pair_cost, schedule_pairs

#: P = 2 machines, k = 2 disks: N = 4 primary VMs, P * k / r = 2 extra VMs, alpha = 1.3.
SMALL = Cluster(nodes=2, disks=2, primaries_per_extra=2, overcommit_penalty=1.3)


def job(name: str, a: float, b: float, intensity: str = "balanced") -> Job:
    return Job(name, intensity=intensity, profile=PowerLawProfile.from_coefficients(a, b))


def test_sequential_wins_for_jobs_that_scale():
    """F_i = 100 / n, F_j = 200 / n. Sequential: 25 + 50 = 75. Concurrent: x = 1: max(100, 66.7) = 100;
    x = 2: max(50, 100) = 100; x = 3: max(33.3, 200) = 200: 100 at x = 1 (the smallest on ties).
    Overcommit (i io, j cpu): 1.3 * max(F_i(4), F_j(2)) = 1.3 * max(25, 100) = 130."""
    cost = pair_cost(job("i", 100, -1, "io"), job("j", 200, -1, "cpu"), SMALL)
    assert (cost.sequential, cost.concurrent, cost.split) == (75.0, 100.0, 1)
    assert cost.overcommit == pytest.approx(130.0)
    assert (cost.best, cost.mode) == (75.0, "sequential")


def test_concurrent_wins_for_flat_jobs():
    """Two jobs of 100 s on any number of VMs: sequential 200, concurrent max(100, 100) = 100 at x = 1;
    no overcommit (neither is io)."""
    cost = pair_cost(job("i", 100, 0), job("j", 100, 0), SMALL)
    assert (cost.best, cost.mode, cost.split) == (100.0, "concurrent", 1)
    assert math.isinf(cost.overcommit)


def test_overcommit_wins_when_extras_are_free_capacity():
    """io F = 100 / n, cpu F = 40 / n. Sequential 25 + 10 = 35. Concurrent: x = 2: max(50, 20) = 50;
    x = 3: max(33.3, 40) = 40: 40. Overcommit: 1.3 * max(F_io(4), F_cpu(2)) = 1.3 * max(25, 20) = 32.5."""
    cost = pair_cost(job("io", 100, -1, "io"), job("cpu", 40, -1, "cpu"), SMALL)
    assert cost.sequential == 35.0 and cost.concurrent == pytest.approx(40.0) and cost.split == 3
    assert (cost.best, cost.mode) == (pytest.approx(32.5), "overcommit")
    reverse = pair_cost(job("cpu", 40, -1, "cpu"), job("io", 100, -1, "io"), SMALL)
    assert reverse.overcommit == pytest.approx(32.5)


def test_four_flat_jobs_pair_up():
    """Four 100-s flat jobs: any two pairs run concurrently, 100 + 100 = 200 (alone: 400)."""
    jobs = [job(f"j{i}", 100, 0) for i in range(4)]
    schedule = schedule_pairs(jobs, SMALL, "exhaustive")
    assert schedule.objective == 200.0 and schedule.sequential_baseline == 400.0
    assert [g.mode for g in schedule.groups] == ["concurrent", "concurrent"]


def test_odd_count_leaves_one_alone():
    """Three 100-s flat jobs: one concurrent pair (100) and one job alone on all VMs (100): 200."""
    schedule = schedule_pairs([job(f"j{i}", 100, 0) for i in range(3)], SMALL, "milp")
    assert schedule.objective == 200.0
    assert sorted(len(g.jobs) for g in schedule.groups) == [1, 2]
    assert [g.mode for g in schedule.groups if len(g.jobs) == 1] == ["alone"]


def random_jobs(rng, n):
    return [
        job(f"j{i}", float(rng.uniform(200, 5000)), float(rng.uniform(-1.0, 0.0)),
            str(rng.choice(["cpu", "io", "balanced"])))
        for i in range(n)
    ]


@pytest.mark.parametrize("name", sorted(methods("pairs")))
def test_every_pair_method_honours_the_contract(name):
    """Every registered method on a shared instance set: a partition of the jobs, the objective is the
    sum of its groups, and exact methods reach the exhaustive optimum."""
    rng = np.random.default_rng(4)
    cluster = Cluster(nodes=5, disks=2)
    for n in (1, 2, 5, 8, 11):
        jobs = random_jobs(rng, n)
        optimum = schedule_pairs(jobs, cluster, "exhaustive").objective
        schedule = schedule_pairs(jobs, cluster, name, time_limit=30, seed=1)
        assert sorted(i for g in schedule.groups for i in g.jobs) == list(range(n))
        assert schedule.objective == pytest.approx(sum(g.seconds for g in schedule.groups))
        assert schedule.objective == pytest.approx(optimum, rel=1e-9)
        assert schedule.status is SolveStatus.OPTIMAL and schedule.gap == 0.0
        assert all(g.split is None or 1 <= g.split < cluster.vms for g in schedule.groups)


def test_milp_and_blossom_agree_on_larger_batches():
    """Past the direct limit both shrink the graph by LP reduced costs; they must still agree."""
    rng = np.random.default_rng(8)
    jobs = random_jobs(rng, 90)
    cluster = Cluster(nodes=10, disks=2)
    milp = schedule_pairs(jobs, cluster, "milp")
    blossom = schedule_pairs(jobs, cluster, "matching")
    assert milp.objective == pytest.approx(blossom.objective, rel=1e-9)
    assert milp.status is SolveStatus.OPTIMAL and milp.objective <= milp.sequential_baseline


def test_errors():
    with pytest.raises(InvalidInput, match=r"j0\.profile: VM-level planning needs a runtime profile"):
        schedule_pairs([Job("j0", 1, 0, 10.0)], SMALL)
    with pytest.raises(InvalidInput, match="at most 12 jobs"):
        schedule_pairs([job(f"j{i}", 100, 0) for i in range(13)], SMALL, "exhaustive")
    with pytest.raises(InvalidInput, match="unknown method 'greedy' for pairs"):
        schedule_pairs([job("a", 100, 0)], SMALL, "greedy")
    with pytest.raises(InvalidInput, match="need at least one job"):
        schedule_pairs([], SMALL)
