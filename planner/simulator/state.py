"""The state `Simulation` holds, declared once for the classes it is built from.

`Simulation` is a chain of classes, one per concern: `shuffle.Transfers` (remote reads and
copies), `ends.Ends` (how attempts end), `offers.Offers` (when free slots are offered) and
`core.Simulation` (the event loop). Each uses state the others keep and calls a few of their
methods; declaring both here lets a type checker follow every attribute and call along the
chain. `Simulation.__init__` sets every attribute; the methods below are defined further down.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from librt.vecs import vec
from mypy_extensions import i64, mypyc_attr, u8

if TYPE_CHECKING:
    from models import Cluster, Workload
    from planner.simulator.attempt_log import AttemptLog
    from planner.simulator.engine import EventQueue
    from planner.simulator.jobs import JobRun
    from planner.simulator.layout import Layout
    from planner.simulator.options import SimOptions
    from planner.simulator.schedulers.base import Scheduler


@mypyc_attr(allow_interpreted_subclasses=True)  # as Simulation, which tests subclass
class SimState:
    """Declarations only (see the module docstring)."""

    options: SimOptions
    workload: Workload
    cluster: Cluster
    layout: Layout
    scheduler: Scheduler
    events: EventQueue
    kinds_present: tuple[int, ...]
    max_computing: int
    hears_ends: bool
    heartbeat: float
    # Slots: the attempt on each, (job, kind, task, start, locality) or None, and its bookkeeping.
    slot_count: int  # the layout's slots (read at every laxity: an attribute, not a property)
    slot_node: tuple[int, ...]
    slot_kind: tuple[int, ...]
    slot_run: list[Any]  # a `jobs.SlotRun` or None
    slot_gen: vec[i64]
    slot_end: vec[float]
    slot_busy: vec[float]
    suspending: dict[int, float]
    # End events shared by attempts that end at the same time (`Ends._end_at`).
    cohort_end: float
    cohort: list[int] | None
    batches: dict[int, list[int]]
    batch_count: int
    # Jobs.
    jobs: list[JobRun]
    active: dict[str, JobRun]
    changed: list[JobRun] | None
    pending: list[int]
    running_total: int
    # Reducers computing, and waiting to compute, per node.
    computing: list[int]
    compute_queue: list[list[int]]
    # Free slots and sleeping nodes (`Offers`).
    node_free: list[list[list[int]]]
    free_count: list[int]
    awake: bytearray
    node_tick: list[int]
    asleep: list[bytearray]
    asleep_count: list[int]
    chain: list[int]
    chain_tick: list[float]
    declined_asleep: bytearray
    declined_count: int
    fresh: list[int]
    idle: vec[u8]  # heartbeat 0: flags of the free slots declined since work last appeared
    # Ended attempts, in typed columns.
    attempt_log: AttemptLog

    def _offer(self, slot: int, node: int, kind: int, now: float) -> bool:
        raise NotImplementedError  # core.Simulation

    def _report_progress(self) -> None:
        raise NotImplementedError  # core.Simulation

    def _work_appeared(self, kind: int | None = None) -> None:
        raise NotImplementedError  # offers.Offers

    def _slot_freed(self, node: int, kind: int, now: float) -> None:
        raise NotImplementedError  # offers.Offers

    def _compute(self, slot: int, node: int, now: float) -> None:
        raise NotImplementedError  # ends.Ends

    def _finish(self, slot: int, now: float) -> None:
        raise NotImplementedError  # ends.Ends
