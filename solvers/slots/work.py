"""The fluid model's view of a batch (`solvers.slots.configure`): each job's map and reduce work, task
times and release, in admission order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from models import Job

#: Completions within this relative distance of the next event count as simultaneous.
SIMULTANEOUS = 1e-9
#: A remaining work this close above a whole number of tasks counts as that number.
TASK_EPSILON = 1e-9


@dataclass(frozen=True)
class PhaseWork:
    """The fluid model's view of a batch, in admission order.

    ``release`` is each job's release time in admission order (None: all ready at 0).
    """

    map_work: np.ndarray
    reduce_work: np.ndarray
    map_time: np.ndarray
    reduce_time: np.ndarray
    release: np.ndarray | None = None

    @classmethod
    def from_jobs(cls, jobs: Sequence[Job], order: np.ndarray, releases: np.ndarray | None = None) -> PhaseWork:
        """``releases`` is in the jobs' order (one per job); it is put in admission order here."""
        picked = [jobs[i] for i in order]
        return cls(
            np.array([j.map_work for j in picked], dtype=np.float64),
            np.array([j.reduce_work for j in picked], dtype=np.float64),
            np.array([j.map_time for j in picked], dtype=np.float64),
            np.array([j.reduce_time if j.reduce_tasks else 1.0 for j in picked], dtype=np.float64),
            None if releases is None else np.asarray(releases, dtype=np.float64)[np.asarray(order)],
        )

    def gates(self) -> np.ndarray | None:
        """The earliest time each position may enter M (`solvers.slots.fluid`), or None."""
        return None if self.release is None else np.maximum.accumulate(self.release)
