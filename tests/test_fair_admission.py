"""Fair with FRESH's admission limit: ``Fair(k=...)``, at most k jobs in their map phase and k in
their reduce phase (default None: no limit, the scheduler unchanged).

Hand-traced runs use heartbeat 0, one node and "cpu" jobs with rack_factor 1.0 (deterministic
task times, no locality stretch), as in tests/test_fresh.py.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from models import Cluster, InvalidInput, Job
from planner.cli.main import app
from planner.simulator import Fair, Pool, Preemption, SimOptions, simulate
from planner.simulator.config import scheduler_from_dict
from tests.support.properties import check_invariants, clusters, run, schedulers, sim_options, workloads

EXACT = SimOptions(rack_factor={"cpu": 1.0}, off_rack_factor={"cpu": 1.0})
CONTAINERS = SimOptions(containers=True, rack_factor={"cpu": 1.0}, off_rack_factor={"cpu": 1.0})
TWO_MAPS_ONE_REDUCE = Cluster(nodes=1, map_slots=2, reduce_slots=1, heartbeat=0)
FOUR_CONTAINERS = Cluster(nodes=1, map_slots=2, reduce_slots=2, heartbeat=0)


def job(name, maps, reduces, map_time, reduce_time, submit=0.0, pool="default"):
    return Job(name, maps, reduces, map_time, reduce_time, submit=submit, pool=pool, intensity="cpu")


def records(result):
    return [(j["name"], j["start"], j["map_done"], j["finish"]) for j in result.jobs]


# -- settings ---------------------------------------------------------------------------------------------
def test_off_by_default():
    fair = Fair()
    assert fair.k is None and fair.hears_ends is False
    assert "k" not in fair.describe()
    limited = Fair(k=3)
    assert limited.k == 3 and limited.hears_ends is True and limited.describe()["k"] == 3
    assert "k=3" in repr(limited)


@pytest.mark.parametrize("value", [0, -1, 2.5, True, "5", math.nan])
def test_k_is_validated(value):
    with pytest.raises(InvalidInput) as error:
        Fair(k=value)
    assert error.value.field == "k"


def test_k_in_a_settings_file(tmp_path):
    assert scheduler_from_dict("fair", {"k": 2, "pools": [{"name": "a"}]}).k == 2
    with pytest.raises(InvalidInput, match=r"^k: must be >= 1"):
        scheduler_from_dict("fair", {"k": 0})
    config = tmp_path / "fair.yaml"
    config.write_text("scheduler: fair\nk: 1\n")
    workload = tmp_path / "w.yaml"
    workload.write_text("jobs:\n  - {name: A, map_tasks: 4, reduce_tasks: 1, map_time: 10, reduce_time: 10}\n"
                        "  - {name: B, map_tasks: 4, reduce_tasks: 1, map_time: 10, reduce_time: 10}\n")
    cluster = tmp_path / "c.yaml"
    cluster.write_text("nodes: 1\nmap_slots: 2\nreduce_slots: 1\nheartbeat: 0\n")
    result = CliRunner().invoke(app, ["simulate", str(workload), "--cluster", str(cluster), "--config", str(config),
                                      "--json"])
    assert result.exit_code == 0, result.output
    assert '"makespan": 50.0' in result.stdout  # without the limit 60 (test_one_job_per_phase_on_typed_slots)


# -- hand-traced runs ---------------------------------------------------------------------------------------
def test_one_job_per_phase_on_typed_slots():
    """2 map slots + 1 reduce slot. A and B (submit 0): 4 maps x 10 s, 1 reduce x 10 s.

    - No limit: the map slots alternate between the jobs (fewest running tasks, ties by name):
      one map of each at 0, 10, 20, 30: both map phases end at 40; A's reduce 40-50, B's
      50-60. Makespan 60, mean response 55.
    - k = 1: A alone in its map phase: both map slots, 0-10 and 10-20; at 20 A enters its
      reduce phase (reduce 20-30) and B its map phase (20-30, 30-40); B's reduce 40-50.
      Makespan 50, mean response (30 + 50) / 2 = 40.
    - k = 2 admits both at once: the same as no limit.
    """
    jobs = [job("A", 4, 1, 10.0, 10.0), job("B", 4, 1, 10.0, 10.0)]
    free = simulate(jobs, TWO_MAPS_ONE_REDUCE, Fair(), options=EXACT)
    assert records(free) == [("A", 0.0, 40.0, 50.0), ("B", 0.0, 40.0, 60.0)]
    assert (free.makespan, free.mean_response) == (60.0, 55.0)
    one = simulate(jobs, TWO_MAPS_ONE_REDUCE, Fair(k=1), options=EXACT)
    assert records(one) == [("A", 0.0, 20.0, 30.0), ("B", 20.0, 40.0, 50.0)]
    assert (one.makespan, one.mean_response) == (50.0, 40.0)
    assert simulate(jobs, TWO_MAPS_ONE_REDUCE, Fair(k=2), options=EXACT).tasks == free.tasks


def test_phases_on_containers():
    """4 containers. A and B (submit 0): 2 maps x 10 s, 2 reduces x 10 s.

    - No limit: A, B, A, B maps at 0 (fewest running tasks); all four reduces 10-20. Makespan 20.
    - k = 1: only A is in its map phase: its 2 maps at 0; the other two containers stay idle
      (B waits, A's reduces wait for its reduce phase). At 10 A enters its reduce phase and B
      its map phase: A's 2 reduces and B's 2 maps 10-20; B's reduces 20-30. Makespan 30.
    """
    jobs = [job("A", 2, 2, 10.0, 10.0), job("B", 2, 2, 10.0, 10.0)]
    free = simulate(jobs, FOUR_CONTAINERS, Fair(), options=CONTAINERS)
    assert free.makespan == 20.0
    one = simulate(jobs, FOUR_CONTAINERS, Fair(k=1), options=CONTAINERS)
    assert records(one) == [("A", 0.0, 10.0, 20.0), ("B", 10.0, 20.0, 30.0)]
    got = sorted((t["job"], t["kind"], t["start"]) for t in one.tasks)
    assert got == [("A", "map", 0.0)] * 2 + [("A", "reduce", 10.0)] * 2 + [("B", "map", 10.0)] * 2 + [
        ("B", "reduce", 20.0)] * 2


def test_only_admitted_jobs_count_in_a_pools_demand():
    """2 map slots. P1 (pool p) at 0 and Q1 (pool q, min_map 2) at 5: 4 maps x 10 s each, no
    reduces; min-share preemption with timeout 0 (rechecked every 1 s).

    - No limit: at 5 q is below its min share; the first check, at 6, kills P1's two running
      maps (started at 0): Q1 runs 6-16, 16-26, then P1's four maps 26-36, 36-46. 2 kills.
    - k = 1: Q1 waits outside the map phase, so q has no demand and is never starved: P1
      0-10, 10-20; Q1 enters at 20: 20-30, 30-40. No kill.
    """
    jobs = [job("P1", 4, 0, 10.0, 0.0, pool="p"), job("Q1", 4, 0, 10.0, 0.0, submit=5.0, pool="q")]

    def fair(k):
        return Fair(pools=[Pool("p"), Pool("q", min_map=2)],
                    preemption=Preemption(min_share_timeout=0.0, fair_share_timeout=None), k=k)

    free = simulate(jobs, TWO_MAPS_ONE_REDUCE, fair(None), options=EXACT)
    assert [(j["name"], j["finish"]) for j in free.jobs] == [("P1", 46.0), ("Q1", 26.0)]
    assert free.summary()["kills"] == 2
    one = simulate(jobs, TWO_MAPS_ONE_REDUCE, fair(1), options=EXACT)
    assert [(j["name"], j["start"], j["finish"]) for j in one.jobs] == [("P1", 0.0, 20.0), ("Q1", 20.0, 40.0)]
    assert one.summary()["kills"] == 0


def test_waiting_jobs_enter_in_fifo_order():
    """1 map slot + 1 reduce slot, k = 1. A (submit 0), then C (priority 1) and B (priority
    0), both submitted at 1: 1 map x 10 s, 1 reduce x 10 s each. A enters at once (maps 0-10,
    reduce 10-20); at 10 the waiting jobs enter by priority, then submit time, then name: C's
    map 10-20 (its reduce 20-30), then B's map 20-30 (reduce 30-40)."""
    jobs = [job("A", 1, 1, 10.0, 10.0), job("B", 1, 1, 10.0, 10.0, submit=1.0),
            Job("C", 1, 1, 10.0, 10.0, submit=1.0, priority=1, intensity="cpu")]
    result = simulate(jobs, Cluster(nodes=1, map_slots=1, reduce_slots=1, heartbeat=0), Fair(k=1), options=EXACT)
    assert records(result) == [("A", 0.0, 10.0, 20.0), ("B", 20.0, 30.0, 40.0), ("C", 10.0, 20.0, 30.0)]


# -- properties -----------------------------------------------------------------------------------------------
def phase_spans(result, kind):
    spans = {}
    for t in result.tasks:
        if t["kind"] == kind and t["fate"] == "done":
            lo, hi = spans.get(t["job"], (math.inf, -math.inf))
            spans[t["job"]] = (min(lo, t["start"]), max(hi, t["end"]))
    return spans


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(jobs=workloads(), cluster=clusters(), options=sim_options(), data=st.data(), k=st.integers(1, 3),
       seed=st.integers(0, 3))
def test_invariants_and_the_limit_hold(jobs, cluster, options, data, k, seed):
    """Random runs (pools with min shares, running-job limits, preemption, delay scheduling,
    containers, slow-start, copy-compute): every invariant of test_simulator_properties holds and
    at no time do more than k jobs run tasks of one phase (from a job's first task of the kind
    to its last completed one)."""
    base = data.draw(schedulers("fair", cluster.nodes))
    scheduler = Fair(pools=list(base.pools.values()), delay=base.delay, preemption=base.preemption, k=k)
    result = run(jobs, cluster, scheduler, seed=seed, options=options)
    check_invariants(result, jobs)
    for kind in ("map", "reduce"):
        spans = phase_spans(result, kind)
        for moment in {lo for lo, _ in spans.values()}:
            assert sum(1 for lo, hi in spans.values() if lo <= moment < hi) <= k, (kind, moment)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(jobs=workloads(), cluster=clusters(), containers=st.booleans(), data=st.data(), seed=st.integers(0, 3))
def test_a_limit_of_every_job_changes_nothing(jobs, cluster, containers, data, seed):
    """With k >= the number of jobs every job is admitted at once and (slow-start 1.0) enters
    its reduce phase as its reduces open: the run is the unlimited one, attempt for attempt.
    (Delay scheduling with preemption is left out: there the unlimited scheduler also preempts
    at delay wake-ups, the limited one only when a timeout is due.)"""
    base = data.draw(schedulers("fair", cluster.nodes))
    assume(base.delay is None or base.preemption is None)
    limited = Fair(pools=list(base.pools.values()), delay=base.delay, preemption=base.preemption, k=len(jobs))
    options = SimOptions(containers=containers)
    free = run(jobs, cluster, base, seed=seed, options=options)
    assert run(jobs, cluster, limited, seed=seed, options=options).tasks == free.tasks


def test_a_running_job_limit_starts_the_job_the_admission_limit_admitted():
    """Found by the property test above: pool b (max_running 1) holds j0 and j1 (priority 1),
    both submitted at 0, k = 1. The admission limit admits j0 (the first in workload order); the
    pool's limit used to pick j1 (first by priority), which was not admitted: neither ran. The
    pool now starts admitted jobs first: j0's map at 0-1 s, then j1's map 1-2 s and reduce 2-3 s."""
    jobs = [Job("j0", 1, 0, 1.0, pool="b", intensity="cpu"),
            Job("j1", 1, 1, 1.0, 1.0, pool="b", priority=1, intensity="cpu")]
    cluster = Cluster(nodes=1, map_slots=1, reduce_slots=1, heartbeat=1.0, replication=1)
    result = simulate(jobs, cluster, Fair(pools=[Pool("a"), Pool("b", max_running=1)], k=1),
                      options=SimOptions(containers=True, assign_multiple=False))
    assert [(r["name"], r["start"], r["finish"]) for r in result.jobs] == [("j0", 0.0, 1.0), ("j1", 1.0, 3.0)]
