"""The fluid makespan curves of a slot plan's admission orders, each computed once.

A production day's curve is minutes of work (24,437 jobs on 12,000 slots: every split, one
event loop each), and `make_plan` asks for the chosen order's best split twice: once to compare
it with submission order (`arrivals.no_worse_than_submission`), once for the plan. `SlotCurves`
keeps each order's `SlotPlan`, and reports each new curve's progress over its splits.

A plan keeps its order's whole curve when it is small (`keeps_curve`: jobs x (S - 1) at most
`CURVE_ENTRIES`); a larger batch's best split comes from the bounded search
(`solvers.slots.configure.best_split`: the curve's very best split and value, from the splits
a bound cannot rule out), its plan's curve is empty, and validation computes the curve it
draws (`planner.proof.setups.fluid_curve`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from models import Job
from planner.proof.sweep import ProgressOption, step_reporter
from solvers import configure_slots
from solvers.slots.configure import SlotPlan, best_split

#: The most jobs x (S - 1) whose whole curve a plan computes and keeps (about 3 s of CPU with
#: release times: the FB-2010 trace's first 2,577 jobs on 12,000 slots, 3.1e7, took 18 s).
CURVE_ENTRIES = 5_000_000


class SlotCurves:
    """`configure_slots` of ``jobs`` on ``total`` slots (``k``, ``model``, ``releases``) for any
    admission order, memoized by order. ``progress``: False, True (a bar on stderr on a
    terminal) or a function of (splits done, splits in the curve), called per block of splits
    and starting again at each new curve; ``computed`` counts the curves computed (whole or
    searched). ``also``: the splits (map slots) whose values `value` is asked for, evaluated
    with each searched curve's best split."""

    def __init__(self, jobs: Sequence[Job], total: int, k: int, model: str, releases: np.ndarray | None,
                 progress: ProgressOption = False, also: Sequence[int] = ()) -> None:
        self.jobs = list(jobs)
        self.total = total
        self.k = k
        self.model = model
        self.releases = releases
        self.progress = progress
        self.also = tuple(also)
        self.computed = 0
        self._plans: dict[tuple[int, ...], SlotPlan] = {}
        self._values: dict[tuple[int, ...], dict[int, float]] = {}

    @property
    def keeps_curve(self) -> bool:
        """Whether plans compute and keep their order's whole curve (module docstring)."""
        return len(self.jobs) * (self.total - 1) <= CURVE_ENTRIES

    def best(self, order: Sequence[int]) -> SlotPlan:
        """The best split for ``order``: `plan` (the whole curve) when `keeps_curve`, else the
        bounded search's (`best_split`; ``makespans`` empty), computed on the first call only."""
        return self._solved(order, whole=self.keeps_curve)

    def value(self, order: Sequence[int], map_slots: int) -> float:
        """The fluid makespan of ``order`` with ``map_slots`` map slots: the curve's number, from
        a curve or search already made, else of that split alone (`fluid_makespan`)."""
        key = tuple(int(i) for i in order)
        known = self._plans.get(key)
        if known is not None and known.makespans.size:
            return float(known.makespans[map_slots - 1])
        if map_slots in self._values.get(key, {}):
            return self._values[key][map_slots]
        from solvers import fluid_makespan

        return fluid_makespan(self.jobs, map_slots, self.total - map_slots, self.k, key, self.model,
                              releases=self.releases)

    def plan(self, order: Sequence[int]) -> SlotPlan:
        """The best split for ``order`` and its whole curve (computed on the first call only)."""
        return self._solved(order, whole=True)

    def _solved(self, order: Sequence[int], *, whole: bool) -> SlotPlan:
        """``order``'s best split, memoized: with its whole curve (`configure_slots`) or, not
        ``whole``, from the bounded search (`best_split`, with the values of ``also``)."""
        key = tuple(int(i) for i in order)
        known = self._plans.get(key)
        if known is not None and (known.makespans.size or not whole):
            return known
        self.computed += 1
        report = step_reporter(self.progress, self.total - 1, f"fluid curve {self.computed}")
        reported = 0

        def heard(done: int, _: int) -> None:
            nonlocal reported
            report(done - reported)
            reported = done

        try:
            if whole:
                made = configure_slots(self.jobs, self.total, self.k, key, self.model, releases=self.releases,
                                       progress=heard)
            else:
                made, self._values[key] = best_split(self.jobs, self.total, self.k, key, self.model,
                                                     releases=self.releases, also=self.also, progress=report)
        finally:
            report(None)
        self._plans[key] = made
        return made
