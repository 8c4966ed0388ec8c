"""Taking a slot back from a running attempt: kill (work lost) or suspend (work kept)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from planner.simulator.jobs import JobRun, SlotRun
from planner.simulator.layout import MAP, REDUCE
from planner.simulator.records import KILLED_FATE, SUSPENDED_FATE

if TYPE_CHECKING:
    from planner.simulator.core import Simulation


def evict(sim: Simulation, slot: int, now: float, overheads: tuple[float, float] | None) -> None:
    """Kill (``overheads`` None) or suspend the attempt on ``slot``.

    A killed attempt frees its slot now and its task starts over. A suspended
    one keeps its slot for the suspend overhead (the checkpoint), then frees
    it; its task is pending again with the work it had left (a reducer still
    copying has done none of its compute) plus the resume overhead. With the
    network on, a killed reducer loses the bytes it fetched and a suspended one
    keeps them (`planner.simulator.shuffle`).
    """
    run: SlotRun = sim.slot_run[slot]
    job, kind, task = run[0], run[1], run[2]
    node = sim.slot_node[slot]
    # A remote map reading its block: the seconds of work it had left (the network decides its end).
    reading_left = sim._network_evict(slot, now, overheads is not None) if sim.network is not None else None
    copying = kind == REDUCE and slot in job.copying
    queued = kind == REDUCE and slot in sim.compute_queue[node]
    computing = kind == MAP or not (copying or queued)
    if copying:
        job.copying.remove(slot)
        job.copying_on[node] = job.copying_on[node] - 1
    elif queued:
        sim.compute_queue[node].remove(slot)
    if overheads is None:
        sim.counts["kills"] = sim.counts["kills"] + 1
        _stop_computing(sim, kind, computing, node, now)
        sim._release(slot, now, KILLED_FATE)
        _pending_again(sim, job, kind, task)
        return
    suspend_overhead, resume_overhead = overheads
    left = sim.slot_end[slot] - now if computing else job.reduce_times[task]
    if reading_left is not None:
        left = reading_left
    sim.counts["suspensions"] = sim.counts["suspensions"] + 1
    sim.suspending[slot] = left + resume_overhead
    sim.slot_gen[slot] = sim.slot_gen[slot] + 1  # the attempt's own end event is now stale
    _stop_computing(sim, kind, computing, node, now)
    sim.overhead_seconds += suspend_overhead + resume_overhead  # the checkpoint now, the restore later
    sim._end_at(now + suspend_overhead, slot)


def suspended(sim: Simulation, slot: int, now: float) -> None:
    """The checkpoint of a suspended attempt is done: free its slot, its task is pending again."""
    left = sim.suspending.pop(slot)
    job, kind, task, _, _ = sim._release(slot, now, SUSPENDED_FATE)
    job.left[(kind, task)] = left
    job.resume_on[(kind, task)] = sim.slot_node[slot]
    _pending_again(sim, job, kind, task)


def _stop_computing(sim: Simulation, kind: int, computing: bool, node: int, now: float) -> None:
    if kind == REDUCE and computing and sim.max_computing:
        sim._compute_slot_freed(node, now)


def _pending_again(sim: Simulation, job: JobRun, kind: int, task: int) -> None:
    if kind == MAP:
        job.return_map(task)
        sim.pending[MAP] = sim.pending[MAP] + 1
    else:
        job.reduce_queue.append(task)  # a stack: it is taken before the job's fresh reduces
        job.pending_reduces = job.pending_reduces + 1
        if job.reduces_open:
            sim.pending[REDUCE] = sim.pending[REDUCE] + 1
    sim.scheduler.job_has_work(job)
    sim._work_appeared()
