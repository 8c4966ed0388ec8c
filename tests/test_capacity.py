"""The capacity scheduler: hard and soft caps, guarantees without preemption, and its queues'
settings.

Conventions (heartbeat 0, every block on every node, deterministic task times, unless a test
says otherwise) and the shared clusters and batches: tests/support/simulator.py.
"""

from __future__ import annotations

import pytest

from models import Job
from models.errors import InvalidInput
from planner.simulator import Capacity, Queue, simulate
from tests.support.simulator import finishes, flat, peak, running_at

# -- capacity queues -------------------------------------------------------------------------------
FOUR = flat(4)
QUEUES = [Queue("a", 0.5, 0.5), Queue("b", 0.5, 1.0)]  # a: hard cap at half; b: soft cap


def test_capacity_hard_cap_is_never_exceeded():
    """4 map slots; queue a is capped at 0.5 * 4 = 2 even with the cluster idle. a1 (8 maps of 10 s)
    then a2 (4 maps), FIFO inside the queue: a1 in 4 waves of 2, 0-40; a2 40-60."""
    jobs = [Job("a1", 8, 0, 10.0, pool="a"), Job("a2", 4, 0, 10.0, pool="a")]
    result = simulate(jobs, FOUR, Capacity(queues=QUEUES))
    assert peak(result.tasks, lambda t: True) == 2
    assert finishes(result) == {"a1": 40.0, "a2": 60.0}


def test_capacity_soft_cap_uses_idle_slots():
    """Queue b (capacity 0.5, max 1.0) alone: b1's 8 maps use all 4 slots, 0-10 and 10-20."""
    result = simulate([Job("b1", 8, 0, 10.0, pool="b")], FOUR, Capacity(queues=QUEUES))
    assert peak(result.tasks, lambda t: True) == 4
    assert result.makespan == 20.0


def test_capacity_guarantees_and_no_preemption():
    """Two soft-capped queues of 0.5 (2 slots each). Submitted together: each holds 2 slots, both
    8-map jobs finish at 40. b1 arriving at 5: a1 already holds all 4 slots (soft cap) and nothing
    is killed; at 10 the 4 freed slots go to the queue using the smaller fraction of its capacity
    (ties by queue order): a, b, a, b. a1: 4 + 2 + 2 maps, done at 30; b1: 2 (10-20) + 2 (20-30),
    then all 4 slots for its last 4 maps: 30-40."""
    queues = [Queue("a", 0.5), Queue("b", 0.5)]
    together = [Job("a1", 8, 0, 10.0, pool="a"), Job("b1", 8, 0, 10.0, pool="b")]
    assert finishes(simulate(together, FOUR, Capacity(queues=queues))) == {"a1": 40.0, "b1": 40.0}
    later = [Job("a1", 8, 0, 10.0, pool="a"), Job("b1", 8, 0, 10.0, pool="b", submit=5.0)]
    result = simulate(later, FOUR, Capacity(queues=queues))
    assert finishes(result) == {"a1": 30.0, "b1": 40.0}
    assert all(t["fate"] == "done" for t in result.tasks)
    assert running_at(result.tasks, 15.0, "a1") == running_at(result.tasks, 15.0, "b1") == 2


def test_capacity_fair_ordering_shares_a_queue_and_ignores_priorities():
    """One queue, 4 map slots; a1 (8 maps of 10 s) at 0, a2 (4 maps) at 5, a2 at priority 1 in the
    second batch. FIFO ordering: a1 holds all 4 slots 0-10 and takes them again at 10 (a1 done at
    20, a2 20-30); with a2 at priority 1, a2 takes the 4 slots at 10 (done at 20), a1's last 4 run
    20-30. Fair ordering (YARN's FairOrderingPolicy: fewest running containers, then submission,
    priorities aside): at 10 the freed slots go a1, a2, a1, a2 (a tie at 0 and at 1 goes to the
    earlier a1), and again at 20: both end at 30, whatever a2's priority."""
    for priority, fifo in ((0, {"a1": 20.0, "a2": 30.0}), (1, {"a1": 30.0, "a2": 20.0})):
        jobs = [Job("a1", 8, 0, 10.0, pool="q"), Job("a2", 4, 0, 10.0, pool="q", submit=5.0, priority=priority)]
        assert finishes(simulate(jobs, FOUR, Capacity(queues=[Queue("q", 1.0)]))) == fifo
        result = simulate(jobs, FOUR, Capacity(queues=[Queue("q", 1.0, ordering="fair")]))
        assert finishes(result) == {"a1": 30.0, "a2": 30.0}
        assert running_at(result.tasks, 15.0, "a1") == running_at(result.tasks, 15.0, "a2") == 2
    assert Capacity(queues=[Queue("q", 1.0, ordering="fair")]).describe()["queues"][0]["ordering"] == "fair"
    assert "ordering" not in Capacity(queues=[Queue("q", 1.0)]).describe()["queues"][0]


def test_capacity_unknown_queue_raises():
    with pytest.raises(InvalidInput, match="pool"):
        simulate([Job("x", 1, 0, 1.0, pool="nowhere")], FOUR, Capacity(queues=QUEUES))


def test_capacity_hard_cap_below_one_slot_raises():
    """Queue a capped at 0.2 of 4 map slots may hold floor(0.8) = 0 slots: its jobs could never run,
    so the run is refused up front (naming the queue's max_capacity) instead of stalling."""
    queues = [Queue("a", 0.2, 0.2), Queue("b", 0.8, 1.0)]
    with pytest.raises(InvalidInput, match="max_capacity"):
        simulate([Job("x", 1, 0, 1.0, pool="a")], FOUR, Capacity(queues=queues))
    # Unused, the tiny queue is harmless.
    assert simulate([Job("y", 4, 0, 1.0, pool="b")], FOUR, Capacity(queues=queues)).makespan == 1.0


@pytest.mark.parametrize(
    "queues",
    [
        [Queue("a", 0.7), Queue("b", 0.7)],  # capacities add up to more than 1
        [Queue("a", 0.5), Queue("a", 0.5)],  # duplicate name
        [],
        ["a"],
    ],
)
def test_capacity_bad_queues_raise(queues):
    with pytest.raises(InvalidInput):
        Capacity(queues=queues)


@pytest.mark.parametrize("kwargs", [{"capacity": 1.5}, {"capacity": 0.0}, {"capacity": 0.5, "max_capacity": 0.4},
                                    {"capacity": 0.5, "max_capacity": 1.2}, {"capacity": 0.5, "ordering": "drf"}])
def test_bad_queue_raises(kwargs):
    with pytest.raises(InvalidInput):
        Queue("q", **kwargs)
