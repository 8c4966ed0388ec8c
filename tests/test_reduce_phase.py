"""When reducers launch and compute: reduce slow-start and copy-compute splitting.

Conventions (heartbeat 0, every block on every node, deterministic task times, unless a test
says otherwise) and the shared clusters and batches: tests/support/simulator.py.
"""

from __future__ import annotations

from collections import Counter

from models import Cluster, Job
from planner.simulator import SimOptions, simulate
from tests.support.simulator import finishes, flat


# -- copy-compute splitting and slow-start -----------------------------------------------------------
def test_reduce_slowstart_launches_reducers_early():
    """5 map and 5 reduce slots; one job of 10 maps of 10 s (waves 0-10 and 10-20) and 5 reduces of
    10 s. Slow-start 1.0: reducers start at 20. 0.5: half the maps (5) are done at 10, reducers
    launch at 10 and copy until the last map ends at 20, then compute 20-30. 0.0: they launch at 0.
    In every case they end at 30, after the last map."""
    job = [Job("a", 10, 5, 10.0, 10.0)]
    for slowstart, launch in ((1.0, 20.0), (0.5, 10.0), (0.0, 0.0)):
        result = simulate(job, flat(5), "fifo", options=SimOptions(reduce_slowstart=slowstart))
        reduces = [t for t in result.tasks if t["kind"] == "reduce"]
        assert {(t["start"], t["end"]) for t in reduces} == {(launch, 30.0)}
        assert result.job("a")["map_done"] == 20.0 and result.makespan == 30.0


def test_copy_compute_limits_computing_reducers_per_node():
    """2 nodes, 1 map slot each, copy_compute=(3, 1): 3 reduce slots per node, 1 reducer computing
    per node, and a job holds at most 1 copying reducer per node. One job: 4 maps of 10 s (waves
    0-10, 10-20), 6 reduces of 5 s, slow-start 0.5. At 10, 2 of 4 maps are done: one reducer per
    node launches and copies until 20, then computes 20-25. The other four compute one at a time
    per node: 25-30 and 30-35. Makespan 20 + 3 * 5 = 35."""
    options = SimOptions(reduce_slowstart=0.5, copy_compute=(3, 1))
    result = simulate([Job("a", 4, 6, 10.0, 5.0)], flat(2), "fifo", options=options)
    assert result.slots == 2 + 2 * 3
    reduces = [t for t in result.tasks if t["kind"] == "reduce"]
    assert sorted(t["start"] for t in reduces)[:2] == [10.0, 10.0]
    assert Counter(t["node"] for t in reduces if t["start"] == 10.0) == {0: 1, 1: 1}
    for node in (0, 1):
        computing = sorted((t["end"] - 5.0, t["end"]) for t in reduces if t["node"] == node)
        assert computing == [(20.0, 25.0), (25.0, 30.0), (30.0, 35.0)]
    assert result.makespan == 35.0


def test_copy_compute_lets_a_small_job_reduce_past_a_big_one():
    """Zaharia et al.'s motivation. One node, 2 map slots, 2 reduce slots, slow-start 0, fair
    sharing. L: 4 maps of 100 s, 2 reduces of 10 s; S (submitted at 1): 1 map, 1 reduce of 10 s.
    Maps: L 0-100 (x2); at 100 L (earlier) and S share: L 100-200, S 100-110; L's last 110-210.
    Without splitting L's two reducers take both reduce slots at 0 and hold them copying until 210,
    computing 210-220: S's reducer runs 220-230. With copy_compute=(2, 1) L may hold only one copying
    reducer on the node, so S's reducer gets the other slot at 1, copies, and computes 110-120.
    L still finishes at 230 (its second reducer computes after its first, 220-230)."""
    cluster = Cluster(nodes=1, map_slots=2, reduce_slots=2, heartbeat=0, replication=1)
    jobs = [Job("L", 4, 2, 100.0, 10.0), Job("S", 1, 1, 10.0, 10.0, submit=1.0)]
    plain = simulate(jobs, cluster, "fair", options=SimOptions(reduce_slowstart=0.0))
    assert finishes(plain) == {"L": 220.0, "S": 230.0}
    split = simulate(jobs, cluster, "fair", options=SimOptions(reduce_slowstart=0.0, copy_compute=(2, 1)))
    assert finishes(split) == {"L": 230.0, "S": 120.0}


def test_copy_compute_idle_reduce_slots_are_used_once_the_maps_are_done():
    """Heartbeat 0 ("a slot is offered the moment it frees"), one node, 1 map slot,
    copy_compute=(8, 4): 8 reduce slots, 4 computing at a time, at most 4 copying reducers of a job.
    One job: 2 maps of 10 s (0-10, 10-20), 8 reduces of 5 s, slow-start 0.5. At 10 one map of two
    is done: 4 reducers launch and copy; the other 4 reduce slots are declined (copy limit). At 20
    the last map ends: the 4 copying reducers compute 20-25 and the copy limit no longer applies,
    so the 4 idle slots take the other 4 reducers at once; they wait for a compute slot and compute
    25-30. Reduce attempts: 4 x (10, 25) and 4 x (20, 30); makespan 30."""
    cluster = Cluster(nodes=1, map_slots=1, reduce_slots=1, heartbeat=0, replication=1)
    options = SimOptions(reduce_slowstart=0.5, copy_compute=(8, 4))
    result = simulate([Job("a", 2, 8, 10.0, 5.0)], cluster, "fifo", options=options)
    reduces = sorted((t["start"], t["end"]) for t in result.tasks if t["kind"] == "reduce")
    assert reduces == [(10.0, 25.0)] * 4 + [(20.0, 30.0)] * 4
    assert result.makespan == 30.0
