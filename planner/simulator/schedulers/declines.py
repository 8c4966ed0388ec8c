"""Knowing when a node's map slot would be declined again, without asking every job again.

With delay scheduling and a heartbeat, a node with a free map slot reports every period while
jobs wait for their local slots, and each report asks every waiting job, which declines (on the
FB-2010 day about four reports in five). A decision whose every job declines changes nothing
unless it also (a) starts a job's wait (a job with maps pending and no wait running: it was
just submitted or has just launched), (b) raises a job's locality level (its wait passed a
threshold), or (c) asks for a wake-up earlier than the one pending. And it declines again as
long as no job gained a map this node could run: a job arrived (or may run now, under a
running-job limit) with blocks on the node, a map of a job was evicted, or a job's level rose
(to rack-local: on the racks holding its blocks; off-rack: everywhere). The memo counts those
events per node, per rack and for all nodes.

`DeclineMemo` keeps what that takes: the jobs with maps pending and no wait running, and each
waiting job's next threshold in a heap. A node whose map decision was declined is declined
again at once while none of its counts moved, no job's wait is to start, the clock is before
every threshold and a wake-up is already due by the first of them: that decision would have
asked every job, been declined by each, and changed nothing.

The simulation goes one step further: such a node stops reporting (`Simulation._heartbeat`), and the memo
wakes it when one of its counts moves (the nodes holding a new job's blocks, the racks of a job
raised to rack-local, every node for an eviction or an off-rack level), when a job's wait is to
start (the first such node to tick), and at every wake-up (`Simulation` wakes the first such
node: a wait may be over, or the wake-up must be asked for again).

Schedulers use it where a decision asks every job until one accepts and nothing but the above
can make a job accept (`Fair` without caps on running tasks and without ``k``).
"""

from __future__ import annotations

import heapq
import math
from typing import TYPE_CHECKING

from librt.vecs import vec
from mypy_extensions import i64

from planner.simulator.jobs import OFF_RACK, PENDING, JobRun

if TYPE_CHECKING:
    from planner.simulator.core import Simulation
    from planner.simulator.locality import DelayScheduling


class DeclineMemo:
    """The state that tells a repeated decline (see the module)."""

    __slots__ = ("declined_epoch", "declined_node", "declined_rack", "delay", "epoch", "node_epoch", "rack_epoch",
                 "rack_of", "sequence", "sim", "thresholds", "unscanned")

    def __init__(self, sim: Simulation, delay: DelayScheduling) -> None:
        self.sim = sim
        self.delay = delay
        self.epoch = 0  # bumped when a job may have gained a map any node could run
        self.node_epoch = vec[i64]([0] * sim.layout.nodes)  # ... a map this node could run
        self.rack_epoch = vec[i64]([0] * sim.layout.racks)  # ... a map any node of this rack could run
        self.rack_of = sim.layout.rack_of
        self.sequence = 0
        self.unscanned: dict[int, JobRun] = {}  # jobs that may have maps pending and no wait running
        self.thresholds: list[tuple[float, int, float, int, JobRun]] = []  # (when, order, since, level, job)
        # Per node, its counts (`_counts`) at its last decline, in typed columns (-1: never declined;
        # compared natively at most reports).
        self.declined_epoch = vec[i64]([-1] * sim.layout.nodes)
        self.declined_rack = vec[i64]([-1] * sim.layout.nodes)
        self.declined_node = vec[i64]([-1] * sim.layout.nodes)

    # -- what `Scheduler.take` reports -------------------------------------------------------
    def arrived(self, job: JobRun) -> None:
        """``job`` was submitted, or may run now: it may launch on the nodes with its blocks (and
        its wait is to start)."""
        nodes = job.block_nodes()
        for node in nodes:
            self.node_epoch[node] = self.node_epoch[node] + 1
        self.unscanned[job.index] = job
        self.sim.wake_declined(nodes)
        self.sim.wake_first_declined()  # its wait is to start at the first report that asks it

    def evicted(self) -> None:
        """A map is pending again: any node may now run it (its job's level may be anything)."""
        self.epoch += 1
        self.sim.wake_declined(None)

    def launched(self, job: JobRun) -> None:
        """``job`` launched a map: its wait stops (`DelayScheduling.launched`)."""
        if job.pending_maps > 1:  # this launch takes one
            self.unscanned[job.index] = job
            self.sim.wake_first_declined()

    def escalated(self, job: JobRun) -> None:
        """``job``'s level rose (`DelayScheduling.allowed`): to rack-local, the racks with its
        blocks may now run its maps; off-rack, every node."""
        if job.level >= OFF_RACK:
            self.epoch += 1
            self.sim.wake_declined(None)
        else:
            # Only racks holding a block of a pending map: elsewhere the job still declines.
            state, flat, copies, rack_of = job.map_state, job.replica_nodes, job.copies, self.rack_of
            held: set[int] = set()
            for task in range(job.maps):
                if state[task] == PENDING:
                    for at in range(task * copies, (task + 1) * copies):
                        held.add(rack_of[flat[at]])
            racks = sorted(held)
            for rack in racks:
                self.rack_epoch[rack] = self.rack_epoch[rack] + 1
            self.sim.wake_declined_racks(racks)
        self._track(job)

    def skipped(self, job: JobRun, started: bool) -> None:
        """``job`` declined; ``started``: its wait started now."""
        if started:
            self.unscanned.pop(job.index, None)
            self._track(job)

    def _track(self, job: JobRun) -> None:
        since = job.wait_since
        if since is None or job.level >= OFF_RACK:
            return
        self.sequence += 1
        heapq.heappush(self.thresholds, (self.delay.wait_ends(job), self.sequence, since, job.level, job))

    # -- the decision ------------------------------------------------------------------------
    def declines_again(self, node: int, now: float) -> bool:
        """Would a map decision for ``node`` now be declined by every job, changing nothing?"""
        if (self.declined_epoch[node] != self.epoch or self.declined_node[node] != self.node_epoch[node]
                or self.declined_rack[node] != self.rack_epoch[self.rack_of[node]]):
            return False  # its counts moved since its last decline (or it never was): `_counts`, inlined
        if self.unscanned:
            for index, job in list(self.unscanned.items()):
                if job.wait_since is None and job.pending_maps and job.finish is None:
                    return False
                del self.unscanned[index]
        first = self._first_threshold()
        return now < first and self.sim.wake_at <= first

    def declined_now(self, node: int) -> None:
        epoch, rack, own = self._counts(node)
        self.declined_epoch[node] = epoch
        self.declined_rack[node] = rack
        self.declined_node[node] = own

    def _counts(self, node: int) -> tuple[int, int, int]:
        """What could make a job accept ``node``, counted for all nodes, its rack and itself."""
        return self.epoch, self.rack_epoch[self.rack_of[node]], self.node_epoch[node]

    def _first_threshold(self) -> float:
        heap = self.thresholds
        while heap:
            _, _, since, level, job = heap[0]
            if job.wait_since == since and job.level == level and job.finish is None:
                return heap[0][0]
            heapq.heappop(heap)
        return math.inf
