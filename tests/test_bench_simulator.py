"""The simulator benchmark's SimPy yardstick agrees with `simulate` (timings are not asserted here)."""

from __future__ import annotations

import heapq
import itertools

import pytest

pytest.importorskip("simpy")

from benchmarks.bench_simulator import (
    THROUGHPUT_OPTIONS,
    figure,
    throughput_batch,
)
from benchmarks.registry import Row
from benchmarks.simpy_reference import DequeStore, simulate_fifo
from models import Cluster, Job
from planner.simulator import Fifo, simulate


def list_schedule(jobs: list[Job], slots: int) -> float:
    """Each task in FIFO order goes to the slot that frees first."""
    free = [0.0] * slots
    for job in jobs:
        for _ in range(job.map_tasks):
            heapq.heapreplace(free, free[0] + job.map_time)
    return max(free)


def test_simpy_reference_and_simulator_agree_on_a_small_batch():
    """7 jobs of 13 maps of 20 + 2 (j mod 50) s on 4 nodes x 2 map slots: both models give the
    list-scheduling makespan and the same finish time for every job."""
    jobs = throughput_batch(7, maps=13)
    cluster = Cluster(nodes=4, map_slots=2, reduce_slots=1, racks=2, heartbeat=0)
    ours = simulate(jobs, cluster, Fifo(), options=THROUGHPUT_OPTIONS)
    reference = simulate_fifo(jobs, cluster.total_map_slots)
    assert reference.tasks == 7 * 13
    assert ours.makespan == reference.makespan == list_schedule(jobs, 8)
    assert [record["finish"] for record in ours.jobs] == reference.finish


def test_simpy_records_every_task_once_and_no_slot_overlaps():
    jobs = [Job("b", 3, 0, 5.0), Job("a", 4, 0, 2.0)]  # FIFO by name: "a" first
    run = simulate_fifo(jobs, 3)
    assert sorted((job, task) for job, task, *_ in run.records) == [(0, t) for t in range(4)] + [(1, t) for t in range(3)]
    for slot in range(3):
        spans = sorted((start, end) for _, _, s, start, end in run.records if s == slot)
        assert all(end <= next_start for (_, end), (next_start, _) in itertools.pairwise(spans))
    assert run.finish == [4.0, 9.0] and run.makespan == 9.0  # a: 2+2 on slot 0; b starts at 2 and 4


def test_deque_store_is_first_in_first_out():
    import simpy

    env = simpy.Environment()
    store = DequeStore(env)
    store.items.extend("xyz")
    got = []

    def take():
        for _ in range(3):
            got.append((yield store.get()))

    env.process(take())
    env.run()
    assert got == ["x", "y", "z"] and not store.items


def test_reference_refuses_what_it_does_not_model():
    with pytest.raises(ValueError, match="map-only"):
        simulate_fifo([Job("j", 2, 1, 1.0, 1.0)], 2)
    with pytest.raises(ValueError, match="time 0"):
        simulate_fifo([Job("j", 2, 0, 1.0, submit=5.0)], 2)


def test_simulator_figure_is_a_png(tmp_path):
    rows = [Row("simulator", "FIFO, 1,000 map slots, 10 tasks", "batchplan simulate", 300.0, None, None, 1.0, "ok", 1),
            Row("simulator", "FIFO, 1,000 map slots, 10 tasks", "SimPy reference", 100.0, None, None, 3.0, "ok", 1),
            Row("simulator", "FB, 600 nodes, heartbeat 3 s", "fair", 9.0, None, None, 1.0, "ok", 1,
                detail="locality node 98.9%, rack 1.1%, off 0.0%; mean response 62 s")]
    figure(rows, tmp_path)
    assert (tmp_path / "simulator.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# -- the schedulers benchmark (issue 6): workloads as documented, and its figure -------------------------
def test_schedulers_workloads_are_as_documented():
    from benchmarks.bench_schedulers import (
        FRESH_CLUSTER,
        NATJAM_CLUSTER,
        VM_CLUSTER,
        fresh_mix,
        natjam_stream,
        random_phase_plan,
        work_bound,
    )
    from planner.examples.workloads import random_batch
    from planner.simulator import check_vm_groups

    mix = fresh_mix(20)
    assert [j.name for j in mix[:3]] == ["wc00", "ts01", "wc02"] and all(j.submit == 0 for j in mix)
    assert work_bound(mix, FRESH_CLUSTER.total_slots) == 10 * (2600 + 3200) / 40  # 1,450 s
    stream = natjam_stream(2000.0)
    research = [j for j in stream if j.priority == 0]
    production = [j for j in stream if j.priority == 1]
    assert (len(research), len(production)) == (20, 33)
    assert [j.submit for j in production[:2]] == [25.0, 85.0] and research[-1].submit == 1900.0
    assert [j.deadline - j.submit for j in research[:3]] == [360.0, 360.0, 570.0]
    assert production[0].deadline - production[0].submit == 160.0
    load = (2 * 1800 + 5520) / 3 / 100 + 600 / 60  # busy containers offered, 84% of 48
    assert NATJAM_CLUSTER.total_slots == 48 and load == pytest.approx(40.4)
    jobs = random_batch(200, seed=3)
    groups = random_phase_plan(jobs, VM_CLUSTER, seed=3)
    assert len(check_vm_groups(jobs, VM_CLUSTER, groups)) == len(groups)
    assert {role for phase in groups for _, _, role in phase} == {"primary", "host", "extra"}


def test_schedulers_figure_is_a_png(tmp_path):
    from benchmarks.bench_schedulers import figure

    fresh = "FRESH mix: 20 jobs (1,700 tasks) at t = 0, 40 slots"
    natjam = "Natjam stream: 20 research + 33 production jobs (1,530 tasks) over 2,000 s"
    rows = [Row("schedulers", fresh, "FRESH dynamic", 1494.0, 1450.0, 0.03, 0.02, "ok", 3,
                detail="1,700 attempts simulated, 68,065 attempts/s"),
            Row("schedulers", fresh, "Fair 2:2", 2154.0, 1450.0, 0.49, 0.02, "ok", 3,
                detail="1,700 attempts simulated, 77,297 attempts/s"),
            Row("schedulers", natjam, "Natjam suspend", 2115.0, None, None, 0.04, "ok", 3,
                detail="1,787 attempts simulated, 49,361 attempts/s; suspensions 257"),
            Row("schedulers", "VM phases: 10 jobs", "simulate_vms, barriers", 99.0, None, None, 0.01, "ok", 3,
                detail="5,000 jobs/s")]
    figure(rows, tmp_path)
    assert (tmp_path / "schedulers.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
