"""The event kernel: ties between events, and the heap of periodic reports (heartbeats)."""

from __future__ import annotations

import math

import pytest

from planner.simulator.engine import ARRIVE, FINISH, WAKE, EventQueue


def test_equal_times_run_by_priority_then_in_the_order_scheduled():
    """At t = 5 a wake-up (priority 2), two ends (0) and an arrival (1) are scheduled in that
    order: the ends run first in their order, then the arrival, then the wake-up."""
    queue = EventQueue()
    queue.push(5.0, WAKE, 0, -3)
    queue.push(5.0, FINISH, 1, 0)
    queue.push(5.0, FINISH, 2, 0)
    queue.push(5.0, ARRIVE, 3, -1)
    queue.push(4.0, WAKE, 4, -3)
    assert [queue.pop()[1] for _ in range(5)] == [4, 1, 2, 3, 0]
    assert queue.now == 5.0


def test_reports_come_in_order_of_time_from_their_numbers():
    """Period 3 s over 4 reporters: reporter p reports at 3 p / 4 + 3 t. Reporter 2's tick 1 is
    at 1.5 + 3 = 4.5, reporter 3's tick 0 at 2.25, reporter 0's tick 2 at 6: they come 3, 2, 0."""
    queue = EventQueue(3.0, 4)
    queue.push_tick(2, 1)
    queue.push_tick(0, 2)
    assert queue.tick_next == 4.5
    queue.push_tick(3, 0)
    assert queue.tick_next == 2.25
    order = []
    while queue.ticks:
        order.append((queue.pop_tick(), queue.now))
    assert order == [(3, 2.25), (2, 4.5), (0, 6.0)]
    assert queue.tick_next == math.inf
    assert len(queue) == 0


def test_a_report_waits_for_the_other_events_of_its_time():
    """Reporter 1 of 3 (period 3 s) reports at 1 s, when an end is also due: `more_at` says the
    instant holds more, and the run loop takes the heap's event first (a report goes first
    only when it comes strictly earlier)."""
    queue = EventQueue(3.0, 3)
    queue.push_tick(1, 0)
    queue.push(1.0, FINISH, 7, 0)
    assert queue.tick_next == 1.0 == queue.first_time()
    assert not queue.tick_next < queue.first_time()
    assert queue.more_at(1.0) and not queue.more_at(0.5)
    assert queue.pop()[1] == 7
    assert queue.more_at(1.0)  # the report is still due at 1 s
    assert queue.pop_tick() == 1
    assert not queue.more_at(1.0)


def test_nothing_is_scheduled_in_the_past():
    queue = EventQueue(3.0, 3)
    queue.push(2.0, FINISH, 0, 0)
    queue.pop()
    with pytest.raises(RuntimeError, match="in the past"):
        queue.push_tick(0, 0)  # at 0 s
    with pytest.raises(RuntimeError, match="in the past"):
        queue.push(1.0, FINISH, 0, 0)


@pytest.mark.parametrize("seed", range(20))
def test_the_event_heap_pops_as_heapq_on_time_priority_sequence(seed):
    """The hand-sifted heap against `heapq` on (time, priority, sequence) tuples: pushes and pops
    interleaved at random, times from a handful of values so that ties (same time, same or other
    priority) are the rule, and ends pushed through `push_end` (priority FINISH, 0)."""
    import heapq

    import numpy as np

    rng = np.random.default_rng(seed)
    queue, reference, sequence = EventQueue(), [], 0
    popped, expected = [], []
    for step in range(600):
        if reference and rng.random() < 0.45:
            popped.append(queue.pop())
            time, _, _, a, b = heapq.heappop(reference)
            expected.append((time, a, b))
            assert queue.now == time
            continue
        time = queue.now + float(rng.integers(0, 4))
        sequence += 1
        if rng.random() < 0.5:
            queue.push_end(time, step, 7)
            heapq.heappush(reference, (time, FINISH, sequence, step, 7))
        else:
            priority = int(rng.choice([FINISH, ARRIVE, WAKE]))
            queue.push(time, priority, step, -1)
            heapq.heappush(reference, (time, priority, sequence, step, -1))
    while reference:
        popped.append(queue.pop())
        time, _, _, a, b = heapq.heappop(reference)
        expected.append((time, a, b))
    assert popped == expected
    assert len(queue) == 0 and queue.first_time() == math.inf
    with pytest.raises(IndexError):
        queue.pop()


@pytest.mark.parametrize("seed", range(5))
def test_the_reports_heap_pops_as_heapq(seed):
    """`entry_heap.IntHeap` (the heartbeats' reports) gives `heapq`'s pops on random pushes and
    pops, repeated values included."""
    import heapq
    import random

    from planner.simulator.entry_heap import IntHeap

    rng = random.Random(seed)
    ours, reference = IntHeap(), []
    for _ in range(3_000):
        if reference and rng.random() < 0.45:
            assert ours.first() == reference[0]
            assert ours.pop() == heapq.heappop(reference)
        else:
            item = rng.randrange(0, 500)
            ours.push(item)
            heapq.heappush(reference, item)
        assert len(ours) == len(reference)
    while reference:
        assert ours.pop() == heapq.heappop(reference)
    with pytest.raises(IndexError):
        ours.pop()
