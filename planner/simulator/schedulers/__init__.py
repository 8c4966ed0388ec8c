"""Schedulers, registered by name: see `SCHEDULERS` and `make_scheduler`.

One module per scheduler, each a subclass of `base.Scheduler` (`pick` the task for a free slot;
hooks for arrivals, completions and the simulation settling; `wake` for timed re-checks):
`fifo`, `fair` (with the pure `fair_share` computation and `preemption`), `capacity`, `fresh` (with its
admission limit and slot typing), `natjam` (with its laxity, `natjam_laxity`, over the kinetic
tournament of `kinetic`). A new scheduler is a module here whose class is registered with `catalog.register`, imported
below (registration happens on import), and named in `planner.cli.choices.SCHEDULER_NAMES` (a
test checks the two agree).
"""

from __future__ import annotations

from planner.simulator.schedulers.base import Launch, Scheduler
from planner.simulator.schedulers.capacity import Capacity, Queue
from planner.simulator.schedulers.catalog import SCHEDULERS, make_scheduler, register
from planner.simulator.schedulers.fair import Fair, Pool
from planner.simulator.schedulers.fair_share import fair_shares
from planner.simulator.schedulers.fifo import Fifo
from planner.simulator.schedulers.fresh import Fresh, SlotTarget
from planner.simulator.schedulers.natjam import Natjam
from planner.simulator.schedulers.preemption import Preemption

__all__ = [
    "SCHEDULERS",
    "Capacity",
    "Fair",
    "Fifo",
    "Fresh",
    "Launch",
    "Natjam",
    "Pool",
    "Preemption",
    "Queue",
    "Scheduler",
    "SlotTarget",
    "fair_shares",
    "make_scheduler",
    "register",
]
