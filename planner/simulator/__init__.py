"""The discrete-event cluster simulator (never imports `solvers`)."""

from __future__ import annotations

from planner.simulator.api import simulate
from planner.simulator.config import (
    load_scheduler,
    load_settings,
    options_from_dict,
    scheduler_from_dict,
    simulation_settings,
)
from planner.simulator.core import Simulation, SimulationStalled
from planner.simulator.locality import DelayScheduling
from planner.simulator.options import OFF_RACK_FACTOR, RACK_FACTOR, SimOptions
from planner.simulator.result import SimResult, overall_fairness
from planner.simulator.schedulers import (
    SCHEDULERS,
    Capacity,
    Fair,
    Fifo,
    Pool,
    Preemption,
    Queue,
    Scheduler,
    fair_shares,
    make_scheduler,
    register,
)

__all__ = [
    "OFF_RACK_FACTOR",
    "RACK_FACTOR",
    "SCHEDULERS",
    "Capacity",
    "DelayScheduling",
    "Fair",
    "Fifo",
    "Pool",
    "Preemption",
    "Queue",
    "Scheduler",
    "SimOptions",
    "SimResult",
    "Simulation",
    "SimulationStalled",
    "fair_shares",
    "load_scheduler",
    "load_settings",
    "make_scheduler",
    "options_from_dict",
    "overall_fairness",
    "register",
    "scheduler_from_dict",
    "simulate",
    "simulation_settings",
]
