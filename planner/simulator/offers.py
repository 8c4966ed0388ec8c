"""When free slots are offered: heartbeats, or (heartbeat 0) once per instant.

A mixin of `Simulation`, kept apart because it is the one part that differs
between the two modes of offering slots.
"""

from __future__ import annotations

import math

from models.errors import PlannerError
from planner.simulator.engine import DISPATCH, HEARTBEAT
from planner.simulator.layout import ANY, MAP, REDUCE


class SimulationStalled(PlannerError):
    """Work is pending that no scheduler decision can ever launch."""


class Offers:
    """Offering free slots to the scheduler (see `Simulation` for the state it uses).

    With a heartbeat, node n reports at heartbeat * (n / nodes + k) for whole k. A node
    reports while it has a free slot and work pending for it; otherwise it sleeps, flagged
    in ``asleep[kind]`` for each kind of free slot it has, until a slot of it frees with
    work pending or work of such a kind appears. When work appears Hadoop's sleeping
    nodes would all report at their next ticks; most find the work gone (a job's five
    reduces go to the first five). So only the sleeping node whose tick comes first is
    woken, and after each report, while work of a kind is pending, the next one: every
    report that happens is one the full wake-up would make, in the same order, and the
    ones left out would have found nothing to launch.
    """

    def _work_appeared(self, kind: int | None = None) -> None:
        """Work of ``kind`` (None: any kind, or a decision that may change) appeared."""
        if self.heartbeat == 0:
            self.reoffer = True
            self.dispatch_due = True
            return
        self._wake_next(kind)

    def _wake_next(self, kind: int | None) -> None:
        """Wake the first sleeping node with a free slot for pending work of ``kind``."""
        pending = self.pending
        counts = self.asleep_count
        now = self.events.now
        for group in (MAP, REDUCE, ANY) if kind is None else (kind, ANY):
            if counts[group] and (pending[group] if group != ANY else pending[0] or pending[1]):
                self._schedule_heartbeat(self._first_asleep(self.asleep[group], now), now)

    def _first_asleep(self, flags: bytearray, now: float) -> int:
        """The flagged node whose next tick comes first after ``now``: nodes tick in order
        of their number, from the one whose offset is the phase of ``now``. Three
        candidates from just before that one, so that a rounding error cannot skip it."""
        nodes = self.layout.nodes
        period = self.heartbeat
        position = max(int(now % period * nodes / period) - 1, 0)
        best, best_tick = -1, math.inf
        for _ in range(3):
            node = flags.find(1, position)
            if node < 0:
                node = flags.find(1)
            tick = self._tick_after(node, now)[1]
            if tick < best_tick:
                best, best_tick = node, tick
            position = node + 1
        return best

    def _tick_after(self, node: int, now: float) -> tuple[int, float]:
        """The number and time of ``node``'s first tick at or after ``now``, the time computed
        as every report's is (so a tick a rounding error before ``now`` has passed)."""
        period = self.heartbeat
        offset = period * node / self.layout.nodes
        ticks = max(math.ceil((now - offset) / period), 0)
        while ticks > 0 and offset + (ticks - 1) * period >= now:
            ticks -= 1
        while offset + ticks * period < now:
            ticks += 1
        return ticks, offset + ticks * period

    def _schedule_heartbeat(self, node: int, now: float) -> None:
        """Wake ``node`` at its next tick."""
        ticks, tick = self._tick_after(node, now)
        self.awake[node] = 1
        self.node_tick[node] = ticks
        for kind, flags in enumerate(self.asleep):
            if flags[node]:
                flags[node] = 0
                self.asleep_count[kind] -= 1
        self.events.push(tick, DISPATCH, node, HEARTBEAT)

    def _next_heartbeat(self, node: int) -> None:
        """Keep ``node`` reporting: its next tick, computed from the tick's number (a time
        accumulated by adding the period drifts from the one a wake-up computes)."""
        period = self.heartbeat
        ticks = self.node_tick[node] + 1
        self.node_tick[node] = ticks
        self.awake[node] = 1
        self.events.push(period * node / self.layout.nodes + ticks * period, DISPATCH, node, HEARTBEAT)

    def _slot_freed(self, node: int, kind: int, now: float) -> None:
        """A slot of ``kind`` freed on ``node``, which has no report due: one now if work of
        that kind is pending, else the node sleeps under it."""
        pending = self.pending
        if pending[kind] if kind != ANY else pending[0] or pending[1]:
            self._schedule_heartbeat(node, now)
        else:
            self._sleep(node, kind)

    def _sleep(self, node: int, kind: int) -> None:
        flags = self.asleep[kind]
        if not flags[node]:
            flags[node] = 1
            self.asleep_count[kind] += 1

    def _heartbeat(self, node: int, now: float) -> None:
        """The node reports: offer its free slots, then report again next tick or sleep."""
        self.awake[node] = 0
        free = self.node_free[node]
        multiple = self.options.assign_multiple
        pending = self.pending
        for kind in self.kinds_present:
            slots = free[kind]
            while slots and (pending[kind] if kind != ANY else pending[0] or pending[1]):
                if not self._offer(slots[-1], node, kind, now) or not multiple:
                    break
        if any(free[kind] and (pending[kind] if kind != ANY else pending[0] or pending[1])
               for kind in self.kinds_present):
            self._next_heartbeat(node)
            if self.running_total == 0 and len(self.jobs) == len(self.workload):
                self._check_stall(now)
        else:
            for kind in self.kinds_present:
                if free[kind]:
                    self._sleep(node, kind)
        counts = self.asleep_count
        if (counts[MAP] and pending[MAP]) or (counts[REDUCE] and pending[REDUCE]) or (
            counts[ANY] and (pending[0] or pending[1])
        ):
            self._wake_next(None)  # the next node the full wake-up would have reached

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
