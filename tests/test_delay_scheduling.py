"""Delay scheduling (Zaharia et al.): locality with and without waiting, io-rate biasing, the
levels by hand, and runs that must end (no livelock, no starvation by a job's own reducers).

Conventions (heartbeat 0, every block on every node, deterministic task times, unless a test
says otherwise) and the shared clusters and batches: tests/support/simulator.py.
"""

from __future__ import annotations

import math
import signal
from collections import defaultdict

import numpy as np
import pytest

from models import Cluster, Job
from planner.simulator import Capacity, DelayScheduling, Fair, Fifo, Queue, SimOptions, Simulation, simulate
from planner.simulator.jobs import JobRun
from planner.simulator.layout import build_layout

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
