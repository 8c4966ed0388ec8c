"""Determinism and seeds: the same inputs and seed give the same bytes (in another process too);
the seed drives HDFS block placement and task-time noise.

Conventions (heartbeat 0, every block on every node, deterministic task times, unless a test
says otherwise) and the shared clusters and batches: tests/support/simulator.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from models import Cluster, Job
from planner.simulator import Fair, Fifo, Pool, Preemption, SimOptions, Simulation, simulate
from planner.simulator.layout import build_layout
from tests.support.simulator import MIXED, RACKED, flat, hashed_run

# -- determinism and seeds -------------------------------------------------------------------------


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


@pytest.mark.parametrize(("nodes", "racks", "replication"),
                         [(12, 3, 3), (500, 10, 3), (7, 3, 2), (9, 2, 5), (10, 2, 1), (5, 3, 3), (6, 1, 3), (2, 1, 3)])
def test_flat_placement_and_locality_indexes_are_numpys(nodes, racks, replication):
    """`jobs.place_flat` (a job's replicas computed in compiled loops from the draws) gives
    `place_blocks`'s nodes from the same generator state, and leaves the generator where it
    would (the task times drawn next are the same); `flat_locality_indexes` groups tasks by node
    as a stable argsort of the replicas does, and by rack as the runs of its nodes' groups."""
    from librt.vecs import vec
    from mypy_extensions import i64

    from planner.simulator.jobs import flat_locality_indexes, place_flat
    from planner.simulator.layout import place_blocks

    layout = build_layout(Cluster(nodes=nodes, racks=racks))
    copies = min(replication, nodes)
    for seed in range(10):
        for blocks in (1, 2, 257):
            ours_rng, numpy_rng = np.random.default_rng(seed), np.random.default_rng(seed)
            flat = place_flat(ours_rng, blocks, layout, copies)
            expected = place_blocks(numpy_rng, blocks, layout, copies)
            assert list(flat) == expected.ravel().tolist()
            assert ours_rng.random() == numpy_rng.random()
            on_node, on_rack = flat_locality_indexes(vec[i64](list(flat)), copies, layout)
            order = (np.argsort(expected.ravel(), kind="stable") // copies).tolist()
            assert list(on_node.tasks) == order
            bounds = [0, *np.bincount(expected.ravel(), minlength=nodes).cumsum().tolist()]
            assert list(on_node.cursor)[:nodes] == bounds[:-1] and list(on_node.end) == bounds[1:]
            starts = [*layout.rack_starts, nodes]
            assert list(on_rack.cursor) == [bounds[s] for s in starts[:-1]]
            assert list(on_rack.end) == [bounds[s] for s in starts[1:]]


def test_same_result_in_another_process_with_another_hash_seed():
    """Byte-identical JSON in a fresh interpreter with a different PYTHONHASHSEED (set and dict
    iteration over pool and job names must not leak into the result)."""
    code = (
        "from tests.support.simulator import hashed_run\n"
        "import sys; sys.stdout.write(hashed_run())"
    )
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": str(root)}
    other = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True,
                           check=True, timeout=120).stdout
    assert other == hashed_run()
