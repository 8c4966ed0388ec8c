"""Static slot configuration: the vectorized fluid model against the one-loop-per-s_m reference."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from benchmarks.reference_slots import reference_makespans
from benchmarks.registry import Row, register, timed
from models import Job
from solvers import configure_slots
from solvers.slots import PhaseWork

FLOOR_SECONDS = 0.025
FLOOR_SPEEDUP = 5.0
#: The SWIM FB-2009 day; its first jobs' submit times are the release times of the release rows.
FB_DAY = Path(__file__).resolve().parent.parent / "tests" / "data" / "FB-2009_samples_24_times_1hr_0.tsv"


def batch(n: int, maps: int, reduces: int, seed: int = 0) -> list[Job]:
    """n jobs of ``maps`` and ``reduces`` tasks; mean task times drawn uniformly from
    10-60 s (maps) and 20-120 s (reduces)."""
    rng = np.random.default_rng(seed)
    return [
        Job(f"j{i}", maps, reduces, float(rng.uniform(10, 60)), float(rng.uniform(20, 120))) for i in range(n)
    ]


@register("slots")
def slot_configuration(suite: str) -> list[Row]:
    """configure_slots (all s_m at once) vs a plain-Python loop per s_m, same model, same answers."""
    cases = [(500, 100, 200, 200, 5, True)]  # the floor instance; the paper reports 0.578 s
    if suite == "full":
        cases += [(100, 20, 50, 20, 3, False), (1000, 100, 200, 200, 5, False), (500, 500, 100, 50, 10, False)]
    repeats = 9 if suite == "quick" else 15
    rows = []
    for total, n, maps, reduces, k, floor in cases:
        jobs = batch(n, maps, reduces)
        instance = f"S={total} n={n} maps={maps} reduces={reduces} k={k}"
        fast_seconds, plan = timed(lambda jobs=jobs, total=total, k=k: configure_slots(jobs, total, k), repeats)
        phases = PhaseWork.from_jobs(jobs, np.arange(n))
        ref_seconds, reference = timed(lambda p=phases, t=total, k=k: reference_makespans(p, t, k), 1 if suite == "quick" else 3)
        difference = float(np.max(np.abs(plan.makespans - reference) / reference))
        same_choice = plan.map_slots == int(np.argmin(reference)) + 1
        speedup = ref_seconds / fast_seconds
        floor_seconds = min(FLOOR_SECONDS, ref_seconds / FLOOR_SPEEDUP) if floor else None
        agreement = f"same s_m: {same_choice}; max relative difference of the curves {difference:.1e}"
        rows.append(Row("slots", instance, "vectorized", plan.makespan, plan.bound, plan.gap, fast_seconds,
                        str(plan.status), repeats, floor_seconds,
                        f"s_m={plan.map_slots}; {speedup:.0f}x faster than the reference; {agreement}"))
        rows.append(Row("slots", instance, "reference loop", float(reference.min()), None, None, ref_seconds,
                        "optimal", 1 if suite == "quick" else 3, None, f"s_m={int(np.argmin(reference)) + 1}"))
        if not same_choice or difference > 1e-12:
            raise RuntimeError(f"{instance}: vectorized and reference disagree ({agreement})")
    rows += release_rows(suite)
    return rows


def release_rows(suite: str) -> list[Row]:
    """The whole curve on the FB-2009 day's first n jobs with their submit times as release times
    (``releases="submit"``: each split runs its own map phase) against the same jobs all ready at 0."""
    from planner.io.swim import read_swim  # the importer only for these rows

    day = list(read_swim(FB_DAY))
    total, k = 500, 5
    repeats = 3 if suite == "quick" else 7
    rows = []
    for n in (100,) if suite == "quick" else (100, 500):
        jobs = day[:n]
        instance = f"FB-2009 first {n} jobs, S={total} k={k}"
        for label, releases in (("vectorized, no releases", None), ("vectorized, releases=submit", "submit")):
            seconds, plan = timed(lambda jobs=jobs, r=releases: configure_slots(jobs, total, k, releases=r), repeats)
            rows.append(Row("slots", instance, label, plan.makespan, plan.bound, plan.gap, seconds, str(plan.status),
                            repeats, None, f"s_m={plan.map_slots}; last release {max(j.submit for j in jobs):.0f} s"))
    return rows
