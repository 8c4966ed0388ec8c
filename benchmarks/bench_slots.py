"""Static slot configuration: the vectorized fluid model against the one-loop-per-s_m reference."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from benchmarks.reference_slots import reference_makespans
from benchmarks.registry import Row, register, timed
from models import Job
from solvers import configure_slots
from solvers.slots.work import PhaseWork

FLOOR_SECONDS = 0.025
FLOOR_SPEEDUP = 5.0
#: The SWIM FB-2009 day; its first jobs' submit times are the release times of the release rows.
FB_DAY = Path(__file__).resolve().parent.parent / "tests" / "data" / "FB-2009_samples_24_times_1hr_0.tsv"
#: The FB-2010 day; its first two hours (2,577 jobs) on the day's 3,000 nodes x 4 slots are the block rows.
FB2010_DAY = FB_DAY.parent / "FB-2010_samples_24_times_1hr_0.tsv"


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
    if suite == "full":
        rows += [_blocks_row(label, block_bytes) for label, block_bytes in
                 (("blocks of BLOCK_BYTES (the default)", None), ("one pass (blocks as large as it takes)", 2**62))]
    return rows


#: Run in a child process, so that its peak RSS is the curve's alone.
_CHILD = """
import json, resource, sys, time
from planner.io.swim import read_swim
from solvers import configure_slots
from solvers.slots import fluid
if sys.argv[2] != "None":  # one pass: no cap on the bytes nor on the splits of a block
    fluid.BLOCK_BYTES = int(sys.argv[2])
    fluid.MAX_BLOCK_SPLITS = 2**62
jobs = read_swim(sys.argv[1], window=(0, 7200))
start = time.process_time()
plan = configure_slots(jobs, 12000, 5, releases="submit")
print(json.dumps({"seconds": time.process_time() - start, "jobs": len(jobs), "makespan": plan.makespan,
                  "map_slots": plan.map_slots, "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _blocks_row(label: str, block_bytes: int | None) -> Row:
    """The whole curve of the FB-2010 trace's first two hours with releases (S = 12,000, k = 5):
    CPU seconds and peak RSS of a child process."""
    done = subprocess.run([sys.executable, "-c", _CHILD, str(FB2010_DAY), str(block_bytes)], capture_output=True,
                          text=True, check=False, cwd=Path(__file__).resolve().parent.parent)
    if done.returncode:
        raise RuntimeError(f"the blocks run failed: {done.stderr.strip().splitlines()[-1:]}")
    run = json.loads(done.stdout)
    return Row("slots", f"FB-2010 first {run['jobs']:,} jobs (2 h), S=12000 k=5, releases=submit", label,
               run["makespan"], None, None, run["seconds"], "optimal", 1, None,
               f"seconds = CPU seconds; peak RSS {run['rss']:,.0f} MB; s_m={run['map_slots']}")
