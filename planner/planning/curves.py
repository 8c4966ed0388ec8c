"""The fluid makespan curves of a slot plan's admission orders, each computed once.

A production day's curve is minutes of work (24,437 jobs on 12,000 slots: every split, one
event loop each), and `make_plan` asks for the chosen order's curve twice: once to compare it
with submission order (`arrivals.no_worse_than_submission`), once for the plan. `SlotCurves`
keeps each order's `SlotPlan`, and reports each new curve's progress over its splits.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from models import Job
from planner.proof.sweep import ProgressOption, step_reporter
from solvers import configure_slots
from solvers.slots.configure import SlotPlan


class SlotCurves:
    """`configure_slots` of ``jobs`` on ``total`` slots (``k``, ``model``, ``releases``) for any
    admission order, memoized by order. ``progress``: False, True (a bar on stderr on a
    terminal) or a function of (splits done, splits in the curve), called per block of splits
    and starting again at each new curve; ``computed`` counts the curves computed."""

    def __init__(self, jobs: Sequence[Job], total: int, k: int, model: str, releases: np.ndarray | None,
                 progress: ProgressOption = False) -> None:
        self.jobs = list(jobs)
        self.total = total
        self.k = k
        self.model = model
        self.releases = releases
        self.progress = progress
        self.computed = 0
        self._plans: dict[tuple[int, ...], SlotPlan] = {}

    def plan(self, order: Sequence[int]) -> SlotPlan:
        """The best split for ``order`` and its whole curve (computed on the first call only)."""
        key = tuple(int(i) for i in order)
        known = self._plans.get(key)
        if known is not None:
            return known
        self.computed += 1
        report = step_reporter(self.progress, self.total - 1, f"fluid curve {self.computed}")
        reported = 0

        def heard(done: int, _: int) -> None:
            nonlocal reported
            report(done - reported)
            reported = done

        try:
            made = configure_slots(self.jobs, self.total, self.k, key, self.model, releases=self.releases,
                                   progress=heard)
        finally:
            report(None)
        self._plans[key] = made
        return made
