"""Heartbeats wake only the next node that can launch new work: results as when every node woke.

Before, work appearing (an arrival, reduces opening, a job finishing, a scheduler's wake-up)
woke every sleeping node, and a node with a free slot of any kind kept reporting while work of
any kind was pending. `WakeEveryNode` below is that policy, kept here as the reference: the
simulator's lazy wake-ups (`planner.simulator.core`) must give the very same attempts, while
making far fewer reports.
"""

from __future__ import annotations

import dataclasses

import pytest

from models import Cluster
from planner.examples.workloads import set_a_batch
from planner.io.swim import read_swim
from planner.simulator import Capacity, Fair, Fifo, Fresh, Natjam, Pool, Queue, SimOptions, SimResult
from planner.simulator.api import simulate
from planner.simulator.core import Simulation
from planner.simulator.layout import ANY, MAP
from planner.simulator.schedulers.preemption import Preemption
from tests.support.heartbeats import Counted


class WakeEveryNode(Simulation):
    """The reference: one set of sleeping nodes (flagged under MAP), woken all at once; work a
    scheduler holds back (a job behind a running-job or admission limit) stays pending, so nodes
    keep reporting for it and the scheduler declines it, as before `Simulation.hold`."""

    reports = 0

    def hold(self, job, kind):
        return None

    def release(self, job, kind):
        return None

    def _work_appeared(self, kind=None):
        if self.heartbeat == 0:
            return super()._work_appeared(kind)
        now = self.events.now
        for flags in self.asleep:
            for node in [node for node, flag in enumerate(flags) if flag]:
                self._schedule_heartbeat(node, now)
        return None

    def _slot_freed(self, node, kind, now):
        if self.pending[0] or self.pending[1]:
            self._schedule_heartbeat(node, now)
        else:
            self._sleep(node, MAP)

    def _heartbeat(self, node, now):
        self.reports += 1
        self.awake[node] = 0
        free = self.node_free[node]
        pending = self.pending
        for kind in self.kinds_present:
            slots = free[kind]
            while slots and (pending[kind] if kind != ANY else pending[0] or pending[1]):
                if not self._offer(slots[-1], node, kind, now) or not self.options.assign_multiple:
                    break
        if free[0] or free[1] or free[2]:
            if pending[0] or pending[1]:
                self._next_heartbeat(node)
                if self.running_total == 0 and len(self.jobs) == len(self.workload):
                    self._check_stall(now)
            else:
                self._sleep(node, MAP)


def _run(kind, jobs, cluster, scheduler, options):
    sim = kind(jobs, cluster, scheduler, options=options or SimOptions())
    sim.run()
    return SimResult.from_simulation(sim), sim.reports


def _spread(count, pools=False, priority=False, gap=23.0):
    jobs = []
    for position, job in enumerate(set_a_batch(count)):
        change = {"submit": gap * position}
        if pools:
            change["pool"] = f"p{position % 3}"
        if priority:
            change["priority"] = 1 if position % 4 == 0 else 0
        jobs.append(dataclasses.replace(job, **change))
    return jobs


POOLS = [Pool("p0", weight=1, min_map=4), Pool("p1", weight=2, max_map=5, max_reduce=3), Pool("p2", max_running=2)]
CASES = {
    "fifo": (lambda: _spread(40), Fifo, None),
    "fifo-delay-noise": (lambda: _spread(40), lambda: Fifo(delay=(4, 6)), SimOptions(task_time_cv=0.3)),
    "fair-pools-delay": (lambda: _spread(40, pools=True), lambda: Fair(pools=POOLS, delay=(3, 3)), None),
    "fair-preemption": (lambda: _spread(40, pools=True),
                        lambda: Fair(pools=POOLS, preemption=Preemption(min_share_timeout=5, fair_share_timeout=20)),
                        None),
    "fair-containers": (lambda: _spread(40, pools=True), lambda: Fair(pools=POOLS[:2]), SimOptions(containers=True)),
    "capacity-delay": (lambda: _spread(40, pools=True),
                       lambda: Capacity([Queue(f"p{k}", 0.3, 0.6) for k in range(3)], delay=(3, 3)), None),
    "copy-compute": (lambda: _spread(30), Fifo, SimOptions(copy_compute=(3, 1))),
    "natjam": (lambda: _spread(30, priority=True), Natjam, SimOptions(containers=True)),
    # A backlog behind a limit: work held back (`Simulation.hold`) keeps no node reporting.
    "fair-running-limit": (lambda: _spread(40, pools=True, gap=2.0),
                           lambda: Fair(pools=[Pool("p0", mode="fifo", max_running=2), Pool("p2", max_running=1)]),
                           None),
    "fair-running-limit-k": (lambda: _spread(40, pools=True, gap=2.0),
                             lambda: Fair(pools=[Pool("p0", mode="fifo", max_running=2)], k=2), None),
    "fresh-static": (lambda: _spread(40, gap=2.0), lambda: Fresh(k=2, dynamic=False), None),
    "fresh-dynamic": (lambda: _spread(40, gap=2.0), lambda: Fresh(k=3), SimOptions(containers=True)),
}


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("heartbeat", [3.0, 0.7])
def test_lazy_wake_ups_give_the_attempts_of_waking_every_node(name, heartbeat):
    """12 nodes in 3 racks, jobs arriving every 23 s: the same attempts (every field, in the
    same order) as the reference, in no more reports."""
    jobs, scheduler, options = CASES[name]
    cluster = Cluster(nodes=12, racks=3, map_slots=2, reduce_slots=2, heartbeat=heartbeat)
    reference, reference_reports = _run(WakeEveryNode, jobs(), cluster, scheduler(), options)
    lazy, reports = _run(Counted, jobs(), cluster, scheduler(), options)
    assert lazy.attempts == reference.attempts
    assert reports <= reference_reports


def test_a_day_slice_makes_far_fewer_reports():
    """The FB-2010 trace's first 300 s (77 jobs) on 150 nodes, fair sharing with delay
    scheduling: identical attempts, and at least a third fewer reports (most woken nodes found
    the new work already taken)."""
    from pathlib import Path

    workload = read_swim(Path(__file__).parent / "data" / "FB-2010_samples_24_times_1hr_0_first300s.tsv")
    cluster = Cluster(nodes=150, racks=5)
    reference, reference_reports = _run(WakeEveryNode, workload, cluster, Fair(delay=(15, 15)), None)
    lazy, reports = _run(Counted, workload, cluster, Fair(delay=(15, 15)), None)
    assert lazy.attempts == reference.attempts
    assert reports < 2 / 3 * reference_reports


@pytest.mark.parametrize("name", ["fair-running-limit", "fresh-static"])
def test_a_backlog_behind_a_limit_keeps_no_node_reporting(name):
    """40 jobs arriving every 2 s behind a running-job limit (FIFO pools of at most 2 and 1
    running jobs) or FRESH-static's admission limit (k = 2): the jobs waiting keep no node
    reporting (their tasks are held back, `Simulation.hold`), so at most half the reference's
    reports (measured: 28% and 36%), for the same attempts."""
    jobs, scheduler, options = CASES[name]
    cluster = Cluster(nodes=12, racks=3, map_slots=2, reduce_slots=2, heartbeat=3.0)
    reference, reference_reports = _run(WakeEveryNode, jobs(), cluster, scheduler(), options)
    lazy, reports = _run(Counted, jobs(), cluster, scheduler(), options)
    assert lazy.attempts == reference.attempts
    assert reports <= reference_reports / 2


def test_ticks_are_counted_not_accumulated():
    """2 nodes, 1 map slot each, heartbeat 0.7 s (node 0 reports at 0.7 k, node 1 at 0.35 + 0.7 k),
    one replica per block (seed 0: both blocks on node 1). a (1000 s) runs on node 1 from 0.35; b
    arrives at 1, node 0 keeps declining it for delay scheduling's 300 s and runs it rack-local at
    its first report after that: tick 431, 301.7 s, computed as 431 x 0.7 (adding 0.7 to itself
    431 times drifts in the last digits)."""
    from models import Job

    cluster = Cluster(nodes=2, racks=1, map_slots=1, reduce_slots=1, heartbeat=0.7, replication=1)
    result = simulate([Job("a", 1, 0, 1000.0), Job("b", 1, 0, 1.0, submit=1.0)], cluster, Fair(delay=(300, 300)))
    b = next(task for task in result.tasks if task["job"] == "b")
    assert (b["node"], b["locality"]) == (0, "rack")
    assert b["start"] == 431 * 0.7
