"""Limits before work: a simulation's estimate (`planner.simulator.effort`), the pair matrix and the
packing's pairs, each refused at one past its limit and allowed at it, before anything is built;
a long run announces its estimate and shows its progress with an ETA on stderr."""

from __future__ import annotations

import json
import time

import pytest

from models import Cluster, InvalidInput, Job, PlannerError, Workload
from planner.examples.workloads import random_batch
from planner.limits import MAX_SIMULATION_BYTES, MAX_SIMULATION_SECONDS, MAX_TASK_RUNS
from planner.proof.compare import compare
from planner.simulator import Natjam, SimOptions, simulate
from planner.simulator import effort as effort_module
from planner.simulator.effort import (
    SimulationEffort,
    announcement,
    check_simulation,
    check_simulations,
    simulation_effort,
)
from planner.simulator.run import Run
from solvers import pack_phases, schedule_pairs
from solvers.packing.problem import MAX_PACKING_PAIRS, check_packing_size
from solvers.pairs.problem import MAX_PAIR_ENTRIES, MAX_PAIR_SPLITS, check_pair_size
from tests.support.cli import planner

#: Two jobs: 150 maps and 10 reduces (hand-worked figures below).
SMALL = Workload([Job("a", map_tasks=100, reduce_tasks=10, map_time=10.0, reduce_time=5.0),
                  Job("b", map_tasks=50, map_time=10.0)])



def test_the_estimate_by_hand():
    """160 tasks, 150 maps x 3 replicas: 160 x 12 us; 160 x 64 + 450 x 52 bytes."""
    plain = simulation_effort(SMALL, Cluster(nodes=10, heartbeat=0))
    assert (plain.tasks, plain.replicas, plain.heartbeats) == (160, 450, 0.0)
    assert plain.nanoseconds == 160 * 12_000 == 1_920_000
    assert plain.bytes == 160 * 64 + 450 * 52 == 33_640
    assert simulation_effort(SMALL, Cluster(nodes=10, heartbeat=0), Natjam()).nanoseconds == 160 * 18_000
    networked = simulation_effort(SMALL, Cluster(nodes=10, heartbeat=0), options=SimOptions(network=True))
    assert networked.nanoseconds == 160 * 13_000
    # replication 5: two replicas a map past the three counted, 4.5 us each
    replicated = simulation_effort(SMALL, Cluster(nodes=10, heartbeat=0, replication=5))
    assert replicated.replicas == 750
    assert replicated.nanoseconds == 1_920_000 + 300 * 4_500 == 3_270_000
    assert replicated.bytes == 160 * 64 + 750 * 52 == 49_240
    # no more copies than nodes
    assert simulation_effort(SMALL, Cluster(nodes=4, heartbeat=0, replication=5)).replicas == 600
    # heartbeats every 2 s on 10 nodes over at least 1,550 s of work / 40 slots = 38.75 s: 193.75
    beating = simulation_effort(SMALL, Cluster(nodes=10, heartbeat=2.0))
    assert beating.heartbeats == 193.75
    assert beating.nanoseconds == 1_920_000 + 116_250


def _at_the_time_limit(extra_reduces: int = 0) -> Workload:
    """Maps with 10 replicas (7 past the three counted): 6,896,544 x (12 + 7 x 4.5) us and 28
    reduces x 12 us make exactly 300 s."""
    maps = [1_000_000] * 6 + [896_544]
    return Workload([Job(f"j{i}", map_tasks=count, reduce_tasks=4 + (extra_reduces if i == 6 else 0), map_time=1.0,
                         reduce_time=1.0) for i, count in enumerate(maps)])


def test_time_limit_at_its_boundary():
    cluster = Cluster(nodes=10, heartbeat=0, replication=10)
    assert MAX_SIMULATION_SECONDS == 300
    at = check_simulation(_at_the_time_limit(), cluster)
    assert at.nanoseconds == 300 * 10**9
    assert at.bytes < MAX_SIMULATION_BYTES
    with pytest.raises(InvalidInput) as refused:
        check_simulation(_at_the_time_limit(extra_reduces=1), cluster)
    assert "estimated 300 s a run; at most 300 s (MAX_SIMULATION_SECONDS)" in str(refused.value)
    assert "6,896,573 tasks" in str(refused.value)


def test_memory_limit_at_its_boundary(monkeypatch):
    """The check against a budget of exactly the estimate passes; one task more is refused."""
    monkeypatch.setattr(effort_module, "MAX_SIMULATION_BYTES", 33_640)
    cluster = Cluster(nodes=10, heartbeat=0)
    assert check_simulation(SMALL, cluster).bytes == 33_640
    bigger = Workload([*SMALL.jobs, Job("c", map_tasks=1, map_time=1.0)])
    with pytest.raises(InvalidInput, match=r"\(33,860 bytes\) a run; at most 33,640 bytes \(MAX_SIMULATION_BYTES, "):
        check_simulation(bigger, cluster)


def test_the_real_memory_budget():
    assert MAX_SIMULATION_BYTES == 4 * 2**30
    # 10 jobs of 999,999 maps with 100 replicas each: 52 GB; refused (by time first) before anything is built
    huge = Workload([Job(f"j{i}", map_tasks=999_999, map_time=30.0) for i in range(10)])
    started = time.perf_counter()
    with pytest.raises(InvalidInput) as refused:
        simulate(huge, Cluster(nodes=200, replication=100, heartbeat=0))
    assert time.perf_counter() - started < 5
    assert isinstance(refused.value, ValueError) and isinstance(refused.value, PlannerError)
    assert "9,999,990 tasks and 999,999,000 block replicas" in str(refused.value)


def test_task_runs_at_their_boundary():
    one = SimulationEffort(10_000_000, 0, 0.0, 120 * 10**9, 640_000_000)
    assert MAX_TASK_RUNS == 2 * 10**10
    total = check_simulations([(one, 2_000)], "validate")
    assert (total.runs, total.task_runs, total.seconds) == (2_000, MAX_TASK_RUNS, 240_000.0)
    with pytest.raises(InvalidInput, match=r"validate: 2,001 simulations of 20,010,000,000 tasks in all "
                                           r"\(2e\+10\); at most 2e\+10 \(MAX_TASK_RUNS\)"):
        check_simulations([(one, 1_000), (one, 1_001)], "validate")


def test_a_command_of_many_runs_is_refused_before_the_first(monkeypatch):
    """compare with two seeds of a 160-task workload against a limit of 319 task-runs: refused
    before any run starts (the sweep is never called)."""
    monkeypatch.setattr(effort_module, "MAX_TASK_RUNS", 319)
    monkeypatch.setattr("planner.proof.compare.sweep", lambda *args, **kwargs: pytest.fail("a run started"))
    with pytest.raises(InvalidInput, match="compare: 2 simulations of 320 tasks"):
        compare(SMALL, Cluster(nodes=10), ["fifo"], seeds=[0, 1])
    monkeypatch.setattr(effort_module, "MAX_TASK_RUNS", 320)
    monkeypatch.setattr("planner.proof.compare.sweep", lambda specs, *args, **kwargs: [])
    compare(SMALL, Cluster(nodes=10), ["fifo"], seeds=[0, 1])


def test_a_run_checks_its_own_estimate():
    cluster = Cluster(nodes=10, heartbeat=0)
    assert Run(SMALL, cluster, Natjam()).effort().nanoseconds == 160 * 18_000
    assert Run(SMALL, cluster, phases=((("a", 2, "primary"),),)).effort().tasks == 0


def test_pair_matrix_at_its_boundary():
    assert MAX_PAIR_ENTRIES == 4_000**2
    check_pair_size(4_000, 2)
    check_pair_size(3_999, 2)  # an odd count pairs one job with a dummy: 4,000^2 entries
    with pytest.raises(InvalidInput, match=r"pairs: 4,001 jobs make a pair matrix of 16,016,004 entries; at most "
                                           r"16,000,000 \(MAX_PAIR_ENTRIES, 4,000 jobs\)"):
        check_pair_size(4_001, 2)
    assert MAX_PAIR_SPLITS == 2 * 10**9
    check_pair_size(1_000, 2_001)  # 1,000^2 x 2,000 splits
    with pytest.raises(InvalidInput, match=r"1,000 jobs on 2,002 VMs make 2,001,000,000 pair splits"):
        check_pair_size(1_000, 2_002)


def test_pairs_refused_before_anything_is_built():
    started = time.perf_counter()
    with pytest.raises(InvalidInput, match="MAX_PAIR_ENTRIES"):
        schedule_pairs(random_batch(4_001), Cluster(nodes=10, disks=2))
    assert time.perf_counter() - started < 5


def test_packing_pairs_at_their_boundary():
    assert MAX_PACKING_PAIRS == 500_000
    check_packing_size(1_000)  # 499,500 pairs
    with pytest.raises(InvalidInput, match=r"packing: 1,001 jobs make 500,500 pairs to price; at most 500,000 "
                                           r"\(MAX_PACKING_PAIRS, 1,000 jobs\)"):
        check_packing_size(1_001)
    started = time.perf_counter()
    with pytest.raises(InvalidInput, match="MAX_PACKING_PAIRS"):
        pack_phases(random_batch(1_001), Cluster(nodes=10, disks=2), method="greedy")
    assert time.perf_counter() - started < 5


def test_the_command_line_refuses_a_run_too_big_at_once(tmp_path):
    workload = tmp_path / "big.yaml"
    workload.write_text("jobs:\n" + "".join(f"  - {{name: j{i}, map_tasks: 999999, map_time: 30.0}}\n"
                                            for i in range(10)))
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text("nodes: 200\nreplication: 100\nheartbeat: 0\n")
    started = time.perf_counter()
    status, out, err = planner("simulate", workload, "-c", cluster, "--json")
    assert time.perf_counter() - started < 10
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ")
    assert "9,999,990 tasks and 999,999,000 block replicas make an estimated 4,485 s a run; at most 300 s " \
           "(MAX_SIMULATION_SECONDS)" in err


def test_the_command_line_refuses_a_pair_matrix_too_big(tmp_path):
    workload = tmp_path / "many.yaml"
    workload.write_text("jobs:\n" + "".join(
        f"  - {{name: j{i}, map_tasks: 1, map_time: 1.0, profile: {{kind: power_law, a: 100.0, b: -0.5}}}}\n"
        for i in range(4_001)))
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text("nodes: 10\n")
    for strategy, limit in (("pairs", "MAX_PAIR_ENTRIES"), ("packing", "MAX_PACKING_PAIRS")):
        status, out, err = planner("plan", workload, "-c", cluster, "--strategy", strategy)
        assert status == 2 and out == ""
        assert err.count("\n") == 1 and limit in err and "4,001 jobs" in err


def test_announcement_at_its_threshold():
    assert announcement(SimulationEffort(1, 0, 0.0, 9_999_999_999, 0), "simulate") is None
    line = announcement(SimulationEffort(833_334, 0, 0.0, 10 * 10**9, 64 * 833_334), "simulate")
    assert line == "simulate: 833,334 tasks, about 10 s of one core and 0.1 GB a run (estimated); progress follows"


def test_a_long_run_shows_progress_with_an_eta_on_stderr(tmp_path, monkeypatch):
    """Estimated long (the threshold set to 0 here), the run says its estimate first, then its
    progress every PROGRESS_SECONDS (0 here) with an ETA, on stderr only: --json still parses."""
    monkeypatch.setattr(effort_module, "ANNOUNCED_SECONDS", 0.0)
    monkeypatch.setattr(effort_module, "PROGRESS_SECONDS", 0.0)
    workload = tmp_path / "w.yaml"
    workload.write_text("jobs:\n  - {name: a, map_tasks: 140000, map_time: 1.0}\n")
    cluster = tmp_path / "c.yaml"
    cluster.write_text("nodes: 20\nheartbeat: 0\n")
    status, out, err = planner("simulate", workload, "-c", cluster, "--json")
    assert status == 0
    assert json.loads(out)["result"]["attempts"] == 140_000
    lines = err.splitlines()
    assert lines[0] == "simulating w.yaml (fifo): 140,000 tasks, about 2 s of one core and 0.0 GB a run " \
                       "(estimated); progress follows"
    assert len(lines) >= 3  # every 65,536 ended attempts
    assert all("% of tasks done, ETA " in line for line in lines[1:])
