"""Dependencies at scale: the FB-2009 day with a synthetic pipeline structure against the same day
without one (issue 40).

The workload: the SWIM FB-2009 day (`tests/data/FB-2009_samples_24_times_1hr_0.tsv`, the bytes of
../shared/data/swim's; 5,894 jobs imported; the first 500 in the quick suite), and the same jobs
with `planner.io.pipelines.add_pipelines` (30% of the jobs wait for one of the 5 latest earlier
jobs of their pool, seed 0, no delay). Both run on the 600-node cluster of the `simulator`
benchmark's scale rows (20 racks, 2 map and 2 reduce slots a node, heartbeat 3 s) under fair
sharing with delay scheduling (15 + 15 s), one after the other, alternating (without, with,
without, ...), so that both see the same machine; the seconds are the medians of each.

Floor (issue 40): the day with pipelines simulates in at most 1.2x the time of the day without
(``floor_seconds`` of the pipelines row: 1.2 x the median without, measured in the same run). The
seconds are CPU seconds of `simulate` alone (the import and `add_pipelines` excluded): the machine
is shared, and CPU time is what a run costs whatever else runs beside it.
"""

from __future__ import annotations

import statistics
from pathlib import Path

from benchmarks.registry import Row, core_build, cpu_seconds, register

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
FB_DAY = DATA / "FB-2009_samples_24_times_1hr_0.tsv"
FRACTION = 0.3
SEED = 0
FLOOR_RATIO = 1.2
DELAY = (15.0, 15.0)
REPEATS = {"quick": 7, "full": 5}


@register("pipelines")
def pipelines(suite: str) -> list[Row]:
    """The FB-2009 day with 30% of its jobs waiting for an earlier job of their pool, against the day without."""
    from models import Cluster
    from planner.io.pipelines import add_pipelines
    from planner.io.swim import read_swim
    from planner.simulator import Fair, simulate

    whole = suite == "full"
    plain = read_swim(FB_DAY) if whole else read_swim(FB_DAY, limit=500)
    piped = add_pipelines(plain, FRACTION, seed=SEED)
    cluster = Cluster(nodes=600, racks=20)
    waiting = sum(1 for job in piped if job.after)
    instance = (f"FB-2009 {'day' if whole else 'first 500 jobs'} ({len(plain):,} jobs), {cluster.nodes} nodes / "
                f"{cluster.racks} racks, heartbeat {cluster.heartbeat:g} s, fair with delay {DELAY[0]:g}+{DELAY[1]:g} s")
    repeats = REPEATS[suite]
    times: dict[bool, list[float]] = {False: [], True: []}
    results = {}
    for _ in range(repeats):
        for dependent, batch in ((False, plain), (True, piped)):
            seconds, results[dependent] = cpu_seconds(lambda batch=batch: simulate(batch, cluster, Fair(delay=DELAY)))
            times[dependent].append(seconds)
    without, with_pipes = statistics.median(times[False]), statistics.median(times[True])
    rows = []
    for dependent, method in ((False, "no dependencies"), (True, f"pipelines ({FRACTION:.0%} of jobs, seed {SEED})")):
        result = results[dependent]
        held = [job for job in result.jobs if job["held_by"] is not None]
        detail = (f"objective = makespan (s); CPU seconds of simulate() alone, median of {repeats} runs alternating "
                  f"with the other row's (each: {', '.join(f'{s:.2f}' for s in times[dependent])}); "
                  f"{len(result.attempts):,} attempts; mean response {statistics.fmean(j['response'] for j in result.jobs):,.0f} s; "
                  f"{core_build()}")
        if dependent:
            wait = statistics.fmean(job["ready"] - job["submit"] for job in held) if held else 0.0
            detail += (f"; {waiting:,} jobs wait for a predecessor, {len(held):,} of them held past their submit "
                       f"(mean {wait:,.1f} s); {with_pipes / without:.3f}x the time without dependencies (floor "
                       f"{FLOOR_RATIO:g}x: floor_seconds = {FLOOR_RATIO:g} x the median without)")
        rows.append(Row("pipelines", instance, method, result.makespan, None, None,
                        with_pipes if dependent else without, "ok", repeats,
                        FLOOR_RATIO * without if dependent else None, detail))
    return rows
