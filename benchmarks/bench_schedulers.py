"""Simulation speed of the issue-6 schedulers: FRESH, Natjam / Natjam-R, and VM-level phase plans.

Three workloads, each documented where it is built:

- FRESH (`planner.examples.workloads.set_a_batch`): a Set-A-shaped batch, alternating wordcount-like (map-heavy) and
  terasort-like (reduce-heavy) jobs, all submitted at 0, on 40 slots (10 nodes x (2 + 2));
  FRESH with dynamic slots, FRESH-static 20:20 and Fair 2:2 (20:20), k = 5.
- Natjam (`natjam_stream`): research jobs (priority 0) and production jobs (priority 1)
  arriving over time on 48 containers (12 nodes x (2 + 2)), every job with a deadline;
  Natjam suspend and kill (MR / SRT), Natjam-R MDF and MLF, and FIFO by priority without
  eviction for comparison.
- VM phases (`random_phase_plan`): random profiled jobs dealt into a valid phase plan,
  run by `simulate_vms` with barriers and with backfill.

No floors: issue 6 asks only that the speeds be recorded. ``seconds`` is the median wall
time of `simulate` / `simulate_vms` alone (workload building excluded); the detail gives
simulated task attempts (every attempt: suspended and killed ones count) per second.
"""

from __future__ import annotations

import gc
import math
import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.registry import Row, register, save_figure
from models import Cluster, Job
from planner.examples.workloads import paper_cluster, random_batch
from planner.examples.workloads import set_a_batch as fresh_mix
from planner.simulator import Fair, Fifo, Fresh, Natjam, SimOptions, simulate, simulate_vms

NAME = "schedulers"
#: 10 nodes x (2 map + 2 reduce) = 40 slots, default heartbeat (3 s), one rack.
FRESH_CLUSTER = Cluster(nodes=10, map_slots=2, reduce_slots=2)
FRESH_K = 5
STATIC_SLOTS = (20, 20)
#: 12 nodes x 4 = 48 containers, as in Natjam's microbenchmarks; default heartbeat (3 s), one rack.
NATJAM_CLUSTER = Cluster(nodes=12, map_slots=2, reduce_slots=2)
#: Lognormal task times (cv 0.3): tasks of a job differ, so the task eviction policy (SRT) has a choice.
NATJAM_OPTIONS = SimOptions(task_time_cv=0.3)
#: Research shapes in turn (small, small, large) every RESEARCH_EVERY seconds from 0;
#: one production job every PRODUCTION_EVERY seconds from PRODUCTION_FIRST.
RESEARCH_SMALL = (24, 12, 30.0, 90.0)  # maps, reduces, map s, reduce s: 720 + 1,080 = 1,800 slot-s
RESEARCH_LARGE = (48, 24, 40.0, 150.0)  # 1,920 + 3,600 = 5,520 slot-s
PRODUCTION = (12, 6, 20.0, 60.0)  # 240 + 360 = 600 slot-s
RESEARCH_EVERY, PRODUCTION_EVERY, PRODUCTION_FIRST = 100.0, 60.0, 25.0
#: Deadline = submit + slack x the job's one-wave time (map time + reduce time: on 48 containers
#: every phase of these jobs fits in one wave).
RESEARCH_SLACK, PRODUCTION_SLACK = 3.0, 2.0
#: VM-level plans: P = 10 machines, k = 2 disks (N = 20 primary VMs, E = 10 extra), r = 2, alpha = 1.3.
VM_CLUSTER = paper_cluster(10)

REPEATS = {"quick": 5, "full": 3}  # the quick suite's runs take milliseconds: more repeats steady the median
BUDGET_SECONDS = 20.0  # stop repeating a case once its runs have taken this long
_RATE = re.compile(r"([\d,]+) attempts/s")


# -- workloads ----------------------------------------------------------------------------------------
def work_bound(jobs: list[Job], slots: int) -> float:
    """Total task seconds over the slots: no schedule on ``slots`` slots ends sooner (non-local maps only add)."""
    return sum(j.map_tasks * j.map_time + j.reduce_tasks * j.reduce_time for j in jobs) / slots


def natjam_stream(horizon: float) -> list[Job]:
    """Research and production jobs arriving over ``[0, horizon)`` seconds, each with a deadline.

    - research r000, r001, ... (priority 0) every 100 s from 0, shapes in turn small, small,
      large: small 24 maps x 30 s + 12 reduces x 90 s (1,800 slot-s), large 48 x 40 s + 24 x
      150 s (5,520 slot-s); mean 3,040 slot-s per 100 s = 30.4 busy containers;
    - production p000, p001, ... (priority 1) every 60 s from 25 s: 12 maps x 20 s + 6 reduces
      x 60 s (600 slot-s), 10 busy containers;
    - offered load 40.4 of 48 containers (84%), before locality slow-downs and eviction waste;
    - deadline = submit + slack x (map time + reduce time), slack 3 for research (360 s small,
      570 s large) and 2 for production (160 s).
    """
    jobs = []
    for i in range(math.ceil(horizon / RESEARCH_EVERY)):
        maps, reduces, map_time, reduce_time = RESEARCH_LARGE if i % 3 == 2 else RESEARCH_SMALL
        submit = RESEARCH_EVERY * i
        jobs.append(Job(f"r{i:03d}", maps, reduces, map_time, reduce_time, submit=submit, priority=0,
                        deadline=submit + RESEARCH_SLACK * (map_time + reduce_time)))
    maps, reduces, map_time, reduce_time = PRODUCTION
    for i in range(math.ceil((horizon - PRODUCTION_FIRST) / PRODUCTION_EVERY)):
        submit = PRODUCTION_FIRST + PRODUCTION_EVERY * i
        jobs.append(Job(f"p{i:03d}", maps, reduces, map_time, reduce_time, submit=submit, priority=1,
                        deadline=submit + PRODUCTION_SLACK * (map_time + reduce_time)))
    return jobs


def random_phase_plan(jobs: list[Job], cluster: Cluster, seed: int = 0) -> list[list[tuple[str, int, str]]]:
    """Deal ``jobs`` in order into phases that pass `check_vm_groups`.

    Each job draws a role (io jobs "host" and cpu jobs "extra" with probability 1/2, else
    "primary") and joins the current phase on a VM count drawn uniformly from 1 to the room
    left for its role (primary and host VMs <= N; extra VMs <= host VMs // r); when there is
    no room, a new phase opens (an extra cannot open one: it becomes a primary there).
    """
    rng = np.random.default_rng(seed)
    n, r = cluster.vms, cluster.primaries_per_extra
    phases: list[list[tuple[str, int, str]]] = [[]]
    used = hosts = extras = 0
    for job in jobs:
        role = "primary"
        if job.intensity in ("io", "cpu") and rng.random() < 0.5:
            role = "host" if job.intensity == "io" else "extra"
        room = hosts // r - extras if role == "extra" else n - used
        if room < 1:
            phases.append([])
            used = hosts = extras = 0
            role = "primary" if role == "extra" else role
            room = n
        vms = int(rng.integers(1, room + 1))
        phases[-1].append((job.name, vms, role))
        if role == "extra":
            extras += vms
        else:
            used += vms
            hosts += vms if role == "host" else 0
    return phases


# -- measuring ------------------------------------------------------------------------------------------
def _measure(run: Callable[[], Any], repeats: int) -> tuple[float, int, Any]:
    """Median wall time over up to ``repeats`` runs (fewer once BUDGET_SECONDS are spent), runs, last result."""
    times: list[float] = []
    result = None
    while len(times) < repeats and sum(times) < BUDGET_SECONDS:
        result = None  # do not hold the previous run's log while the next one runs
        gc.collect()
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), len(times), result


def _speed(attempts: int, seconds: float) -> str:
    return f"{attempts:,} attempts simulated, {attempts / seconds:,.0f} attempts/s"


def _fresh(suite: str) -> list[Row]:
    sizes = (20,) if suite == "quick" else (100, 1000)
    rows = []
    for size in sizes:
        jobs = fresh_mix(size)
        slots = FRESH_CLUSTER.total_slots
        bound = work_bound(jobs, slots)
        tasks = sum(j.map_tasks + j.reduce_tasks for j in jobs)
        instance = (f"FRESH mix: {size:,} jobs (wordcount-like / terasort-like, {tasks:,} tasks) at t = 0, "
                    f"{slots} slots (10 nodes x 4), heartbeat {FRESH_CLUSTER.heartbeat:g} s")
        cases = [  # (method, new scheduler, typed slots or None for the cluster's containers)
            (f"FRESH dynamic, k={FRESH_K}", lambda: Fresh(k=FRESH_K), None),
            (f"FRESH static {STATIC_SLOTS[0]}:{STATIC_SLOTS[1]}, k={FRESH_K}",
             lambda: Fresh(k=FRESH_K, dynamic=False), STATIC_SLOTS),
            (f"Fair 2:2 static ({STATIC_SLOTS[0]}:{STATIC_SLOTS[1]})", Fair, STATIC_SLOTS),
        ]
        for method, scheduler, typed in cases:
            seconds, repeats, result = _measure(
                lambda jobs=jobs, scheduler=scheduler, typed=typed: simulate(jobs, FRESH_CLUSTER, scheduler(),
                                                                              slots=typed), REPEATS[suite])
            attempts = result.attempt_count
            detail = (f"objective = makespan (s), bound = task work / {slots} slots; {_speed(attempts, seconds)}; "
                      f"overall fairness {result.fairness:.3f}; utilization {result.utilization:.1%}; "
                      f"mean response {result.mean_response:,.0f} s")
            rows.append(Row(NAME, instance, method, result.makespan, bound, result.makespan / bound - 1.0, seconds,
                            "ok", repeats, None, detail))
            del result
    return rows


def _natjam(suite: str) -> list[Row]:
    horizon = 2_000.0 if suite == "quick" else 20_000.0
    jobs = natjam_stream(horizon)
    production = sum(j.priority >= 1 for j in jobs)
    research = len(jobs) - production
    tasks = sum(j.map_tasks + j.reduce_tasks for j in jobs)
    slots = NATJAM_CLUSTER.total_slots
    instance = (f"Natjam stream: {research} research + {production} production jobs ({tasks:,} tasks) over "
                f"{horizon:,.0f} s, with deadlines, {slots} containers (12 nodes x 4), task time cv "
                f"{NATJAM_OPTIONS.task_time_cv:g}, heartbeat {NATJAM_CLUSTER.heartbeat:g} s")
    fifo_options = SimOptions(task_time_cv=NATJAM_OPTIONS.task_time_cv, containers=True)
    cases = [
        ("Natjam suspend, MR/SRT", lambda: simulate(jobs, NATJAM_CLUSTER, Natjam(), options=NATJAM_OPTIONS)),
        ("Natjam kill, MR/SRT", lambda: simulate(jobs, NATJAM_CLUSTER, Natjam(mode="kill"), options=NATJAM_OPTIONS)),
        ("Natjam-R MDF", lambda: simulate(jobs, NATJAM_CLUSTER, Natjam(deadline_policy="MDF"), options=NATJAM_OPTIONS)),
        ("Natjam-R MLF", lambda: simulate(jobs, NATJAM_CLUSTER, Natjam(deadline_policy="MLF"), options=NATJAM_OPTIONS)),
        ("FIFO by priority, no eviction", lambda: simulate(jobs, NATJAM_CLUSTER, Fifo(), options=fifo_options)),
    ]
    rows = []
    for method, run in cases:
        seconds, repeats, result = _measure(run, REPEATS[suite])
        attempts = result.attempt_count
        response = {"production": [], "research": []}
        for spec, record in zip(jobs, result.jobs, strict=True):
            response["production" if spec.priority >= 1 else "research"].append(record["response"])
        detail = (f"objective = makespan (s); {_speed(attempts, seconds)}; suspensions {result.suspensions:,}, "
                  f"kills {result.kills:,}, wasted work {result.wasted_work:,.0f} slot-s; deadline misses "
                  f"{result.deadline_misses}/{len(jobs)}; mean response production "
                  f"{statistics.fmean(response['production']):,.0f} s, research "
                  f"{statistics.fmean(response['research']):,.0f} s; utilization {result.utilization:.1%}")
        rows.append(Row(NAME, instance, method, result.makespan, None, None, seconds, "ok", repeats, None, detail))
        del result
    return rows


def _vms(suite: str) -> list[Row]:
    size = 1_000 if suite == "quick" else 10_000
    jobs = random_batch(size, seed=0)
    groups = random_phase_plan(jobs, VM_CLUSTER, seed=0)
    instance = (f"VM phases: {size:,} random profiled jobs in {len(groups):,} random phases, N = {VM_CLUSTER.vms} "
                f"primary + {VM_CLUSTER.extra_vms} extra VMs, alpha {VM_CLUSTER.overcommit_penalty:g}")
    rows = []
    makespans: dict[bool, float] = {}
    for method, backfill in (("simulate_vms, barriers", False), ("simulate_vms, backfill", True)):
        seconds, repeats, result = _measure(
            lambda backfill=backfill: simulate_vms(jobs, VM_CLUSTER, groups, backfill=backfill), REPEATS[suite])
        makespans[backfill] = result.makespan
        detail = f"objective = makespan (s); {size / seconds:,.0f} jobs/s; utilization {result.utilization:.1%}"
        if backfill:
            detail += f"; {1 - result.makespan / makespans[False]:.1%} shorter than with barriers"
        rows.append(Row(NAME, instance, method, result.makespan, None, None, seconds, "ok", repeats, None, detail))
    return rows


# -- figure ------------------------------------------------------------------------------------------------
_FAMILIES = (("FRESH mix", "tab:blue"), ("Natjam stream", "tab:orange"))
_LEGEND = {"FRESH mix": "FRESH mix (40 slots, all jobs at t = 0)", "Natjam stream": "Natjam stream (48 containers)"}


def figure(rows: list[Row], folder: Path) -> None:
    """Left: simulated attempts per second by scheduler and instance; right: the makespans."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt
    from matplotlib.patches import Patch

    task_rows = [(r, float(m.group(1).replace(",", ""))) for r in rows if (m := _RATE.search(r.detail))]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 0.45 * max(len(task_rows), 4) + 1.5), sharey=True)
    labels, colours = [], []
    for row, _ in task_rows:
        family = row.instance.split(":", 1)[0]
        size = re.search(r": ([\d,]+) (?:jobs|research)", row.instance)
        jobs = re.search(r"(\d[\d,]*) research \+ (\d[\d,]*) production", row.instance)
        count = (f"{int(jobs.group(1).replace(',', '')) + int(jobs.group(2).replace(',', '')):,} jobs" if jobs
                 else f"{size.group(1)} jobs" if size else "")
        labels.append(f"{row.method} ({count})")
        colours.append(dict(_FAMILIES).get(family, "tab:gray"))
    positions = list(range(len(task_rows)))[::-1]
    if task_rows:
        bars = left.barh(positions, [rate for _, rate in task_rows], color=colours)
        left.bar_label(bars, labels=[f"{rate:,.0f}" for _, rate in task_rows], fontsize=7, padding=2)
        left.set_xscale("log")
        left.set_xlim(right=3 * max(rate for _, rate in task_rows))
        left.set_yticks(positions, labels, fontsize=8)
        best: dict[str, float] = {}
        for row, _ in task_rows:
            best[row.instance] = min(best.get(row.instance, math.inf), row.objective)
        ratios = [row.objective / best[row.instance] for row, _ in task_rows]
        bars = right.barh(positions, ratios, color=colours)
        right.bar_label(bars, labels=[f"{r.objective:,.0f} s" for r, _ in task_rows], fontsize=7, padding=2)
        right.set_xlim(0, 1.2 * max(ratios))
        right.axvline(1.0, color="black", linewidth=0.8)
    left.set_xlabel("simulated task attempts per second (log scale)")
    left.set_title("Simulation speed (wall time of simulate() only)", fontsize=10)
    right.set_xlabel("makespan / shortest makespan on the same instance (bar labels: makespan in s)")
    right.set_title("Makespan of the simulated schedule", fontsize=10)
    for axis in (left, right):
        axis.grid(True, axis="x", alpha=0.3)
    handles = [Patch(color=colour, label=_LEGEND[family]) for family, colour in _FAMILIES]
    fig.legend(handles=handles, title="workload", loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2, fontsize=8)
    fig.suptitle("Issue-6 schedulers in the event simulator: speed and makespan by scheduler (one bar per run)")
    save_figure(fig, folder / f"{NAME}.png")


@register(NAME, figure=figure)
def schedulers(suite: str) -> list[Row]:
    """Simulation speed of FRESH, Natjam / Natjam-R and VM-level phase plans (issue 6; no floors).

    FRESH: 20 (quick) or 100 and 1,000 (full) Set-A-shaped jobs at t = 0 on 40 slots under FRESH dynamic,
    FRESH-static 20:20 and Fair 20:20. Natjam: a research / production stream with deadlines over 2,000 s
    (quick) or 20,000 s (full) on 48 containers under Natjam suspend and kill (MR/SRT), Natjam-R MDF and MLF,
    and FIFO by priority. VM phases: 1,000 (quick) or 10,000 (full) random jobs, barriers vs backfill.
    Objective = makespan; the detail gives simulated attempts per second.
    """
    return _fresh(suite) + _natjam(suite) + _vms(suite)
