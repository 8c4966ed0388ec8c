"""`RankedJobs` for keys of one shape, (a float, `JobRun.order`), in typed columns.

The fair scheduler re-keys a job at every launch and every end of its tasks (its running tasks
per weight change), so its orders push and drop millions of heap entries on a long run. As
tuples ``((value, order), index, stamp, job)`` each comparison went through Python's generic
tuple comparison, twice nested; here an entry is four machine words in parallel columns
(`librt.vecs.vec`) compared natively, as the event heap's are (`engine`). Both of Fair's orders
have this shape: a fair pool's ``(running / weight, order)`` and a FIFO pool's
``(-priority, order)`` (`JobRun.order` ranks jobs by submission, then name, so it stands for
the rest of `base.fifo_key`).

The bookkeeping is `RankedJobs`'s (``stamps``, and ``keys`` holding the value), and so are
`scan` and `prefix`; only where the entries live differs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from librt.vecs import append, vec
from mypy_extensions import i64

from planner.simulator.jobs import JobRun
from planner.simulator.schedulers.ranked import COMPACT_FACTOR, RankedJobs

NO_VALUE: Final = float("nan")  # the value `update` passes on when it takes a job out


class _Columns:
    """Entries (value, order, job index, stamp) in four parallel columns; ``size`` of them in use."""

    def __init__(self) -> None:
        self.values: vec[float] = vec[float]()
        self.orders: vec[i64] = vec[i64]()
        self.indexes: vec[i64] = vec[i64]()
        self.stamps: vec[i64] = vec[i64]()
        self.size: i64 = 0

    def put(self, position: i64, value: float, order: i64, index: i64, stamp: i64) -> None:
        if position == len(self.values):  # full: each column grows by one place
            self.values = append(self.values, value)
            self.orders = append(self.orders, order)
            self.indexes = append(self.indexes, index)
            self.stamps = append(self.stamps, stamp)
            return
        self.values[position] = value
        self.orders[position] = order
        self.indexes[position] = index
        self.stamps[position] = stamp

    def move(self, source: i64, target: i64) -> None:
        self.values[target] = self.values[source]
        self.orders[target] = self.orders[source]
        self.indexes[target] = self.indexes[source]
        self.stamps[target] = self.stamps[source]

    def before(self, value: float, order: i64, position: i64) -> bool:
        """Does (value, order) come before the entry at ``position``?"""
        other = self.values[position]
        return value < other or (value == other and order < self.orders[position])


class PairRanked(RankedJobs):
    """Jobs in increasing ``(value(job), job.order)``; `update_value` re-keys with the value at hand."""

    def __init__(self, value: Callable[[JobRun], float]) -> None:
        super().__init__(self._pair)
        self.value = value
        self.entries = _Columns()  # the heap
        self.passed = _Columns()  # entries a scan set aside, in the order it did (a stack)
        self.members: dict[int, JobRun] = {}  # job index -> the job, while it has a live entry

    def _pair(self, job: JobRun) -> tuple[float, int]:
        return self.value(job), job.order

    def __len__(self) -> int:
        return len(self.keys)

    def update(self, job: JobRun, present: bool, key: Any = None) -> None:
        """As `RankedJobs.update`; ``key``, when given, is ``(value, job.order)``."""
        if not present:
            self.update_value(job, False, NO_VALUE)
            return
        self.update_value(job, True, self.value(job) if key is None else float(key[0]))

    def update_value(self, job: JobRun, present: bool, value: float) -> None:
        """Put ``job`` in at ``(value, job.order)`` (``present``) or take it out."""
        self.head = None
        index = job.index
        if not present:
            if index in self.keys:
                del self.keys[index]
                del self.members[index]
                self.stamps[index] = self.stamps[index] + 1
            return
        if index in self.keys and self.keys[index] == value:
            return
        stamp = self.stamps.get(index, 0) + 1
        self.stamps[index] = stamp
        self.keys[index] = value
        self.members[index] = job
        self._push(value, job.order, index, stamp)
        if self.entries.size > COMPACT_FACTOR * len(self.keys) + 64:
            self._compact()

    def _live_at(self, position: i64) -> bool:
        index = self.entries.indexes[position]
        return index in self.keys and self.stamps[index] == self.entries.stamps[position]

    def first(self) -> JobRun | None:
        """The job with the smallest key, or None."""
        if self.head is not None:
            return self.head
        entries = self.entries
        while entries.size:
            if self._live_at(0):
                self.head = self.members[entries.indexes[0]]
                return self.head
            self._pop()
        return None

    def set_aside(self) -> None:
        entries, passed = self.entries, self.passed
        passed.put(passed.size, entries.values[0], entries.orders[0], entries.indexes[0], entries.stamps[0])
        passed.size += 1
        self._pop()
        self.head = None

    def mark(self) -> int:
        return self.passed.size

    def restore(self, mark: int) -> None:
        self.head = None
        passed = self.passed
        while passed.size > mark:
            top = passed.size - 1
            passed.size = top
            self._push(passed.values[top], passed.orders[top], passed.indexes[top], passed.stamps[top])

    # -- the heap ------------------------------------------------------------------------------
    def _push(self, value: float, order: i64, index: i64, stamp: i64) -> None:
        """Add an entry: from a new last place it rises past the parents that come after it."""
        entries = self.entries
        position = entries.size
        entries.put(position, value, order, index, stamp)
        entries.size = position + 1
        while position > 0:
            parent = (position - 1) >> 1
            if not entries.before(value, order, parent):
                break
            entries.move(parent, position)
            position = parent
        entries.put(position, value, order, index, stamp)

    def _pop(self) -> None:
        """Drop the first entry: the last one takes its place and sinks."""
        entries = self.entries
        end = entries.size - 1
        entries.size = end
        if end > 0:
            self._sink(0, end, entries.values[end], entries.orders[end], entries.indexes[end], entries.stamps[end])

    def _sink(self, position: i64, end: i64, value: float, order: i64, index: i64, stamp: i64) -> None:
        """Place the entry (value, order, index, stamp) at ``position`` or below it, in a heap of
        ``end`` entries."""
        entries = self.entries
        child = 2 * position + 1
        while child < end:
            right = child + 1
            if right < end and entries.before(entries.values[right], entries.orders[right], child):
                child = right
            child_value = entries.values[child]
            if child_value < value or (child_value == value and entries.orders[child] < order):
                entries.move(child, position)
                position = child
                child = 2 * position + 1
            else:
                break
        entries.put(position, value, order, index, stamp)

    def _compact(self) -> None:
        """Keep the live entries only, as a heap again (stale ones outnumber them)."""
        entries = self.entries
        kept: i64 = 0
        for position in range(entries.size):
            if self._live_at(position):
                entries.move(position, kept)
                kept += 1
        entries.size = kept
        for position in range(kept // 2 - 1, -1, -1):
            self._sink(position, kept, entries.values[position], entries.orders[position],
                       entries.indexes[position], entries.stamps[position])
