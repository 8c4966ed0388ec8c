"""FRESH's admission limit, shared by `Fresh` and `Fair(k=...)`: at most k jobs in their map
phase (R_m) and k in their reduce phase (R_r).

Submitted jobs wait in R' in the scheduler's order (``key``) and enter R_m as places free; a job
whose last map completes leaves R_m and enters R_r, or waits for it in the order the maps
completed. The lists are changed in place, never replaced, so a scheduler may hold them under
its own names.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from typing import Any

from mypy_extensions import mypyc_attr

from planner.simulator.jobs import JobRun
from planner.simulator.schedulers.base import remade


@mypyc_attr(allow_interpreted_subclasses=True)  # subclassed in Python (a test's reference)
class AdmissionLimit:
    """R_m, R_r, R' and the jobs waiting for R_r, with the moves between them."""

    def __init__(self, k: int, key: Callable[[JobRun], Any]) -> None:
        self.k = k
        self.key = key
        self.map_phase: list[JobRun] = []  # R_m, in admission order
        self.reduce_phase: list[JobRun] = []  # R_r, in admission order
        self.waiting: list[JobRun] = []  # R', by key
        self.reduce_waiting: list[JobRun] = []  # maps done, R_r full: in order of map completion

    def __reduce__(self) -> tuple[Any, ...]:
        return (remade, (type(self), (self.k, self.key), {
            "map_phase": self.map_phase, "reduce_phase": self.reduce_phase, "waiting": self.waiting,
            "reduce_waiting": self.reduce_waiting}))

    def arrived(self, job: JobRun) -> None:
        """Into R', after the jobs whose key is not larger (ties keep their arrival order): R' is
        sorted by ``key`` (arrivals are its only inserts), so the place is found by bisection."""
        self.waiting.insert(bisect.bisect_right(self.waiting, self.key(job), key=self.key), job)

    def finished(self, job: JobRun) -> None:
        """Out of the list that holds it (the lists never share a job; a job that ever ran a task
        has left R', which is looked at only for a job that never ran)."""
        lists = (self.reduce_phase, self.map_phase, self.reduce_waiting)
        for phase in lists if job.start is not None else (*lists, self.waiting):
            if job in phase:
                phase.remove(job)
                return

    def last_map_done(self, job: JobRun) -> bool:
        """``job``'s last map completed: it leaves R_m (for R_r when it has reduces). True when
        it was in R_m (places may have freed)."""
        if job not in self.map_phase:
            return False
        self.map_phase.remove(job)
        if job.reduces:
            self.reduce_waiting.append(job)
        return True

    def admit(self) -> bool:
        """Fill R_r from the jobs whose maps are done, and R_m from R'; True when a job entered."""
        admitted = False
        while self.reduce_waiting and len(self.reduce_phase) < self.k:
            self.reduce_phase.append(self.reduce_waiting.pop(0))
            admitted = True
        while self.waiting and len(self.map_phase) < self.k:
            self.map_phase.append(self.waiting.pop(0))
            admitted = True
        return admitted

