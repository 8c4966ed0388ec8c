"""A recorded run made ready to replay, whatever its format (`planner.proof.replay`): the jobs to
simulate and the jobs to compare, with what the unexplained wait needs. The Rumen and SLS replay
(`planner.proof.replay.mapreduce_recording`) and the Spark replay
(`planner.proof.spark_replay.spark_recording`) build one; `planner.proof.replay.replay_recording`
replays it."""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from models import Cluster, Workload

if TYPE_CHECKING:
    from planner.simulator.options import SimOptions
    from planner.simulator.schedulers.base import Scheduler


#: Clusters of up to this many nodes get a replica of every block on every node (launch order kept).
FULL_REPLICATION_NODES = 32


@dataclass(frozen=True)
class ComparedJob:
    """A recorded job as the replay compares it: ``name``; ``maps`` and ``reduces`` (for Spark,
    the tasks of the batch job's map and result stages); ``submit``, ``ready`` (when the replay
    submits it and compares it from: its first task's start; for Spark, its Spark job's submission
    plus the part of the wait for its first task with a core free) and ``finish`` (its last
    successful task's end), seconds on the trace's clock; ``members``, the simulated jobs whose
    latest finish is its finish; ``first_kind``, the kind of slot its first task needed;
    ``waits``, its tasks as (kind, eligible, start): when each could have run and when it did
    (`planner.proof.replay.longest_free_wait`); ``first_start``, its first task's start when that is not ``ready`` (Spark)."""

    name: str
    maps: int
    reduces: int
    submit: float
    ready: float
    finish: float
    members: tuple[str, ...]
    first_kind: str
    waits: tuple[tuple[str, float, float], ...]
    first_start: float | None = None


@dataclass(frozen=True)
class Recording:
    """A recorded run made ready to replay, whatever its format: the ``workload`` to simulate (its
    jobs submitted at their recorded ready times, with ``options.task_times``), the ``cluster``
    (and ``slots`` totals), the scheduler it ran under (``scheduler``), ``described`` (the report's
    cluster record), the jobs to compare (``compared``), and for the unexplained wait: the
    recorded ``capacity`` of each kind of slot as (time, change) steps and the recorded ``busy``
    attempts of each kind as (start, finish), ``grace``, the wait a freed slot may take
    before it is offered (the heartbeat), and ``notes``: what the recording leaves out."""

    source: str | None
    workload: Workload
    cluster: Cluster
    slots: tuple[int, int] | None
    options: SimOptions
    scheduler: str | Scheduler
    described: dict[str, Any]
    compared: tuple[ComparedJob, ...]
    capacity: Mapping[str, tuple[tuple[float, int], ...]]
    busy: Mapping[str, tuple[tuple[float, float], ...]]
    grace: float
    notes: tuple[str, ...] = ()


def free_steps(capacity: Sequence[tuple[float, int]], busy: Sequence[tuple[float, float]]) -> tuple[list[float], list[int]]:
    """The recorded free slots of one kind as steps: ``(times, free)``, ``free[i]`` from ``times[i]``
    to the next time (capacity changes plus finishes minus starts; nothing before the first)."""
    changes: dict[float, int] = {}
    for time, change in capacity:
        changes[time] = changes.get(time, 0) + change
    for start, finish in busy:
        changes[start] = changes.get(start, 0) - 1
        changes[finish] = changes.get(finish, 0) + 1
    times = sorted(changes)
    free, level = [], 0
    for time in times:
        level += changes[time]
        free.append(level)
    return times, free


def free_at(steps: tuple[list[float], list[int]] | None, time: float) -> int:
    if steps is None:
        return 0
    at = bisect.bisect_right(steps[0], time) - 1
    return steps[1][at] if at >= 0 else 0


def seconds_free(steps: tuple[list[float], list[int]] | None, begin: float, end: float, *, full: bool) -> float:
    """Seconds in ``[begin, end]`` with no free slot (``full``) or some, per the steps."""
    if steps is None:
        return (end - begin) if full else 0.0
    times = steps[0]
    cuts = [begin, *times[bisect.bisect_right(times, begin):bisect.bisect_left(times, end)], end]
    return math.fsum(right - left for left, right in itertools.pairwise(cuts)
                     if (free_at(steps, left) <= 0) == full)
