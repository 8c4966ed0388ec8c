"""The discrete-event cluster simulator (never imports `solvers`: it runs plans, it does not make them).

`engine` (the event heap and clock), `core` (the `Simulation` object holding all state, and what
happens to tasks: offers, launches, ends, kills, suspensions), `api` (`simulate`), `jobs`, `locality`,
`layout` (nodes, racks, slots, blocks), `options` and `config` (settings from plain data),
`network` (links: remote reads and the copy phase go over them),
`result` and `records` (what a run reports; `planner.plots` draws its charts), `vms` (VM-level runs of pair and phase
schedules), and `schedulers/` (one module per scheduler, registered by name). A new scheduler
is a module in `schedulers/` registered there. The simulator reads and writes no file format:
settings files, result files and Hadoop's files are `planner.io`'s.
"""

from __future__ import annotations

from planner.simulator.api import simulate
from planner.simulator.config import (
    options_from_dict,
    scheduler_from_dict,
    with_options,
)
from planner.simulator.core import Simulation, SimulationStalled
from planner.simulator.engine import EventKind
from planner.simulator.jobs import Locality
from planner.simulator.layout import TaskKind
from planner.simulator.locality import DelayScheduling, DelaySetting
from planner.simulator.native import check_build
from planner.simulator.options import OFF_RACK_FACTOR, RACK_FACTOR, SimOptions
from planner.simulator.progress import Progress
from planner.simulator.result import SimResult, overall_fairness
from planner.simulator.run import Run
from planner.simulator.schedulers import (
    SCHEDULERS,
    Capacity,
    Fair,
    Fifo,
    Fresh,
    Launch,
    Natjam,
    Pool,
    Preemption,
    Queue,
    Scheduler,
    SlotTarget,
    fair_shares,
    make_scheduler,
    register,
)
from planner.simulator.vms import VM_ROLES, VmResult, check_vm_groups, simulate_vms

check_build()  # an edited source must not run its old compiled build (`native`)

__all__ = [
    "OFF_RACK_FACTOR",
    "RACK_FACTOR",
    "SCHEDULERS",
    "Capacity",
    "DelayScheduling",
    "DelaySetting",
    "EventKind",
    "Fair",
    "Fifo",
    "Fresh",
    "Launch",
    "Locality",
    "Natjam",
    "Pool",
    "Preemption",
    "Progress",
    "Queue",
    "Run",
    "Scheduler",
    "SimOptions",
    "SimResult",
    "Simulation",
    "SimulationStalled",
    "SlotTarget",
    "TaskKind",
    "VM_ROLES",
    "VmResult",
    "check_vm_groups",
    "fair_shares",
    "make_scheduler",
    "options_from_dict",
    "overall_fairness",
    "register",
    "scheduler_from_dict",
    "simulate",
    "with_options",
    "simulate_vms",
]
