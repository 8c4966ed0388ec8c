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

Release times (``releases``, optional): the job at admission position p enters
M only when M has fewer than k jobs, t >= its release, and every job before it
in the admission order has entered M; so an unreleased job blocks the ones
after it (the order is strict, as the simulator runs a plan whose submission
times are s_p = max(r_p, s_{p-1})). Releases that gate the head of the order
while M has room are events; when nothing runs, time jumps to the release.
Without releases every job is ready at t = 0.

The makespan is the time the last job leaves, measured from t = 0. Two sharing models:

- ``"fresh"``: the paper's, each job of a phase progresses at s / |phase|,
  however few tasks it has left;
- ``"capped"``: a job never runs on more slots than it has unfinished tasks
  (ceil(W / mean task time), counted at each event); slots it cannot use go
  to the other jobs of its phase by water filling. Slots may idle when every
  job is capped.

All splits s_m = 1..S-1 are simulated together (`solvers.slots.fluid`): every
state variable is an array with one row per split, and each loop iteration
advances every split by its own next event, so the loop runs at most 2n times
(about 3n with releases) whatever S is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from models import InvalidInput, Job
from models.checks import as_array, as_float, as_int, as_items, as_iterable, as_str, shown
from models.limits import MAX_JOBS, MAX_SECONDS, MAX_TOTAL_SLOTS
from models.workload import as_jobs
from solvers.base import Solution, SolveStatus, Stopwatch
from solvers.slots.fluid import fluid_makespans
from solvers.slots.work import PhaseWork

MODELS = ("fresh", "capped")
#: ``releases="submit"``: each job's ``submit`` time is its release.
FROM_SUBMIT = "submit"
Releases = Sequence[float] | np.ndarray | Literal["submit"] | None

__all__ = [
    "FROM_SUBMIT", "MODELS", "Releases", "SlotPlan", "best_split", "check_jobs", "check_order", "check_releases",
    "configure_slots", "fluid_makespan",
]


@dataclass(frozen=True)
class SlotPlan(Solution):
    """The best static split for an admission order, and the whole makespan curve.

    ``makespans[i]`` is the predicted makespan with s_m = i + 1 map slots;
    ``releases`` are the release times planned with (in the jobs' order), None when none were given.
    """

    map_slots: int = 0
    reduce_slots: int = 0
    makespan: float = 0.0
    makespans: np.ndarray = field(default_factory=lambda: np.empty(0), compare=False, repr=False)
    order: tuple[int, ...] = ()
    k: int = 1
    model: str = "fresh"
    releases: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        put = object.__setattr__
        put(self, "map_slots", as_int(self.map_slots, "map_slots", minimum=0))
        put(self, "reduce_slots", as_int(self.reduce_slots, "reduce_slots", minimum=0))
        put(self, "makespan", as_float(self.makespan, "makespan", minimum=0.0))
        put(self, "makespans", as_array(self.makespans, "makespans", minimum=0.0))
        put(self, "order", tuple(as_int(i, f"order[{p}]", minimum=0) for p, i in enumerate(as_items(self.order, "order"))))
        put(self, "k", as_int(self.k, "k", minimum=1))
        put(self, "model", as_str(self.model, "model", choices=MODELS))
        if self.releases is not None:
            put(self, "releases", tuple(as_float(r, f"releases[{p}]", minimum=0.0)
                                        for p, r in enumerate(as_items(self.releases, "releases"))))


def check_order(order: Sequence[int] | None, n: int) -> np.ndarray:
    """A permutation of range(n) as an int array (identity when None)."""
    if order is None:
        return np.arange(n, dtype=np.int64)
    array = np.asarray([as_int(i, f"order[{p}]", minimum=0, maximum=max(n - 1, 0))
                        for p, i in enumerate(as_iterable(order, "order"))], dtype=np.int64)
    if array.size != n or not np.array_equal(np.sort(array), np.arange(n)):
        raise InvalidInput("order", f"must be a permutation of the {n} job indices")
    return array


def check_jobs(jobs: Sequence[Job]) -> list[Job]:
    jobs = as_jobs(jobs)
    if not jobs:
        raise InvalidInput("jobs", "need at least one job")
    for i, job in enumerate(jobs):
        if not isinstance(job, Job):
            raise InvalidInput(f"jobs[{i}]", f"must be a Job, got {type(job).__name__}")
        if job.map_tasks == 0:
            raise InvalidInput(f"jobs[{i}].map_tasks", f"job {job.name!r} has no tasks; slot planning needs task counts")
    return jobs


def check_releases(releases: Releases, jobs: Sequence[Job]) -> np.ndarray | None:
    """One finite release time >= 0 per job (in the jobs' order) as a float array; None stays None
    and ``"submit"`` reads each job's ``submit``."""
    if releases is None:
        return None
    if isinstance(releases, str):
        if releases != FROM_SUBMIT:
            raise InvalidInput("releases", f'must be a list of numbers, "{FROM_SUBMIT}" or null, got {shown(releases)}')
        return np.array([job.submit for job in jobs], dtype=np.float64)
    try:
        values = list(releases)
    except TypeError:
        raise InvalidInput("releases", f"must be a list of numbers, got {type(releases).__name__}") from None
    if len(values) != len(jobs):
        raise InvalidInput("releases", f"must give one release time per job ({len(jobs)}), got {len(values)}")
    return np.array([as_float(value, f"releases[{i}]", minimum=0.0, maximum=MAX_SECONDS)
                     for i, value in enumerate(values)], dtype=np.float64)


def configure_slots(
    jobs: Sequence[Job],
    total_slots: int,
    k: int,
    order: Sequence[int] | None = None,
    model: str = "fresh",
    releases: Releases = None,
    progress: Callable[[int, int], None] | None = None,
) -> SlotPlan:
    """The split s_m + s_r = total_slots minimizing the fluid makespan (module docstring).

    Every s_m in 1..S-1 is evaluated exactly under the model, so the answer is
    optimal for it; ties go to the smallest s_m. ``releases`` (optional) are the
    jobs' release times in seconds from t = 0, one per job in the jobs' order (not
    the admission order), or ``"submit"`` for each job's ``submit``; the admission
    order stays strict (a job not yet released holds back the ones after it) and
    the makespan is measured from t = 0. None: every job is ready at 0.
    ``progress(done, total)`` (optional) hears how many of the S - 1 splits are evaluated,
    a block of splits at a time (`solvers.slots.fluid.BLOCK_BYTES`).
    """
    clock = Stopwatch()
    jobs, total_slots, k, model, admission, release = _checked(jobs, total_slots, k, order, model, releases)
    if progress is not None and not callable(progress):
        raise InvalidInput("progress", f"must be a function of (done, total) or None, got {shown(progress)}")
    phases = PhaseWork.from_jobs(jobs, admission, release)
    makespans = fluid_makespans(phases, total_slots, k, np.arange(1, total_slots), model, progress)
    best = int(np.argmin(makespans))
    return _solved("vectorized", clock, best + 1, float(makespans[best]), total_slots, k, model, admission, release,
                   makespans)


def _checked(jobs: Sequence[Job], total_slots: int, k: int, order: Sequence[int] | None, model: str,
             releases: Releases) -> tuple[list[Job], int, int, str, np.ndarray, np.ndarray | None]:
    """`configure_slots`' and `best_split`'s arguments, checked: (jobs, total_slots, k, model,
    admission order, release times or None)."""
    jobs = check_jobs(jobs)
    total_slots = as_int(total_slots, "total_slots", minimum=2, maximum=MAX_TOTAL_SLOTS)
    k = as_int(k, "k", minimum=1, maximum=MAX_JOBS)
    model = as_str(model, "model", choices=MODELS)
    return jobs, total_slots, k, model, check_order(order, len(jobs)), check_releases(releases, jobs)


def _solved(method: str, clock: Stopwatch, map_slots: int, makespan: float, total_slots: int, k: int, model: str,
            admission: np.ndarray, release: np.ndarray | None, makespans: np.ndarray | None = None) -> SlotPlan:
    """The optimal split under the fluid model (its makespan is its own bound) as a `SlotPlan`;
    ``makespans`` the whole curve when it was computed."""
    return SlotPlan(
        status=SolveStatus.OPTIMAL,
        objective=makespan,
        bound=makespan,
        gap=0.0,
        solver=f"fluid-{model}-{method}",
        seconds=clock.seconds,
        map_slots=map_slots,
        reduce_slots=total_slots - map_slots,
        makespan=makespan,
        makespans=np.empty(0) if makespans is None else makespans,
        order=tuple(int(i) for i in admission),
        k=k,
        model=model,
        releases=None if release is None else tuple(float(r) for r in release),
    )


def best_split(
    jobs: Sequence[Job],
    total_slots: int,
    k: int,
    order: Sequence[int] | None = None,
    model: str = "fresh",
    releases: Releases = None,
    also: Sequence[int] = (),
    progress: Callable[[int], None] | None = None,
) -> tuple[SlotPlan, dict[int, float]]:
    """`configure_slots`' best split and makespan without its whole curve (the plan's
    ``makespans`` is empty): a search that evaluates, exactly as the curve does, only the splits
    a bound cannot rule out (`solvers.slots.search`), with the values of the map-slot counts in
    ``also`` (map slots -> makespan, the curve's numbers). ``progress(splits)`` hears each batch
    of splits whose map phases ran."""
    clock = Stopwatch()
    jobs, total_slots, k, model, admission, release = _checked(jobs, total_slots, k, order, model, releases)
    wanted = [as_int(s, f"also[{i}]", minimum=1, maximum=total_slots - 1) for i, s in enumerate(also)]
    from solvers.slots.search import bounded_search

    found = bounded_search(PhaseWork.from_jobs(jobs, admission, release), total_slots, k, model, wanted, progress)
    plan = _solved("bounded", clock, found.map_slots, found.makespan, total_slots, k, model, admission, release)
    return plan, {s: found.values[s] for s in wanted}


def fluid_makespan(
    jobs: Sequence[Job],
    map_slots: int,
    reduce_slots: int,
    k: int,
    order: Sequence[int] | None = None,
    model: str = "fresh",
    releases: Releases = None,
) -> float:
    """The fluid model's makespan for one given split (``releases`` as in `configure_slots`)."""
    jobs = check_jobs(jobs)
    map_slots = as_int(map_slots, "map_slots", minimum=1, maximum=MAX_TOTAL_SLOTS)
    reduce_slots = as_int(reduce_slots, "reduce_slots", minimum=1, maximum=MAX_TOTAL_SLOTS)
    k = as_int(k, "k", minimum=1, maximum=MAX_JOBS)
    model = as_str(model, "model", choices=MODELS)
    phases = PhaseWork.from_jobs(jobs, check_order(order, len(jobs)), check_releases(releases, jobs))
    return float(fluid_makespans(phases, map_slots + reduce_slots, k, np.array([map_slots]), model)[0])
