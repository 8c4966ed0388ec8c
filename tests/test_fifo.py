"""FIFO in the simulator: the design document's two-job batch, the queue's order (priority, then
submission, then name) and an explicit order of the jobs (FIFO and FRESH-static).

Conventions (heartbeat 0, every block on every node, deterministic task times, unless a test
says otherwise) and the shared clusters and batches: tests/support/simulator.py.
"""

from __future__ import annotations

import pytest

from models import Cluster, Job
from models.errors import InvalidInput
from planner.simulator import Fifo, Fresh, simulate
from tests.support.simulator import TEN_AND_TEN, TWO_JOBS, flat


def test_fifo_batch_of_two_jobs_takes_300_s():
    """10 map + 10 reduce slots, a and b each 10 maps and 10 reduces of 100 s, slow-start 1.0.
    FIFO: a's 10 maps fill the 10 map slots 0-100; a's reduces run 100-200 on the reduce slots
    while b's maps run 100-200; b's reduces 200-300. a finishes at 200, b at 300: makespan 300."""
    result = simulate(TWO_JOBS, TEN_AND_TEN, "fifo")
    assert result.makespan == 300.0
    assert result.job("a") == {"name": "a", "submit": 0.0, "ready": 0.0, "held_by": None, "start": 0.0, "map_done": 100.0, "finish": 200.0,
                               "response": 200.0, "deadline": None, "margin": None}
    assert result.job("b") == {"name": "b", "submit": 0.0, "ready": 0.0, "held_by": None, "start": 100.0, "map_done": 200.0, "finish": 300.0,
                               "response": 300.0, "deadline": None, "margin": None}
    assert result.locality == {"node": 1.0, "rack": 0.0, "off": 0.0}


def test_fifo_order_priority_then_submit_then_name():
    """One map slot. c (submitted at 0) takes it at 0 for 10 s. Waiting at 10: b and a (both
    submitted at 1) and z (submitted at 2, priority 1). Higher priority first, then earlier
    submission, then name: z 10-20, a 20-30, b 30-40."""
    jobs = [Job("c", 1, 0, 10.0), Job("b", 1, 0, 10.0, submit=1.0), Job("a", 1, 0, 10.0, submit=1.0),
            Job("z", 1, 0, 10.0, submit=2.0, priority=1)]
    result = simulate(jobs, flat(1), "fifo")
    assert {name: record["start"] for name, record in ((r["name"], r) for r in result.jobs)} == {
        "c": 0.0, "z": 10.0, "a": 20.0, "b": 30.0}


def test_explicit_order_ranks_jobs_for_fifo_and_fresh():
    """Three identical jobs a, b, c (4 maps x 10 s, 1 reduce x 5 s), all submitted at 0, on
    2 nodes of 2 + 2 slots, heartbeat 0.

    - FIFO in the order c, a, b: c's 4 maps take the 4 map slots (0-10), its reduce runs
      10-15; then a (maps 10-20, reduce 20-25), then b (20-30, 30-35).
    - FRESH-static with k = 1 and the order c, b (a not named, so last): c, then b, then a,
      with the same timings: c 15, b 25, a 35. Without the order FRESH admits a, b, c.
    """
    jobs = [Job(name, 4, 1, 10.0, 5.0) for name in "abc"]
    cluster = Cluster(nodes=2, heartbeat=0)
    fifo = simulate(jobs, cluster, Fifo(order=["c", "a", "b"]))
    assert [fifo.job(n)["finish"] for n in "cab"] == [15.0, 25.0, 35.0]
    assert fifo.scheduler["order"] == ["c", "a", "b"]
    fresh = simulate(jobs, cluster, Fresh(k=1, dynamic=False, order=["c", "b"]))
    assert [fresh.job(n)["finish"] for n in "cba"] == [15.0, 25.0, 35.0]
    plain = simulate(jobs, cluster, Fresh(k=1, dynamic=False))
    assert [plain.job(n)["finish"] for n in "abc"] == [15.0, 25.0, 35.0]


@pytest.mark.parametrize("order, message", [
    ("abc", r"^order: must be a list of job names"),
    (["a", "a"], r"^order\[1\]: 'a' appears twice"),
    (["a", 3], r"^order\[1\]: must be a job name"),
])
def test_explicit_order_is_checked(order, message):
    for cls in (Fifo, Fresh):
        with pytest.raises(InvalidInput, match=message):
            cls(order=order)
