"""Fair sharing in the simulator: the two-job batch, FRESH's example under fair sharing, pools
(weights, priorities, min shares, modes, running-job limits) and their settings.

Conventions (heartbeat 0, every block on every node, deterministic task times, unless a test
says otherwise) and the shared clusters and batches: tests/support/simulator.py.
"""

from __future__ import annotations

import pytest

from models import Cluster, Job
from models.errors import InvalidInput
from planner.simulator import DelayScheduling, Fair, Pool, Preemption, simulate
from tests.support.simulator import TEN_AND_TEN, TWO_JOBS, finishes, flat, running_at


def test_fair_batch_of_two_jobs_takes_400_s():
    """Same batch under fair sharing: each job gets 5 map slots, so both jobs' maps take two waves,
    0-100 and 100-200, and both map phases end at 200. Then each gets 5 reduce slots: reduces
    200-300 and 300-400. Both finish at 400: makespan 400 (fair sharing loses to FIFO here)."""
    result = simulate(TWO_JOBS, TEN_AND_TEN, "fair")
    assert result.makespan == 400.0
    for name in "ab":
        record = result.job(name)
        assert (record["start"], record["map_done"], record["finish"]) == (0.0, 200.0, 400.0)
    assert running_at(result.tasks, 50.0, "a") == running_at(result.tasks, 50.0, "b") == 5
    assert running_at(result.tasks, 250.0, "a", "reduce") == running_at(result.tasks, 250.0, "b", "reduce") == 5


def test_fresh_paper_example_all_done_at_5():
    """FRESH's example: jobs (2 maps, 9 reduces), (3, 4), (7, 3), every task 1 unit, 4 map and
    4 reduce slots, fair sharing. Ties go to the earlier listed job (same submit time, name order).
    t=0 maps: j1 j2 j3 j1 (j1's maps all launched). t=1: j1's maps are done, its reduces open;
    maps j2 j3 j2 j3 (j2 all launched); reduces j1 x4. t=2: j2's maps done; maps j3 x4 (the last
    four); reduces j1 j2 j1 j2. t=3: j3's maps done; reduces j1 j2 j3 j1. t=4: j1 j2 j3 j3.
    Reduce work 9 + 4 + 3 = 16 units on 4 slots from t=1 is 4 units: all done at 5, and no slot
    is idle from the first reduce onwards."""
    cluster = Cluster(nodes=4, map_slots=1, reduce_slots=1, heartbeat=0, replication=4)
    jobs = [Job("j1", 2, 9, 1, 1), Job("j2", 3, 4, 1, 1), Job("j3", 7, 3, 1, 1)]
    result = simulate(jobs, cluster, "fair")
    assert result.makespan == 5.0
    assert finishes(result) == {"j1": 5.0, "j2": 5.0, "j3": 5.0}
    assert [result.job(name)["map_done"] for name in ("j1", "j2", "j3")] == [1.0, 2.0, 3.0]
    for time in (1.5, 2.5, 3.5, 4.5):
        assert running_at(result.tasks, time, kind="reduce") == 4


# -- fair pools --------------------------------------------------------------------------------------
NINE = flat(9)


def test_pool_weights():
    """9 map slots, pools a (weight 2) and b (weight 1), each one job of 18 maps of 100 s. A free
    slot goes to the pool with the lowest running/weight (ties: earlier job, then name):
    a(0 vs 0) b(0.5 vs 0) a(0.5 vs 1) a(1 vs 1) b(1.5 vs 1) a(1.5 vs 2) a(2 vs 2) b(2.5 vs 2)
    a(2.5 vs 3): a 6, b 3 in every wave. a's 18 maps take 3 waves: done at 300; b ran 9 maps by
    then and its last 9 take the whole cluster: 300-400."""
    jobs = [Job("a", 18, 0, 100.0, pool="a"), Job("b", 18, 0, 100.0, pool="b")]
    result = simulate(jobs, NINE, Fair(pools=[Pool("a", weight=2)]))
    assert running_at(result.tasks, 50.0, "a") == 6 and running_at(result.tasks, 50.0, "b") == 3
    assert finishes(result) == {"a": 300.0, "b": 400.0}


def test_job_priorities_act_as_weights_inside_a_pool():
    """One fair pool. Priority 1 doubles a job's weight (2 against 1): on 9 slots the same
    sequence as with pool weights gives a 6, b 3; a done at 300, b at 400. Priority 2 weighs 4:
    on 10 slots a(0 vs 0) b(.25 vs 0) a a a a(1 vs 1, tie to a) b(1.25 vs 1) a a a(1.75 vs 2):
    a 8, b 2."""
    jobs = [Job("a", 18, 0, 100.0, priority=1), Job("b", 18, 0, 100.0)]
    result = simulate(jobs, NINE, "fair")
    assert running_at(result.tasks, 50.0, "a") == 6 and running_at(result.tasks, 50.0, "b") == 3
    assert finishes(result) == {"a": 300.0, "b": 400.0}
    jobs = [Job("a", 40, 0, 100.0, priority=2), Job("b", 40, 0, 100.0)]
    result = simulate(jobs, flat(10), "fair")
    assert running_at(result.tasks, 50.0, "a") == 8 and running_at(result.tasks, 50.0, "b") == 2


def test_min_share_ranks_first():
    """10 slots, pool b with min_map 6: b is below its floor min(6, 20) for its first 6 slots and
    ranks first; then a (0 running) beats b (6 running) for the other 4: a 4, b 6."""
    jobs = [Job("a", 20, 0, 100.0, pool="a"), Job("b", 20, 0, 100.0, pool="b")]
    result = simulate(jobs, flat(10), Fair(pools=[Pool("b", min_map=6)]))
    assert running_at(result.tasks, 50.0, "a") == 4 and running_at(result.tasks, 50.0, "b") == 6


def test_pool_mode_fifo_versus_fair():
    """10 slots, jobs a and b (10 maps of 100 s each) in one pool. mode "fifo": a takes every slot
    (0-100), then b (100-200). mode "fair": 5 each, both done at 200."""
    jobs = [Job("a", 10, 0, 100.0, pool="p"), Job("b", 10, 0, 100.0, pool="p", submit=0.0)]
    fifo = simulate(jobs, flat(10), Fair(pools=[Pool("p", mode="fifo")]))
    assert finishes(fifo) == {"a": 100.0, "b": 200.0}
    fair = simulate(jobs, flat(10), Fair(pools=[Pool("p", mode="fair")]))
    assert finishes(fair) == {"a": 200.0, "b": 200.0}


@pytest.mark.parametrize("heartbeat", [0.0, 1.0])
def test_pool_running_job_limit(heartbeat):
    """10 slots, pool p with max_running=1: a (2 maps of 100 s) runs alone even though 8 slots are
    idle; b (10 maps) may start only when a finishes, and then takes all 10 slots for one wave.
    Heartbeat 0: a 0-100, b 100-200. Heartbeat 1 s (node n reports at 0.1 n + k): a's maps run on
    nodes 0 and 1 from 0 and 0.1, so a ends at 100.1; every node reports within a second after (the
    last, node 0, at 101), so b is done by 201."""
    jobs = [Job("a", 2, 0, 100.0, pool="p"), Job("b", 10, 0, 100.0, pool="p")]
    result = simulate(jobs, flat(10, heartbeat=heartbeat), Fair(pools=[Pool("p", max_running=1)]))
    assert result.job("b")["start"] >= result.job("a")["finish"]
    assert result.job("a")["finish"] == pytest.approx(100.0 + 0.1 * heartbeat)
    assert result.job("b")["finish"] <= 200.0 + heartbeat


@pytest.mark.parametrize("heartbeat", [0.0, 1.0])
def test_running_job_limit_never_stalls(heartbeat):
    """1 node with 1 map and 1 reduce slot, pool p with max_running=1. j0 (1 map, 1 reduce of 1 s)
    runs its map 0-1 and its reduce 1-2; j1 (1 map of 1 s) is held back by the limit, so the map
    slot sits idle from 1 to 2. When j0 finishes at 2, j1 becomes runnable and takes the idle map
    slot: 2-3 (heartbeat 1 s: the node reports at 2 too)."""
    cluster = Cluster(nodes=1, map_slots=1, reduce_slots=1, heartbeat=heartbeat, replication=1)
    jobs = [Job("j0", 1, 1, 1.0, 1.0, pool="p"), Job("j1", 1, 0, 1.0, pool="p")]
    result = simulate(jobs, cluster, Fair(pools=[Pool("p", max_running=1)]))
    assert finishes(result) == {"j0": 2.0, "j1": 3.0}


@pytest.mark.parametrize("kwargs", [{"weight": 0}, {"min_map": -1}, {"mode": "lifo"}, {"max_running": 0},
                                    {"min_reduce": 1.5}])
def test_bad_pool_raises(kwargs):
    with pytest.raises(InvalidInput):
        Pool("p", **kwargs)


def test_duplicate_pool_and_bad_fair_settings_raise():
    with pytest.raises(InvalidInput):
        Fair(pools=[Pool("p"), Pool("p")])
    with pytest.raises(InvalidInput):
        Fair(pools=["p"])
    with pytest.raises(InvalidInput):
        Fair(delay=(15,))
    with pytest.raises(InvalidInput):
        Fair(preemption="often")
    with pytest.raises(InvalidInput):
        Preemption(recheck=0)
    with pytest.raises(InvalidInput):
        Preemption(min_share_timeout=-1)
    with pytest.raises(InvalidInput):
        DelayScheduling(-1, 5)
    with pytest.raises(InvalidInput):
        DelayScheduling(1, 5, intensities=["gpu"])
