"""The event kernel: a clock and a heap of events (time, order, subject, tag).

``order`` folds the priority and a sequence number into one integer,
``priority * 2**44 + sequence``: at equal times lower priorities run first and,
within a priority, events run in the order they were scheduled. Ties are
therefore deterministic and a heap entry never compares past its second field.
``tag`` says what the event is: an end of the attempt number ``tag`` on slot
``subject`` when ``tag >= 0``, otherwise one of the negative kinds of `EventKind`
with ``subject`` its argument. The kernel knows nothing about clusters or jobs.

Periodic reports (heartbeats) keep a heap of their own: the ``phases`` reporters of a
``period`` report at ``period * phase / phases + tick * period``, so a report is the one
integer ``tick * phases + phase``, and the reports' order is the integers' (reporters are
``period / phases`` apart, far more than a float's rounding). They run last at equal times, as
they did at the lowest priority when they shared the main heap: the same order, and an integer
is cheaper to compare than a tuple (nine events in ten are heartbeats on a production day).

The event heap is an `entry_heap.EntryHeap` of (time, order, subject, tag): four typed columns, sifted
natively, with no object made per event.
"""

from __future__ import annotations

import math
from enum import IntEnum
from typing import Final

from planner.simulator.entry_heap import EntryHeap, IntHeap

# Priorities at equal times: state changes first, then decisions on the new state (and
# after all of them the heartbeats, which offer a node's free slots).
FINISH: Final = 0  # a task ends
ARRIVE: Final = 1  # a job is submitted
WAKE: Final = 2  # a scheduler asked to look again (preemption timeouts, locality waits)


class EventKind(IntEnum):
    """What an event is when it is not an attempt's end (its ``tag``, negative), and what its
    ``subject`` is then."""

    ARRIVAL = -1  # a job is submitted; the subject is its position in the workload
    WAKE_UP = -3  # a scheduler's wake-up (subject 0)
    ENDS = -4  # an end group: attempts ending at one time; the subject numbers the group
    NETWORK = -5  # the network's next completion; the subject is the network's generation
    STAGE = -6  # a job's reduces open after the stage delay; the subject is its position in the workload


# `EventKind`'s values as the compiled loop compares them: mypyc makes an IntEnum member an object
# (a comparison is a Python call) and inlines a Final int (tests/test_scheduler_surface.py checks
# that they agree).
ARRIVAL: Final = -1
WAKE_UP: Final = -3
ENDS: Final = -4
NETWORK: Final = -5
STAGE: Final = -6

_SHIFT: Final = 1 << 44


class EventQueue:
    """A clock, a heap of events and a heap of periodic reports. `pop` and `pop_tick` advance
    the clock; the caller takes a report when `tick_next` comes before the heap's first event
    (`first_time`)."""

    __slots__ = ("heap", "now", "period", "phases", "sequence", "tick_next", "ticks")

    def __init__(self, period: float = 0.0, phases: int = 1) -> None:
        self.heap = EntryHeap()  # events by (time, order): the keys are the times
        self.sequence = 0
        self.now = 0.0
        self.period = period
        self.phases = phases
        self.ticks = IntHeap()  # heap of reports, ``tick * phases + phase``
        self.tick_next = math.inf  # the first report's time

    def __len__(self) -> int:
        return self.heap.size + self.ticks.size

    def first_time(self) -> float:
        """The time of the heap's first event (inf when the heap is empty)."""
        heap = self.heap
        return heap.keys[0] if heap.size else math.inf

    def tick_time(self, phase: int, tick: int) -> float:
        """When reporter ``phase`` makes its report number ``tick``."""
        return self.period * phase / self.phases + tick * self.period

    def push_tick(self, phase: int, tick: int) -> None:
        """Reporter ``phase`` reports at its tick number ``tick`` (after every other event then)."""
        time = self.tick_time(phase, tick)
        if time < self.now:
            raise RuntimeError(f"event scheduled in the past: {time} < {self.now}")
        key = tick * self.phases + phase
        self.ticks.push(key)
        if time < self.tick_next:
            self.tick_next = time

    def pop_tick(self) -> int:
        """The first report's reporter; the clock moves to its time."""
        ticks = self.ticks
        phase = ticks.pop() % self.phases
        self.now = self.tick_next
        if ticks.size:
            key = ticks.items[0]
            self.tick_next = self.tick_time(key % self.phases, key // self.phases)
        else:
            self.tick_next = math.inf
        return phase

    def more_at(self, now: float) -> bool:
        """Is another event or report due at ``now``?"""
        heap = self.heap
        return (heap.size > 0 and heap.keys[0] == now) or self.tick_next == now

    def push(self, time: float, priority: int, subject: int, tag: int) -> None:
        """An event at ``time``: ``tag`` an `EventKind` with its ``subject`` (or, at priority FINISH,
        an attempt number with its slot: `push_end`)."""
        if time < self.now:
            raise RuntimeError(f"event scheduled in the past: {time} < {self.now}")
        self.sequence += 1
        self.heap.push(time, priority * _SHIFT + self.sequence, subject, tag)

    def push_end(self, time: float, slot: int, attempt: int) -> None:
        """The end of attempt number ``attempt`` on ``slot`` at ``time`` (priority FINISH; the
        caller guarantees ``time`` is not in the past: an attempt ends after it starts)."""
        self.sequence += 1
        self.heap.push(time, self.sequence, slot, attempt)

    def pop(self) -> tuple[float, int, int]:
        """The first event as (time, subject, tag); the clock moves to its time."""
        heap = self.heap
        if heap.size == 0:
            raise IndexError("pop from an empty event queue")
        time, subject, tag = heap.keys[0], heap.a_of[0], heap.b_of[0]
        heap.drop_first()
        self.now = time
        return time, subject, tag
