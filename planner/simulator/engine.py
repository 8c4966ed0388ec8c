"""The event kernel: a clock and a heap of (time, order, a, b) entries.

``order`` folds the priority and a sequence number into one integer,
``priority * 2**44 + sequence``: at equal times lower priorities run first and,
within a priority, events run in the order they were scheduled. Ties are
therefore deterministic and a heap entry never compares past its second field.
``b`` says what the event is: an end of the attempt number ``b`` on slot ``a``
when ``b >= 0``, otherwise one of the negative kinds below with ``a`` its
argument. The kernel knows nothing about clusters or jobs.
"""

from __future__ import annotations

import heapq

# Priorities at equal times: state changes first, then decisions on the new state.
FINISH = 0  # a task ends
ARRIVE = 1  # a job is submitted
WAKE = 2  # a scheduler asked to look again (preemption timeouts, locality waits)
DISPATCH = 3  # a heartbeat offers a node's free slots

# Event kinds other than an attempt's end (the ``b`` field).
ARRIVAL = -1
HEARTBEAT = -2
WAKE_UP = -3
ENDS = -4  # a batch of attempt ends at one time; ``a`` numbers the batch

_SHIFT = 1 << 44


class EventQueue:
    """A clock and a heap of events. `pop` advances the clock."""

    __slots__ = ("heap", "now", "sequence")

    def __init__(self) -> None:
        self.heap: list[tuple[float, int, int, int]] = []
        self.sequence = 0
        self.now = 0.0

    def __len__(self) -> int:
        return len(self.heap)

    def push(self, time: float, priority: int, a: int, b: int) -> None:
        if time < self.now:
            raise RuntimeError(f"event scheduled in the past: {time} < {self.now}")
        self.sequence += 1
        heapq.heappush(self.heap, (time, priority * _SHIFT + self.sequence, a, b))

    def pop(self) -> tuple[float, int, int]:
        time, _, a, b = heapq.heappop(self.heap)
        self.now = time
        return time, a, b

