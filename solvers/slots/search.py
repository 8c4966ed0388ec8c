"""The fluid curve's best split without the whole curve: a bounded search (`solvers.slots.configure`).

A curve with release times costs every split its own map phase (`solvers.slots.fluid`): the
FB-2010 day's 24,437 jobs on 12,000 slots take minutes a curve. The best split needs far fewer
splits under "fresh" (equal sharing), by two facts of that model (real arithmetic):

- the reduce stage is a work-conserving server of rate s_r (whenever reduce work waits, R holds
  a job and the s_r slots are shared among R's jobs), so the makespan is the later of the last
  map-only job's end and the time that server clears, max over q of A_q + (reduce work arriving
  at or after A_q) / s_r, where A_q are the map phase's ends (the jobs' arrivals in R');
- the map phase's ends only move earlier as s_m grows: with more map slots every job has entered
  M and ended its maps no later (by induction over events: under equal sharing a job's rate
  s_m / |M| only grows, because M holds fewer jobs or, when it is full, at most k).

So the map phase of a split s' (its ends, unit-slot seconds / s') bounds every split s <= s'
below: the clearing time of those arrivals at rate S - s, or the last map-only end. The search
runs the map phase of a grid of splits (`GRID_SPLITS`), bounds every split from the grid point
at or above it, evaluates exactly (`fluid_makespans`, the very numbers of the whole curve, split
by split) the splits whose bound is within `BOUND_MARGIN` of the best value, and repeats with the
best value found until no split is left within the margin of it. The best split and its value
are the whole curve's, ties to the smallest s_m. The margin covers the event loops' tolerance
(`solvers.slots.work.SIMULTANEOUS`: ends within a relative 1e-9 are taken together, so a computed
makespan may fall below the model's by about that much, and below a split's bound). The largest
seen: a value 1.7e-8 below its bound, on the FB-2010 trace's first 2,577 jobs in Johnson's order
(every split's value and bound compared, split 11,047), 60 times below the margin; the margin
cannot shrink much. On those jobs with their submit times (S = 12,000, k = 5) the grid of 120
splits leaves 105 splits to evaluate. Where the curve is flat, every split within the margin of
the best is evaluated: on the whole FB-2010 day as imported (24,442 jobs) the search in
submission order evaluates 775 splits, most of them within 1e-6 of the best.

Other models ("capped" idles slots), batches without releases (one map phase serves every split:
the whole curve is cheap) and batches with dependencies evaluate every split.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from solvers.slots.fluid import BLOCK_BYTES, MAX_BLOCK_SPLITS, bytes_per_entry, fluid_makespans
from solvers.slots.maps import reduce_queues
from solvers.slots.work import PhaseWork

#: About how many splits' map phases bound the others.
GRID_SPLITS = 128
#: A split is evaluated when its bound is at most the best value found times 1 + this.
BOUND_MARGIN = 1e-6


@dataclass(frozen=True)
class SplitSearch:
    """The best split (``map_slots``, ties to the smallest) and its makespan, the values of every
    split evaluated exactly (``values``, map slots -> makespan) and how many map phases ran for
    bounds only (``bounded``)."""

    map_slots: int
    makespan: float
    values: dict[int, float]
    bounded: int


def bounded_search(phases: PhaseWork, total_slots: int, k: int, model: str, also: Iterable[int] = (),
                   progress: Callable[[int], None] | None = None) -> SplitSearch:
    """The split of 1..total_slots-1 with the least fluid makespan (module docstring), and the
    values of the splits in ``also`` (evaluated in the same pass). ``progress(splits)`` hears
    each batch of splits whose map phases ran."""
    splits = total_slots - 1
    wanted = sorted({int(s) for s in also})
    gates = phases.gates()
    if model != "fresh" or phases.after is not None or gates is None or not gates.any() \
            or splits <= 4 * GRID_SPLITS:
        every = np.arange(1, total_slots)
        return _searched(phases, total_slots, k, model, every, {}, 0, progress)
    grid = np.unique(np.r_[np.arange(splits // GRID_SPLITS, total_slots, max(1, splits // GRID_SPLITS)),
                           splits]).astype(np.int64)
    bound = _bounds(phases, total_slots, k, gates, grid)
    if progress is not None:
        progress(grid.size)
    # a grid point's bound is its value but for rounding: the best of them starts the search
    values: dict[int, float] = {}
    threshold = float(bound[grid - 1].min())
    while True:
        todo = [s for s in (np.flatnonzero(bound <= threshold * (1.0 + BOUND_MARGIN)) + 1).tolist()
                if s not in values] + [s for s in wanted if s not in values]
        if not todo:
            break
        found = _evaluate(phases, total_slots, k, model, np.array(sorted(todo), dtype=np.int64), progress)
        values.update(found)
        threshold = min(v for s, v in values.items() if 1 <= s < total_slots)
        wanted = []
    return _best(values, grid.size)


def _searched(phases: PhaseWork, total_slots: int, k: int, model: str, splits: np.ndarray,
              values: dict[int, float], bounded: int, progress: Callable[[int], None] | None) -> SplitSearch:
    values = {**values, **_evaluate(phases, total_slots, k, model, splits, progress)}
    return _best(values, bounded)


def _best(values: dict[int, float], bounded: int) -> SplitSearch:
    best = min(values, key=lambda s: (values[s], s))
    return SplitSearch(best, values[best], values, bounded)


def _evaluate(phases: PhaseWork, total_slots: int, k: int, model: str, splits: np.ndarray,
              progress: Callable[[int], None] | None) -> dict[int, float]:
    """The fluid makespans of ``splits`` (increasing), exactly as the whole curve has them."""
    reported = 0

    def heard(done: int, _: int) -> None:
        nonlocal reported
        if progress is not None:
            progress(done - reported)
        reported = done

    made = fluid_makespans(phases, total_slots, k, splits, model, heard)
    return {int(s): float(v) for s, v in zip(splits, made, strict=True)}


def _bounds(phases: PhaseWork, total_slots: int, k: int, gates: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """A lower bound on every split's makespan (index s - 1), from the map phases of ``grid``
    (increasing, ending at total_slots - 1): split s is bounded by the grid point at or above it."""
    n = phases.map_work.size
    m = int((phases.reduce_work > 0).sum())
    block = max(1, min(MAX_BLOCK_SPLITS, BLOCK_BYTES // (bytes_per_entry("fresh") * max(n, 1))))
    bound = np.empty(total_slots - 1)
    low = 1
    for start in range(0, grid.size, block):
        points = grid[start:start + block]
        arrival, work, last_map_only = reduce_queues(phases, k, gates, points.astype(np.float64), m)
        for row, point in enumerate(points.tolist()):
            splits = np.arange(low, point + 1, dtype=np.float64)
            reduce_slots = float(total_slots) - splits
            ends = arrival[row, :m] / float(point)  # seconds, in completion order (increasing)
            later = np.cumsum(work[row, ::-1])[::-1]  # reduce work arriving at or after each end
            cleared = (ends[None, :] + later[None, :] / reduce_slots[:, None]).max(axis=1) if m else 0.0
            bound[low - 1:point] = np.maximum(cleared, last_map_only[row])
            low = point + 1
    return bound
