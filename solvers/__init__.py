"""Planning problems turned into solutions (slot configuration, ordering, packing).

Imports `models` only, never `planner`. Every solution carries a `SolveStatus`,
its objective, the best proven bound (or None), the gap, the solver and the
wall time.
"""

from __future__ import annotations

from solvers import (
    matching,  # registers the "milp" and "matching" pair methods
    packing_exact,  # registers the exact "milp" packing method
    packing_exhaustive,  # registers the "exhaustive" packing method (cross-checks)
    packing_methods,  # registers the packing methods
    packing_pso,  # registers the packing "pso" method
)
from solvers.base import MAX_TIME_LIMIT, InfeasibleProblem, Solution, SolverFailed, SolveStatus, relative_gap
from solvers.certify import UncertifiedResult
from solvers.milp import MilpOutcome, solve_milp
from solvers.ordering import (
    OrderSolution,
    johnson_order,
    order_jobs,
    order_two_stage,
    stage_times,
    two_stage_makespan,
)
from solvers.packing import PackingInstance, PhaseSchedule, Placement, evaluate_phases, pack_phases
from solvers.pairs import PairCost, PairCosts, PairGroup, PairSchedule, pair_cost, pair_costs, schedule_pairs
from solvers.pso import PsoOptions, PsoOutcome
from solvers.pso import minimize as minimize_pso
from solvers.registry import Method, method, methods, register_method
from solvers.slots import MODELS as SLOT_MODELS
from solvers.slots import SlotPlan, configure_slots, fluid_makespan

__all__ = [
    "matching",
    "packing_exact",
    "packing_exhaustive",
    "packing_methods",
    "packing_pso",
    "PackingInstance",
    "PhaseSchedule",
    "Placement",
    "evaluate_phases",
    "pack_phases",
    "SLOT_MODELS",
    "InfeasibleProblem",
    "MAX_TIME_LIMIT",
    "UncertifiedResult",
    "Method",
    "MilpOutcome",
    "OrderSolution",
    "PairCost",
    "PairCosts",
    "PairGroup",
    "PairSchedule",
    "PsoOptions",
    "PsoOutcome",
    "SlotPlan",
    "Solution",
    "SolveStatus",
    "SolverFailed",
    "configure_slots",
    "fluid_makespan",
    "johnson_order",
    "method",
    "methods",
    "minimize_pso",
    "order_jobs",
    "order_two_stage",
    "pair_cost",
    "pair_costs",
    "register_method",
    "relative_gap",
    "schedule_pairs",
    "solve_milp",
    "stage_times",
    "two_stage_makespan",
]
