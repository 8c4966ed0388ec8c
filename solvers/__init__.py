"""Planning problems turned into solutions (slot configuration, ordering, ordering with releases, packing).

Imports `models` only, never `planner`. Every solution carries a `SolveStatus`,
its objective, the best proven bound (or None), the gap, the solver and the
wall time. The names are served on first use (`__getattr__`) and the solver methods register
when they are first looked up (`solvers.registry`), so importing one piece (say
`solvers.slots`) does not import pyomo, SciPy or pyswarms.
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
    "MilpOutcome": "solvers.milp",
    "solve_milp": "solvers.milp",
    "OrderSolution": "solvers.ordering",
    "johnson_order": "solvers.ordering",
    "order_jobs": "solvers.ordering",
    "order_two_stage": "solvers.ordering",
    "stage_times": "solvers.ordering",
    "two_stage_makespan": "solvers.ordering",
    "ReleaseOrderSolution": "solvers.ordering_release",
    "ReleaseSchedule": "solvers.ordering_release",
    "order_with_releases": "solvers.ordering_release",
    "release_lower_bound": "solvers.ordering_release",
    "release_schedule": "solvers.ordering_release",
    "PackingInstance": "solvers.packing",
    "PhaseSchedule": "solvers.packing",
    "Placement": "solvers.packing",
    "evaluate_phases": "solvers.packing",
    "pack_phases": "solvers.packing",
    "PairCost": "solvers.pairs",
    "PairCosts": "solvers.pairs",
    "PairGroup": "solvers.pairs",
    "PairSchedule": "solvers.pairs",
    "pair_cost": "solvers.pairs",
    "pair_costs": "solvers.pairs",
    "schedule_pairs": "solvers.pairs",
    "PsoOptions": "solvers.pso",
    "PsoOutcome": "solvers.pso",
    "minimize_pso": "solvers.pso:minimize",
    "Method": "solvers.registry",
    "method": "solvers.registry",
    "methods": "solvers.registry",
    "register_method": "solvers.registry",
    "SLOT_MODELS": "solvers.slots:MODELS",
    "SlotPlan": "solvers.slots",
    "configure_slots": "solvers.slots",
    "fluid_makespan": "solvers.slots",
}

__getattr__, __dir__ = lazy_names("solvers", _PUBLIC, globals())

__all__ = sorted(_PUBLIC)
