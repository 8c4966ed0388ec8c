"""The fluid model's map phase (`solvers.slots.configure`): once for all splits without releases (every
rate scales with s_m), else one per split in lockstep, with the reduce queues it feeds."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from solvers.slots.work import SIMULTANEOUS, PhaseWork

#: Rows of at most this many places (M's, of k jobs) are reduced column by column: numpy's
#: reductions along a short last axis cost several times a chain of whole-column operations or a
#: product with a small matrix (on 700 splits x 5 places: a row minimum 38 us against 4 us, a row
#: count 15 us against 6 us, running counts 28 us against 17 us). Wider rows keep numpy's own.
SHORT_ROWS = 8


class RowReductions:
    """Per-row reductions of (splits x places) arrays, the very numbers of numpy's ``min``,
    ``sum`` and ``cumsum`` along axis 1 (minima are exact; counts are of booleans, in integers)."""

    def __init__(self, width: int) -> None:
        self.short = width <= SHORT_ROWS
        self.ones = np.ones(width, dtype=np.int64)
        # (width x width: short rows only)
        self.upper = np.triu(np.ones((width, width), dtype=np.int64)) if self.short else None

    def least(self, values: np.ndarray) -> np.ndarray:
        """``values.min(axis=1)``."""
        if not self.short:
            return values.min(axis=1)
        least = values[:, 0]
        for column in range(1, values.shape[1]):
            least = np.minimum(least, values[:, column])
        return least

    def count(self, mask: np.ndarray) -> np.ndarray:
        """``mask.sum(axis=1)`` of a boolean ``mask``."""
        return mask @ self.ones if self.short else mask.sum(axis=1)

    def running(self, mask: np.ndarray) -> np.ndarray:
        """``np.cumsum(mask, axis=1)`` of a boolean ``mask``."""
        return mask @ self.upper if self.upper is not None else np.cumsum(mask, axis=1)


def unit_map_phase(map_work: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Map-phase completion times with one map slot, and the completion order.

    Under equal sharing the map phase never waits for reduces, and every rate
    scales with s_m: with s_m slots each job finishes its maps at time / s_m,
    in the same order. Simultaneous completions are ordered by position.
    """
    n = map_work.size
    finish = np.empty(n)
    completion_order: list[int] = []
    active = {p: float(map_work[p]) for p in range(min(k, n))}
    upcoming = len(active)
    clock = 0.0
    while active:
        share = 1.0 / len(active)
        step = min(active.values()) / share
        cutoff = step * (1.0 + SIMULTANEOUS)
        done = sorted(p for p, left in active.items() if left / share <= cutoff)
        clock += step
        for p in active:
            active[p] -= share * step
        for p in done:
            del active[p]
            finish[p] = clock
            completion_order.append(p)
        while len(active) < k and upcoming < n:
            active[upcoming] = float(map_work[upcoming])
            upcoming += 1
    return finish, np.asarray(completion_order, dtype=np.int64)


class ScaledGates:
    """Row c's gates times row c's s_m (`unit_map_phases`), each product made where it is read
    (the very products of the matrix, without its 8 bytes per split and job)."""

    ndim = 2

    def __init__(self, gate: np.ndarray, smap: np.ndarray) -> None:
        self.gate, self.smap = gate, smap
        self.shape = (smap.size, gate.size)

    def __getitem__(self, where: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        rows, columns = where
        return self.gate[columns] * self.smap[rows]


def unit_map_phases(map_work: np.ndarray, k: int, gates: np.ndarray | ScaledGates) -> tuple[np.ndarray, np.ndarray]:
    """`unit_map_phase` for many splits at once, with release gates: row c of ``gates`` is the
    gates times row c's s_m (releases do not scale with s_m, so each split has its own map phase).

    Time is kept in unit-slot seconds (seconds times s_m) and every step is the arithmetic of
    `unit_map_phase`, so with zero gates each row is its result exactly. Returns the finish
    times (configs x n, unit-slot seconds, by position) and each row's completion order.
    """
    configs, n = gates.shape
    every_row = np.broadcast_to(np.arange(configs)[:, None], (configs, min(k, n)))
    finish = np.zeros((configs, n))
    completion = np.zeros((configs, n), dtype=np.int64)

    reduced = RowReductions(min(k, n))

    def record(clock: np.ndarray, ended: np.ndarray, valid: np.ndarray, completed: np.ndarray, _: np.ndarray) -> None:
        finish[every_row[valid], ended[valid]] = clock[every_row[valid]]
        place = completed[:, None] + reduced.running(valid) - 1
        completion[every_row[valid], place[valid]] = ended[valid]

    _map_events(map_work, k, gates, record, reduced)
    return finish, completion


def _map_events(map_work: np.ndarray, k: int, gates: np.ndarray | ScaledGates,
                record: Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], None],
                reduced: RowReductions) -> None:
    """`unit_map_phases`' loop: at each event where maps end, ``record(clock, ended, valid,
    completed, ending)`` hears each row's clock, the positions that ended (``valid`` marks them;
    sorted where a row has more than one), how many had ended before and how many end now.
    ``reduced`` reduces rows of min(k, n) places (the caller's, shared with ``record``)."""
    configs, n = gates.shape
    width = min(k, n)
    rows = np.arange(configs)[:, None]
    job = np.full((configs, width), -1, dtype=np.int64)
    left = np.zeros((configs, width))
    upcoming = np.zeros(configs, dtype=np.int64)
    clock = np.zeros(configs)
    completed = np.zeros(configs, dtype=np.int64)
    job, left, upcoming = enter_map(job, left, upcoming, clock, gates, map_work, rows, reduced)
    while True:
        alive = completed < n
        if not alive.any():
            return
        occupied = job >= 0
        count = reduced.count(occupied)
        share = 1.0 / np.maximum(count, 1)
        ttf = np.where(occupied, left / share[:, None], np.inf)
        # the head of the admission order, when only its release keeps it out (M is never full
        # here while it waits: `enter_map` ran at the last event)
        blocked = (count < width) & (upcoming < n)
        release_gap = np.where(blocked, gates[rows[:, 0], np.minimum(upcoming, n - 1)] - clock, np.inf)
        step = np.where(alive, np.minimum(reduced.least(ttf), release_gap), 0.0)
        done = occupied & (ttf <= (step * (1.0 + SIMULTANEOUS))[:, None])
        clock = clock + step
        left = left - share[:, None] * step[:, None]
        if done.any():  # else a release only
            ended = np.where(done, job, n)
            ending = reduced.count(done)
            if ending.max() > 1:  # by position, as `unit_map_phase` (one end a row needs no sort)
                ended = np.sort(ended, axis=1)
            valid = ended < n
            record(clock, ended, valid, completed, ending)
            completed = completed + ending
            job = np.where(done, -1, job)
        job, left, upcoming = enter_map(job, left, upcoming, clock, gates, map_work, rows, reduced)


def enter_map(
    job: np.ndarray, left: np.ndarray, upcoming: np.ndarray, clock: np.ndarray,
    gates: np.ndarray | ScaledGates | None, work: np.ndarray, rows: np.ndarray, reduced: RowReductions,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fill M's empty places from the admission order, each job once its gate has passed.

    ``gates`` is per row (configs x n) or shared (n) or None (all 0). Release gates grow along
    the order; a row's gates (dependencies') need not, and a candidate waits for those before it,
    so the jobs admitted are a prefix of the ones waiting, as the strict order requires.
    """
    n = work.size
    empty = job < 0
    candidate = upcoming[:, None] + reduced.running(empty) - 1
    admit = empty & (candidate < n)
    if gates is not None:
        # a release within a relative SIMULTANEOUS of the clock has happened (rounding of
        # clock + gap must not keep a released job out)
        gate = gates[np.minimum(candidate, n - 1)] if gates.ndim == 1 else gates[rows, np.minimum(candidate, n - 1)]
        if isinstance(gates, np.ndarray) and gates.ndim == 2:
            # per-split gates of dependencies need not grow along the order: a place is admitted
            # only when every candidate before it is (the strict order)
            gate = np.maximum.accumulate(np.where(admit, gate, -np.inf), axis=1)
        admit &= gate <= (clock * (1.0 + SIMULTANEOUS))[:, None]
    job = np.where(admit, candidate, job)
    left = np.where(admit, work[np.minimum(candidate, n - 1)], left)
    return job, left, upcoming + reduced.count(admit)


def reduce_queues(phases: PhaseWork, k: int, gate: np.ndarray, smap: np.ndarray, m: int
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each split's map phase with its gates (`unit_map_phases`' events), writing as maps end
    what the reduce phase needs: per row, the m reduce-bearing jobs' map finishes (unit-slot
    seconds, +inf padded) and reduce work in completion order, and the last map-only finish
    (seconds). 16 bytes per split and job, where finish times, completion orders and gates
    held 48 (so a block holds three times the splits; the numbers are the same)."""
    configs, n = smap.size, phases.map_work.size
    every_row = np.broadcast_to(np.arange(configs)[:, None], (configs, min(k, n)))
    has_reduce, reduce_work = phases.reduce_work > 0, phases.reduce_work
    arrival = np.full((configs, m + 1), np.inf)
    work = np.zeros((configs, m))
    queued = np.zeros(configs, dtype=np.int64)
    last_map_only = np.zeros(configs)
    reduced = RowReductions(min(k, n))

    def record(clock: np.ndarray, ended: np.ndarray, valid: np.ndarray, _: np.ndarray, ending: np.ndarray) -> None:
        nonlocal queued, last_map_only
        to_reduce = valid & has_reduce[np.minimum(ended, n - 1)]
        running = reduced.running(to_reduce)
        place = queued[:, None] + running - 1
        row, column = every_row[to_reduce], place[to_reduce]
        arrival[row, column] = clock[row]
        work[row, column] = reduce_work[ended[to_reduce]]
        reducing = running[:, -1]  # each row's count of reduce-bearing ends
        queued = queued + reducing
        # clocks only grow: the latest map-only end is the largest
        last_map_only = np.where(ending > reducing, clock, last_map_only)

    _map_events(phases.map_work, k, ScaledGates(gate, smap), record, reduced)
    return arrival, work, last_map_only / smap
