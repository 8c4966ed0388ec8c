"""Thin wrappers over the solver libraries every problem shares: `milp` (pyomo models and sparse
arrays solved by HiGHS) and `pso` (pyswarms' particle swarm). They build no formulation: the
formulations live with their problems, which never call a solver library directly."""
