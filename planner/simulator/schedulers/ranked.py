"""Jobs kept in a scheduler's order as they change, so that a decision never scans every job.

A scheduler that ranks jobs by something that changes as tasks launch and end
(the fair scheduler's running tasks per weight, Natjam's suspended work) asks the
simulation to note the jobs whose state changed (`Simulation.changed`): every
attempt released (end, kill, suspension) and every suspended reducer resuming
appends its job. The scheduler appends the jobs it launches itself. Before each
decision it drains the list (`Changes.drain`) and re-keys those jobs only.

`RankedJobs` is a heap with lazy deletion: re-keying a job pushes a new entry
and stamps out the old one, which is dropped when it reaches the top. A job is
in the heap only while it can use a slot (the scheduler says when), so the
first valid entry is the job to offer first.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import Any, Final, TypeVar

from planner.simulator.jobs import JobRun

#: The heap is rebuilt from its live entries when stale ones outnumber them by this factor
#: (plus a small constant): a long run re-keys its jobs millions of times.
COMPACT_FACTOR: Final = 2
T = TypeVar("T")


class RankedJobs:
    """Jobs in increasing ``key`` order; ``key`` must end with something unique (the name)."""

    __slots__ = ("head", "heap", "key", "keys", "stamps", "taken")

    def __init__(self, key: Callable[[JobRun], Any]) -> None:
        self.key = key
        self.heap: list[tuple[Any, int, int, JobRun]] = []
        self.stamps: dict[int, int] = {}  # job index -> stamp of its live entry
        self.keys: dict[int, Any] = {}  # job index -> key of its live entry
        # The job `first` found, until anything changes the heap: FIFO asks for it at every launch,
        # and finding it again (the entry's stamp and membership, two dictionary reads) cost more
        # than the rest of its decision. Whatever takes entries off the heap or re-keys a job
        # (`update`, `scan`, `Scheduler.scan_maps`) sets it to None.
        self.head: JobRun | None = None
        # Entries a scan has passed (`set_aside`), kept as the objects they are: typed, each would be
        # unpacked into native values when taken off and built again (a tuple, two ints) when put back.
        self.taken: list[Any] = []

    def __len__(self) -> int:
        return len(self.keys)

    def __contains__(self, job: JobRun) -> bool:
        return job.index in self.keys

    def update(self, job: JobRun, present: bool, key: Any = None) -> None:
        """Put ``job`` in at its current key (``present``; ``key`` if the caller has it at hand)
        or take it out."""
        self.head = None
        index = job.index
        if not present:
            if index in self.keys:
                del self.keys[index]
                self.stamps[index] = self.stamps[index] + 1
            return
        if key is None:
            key = self.key(job)
        if index in self.keys and self.keys[index] == key:
            return
        stamp = self.stamps.get(index, 0) + 1
        self.stamps[index] = stamp
        self.keys[index] = key
        heapq.heappush(self.heap, (key, index, stamp, job))
        if len(self.heap) > COMPACT_FACTOR * len(self.keys) + 64:
            self.heap = [entry for entry in self.heap if self._live(entry)]
            heapq.heapify(self.heap)

    def _live(self, entry: tuple[Any, int, int, JobRun]) -> bool:
        return self.stamps.get(entry[1]) == entry[2] and entry[1] in self.keys

    def first(self) -> JobRun | None:
        """The job with the smallest key, or None."""
        if self.head is not None:
            return self.head
        heap = self.heap
        while heap:
            entry = heap[0]
            if self.stamps[entry[1]] == entry[2] and entry[1] in self.keys:
                self.head = entry[3]
                return entry[3]
            _drop_first(heap)
        return None

    def scan(self, attempt: Callable[[JobRun], T | None],
             keep: Callable[[JobRun], Any] | None = None) -> T | None:
        """The first non-None ``attempt(job)`` over the jobs in key order (None if every job
        declines). Jobs are taken off the heap as the scan goes and put back at the end, so a
        scan that stops at the k-th job costs O(k log n); ``attempt`` must not re-key jobs.
        With ``keep``, a job met for which ``keep(job)`` is false is taken out instead (a lazy
        removal: the scheduler puts it back when it has work again)."""
        mark = self.mark()
        try:
            while (job := self.first()) is not None:
                if keep is not None and not keep(job):
                    self.update(job, False)
                    continue
                result = attempt(job)
                if result is not None:
                    return result
                self.set_aside()
            return None
        finally:
            self.restore(mark)

    # A scan's steps, for scans written out elsewhere (`Scheduler.scan_maps`): take `mark`, then
    # `set_aside` each job `first` gave that declines, and `restore` the mark when done.
    def mark(self) -> int:
        """Where the entries a scan is about to pass will start (scans may nest)."""
        return len(self.taken)

    def set_aside(self) -> None:
        """Take the first job's entry off the heap until `restore` (`first` must have found it)."""
        boxed: list[Any] = self.heap
        self.taken.append(heapq.heappop(boxed))
        self.head = None  # the next live entry is the first now

    def restore(self, mark: int) -> None:
        """Put back the entries set aside since ``mark``."""
        self.head = None
        boxed: list[Any] = self.heap
        taken = self.taken
        while len(taken) > mark:
            heapq.heappush(boxed, taken.pop())

    def prefix(self, belongs: Callable[[JobRun], bool]) -> list[JobRun]:
        """The jobs in key order up to the first for which ``belongs`` is false."""
        jobs: list[JobRun] = []

        def collect(job: JobRun) -> bool | None:
            if not belongs(job):
                return True  # stop here
            jobs.append(job)
            return None

        self.scan(collect)
        return jobs


def _drop_first(heap: list[Any]) -> None:
    """Pop the heap's first entry, unread (typed, mypyc would unpack the tuple it returns)."""
    heapq.heappop(heap)


class Changes:
    """The jobs whose state changed since the last decision (shared with the simulation)."""

    __slots__ = ("jobs", "refresh")

    def __init__(self, refresh: Callable[[JobRun], None]) -> None:
        self.jobs: list[JobRun] = []
        self.refresh = refresh

    def take(self) -> list[JobRun]:
        """The changed jobs, each once, unfinished ones only (a finished job is left to `forget`);
        the list starts over. A compiled scheduler re-keys them itself: calling the bound method
        held here is a Python call per job."""
        jobs = self.jobs
        if not jobs:
            return []
        seen: set[int] = set()
        distinct = []
        for job in jobs:
            if job.index not in seen and job.finish is None:
                seen.add(job.index)
                distinct.append(job)
        jobs.clear()
        return distinct

    def drain(self) -> None:
        """Re-key every changed job once."""
        for job in self.take():
            self.refresh(job)
