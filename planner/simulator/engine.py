"""The event kernel: a clock and a heap of (time, priority, sequence, event).

The sequence number makes ties deterministic: two events at the same time and
priority run in the order they were scheduled. The kernel knows nothing about
clusters or jobs; the simulation owns one and dispatches what it pops.
"""

from __future__ import annotations

import heapq
from typing import Any

# Priorities at equal times: state changes first, then decisions on the new state.
FINISH = 0  # a task ends (or a reducer's copy phase ends)
ARRIVE = 1  # a job is submitted
WAKE = 2  # a scheduler asked to look again (preemption timeouts, locality waits)
DISPATCH = 3  # offer free slots (a heartbeat, or heartbeat-0 dispatch)


class EventQueue:
    """A clock and a heap of events; `pop` advances the clock."""

    __slots__ = ("_heap", "_sequence", "now")

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, int, Any]] = []
        self._sequence = 0
        self.now = 0.0

    def __len__(self) -> int:
        return len(self._heap)

    def schedule(self, time: float, priority: int, event: Any) -> None:
        if time < self.now:
            raise RuntimeError(f"event scheduled in the past: {time} < {self.now}")
        self._sequence += 1
        heapq.heappush(self._heap, (time, priority, self._sequence, event))

    def pop(self) -> tuple[float, int, Any]:
        time, priority, _, event = heapq.heappop(self._heap)
        self.now = time
        return time, priority, event

    def peek_time(self) -> float | None:
        return self._heap[0][0] if self._heap else None
