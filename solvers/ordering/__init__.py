"""Ordering a batch: the two-stage flow shop (`two_stage`: Johnson's rule, MILP, particle swarm),
the same with release times and due dates (`releases`: instance, evaluation and bounds;
`release_search`: list rules and local search; `release_methods`: MILP, branch and bound, swarm,
exhaustive), and the admission orders plans and validation use (`admission_orders`, which
imports no solver library)."""
