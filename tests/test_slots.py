"""Static slot configuration: the fluid model by hand, against the reference, and its errors."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.reference_slots import reference_makespans
from models import InvalidInput, Job
from solvers import SolveStatus, configure_slots, fluid_makespan
from solvers.slots.fluid import waterfill
from solvers.slots.maps import unit_map_phase
from solvers.slots.work import PhaseWork


def test_two_jobs_one_slot_each_way():
    """S = 2, k = 1: a maps 100 s; then a reduces (100 s) while b maps; then b reduces: 300 s."""
    jobs = [Job("a", 1, 1, 100, 100), Job("b", 1, 1, 100, 100)]
    plan = configure_slots(jobs, 2, 1)
    assert plan.makespans.tolist() == [300.0]
    assert (plan.map_slots, plan.reduce_slots, plan.makespan) == (1, 1, 300.0)
    assert plan.status is SolveStatus.OPTIMAL and plan.bound == plan.objective == 300.0 and plan.gap == 0.0


def test_split_curve_by_hand():
    """S = 3, k = 2, two jobs of 60 map and 30 reduce slot-seconds.
    s_m = 1: both map at 1/2 and finish at 120; both reduce on 2 slots at 1 each, 30 s more: 150.
    s_m = 2: maps at 1 each finish at 60; reduces share 1 slot at 1/2 each, 60 s more: 120."""
    jobs = [Job("a", 6, 3, 10, 10), Job("b", 6, 3, 10, 10)]
    plan = configure_slots(jobs, 3, 2)
    assert plan.makespans.tolist() == [150.0, 120.0]
    assert (plan.map_slots, plan.reduce_slots, plan.makespan) == (2, 1, 120.0)


def test_map_only_job_leaves_after_its_maps():
    """S = 2, k = 2: a (map-only, 40) and b (40 + 40) share the map slot at 1/2: both done at 80;
    a leaves, b reduces alone on 1 slot: 120."""
    jobs = [Job("a", 4, 0, 10), Job("b", 4, 4, 10, 10)]
    assert configure_slots(jobs, 2, 2).makespans.tolist() == [120.0]


def test_reduce_wait_list_is_fifo():
    """k = 1, S = 2, three jobs of 10 map and 100 reduce: maps end at 10, 20, 30 (one at a time);
    R holds one job: a reduces 10-110, b waits in R' and reduces 110-210, c 210-310."""
    jobs = [Job(n, 1, 1, 10, 100) for n in "abc"]
    assert configure_slots(jobs, 2, 1).makespan == 310.0


def test_order_changes_admission():
    """k = 1, S = 2: long map first (a: 100 + 10) then short (b: 10 + 100) runs
    a map 0-100, a reduce 100-110 while b maps 100-110, b reduce 110-210: 210.
    Short first: b map 0-10, b reduce 10-110 while a maps 10-110, a reduce 110-120: 120."""
    jobs = [Job("a", 1, 1, 100, 10), Job("b", 1, 1, 10, 100)]
    assert configure_slots(jobs, 2, 1).makespan == 210.0
    plan = configure_slots(jobs, 2, 1, order=[1, 0])
    assert plan.makespan == 120.0 and plan.order == (1, 0)


def test_capped_model_keeps_a_one_task_job_on_one_slot():
    """S = 11, k = 2, map-only a (1 task of 100 s) and b (10 tasks of 10 s). With s_m = 10:
    fresh: each job gets 5 slots, both finish at 100 / 5 = 20 s.
    capped: a can use 1 slot, b the other 9: b ends at 100 / 9 = 11.1 s; a runs on alone at 1: 100 s."""
    jobs = [Job("a", 1, 0, 100), Job("b", 10, 0, 10)]
    assert configure_slots(jobs, 11, 2).makespans[9] == pytest.approx(20.0)
    capped = configure_slots(jobs, 11, 2, model="capped")
    assert capped.makespans[9] == pytest.approx(100.0)
    assert capped.model == "capped" and capped.solver == "fluid-capped-vectorized"


def test_waterfill_by_hand():
    """Caps 1, 5, inf(empty) with 4 slots: the capped job takes 1, the other the remaining 3.
    Caps 1, 1 with 10 slots: both capped, 8 slots idle. Caps 3, 3, 3 with 6: 2 each."""
    caps = np.array([[1.0, 5.0, np.inf], [1.0, 1.0, np.inf], [3.0, 3.0, 3.0]])
    rates = waterfill(caps, np.array([4.0, 10.0, 6.0]))
    np.testing.assert_allclose(rates, [[1, 3, 0], [1, 1, 0], [2, 2, 2]])


def test_unit_map_phase_by_hand():
    """k = 2 jobs of map work 2, 4, 2 on one slot: 1 and 2 share (1/2 each): 1 ends at 4;
    3 enters, 2 (2 left) and 3 (2) share: both end at 8, in position order."""
    finish, order = unit_map_phase(np.array([2.0, 4.0, 2.0]), 2)
    assert finish.tolist() == [4.0, 8.0, 8.0] and order.tolist() == [0, 1, 2]


def random_jobs(rng, n):
    return [
        Job(f"j{i}", int(rng.integers(1, 20)), int(rng.integers(0, 10)),
            float(rng.integers(1, 6) * 10), float(rng.integers(1, 6) * 10))
        for i in range(n)
    ]


@pytest.mark.parametrize("model", ["fresh", "capped"])
def test_vectorized_agrees_with_reference(model):
    """200 random batches with many simultaneous events (task times are multiples of 10 s)."""
    rng = np.random.default_rng(11)
    for _ in range(100):
        n, total, k = int(rng.integers(1, 10)), int(rng.integers(2, 20)), int(rng.integers(1, 5))
        jobs = random_jobs(rng, n)
        order = rng.permutation(n)
        expected = reference_makespans(PhaseWork.from_jobs(jobs, order), total, k, model)
        plan = configure_slots(jobs, total, k, order=order.tolist(), model=model)
        np.testing.assert_allclose(plan.makespans, expected, rtol=1e-12)
        assert plan.map_slots == int(np.argmin(expected)) + 1


def test_fluid_makespan_single_split_matches_curve():
    rng = np.random.default_rng(5)
    jobs = random_jobs(rng, 8)
    plan = configure_slots(jobs, 12, 3)
    for s in (1, 5, 11):
        assert fluid_makespan(jobs, s, 12 - s, 3) == pytest.approx(plan.makespans[s - 1], rel=1e-12)


def test_ties_go_to_the_smallest_split():
    """One job of 10 map and 10 reduce slot-seconds on S = 3 is symmetric in the split."""
    jobs = [Job("a", 1, 1, 10, 10)]
    plan = configure_slots(jobs, 3, 1)
    # s_m = 1: 10 + 10 / 2 = 15; s_m = 2: 10 / 2 + 10 = 15: a tie, the smaller s_m wins
    assert plan.makespans.tolist() == [15.0, 15.0] and plan.map_slots == 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"total_slots": 1}, "total_slots: must be >= 2"),
        ({"k": 0}, "k: must be >= 1"),
        ({"model": "magic"}, "model: must be one of"),
        ({"order": [0, 0]}, "order: must be a permutation"),
        ({"order": [0]}, "order: must be a permutation"),
    ],
)
def test_bad_arguments(kwargs, message):
    jobs = [Job("a", 1, 1, 10, 10), Job("b", 1, 1, 10, 10)]
    arguments = {"total_slots": 4, "k": 2, **kwargs}
    with pytest.raises(InvalidInput, match=message):
        configure_slots(jobs, **arguments)


def test_profile_only_jobs_are_refused():
    from models import PowerLawProfile

    job = Job("vm", profile=PowerLawProfile.from_coefficients(100, -1))
    with pytest.raises(InvalidInput, match=r"jobs\[0\].map_tasks: job 'vm' has no tasks"):
        configure_slots([job], 4, 1)
    with pytest.raises(InvalidInput, match="need at least one job"):
        configure_slots([], 4, 1)
