"""When free slots are offered: heartbeats, or (heartbeat 0) once per instant.

A class of `Simulation`'s chain (`planner.simulator.state` declares the state), kept
apart because it is the one part that differs between the two modes of offering slots.
"""

from __future__ import annotations

import math

from mypy_extensions import mypyc_attr

from models.errors import PlannerError
from planner.simulator.ends import Ends
from planner.simulator.layout import ANY, MAP, REDUCE


class SimulationStalled(PlannerError):
    """Work is pending that no scheduler decision can ever launch."""


@mypyc_attr(allow_interpreted_subclasses=True)  # as Simulation, which tests subclass
class Offers(Ends):
    """Offering free slots to the scheduler (see `Simulation` for the state it uses).

    With a heartbeat, node n reports at heartbeat * (n / nodes + k) for whole k. A node
    reports while it has a free slot and work pending for it; otherwise it sleeps, flagged
    in ``asleep[kind]`` for each kind of free slot it has, until a slot of it frees with
    work pending or work of such a kind appears. When work appears Hadoop's sleeping
    nodes would all report at their next ticks; most find the work gone (a job's five
    reduces go to the first five). So only the sleeping node whose tick comes first is
    woken, and when it has reported, while work of that kind is pending, the next one: every
    report that happens is one the full wake-up would make, in the same order, and the
    ones left out would have found nothing to launch.

    With delay scheduling a node whose map slot every job declines keeps reporting in
    Hadoop. When the scheduler can tell that its reports would be declined, changing
    nothing (`schedulers.declines.DeclineMemo`), the node sleeps in ``declined_asleep``
    instead, until the memo wakes it: a job that may now run on it (an arrival with blocks
    there, a level raised for its rack or for all, a map evicted), a job whose wait is to
    start (the first such node to tick asks every job, as its report would have), or a
    wake-up (a wait may be over).
    """

    def _work_appeared(self, kind: int | None = None) -> None:
        """Work of ``kind`` (None: any kind, or a decision that may change) appeared."""
        if self.heartbeat == 0:
            self.reoffer = True
            self.dispatch_due = True
            return
        self._wake_next(kind, True)

    def _wake_next(self, kind: int | None, appeared: bool = False) -> None:
        """Wake the first sleeping node with a free slot for pending work of ``kind``, unless a
        node woken for it reports first. Without ``appeared`` (after a report) a node woken for
        it is enough: while work stays pending no node falls asleep under that kind."""
        pending = self.pending
        counts = self.asleep_count
        chain = self.chain
        now = self.events.now
        for group in (MAP, REDUCE, ANY) if kind is None else (kind, ANY):
            if counts[group] and (pending[group] if group != ANY else pending[0] or pending[1]):
                if chain[group] >= 0 and not appeared:
                    continue
                node, ticks, tick = self._first_asleep(self.asleep[group], now)
                if chain[group] >= 0 and self.chain_tick[group] <= tick:
                    continue
                self._schedule_heartbeat(node, now, ticks)
                chain[group] = node
                self.chain_tick[group] = tick

    def _first_asleep(self, flags: bytearray, now: float) -> tuple[int, int, float]:
        """The flagged node whose next tick comes first after ``now`` (node, tick number, time):
        nodes tick in order of their number, from the one whose offset is the phase of ``now``.
        Three candidates from just before that one, so that a rounding error cannot skip it."""
        nodes = self.layout.nodes
        period = self.heartbeat
        position = max(int(now % period * nodes / period) - 1, 0)
        best, best_ticks, best_tick = -1, 0, math.inf
        for _ in range(3):
            node = flags.find(1, position)
            if node < 0:
                node = flags.find(1)
            ticks, tick = self._tick_after(node, now)
            if tick < best_tick:
                best, best_ticks, best_tick = node, ticks, tick
            position = node + 1
        return best, best_ticks, best_tick

    def _tick_after(self, node: int, now: float) -> tuple[int, float]:
        """The number and time of ``node``'s first tick at or after ``now``, the time computed
        as every report's is (so a tick a rounding error before ``now`` has passed)."""
        events = self.events  # (a bound method in a local would be a Python call when compiled)
        ticks = max(math.ceil((now - events.tick_time(node, 0)) / self.heartbeat), 0)
        while ticks > 0 and events.tick_time(node, ticks - 1) >= now:
            ticks -= 1
        while events.tick_time(node, ticks) < now:
            ticks += 1
        return ticks, events.tick_time(node, ticks)

    def _schedule_heartbeat(self, node: int, now: float, ticks: int = -1) -> None:
        """Wake ``node`` at its next tick (its number when the caller has it)."""
        if ticks < 0:
            ticks = self._tick_after(node, now)[0]
        self.awake[node] = 1
        self.node_tick[node] = ticks
        for kind, flags in enumerate(self.asleep):
            if flags[node]:
                flags[node] = 0
                self.asleep_count[kind] = self.asleep_count[kind] - 1
        if self.declined_asleep[node]:
            self.declined_asleep[node] = 0
            self.declined_count -= 1
        self.events.push_tick(node, ticks)

    def _next_heartbeat(self, node: int) -> None:
        """Keep ``node`` reporting: its next tick, computed from the tick's number (a time
        accumulated by adding the period drifts from the one a wake-up computes)."""
        ticks = self.node_tick[node] + 1
        self.node_tick[node] = ticks
        self.awake[node] = 1
        self.events.push_tick(node, ticks)

    def _slot_freed(self, node: int, kind: int, now: float) -> None:
        """A slot of ``kind`` freed on ``node``, which has no report due: one now if work of
        that kind is pending, else the node sleeps under it."""
        pending = self.pending
        if not (pending[kind] if kind != ANY else pending[0] or pending[1]):
            self._sleep(node, kind)
        elif kind == MAP and not self.asleep[MAP][node] and self._declines_again(node, now):
            # Its report would be declined, changing nothing (`_heartbeat`): it sleeps as declined
            # now, and the memo wakes it when that may change. (A node asleep under MAP is left to
            # report: the next wake-up for pending maps may be its.)
            self._sleep_declined(node)
        else:
            self._schedule_heartbeat(node, now)

    def _sleep(self, node: int, kind: int) -> None:
        flags = self.asleep[kind]
        if not flags[node]:
            flags[node] = 1
            self.asleep_count[kind] = self.asleep_count[kind] + 1

    def _declines_again(self, node: int, now: float) -> bool:
        """Would a report of ``node`` now be declined by every job, changing nothing (the
        scheduler's memo), with no reduce for it to launch either?"""
        memo = self.scheduler.memo
        return memo is not None and not (self.node_free[node][REDUCE] and self.pending[REDUCE]) and (
            memo.declines_again(node, now))

    def _sleep_declined(self, node: int) -> None:
        """``node`` sleeps until the memo wakes it (`wake_declined`)."""
        if not self.declined_asleep[node]:
            self.declined_asleep[node] = 1
            self.declined_count += 1

    def _heartbeat(self, node: int, now: float) -> None:
        """The node reports: offer its free slots, then report again next tick or sleep."""
        self.awake[node] = 0
        chain = self.chain
        if node in chain:
            for group in (MAP, REDUCE, ANY):
                if chain[group] == node:
                    chain[group] = -1
        free = self.node_free[node]
        multiple = self.options.assign_multiple
        pending = self.pending
        declined = False
        for kind in self.kinds_present:
            slots = free[kind]
            while slots and (pending[kind] if kind != ANY else pending[0] or pending[1]):
                if not self._offer(slots[-1], node, kind, now):
                    declined = kind == MAP
                    break
                if not multiple:
                    break
        waiting = False  # a free slot with work pending for it (a loop: cheaper than any())
        for kind in self.kinds_present:
            if free[kind] and (pending[kind] if kind != ANY else pending[0] or pending[1]):
                waiting = True
                break
        if waiting:
            if declined and self._declines_again(node, now):
                # Its reports would be declined, changing nothing, until a change wakes it.
                self._sleep_declined(node)
                if free[REDUCE]:
                    self._sleep(node, REDUCE)
            else:
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
            self._wake_next(None)  # the next node the full wake-up would have reached, if none is due

    # -- used by schedulers: nodes whose map slot delay scheduling declines (`schedulers.declines`)
    def wake_declined(self, nodes: list[int] | None) -> None:
        """Wake these declined nodes (None: all) at their next ticks."""
        if not self.declined_count:
            return
        flags = self.declined_asleep
        now = self.events.now
        if nodes is None:
            nodes = [node for node in range(len(flags)) if flags[node]]
        for node in nodes:
            if flags[node]:
                self._schedule_heartbeat(node, now)

    def wake_declined_racks(self, racks: list[int]) -> None:
        """Wake the declined nodes of these racks."""
        if not self.declined_count:
            return
        layout = self.layout
        bounds = [*layout.rack_start.tolist(), layout.nodes]
        self.wake_declined([node for rack in racks for node in range(bounds[rack], bounds[rack + 1])])

    def wake_first_declined(self) -> None:
        """Wake the declined node whose tick comes first: its report asks every job again."""
        if self.declined_count:
            now = self.events.now
            node, ticks, _ = self._first_asleep(self.declined_asleep, now)
            self._schedule_heartbeat(node, now, ticks)

    def _dispatch(self, now: float) -> None:
        """Heartbeat 0: offer the slots freed in this instant (all idle ones if work appeared)."""
        self.dispatch_due = False
        fresh = self.fresh
        if len(fresh) == 1 and not self.reoffer:
            # The common case of a busy cluster: one slot freed, offer it alone.
            slot = fresh.pop()
            kind = self.slot_kind[slot]
            if not (self.pending[kind] if kind != ANY else self.pending[0] or self.pending[1]) or not self._offer(
                slot, self.slot_node[slot], kind, now
            ):
                self.idle[slot] = 1
            return
        if self.reoffer:
            # Every idle slot and the fresh ones, in order: one pass over the flags (a slot is both
            # at most by its flag).
            self.reoffer = False
            flags = self.idle
            for slot in self.fresh:
                flags[slot] = 1
            candidates: list[int] = []
            for slot in range(len(flags)):
                if flags[slot]:
                    flags[slot] = 0
                    candidates.append(slot)
        else:
            candidates = self.fresh
            if len(candidates) > 1:
                candidates.sort()
        self.fresh = []
        slot_kind = self.slot_kind
        slot_node = self.slot_node
        pending = self.pending
        idle = self.idle
        for slot in candidates:  # self._offer, not a local alias: compiled, that is a Python call
            kind = slot_kind[slot]
            if not (pending[kind] if kind != ANY else pending[0] or pending[1]) or not self._offer(
                slot, slot_node[slot], kind, now
            ):
                idle[slot] = 1

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
