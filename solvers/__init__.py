"""Planning problems turned into solutions (slot configuration, ordering, ordering with releases, packing).

Imports `models` only, never `planner`. One sub-package per problem: `solvers.slots` (static
slot configuration), `solvers.ordering` (two-stage orders, with or without release times, and a
batch's admission orders), `solvers.pairs` (VM pair scheduling) and `solvers.packing`
(multi-phase overcommit packing). What every problem shares sits at the top: `solvers.base`
(what a result carries), `solvers.certify` (checking a solver's claim), `solvers.registry`
(methods by name) and `solvers.backends` (thin wrappers over HiGHS and pyswarms).

Every solution carries a `SolveStatus`, its objective, the best proven bound (or None), the
gap, the solver and the wall time. The names are served on first use (`__getattr__`) and the
solver methods register when they are first looked up (`solvers.registry`), so importing one
piece (say `solvers.slots.configure`) does not import pyomo, SciPy or pyswarms.
"""

from __future__ import annotations

from models.lazy import lazy_names

#: Public name -> the module that defines it (``module:attribute`` where the names differ).
_PUBLIC = {
    "MAX_TIME_LIMIT": "solvers.base",
    "InfeasibleProblem": "solvers.base",
    "Solution": "solvers.base",
    "SolverFailed": "solvers.base",
    "SolveStatus": "solvers.base",
    "relative_gap": "solvers.base",
    "UncertifiedResult": "solvers.certify",
    "MilpOutcome": "solvers.backends.milp",
    "solve_milp": "solvers.backends.milp",
    "OrderSolution": "solvers.ordering.two_stage",
    "johnson_order": "solvers.ordering.two_stage",
    "order_jobs": "solvers.ordering.two_stage",
    "order_two_stage": "solvers.ordering.two_stage",
    "stage_times": "solvers.ordering.two_stage",
    "two_stage_makespan": "solvers.ordering.two_stage",
    "ReleaseOrderSolution": "solvers.ordering.releases",
    "ReleaseSchedule": "solvers.ordering.releases",
    "order_with_releases": "solvers.ordering.releases",
    "release_lower_bound": "solvers.ordering.releases",
    "release_schedule": "solvers.ordering.releases",
    "PackingInstance": "solvers.packing.problem",
    "PhaseSchedule": "solvers.packing.problem",
    "Placement": "solvers.packing.problem",
    "evaluate_phases": "solvers.packing.problem",
    "pack_phases": "solvers.packing.problem",
    "PairCost": "solvers.pairs.problem",
    "PairCosts": "solvers.pairs.problem",
    "PairGroup": "solvers.pairs.problem",
    "PairSchedule": "solvers.pairs.problem",
    "pair_cost": "solvers.pairs.problem",
    "pair_costs": "solvers.pairs.problem",
    "schedule_pairs": "solvers.pairs.problem",
    "PsoOptions": "solvers.backends.pso",
    "PsoOutcome": "solvers.backends.pso",
    "minimize_pso": "solvers.backends.pso:minimize",
    "Method": "solvers.registry",
    "method": "solvers.registry",
    "methods": "solvers.registry",
    "register_method": "solvers.registry",
    "SLOT_MODELS": "solvers.slots.configure:MODELS",
    "SlotPlan": "solvers.slots.configure",
    "configure_slots": "solvers.slots.configure",
    "fluid_makespan": "solvers.slots.configure",
}

__getattr__, __dir__ = lazy_names("solvers", _PUBLIC, globals())

__all__ = sorted(_PUBLIC)
