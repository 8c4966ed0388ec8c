"""FIFO: the oldest job of the highest priority gets every slot it can use."""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from planner.simulator.jobs import OFF_RACK, JobRun
from planner.simulator.layout import MAP
from planner.simulator.schedulers.base import (
    Launch,
    Scheduler,
    as_order,
    check_order_names,
    fifo_key,
    order_rank,
    register,
)


@register
class Fifo(Scheduler):
    """Jobs in order of priority (higher first), then submit time, then name.

    A free slot goes to the first job in that order with a task for it (with
    delay scheduling, the first job that may launch on this node). ``order``
    (job names) replaces that order for the jobs it names, which go first, in
    its order: a plan's admission order.
    """

    name = "fifo"

    def __init__(self, delay=None, order: Sequence[str] | None = None) -> None:
        super().__init__(delay)
        self.ranks = as_order(order)
        self.queue: list[JobRun] = []
        self._keys: list[tuple] = []
        self._rack_of: tuple[int, ...] = ()

    def __repr__(self) -> str:
        order = None if self.ranks is None else list(self.ranks)
        return f"Fifo(delay={self.delay!r}, order={order!r})"

    def describe(self) -> dict:
        data = super().describe()
        if self.ranks is not None:
            data["order"] = list(self.ranks)
        return data

    def bind(self, sim) -> None:
        super().bind(sim)
        check_order_names(self.ranks, sim)
        self.queue, self._keys = [], []
        self._rack_of = sim.layout.rack_of

    def job_arrived(self, job: JobRun, now: float) -> None:
        key = (order_rank(self.ranks, job), *fifo_key(job))
        position = bisect.bisect(self._keys, key)
        self._keys.insert(position, key)
        self.queue.insert(position, job)

    def job_finished(self, job: JobRun, now: float) -> None:
        position = self.queue.index(job)
        del self.queue[position]
        del self._keys[position]

    def pick(self, node: int, kind: int, now: float) -> Launch | None:
        if kind == MAP and self.delay is None:
            # The hot path of large FIFO runs: the first job with a pending map takes the slot.
            rack = self._rack_of[node]
            for job in self.queue:
                if job.pending_maps:
                    task, locality = job.take_map(node, rack, OFF_RACK)
                    return job, MAP, task, locality
            return None
        take = self.take
        for job in self.queue:
            if job.pending(kind):
                launch = take(job, node, kind, now)
                if launch is not None:
                    return launch
        return None
