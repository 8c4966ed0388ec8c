"""The event simulator (planner.simulator): paper examples and behaviours worked by hand.

Unless a test says otherwise the clusters use ``heartbeat=0`` (a slot is offered the
moment it frees) and ``replication == nodes`` (every block on every node, so every
map is node-local and no locality slowdown applies), and task times are
deterministic (``task_time_cv=0``). With heartbeat 0 the free slots of an instant
are offered in slot order: node 0's map slots, node 0's reduce slots, node 1's...
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pytest

from models import Cluster, Job
from models.errors import InvalidInput
from planner.simulator import (
    Capacity,
    DelayScheduling,
    Fair,
    Fifo,
    Fresh,
    Pool,
    Preemption,
    Queue,
    SimOptions,
    SimResult,
    Simulation,
    simulate,
)
from planner.simulator.jobs import JobRun
from planner.simulator.layout import build_layout


def flat(nodes: int, map_slots: int = 1, reduce_slots: int = 1, heartbeat: float = 0.0) -> Cluster:
    """One rack, every block on every node: all maps node-local."""
    return Cluster(nodes=nodes, map_slots=map_slots, reduce_slots=reduce_slots, heartbeat=heartbeat,
                   replication=nodes)


def running_at(tasks: list[dict], time: float, job: str | None = None, kind: str | None = None) -> int:
    """Attempts holding a slot at ``time`` (start <= time < end)."""
    return sum(
        1 for t in tasks
        if t["start"] <= time < t["end"] and (job is None or t["job"] == job) and (kind is None or t["kind"] == kind)
    )


def peak(tasks: list[dict], select) -> int:
    """The most attempts satisfying ``select`` running at once (checked at every start)."""
    chosen = [t for t in tasks if select(t)]
    return max((sum(1 for t in chosen if t["start"] <= s["start"] < t["end"]) for s in chosen), default=0)


def finishes(result: SimResult) -> dict[str, float]:
    return {record["name"]: record["finish"] for record in result.jobs}


# -- the design document's and the papers' examples ------------------------------------------------
TWO_JOBS = [Job("a", 10, 10, 100, 100), Job("b", 10, 10, 100, 100)]
TEN_AND_TEN = Cluster(nodes=10, map_slots=1, reduce_slots=1, heartbeat=0, replication=10)


def test_fifo_batch_of_two_jobs_takes_300_s():
    """10 map + 10 reduce slots, a and b each 10 maps and 10 reduces of 100 s, slow-start 1.0.
    FIFO: a's 10 maps fill the 10 map slots 0-100; a's reduces run 100-200 on the reduce slots
    while b's maps run 100-200; b's reduces 200-300. a finishes at 200, b at 300: makespan 300."""
    result = simulate(TWO_JOBS, TEN_AND_TEN, "fifo")
    assert result.makespan == 300.0
    assert result.job("a") == {"name": "a", "submit": 0.0, "start": 0.0, "map_done": 100.0, "finish": 200.0,
                               "response": 200.0, "deadline": None, "margin": None}
    assert result.job("b") == {"name": "b", "submit": 0.0, "start": 100.0, "map_done": 200.0, "finish": 300.0,
                               "response": 300.0, "deadline": None, "margin": None}
    assert result.locality == {"node": 1.0, "rack": 0.0, "off": 0.0}


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


def test_overall_fairness_by_hand():
    """FRESH's overall fairness on the two-job batch. FIFO: samples at the completions 200 and 300.
    At T=200 both jobs count: a received 10 maps + 10 reduces = 2000 slot-s in 200 s, r_a = 10;
    b got 10 maps (100-200) = 1000 slot-s, r_b = 5; Jain = (10 + 5)^2 / (2 (100 + 25)) = 0.9.
    At T=300 only b is left: Jain 1. Weighted by the intervals 0-200 and 200-300:
    (0.9 * 200 + 1 * 100) / 300 = 14/15. Fair: one sample at 400, r_a = r_b = 4000/400 = 10: 1."""
    assert simulate(TWO_JOBS, TEN_AND_TEN, "fifo").fairness == pytest.approx(14 / 15)
    assert simulate(TWO_JOBS, TEN_AND_TEN, "fair").fairness == pytest.approx(1.0)


# -- delay scheduling ------------------------------------------------------------------------------
# Zaharia et al. ran a stream of small jobs on a loaded 100-node cluster and saw node locality rise
# from 37% to 99% with t1 = t2 = 15 s. Here: 100 nodes in 4 racks, 2 map slots each (200 map slots),
# 3 replicas per block, heartbeat 3 s; 200 map-only jobs of 10 maps x 20 s arriving every 1.2 s.
# Offered load 10 * 20 / 1.2 = 167 slot-s per second, 83% of the 200 map slots before the
# rack/off-rack slowdowns (which push it near 90%), so free slots are scarce and come up on random
# nodes. A job's 10 blocks have at most 30 replicas over 100 nodes, so the head-of-line job finds a
# local block on a freed slot's node with probability <= 0.3: without waiting most maps run
# rack-local or off-rack. With delay, a job skips non-local slots; slots free at ~200/20 = 10 per
# second, a third of them local for the job, so it waits well under a second on average and almost
# never the full 15 s: locality near 100%.
DELAY_CLUSTER = Cluster(nodes=100, racks=4, map_slots=2, reduce_slots=1, heartbeat=3.0, replication=3)
STREAM = [Job(f"s{i:03d}", 10, 0, 20.0, submit=1.2 * i) for i in range(200)]


@pytest.mark.parametrize("scheduler", [Fifo(), Fair()], ids=["fifo", "fair"])
def test_locality_without_delay_scheduling_is_low(scheduler):
    """The stream above without delay: a freed slot is node-local for the job it goes to with
    probability <= 0.3, so node locality stays far below 60% (it is about 11% here)."""
    result = simulate(STREAM, DELAY_CLUSTER, scheduler, seed=1)
    assert result.locality["node"] < 0.4  # "well below 60%"
    assert math.isclose(sum(result.locality.values()), 1.0)


@pytest.mark.parametrize("scheduler", [Fair(delay=(15, 15)), Fifo(delay=(15, 15))], ids=["fair", "fifo"])
def test_delay_scheduling_gives_node_locality_above_90_percent(scheduler):
    """The stream above with t1 = t2 = 15 s: jobs wait (well under a second on average) for a slot
    on a node holding one of their blocks, so node locality exceeds 90% (Zaharia et al.: 99%)."""
    result = simulate(STREAM, DELAY_CLUSTER, scheduler, seed=1)
    assert result.locality["node"] > 0.9
    # Local maps run at full speed: the stream finishes no later than without delay.
    assert result.makespan <= simulate(STREAM, DELAY_CLUSTER, Fair(), seed=1).makespan


def test_io_rate_biasing_delays_only_io_jobs():
    """The same stream with every other job "io" (the rest "cpu") and
    DelayScheduling(15, 15, intensities=["io"]): io jobs wait for local slots (> 90% node-local),
    cpu jobs launch anywhere at once, as without delay (< 40% node-local)."""
    jobs = [job.with_changes(intensity="io" if i % 2 else "cpu") for i, job in enumerate(STREAM)]
    result = simulate(jobs, DELAY_CLUSTER, Fair(delay=DelayScheduling(15, 15, intensities=["io"])), seed=1)
    local = defaultdict(list)
    for task in result.tasks:
        local[jobs[int(task["job"][1:])].intensity].append(task["locality"] == "node")
    assert len(local["io"]) == len(local["cpu"]) == 1000
    assert np.mean(local["io"]) > 0.9
    assert np.mean(local["cpu"]) < 0.4


def test_delay_levels_by_hand():
    """DelayScheduling(15, 10) on one job: skipped at t=0, it may next rise at 0 + 15 = 15; at 10 it
    is still node-local only (level 0); at 15 rack-local (1), and the next rise is 15 + 10 = 25; at 25
    off-rack (2). A node-local launch resets it to level 0. Jobs of other intensities are never
    delayed when the delay is limited to "io"."""
    delay = DelayScheduling(15, 10)
    layout = build_layout(Cluster(nodes=2, map_slots=1, reduce_slots=1))

    def run(intensity: str) -> JobRun:
        return JobRun(0, Job("j", 2, 0, 1.0, intensity=intensity), layout, 1, 0.0, 1.0, np.random.default_rng(0))

    job = run("io")
    assert (job.level, job.wait_since) == (0, None)
    assert delay.skipped(job, 0.0) == 15.0
    assert delay.allowed(job, 10.0) == 0
    assert delay.allowed(job, 15.0) == 1
    assert delay.skipped(job, 16.0) == 25.0
    assert delay.allowed(job, 24.0) == 1
    assert delay.allowed(job, 25.0) == 2
    delay.launched(job, 0)
    assert (job.level, job.wait_since) == (0, None)
    assert delay.allowed(job, 100.0) == 0
    only_io = DelayScheduling(15, 10, intensities=["io"])
    assert only_io.allowed(run("cpu"), 0.0) == 2


def test_delay_scheduling_waits_for_a_local_slot():
    """Two nodes in two racks, one map slot each, heartbeat 0. Job "busy" (1 map of 50 s, block on
    node 0 only) takes node 0 at t=0. Job "local" (1 map of 10 s, block on node 0 only:
    replication 1, placed on node 0 by seed search) arrives at t=1 while node 1 is free.
    Without delay it runs at once off-rack on node 1: 1 + 10 * 1.5 = 16 (balanced off-rack factor).
    With delay (60, 60) it waits for node 0, free at 50, and runs node-local 50-60."""
    cluster = Cluster(nodes=2, racks=2, map_slots=1, reduce_slots=1, heartbeat=0, replication=1)
    jobs = [Job("busy", 1, 0, 50.0), Job("local", 1, 0, 10.0, submit=1.0)]
    for seed in range(50):
        sim = Simulation(jobs, cluster, Fifo(), seed=seed)
        sim.run()
        if sim.job_run(0).replicas.tolist() == [[0]] and sim.job_run(1).replicas.tolist() == [[0]]:
            break
    else:
        pytest.skip("no seed puts both blocks on node 0")
    eager = simulate(jobs, cluster, Fifo(), seed=seed)
    assert eager.job("local")["finish"] == pytest.approx(16.0)
    assert [t["locality"] for t in eager.tasks if t["job"] == "local"] == ["off"]
    patient = simulate(jobs, cluster, Fifo(delay=(60, 60)), seed=seed)
    assert patient.job("local")["finish"] == pytest.approx(60.0)
    assert [t["locality"] for t in patient.tasks if t["job"] == "local"] == ["node"]


def test_delay_wait_ending_at_an_inexact_float_time_does_not_livelock():
    """10 nodes in one rack, slots=(1, 1): only node 0 has a map slot. Job "a" (1 map of 1 s, its
    one block on another node: seed chosen so) arrives at 13.15 under Fifo(delay=(5, 5)) with
    heartbeat 0: node 0's slot is not local, so "a" is skipped and may go rack-local at
    13.15 + 5 = 18.15, running 18.15 + 1 * 1.2 (balanced rack factor) = 19.35.
    In floating point 18.15 - 13.15 = 4.999999999999998 < 5, so a check written as
    now - since >= wait at the wake-up time since + wait fails: the job is skipped again and asks
    for a wake-up at the same instant, forever. The run is guarded by a 3 s alarm."""
    cluster = Cluster(nodes=10, racks=1, map_slots=1, reduce_slots=1, heartbeat=0, replication=1)
    for seed in range(20):
        probe = Simulation([Job("a", 1, 0, 1.0)], cluster, Fifo(), seed=seed, slots=(1, 1))
        probe.run()
        if probe.job_run(0).replicas[0, 0] != 0:
            break

    def give_up(*_):
        raise TimeoutError("the simulation did not finish in 3 s (livelock at t=18.15)")

    previous = signal.signal(signal.SIGALRM, give_up)
    signal.alarm(3)
    try:
        result = simulate([Job("a", 1, 0, 1.0, submit=13.15)], cluster, Fifo(delay=(5, 5)), seed=seed,
                          slots=(1, 1))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert result.tasks[0]["locality"] == "rack"
    assert result.tasks[0]["start"] == pytest.approx(18.15)
    assert result.job("a")["finish"] == pytest.approx(19.35)


@pytest.mark.parametrize("heartbeat", [0.0, 1.0])
@pytest.mark.parametrize(
    "scheduler",
    [Fifo(delay=(5, 5)), Capacity(queues=[Queue("a", 0.5, 0.5), Queue("b", 0.5, 1.0)], delay=(5, 5))],
    ids=["fifo", "capacity"],
)
def test_delayed_maps_are_not_starved_by_their_own_reducers_in_containers(scheduler, heartbeat):
    """Containers, slow-start 0, delay scheduling. 3 nodes in 3 racks, slots=(1, 1): nodes 0 and 2
    hold one container each (node 1 none). Job "a" (pool a): 1 map of 1 s whose only block is on
    node 1 (seed chosen so), 2 reduces of 1 s. The map can never be node-local; it may go rack-local after
    5 s and off-rack after 5 + 5 = 10 s, running 1 * 1.5 (balanced off-rack factor) s. So the job
    must be done by 10 + 1.5 + 2 * 1 (both reduces one after the other) + 2 heartbeats.
    Queue a of the capacity scheduler may hold floor(0.5 * 2) = 1 container.
    If a skipped map lets its own job's reducers take the containers instead, the reducers wait
    for a map that can no longer get a container: the run stalls (SimulationStalled) or, with
    heartbeats and a capped queue, runs forever. Guarded by a 3 s alarm."""
    cluster = Cluster(nodes=3, racks=3, map_slots=1, reduce_slots=1, heartbeat=heartbeat, replication=1)
    for seed in range(20):
        probe = Simulation([Job("a", 1, 0, 1.0)], cluster, Fifo(), seed=seed, slots=(1, 1))
        probe.run()
        if probe.job_run(0).replicas[0, 0] == 1:
            break

    def give_up(*_):
        raise TimeoutError("the simulation did not finish in 3 s")

    previous = signal.signal(signal.SIGALRM, give_up)
    signal.alarm(3)
    try:
        result = simulate([Job("a", 1, 2, 1.0, 1.0, pool="a")], cluster, scheduler, seed=seed, slots=(1, 1),
                          options=SimOptions(containers=True, reduce_slowstart=0.0))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert result.makespan <= 10 + 1.5 + 2 + 2 * heartbeat
    assert [t["locality"] for t in result.tasks if t["kind"] == "map"] == ["off"]


# -- preemption ------------------------------------------------------------------------------------
# 4 nodes x 2 map slots, heartbeat 3 s: node n reports at 0.75 n + 3 k (staggered over the
# interval) and fills both free slots at its first report. Pool a's "hog" (40 maps of 1000 s) takes
# all 8 map slots: nodes 0..3 at 0, 0.75, 1.5, 2.25.
PREEMPT_CLUSTER = Cluster(nodes=4, map_slots=2, reduce_slots=1, heartbeat=3.0, replication=4)


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


# -- determinism and seeds -------------------------------------------------------------------------
MIXED = [
    Job("etl", 30, 6, 12.0, 30.0, intensity="io"),
    Job("scan", 25, 0, 6.0, submit=3.0, pool="adhoc"),
    Job("model", 10, 4, 20.0, 10.0, submit=8.0, priority=1, intensity="cpu"),
]
RACKED = Cluster(nodes=12, racks=3, map_slots=2, reduce_slots=1, heartbeat=1.0, replication=3)


def test_same_inputs_and_seed_give_identical_json():
    scheduler_args = {"delay": (5, 5), "preemption": Preemption(min_share_timeout=5, fair_share_timeout=20)}
    options = SimOptions(task_time_cv=0.4, reduce_slowstart=0.5)
    first = simulate(MIXED, RACKED, Fair(pools=[Pool("adhoc", min_map=6)], **scheduler_args), seed=11,
                     options=options)
    second = simulate(MIXED, RACKED, Fair(pools=[Pool("adhoc", min_map=6)], **scheduler_args), seed=11,
                      options=options)
    assert first.to_json() == second.to_json()
    assert first.to_json().encode() == second.to_json().encode()


def test_a_scheduler_instance_can_be_reused():
    scheduler = Fair(delay=(5, 5))
    assert simulate(MIXED, RACKED, scheduler, seed=3).to_json() == simulate(MIXED, RACKED, scheduler, seed=3).to_json()


def test_a_different_seed_changes_block_placement_and_task_times():
    """The seed drives block placement (visible in which node runs which map, and in the replicas
    the simulation holds) and, with task_time_cv > 0, the task times. With cv = 0 every task runs
    its job's mean time whatever the seed."""
    sims = {}
    for seed in (0, 1):
        sims[seed] = Simulation(MIXED, RACKED, Fifo(), seed=seed)
        sims[seed].run()
    assert not np.array_equal(sims[0].job_run(0).replicas, sims[1].job_run(0).replicas)
    placed = {
        seed: [(t["job"], t["task"], t["node"]) for t in simulate(MIXED, RACKED, "fifo", seed=seed).tasks]
        for seed in (0, 1)
    }
    assert placed[0] != placed[1]
    noisy = SimOptions(task_time_cv=0.5)
    durations = {
        seed: sorted(round(t["end"] - t["start"], 9) for t in simulate(MIXED, RACKED, "fifo", seed=seed,
                                                                          options=noisy).tasks)
        for seed in (0, 1)
    }
    assert durations[0] != durations[1]
    steady = simulate(MIXED, flat(12, 2, 1, heartbeat=1.0), "fifo", seed=5)
    for task in steady.tasks:
        job = next(j for j in MIXED if j.name == task["job"])
        assert task["end"] - task["start"] == pytest.approx(job.map_time if task["kind"] == "map" else job.reduce_time)


def test_hdfs_block_placement():
    """Replication 3 on 12 nodes in 3 racks: each block's replicas are on distinct nodes, the second
    on another rack than the first, the third on the second's rack."""
    sim = Simulation([Job("big", 300, 0, 1.0)], RACKED, Fifo(), seed=4)
    sim.run()
    replicas = sim.job_run(0).replicas
    assert replicas.shape == (300, 3)
    rack = np.asarray(sim.layout.rack_of)[replicas]
    assert all(len(set(row)) == 3 for row in replicas.tolist())
    assert (rack[:, 1] != rack[:, 0]).all()
    assert (rack[:, 2] == rack[:, 1]).all()
    # The first replicas spread over all nodes.
    assert len(set(replicas[:, 0].tolist())) == 12


@pytest.mark.parametrize(("nodes", "racks", "replication"), [(12, 3, 3), (500, 10, 3), (7, 3, 2), (9, 2, 5)])
def test_replicas_placed_without_clash_checks_are_those_the_checks_give(nodes, racks, replication):
    """Where no replica can clash (two racks or more, each of two nodes or more), `place_blocks`
    skips the clash checks and reads the second replica's rack once: the same draws, the same
    nodes as the general path (forced here by saying a clash is possible), for 20 seeds."""
    from planner.simulator.layout import place_blocks

    fast = build_layout(Cluster(nodes=nodes, racks=racks))
    checked = build_layout(Cluster(nodes=nodes, racks=racks))
    checked.__dict__["replicas_never_clash"] = False  # the cached property, overridden
    assert fast.replicas_never_clash
    for seed in range(20):
        ours = place_blocks(np.random.default_rng(seed), 257, fast, replication)
        general = place_blocks(np.random.default_rng(seed), 257, checked, replication)
        assert ours.dtype == general.dtype and np.array_equal(ours, general)
    single = build_layout(Cluster(nodes=5, racks=3))  # racks of 2, 2 and 1 node: the checks stay
    assert not single.replicas_never_clash


def test_same_result_in_another_process_with_another_hash_seed():
    """Byte-identical JSON in a fresh interpreter with a different PYTHONHASHSEED (set and dict
    iteration over pool and job names must not leak into the result)."""
    code = (
        "from tests.test_simulator import MIXED, RACKED, hashed_run\n"
        "import sys; sys.stdout.write(hashed_run())"
    )
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": str(root)}
    other = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True,
                           check=True, timeout=120).stdout
    assert other == hashed_run()


def hashed_run() -> str:
    pools = [Pool("etl-pool", weight=2), Pool("zz", min_map=3), Pool("adhoc", mode="fifo")]
    jobs = [job.with_changes(pool=pool) for job, pool in zip(MIXED, ["zz", "etl-pool", "adhoc"], strict=True)]
    scheduler = Fair(pools=pools, delay=(3, 3), preemption=Preemption(min_share_timeout=4, fair_share_timeout=8))
    return simulate(jobs, RACKED, scheduler, seed=9, options=SimOptions(task_time_cv=0.3)).to_json()


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
                                    {"capacity": 0.5, "max_capacity": 1.2}])
def test_bad_queue_raises(kwargs):
    with pytest.raises(InvalidInput):
        Queue("q", **kwargs)


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


def test_fifo_order_priority_then_submit_then_name():
    """One map slot. c (submitted at 0) takes it at 0 for 10 s. Waiting at 10: b and a (both
    submitted at 1) and z (submitted at 2, priority 1). Higher priority first, then earlier
    submission, then name: z 10-20, a 20-30, b 30-40."""
    jobs = [Job("c", 1, 0, 10.0), Job("b", 1, 0, 10.0, submit=1.0), Job("a", 1, 0, 10.0, submit=1.0),
            Job("z", 1, 0, 10.0, submit=2.0, priority=1)]
    result = simulate(jobs, flat(1), "fifo")
    assert {name: record["start"] for name, record in ((r["name"], r) for r in result.jobs)} == {
        "c": 0.0, "z": 10.0, "a": 20.0, "b": 30.0}


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


# -- cluster options -------------------------------------------------------------------------------
def test_containers_run_either_kind():
    """2 nodes with 1 map + 1 reduce slot each; one job of 4 maps and 4 reduces of 10 s.
    Typed slots: maps 0-10, 10-20 on the 2 map slots; reduces 20-30, 30-40: 40.
    Containers (4 per cluster, either kind): maps 0-10 on all 4, reduces 10-20: 20."""
    job = [Job("a", 4, 4, 10.0, 10.0)]
    typed = simulate(job, flat(2), "fifo")
    pooled = simulate(job, flat(2), "fifo", options=SimOptions(containers=True))
    assert (typed.makespan, pooled.makespan) == (40.0, 20.0)
    assert typed.slots == pooled.slots == 4
    assert running_at(pooled.tasks, 5.0, kind="map") == 4 and running_at(pooled.tasks, 15.0, kind="reduce") == 4


def test_heartbeat_assigns_one_or_several_tasks():
    """1 node, 4 map and 2 reduce slots, heartbeat 3 s (reports at 0, 3, 6...). A job of 4 maps of
    10 s and 2 reduces of 5 s. assign_multiple: all 4 maps at 0, done at 10; the reduces open then
    and launch at the next report, 12, ending 17. One task of each kind per heartbeat: maps at 0, 3,
    6, 9 (done 10, 13, 16, 19); reduces at the reports 21 and 24, ending 26 and 29."""
    cluster = Cluster(nodes=1, map_slots=4, reduce_slots=2, heartbeat=3.0, replication=1)
    job = [Job("a", 4, 2, 10.0, 5.0)]
    many = simulate(job, cluster, "fifo", options=SimOptions(assign_multiple=True))
    assert sorted(t["start"] for t in many.tasks) == [0.0, 0.0, 0.0, 0.0, 12.0, 12.0]
    assert many.makespan == 17.0
    one = simulate(job, cluster, "fifo", options=SimOptions(assign_multiple=False))
    assert sorted(t["start"] for t in one.tasks) == [0.0, 3.0, 6.0, 9.0, 21.0, 24.0]
    assert one.makespan == 29.0


def test_heartbeats_are_staggered_over_nodes():
    """2 nodes, heartbeat 3: node 0 reports at 0, 3..., node 1 at 1.5, 4.5... Two maps of 10 s:
    0-10 on node 0 and 1.5-11.5 on node 1. Makespan 11.5."""
    result = simulate([Job("a", 2, 0, 10.0)], flat(2, heartbeat=3.0), "fifo")
    assert sorted((t["node"], t["start"]) for t in result.tasks) == [(0, 0.0), (1, 1.5)]
    assert result.makespan == 11.5


def test_lognormal_task_times():
    """task_time_cv=0.5: task times are lognormal with the job's mean (10 s) and coefficient of
    variation 0.5. Over 2000 maps the sample mean is within 5% of 10 (standard error
    10 * 0.5 / sqrt(2000) = 0.11) and the sample cv within 0.4..0.6. With cv 0 all are 10."""
    job = [Job("a", 2000, 0, 10.0)]
    times = np.array([t["end"] - t["start"] for t in
                      simulate(job, flat(10), "fifo", seed=2, options=SimOptions(task_time_cv=0.5)).tasks])
    assert len(times) == 2000 and (times > 0).all()
    assert times.mean() == pytest.approx(10.0, rel=0.05)
    assert 0.4 < times.std() / times.mean() < 0.6
    steady = np.array([t["end"] - t["start"] for t in simulate(job, flat(10), "fifo", seed=2).tasks])
    assert (steady == 10.0).all()


def test_slots_override():
    """3 nodes of 1 + 2 slots (9 in all); slots=(7, 2) gives map slots 3, 2, 2 and reduce slots
    0, 1, 1 (reduce slots fill from the last node: every node keeps its 3 slots). One job of 7 maps and 2 reduces of 10 s: maps all at 0-10, reduces 10-20: 20
    (without the override: 3 map slots, maps in 3 waves 0-30, reduces 30-40: 40)."""
    job = [Job("a", 7, 2, 10.0, 10.0)]
    result = simulate(job, flat(3, 1, 2), "fifo", slots=(7, 2))
    assert result.slots == 9 and result.makespan == 20.0
    maps = Counter(t["node"] for t in result.tasks if t["kind"] == "map")
    assert maps == {0: 3, 1: 2, 2: 2}
    assert sorted(t["node"] for t in result.tasks if t["kind"] == "reduce") == [1, 2]
    assert simulate(job, flat(3, 1, 2), "fifo").makespan == 40.0


def test_rack_and_off_rack_slowdown():
    """2 nodes in 2 racks, replication 1, 1 map slot each: a 4-map job of 10 s under FIFO with
    heartbeat 0 runs each map on whichever node is free. A map whose block is on the other node
    (another rack) runs off-rack: 10 * 2.5 for an io job, 10 * 1.1 for a cpu job."""
    cluster = Cluster(nodes=2, racks=2, map_slots=1, reduce_slots=1, heartbeat=0, replication=1)
    for intensity, factor in (("io", 2.5), ("cpu", 1.1), ("balanced", 1.5)):
        result = simulate([Job("a", 4, 0, 10.0, intensity=intensity)], cluster, "fifo", seed=3)
        for task in result.tasks:
            expected = 10.0 if task["locality"] == "node" else 10.0 * factor
            assert task["locality"] in ("node", "off")
            assert task["end"] - task["start"] == pytest.approx(expected)


# -- results -----------------------------------------------------------------------------------------
def test_result_fields():
    """The FIFO two-job batch: 40 attempts of 100 s on 20 slots over 300 s: utilization
    4000 / (20 * 300) = 2/3; mean response (200 + 300) / 2 = 250."""
    result = simulate(TWO_JOBS, TEN_AND_TEN, "fifo")
    assert result.makespan == 300.0 and result.slots == 20
    assert [record["name"] for record in result.jobs] == ["a", "b"]
    assert set(result.jobs[0]) == {"name", "submit", "start", "map_done", "finish", "response", "deadline", "margin"}
    assert result.jobs[0]["deadline"] is None and result.jobs[0]["margin"] is None
    assert len(result.tasks) == 40
    assert set(result.tasks[0]) == {"job", "task", "kind", "node", "slot", "start", "end", "locality", "fate"}
    assert [t["start"] for t in result.tasks] == sorted(t["start"] for t in result.tasks)
    assert {t["locality"] for t in result.tasks if t["kind"] == "reduce"} == {None}
    assert math.isclose(sum(result.locality.values()), 1.0)
    assert result.utilization == pytest.approx(2 / 3)
    assert result.busy_slot_seconds == 4000.0 and result.killed_work == 0.0
    assert 0.0 < result.fairness <= 1.0
    assert result.mean_response == 250.0
    with pytest.raises(KeyError):
        result.job("nope")
    summary = result.summary()
    assert summary["scheduler"] == "fifo" and summary["jobs"] == 2 and summary["attempts"] == 40
    assert summary["makespan"] == 300.0 and summary["mean_response"] == 250.0
    assert summary["node_local"] + summary["rack_local"] + summary["off_rack"] == pytest.approx(1.0)
    assert list(summary) == ["scheduler", "jobs", "attempts", "makespan", "mean_response", "node_local",
                             "rack_local", "off_rack", "utilization", "fairness", "killed_work", "suspensions",
                             "kills", "wasted_work", "deadline_misses"]
    assert (summary["suspensions"], summary["kills"], summary["wasted_work"], summary["deadline_misses"]) == (0, 0,
                                                                                                              0.0, 0)
    data = json.loads(result.to_json())
    assert data["summary"] == json.loads(json.dumps(summary))
    assert data["jobs"] == result.jobs and len(data["tasks"]) == 40
    assert data["scheduler"]["name"] == "fifo" and data["seed"] == 0 and data["slots"] == 20


def test_result_describes_the_scheduler_and_options():
    scheduler = Fair(pools=[Pool("p", weight=2)], delay=(15, 10), preemption=Preemption())
    result = simulate(TWO_JOBS, TEN_AND_TEN, scheduler, options=SimOptions(reduce_slowstart=0.8))
    data = json.loads(result.to_json())
    assert data["scheduler"]["name"] == "fair"
    assert data["scheduler"]["delay"]["node_wait"] == 15.0
    assert data["options"]["reduce_slowstart"] == 0.8


def test_plot_gantt_returns_axes():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes

    scheduler = Fair(pools=[Pool("b", min_map=4)], preemption=Preemption(min_share_timeout=30, fair_share_timeout=None))
    result = simulate([Job("hog", 12, 0, 100.0, pool="a"), Job("b", 4, 0, 50.0, submit=10.0, pool="b")],
                      PREEMPT_CLUSTER, scheduler)
    ax = result.plot_gantt()
    assert isinstance(ax, Axes)
    plt.close(ax.figure)
    _, given = plt.subplots()
    assert result.plot_gantt(ax=given, max_slots=None) is given
    plt.close(given.figure)


def test_gantt_draws_from_the_columns_each_attempt_on_a_shown_slot_once():
    """The chart reads the attempt columns (a day's millions of attempts are never built as
    tuples: `attempts` stays unbuilt): one box per attempt on the slots shown, the killed ones
    hatched, in one collection per (job, fate)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scheduler = Fair(pools=[Pool("b", min_map=4)], preemption=Preemption(min_share_timeout=30, fair_share_timeout=None))
    result = simulate([Job("hog", 12, 0, 100.0, pool="a"), Job("b", 4, 0, 50.0, submit=10.0, pool="b")],
                      PREEMPT_CLUSTER, scheduler)
    table = result.columns()
    assert result.kills > 0
    for shown in (3, None):
        _, ax = plt.subplots()
        result.plot_gantt(ax=ax, max_slots=shown)
        on = table["slot"] < (shown if shown is not None else result.slots)
        boxes = sum(len(c.get_paths()) for c in ax.collections)
        hatched = sum(len(c.get_paths()) for c in ax.collections if c.get_hatch())
        assert boxes == int(on.sum()) and hatched == int((on & (table["fate"] != 0)).sum())
        assert len(ax.collections) == len({(j, f != 0) for j, f in zip(table["job"][on], table["fate"][on], strict=True)})
        plt.close(ax.figure)
    assert "attempts" not in result.__dict__


def test_jobs_in_the_system_over_time_are_those_submitted_before_and_not_finished():
    """fairness_over_time's jobs_in_system at each completion T counts the jobs with submit < T <= finish
    (counted here one job at a time), with staggered arrivals so that the count rises and falls."""
    jobs = [Job(f"j{i}", 3 + i, 1, 10.0 + i, 5.0, submit=7.0 * i) for i in range(8)]
    result = simulate(jobs, Cluster(nodes=2, racks=1), "fair", seed=0)
    first = min(job["submit"] for job in result.jobs)
    counts = [record["jobs_in_system"] for record in result.fairness_over_time()]
    expected = [sum(1 for job in result.jobs if job["submit"] < record["time"] + first <= job["finish"])
                for record in result.fairness_over_time()]
    assert counts == expected and len(set(counts)) > 2


# -- bad inputs --------------------------------------------------------------------------------------
def test_unknown_scheduler_name():
    with pytest.raises(InvalidInput, match="scheduler"):
        simulate(TWO_JOBS, TEN_AND_TEN, "lottery")
    with pytest.raises(InvalidInput):
        simulate(TWO_JOBS, TEN_AND_TEN, 42)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"reduce_slowstart": 1.5},
        {"reduce_slowstart": -0.1},
        {"reduce_slowstart": math.nan},
        {"task_time_cv": -1.0},
        {"containers": "yes"},
        {"assign_multiple": 1},
        {"copy_compute": (1, 2)},
        {"copy_compute": (0, 0)},
        {"copy_compute": (2,)},
        {"copy_compute": (2, 1), "containers": True},
        {"rack_factor": {"gpu": 2.0}},
        {"rack_factor": {"io": 0.5}},
        {"off_rack_factor": [2.0]},
    ],
)
def test_bad_options_raise(kwargs):
    with pytest.raises(InvalidInput):
        SimOptions(**kwargs)


def test_bad_options_object_and_unknown_option_key():
    with pytest.raises(InvalidInput):
        simulate(TWO_JOBS, TEN_AND_TEN, "fifo", options={"reduce_slowstart": 0.5})
    with pytest.raises(InvalidInput):
        SimOptions.from_dict({"slowstart": 0.5})
    assert SimOptions.from_dict({"reduce_slowstart": 0.5}).reduce_slowstart == 0.5


@pytest.mark.parametrize("slots", [(0, 2), (-1, 1), (2.5, 1), (1,), "4,4", (4, 4, 4), (True, 1)])
def test_bad_slots_raise(slots):
    with pytest.raises(InvalidInput):
        simulate(TWO_JOBS, TEN_AND_TEN, "fifo", slots=slots)


def test_more_slots_than_the_cluster_has_raise():
    """A split of the cluster's slots, never more: TEN_AND_TEN has 20; 10 + 10 runs, 11 + 10 is refused."""
    assert simulate(TWO_JOBS, TEN_AND_TEN, "fifo", slots=(10, 10)).makespan > 0
    with pytest.raises(InvalidInput, match=r"^slots: 11 \+ 10 = 21 slots; the cluster has 20"):
        simulate(TWO_JOBS, TEN_AND_TEN, "fifo", slots=(11, 10))


def test_reduce_tasks_without_reduce_slots_raise():
    with pytest.raises(InvalidInput, match="reduce"):
        simulate(TWO_JOBS, TEN_AND_TEN, "fifo", slots=(4, 0))
    # A map-only batch needs no reduce slots.
    assert simulate([Job("m", 4, 0, 1.0)], TEN_AND_TEN, "fifo", slots=(4, 0)).makespan == 1.0


def test_other_bad_inputs_raise():
    with pytest.raises(InvalidInput):
        simulate([], TEN_AND_TEN, "fifo")
    with pytest.raises(InvalidInput):
        simulate(TWO_JOBS, {"nodes": 10}, "fifo")
    with pytest.raises(InvalidInput):
        simulate(TWO_JOBS, TEN_AND_TEN, "fifo", seed=-1)
    with pytest.raises(InvalidInput):
        simulate([Job("a", 1, 0, 1.0), Job("a", 1, 0, 1.0)], TEN_AND_TEN, "fifo")
    with pytest.raises(InvalidInput):
        simulate([Job("vm", profile=lambda n: 10.0 / n)], TEN_AND_TEN, "fifo")  # no tasks to simulate


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
