"""Static map/reduce slot configuration: FRESH's Algorithm 1, vectorized across splits.

The fluid model (FRESH, Wang et al., Algorithm 1): jobs are admitted in a
given order; at most k jobs are in their map phase (set M) and at most k in
their reduce phase (set R), with a FIFO wait list R' between. Jobs in M share
the s_m map slots, jobs in R the s_r = S - s_m reduce slots; a phase's
remaining work W drains at the job's rate. Events are phase completions:

- a job finishing its maps leaves M (the next unadmitted job enters M) and goes
  to R, or to the tail of R' when R is full; a map-only job leaves the system;
- a job finishing its reduces leaves; the head of R' enters R;
- simultaneous completions are processed by admission position, maps first.

The makespan is the time the last job leaves. Two sharing models:

- ``"fresh"``: the paper's, each job of a phase progresses at s / |phase|,
  however few tasks it has left;
- ``"capped"``: a job never runs on more slots than it has unfinished tasks
  (ceil(W / mean task time), counted at each event); slots it cannot use go
  to the other jobs of its phase by water filling. Slots may idle when every
  job is capped.

All splits s_m = 1..S-1 are simulated together: every state variable is an
array with one row per split, and each loop iteration advances every split by
its own next event, so the loop runs at most 2n times whatever S is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from models import InvalidInput, Job
from models.checks import as_int, as_str
from solvers.base import Solution, SolveStatus, Stopwatch

MODELS = ("fresh", "capped")
#: Completions within this relative distance of the next event count as simultaneous.
SIMULTANEOUS = 1e-9
#: A remaining work this close above a whole number of tasks counts as that number.
TASK_EPSILON = 1e-9


@dataclass(frozen=True)
class SlotPlan(Solution):
    """The best static split for an admission order, and the whole makespan curve.

    ``makespans[i]`` is the predicted makespan with s_m = i + 1 map slots.
    """

    map_slots: int = 0
    reduce_slots: int = 0
    makespan: float = 0.0
    makespans: np.ndarray = field(default_factory=lambda: np.empty(0), compare=False, repr=False)
    order: tuple[int, ...] = ()
    k: int = 1
    model: str = "fresh"


@dataclass(frozen=True)
class PhaseWork:
    """The fluid model's view of a batch, in admission order."""

    map_work: np.ndarray
    reduce_work: np.ndarray
    map_time: np.ndarray
    reduce_time: np.ndarray

    @classmethod
    def from_jobs(cls, jobs: Sequence[Job], order: np.ndarray) -> PhaseWork:
        picked = [jobs[i] for i in order]
        return cls(
            np.array([j.map_work for j in picked], dtype=np.float64),
            np.array([j.reduce_work for j in picked], dtype=np.float64),
            np.array([j.map_time for j in picked], dtype=np.float64),
            np.array([j.reduce_time if j.reduce_tasks else 1.0 for j in picked], dtype=np.float64),
        )


def check_order(order: Sequence[int] | None, n: int) -> np.ndarray:
    """A permutation of range(n) as an int array (identity when None)."""
    if order is None:
        return np.arange(n, dtype=np.int64)
    array = np.asarray([as_int(i, f"order[{p}]", minimum=0) for p, i in enumerate(order)], dtype=np.int64)
    if array.size != n or not np.array_equal(np.sort(array), np.arange(n)):
        raise InvalidInput("order", f"must be a permutation of the {n} job indices")
    return array


def check_jobs(jobs: Sequence[Job]) -> list[Job]:
    jobs = list(jobs)
    if not jobs:
        raise InvalidInput("jobs", "need at least one job")
    for i, job in enumerate(jobs):
        if not isinstance(job, Job):
            raise InvalidInput(f"jobs[{i}]", f"must be a Job, got {type(job).__name__}")
        if job.map_tasks == 0:
            raise InvalidInput(f"jobs[{i}].map_tasks", f"job {job.name!r} has no tasks; slot planning needs task counts")
    return jobs


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
    phases: PhaseWork, total_slots: int, k: int, map_slots: np.ndarray, model: str = "fresh"
) -> np.ndarray:
    """Makespan of the batch (in admission order) for each map-slot count in ``map_slots``."""
    if model == "fresh":
        return _fresh_makespans(phases, total_slots, k, map_slots)
    return _general_makespans(phases, total_slots, k, map_slots, model)


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


def _fresh_makespans(phases: PhaseWork, total_slots: int, k: int, map_slots: np.ndarray) -> np.ndarray:
    """The "fresh" model for many splits: one scalar map phase, then reduce phases in lockstep.

    Reduce-bearing jobs reach R' in their map-completion order at time
    finish / s_m. Per split, R holds at most k of them sharing s_r equally; each
    loop iteration moves every split to its next event: a completion in R, or
    an arrival while R has room (arrivals to a full R only queue, so they are
    taken in bulk at the next completion).
    """
    finish, completion_order = unit_map_phase(phases.map_work, k)
    smap = map_slots.astype(np.float64)
    sred = float(total_slots) - smap
    has_reduce = phases.reduce_work[completion_order] > 0
    queue = completion_order[has_reduce]
    arrival = np.append(finish[queue], np.inf)
    work = phases.reduce_work[queue]
    m = queue.size
    map_only = completion_order[~has_reduce]
    last_map_only = finish[map_only].max() / smap if map_only.size else np.zeros_like(smap)
    configs = smap.size
    width = min(k, max(m, 1))
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
        next_arrival = arrival[arrived] * inverse_smap
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
        arrived = np.searchsorted(arrival[:m], event * smap * (1.0 + SIMULTANEOUS), side="right")
        entering = np.minimum(width - busy, arrived - entered)
        for rank in range(int(entering.max())):
            need = np.flatnonzero(entering > rank)
            slot = np.argmax(finish_mark[:, need], axis=0)  # an empty slot holds +inf
            finish_mark[slot, need] = virtual[need] + work[entered[need]]
            entered[need] += 1
            busy[need] += 1


def _general_makespans(
    phases: PhaseWork, total_slots: int, k: int, map_slots: np.ndarray, model: str
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
    map_job = np.full((configs, width), -1, dtype=np.int64)
    map_job[:, :] = np.arange(width)
    map_left = np.tile(phases.map_work[:width], (configs, 1))
    red_job = np.full((configs, width), -1, dtype=np.int64)
    red_left = np.zeros((configs, width))
    next_map = np.full(configs, width, dtype=np.int64)
    waiting = np.zeros((configs, n), dtype=np.int64)  # map-completion order: R' and all that entered R
    waiting_len = np.zeros(configs, dtype=np.int64)
    next_reduce = np.zeros(configs, dtype=np.int64)
    left = np.full(configs, n, dtype=np.int64)
    clock = np.zeros(configs)
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
        # refill M from the admission order
        map_job = np.where(map_done, -1, map_job)
        empty = map_job < 0
        candidate = next_map[:, None] + np.cumsum(empty, axis=1) - 1
        admit = empty & (candidate < n)
        map_job = np.where(admit, candidate, map_job)
        map_left = np.where(admit, phases.map_work[np.minimum(candidate, n - 1)], map_left)
        next_map = next_map + admit.sum(axis=1)
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


def configure_slots(
    jobs: Sequence[Job],
    total_slots: int,
    k: int,
    order: Sequence[int] | None = None,
    model: str = "fresh",
) -> SlotPlan:
    """The split s_m + s_r = total_slots minimizing the fluid makespan (module docstring).

    Every s_m in 1..S-1 is evaluated exactly under the model, so the answer is
    optimal for it; ties go to the smallest s_m.
    """
    clock = Stopwatch()
    jobs = check_jobs(jobs)
    total_slots = as_int(total_slots, "total_slots", minimum=2)
    k = as_int(k, "k", minimum=1)
    model = as_str(model, "model", choices=MODELS)
    admission = check_order(order, len(jobs))
    phases = PhaseWork.from_jobs(jobs, admission)
    makespans = fluid_makespans(phases, total_slots, k, np.arange(1, total_slots), model)
    best = int(np.argmin(makespans))
    value = float(makespans[best])
    return SlotPlan(
        status=SolveStatus.OPTIMAL,
        objective=value,
        bound=value,
        gap=0.0,
        solver=f"fluid-{model}-vectorized",
        seconds=clock.seconds,
        map_slots=best + 1,
        reduce_slots=total_slots - best - 1,
        makespan=value,
        makespans=makespans,
        order=tuple(int(i) for i in admission),
        k=k,
        model=model,
    )


def fluid_makespan(
    jobs: Sequence[Job],
    map_slots: int,
    reduce_slots: int,
    k: int,
    order: Sequence[int] | None = None,
    model: str = "fresh",
) -> float:
    """The fluid model's makespan for one given split."""
    jobs = check_jobs(jobs)
    map_slots = as_int(map_slots, "map_slots", minimum=1)
    reduce_slots = as_int(reduce_slots, "reduce_slots", minimum=1)
    k = as_int(k, "k", minimum=1)
    model = as_str(model, "model", choices=MODELS)
    phases = PhaseWork.from_jobs(jobs, check_order(order, len(jobs)))
    return float(fluid_makespans(phases, map_slots + reduce_slots, k, np.array([map_slots]), model)[0])
