"""Fair sharing with delay scheduling tells a repeated decline without asking every job again
(`planner.simulator.schedulers.declines`): the attempts are those of asking every time."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from models import Cluster
from planner.examples.workloads import set_a_batch
from planner.io.swim import read_swim
from planner.simulator import Fair, Pool, SimOptions, SimResult, simulate
from planner.simulator.schedulers.preemption import Preemption
from tests.support.heartbeats import Counted

SLICE = Path(__file__).parent / "data" / "FB-2010_samples_24_times_1hr_0_first300s.tsv"


class AsksEveryTime(Fair):
    """Fair without the memo: every decision asks the jobs."""

    def bind(self, sim) -> None:
        super().bind(sim)
        self.memo = None


class Counting(Fair):
    """Fair, counting the decisions it takes in full."""

    asked = 0

    def _pick(self, node, kind, now):
        self.asked += 1
        return super()._pick(node, kind, now)


def _spread(count):
    return [dataclasses.replace(job, submit=17.0 * i, pool=f"p{i % 3}") for i, job in enumerate(set_a_batch(count))]


CASES = {
    "fb2010-slice-150-nodes": (lambda: read_swim(SLICE), Cluster(nodes=150, racks=5), {"delay": (15, 15)}, None),
    "fb2010-slice-short-heartbeat": (lambda: read_swim(SLICE), Cluster(nodes=60, racks=3, heartbeat=0.7),
                                     {"delay": (5, 10)}, SimOptions(task_time_cv=0.3)),
    "pools-preemption": (lambda: _spread(40), Cluster(nodes=12, racks=3, map_slots=2, reduce_slots=2),
                         {"delay": (4, 4), "pools": [Pool("p0", weight=2, min_map=4), Pool("p1")],
                          "preemption": Preemption(min_share_timeout=5, fair_share_timeout=15)}, None),
    "running-job-limit": (lambda: _spread(30), Cluster(nodes=8, racks=2), {"delay": (6, 3), "pools": [
        Pool("p0", max_running=2)]}, SimOptions(reduce_slowstart=0.5)),
    "no-heartbeat": (lambda: _spread(30), Cluster(nodes=8, racks=2, heartbeat=0), {"delay": (6, 3)}, None),
}


@pytest.mark.parametrize("name", list(CASES))
def test_told_declines_give_the_attempts_of_asking_every_time(name):
    """Each case twice: the same attempts, every field, in the same order."""
    jobs, cluster, settings, options = CASES[name]
    asked = simulate(jobs(), cluster, AsksEveryTime(**settings), options=options)
    told = simulate(jobs(), cluster, Fair(**settings), options=options)
    assert told.attempts == asked.attempts


class CountingEveryTime(Counting, AsksEveryTime):
    """Fair without the memo, counting its decisions."""


def _counted(scheduler: Counting, workload, cluster) -> tuple[SimResult, int, int]:
    """A run, the decisions ``scheduler`` took in full and the nodes' reports."""
    sim = Counted(workload, cluster, scheduler)
    sim.run()
    return SimResult.from_simulation(sim), scheduler.asked, sim.reports


def test_repeated_declines_are_told():
    """The FB-2010 slice on 1,500 nodes in 50 racks (most slots free, jobs waiting for their
    blocks' nodes): the same attempts, at least a quarter of the decisions not taken in full and a
    quarter of the reports not made (when written: 46,774 decisions against 31,738 without the
    sleeping nodes, fewer with them; 47,001 reports against 28,726)."""
    workload = read_swim(SLICE)
    cluster = Cluster(nodes=1500, racks=50)
    asked, asked_decisions, asked_reports = _counted(CountingEveryTime(delay=(15, 15)), workload, cluster)
    told, told_decisions, told_reports = _counted(Counting(delay=(15, 15)), workload, cluster)
    assert told.attempts == asked.attempts
    assert told_decisions < 0.75 * asked_decisions
    assert told_reports < 0.75 * asked_reports
