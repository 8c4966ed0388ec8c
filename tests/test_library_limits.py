"""The documented limits hold in the Python API too, not only on the command line (README, Limits)."""

from __future__ import annotations

import pytest

from models import Cluster, InvalidInput, Job, Workload
from planner.examples.workloads import random_batch
from planner.planning.make import make_plan
from planner.proof.compare import compare
from planner.proof.validate import validate
from planner.simulator import simulate
from planner.simulator.schedulers.preemption import Preemption
from solvers import pack_phases

SMALL = Workload([Job("a", 4, 1, 10.0, 5.0), Job("b", 2, 2, 8.0, 6.0)])
CLUSTER = Cluster(nodes=2, map_slots=2, reduce_slots=2, heartbeat=0)


def test_packing_takes_at_most_128_vms():
    with pytest.raises(InvalidInput, match="at most 128 VMs"):
        pack_phases(random_batch(3), Cluster(nodes=100, disks=2), method="greedy")


def test_a_preemption_recheck_below_a_millisecond_is_refused():
    """A period of 1e-300 s never advances the clock: refused at construction."""
    with pytest.raises(InvalidInput, match=r"preemption\.recheck"):
        Preemption(recheck=1e-300)


def test_simulated_slot_totals_are_bounded():
    with pytest.raises(InvalidInput, match=r"slots\.map"):
        simulate(SMALL, CLUSTER, slots=(10**9, 1))


def test_a_simulation_of_endless_heartbeats_is_refused():
    """A 3e7 s map on 20 nodes heartbeating every 3 s: 2e8 heartbeats, over MAX_HEARTBEATS."""
    slow = Workload([Job("slow", 1, 0, 3e7)])
    with pytest.raises(InvalidInput, match="MAX_HEARTBEATS"):
        simulate(slow, Cluster(nodes=20, map_slots=1, reduce_slots=1, heartbeat=3.0))


def test_runs_and_seeds_are_bounded():
    plan = make_plan(SMALL, CLUSTER, "slots")
    with pytest.raises(InvalidInput, match="runs"):
        validate(plan, SMALL, CLUSTER, runs=10**9)
    with pytest.raises(InvalidInput, match="runs"):
        make_plan(SMALL, CLUSTER, "slots", robust=True, runs=10**9)
    with pytest.raises(InvalidInput, match="MAX_RUNS"):
        compare(SMALL, CLUSTER, ["fifo"], seeds=range(100_001))
