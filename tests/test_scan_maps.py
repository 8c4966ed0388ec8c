"""`Scheduler.scan_maps` is `RankedJobs.scan` over `Scheduler.take`, inlined: every scheduler
that uses it gives the attempts it gives when each job met is asked through `take`."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from models import Cluster
from planner.examples.workloads import set_a_batch
from planner.io.swim import read_swim
from planner.simulator import Fair, Fifo, Pool, SimOptions, simulate
from planner.simulator.layout import MAP
from planner.simulator.locality import DelayScheduling
from planner.simulator.schedulers.capacity import Capacity, Queue
from planner.simulator.schedulers.preemption import Preemption

SLICE = Path(__file__).parent / "data" / "FB-2010_samples_24_times_1hr_0_first300s.tsv"


class ThroughTake:
    """Mixin: `scan_maps` by the generic scan, each job asked through `take` (the reference)."""

    scanned = 0

    def scan_maps(self, ranked, node, now, drop_idle=False):
        self.scanned += 1
        keep = (lambda job: job.pending_maps) if drop_idle else None
        return ranked.scan(lambda job: self.take(job, node, MAP, now), keep=keep)


class FairThroughTake(ThroughTake, Fair):
    pass


class FifoThroughTake(ThroughTake, Fifo):
    pass


class CapacityThroughTake(ThroughTake, Capacity):
    pass


QUEUES = [Queue("p0", 0.5, 1.0), Queue("p1", 0.3, 0.6), Queue("p2", 0.2, 0.5)]


def _spread(count, pools=3):
    return [dataclasses.replace(job, submit=13.0 * i, pool=f"p{i % pools}", intensity=("io", "cpu")[i % 2])
            for i, job in enumerate(set_a_batch(count))]


CASES = {
    "fair-delay-fb2010-slice": (lambda: read_swim(SLICE), Cluster(nodes=150, racks=5), Fair, {"delay": (15, 15)},
                                None),
    "fair-delay-noise-pools": (lambda: _spread(40), Cluster(nodes=12, racks=3, map_slots=2), Fair,
                               {"delay": (4, 6), "pools": [Pool("p0", weight=2, min_map=3), Pool("p1", mode="fifo")]},
                               SimOptions(task_time_cv=0.3)),
    "fair-delay-preemption": (lambda: _spread(30), Cluster(nodes=10, racks=2), Fair,
                              {"delay": (3, 3), "preemption": Preemption(min_share_timeout=5, fair_share_timeout=10),
                               "pools": [Pool("p0", min_map=6)]}, None),
    "fair-delay-io-only": (lambda: _spread(30), Cluster(nodes=10, racks=2), Fair,
                           {"delay": DelayScheduling(5, 5, intensities=["io"])}, None),
    "capacity-no-delay": (lambda: _spread(30), Cluster(nodes=10, racks=2), Capacity, {"queues": QUEUES},
                          SimOptions(task_time_cv=0.3)),
    "fifo-delay": (lambda: read_swim(SLICE), Cluster(nodes=90, racks=3, heartbeat=0.7), Fifo, {"delay": (5, 10)},
                   SimOptions(task_time_cv=0.3)),
    "capacity-delay": (lambda: _spread(40), Cluster(nodes=12, racks=3), Capacity,
                       {"queues": QUEUES, "delay": (3, 3)}, None),
    "capacity-delay-heartbeat-0": (lambda: _spread(40), Cluster(nodes=12, racks=3, heartbeat=0), Capacity,
                                   {"queues": QUEUES, "delay": (3, 6)}, SimOptions(task_time_cv=0.2)),
}
REFERENCE = {Fair: FairThroughTake, Fifo: FifoThroughTake, Capacity: CapacityThroughTake}


@pytest.mark.parametrize("name", list(CASES))
def test_scan_maps_gives_the_attempts_of_asking_through_take(name):
    """Each case twice: the same attempts, every field, in the same order; the reference did scan."""
    jobs, cluster, kind, settings, options = CASES[name]
    reference = REFERENCE[kind](**settings)
    expected = simulate(jobs(), cluster, reference, options=options)
    got = simulate(jobs(), cluster, kind(**settings), options=options)
    assert reference.scanned > 0
    assert got.attempts == expected.attempts
    assert got.jobs == expected.jobs
