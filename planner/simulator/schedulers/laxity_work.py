"""The arithmetic of MLF's laxity: a job's work, its laxity, an attempt's time left.

Compiled with the simulator's core (`compiled.txt`): `laxity_order.LaxityOrder` computes these at
every decision, and `natjam_laxity.LaxityRules` (`Natjam`'s base) uses the same ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from planner.simulator.jobs import JobRun, SlotRun
from planner.simulator.layout import MAP, REDUCE

if TYPE_CHECKING:
    from planner.simulator.core import Simulation


def work_left(job: JobRun, running: float, extra: float = 0.0) -> float:
    """Seconds of work ``job`` has left: its pending tasks, ``running`` (what its running attempts
    have left, summed in slot order) and ``extra``, suspended tasks counting their work left."""
    left = job.pending_maps * job.map_time + job.pending_reduces * job.reduce_time + running + extra
    for (kind, _), seconds in job.left.items():  # suspended tasks: their work left, not a whole task
        left += seconds - (job.map_time if kind == MAP else job.reduce_time)
    return left


def total_work(job: JobRun) -> float:
    """Seconds of work of all ``job``'s tasks."""
    return job.maps * job.map_time + job.reduces * job.reduce_time


def laxity_from(job: JobRun, now: float, left: float, share: float) -> float:
    """The laxity of ``job`` (with a deadline) with ``left`` seconds of work left, ``share`` the
    even share of the cluster (slots / unfinished jobs)."""
    elapsed = now - job.start if job.start is not None else 0.0
    # A job that has not run long has no rate of its own yet: count on its even share of the cluster.
    rate = max((total_work(job) - left) / elapsed if elapsed > 0 else 0.0, share)
    return deadline_of(job) - (now + left / rate)


def even_share(sim: Simulation, jobs: int) -> float:
    """Slots per unfinished job (``jobs`` of them): the rate a job without one of its own counts on."""
    return sim.slot_count / max(jobs, 1)


def deadline_of(job: JobRun) -> float:
    """The deadline of a job the laxity arithmetic is given (only jobs with one are)."""
    if job.deadline is None:  # pragma: no cover - callers rank jobs without a deadline apart
        raise RuntimeError(f"job {job.name!r} has no deadline: it has no laxity")
    return job.deadline


def before_compute(sim: Simulation, job: JobRun, kind: int, slot: int) -> bool:
    """Whether the attempt on ``slot`` is a reducer that has not started computing (still copying,
    or waiting for a compute slot of its node): it has no end yet, and its whole compute is left."""
    return kind == REDUCE and (slot in job.copying or slot in sim.compute_queue[sim.slot_node[slot]])


def time_left(sim: Simulation, slot: int, now: float) -> float:
    """Seconds the attempt on ``slot`` has left (a reducer before its compute: its whole compute)."""
    run: SlotRun = sim.slot_run[slot]  # typed: compiled, its items are read without a lookup
    kind = run[1]
    if kind == REDUCE:
        job = run[0]
        if before_compute(sim, job, kind, slot):
            return job.reduce_times[run[2]]
    left = sim.slot_end[slot] - now
    return 0.0 if left < 0.0 else left  # max(left, 0.0), without a call: the same value, -0.0 included


def holds(sim: Simulation, slot: int, job: JobRun) -> bool:
    """Whether ``job``'s attempt is on ``slot``."""
    item = sim.slot_run[slot]
    if item is None:
        return False
    run: SlotRun = item  # typed: compiled, its items are read without a lookup
    return run[0] is job
