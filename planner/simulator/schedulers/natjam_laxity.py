"""Natjam's laxity (MLF): the arithmetic of a job's work and laxity, and MLF's order of the jobs,
kept as they change, so that a decision does not rank every job.

The order.

Laxity moves with the clock: laxity = deadline - (now + left / rate), ``left`` the job's work
left and ``rate = max(progress / elapsed, S / J)`` (S slots, J unfinished jobs), so ranking the
jobs from scratch at every pick and settle costs a sort of all of them. Write K = laxity + now =
deadline - left / rate. Between two events that touch a job (its launches, ends, evictions, its
reduces opening) K has a lower bound of one of these kinds (those using S / J hold while J does
not grow: they are all made again when a job arrives):

- ``LINE``: nothing of the job computes (waiting, suspended, reducers still copying), so
  ``left`` is fixed and ``progress / elapsed`` falls: K >= deadline - left (now - start) /
  progress, a line in ``now``, whatever J.
- ``TANGENT``: attempts computing, at a rate above the even share: until the first of them ends
  (an event for the job) ``left`` falls linearly and deadline - left / (progress / elapsed) is
  convex or concave in ``now``; its tangent now or its chord over that window is below K
  (`_tangent`), whatever J.
- ``SHARED``: attempts computing at the even share: K >= deadline - left / (S / J), rising as
  they compute.
- ``FLOOR``: K >= deadline - left J / S, exact for a job that has not started and for a waiting
  job whose rate fell to the share (a heap; a bound made when J was larger is raised when it comes
  to the top).
- ``WINDOW``: the rest (a job started in this very instant, no work left by the window's end):
  K >= deadline - left_now / max(the lower rate at the window's two ends, S / J) (a heap).

The lines sit in `KineticLines`, a kinetic tournament that keeps the least line at the current
time (a match is replayed only when its two lines cross); windows, tangents and shared lines are
bounds until the window's end only (the job is bound again then). Jobs without a deadline rank
last, by submission and name.

A decision takes the least bounds in turn and computes the exact laxity of each job met
(`laxity_from`, the arithmetic of `Natjam.laxity`, its attempts' times summed in slot
order); a job met is next once its exact laxity is below every bound left by more than a rounding
margin. The order is exactly a full sort by (laxity, submit, name) (tests/test_kept_orders.py and
tests/test_mlf_scale.py audit it at every decision), and a decision computes a handful of exact
laxities and O(log J) heap and tournament steps instead of J laxities and a sort.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Final, TypeVar

from librt.vecs import vec
from mypy_extensions import i64, mypyc_attr

from planner.simulator.entry_heap import EntryHeap
from planner.simulator.jobs import JobRun, SlotRun
from planner.simulator.layout import ANY, MAP, REDUCE
from planner.simulator.schedulers.kinetic import KineticLines, LinesInOrder
from planner.simulator.schedulers.ranked import COMPACT_FACTOR

if TYPE_CHECKING:
    from planner.simulator.core import Simulation


# -- the arithmetic: a job's work, its laxity, an attempt's time left ----------------------------
def work_left(job: JobRun, running: float, extra: float = 0.0) -> float:
    """Seconds of work ``job`` has left: its pending tasks, ``running`` (what its running attempts
    have left, summed in slot order) and ``extra``, suspended tasks counting their work left."""
    left = job.pending_maps * job.map_time + job.pending_reduces * job.reduce_time + running + extra
    for (kind, _), seconds in job.left.items():  # suspended tasks: their work left, not a whole task
        left += seconds - (job.map_time if kind == MAP else job.reduce_time)
    return left


def total_work(job: JobRun) -> float:
    """Seconds of work of all ``job``'s tasks."""
    return job.maps * job.map_time + job.reduces * job.reduce_time


def laxity_from(job: JobRun, now: float, left: float, share: float) -> float:
    """The laxity of ``job`` (with a deadline) with ``left`` seconds of work left, ``share`` the
    even share of the cluster (slots / unfinished jobs)."""
    elapsed = now - job.start if job.start is not None else 0.0
    # A job that has not run long has no rate of its own yet: count on its even share of the cluster.
    rate = max((total_work(job) - left) / elapsed if elapsed > 0 else 0.0, share)
    return deadline_of(job) - (now + left / rate)


def even_share(sim: Simulation, jobs: int) -> float:
    """Slots per unfinished job (``jobs`` of them): the rate a job without one of its own counts on."""
    return sim.slot_count / max(jobs, 1)


def deadline_of(job: JobRun) -> float:
    """The deadline of a job the laxity arithmetic is given (only jobs with one are)."""
    if job.deadline is None:  # pragma: no cover - callers rank jobs without a deadline apart
        raise RuntimeError(f"job {job.name!r} has no deadline: it has no laxity")
    return job.deadline


def before_compute(sim: Simulation, job: JobRun, kind: int, slot: int) -> bool:
    """Whether the attempt on ``slot`` is a reducer that has not started computing (still copying,
    or waiting for a compute slot of its node): it has no end yet, and its whole compute is left."""
    return kind == REDUCE and (slot in job.copying or slot in sim.compute_queue[sim.slot_node[slot]])


def time_left(sim: Simulation, slot: int, now: float) -> float:
    """Seconds the attempt on ``slot`` has left (a reducer before its compute: its whole compute)."""
    run: SlotRun = sim.slot_run[slot]  # typed: compiled, its items are read without a lookup
    kind = run[1]
    if kind == REDUCE:
        job = run[0]
        if before_compute(sim, job, kind, slot):
            return job.reduce_times[run[2]]
    left = sim.slot_end[slot] - now
    return 0.0 if left < 0.0 else left  # max(left, 0.0), without a call: the same value, -0.0 included


def holds(sim: Simulation, slot: int, job: JobRun) -> bool:
    """Whether ``job``'s attempt is on ``slot``."""
    item = sim.slot_run[slot]
    if item is None:
        return False
    run: SlotRun = item  # typed: compiled, its items are read without a lookup
    return run[0] is job


# -- MLF's order, kept --------------------------------------------------------------------------
T = TypeVar("T")
#: Where a job's bound is (`LaxityOrder.where`): none (nothing to launch), a line of `lines`
#: (waiting, computing above the even share, computing at it), a floor, a window, no deadline.
NONE: Final = 0
LINE: Final = 1
TANGENT: Final = 2
SHARED: Final = 3
FLOOR: Final = 4
WINDOW: Final = 5
LAST: Final = 6
#: Relative rounding margin between an exact laxity and a bound: laxities are a handful of float
#: operations (errors near 1e-15 of the magnitudes involved); a wider margin only costs exact ones.
MARGIN: Final = 1e-9


@mypyc_attr(allow_interpreted_subclasses=True)  # tests count its calls in a subclass
class LaxityOrder:
    """The unfinished jobs with a task to launch, in MLF's order (see the module docstring).

    The simulation notes the jobs whose attempts end or resume (``changed``, its
    `Simulation.changed`); the scheduler notes its launches (`launched`, with the node), its
    suspensions and kills (``changed``), arrivals and ends (`arrive`, `finish`)."""

    def __init__(self, sim: Simulation, jobs: list[JobRun]) -> None:
        self.sim = sim
        self.jobs = jobs  # the scheduler's unfinished jobs: J
        count = len(sim.workload)
        self.lines = KineticLines(count)
        self.runs: list[JobRun | None] = [None] * count
        self.stamps = vec[i64]([0] * count)  # job index -> stamp of its live heap entry
        self.where = vec[i64]([NONE] * count)  # job index -> NONE, LINE, ... LAST
        self.slots: list[list[int]] = [[] for _ in range(count)]  # job index -> its running slots, in order
        self.changed: list[JobRun] = []
        self.launches: list[tuple[JobRun, int]] = []
        # The heaps' entries are typed columns (`EntryHeap`: no tuple made or compared): (bound or
        # time, job index, stamp, J for a floor), ordered by (bound or time, job index).
        self.windows = EntryHeap()  # (bound, job index, stamp)
        self.ends = EntryHeap()  # (the window's end, job index, stamp)
        self.floors = EntryHeap()  # (bound, job index, stamp, J); the job's left in `floor_left`
        self.floor_left = vec[float]([0.0] * count)  # job index -> its work left when its floor was made
        self.taken = EntryHeap()  # a stack, not a heap: the windows (b = -1) and floors a scan took
        self.last: list[tuple[float, str, int, int]] = []  # (submit, name, job index, stamp)
        self.live = vec[i64]([0] * 7)  # jobs in each place
        self.refreshes: i64 = 0
        self.bounded = vec[i64]([0] * count)  # job index -> the last refresh that bounded it
        self.grown = False  # a job arrived: floors and windows made with fewer jobs are too high
        self.scale = 1.0  # 1 + the largest deadline: the magnitude of the rounding margin
        self.node_slots: list[list[int]] = [[] for _ in range(sim.layout.nodes)]
        for slot, node in enumerate(sim.layout.slot_node):
            self.node_slots[node].append(slot)

    # -- what changed ---------------------------------------------------------------------
    def arrive(self, job: JobRun) -> None:
        self.runs[job.index] = job
        if job.deadline is not None:
            self.scale = max(self.scale, 1.0 + abs(job.deadline))
        self.grown = True
        self.changed.append(job)

    def finish(self, job: JobRun) -> None:
        if self._drop(job.index):
            self.lines.remove(job.index)
        self.slots[job.index] = []

    def launched(self, job: JobRun, node: int) -> None:
        """``job`` launched a task on ``node`` (the slot is known once the simulation placed it)."""
        self.launches.append((job, node))

    def _drop(self, index: int) -> bool:
        """Take the job's bound out (its heap entries go stale); whether it was a line (left in
        `lines` for the caller to replace or remove)."""
        place = self.where[index]
        self.live[place] = self.live[place] - 1
        self.where[index] = NONE
        self.stamps[index] = self.stamps[index] + 1
        return place in (LINE, TANGENT, SHARED)

    def _job(self, index: int) -> JobRun:
        """The run of a job that has a bound (so it has arrived)."""
        job = self.runs[index]
        if job is None:  # pragma: no cover - bounds are made for arrived jobs only
            raise RuntimeError(f"job {index} has a bound but has not arrived")
        return job

    def _place(self, index: int, place: int) -> None:
        self.where[index] = place
        self.live[place] = self.live[place] + 1

    def refresh(self, now: float) -> None:
        """Bring every bound to ``now``: re-bound the jobs that changed or whose window ended."""
        changed = self.changed
        for job, node in self.launches:
            mine = self.slots[job.index]
            for slot in self.node_slots[node]:
                if holds(self.sim, slot, job) and slot not in mine:
                    mine.append(slot)
                    mine.sort()
            changed.append(job)
        self.launches.clear()
        if self.grown:
            self.grown = False
            changed.extend(run for run, place in zip(self.runs, self.where, strict=True)
                           if run is not None and place in (FLOOR, WINDOW, SHARED))
        ends, stamps = self.ends, self.stamps
        while ends.size and ends.keys[0] < now:
            index = ends.orders[0]
            stamp = ends.a_of[0]
            ends.drop_first()
            if stamps[index] == stamp:
                changed.append(self._job(index))
        self.lines.advance(now)
        if changed:
            self.refreshes += 1
            refresh, bounded = self.refreshes, self.bounded
            for job in changed:  # each once
                if bounded[job.index] != refresh and job.finish is None:
                    bounded[job.index] = refresh
                    self._bound(job, now)
            changed.clear()

    def _bound(self, job: JobRun, now: float) -> None:
        index = job.index
        lined = self._drop(index)
        line = self._classify(job, now)
        if line is not None:
            self.lines.put(index, line[0], line[1], line[2])
        elif lined:
            self.lines.remove(index)

    def _classify(self, job: JobRun, now: float) -> tuple[float, float, float] | None:
        """Bound ``job`` (just dropped): its line if its bound is one, else None (put on a heap)."""
        index, stamp = job.index, self.stamps[job.index]
        sim = self.sim
        mine = self.slots[index]
        slot_run = sim.slot_run
        if mine:
            mine[:] = [slot for slot in mine if holds(sim, slot, job)]
        if not job.pending(ANY):
            return None
        if job.deadline is None:
            self._place(index, LAST)
            heapq.heappush(self.last, (job.submit, job.name, index, stamp))
            if len(self.last) > COMPACT_FACTOR * self.live[LAST] + 64:
                self.last = [entry for entry in self.last if self.stamps[entry[2]] == entry[3]]
                heapq.heapify(self.last)
            return None
        running, computing, end = 0.0, 0, math.inf
        for slot in mine:
            running = running + time_left(sim, slot, now)
            run: SlotRun = slot_run[slot]
            if before_compute(sim, job, run[1], slot):
                continue  # its remaining time is its whole compute, until the job's last map ends
            if sim.slot_end[slot] > now:
                computing += 1
                end = min(end, sim.slot_end[slot])
        left = work_left(job, running)
        total = total_work(job)
        share = even_share(sim, len(self.jobs))
        start = job.start
        if computing:
            self._push(self.ends, end, index, 0, self.live[TANGENT] + self.live[SHARED] + self.live[WINDOW])  # re-bound then
            late = left - computing * (end - now)  # left at the window's end
            if start is None or now <= start or late <= 0 or total <= left:
                self._window(job, now, left, late, end, share)
                return None
            if (total - left) / (now - start) > share:
                self._place(index, TANGENT)
                return _tangent(job.deadline, start, now, end, left, late, total, computing)
            # At the even share: K >= deadline - left / share, rising as its attempts compute.
            self._place(index, SHARED)
            return job.deadline - left / share, -computing / share, now
        if start is not None and _on_line(job, now, left, total, share):
            self._place(index, LINE)
            return job.deadline, left / (total - left), start
        self._place(index, FLOOR)
        self.floor_left[index] = left
        self._push(self.floors, job.deadline - max(left, 0.0) / share, index, len(self.jobs), self.live[FLOOR])
        return None

    def _window(self, job: JobRun, now: float, left: float, late: float, end: float, share: float) -> None:
        """A bound of K over the window [now, end] (as a last resort: no rate yet, or no work left)."""
        start = job.start
        if start is None or now <= start:  # no rate of its own yet: a bound for this instant only
            bound = deadline_of(job) - max(left, 0.0) / share
            self.ends.push(now, job.index, self.stamps[job.index], 0)
        else:
            total = total_work(job)
            rate = min((total - left) / (now - start), (total - late) / (end - start))
            bound = deadline_of(job) - max(left, 0.0) / max(rate, share)
        self._place(job.index, WINDOW)
        self._push(self.windows, bound, job.index, 0, self.live[WINDOW])

    def _push(self, heap: EntryHeap, key: float, index: i64, b: i64, live: int) -> None:
        """Push (``key``, the job ``index``, its stamp, ``b``) on ``heap``, whose live entries are
        ``live`` of its places' jobs; kept to its live entries when stale ones (jobs re-bounded
        since) outnumber them, pushed again in turn (the i-th is read before the i-th push, which
        writes no place past the i-th)."""
        stamps = self.stamps
        heap.push(key, index, stamps[index], b)
        if heap.size <= COMPACT_FACTOR * live + 64:
            return
        kept: i64 = 0
        for position in range(heap.size):
            if stamps[heap.orders[position]] == heap.a_of[position]:
                heap.move(position, kept)
                kept += 1
        heap.size = 0
        for position in range(kept):
            heap.push(heap.keys[position], heap.orders[position], heap.a_of[position], heap.b_of[position])

    # -- the order ----------------------------------------------------------------------------
    def running(self, job: JobRun, now: float) -> float:
        """What ``job``'s running attempts have left, summed in slot order (`Natjam._running_left`)."""
        running, sim = 0.0, self.sim
        for slot in self.slots[job.index]:
            running = running + time_left(sim, slot, now)
        return running

    def exact(self, job: JobRun, now: float, share: float) -> tuple[float, float]:
        """``job``'s laxity, computed as `Natjam.laxity` does, and its work left."""
        left = work_left(job, self.running(job, now))
        return laxity_from(job, now, left, share), left

    def first(self, now: float) -> JobRun | None:
        """The first job with a task to launch, or None."""
        return self.scan(now, lambda job: job)

    def scan(self, now: float, attempt: Callable[[JobRun], T | None]) -> T | None:
        """The first non-None ``attempt(job)`` over the jobs with a task to launch, in order."""
        self.refresh(now)
        share = even_share(self.sim, len(self.jobs))
        count = len(self.jobs)
        stamps = self.stamps
        windows, floors, last, taken = self.windows, self.floors, self.last, self.taken
        taken.size = 0
        taken_last: list[tuple[float, str, int, int]] = []
        met: list[tuple[float, float, str, int]] = []  # exact keys of the jobs met, not yet offered
        tree = self.lines
        line_leaf = tree.win[1]  # the least line, then the next ones (-1: none left)
        line_value = tree.value(line_leaf, now) if line_leaf >= 0 else math.inf
        lines_met = 0  # the first is the tree's winner, the second the least beside its path, then `ordered`
        lines: LinesInOrder | None = None
        scale = self.scale + abs(now)
        try:
            while True:
                while windows.size and stamps[windows.orders[0]] != windows.a_of[0]:
                    windows.drop_first()
                while floors.size:
                    index = floors.orders[0]
                    if stamps[index] != floors.a_of[0]:
                        floors.drop_first()
                    elif floors.b_of[0] > count:  # made when more jobs shared the cluster: raise it
                        stamp = floors.a_of[0]
                        floors.drop_first()
                        bound = deadline_of(self._job(index)) - max(self.floor_left[index], 0.0) / share
                        floors.push(bound, index, stamp, count)
                    else:
                        break
                bound, source = math.inf, NONE
                if windows.size and windows.keys[0] < bound:
                    bound, source = windows.keys[0], WINDOW
                if floors.size and floors.keys[0] < bound:
                    bound, source = floors.keys[0], FLOOR
                if line_leaf >= 0 and line_value < bound:
                    bound, source = line_value, LINE
                if met and (source == NONE or met[0][0] + now + MARGIN * (scale + abs(met[0][0])) < bound):
                    result = attempt(self._job(heapq.heappop(met)[3]))
                    if result is not None:
                        return result
                    continue
                if source == NONE:
                    break
                if source == WINDOW:
                    index = windows.orders[0]
                    taken.put(taken.size, windows.keys[0], index, windows.a_of[0], -1)
                    taken.size += 1
                    windows.drop_first()
                elif source == FLOOR:
                    index = floors.orders[0]
                    taken.put(taken.size, floors.keys[0], index, floors.a_of[0], floors.b_of[0])
                    taken.size += 1
                    floors.drop_first()
                elif line_leaf >= 0:  # source == LINE
                    index = line_leaf
                    lines_met += 1
                    if lines_met == 1:  # the next is the least beside the winner's path: no listing yet
                        beside = tree.runner_up()
                        line_leaf = tree.win[beside] if beside >= 0 else -1
                        line_value = tree.value(line_leaf, now) if line_leaf >= 0 else math.inf
                    else:
                        if lines is None:
                            lines = tree.ordered()
                            lines.step()  # the least and the second, met already
                            lines.step()
                        line_leaf = lines.leaf if lines.step() else -1
                        line_value = lines.value
                else:  # pragma: no cover - a source is a window, a floor or a line
                    break
                job = self._job(index)
                laxity, left = self.exact(job, now, share)
                heapq.heappush(met, (laxity, job.submit, job.name, index))
                place = self.where[index]
                if place in (LINE, FLOOR) and (place == LINE) != _on_line(job, now, left, total_work(job), share):
                    self.changed.append(job)  # waiting, a line below its floor or a floor below its line
            while last:  # no deadline: last, by submission and name
                entry = heapq.heappop(last)
                if stamps[entry[2]] != entry[3]:
                    continue
                taken_last.append(entry)
                result = attempt(self._job(entry[2]))
                if result is not None:
                    return result
            return None
        finally:
            for position in range(taken.size):
                if taken.b_of[position] < 0:
                    windows.push(taken.keys[position], taken.orders[position], taken.a_of[position], 0)
                else:
                    floors.push(taken.keys[position], taken.orders[position], taken.a_of[position],
                                taken.b_of[position])
            taken.size = 0
            for entry in taken_last:
                heapq.heappush(last, entry)

    def listed(self, now: float) -> list[JobRun]:
        """Every job with a task to launch, in order (for audits)."""
        jobs: list[JobRun] = []
        self.scan(now, lambda job: jobs.append(job))
        return jobs


def _tangent(deadline: float, start: float, now: float, end: float, left: float, late: float, total: float,
             computing: int) -> tuple[float, float, float]:
    """A line (value at ``now``, fall per second, ``now``) below deadline - left / (progress /
    elapsed) over [now, end], ``computing`` attempts taking ``left`` down to ``late``.

    The progress p grows linearly (p' = computing); with p0 the progress extrapolated back to the
    job's start, left (t - start) / p = (p0 + total - p - p0 total / p) / computing. If p0 > 0 it
    is concave in p, so K = deadline - it is convex and its tangent now is below it; if p0 <= 0,
    K is concave and its chord over the window is below it."""
    elapsed = now - start
    done = total - left
    at_now = deadline - left * elapsed / done
    origin = done - computing * elapsed  # progress extrapolated back to the start
    if origin > 0:
        return at_now, origin * total / (done * done) - 1.0, now
    at_end = deadline - late * (end - start) / (total - late)
    return at_now, (at_now - at_end) / (end - now), now


def _on_line(job: JobRun, now: float, left: float, total: float, share: float) -> bool:
    """Whether a job with nothing computing is bounded best by its line: it has a rate of its own
    above the even share (and work left)."""
    start = job.start
    return start is not None and now > start and left > 0 and total - left > 0 and (total - left) / (now - start) > share

