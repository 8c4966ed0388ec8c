"""Making plans: what an operator applies tonight, and its file format.

`plan` (`Plan`, `make_plan`), `vm` (pair and phase schedules as plain data), `orders`
(admission orders), `robust` (near-optimal candidates chosen by simulated p90), `files` (reading
plan files strictly), `fingerprints` (tying a plan to its workload and cluster). A new planning
strategy goes here; it calls `solvers` for the optimization and may run simulations through
`planner.proof` (as the robust strategy does).
"""
