"""`RankedJobs` for keys of one shape, (a float, `JobRun.order`), in typed columns.

The fair scheduler re-keys a job at every launch and every end of its tasks (its running tasks
per weight change), so its orders push and drop millions of heap entries on a long run. As
tuples ``((value, order), index, stamp, job)`` each comparison went through Python's generic
tuple comparison, twice nested; here an entry is four machine words in an `EntryHeap`, the event
heap's structure, compared natively. Both of Fair's orders
have this shape: a fair pool's ``(running / weight, order)`` and a FIFO pool's
``(-priority, order)`` (`JobRun.order` ranks jobs by submission, then name, so it stands for
the rest of `base.fifo_key`).

The bookkeeping is `RankedJobs`'s (``stamps``, and ``keys`` holding the value), and so are
`scan` and `prefix`; only where the entries live differs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from mypy_extensions import i64

from planner.simulator.entry_heap import EntryHeap
from planner.simulator.jobs import JobRun
from planner.simulator.schedulers.base import job_weight
from planner.simulator.schedulers.ranked import COMPACT_FACTOR, RankedJobs

NO_VALUE: Final = float("nan")  # the value `update` passes on when it takes a job out


class PairRanked(RankedJobs):
    """Jobs in increasing ``(value(job), job.order)``; `update_value` re-keys with the value at hand.

    Its heap's entries are (value, order, job index, stamp) in an `EntryHeap`."""

    def __init__(self, value: Callable[[JobRun], float]) -> None:
        super().__init__(self._pair)
        self.value = value
        self.entries = EntryHeap()
        self.passed = EntryHeap()  # a stack, not a heap: entries a scan set aside, in the order it did
        self.members: dict[int, JobRun] = {}  # job index -> the job, while it has a live entry

    def _pair(self, job: JobRun) -> tuple[float, int]:
        return self.value(job), job.order

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
        self.entries.push(value, job.order, index, stamp)
        if self.entries.size > COMPACT_FACTOR * len(self.keys) + 64:
            self._compact()

    def _live_at(self, position: i64) -> bool:
        index = self.entries.a_of[position]
        return index in self.keys and self.stamps[index] == self.entries.b_of[position]

    def first(self) -> JobRun | None:
        """The job with the smallest key, or None."""
        if self.head is not None:
            return self.head
        entries = self.entries
        while entries.size:
            if self._live_at(0):
                self.head = self.members[entries.a_of[0]]
                return self.head
            entries.drop_first()
        return None

    def set_aside(self) -> None:
        entries, passed = self.entries, self.passed
        passed.put(passed.size, entries.keys[0], entries.orders[0], entries.a_of[0], entries.b_of[0])
        passed.size += 1
        entries.drop_first()
        self.head = None

    def mark(self) -> int:
        return self.passed.size

    def restore(self, mark: int) -> None:
        self.head = None
        passed = self.passed
        while passed.size > mark:
            top = passed.size - 1
            passed.size = top
            self.entries.push(passed.keys[top], passed.orders[top], passed.a_of[top], passed.b_of[top])

    def _compact(self) -> None:
        """Keep the live entries only (stale ones outnumber them), pushed again in turn: the i-th is
        read before the i-th push, which writes no place past the i-th."""
        entries = self.entries
        kept: i64 = 0
        for position in range(entries.size):
            if self._live_at(position):
                entries.move(position, kept)
                kept += 1
        entries.size = 0
        for position in range(kept):
            entries.push(entries.keys[position], entries.orders[position], entries.a_of[position],
                         entries.b_of[position])


def fair_value(kind: int) -> Callable[[JobRun], float]:
    """A fair pool's order for slots of ``kind`` (with `JobRun.order`, `base.fair_key`)."""
    def value(job: JobRun) -> float:
        return job.running_of(kind) / job_weight(job)
    return value


def fifo_value(job: JobRun) -> float:
    """A FIFO pool's order (with `JobRun.order`, which ranks by submission and name: `base.fifo_key`)."""
    return -float(job.priority)
