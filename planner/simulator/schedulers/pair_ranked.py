"""`RankedJobs` for keys of one shape, (a float, `JobRun.order`), in typed columns.

The fair scheduler re-keys a job at every launch and every end of its tasks (its running tasks
per weight change), so its orders push and drop millions of heap entries on a long run. As
tuples ``((value, order), index, stamp, job)`` each comparison went through Python's generic
tuple comparison, twice nested; here an entry is four machine words in an `EntryHeap`, the event
heap's structure, compared natively. Both of Fair's orders
have this shape: a fair pool's ``(running / weight, order)`` and a FIFO pool's
``(-priority, order)`` (`JobRun.order` ranks jobs by submission, then name, so it stands for
the rest of `base.fifo_key`).

`scan` and `prefix` are `RankedJobs`'s; the bookkeeping (each job's live stamp and value, and
whether it is in) is kept by job index in typed columns too (`RankedJobs` keeps dictionaries),
so that telling a live entry from a stale one reads no dictionary.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from librt.vecs import append, vec
from mypy_extensions import i64, u8

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
        # By job index (grown as jobs come): the stamp of its live entry, its value, whether it has
        # one, and the job (None while it has none); ``count``: how many have one.
        self.stamp_of = vec[i64]()
        self.value_of = vec[float]()
        self.live = vec[u8]()
        self.members: list[JobRun | None] = []
        self.count: i64 = 0

    def __len__(self) -> int:
        return self.count

    def __contains__(self, job: JobRun) -> bool:
        index = job.index
        return index < len(self.live) and self.live[index] == 1

    def _grow(self, index: i64) -> None:
        """Room in the columns for job ``index``."""
        while len(self.live) <= index:
            self.stamp_of = append(self.stamp_of, 0)
            self.value_of = append(self.value_of, 0.0)
            self.live = append(self.live, 0)
            self.members.append(None)

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
        index: i64 = job.index
        if index >= len(self.live):
            self._grow(index)
        if not present:
            if self.live[index]:
                self.live[index] = 0
                self.members[index] = None
                self.stamp_of[index] = self.stamp_of[index] + 1
                self.count -= 1
            return
        if self.live[index]:
            if self.value_of[index] == value:
                return
        else:
            self.live[index] = 1
            self.count += 1
        stamp = self.stamp_of[index] + 1
        self.stamp_of[index] = stamp
        self.value_of[index] = value
        self.members[index] = job
        self.entries.push(value, job.order, index, stamp)
        if self.entries.size > COMPACT_FACTOR * self.count + 64:
            self._compact()

    def _live_at(self, position: i64) -> bool:
        index = self.entries.a_of[position]
        return self.live[index] == 1 and self.stamp_of[index] == self.entries.b_of[position]

    def first(self) -> JobRun | None:
        """The job with the smallest key, or None."""
        if self.head is not None:
            return self.head
        entries = self.entries
        while entries.size:
            if self._live_at(0):
                job = self.members[entries.a_of[0]]
                self.head = job
                return job
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
