"""The discrete-event cluster simulator (never imports `solvers`: it runs plans, it does not make them).

`engine` (the event heap and clock), `core` (the `Simulation` object holding all state, and what
happens to tasks: offers, launches, ends, kills, suspensions), `api` (`simulate`), `jobs`, `locality`,
`layout` (nodes, racks, slots, blocks), `options` and `config` (settings and their files),
`hadoop_conf`, `hadoop_allocations` and `hadoop_files` (Hadoop's own configuration files), `network`
(links: remote reads and the copy phase go over them),
`result`, `records` and `gantt` (what a run reports), `vms` (VM-level runs of pair and phase
schedules), and `schedulers/` (one module per scheduler, registered by name). A new scheduler
is a module in `schedulers/` registered there.
"""

from __future__ import annotations

from planner.simulator.api import simulate
from planner.simulator.config import (
    load_scheduler,
    load_settings,
    options_from_dict,
    scheduler_from_dict,
    simulation_settings,
    with_options,
)
from planner.simulator.core import Simulation, SimulationStalled
from planner.simulator.engine import EventKind
from planner.simulator.hadoop_conf import HadoopSetup, IgnoredSetting, hadoop_run, hadoop_settings, read_hadoop_conf
from planner.simulator.jobs import Locality
from planner.simulator.layout import TaskKind
from planner.simulator.locality import DelayScheduling, DelaySetting
from planner.simulator.native import check_build
from planner.simulator.options import OFF_RACK_FACTOR, RACK_FACTOR, SimOptions
from planner.simulator.prepared import PreparedRun
from planner.simulator.progress import Progress
from planner.simulator.result import SimResult, overall_fairness
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
    "HadoopSetup",
    "IgnoredSetting",
    "Launch",
    "Locality",
    "Natjam",
    "Pool",
    "Preemption",
    "PreparedRun",
    "Progress",
    "Queue",
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
    "hadoop_run",
    "hadoop_settings",
    "load_scheduler",
    "load_settings",
    "make_scheduler",
    "options_from_dict",
    "overall_fairness",
    "read_hadoop_conf",
    "register",
    "scheduler_from_dict",
    "simulate",
    "with_options",
    "simulate_vms",
    "simulation_settings",
]
