"""Making plans: the strategies behind `make_plan`, from the solvers' optimum or chosen by simulation.

`make` (`make_plan`), `curves` (fluid makespan-vs-split curves, computed once per order),
`arrivals` (release dates, windows, deadline orders), `pipelines` (orders that respect jobs'
dependencies, the critical-path order, propagated due dates), `robust` (near-optimal candidates chosen by
simulated p90) and `vm` (pair and packing solutions turned into a plan's phases). A new planning
strategy goes here; it calls `solvers` for the optimization (admission orders are
`solvers.ordering.admission_orders`'s, fingerprints `models.fingerprints`) and may run simulations through
`planner.proof` (as robust plans do). The rooms' order: the simulator, then `planner.plans` (the
record), then `planner.io` and `planner.proof`, then this room.
"""
