"""The discrete-event cluster simulator (never imports `solvers`)."""

from __future__ import annotations

from planner.simulator.api import simulate
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
    "make_scheduler",
    "overall_fairness",
    "register",
    "simulate",
]
