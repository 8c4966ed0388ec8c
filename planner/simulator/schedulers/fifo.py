"""FIFO: the oldest job of the highest priority gets every slot it can use."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mypy_extensions import mypyc_attr

from planner.simulator.jobs import OFF_RACK, JobRun
from planner.simulator.layout import MAP
from planner.simulator.locality import DelaySetting
from planner.simulator.schedulers.base import (
    LaunchTuple,
    Scheduler,
    as_order,
    check_order_names,
    fifo_key,
    order_rank,
)
from planner.simulator.schedulers.catalog import register
from planner.simulator.schedulers.ranked import RankedJobs

if TYPE_CHECKING:
    from planner.simulator.core import Simulation


@mypyc_attr(allow_interpreted_subclasses=True, serializable=True)  # subclassed in Python; copied, pickled
class Fifo(Scheduler):
    """Jobs in order of priority (higher first), then submit time, then name.

    A free slot goes to the first job in that order with a task for it (with
    delay scheduling, the first job that may launch on this node). ``order``
    (job names) replaces that order for the jobs it names, which go first, in
    its order: a plan's admission order.
    """

    name = "fifo"
    settings = ("delay", "order")

    def __init__(self, delay: DelaySetting = None, order: Any = None) -> None:
        super().__init__(delay)
        self.ranks = as_order(order)
        self._ranked: dict[int, RankedJobs] = {}
        self._rack_of: tuple[int, ...] = ()

    def __repr__(self) -> str:
        order = None if self.ranks is None else list(self.ranks)
        return f"Fifo(delay={self.delay!r}, order={order!r})"

    def describe(self) -> dict:
        data = super().describe()
        if self.ranks is not None:
            data["order"] = list(self.ranks)
        return data

    def bind(self, sim: Simulation) -> None:
        super().bind(sim)
        check_order_names(self.ranks, sim)
        # Per slot kind, the jobs that may have a task for it, in order. A job found without
        # one is dropped (`RankedJobs.scan`) and comes back in `job_has_work`: so a decision
        # never walks past the jobs whose maps are done but whose reduces wait.
        self._ranked = {kind: RankedJobs(self._key) for kind in sim.kinds_present}
        self._rack_of = sim.layout.rack_of

    def _key(self, job: JobRun) -> tuple:
        return (order_rank(self.ranks, job), *fifo_key(job))

    def job_arrived(self, job: JobRun, now: float) -> None:
        self.job_has_work(job)

    def job_has_work(self, job: JobRun) -> None:
        for kind, ranked in self._ranked.items():
            if job.pending(kind) and job not in ranked:
                ranked.update(job, True)

    def job_finished(self, job: JobRun, now: float) -> None:
        for ranked in self._ranked.values():
            ranked.update(job, False)

    def pick(self, node: int, kind: int, now: float) -> LaunchTuple | None:
        ranked = self._ranked[kind]
        if kind == MAP and self.delay is None:
            # The hot path of large FIFO runs: the first job with a pending map takes the slot.
            while (job := ranked.first()) is not None:
                if job.pending_maps:
                    task, locality = job.take_map(node, self._rack_of[node], OFF_RACK)
                    return job, MAP, task, locality
                ranked.update(job, False)
            return None
        if kind == MAP:
            return self.scan_maps(ranked, node, now, drop_idle=True)
        return self._scan(ranked, node, kind, now)

    def _scan(self, ranked: RankedJobs, node: int, kind: int, now: float) -> LaunchTuple | None:
        """The first job in order that takes a task of ``kind`` for ``node`` (apart from `pick`:
        compiled, a function holding lambdas builds their closure at every call, hot path or not)."""
        return ranked.scan(lambda job: self.take(job, node, kind, now), keep=lambda job: job.pending(kind))


register(Fifo)  # a call, not the decorator: a compiled class takes no decorator of ours (setup.py)
