"""The event kernel: a clock and a heap of events (time, order, a, b).

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

The event heap is four parallel columns, one per field (`librt.vecs.vec` of native floats and
64-bit integers), sifted here: compiled (`compiled.txt`), an entry is four machine words, moved
and compared with no object made, counted or freed. (Events as objects cost an allocation
each, and every move of one through the heap a reference count in and out: about a tenth of
a task's instructions in the throughput runs.) The columns only grow; ``size`` says how much
of them is the heap.
"""

from __future__ import annotations

import heapq
import math
from typing import Final

from librt.vecs import append, vec
from mypy_extensions import i64

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


class EventQueue:
    """A clock, a heap of events and a heap of periodic reports. `pop` and `pop_tick` advance
    the clock; the caller takes a report when `tick_next` comes before the heap's first event
    (`first_time`)."""

    __slots__ = ("a_of", "b_of", "now", "orders", "period", "phases", "sequence", "size", "tick_next", "ticks",
                 "times")

    def __init__(self, period: float = 0.0, phases: int = 1) -> None:
        # The heap by (time, order): entry i is (times[i], orders[i], a_of[i], b_of[i]), i < size.
        self.times: vec[float] = vec[float]()
        self.orders: vec[i64] = vec[i64]()
        self.a_of: vec[i64] = vec[i64]()
        self.b_of: vec[i64] = vec[i64]()
        self.size: i64 = 0
        self.sequence: i64 = 0
        self.now = 0.0
        self.period = period
        self.phases = phases
        self.ticks: list[int] = []  # heap of reports, ``tick * phases + phase``
        self.tick_next = math.inf  # the first report's time

    def __len__(self) -> int:
        return self.size + len(self.ticks)

    def first_time(self) -> float:
        """The time of the heap's first event (inf when the heap is empty)."""
        return self.times[0] if self.size else math.inf

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
        return (self.size > 0 and self.times[0] == now) or self.tick_next == now

    def push(self, time: float, priority: int, a: int, b: int) -> None:
        if time < self.now:
            raise RuntimeError(f"event scheduled in the past: {time} < {self.now}")
        self.sequence += 1
        self._insert(time, priority * _SHIFT + self.sequence, a, b)

    def push_end(self, time: float, slot: int, attempt: int) -> None:
        """The end of attempt number ``attempt`` on ``slot`` at ``time`` (priority FINISH; the
        caller guarantees ``time`` is not in the past: an attempt ends after it starts)."""
        self.sequence += 1
        self._insert(time, self.sequence, slot, attempt)

    def _insert(self, time: float, order: i64, a: i64, b: i64) -> None:
        """Add an entry: from a new last place, it rises past the parents that come after it."""
        position = self.size
        if position == len(self.times):  # the columns are full: each grows by one place
            self.times = append(self.times, time)
            self.orders = append(self.orders, order)
            self.a_of = append(self.a_of, a)
            self.b_of = append(self.b_of, b)
        self.size = position + 1
        self._rise(position, time, order, a, b)

    def _rise(self, position: i64, time: float, order: i64, a: i64, b: i64) -> None:
        """Place the entry (time, order, a, b) at ``position`` or above it, past the parents that
        come after it."""
        times, orders, a_of, b_of = self.times, self.orders, self.a_of, self.b_of
        while position > 0:
            parent = (position - 1) >> 1
            parent_time = times[parent]
            if time < parent_time or (time == parent_time and order < orders[parent]):
                times[position] = parent_time
                orders[position] = orders[parent]
                a_of[position] = a_of[parent]
                b_of[position] = b_of[parent]
                position = parent
            else:
                break
        times[position] = time
        orders[position] = order
        a_of[position] = a
        b_of[position] = b

    def pop(self) -> tuple[float, int, int]:
        """The first event as (time, a, b); the clock moves to its time.

        The last entry takes the first's place: the lesser child moves up each level down to a
        leaf, then the entry rises from there (as `heapq` does: fewer comparisons than stopping
        early, since the last entry mostly belongs near the bottom)."""
        if self.size == 0:
            raise IndexError("pop from an empty event queue")
        times, orders, a_of, b_of = self.times, self.orders, self.a_of, self.b_of
        time = times[0]
        a = a_of[0]
        b = b_of[0]
        end = self.size - 1
        self.size = end
        if end > 0:
            last_time, last_order = times[end], orders[end]
            last_a, last_b = a_of[end], b_of[end]
            position: i64 = 0
            child: i64 = 1
            while child < end:
                right = child + 1
                if right < end:
                    left_time, right_time = times[child], times[right]
                    if right_time < left_time or (right_time == left_time and orders[right] < orders[child]):
                        child = right
                times[position] = times[child]
                orders[position] = orders[child]
                a_of[position] = a_of[child]
                b_of[position] = b_of[child]
                position = child
                child = 2 * position + 1
            self._rise(position, last_time, last_order, last_a, last_b)
        self.now = time
        return time, a, b
