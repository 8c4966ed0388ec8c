"""The Natjam paper's experiments as set-ups (Cho et al., Sections 5 and 7): its microbenchmark
cluster, heartbeat and slow-start, Figure 3's jobs calibrated to their ideal completion times
(`micro_job`, `micro_run`), and the Natjam-R deadline experiment of Figure 10 (`deadline_jobs`).

Used by the Natjam tests (through tests/support/natjam.py) and the ``fidelity`` benchmark.

Assumptions (the paper leaves them open):

- Figure 3's "Avg Time" is each job's *ideal* completion time on the empty cluster (Figure 5's
  caption says so; the text agrees: SRT's 197.0 s is "only 4.7 s worse than ideal", 192.3 + 4.7);
- a job has one map of `MICRO_MAP` seconds per container it fills (its reduces plus its
  application master's container, which we do not model) and reduces uniform in (0.5, 1] of the
  longest, L; L is found (`calibrate`) so that the job alone completes in Figure 3's time;
- Figure 10's jobs have 8 maps of 25 s (the paper gives no map time) and 50 reduces whose length
  makes one job alone take the paper's 87 s on 7 x 3 containers (`DEADLINE_REDUCE`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from models import Cluster, Job
from planner.simulator import Natjam, SimOptions, SimResult, simulate

__all__ = [
    "DEADLINES",
    "DEADLINE_CLUSTER",
    "DEADLINE_REDUCE",
    "FIGURE_3",
    "HADOOP_SLOWSTART",
    "MICRO_MAP",
    "PAPER_48",
    "PAPER_HEARTBEAT",
    "calibrate",
    "deadline_jobs",
    "micro_job",
    "micro_run",
    "reduce_fractions",
]

#: The Natjam paper's heartbeat: its Preemptor and Releaser act once a second, and YARN's node
#: managers report every second (yarn.resourcemanager.nodemanagers.heartbeat-interval-ms, 1000).
PAPER_HEARTBEAT = 1.0
#: Hadoop 0.23's default reduce slow-start (mapreduce.job.reduce.slowstart.completedmaps): a job
#: asks for its reduce containers once 5% of its maps are done.
HADOOP_SLOWSTART = 0.05
#: The microbenchmark cluster: 6 workers x 8 one-GB containers = 48 (the paper's Section 5).
PAPER_48 = Cluster(nodes=6, map_slots=4, reduce_slots=4, heartbeat=PAPER_HEARTBEAT)
#: The paper's Figure 3: reduces per job and "Avg Time" (s), which Figure 5's caption calls the
#: job's ideal completion time (on an otherwise empty cluster).
FIGURE_3 = {
    "research-xl": (47, 192.3), "research-l": (35, 193.8), "research-m": (23, 195.6), "research-s": (11, 202.6),
    "production-xl": (47, 67.2), "production-l": (35, 67.0), "production-m": (23, 67.6), "production-s": (11, 70.4),
}
#: Map time (s): "each job had a small map execution time, and was dominated by reduce execution time".
MICRO_MAP = 5.0

#: 7 workers x 3 containers = 21, as in the Natjam-R experiment (Emulab), at the paper's heartbeat.
DEADLINE_CLUSTER = Cluster(nodes=7, map_slots=2, reduce_slots=1, heartbeat=PAPER_HEARTBEAT)
#: The reduce length (s) by slow-start for which one Figure 10 job alone (8 maps of 25 s, 50
#: reduces) takes the paper's 87 s: slow-start 1.0: 129 / 7 = 18.43 s; Hadoop's 0.05: 131 / 7 =
#: 18.71 s (the maps take 30 s with rack-local ones at 1.2 x 25 s, then three waves of reduces).
DEADLINE_REDUCE = {HADOOP_SLOWSTART: 131 / 7, 1.0: 129 / 7}
#: Figure 10's deadlines (s) of the jobs submitted at 0, 5 and 10 s: the last is the most urgent.
DEADLINES = (200.0, 190.0, 180.0)


def reduce_fractions(count: int, seed: int, stream: int) -> np.ndarray:
    """Reduce lengths as fractions of the job's longest: uniform in (0.5, 1] (the paper's Section 5),
    scaled so that the longest is exactly 1. Seeded by the run ``seed`` and the job's ``stream``."""
    fractions = np.random.default_rng([seed, stream]).uniform(0.5, 1.0, count)
    return fractions / fractions.max()


def calibrate(completion: Callable[[float], float], target: float, guess: float) -> float:
    """The x > 0 at which ``completion(x)``, nondecreasing in x, equals ``target`` (to 1e-9 s).
    Where completion is x plus a constant (one wave of tasks, the longest one ending last), the
    step x += target - completion(x) finds it in two or three runs; otherwise (several waves, or
    a heartbeat tick crossed: a jump) bisection. Where ``target`` falls inside a jump, the x at
    the jump's edge (to 1e-12) whose completion is the target."""
    x = guess
    for _ in range(4):
        miss = target - completion(x)
        if abs(miss) < 1e-9:
            return x
        if x + miss <= 0:
            break
        x += miss
    low, high = guess, guess
    while completion(low) > target:
        low /= 2
    while completion(high) < target:
        high *= 2
    while high - low > 1e-12 * high:
        middle = (low + high) / 2
        value = completion(middle)
        if abs(value - target) < 1e-9:
            return middle
        low, high = (middle, high) if value < target else (low, middle)
    raise AssertionError(f"nothing completes in {target} s (jumps from {completion(low)} to {completion(high)})")


@functools.cache
def micro_job(size: str, seed: int, stream: int, *, name: str | None = None, submit: float = 0.0,
              cluster: Cluster = PAPER_48, slowstart: float = HADOOP_SLOWSTART) -> tuple[Job, tuple[float, ...]]:
    """A Figure 3 job (``size`` one of its rows) and its replayed reduce times, such that the job
    alone on the empty ``cluster``, submitted at ``submit``, completes in Figure 3's time.

    The job has one map per container it fills (its reduces plus the container of its application
    master, which we do not model), of `MICRO_MAP` seconds, and reduces of lengths
    `reduce_fractions` x L. Alone it completes in about (map phase + heartbeats) + L, so L is
    found by `calibrate`. Production jobs (names starting "production") get priority 1."""
    count, ideal = FIGURE_3[size]
    name = name or size
    priority = 1 if size.startswith("production") else 0
    fractions = reduce_fractions(count, seed, stream)

    def build(longest: float) -> tuple[Job, SimOptions]:
        times = (fractions * longest).tolist()
        job = Job(name, count + 1, count, MICRO_MAP, sum(times) / count, submit=submit, priority=priority)
        return job, SimOptions(reduce_slowstart=slowstart, task_times={name: {"reduce": times}})

    def completion(longest: float) -> float:
        return simulate([build(longest)[0]], cluster, Natjam(), options=build(longest)[1]).job(name)["response"]

    longest = calibrate(completion, ideal, ideal)
    return build(longest)[0], tuple((fractions * longest).tolist())


def micro_run(sizes: list[tuple[str, str, float]], seed: int, scheduler: Natjam, cluster: Cluster = PAPER_48,
              slowstart: float = HADOOP_SLOWSTART) -> tuple[list[Job], SimResult]:
    """One microbenchmark run: the jobs ``(size, name, submit)``, each calibrated by `micro_job`
    (its own stream of reduce lengths), on ``cluster`` with ``slowstart`` (Hadoop's by default), the
    run ``seed`` also seeding random victims. Returns the jobs and the result."""
    jobs, times = [], {}
    for stream, (size, name, submit) in enumerate(sizes):
        job, reduce_times = micro_job(size, seed, stream, name=name, submit=submit, cluster=cluster,
                                      slowstart=slowstart)
        jobs.append(job)
        times[name] = {"reduce": list(reduce_times)}
    options = SimOptions(reduce_slowstart=slowstart, task_times=times)
    return jobs, simulate(jobs, cluster, scheduler, seed=seed, options=options)


def deadline_jobs(slowstart: float = HADOOP_SLOWSTART) -> list[Job]:
    """Figure 10's three identical jobs (8 maps of 25 s, 50 reduces of `DEADLINE_REDUCE`),
    j0, j1, j2 submitted at 0, 5 and 10 s with deadlines 200, 190 and 180 s."""
    return [Job(f"j{i}", 8, 50, 25.0, DEADLINE_REDUCE[slowstart], submit=5.0 * i, deadline=deadline)
            for i, deadline in enumerate(DEADLINES)]
