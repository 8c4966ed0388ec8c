"""Cluster options in the simulator: containers, heartbeats (one or several tasks, staggered),
lognormal task times, slot overrides, rack and off-rack slowdowns.

Conventions (heartbeat 0, every block on every node, deterministic task times, unless a test
says otherwise) and the shared clusters and batches: tests/support/simulator.py.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from models import Cluster, Job
from planner.simulator import SimOptions, simulate
from tests.support.simulator import flat, running_at


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
