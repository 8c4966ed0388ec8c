"""The event kernel: a clock and a heap of `Event` entries (time, order, a, b).

``order`` folds the priority and a sequence number into one integer,
``priority * 2**44 + sequence``: at equal times lower priorities run first and,
within a priority, events run in the order they were scheduled. Ties are
therefore deterministic and a heap entry never compares past its second field.
``b`` says what the event is: an end of the attempt number ``b`` on slot ``a``
when ``b >= 0``, otherwise one of the negative kinds below with ``a`` its
argument. The kernel knows nothing about clusters or jobs.

Periodic reports (heartbeats) keep a heap of their own: the ``phases`` reporters of a
``period`` report at ``period * phase / phases + tick * period``, so a report is the one
integer ``tick * phases + phase``, and the reports' order is the integers' (reporters are
``period / phases`` apart, far more than a float's rounding). They run last at equal times, as
they did at the lowest priority when they shared the main heap: the same order, and an integer
is cheaper to compare than a tuple (nine events in ten are heartbeats on a production day).

The event heap is sifted here, not by `heapq`, on `Event` objects: compiled (`compiled.txt`), a
comparison reads two native floats (and, at a tie, two native integers), where `heapq` compares
tuples through Python's generic comparison, a few hundred instructions each, about ten per
pop (a fifth of a task's cost in the throughput runs).
"""

from __future__ import annotations

import heapq
import math
from typing import Final

# Priorities at equal times: state changes first, then decisions on the new state (and
# after all of them the heartbeats, which offer a node's free slots).
FINISH: Final = 0  # a task ends
ARRIVE: Final = 1  # a job is submitted
WAKE: Final = 2  # a scheduler asked to look again (preemption timeouts, locality waits)

# Event kinds other than an attempt's end (the ``b`` field).
ARRIVAL: Final = -1
WAKE_UP: Final = -3
ENDS: Final = -4  # a batch of attempt ends at one time; ``a`` numbers the batch

_SHIFT: Final = 1 << 44


class Event:
    """One entry of the event heap: ``time``, then ``order`` (priority and sequence), then what
    it is (``a``, ``b``: see the module docstring)."""

    __slots__ = ("a", "b", "order", "time")

    def __init__(self, time: float, order: int, a: int, b: int) -> None:
        self.time = time
        self.order = order
        self.a = a
        self.b = b

    def __repr__(self) -> str:
        return f"Event({self.time!r}, {self.order!r}, {self.a!r}, {self.b!r})"


class EventQueue:
    """A clock, a heap of events and a heap of periodic reports. `pop` and `pop_tick` advance
    the clock; the caller takes a report when `tick_next` comes before the heap's first event."""

    __slots__ = ("heap", "now", "period", "phases", "sequence", "tick_next", "ticks")

    def __init__(self, period: float = 0.0, phases: int = 1) -> None:
        self.heap: list[Event] = []  # a binary heap by (time, order)
        self.sequence = 0
        self.now = 0.0
        self.period = period
        self.phases = phases
        self.ticks: list[int] = []  # heap of reports, ``tick * phases + phase``
        self.tick_next = math.inf  # the first report's time

    def __len__(self) -> int:
        return len(self.heap) + len(self.ticks)

    def tick_time(self, phase: int, tick: int) -> float:
        """When reporter ``phase`` makes its report number ``tick``."""
        return self.period * phase / self.phases + tick * self.period

    def push_tick(self, phase: int, tick: int) -> None:
        """Reporter ``phase`` reports at its tick number ``tick`` (after every other event then)."""
        time = self.tick_time(phase, tick)
        if time < self.now:
            raise RuntimeError(f"event scheduled in the past: {time} < {self.now}")
        key = tick * self.phases + phase
        heapq.heappush(self.ticks, key)
        if time < self.tick_next:
            self.tick_next = time

    def pop_tick(self) -> int:
        """The first report's reporter; the clock moves to its time."""
        ticks = self.ticks
        phase = heapq.heappop(ticks) % self.phases
        self.now = self.tick_next
        if ticks:
            key = ticks[0]
            self.tick_next = self.tick_time(key % self.phases, key // self.phases)
        else:
            self.tick_next = math.inf
        return phase

    def more_at(self, now: float) -> bool:
        """Is another event or report due at ``now``?"""
        heap = self.heap
        return (bool(heap) and heap[0].time == now) or self.tick_next == now

    def push(self, time: float, priority: int, a: int, b: int) -> None:
        if time < self.now:
            raise RuntimeError(f"event scheduled in the past: {time} < {self.now}")
        self.sequence += 1
        _heap_push(self.heap, Event(time, priority * _SHIFT + self.sequence, a, b))

    def push_end(self, time: float, slot: int, attempt: int) -> None:
        """The end of attempt number ``attempt`` on ``slot`` at ``time`` (priority FINISH; the
        caller guarantees ``time`` is not in the past: an attempt ends after it starts)."""
        self.sequence += 1
        _heap_push(self.heap, Event(time, self.sequence, slot, attempt))

    def pop(self) -> Event:
        """The first event; the clock moves to its time."""
        heap = self.heap
        last = heap.pop()
        if heap:
            first = heap[0]
            _heap_refill(heap, last)
        else:
            first = last
        self.now = first.time
        return first


def _heap_push(heap: list[Event], item: Event) -> None:
    """Add ``item`` to ``heap``."""
    heap.append(item)
    _rise(heap, item, len(heap) - 1)


def _heap_refill(heap: list[Event], item: Event) -> None:
    """Put ``item`` (the heap's last entry, just removed) in place of the first: the lesser child
    moves up each level down to a leaf, then ``item`` rises from there (as `heapq` does: fewer
    comparisons than stopping early, since the last entry mostly belongs near the bottom)."""
    end = len(heap)
    position = 0
    child = 1
    while child < end:
        right = child + 1
        if right < end:
            left_entry, right_entry = heap[child], heap[right]
            if right_entry.time < left_entry.time or (
                    right_entry.time == left_entry.time and right_entry.order < left_entry.order):
                child = right
        heap[position] = heap[child]
        position = child
        child = 2 * position + 1
    _rise(heap, item, position)


def _rise(heap: list[Event], item: Event, position: int) -> None:
    """Place ``item`` at ``position`` or above it, past the parents that come after it."""
    time, order = item.time, item.order
    while position > 0:
        parent_position = (position - 1) >> 1
        parent = heap[parent_position]
        if time < parent.time or (time == parent.time and order < parent.order):
            heap[position] = parent
            position = parent_position
        else:
            break
    heap[position] = item
