"""The fluid model's view of a batch (`solvers.slots.configure`): each job's map and reduce work, task
times and release, in admission order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from models import InvalidInput, Job
from models.checks import shown

#: Completions within this relative distance of the next event count as simultaneous.
SIMULTANEOUS = 1e-9
#: A remaining work this close above a whole number of tasks counts as that number.
TASK_EPSILON = 1e-9


@dataclass(frozen=True)
class PhaseWork:
    """The fluid model's view of a batch, in admission order.

    ``release`` is each job's release time in admission order (None: all ready at 0).
    ``after[p]`` are the (position, delay) pairs of the jobs the job at position p waits for
    (`models.dag`), all at earlier positions; None: no job waits for another.
    """

    map_work: np.ndarray
    reduce_work: np.ndarray
    map_time: np.ndarray
    reduce_time: np.ndarray
    release: np.ndarray | None = None
    after: tuple[tuple[tuple[int, float], ...], ...] | None = None

    @classmethod
    def from_jobs(cls, jobs: Sequence[Job], order: np.ndarray, releases: np.ndarray | None = None) -> PhaseWork:
        """``releases`` is in the jobs' order (one per job); it is put in admission order here. Jobs
        that wait for others (``after``) must be admitted after them (`admitted_after`)."""
        picked = [jobs[i] for i in order]
        return cls(
            np.array([j.map_work for j in picked], dtype=np.float64),
            np.array([j.reduce_work for j in picked], dtype=np.float64),
            np.array([j.map_time for j in picked], dtype=np.float64),
            np.array([j.reduce_time if j.reduce_tasks else 1.0 for j in picked], dtype=np.float64),
            None if releases is None else np.asarray(releases, dtype=np.float64)[np.asarray(order)],
            admitted_after(jobs, order),
        )

    def gates(self) -> np.ndarray | None:
        """The earliest time each position may enter M (`solvers.slots.fluid`), or None."""
        return None if self.release is None else np.maximum.accumulate(self.release)


def admitted_after(jobs: Sequence[Job], order: np.ndarray) -> tuple[tuple[tuple[int, float], ...], ...] | None:
    """Each admission position's predecessors as (position, delay) pairs (`PhaseWork.after`), or None
    when no job waits for another. The dependencies are checked (`models.dag.Precedence`: names of
    the batch, no cycle) and so is the order: a job admitted before a job it waits for is refused,
    naming both (the fluid model's order is strict, so the batch could never run)."""
    if not any(job.after for job in jobs):
        return None
    from models.dag import Precedence

    graph = Precedence(jobs)
    place = np.empty(len(jobs), dtype=np.int64)
    place[np.asarray(order, dtype=np.int64)] = np.arange(len(jobs))
    after: list[tuple[tuple[int, float], ...]] = []
    for position, index in enumerate(order):
        pairs = []
        for before, delay in graph.predecessors[int(index)]:
            if place[before] > position:
                raise InvalidInput("order", f"admits job {shown(jobs[int(index)].name)} (position {position}) before "
                                            f"{shown(jobs[before].name)} (position {int(place[before])}), which it "
                                            "waits for (after): order the jobs so that every job comes after its "
                                            "predecessors (models.dag.Precedence.respecting)")
            pairs.append((int(place[before]), float(delay)))
        after.append(tuple(pairs))
    return tuple(after)
