"""Fair's preemption: min-share and fair-share timeouts, when starvation is timed from, and runs
that must end. `PREEMPT_CLUSTER` (tests/support/simulator.py) staggers its nodes' reports.

Conventions (heartbeat 0, every block on every node, deterministic task times, unless a test
says otherwise) and the shared clusters and batches: tests/support/simulator.py.
"""

from __future__ import annotations

import signal

import pytest

from models import Cluster, Job
from planner.simulator import Fair, Fifo, Pool, Preemption, Simulation, simulate
from tests.support.simulator import PREEMPT_CLUSTER, running_at


def test_min_share_preemption_within_timeout_plus_one_heartbeat():
    """Pool b (min_map 4) submits "b" (6 maps of 50 s) at t=10; no slot frees on its own before 1000.
    b is below its floor min(4, 6) = 4 from t=10, so at 10 + 30 = 40 the scheduler kills the
    missing 4 tasks. Fair shares of the 8 map slots: demands 40 and 6, min shares 0 and 4:
    min(40, r) + min(6, max(r, 4)) = 8 at r = 4, so a's share is 4: a keeps 4 (not below its share).
    The victims are a's newest tasks, the ones on nodes 2 and 3 (launched at 1.5 and 2.25); those
    nodes report next at 1.5 + 39 = 40.5 and 2.25 + 39 = 41.25 and give the slots to b, so b runs 4
    maps by 40 + 3 = 43. Killed work: 2 (40 - 1.5) + 2 (40 - 2.25) = 152.5 slot-s."""
    jobs = [Job("hog", 40, 0, 1000.0, pool="a"), Job("b", 6, 0, 50.0, submit=10.0, pool="b")]
    scheduler = Fair(pools=[Pool("b", min_map=4)], preemption=Preemption(min_share_timeout=30, fair_share_timeout=None))
    result = simulate(jobs, PREEMPT_CLUSTER, scheduler)
    tasks = result.tasks
    assert running_at(tasks, 10.0 + 30.0 + 3.0, "b") >= 4
    assert running_at(tasks, 39.9, "b") == 0  # not before the timeout
    killed = [t for t in tasks if t["fate"] == "killed"]
    assert len(killed) == 4
    assert {t["job"] for t in killed} == {"hog"}
    assert {t["end"] for t in killed} == {40.0}
    assert sorted(t["start"] for t in killed) == [1.5, 1.5, 2.25, 2.25]
    assert running_at(tasks, 40.0, "hog") == 4  # a kept its fair share of 4
    assert min(running_at(tasks, t["start"], "hog") for t in tasks if 40 <= t["start"] < 1000) >= 4
    assert result.killed_work == pytest.approx(152.5)
    # Killed maps run again and the hog still finishes all 40 maps.
    done = [t for t in tasks if t["job"] == "hog" and t["fate"] == "done"]
    assert sorted(t["task"] for t in done) == list(range(40))


def test_fair_share_preemption_after_half_share_timeout():
    """Two equal pools, no min shares. "b" (8 maps of 50 s, pool b) arrives at 10 while the hog holds
    all 8 map slots. b's fair share: min(40, r) + min(8, r) = 8 at r = 4; b is below half of it (2)
    from t=10, so at 10 + 60 = 70 the scheduler kills up to min(4, 8) - 0 = 4 of the hog's newest
    tasks (nodes 2 and 3), never taking a below its share of 4; b runs 4 maps by 70 + 3 = 73.
    Killed work: 2 (70 - 1.5) + 2 (70 - 2.25) = 272.5 slot-s. A 30 s min-share timeout does nothing
    here: neither pool has a min share."""
    jobs = [Job("hog", 40, 0, 1000.0, pool="a"), Job("b", 8, 0, 50.0, submit=10.0, pool="b")]
    scheduler = Fair(preemption=Preemption(min_share_timeout=30, fair_share_timeout=60))
    result = simulate(jobs, PREEMPT_CLUSTER, scheduler)
    tasks = result.tasks
    assert running_at(tasks, 69.9, "b") == 0
    assert running_at(tasks, 73.0, "b") == 4
    killed = [t for t in tasks if t["fate"] == "killed"]
    assert {t["job"] for t in killed} == {"hog"} and {t["end"] for t in killed} == {70.0}
    assert len(killed) == 4 and running_at(tasks, 70.0, "hog") == 4
    assert result.killed_work == pytest.approx(272.5)
    # b's first wave ends at 120.5 (node 2) and 121.25 (node 3); a slot freed between reports waits
    # for its node's next one, 1.5 + 3 * ceil(119 / 3) = 121.5 and 122.25: b is done at 172.25.
    assert result.job("b")["finish"] == pytest.approx(172.25)


@pytest.mark.parametrize(
    ("scheduler", "kill_at"),
    [
        (Fair(preemption=Preemption(min_share_timeout=None, fair_share_timeout=60)), 160.0),
        (Fair(pools=[Pool("b", min_reduce=1)], preemption=Preemption(min_share_timeout=30, fair_share_timeout=None)),
         130.0),
    ],
    ids=["fair-share", "min-share"],
)
def test_starvation_is_timed_from_when_a_pool_falls_short(scheduler, kill_at):
    """2 nodes of 1 map + 1 reduce slot, heartbeat 0. hog (pool a): 2 maps of 1 s, 10 reduces of
    1000 s; b (pool b): 1 map of 100 s, 2 reduces of 10 s. t=0: hog's first map on node 0 (tie
    to the earlier-named pool), b's map on node 1 (0-100); hog's second map 1-2; hog's reduces
    open at 2 and take both reduce slots (b wants none yet) until 1002. At 100 b's reduces open
    and find no reduce slot: b is short of its reduce share from t=100 (fair shares of 2 slots for
    demands 10 and 2: 1 and 1; half of 1 is 0.5 > 0 running; min share 1 > 0). Before 100 it wanted
    no reduce slot, so it was not starved (no event between 2 and 100 changes that).
    Fair-share preemption (60 s) kills at 100 + 60 = 160, min-share preemption (30 s) at 130:
    hog's newest reducer (both started at 2; the later slot, node 1's) dies, hog keeps 1 = its
    share; b's reduces run kill_at + 0-10 and + 10-20. Killed work kill_at - 2."""
    cluster = Cluster(nodes=2, map_slots=1, reduce_slots=1, heartbeat=0, replication=2)
    jobs = [Job("hog", 2, 10, 1.0, 1000.0, pool="a"), Job("b", 1, 2, 100.0, 10.0, pool="b")]
    result = simulate(jobs, cluster, scheduler)
    killed = [t for t in result.tasks if t["fate"] == "killed"]
    assert [(t["job"], t["kind"], t["node"], t["start"], t["end"]) for t in killed] == [
        ("hog", "reduce", 1, 2.0, kill_at)]
    assert result.job("b")["finish"] == kill_at + 20.0
    assert result.killed_work == kill_at - 2.0


def test_preemption_with_a_zero_node_wait_lets_time_advance():
    """Found by the property tests. 2 nodes in 2 racks, 2 map slots each, replication 1, heartbeat
    0, Fair(delay=(0, 5)) with fair-share preemption (2 s, recheck 0.5 s). Seed 7 puts j2's blocks
    on nodes 1, 0, 0, 0 and j0's on 0, 1, 0. t=0: j2 (pool c, 4 maps of 5 s) runs its 3 local maps
    on node 0 (x2) and node 1; its 4th waits (block on node 0, other rack). t=1: j0 (pool b) runs
    its node-1 map on the free node-1 slot, 1-3. t=3: that slot frees; j0's other maps (blocks on
    node 0) and j2's are not local to it. Pool b has been below half its fair share, so
    preemption kills j2's newest task (node 1, slot 3). The freed slot goes straight back to j2
    (its block there is local, which resets j2's level to node-local); j2 is then skipped on the
    other free node-1 slot, and with node_wait 0 a skip asks for a wake-up at the current instant;
    that wake-up preempts again. Kill and relaunch repeat forever at t=3 without the clock moving.
    Whatever the schedule, the run must end with both jobs done (guarded by a 3 s alarm)."""
    cluster = Cluster(nodes=2, racks=2, map_slots=2, reduce_slots=1, heartbeat=0, replication=1)
    jobs = [Job("j0", 3, 0, 2.0, submit=1.0, pool="b"), Job("j2", 4, 0, 5.0, pool="c")]
    scheduler = Fair(delay=(0, 5), preemption=Preemption(min_share_timeout=None, fair_share_timeout=2.0, recheck=0.5))
    probe = Simulation(jobs, cluster, Fifo(), seed=7)
    probe.run()
    assert [probe.job_run(i).replicas.ravel().tolist() for i in (0, 1)] == [[0, 1, 0], [1, 0, 0, 0]]

    def give_up(*_):
        raise TimeoutError("the simulation did not finish in 3 s")

    previous = signal.signal(signal.SIGALRM, give_up)
    signal.alarm(3)
    try:
        result = simulate(jobs, cluster, scheduler, seed=7)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert all(record["finish"] is not None for record in result.jobs)
    assert sum(t["fate"] == "killed" for t in result.tasks) < 10


def test_no_preemption_without_a_policy():
    """The same inputs without preemption: nothing is killed and b waits for the first slots to free
    at 1000 (node 0's next report at 1002)."""
    jobs = [Job("hog", 40, 0, 1000.0, pool="a"), Job("b", 8, 0, 50.0, submit=10.0, pool="b")]
    result = simulate(jobs, PREEMPT_CLUSTER, Fair())
    assert result.killed_work == 0.0
    assert all(t["fate"] == "done" for t in result.tasks)
    assert result.job("b")["start"] == 1002.0


def test_preemption_timeout_restarts_when_a_pool_becomes_active_again():
    """Heartbeat 0, 8 map slots. Pool b (min_map 4) runs a 1-map job b1 (5 s) at 0-5 next to the hog
    (pool a, 7 + 1 slots from 5 on); then b is empty until b2 (4 maps of 50 s) arrives at 500. b has
    been starved only since 500, so min-share preemption may kill only at 500 + 30 = 530 (in Hadoop
    a pool with no demand is never starved, so its "last time at min share" keeps moving while it
    is empty). The 4 newest hog tasks die at 530 and b2 runs 530-580. Likewise fair-share preemption
    with a 60 s timeout (b2 with 8 maps, share 4): kills at 560, not earlier."""
    cluster = Cluster(nodes=4, map_slots=2, reduce_slots=1, heartbeat=0, replication=4)
    jobs = [Job("hog", 40, 0, 1000.0, pool="a"), Job("b1", 1, 0, 5.0, pool="b"),
            Job("b2", 4, 0, 50.0, submit=500.0, pool="b")]
    scheduler = Fair(pools=[Pool("b", min_map=4)], preemption=Preemption(min_share_timeout=30, fair_share_timeout=None))
    result = simulate(jobs, cluster, scheduler)
    assert {t["end"] for t in result.tasks if t["fate"] == "killed"} == {530.0}
    assert (result.job("b2")["start"], result.job("b2")["finish"]) == (530.0, 580.0)
    jobs[2] = jobs[2].with_changes(map_tasks=8)
    result = simulate(jobs, cluster, Fair(preemption=Preemption(min_share_timeout=None, fair_share_timeout=60)))
    assert {t["end"] for t in result.tasks if t["fate"] == "killed"} == {560.0}
    assert result.job("b2")["start"] == 560.0
