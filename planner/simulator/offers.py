"""When free slots are offered: heartbeats, or (heartbeat 0) once per instant.

A mixin of `Simulation`, kept apart because it is the one part that differs
between the two modes of offering slots.
"""

from __future__ import annotations

import math

from models.errors import PlannerError
from planner.simulator.engine import DISPATCH, HEARTBEAT
from planner.simulator.layout import ANY


class SimulationStalled(PlannerError):
    """Work is pending that no scheduler decision can ever launch."""


class Offers:
    """Offering free slots to the scheduler (see `Simulation` for the state it uses)."""

    def _work_appeared(self) -> None:
        if self.heartbeat == 0:
            self.reoffer = True
            self.dispatch_due = True
        elif self.sleeping:
            for node in self.sleeping:
                self._schedule_heartbeat(node, self.events.now)
            self.sleeping.clear()

    def _schedule_heartbeat(self, node: int, now: float) -> None:
        period = self.heartbeat
        offset = period * node / self.layout.nodes
        ticks = max(math.ceil((now - offset) / period - 1e-9), 0)
        self.awake[node] = 1
        # max(): the tick can land a rounding error before now.
        self.events.push(max(offset + ticks * period, now), DISPATCH, node, HEARTBEAT)

    def _heartbeat(self, node: int, now: float) -> None:
        self.awake[node] = 0
        free = self.node_free[node]
        multiple = self.options.assign_multiple
        pending = self.pending
        for kind in self.kinds_present:
            slots = free[kind]
            while slots and (pending[kind] if kind != ANY else pending[0] or pending[1]):
                if not self._offer(slots[-1], node, kind, now) or not multiple:
                    break
        if free[0] or free[1] or free[2]:
            if pending[0] or pending[1]:
                self.awake[node] = 1
                self.events.push(now + self.heartbeat, DISPATCH, node, HEARTBEAT)
                if self.running_total == 0 and len(self.jobs) == len(self.workload):
                    self._check_stall(now)
            else:
                self.sleeping[node] = None

    def _dispatch(self, now: float) -> None:
        """Heartbeat 0: offer the slots freed in this instant (all idle ones if work appeared)."""
        self.dispatch_due = False
        fresh = self.fresh
        if len(fresh) == 1 and not self.reoffer:
            # The common case of a busy cluster: one slot freed, offer it alone.
            slot = fresh.pop()
            kind = self.layout.slot_kind[slot]
            if not (self.pending[kind] if kind != ANY else self.pending[0] or self.pending[1]) or not self._offer(
                slot, self.slot_node[slot], kind, now
            ):
                self.idle[slot] = None
            return
        if self.reoffer:
            self.reoffer = False
            candidates = sorted({*self.fresh, *self.idle})
            self.idle.clear()
        else:
            candidates = self.fresh
            if len(candidates) > 1:
                candidates.sort()
        self.fresh = []
        slot_kind = self.layout.slot_kind
        slot_node = self.layout.slot_node
        pending = self.pending
        idle = self.idle
        offer = self._offer
        for slot in candidates:
            kind = slot_kind[slot]
            if not (pending[kind] if kind != ANY else pending[0] or pending[1]) or not offer(
                slot, slot_node[slot], kind, now
            ):
                idle[slot] = None

    def _check_stall(self, now: float) -> None:
        """Called when a heartbeat found a free slot and pending work but nothing runs.

        Nothing running, every job submitted: only the clock can still change a
        decision (delay scheduling's waits, the heartbeats). So the patience is
        counted from ``last_change``, the last launch, arrival, or end that left
        the cluster idle, never from the last launch alone: an idle gap before a
        late arrival, or one long task ending, is not time the work was refused.
        """
        delay = self.scheduler.delay
        patience = 100 * max(self.heartbeat, 1.0) + (0.0 if delay is None else delay.node_wait + delay.rack_wait)
        if now - self.last_change > patience:
            names = ", ".join(name for name, job in self.active.items() if job.pending(ANY))
            raise SimulationStalled(f"at t={now:g} s no free slot is ever given to the pending work of {names}")
