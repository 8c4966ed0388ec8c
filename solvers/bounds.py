"""Lower bounds that every schedule of a batch obeys, on any scheduler and any split of S slots.

A job j is released at r_j (0 when ready now), has m_j maps of t_m and q_j reduces of t_r
seconds, and its work is w_j = m_j t_m + q_j t_r slot-seconds. On S slots:

- **a job alone** (``alone``): its maps run in at least ceil(m_j / S) waves and its reduces,
  which start after its last map, in ceil(q_j / S) more: a_j = ceil(m_j/S) t_m + ceil(q_j/S) t_r.
  No job finishes before r_j + a_j.
- **critical path** (``critical_path_bound``): the batch cannot end before max_j (r_j + a_j); with
  dependencies (``Job.after``), before max_j e_j, the earliest finish e_j = max(r_j, max_i e_i +
  delay_ij) + a_j along the graph (a job starts after its predecessors' finishes plus delays).
- **work** (``work_bound``): S slots do at most S slot-seconds per second, so the jobs released
  at or after t cannot all finish before t + (their work) / S; the bound is the largest of these
  over the release times.
- **mean response** (``response_bound``): the cluster, seen as one machine doing S slot-seconds
  per second, can at best run the fluid relaxation of the batch, for which preemptive
  shortest-remaining-work-first minimizes the sum of completion times (optimal for
  1|r_j, pmtn|sum C_j); each job's response is also at least a_j. The bound is the larger of
  the two means (each is a lower bound of the same mean).
- **lateness** (``lateness_bound``): job j is late by at least r_j + a_j - d_j (e_j - d_j with
  dependencies); and each job's response is at least a_j (e_j - r_j).

Makespans here count from the first release; responses from each job's own release.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence

from models import Job
from models.dag import Precedence

__all__ = ["alone", "critical_path_bound", "earliest_finishes", "lateness_bound", "response_bound", "work_bound"]


def alone(job: Job, slots: int) -> float:
    """The shortest time ``job`` can take on ``slots`` slots: its map waves, then its reduce waves."""
    return (math.ceil(job.map_tasks / slots) * job.map_time
            + math.ceil(job.reduce_tasks / slots) * job.reduce_time)


def _releases(jobs: Sequence[Job], releases: Sequence[float] | None) -> list[float]:
    return [0.0] * len(jobs) if releases is None else [float(r) for r in releases]


def earliest_finishes(jobs: Sequence[Job], slots: int, releases: Sequence[float] | None = None) -> list[float]:
    """Each job's earliest finish e_j on ``slots`` slots: from its release, after its predecessors'
    earliest finishes plus the dependencies' delays (``after``, naming jobs of ``jobs``), ``alone``."""
    at = _releases(jobs, releases)
    own = [alone(job, slots) for job in jobs]
    if not any(job.after for job in jobs):
        return [r + a for r, a in zip(at, own, strict=True)]
    return [timing.earliest_finish for timing in Precedence(jobs).schedule(own, releases=at)]


def critical_path_bound(jobs: Sequence[Job], slots: int, releases: Sequence[float] | None = None) -> float:
    """No schedule's makespan (from the first release) is below max_j e_j - min_j r_j
    (`earliest_finishes`: r_j + a_j without dependencies)."""
    if not jobs:
        return 0.0
    return max(earliest_finishes(jobs, slots, releases)) - min(_releases(jobs, releases))


def work_bound(jobs: Sequence[Job], slots: int, releases: Sequence[float] | None = None) -> float:
    """No schedule's makespan (from the first release) is below max_t (t + W(>= t) / S) - min_j r_j,
    W(>= t) the work of the jobs released at or after t."""
    if not jobs:
        return 0.0
    at = _releases(jobs, releases)
    pairs = sorted(zip(at, (job.work for job in jobs), strict=True))
    best, remaining = 0.0, sum(work for _, work in pairs)
    for release, work in pairs:
        best = max(best, release + remaining / slots)
        remaining -= work
    return best - pairs[0][0]


def response_bound(jobs: Sequence[Job], slots: int, releases: Sequence[float] | None = None,
                   weights: Sequence[float] | None = None) -> float:
    """A lower bound of the mean response time (completion - release) of any schedule (module
    docstring); with ``weights``, of the weighted mean sum w_j (C_j - r_j) / sum w_j, whose fluid
    part is then the weighted shortest-work order's (Smith's rule, a bound only when every job is
    released at once: with releases, the per-job part alone is used)."""
    if not jobs:
        return 0.0
    at = _releases(jobs, releases)
    own = [e - r for e, r in zip(earliest_finishes(jobs, slots, releases), at, strict=True)]
    if weights is None:
        fluid = _srpt_responses([job.work / slots for job in jobs], at)
        return max(sum(own), sum(fluid)) / len(jobs)
    total = float(sum(weights))
    per_job = sum(w * a for w, a in zip(weights, own, strict=True)) / total
    if len(set(at)) > 1:
        return per_job
    order = sorted(range(len(jobs)), key=lambda i: jobs[i].work / weights[i])
    clock, smith = 0.0, 0.0
    for i in order:
        clock += jobs[i].work / slots
        smith += weights[i] * clock
    return max(per_job, smith / total)


def _srpt_responses(sizes: Sequence[float], releases: Sequence[float]) -> list[float]:
    """Each job's response under preemptive shortest-remaining-processing-time on one machine."""
    events = sorted(range(len(sizes)), key=lambda i: (releases[i], i))
    responses = [0.0] * len(sizes)
    waiting: list[tuple[float, int]] = []  # (remaining, job)
    clock, position = 0.0, 0
    while position < len(events) or waiting:
        if not waiting:
            clock = max(clock, releases[events[position]])
        while position < len(events) and releases[events[position]] <= clock:
            job = events[position]
            heapq.heappush(waiting, (sizes[job], job))
            position += 1
        remaining, job = heapq.heappop(waiting)
        next_release = releases[events[position]] if position < len(events) else math.inf
        if clock + remaining <= next_release:
            clock += remaining
            responses[job] = clock - releases[job]
        else:
            heapq.heappush(waiting, (remaining - (next_release - clock), job))
            clock = next_release
    return responses


def lateness_bound(jobs: Sequence[Job], slots: int, due: Sequence[float | None],
                   releases: Sequence[float] | None = None) -> float | None:
    """No schedule's maximum lateness is below max_j (e_j - d_j) over the jobs with a due date
    (None when none has one; e_j = r_j + a_j without dependencies, `earliest_finishes`)."""
    finish = earliest_finishes(jobs, slots, releases)
    values = [e - d for e, d in zip(finish, due, strict=True) if d is not None]
    return max(values) if values else None
