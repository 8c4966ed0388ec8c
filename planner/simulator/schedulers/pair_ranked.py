"""`RankedJobs` for keys of one shape, (a float, `JobRun.order`), in typed columns, each job's
entry re-keyed in place.

The fair scheduler re-keys a job at every launch and every end of its tasks (its running tasks
per weight change), so its orders re-key millions of times on a long run. As tuples
``((value, order), index, stamp, job)`` each comparison went through Python's generic tuple
comparison, twice nested; here an entry is machine words in an `EntryHeap`'s columns (the event
heap's structure: value, order, job index), compared natively. Both of Fair's orders have this
shape: a fair pool's ``(running / weight, order)`` and a FIFO pool's ``(-priority, order)``
(`JobRun.order` ranks jobs by submission, then name, so it stands for the rest of
`base.fifo_key`).

The heap is indexed: each job in the order has one entry, whose place is kept by job index
(``place_of``), and a re-key moves that entry up or down from where it is. (`RankedJobs` pushes a
new entry and leaves the old one stale.) With no stale entry, a scan walks the heap without
changing it: a frontier of places, smallest entry first, starts at the top and takes in the two
children of each place it passes, so the k-th job met costs O(log k) and nothing is put back.
(Taking each declined job off the heap and pushing it back after the scan cost two O(log n) sifts
per job met, and the pushed entries, among the smallest, rose to the top: on the FB-2010 day under
delay scheduling, where most heartbeats pass a few jobs waiting for locality, that was a fifth of
the run.) A job taken out during a walk keeps its entry, skipped, until the walk ends.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from librt.vecs import append, vec
from mypy_extensions import i64, u8

from planner.simulator.entry_heap import EntryHeap
from planner.simulator.jobs import JobRun
from planner.simulator.schedulers.base import job_weight
from planner.simulator.schedulers.ranked import RankedJobs

NO_VALUE: Final = float("nan")  # the value `update` passes on when it takes a job out


class PairRanked(RankedJobs):
    """Jobs in increasing ``(value(job), job.order)``; `update_value` re-keys with the value at hand.

    Its heap's entries are (value, order, job index, 0) in an `EntryHeap`'s columns, sifted here
    (each move writes the moved job's place)."""

    def __init__(self, value: Callable[[JobRun], float]) -> None:
        super().__init__(self._pair)
        self.value = value
        self.entries = EntryHeap()
        self.places = EntryHeap()  # a walk's frontier: (value, order, place in ``entries``, 0)
        # By job index (grown as jobs come): its entry's place (-1: none), whether it is in the
        # order, and the job (None while it has no entry); ``count``: how many are in.
        self.place_of = vec[i64]()
        self.live = vec[u8]()
        self.members: list[JobRun | None] = []
        self.count: i64 = 0
        self.leaving = vec[i64]()  # jobs taken out during a walk: their entries go at its end

    def __len__(self) -> int:
        return self.count

    def __contains__(self, job: JobRun) -> bool:
        index = job.index
        return index < len(self.live) and self.live[index] == 1

    def _grow(self, index: i64) -> None:
        """Room in the columns for job ``index``."""
        while len(self.live) <= index:
            self.place_of = append(self.place_of, -1)
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
        index: i64 = job.index
        if index >= len(self.live):
            self._grow(index)
        if not present:
            if self.live[index]:
                self.live[index] = 0
                self.count -= 1
                if self.walking:
                    self.leaving = append(self.leaving, index)
                else:
                    self._remove(index)
            return
        entries = self.entries
        if self.live[index]:
            place = self.place_of[index]
            old = entries.keys[place]
            if old == value:
                return
            if self.walking:
                raise RuntimeError(f"job {job.name!r} re-keyed during a scan of its order")
            if value < old:
                self._rise(place, value, job.order, index)
            else:
                self._sink(place, value, job.order, index)
            return
        if self.walking:
            raise RuntimeError(f"job {job.name!r} added during a scan of its order")
        self.live[index] = 1
        self.count += 1
        self.members[index] = job
        place = entries.size
        entries.put(place, value, job.order, index, 0)
        entries.size = place + 1
        self._rise(place, value, job.order, index)

    def _remove(self, index: i64) -> None:
        """Take job ``index``'s entry off the heap: the last entry fills its place."""
        entries = self.entries
        place = self.place_of[index]
        self.place_of[index] = -1
        self.members[index] = None
        end = entries.size - 1
        entries.size = end
        if place == end:
            return
        key, order, moved = entries.keys[end], entries.orders[end], entries.a_of[end]
        parent = (place - 1) >> 1
        if place > 0 and (key < entries.keys[parent] or (key == entries.keys[parent] and order < entries.orders[parent])):
            self._rise(place, key, order, moved)
        else:
            self._sink(place, key, order, moved)

    def _rise(self, place: i64, key: float, order: i64, index: i64) -> None:
        """Write entry (key, order, index) at ``place`` or above it, past the parents that come after it."""
        entries = self.entries
        keys, orders, a_of = entries.keys, entries.orders, entries.a_of
        while place > 0:
            parent = (place - 1) >> 1
            parent_key = keys[parent]
            if key < parent_key or (key == parent_key and order < orders[parent]):
                self._write(place, parent_key, orders[parent], a_of[parent])  # the parent moves down
                place = parent
            else:
                break
        self._write(place, key, order, index)

    def _write(self, place: i64, key: float, order: i64, index: i64) -> None:
        """Entry (key, order, index) at ``place``, and the job's place."""
        entries = self.entries
        entries.keys[place] = key
        entries.orders[place] = order
        entries.a_of[place] = index
        self.place_of[index] = place

    def _sink(self, place: i64, key: float, order: i64, index: i64) -> None:
        """Write entry (key, order, index) at ``place`` or below it, past the children that come before it."""
        entries = self.entries
        keys, orders, a_of = entries.keys, entries.orders, entries.a_of
        end = entries.size
        child = 2 * place + 1
        while child < end:
            right = child + 1
            if right < end and (keys[right] < keys[child] or (keys[right] == keys[child] and orders[right] < orders[child])):
                child = right
            child_key = keys[child]
            if child_key < key or (child_key == key and orders[child] < order):
                self._write(place, child_key, orders[child], a_of[child])  # the child moves up
                place = child
                child = 2 * place + 1
            else:
                break
        self._write(place, key, order, index)

    def first(self) -> JobRun | None:
        """The job with the smallest key, or None."""
        entries = self.entries
        if entries.size == 0:
            return None
        index = entries.a_of[0]
        if self.live[index]:
            return self.members[index]
        return self._first_live()

    def _first_live(self) -> JobRun | None:
        """`first` while a walk is on and the top job was taken out: a walk of its own."""
        return self._walk_from(EntryHeap(), True)

    def walk_first(self) -> JobRun | None:
        """Start a walk: the first job, or None."""
        if self.walking:
            raise RuntimeError("a scan of this order started within another")
        self.walking = True
        self.places.size = 0
        return self._walk_from(self.places, True)

    def walk_next(self) -> JobRun | None:
        """The job after the walk's last one, or None."""
        return self._walk_from(self.places, False)

    def _walk_from(self, places: EntryHeap, start: bool) -> JobRun | None:
        """The next job in order of the walk whose frontier is ``places`` (``start``: empty, the walk
        starts at the top); the place met before it (the frontier's first) is passed: its children
        join the frontier."""
        entries = self.entries
        end = entries.size
        if start:
            if end == 0:
                return None
            places.push(entries.keys[0], entries.orders[0], 0, 0)
            if self.live[entries.a_of[0]]:
                return self.members[entries.a_of[0]]
        while places.size:
            place = places.a_of[0]
            places.drop_first()
            child = 2 * place + 1
            if child < end:
                places.push(entries.keys[child], entries.orders[child], child, 0)
                if child + 1 < end:
                    places.push(entries.keys[child + 1], entries.orders[child + 1], child + 1, 0)
            if places.size:
                index = entries.a_of[places.a_of[0]]
                if self.live[index]:
                    return self.members[index]
        return None

    def walk_end(self) -> None:
        """End the walk: the jobs taken out during it leave the heap."""
        self.walking = False
        leaving = self.leaving
        if len(leaving):
            for index in leaving:
                if not self.live[index] and self.place_of[index] >= 0:
                    self._remove(index)
            self.leaving = vec[i64]()


def fair_value(kind: int) -> Callable[[JobRun], float]:
    """A fair pool's order for slots of ``kind`` (with `JobRun.order`, `base.fair_key`)."""
    def value(job: JobRun) -> float:
        return job.running_of(kind) / job_weight(job)
    return value


def fifo_value(job: JobRun) -> float:
    """A FIFO pool's order (with `JobRun.order`, which ranks by submission and name: `base.fifo_key`)."""
    return -float(job.priority)
