"""The fluid model's event loops, vectorized across map-slot splits (`solvers.slots.configure` has the model).

Every state variable is an array with one row (or column) per split s_m, and each loop
iteration advances every split by its own next event: a phase completion or, with release
times, the release of the job at the head of the admission order when only its release keeps it
out of M. The loops run at most about 3n times whatever S is.

Release times enter as *gates* in admission order: ``gate[p]`` is the earliest time the job at
position p may enter M, the running maximum of the releases (the order is strict, so a job
cannot enter before any job ahead of it: gate[p] = max(release[p], gate[p - 1])). ``None``
means every gate is 0, and then every loop runs exactly the arithmetic it ran before release
times existed, so the numbers stay the same bit for bit.

Dependencies (`PhaseWork.after`, jobs that wait for jobs): a job may enter M only once every
job it waits for has left the system (its last reduce, or its maps for a map-only job) plus the
dependency's delay. That gate is known only when the predecessor finishes, and differs from split
to split, so every split keeps its own gates (`_DependencyGates`) and the batch runs through the
general loop whatever the sharing model. The admission order must list every job after its
predecessors (`solvers.slots.work.admitted_after`); a job whose predecessor has not finished holds
back the jobs after it, as an unreleased job does.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from solvers.slots.maps import RowReductions, enter_map, reduce_queues, unit_map_phase
from solvers.slots.work import SIMULTANEOUS, TASK_EPSILON, PhaseWork

#: Splits evaluated together keep arrays of (splits x jobs): "fresh" two of 8 bytes an entry
#: (`maps.reduce_queues`), "capped" about six. The splits go through in blocks that keep
#: those arrays near this size (the FB-2010 day's 24,437 jobs on 12,000 slots would otherwise
#: hold some 10 GB), and of at most `MAX_BLOCK_SPLITS` (larger ones ran slower, out of cache).
#: Splits are independent, so the blocks give the very numbers one pass would.
BLOCK_BYTES = 256 * 2**20
_BYTES_PER_ENTRY = 48
_FRESH_BYTES_PER_ENTRY = 16
#: What dependencies add per split and job: each job's ready time and unfinished predecessors.
_DEPENDENCY_BYTES_PER_ENTRY = 16
MAX_BLOCK_SPLITS = 2048


def bytes_per_entry(model: str, dependent: bool = False) -> int:
    """Bytes a block holds per split and job under ``model`` (what sizes its blocks); with
    dependencies every model runs the general loop and keeps its gates per split."""
    if dependent:
        return _BYTES_PER_ENTRY + _DEPENDENCY_BYTES_PER_ENTRY
    return _FRESH_BYTES_PER_ENTRY if model == "fresh" else _BYTES_PER_ENTRY


def waterfill(caps: np.ndarray, total: np.ndarray) -> np.ndarray:
    """Per row, rates min(cap, level) summing to ``total`` (or every cap when they sum to less).

    ``caps`` has +inf in empty places; those get rate 0.
    """
    occupied = np.isfinite(caps)
    ordered = np.sort(caps, axis=1)
    finite = np.where(np.isfinite(ordered), ordered, 0.0)
    before = np.zeros_like(finite)
    before[:, 1:] = np.cumsum(finite, axis=1)[:, :-1]
    count = occupied.sum(axis=1)
    remaining = count[:, None] - np.arange(caps.shape[1])[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        levels = (total[:, None] - before) / remaining
    fits = (remaining > 0) & (levels <= ordered)
    first = np.argmax(fits, axis=1)
    level = np.where(fits.any(axis=1), levels[np.arange(len(first)), first], np.inf)
    return np.where(occupied, np.minimum(caps, level[:, None]), 0.0)


def _rates(slot_job, work, slots, task_time, model):
    occupied = slot_job >= 0
    if model == "fresh":
        share = slots / np.maximum(occupied.sum(axis=1), 1)
        return np.where(occupied, share[:, None], 0.0)
    times = task_time[np.maximum(slot_job, 0)]
    caps = np.where(occupied, np.ceil(work / times - TASK_EPSILON), np.inf)
    return waterfill(np.maximum(caps, 1.0), slots)


def fluid_makespans(
    phases: PhaseWork, total_slots: int, k: int, map_slots: np.ndarray, model: str = "fresh",
    progress: Callable[[int, int], None] | None = None,
) -> np.ndarray:
    """Makespan of the batch (in admission order, with ``phases.release`` if any) for each
    map-slot count in ``map_slots``, measured from t = 0. ``progress(done, total)`` is called
    with the splits evaluated so far after each block (a production day takes minutes)."""
    gates = phases.gates()
    if gates is not None and not gates.any():
        # All released at 0: the release-free loops give the same numbers bit for bit (tested)
        # and "fresh" runs its map phase once for all splits instead of once per split.
        gates = None
    dependent = phases.after is not None
    if model == "fresh" and gates is None and not dependent:  # one shared map phase; the rest is (width x splits)
        block = max(map_slots.size, 1)
    else:
        block = max(1, min(MAX_BLOCK_SPLITS, BLOCK_BYTES // (bytes_per_entry(model, dependent)
                                                              * max(phases.map_work.size, 1))))
    parts = [np.zeros(0)]  # a no-op part: np.concatenate needs one
    for start in range(0, map_slots.size, block):
        splits = map_slots[start:start + block]
        if model == "fresh" and not dependent:
            parts.append(_fresh_makespans(phases, total_slots, k, splits, gates))
        else:
            parts.append(_general_makespans(phases, total_slots, k, splits, model, gates))
        if progress is not None:
            progress(start + splits.size, map_slots.size)
    return np.concatenate(parts)


def _fresh_makespans(
    phases: PhaseWork, total_slots: int, k: int, map_slots: np.ndarray, gate: np.ndarray | None
) -> np.ndarray:
    """The "fresh" model for many splits: the map phase, then reduce phases in lockstep.

    Without releases one scalar map phase serves every split (`unit_map_phase`); with them
    each split has its own (`unit_map_phases`). Reduce-bearing jobs reach R' in their
    map-completion order; per split, R holds at most k of them sharing s_r equally.
    """
    smap = map_slots.astype(np.float64)
    has_reduce = phases.reduce_work > 0
    m = int(has_reduce.sum())
    if gate is None:
        finish, completion_order = unit_map_phase(phases.map_work, k)
        queue = completion_order[has_reduce[completion_order]]
        arrival = np.append(finish[queue], np.inf)
        work = phases.reduce_work[queue]
        map_only = completion_order[~has_reduce[completion_order]]
        last_map_only = finish[map_only].max() / smap if map_only.size else np.zeros_like(smap)
    else:
        arrival, work, last_map_only = reduce_queues(phases, k, gate, smap, m)
    return _reduce_lockstep(arrival, work, float(total_slots) - smap, smap, min(k, max(m, 1)), last_map_only)


def _reduce_lockstep(
    arrival: np.ndarray, work: np.ndarray, sred: np.ndarray, smap: np.ndarray, width: int, last_map_only: np.ndarray
) -> np.ndarray:
    """Reduce phases of every split under equal sharing; ``arrival`` (unit-slot seconds, +inf
    padded) and ``work`` are in R' order, shared by all splits (1-D) or one row per split.

    Each loop iteration moves every split to its next event: a completion in R, or an arrival
    while R has room (arrivals to a full R only queue, so they are taken in bulk at the next
    completion).
    """
    shared = arrival.ndim == 1
    m = arrival.shape[-1] - 1
    configs = smap.size
    columns = np.arange(configs)
    # Equal sharing drains every job in R alike, so track the service each R job
    # has had as one "virtual time" per split: a job entering at virtual time v
    # with work w leaves when it reaches v + w (its finish mark).
    finish_mark = np.full((width, configs), np.inf)
    virtual = np.zeros(configs)
    busy = np.zeros(configs, dtype=np.int64)
    arrived = np.zeros(configs, dtype=np.int64)
    entered = np.zeros(configs, dtype=np.int64)
    finished = np.zeros(configs, dtype=np.int64)
    clock = np.zeros(configs)
    makespan = np.zeros(configs)
    inverse_smap = 1.0 / smap
    while True:
        alive = finished < m
        if not alive.any():
            return np.maximum(makespan, last_map_only)
        share = sred / np.maximum(busy, 1)
        completion = clock + (finish_mark.min(axis=0) - virtual) / share
        next_arrival = (arrival[arrived] if shared else arrival[columns, arrived]) * inverse_smap
        event = np.where(busy < width, np.minimum(next_arrival, completion), completion)
        event = np.where(alive, event, clock)
        virtual = virtual + share * (event - clock)
        clock = event
        done = finish_mark <= virtual * (1.0 + SIMULTANEOUS)
        count = done.sum(axis=0)
        if count.any():
            finished = finished + count
            busy = busy - count
            finish_mark[done] = np.inf
            makespan = np.where(alive & (finished == m), clock, makespan)
        threshold = event * smap * (1.0 + SIMULTANEOUS)
        if shared:
            arrived = np.searchsorted(arrival[:m], threshold, side="right")
        else:
            arrived = _count_at_most(arrival, threshold, arrived, m)
        entering = np.minimum(width - busy, arrived - entered)
        for rank in range(int(entering.max())):
            need = np.flatnonzero(entering > rank)
            slot = np.argmax(finish_mark[:, need], axis=0)  # an empty slot holds +inf
            finish_mark[slot, need] = virtual[need] + (work[entered[need]] if shared else work[need, entered[need]])
            entered[need] += 1
            busy[need] += 1


#: Steps `_count_at_most` takes one entry at a time before it searches by halves.
_LINEAR_STEPS = 3


def _count_at_most(rows: np.ndarray, threshold: np.ndarray, low: np.ndarray, m: int) -> np.ndarray:
    """Per row, how many of the first m (sorted) entries are <= threshold (searchsorted, side="right"),
    from ``low`` (known <=): a few steps of one entry (a count mostly grows by 0 or 1 an event),
    then a binary search all rows still growing take together."""
    low = low.copy()
    columns = np.arange(low.size)
    for _ in range(_LINEAR_STEPS):
        more = (low < m) & (rows[columns, np.minimum(low, m - 1)] <= threshold)
        if not more.any():
            return low
        low += more
    high = np.full_like(low, m)
    while (searching := low < high).any():
        middle = (low + high) // 2
        below = rows[columns, np.minimum(middle, m - 1)] <= threshold
        low = np.where(searching & below, middle + 1, low)
        high = np.where(searching & ~below, middle, high)
    return low


def _general_makespans(
    phases: PhaseWork, total_slots: int, k: int, map_slots: np.ndarray, model: str, gate: np.ndarray | None
) -> np.ndarray:
    """Any sharing model: maps and reduces advance together, one event per split per iteration."""
    n = phases.map_work.size
    configs = map_slots.size
    smap = map_slots.astype(np.float64)
    sred = float(total_slots) - smap
    width = min(k, n)
    rows = np.arange(configs)[:, None]
    big = n + 1
    has_reduce = phases.reduce_work > 0
    clock = np.zeros(configs)
    waits = None if phases.after is None else _DependencyGates(phases.after, gate, configs)
    if waits is not None:
        gate = waits.gate
    reduced = RowReductions(width)
    map_job, map_left, next_map = enter_map(
        np.full((configs, width), -1, dtype=np.int64), np.zeros((configs, width)),
        np.zeros(configs, dtype=np.int64), clock, gate, phases.map_work, rows, reduced)
    red_job = np.full((configs, width), -1, dtype=np.int64)
    red_left = np.zeros((configs, width))
    waiting = np.zeros((configs, n), dtype=np.int64)  # map-completion order: R' and all that entered R
    waiting_len = np.zeros(configs, dtype=np.int64)
    next_reduce = np.zeros(configs, dtype=np.int64)
    left = np.full(configs, n, dtype=np.int64)
    makespan = np.full(configs, np.nan)
    while True:
        alive = left > 0
        if not alive.any():
            return makespan
        map_rate = _rates(map_job, map_left, smap, phases.map_time, model)
        red_rate = _rates(red_job, red_left, sred, phases.reduce_time, model)
        with np.errstate(divide="ignore", invalid="ignore"):
            map_ttf = np.where(map_job >= 0, map_left / map_rate, np.inf)
            red_ttf = np.where(red_job >= 0, red_left / red_rate, np.inf)
        step = np.minimum(map_ttf.min(axis=1), red_ttf.min(axis=1))
        if gate is not None:
            # the head of the admission order waits for its release only (M has room): an
            # event; with nothing running this jumps the clock to the release
            blocked = ((map_job >= 0).sum(axis=1) < width) & (next_map < n)
            head = gate[np.minimum(next_map, n - 1)] if gate.ndim == 1 else gate[rows[:, 0], np.minimum(next_map, n - 1)]
            step = np.minimum(step, np.where(blocked, head - clock, np.inf))
        step = np.where(alive, step, 0.0)
        cutoff = (step * (1.0 + SIMULTANEOUS))[:, None]
        map_done = (map_job >= 0) & (map_ttf <= cutoff) & alive[:, None]
        red_done = (red_job >= 0) & (red_ttf <= cutoff) & alive[:, None]
        map_left = np.where(map_done, 0.0, map_left - map_rate * step[:, None])
        red_left = np.where(red_done, 0.0, red_left - red_rate * step[:, None])
        clock = clock + step
        # maps done: by admission position, reduce-bearing jobs join the wait list
        finished = np.sort(np.where(map_done, map_job, big), axis=1)
        valid = finished < big
        to_reduce = valid & has_reduce[np.minimum(finished, n - 1)]
        slot = waiting_len[:, None] + np.cumsum(to_reduce, axis=1) - 1
        waiting[np.broadcast_to(rows, slot.shape)[to_reduce], slot[to_reduce]] = finished[to_reduce]
        waiting_len = waiting_len + to_reduce.sum(axis=1)
        left = left - (valid & ~to_reduce).sum(axis=1) - red_done.sum(axis=1)
        if waits is not None:  # jobs that left the system release the jobs waiting for them
            waits.finished(clock, np.where(valid & ~to_reduce, finished, -1), np.where(red_done, red_job, -1))
        # refill M from the admission order (released jobs only)
        map_job, map_left, next_map = enter_map(
            np.where(map_done, -1, map_job), map_left, next_map, clock, gate, phases.map_work, rows, reduced)
        # refill R from the head of the wait list
        red_job = np.where(red_done, -1, red_job)
        empty = red_job < 0
        candidate = next_reduce[:, None] + np.cumsum(empty, axis=1) - 1
        admit = empty & (candidate < waiting_len[:, None])
        entering = waiting[rows, np.minimum(candidate, n - 1)]
        red_job = np.where(admit, entering, red_job)
        red_left = np.where(admit, phases.reduce_work[entering], red_left)
        next_reduce = next_reduce + admit.sum(axis=1)
        ended = alive & (left == 0)
        makespan = np.where(ended, clock, makespan)


class _DependencyGates:
    """Per split, when each admission position may enter M (module docstring, dependencies):
    ``gate`` (configs x n) is +inf while a predecessor is unfinished, then the latest of the
    release gate and each predecessor's end plus delay."""

    def __init__(self, after: tuple[tuple[tuple[int, float], ...], ...], release: np.ndarray | None,
                 configs: int) -> None:
        n = len(after)
        self.successors: list[list[tuple[int, float]]] = [[] for _ in range(n)]
        for position, pairs in enumerate(after):
            for before, delay in pairs:
                self.successors[before].append((position, delay))
        base = np.zeros(n) if release is None else np.asarray(release, dtype=np.float64)
        self.ready = np.broadcast_to(base, (configs, n)).copy()
        self.unfinished = np.broadcast_to(np.array([len(pairs) for pairs in after], dtype=np.int64),
                                          (configs, n)).copy()
        self.gate = np.where(self.unfinished > 0, np.inf, self.ready)

    def finished(self, clock: np.ndarray, *ended: np.ndarray) -> None:
        """Rows' positions that left the system at row's ``clock`` (-1: none), in arrays of one row per split."""
        for positions in ended:
            rows, columns = np.nonzero(positions >= 0)
            if rows.size == 0:
                continue
            done = positions[rows, columns]
            for position in np.unique(done):
                which = rows[done == position]
                for after, delay in self.successors[int(position)]:
                    self.ready[which, after] = np.maximum(self.ready[which, after], clock[which] + delay)
                    self.unfinished[which, after] -= 1
                    free = which[self.unfinished[which, after] == 0]
                    self.gate[free, after] = self.ready[free, after]
