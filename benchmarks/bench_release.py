"""Ordering with release times and due dates: every method on random and SWIM-derived batches of 20 and 50 jobs,
and the exact methods against exhaustive search."""

from __future__ import annotations

import time
from functools import cache
from pathlib import Path

import numpy as np

from benchmarks.registry import Row, register, timed
from solvers import PsoOptions, SolveStatus, order_with_releases

#: The FB-2009 day of the SWIM traces (the same file as shared/data/swim/).
FB_DAY = Path(__file__).resolve().parent.parent / "tests" / "data" / "FB-2009_samples_24_times_1hr_0.tsv"
MAP_SLOTS, REDUCE_SLOTS = 48, 32
#: The issue's floors: 20 jobs proven optimal within 10 s; 50 jobs within 2% in 60 s.
FLOORS = {20: (10.0, 0.0), 50: (60.0, 0.02)}
#: Time limits handed to the solvers (the rest of the floor covers the heuristic and reading back).
LIMITS = {20: 9.5, 50: 58.0}


def random_batch(n: int, seed: int, due_rule: str = "proportional") -> tuple[np.ndarray, ...]:
    """a, b uniform on [1, 100]; releases uniform over half the total stage-1 work (the hard regime: the map
    stage is about twice as loaded as the release window); due dates r_j + k_j (a_j + b_j) with k_j uniform on
    [1, 4] ("proportional", a service level per job), or r_j + a_j + b_j + a uniform slack of up to half the
    total stage-1 work ("window")."""
    rng = np.random.default_rng(seed)
    a, b = rng.uniform(1, 100, n), rng.uniform(1, 100, n)
    r = rng.uniform(0, 0.5 * a.sum(), n)
    if due_rule == "proportional":
        due = r + (a + b) * rng.uniform(1, 4, n)
    else:
        due = r + a + b + rng.uniform(0, 0.5 * a.sum(), n)
    return a, b, r, due


@cache
def _day() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    from planner.io.swim import read_swim

    jobs = sorted(read_swim(FB_DAY).jobs, key=lambda job: job.submit)
    return (np.array([job.submit for job in jobs]), np.array([job.map_work for job in jobs]) / MAP_SLOTS,
            np.array([job.reduce_work for job in jobs]) / REDUCE_SLOTS)


def swim_windows(n: int, count: int) -> list[float]:
    """Start times of the ``count`` windows of n consecutive FB-2009 jobs whose two stages are loaded closest to
    their capacity (sum a and sum b against the span of submissions, on 48 map and 32 reduce slots; no job with
    half the map work; windows that do not split equal submit times), best first and not overlapping: the
    hardest realistic batches of the day."""
    submit, a, b = _day()
    scored = []
    for i in range(1, submit.size - n):
        span = submit[i + n - 1] - submit[i]
        if span <= 0 or submit[i] == submit[i - 1] or submit[i + n] == submit[i + n - 1]:
            continue
        if a[i:i + n].max() > 0.5 * a[i:i + n].sum() or b[i:i + n].sum() <= 0:
            continue
        scored.append((abs(np.log(a[i:i + n].sum() / span)) + abs(np.log(b[i:i + n].sum() / span)), i))
    chosen: list[int] = []
    for _, i in sorted(scored):
        if len(chosen) < count and all(abs(i - j) >= n for j in chosen):
            chosen.append(i)
    return [float(submit[i]) for i in chosen]


def swim_batch(n: int, start: float) -> tuple[np.ndarray, ...]:
    """The n jobs submitted from ``start`` on (read with ``window=``), releases = submit times from the window's
    start, a = map_work / 48, b = reduce_work / 32, due dates submit + 3 (a + b) (as the Natjam streams')."""
    from planner.io.swim import read_swim

    submit = _day()[0]
    end = float(submit[int(np.searchsorted(submit, start)) + n])
    jobs = read_swim(FB_DAY, window=(start, end)).jobs
    a = np.array([job.map_work for job in jobs]) / MAP_SLOTS
    b = np.array([job.reduce_work for job in jobs]) / REDUCE_SLOTS
    r = np.array([job.submit for job in jobs])
    return a, b, r, r + 3 * (a + b)


def _rows(label: str, batch: tuple[np.ndarray, ...], objective: str, methods: tuple[str, ...], pso: PsoOptions,
          floored: bool = True) -> list[Row]:
    a, b, r, due = batch
    n = a.size
    rows, best = [], None
    for name in methods:
        options: dict[str, object] = {"time_limit": LIMITS[n]} if name in ("branch_and_bound", "milp") else {}
        if name == "pso":
            options["pso"] = pso
        seconds, found = timed(lambda name=name, o=options: order_with_releases(
            a, b, r, due, objective=objective, method=name, **o), 1)
        floor_seconds, floor_gap = FLOORS[n] if name == "branch_and_bound" and floored else (None, None)
        if name == "branch_and_bound":
            best = found.objective
        detail = f"{n} jobs; {found.solver}"
        if best is not None and name != "branch_and_bound":
            detail += f"; {found.objective - best:+.4g} against branch_and_bound"
        rows.append(Row("release_ordering", f"{label}, {objective}", name, found.objective, found.bound,
                        found.gap, seconds, str(found.status), 1, floor_seconds, detail, floor_gap))
    return rows


def _agreement(method: str, objective: str, count: int) -> Row:
    """``count`` random batches of 2-7 jobs (2-6 for the MILP): objective = disagreements with exhaustive."""
    started = time.perf_counter()
    wrong = 0
    for index in range(count):
        rng = np.random.default_rng(np.random.SeedSequence([23, index]))
        n = int(rng.integers(2, 7 if method == "milp" else 8))
        a, b, r, due = random_batch(n, int(rng.integers(1 << 30)))
        a, b, r, due = (x.round(1) for x in (a, b, r, due))
        due = np.maximum(due, r + 0.1)
        best = order_with_releases(a, b, r, due, objective=objective, method="exhaustive").objective
        found = order_with_releases(a, b, r, due, objective=objective, method=method, time_limit=30)
        wrong += found.status is not SolveStatus.OPTIMAL or abs(found.objective - best) > 1e-6 * max(abs(best), 1)
    return Row("release_ordering", f"{count} random batches of 2-7 jobs, {objective}", f"{method} vs exhaustive",
               float(wrong), 0.0, float(wrong), time.perf_counter() - started, "agree" if wrong == 0 else "DISAGREE",
               1, None, "disagreements with exhaustive search (status or objective)", floor_gap=0.0)


@register("release_ordering")
def release_ordering(suite: str) -> list[Row]:
    """order_with_releases by branch_and_bound, milp, johnson and pso on random batches (releases over half the
    stage-1 work) and FB-2009 SWIM windows (48 map, 32 reduce slots), makespan and max_lateness (and late_jobs
    in the full suite, without a floor); floors on branch_and_bound: 20 jobs optimal <= 10 s, 50 jobs gap <= 2%
    <= 60 s; and the exact methods against exhaustive search."""
    full = suite == "full"
    rows = [_agreement(method, objective, 60 if full else 15)
            for method in ("branch_and_bound", "milp") for objective in ("makespan", "max_lateness", "late_jobs")]
    pso = PsoOptions() if full else PsoOptions(particles=500, iterations=100)
    cases = []
    for n, seeds, windowed, swims in ((20, 5, 3, 3), (50, 3, 3, 2)) if full else ((20, 2, 0, 1), (50, 1, 0, 1)):
        cases += [(f"random n={n} seed={seed}", random_batch(n, seed)) for seed in range(seeds)]
        cases += [(f"random n={n} seed={seed}, window due dates", random_batch(n, seed, "window"))
                  for seed in range(windowed)]
        cases += [(f"FB-2009 n={n} from {start:g} s", swim_batch(n, start)) for start in swim_windows(n, swims)]
    for label, batch in cases:
        n = batch[0].size
        methods = ("branch_and_bound", "johnson", "pso") + (("milp",) if n == 20 or full else ())
        for objective in ("makespan", "max_lateness") + (("late_jobs",) if full else ()):
            rows += _rows(label, batch, objective, methods, pso, floored=objective != "late_jobs")
    return rows
