"""The SimPy model the simulator's throughput floor is measured against (issue 5).

The "equivalent SimPy model" of a FIFO run of map-only jobs: every map task is
an item ``(job, task, duration)`` in one FIFO store backed by a
``collections.deque``; one SimPy process per slot takes the next task, holds it
for its duration (a timeout) and records ``(job, task, slot, start, end)``.

It models what `planner.simulator.simulate` does for such a batch with
heartbeat 0 (a slot is offered work the moment it frees) and locality factors
of 1 (every map runs for its job's mean time wherever it lands), so both give
the same makespan and job finish times: list scheduling of the same task
sequence on identical slots. It has no racks, blocks, reduces, arrivals or
scheduler choices; it is a yardstick, not a second simulator.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

import simpy
from simpy.resources.store import StoreGet

from models import Job


class DequeStore(simpy.Store):
    """`simpy.Store` whose items are a ``deque``: a get takes the oldest item in O(1)
    (the stock store pops index 0 of a list, which is O(n))."""

    def __init__(self, env: simpy.Environment, capacity: float = float("inf")) -> None:
        super().__init__(env, capacity)
        self.items: deque = deque()  # type: ignore[assignment]

    def _do_get(self, event: StoreGet) -> bool | None:  # type: ignore[override]
        if self.items:
            event.succeed(self.items.popleft())
        return None


@dataclass(frozen=True)
class SimpyRun:
    """What the SimPy model reports: ``records`` are (job, task, slot, start, end)
    in completion order; ``finish`` maps each job's index (in FIFO order) to its
    last task's end."""

    makespan: float
    records: list[tuple[int, int, int, float, float]]
    finish: list[float]

    @property
    def tasks(self) -> int:
        return len(self.records)


def fifo_order(jobs: Iterable[Job]) -> list[Job]:
    """The simulator's FIFO order: higher priority first, then submit time, then name."""
    return sorted(jobs, key=lambda job: (-job.priority, job.submit, job.name))


def _slot(env: simpy.Environment, store: DequeStore, slot: int, records: list) -> simpy.events.ProcessGenerator:
    append = records.append
    get, timeout = store.get, env.timeout
    while True:
        job, task, duration = yield get()
        start = env.now
        yield timeout(duration)
        append((job, task, slot, start, env.now))


def simulate_fifo(jobs: Iterable[Job], slots: int, durations: dict[str, list[float]] | None = None) -> SimpyRun:
    """Run map-only ``jobs``, all submitted at time 0, FIFO on ``slots`` identical slots.

    Every task of a job lasts the job's ``map_time``, or ``durations[name][task]``
    when given. The process of a slot blocks on the empty store once the work is
    gone, so the run ends when the event queue is empty.
    """
    ordered = fifo_order(jobs)
    for job in ordered:
        if job.reduce_tasks or job.submit:
            raise ValueError(f"job {job.name!r}: the SimPy reference runs map-only jobs submitted at time 0")
    env = simpy.Environment()
    store = DequeStore(env)
    if durations is None:
        store.items.extend((j, t, job.map_time) for j, job in enumerate(ordered) for t in range(job.map_tasks))
    else:
        store.items.extend((j, t, durations[job.name][t]) for j, job in enumerate(ordered) for t in range(job.map_tasks))
    records: list[tuple[int, int, int, float, float]] = []
    for slot in range(slots):
        env.process(_slot(env, store, slot, records))
    env.run()
    finish = [0.0] * len(ordered)
    for job, _task, _slot_number, _start, end in records:
        if end > finish[job]:
            finish[job] = end
    return SimpyRun(max(finish, default=0.0), records, finish)
