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

A scan (the jobs in order until one takes the slot) is a walk: `walk_first`, then `walk_next` after
each job that declines, and `walk_end` when done (in a ``finally``). Here a walk takes each job it
passes off the heap and puts them back at its end; `PairRanked` (Fair's and Capacity's orders)
walks its heap without changing it. Either way, while a walk is on the jobs may be taken out but
not re-keyed (`update` raises), and walks do not nest.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import Any, Final, TypeVar

from librt.vecs import append, vec
from mypy_extensions import i64, u8

from planner.simulator.jobs import JobRun

#: The heap is rebuilt from its live entries when stale ones outnumber them by this factor
#: (plus a small constant): a long run re-keys its jobs millions of times.
COMPACT_FACTOR: Final = 2
T = TypeVar("T")


class RankedJobs:
    """Jobs in increasing ``key`` order; ``key`` must end with something unique (the name)."""

    __slots__ = ("head", "heap", "key", "keys", "stamps", "taken", "walking")

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
        # Entries a walk has passed (`walk_next`), kept as the objects they are: typed, each would be
        # unpacked into native values when taken off and built again (a tuple, two ints) when put back.
        self.taken: list[Any] = []
        self.walking = False

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
        if self.walking:
            raise RuntimeError(f"job {job.name!r} re-keyed during a scan of its order")
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
        declines), met by a walk: a scan that stops at the k-th job costs O(k log n) here
        (O(k log k) in `PairRanked`); ``attempt`` must not re-key jobs nor scan this order. With
        ``keep``, a job met for which ``keep(job)`` is false is taken out instead (a lazy
        removal: the scheduler puts it back when it has work again)."""
        job = self.walk_first()
        try:
            while job is not None:
                if keep is not None and not keep(job):
                    self.update(job, False)
                else:
                    result = attempt(job)
                    if result is not None:
                        return result
                job = self.walk_next()
            return None
        finally:
            self.walk_end()

    def walk_first(self) -> JobRun | None:
        """Start a walk: the first job, or None."""
        if self.walking:
            raise RuntimeError("a scan of this order started within another")
        self.walking = True
        return self.first()

    def walk_next(self) -> JobRun | None:
        """The job after the walk's last one, or None: the last one's entry is set aside (unless it
        was taken out: its entry is stale then, and `first` drops it)."""
        heap = self.heap
        if heap and self._live(heap[0]):
            self.taken.append(heapq.heappop(heap))
        self.head = None
        return self.first()

    def walk_end(self) -> None:
        """End the walk: the entries set aside go back."""
        self.walking = False
        self.head = None
        boxed: list[Any] = self.heap
        taken = self.taken
        while taken:
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

    __slots__ = ("jobs", "met", "refresh")

    def __init__(self, refresh: Callable[[JobRun], None]) -> None:
        self.jobs: list[JobRun] = []
        self.refresh = refresh
        # By job index: whether `take` has met the job in this call (cleared before it returns:
        # a flag read by index, where a set of indexes hashed every job appended).
        self.met = vec[u8]()

    def take(self) -> list[JobRun]:
        """The changed jobs, each once, unfinished ones only (a finished job is left to `forget`);
        the list starts over. A compiled scheduler re-keys them itself: calling the bound method
        held here is a Python call per job."""
        jobs = self.jobs
        if not jobs:
            return []
        met = self.met
        distinct = []
        for job in jobs:
            index: i64 = job.index
            while len(met) <= index:
                met = append(met, 0)
            if not met[index] and job.finish is None:
                met[index] = 1
                distinct.append(job)
        for job in distinct:
            met[job.index] = 0
        self.met = met
        jobs.clear()
        return distinct

    def drain(self) -> None:
        """Re-key every changed job once."""
        for job in self.take():
            self.refresh(job)
