"""FRESH's workloads and runs (Wang et al., Section VI), built from the paper's text.

What the paper gives: 10 (or 20) m1.xlarge slaves with 4 slots each (S = 40 or 80); Hadoop 0.20.2;
six benchmarks; Table I's map and reduce counts of Set A (two jobs per benchmark, 8 GB and 4 GB
inputs); Set B = one 8 GB job per benchmark; Set C = Set A twice; Sets D and E = 12 jobs, 8 of
them map-intensive (Classification, Histogram ratings) or reduce-intensive (Inverted index,
Grep); simple workloads = 10 jobs of one benchmark submitted 2 s apart; mixed sets submitted in
Johnson's order; k = 1, 3, 5, 10 (simple, Set A) or 1, half, all (FRESH:1, FRESH:half, FRESH:all).

What we assume (the paper gives no task times):

- task times by benchmark class, fixed before any run: map-intensive maps 40 s and reduces 10 s;
  reduce-intensive maps 10 s and reduces 40 s; Wordcount and Histogram movies (named neither)
  25 s and 25 s; every task of a job the same (no noise), the profiles exact (the paper's +-30%
  profile bias is not applied: FRESH learns task means online after the first completions);
- Set D = the 8 map-intensive jobs of Set A twice over (4 jobs x 2) plus one 8 GB job of each
  other benchmark; Set E likewise with the reduce-intensive ones;
- Johnson's order on (map work / map slots, reduce work / reduce slots) of the conventional split
  (`solvers.order_jobs`), applied by naming the jobs 00-, 01-, ... so that every scheduler's
  tie-break on name follows it (all submit at 0);
- conventional Hadoop = 2 map + 2 reduce slots per node (Hadoop 0.20's default, the paper's
  Fair-2:2); FIFO, Fair and Capacity run on it; Capacity has two queues of 50% capacity and 90%
  maximum, the jobs dealt alternately; FRESH-static is Algorithm 1's split (`configure_slots`)
  under the Fair scheduler (the paper: "The Hadoop system itself is not modified for
  FRESH-static") with the same admission limit k (Figure 3 runs every scheme at each k);
  FRESH-dynamic is `Fresh(k)` on containers;
- heartbeat 3 s (Hadoop 0.20's minimum), one rack, block placement seeded: means over the seeds.
"""

from __future__ import annotations

import functools
import statistics
from dataclasses import dataclass

from models import Cluster, Job
from planner.simulator import Capacity, Fair, Fifo, Fresh, Queue, Scheduler, simulate
from solvers import configure_slots, order_jobs

SOURCE = "FRESH"
#: Table I of the paper: (benchmark, input GB, maps, reduces) of Set A.
TABLE_1 = (
    ("classification", 8, 270, 250), ("classification", 4, 129, 120),
    ("invertedindex", 8, 256, 250), ("invertedindex", 4, 128, 120),
    ("wordcount", 8, 256, 200), ("wordcount", 4, 128, 100),
    ("grep", 8, 270, 250), ("grep", 4, 128, 100),
    ("histratings", 8, 270, 250), ("histratings", 4, 129, 120),
    ("histmovies", 8, 270, 200), ("histmovies", 4, 129, 100),
)
#: The paper's classes: "Inverted Index and Grep are reduce-intensive, and Classification and
#: Histogram Rating are map-intensive"; the other two are neither.
CLASS = {"classification": "map", "histratings": "map", "invertedindex": "reduce", "grep": "reduce",
         "wordcount": "neither", "histmovies": "neither"}
#: Assumed (map s, reduce s) per task by class.
TASK_TIMES = {"map": (40.0, 10.0), "reduce": (10.0, 40.0), "neither": (25.0, 25.0)}
HEARTBEAT = 3.0


def paper_cluster(nodes: int = 10) -> Cluster:
    """``nodes`` slaves of 4 slots, conventional 2 map + 2 reduce, heartbeat 3 s."""
    return Cluster(nodes=nodes, map_slots=2, reduce_slots=2, heartbeat=HEARTBEAT)


def _job(row: tuple[str, int, int, int], copy: int, submit: float = 0.0) -> Job:
    benchmark, gigabytes, maps, reduces = row
    map_time, reduce_time = TASK_TIMES[CLASS[benchmark]]
    return Job(f"{benchmark}-{gigabytes}g-{copy}", maps, reduces, map_time, reduce_time, submit=submit)


def johnson(jobs: list[Job], nodes: int) -> list[Job]:
    """``jobs`` in Johnson's order for the conventional split, renamed 00-..., 01-... in it."""
    ordered = order_jobs(jobs, 2 * nodes, 2 * nodes)
    return [job.with_changes(name=f"{i:02d}-{job.name}") for i, job in enumerate(ordered)]


@functools.cache
def mixed_set(name: str, nodes: int = 10) -> tuple[Job, ...]:
    """Set A, B, C, D or E in Johnson's order (module docstring)."""
    eight = [row for row in TABLE_1 if row[1] == 8]
    if name == "A":
        jobs = [_job(row, 0) for row in TABLE_1]
    elif name == "B":
        jobs = [_job(row, 0) for row in eight]
    elif name == "C":
        jobs = [_job(row, copy) for copy in range(2) for row in TABLE_1]
    elif name in ("D", "E"):
        heavy = "map" if name == "D" else "reduce"
        jobs = [_job(row, copy) for copy in range(2) for row in TABLE_1 if CLASS[row[0]] == heavy]
        jobs += [_job(row, 0) for row in eight if CLASS[row[0]] != heavy]
    else:
        raise ValueError(f"unknown set {name!r}")
    return tuple(johnson(jobs, nodes))


@functools.cache
def simple_set(benchmark: str) -> tuple[Job, ...]:
    """Ten 8 GB jobs of ``benchmark`` submitted 2 s apart (the paper's simple workloads)."""
    row = next(row for row in TABLE_1 if row[0] == benchmark and row[1] == 8)
    return tuple(_job(row, copy, submit=2.0 * copy).with_changes(name=f"{benchmark}-{copy}") for copy in range(10))


@dataclass(frozen=True)
class Outcome:
    makespan: float
    fairness: float


def _scheduler(kind: str, k: int | None) -> Scheduler:
    if kind == "fifo":
        return Fifo()
    if kind == "fair":
        return Fair(k=k)
    if kind == "capacity":
        return Capacity([Queue("q0", 0.5, 0.9), Queue("q1", 0.5, 0.9)])
    if kind == "fresh":
        return Fresh(k=k)
    raise ValueError(f"unknown scheduler {kind!r}")


@functools.cache
def measure(jobs: tuple[Job, ...], kind: str, seeds: tuple[int, ...], *, k: int | None = None,
            slots: tuple[int, int] | None = None, nodes: int = 10) -> Outcome:
    """Mean makespan and overall fairness over ``seeds`` of ``jobs`` under scheduler ``kind``
    ("fifo", "fair", "capacity": conventional slots or ``slots``; "fresh": dynamic, with ``k``)."""
    batch = list(jobs)
    if kind == "capacity":
        batch = [job.with_changes(pool=f"q{i % 2}") for i, job in enumerate(batch)]
    runs = [simulate(batch, paper_cluster(nodes), _scheduler(kind, k), seed=seed, slots=slots) for seed in seeds]
    return Outcome(statistics.mean(r.makespan for r in runs), statistics.mean(r.fairness for r in runs))


def fresh_static(jobs: tuple[Job, ...], seeds: tuple[int, ...], k: int, nodes: int = 10) -> tuple[Outcome, str]:
    """FRESH-static: Algorithm 1's split for admission limit ``k`` under Fair with that limit."""
    plan = configure_slots(list(jobs), 4 * nodes, k)
    split = (plan.map_slots, plan.reduce_slots)
    return measure(jobs, "fair", seeds, k=k, slots=split, nodes=nodes), f"{split[0]}:{split[1]}"
