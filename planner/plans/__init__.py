"""Making plans: what an operator applies tonight, and its file format.

`plan` (`Plan`, `make_plan`), `vm` (pair and phase schedules as plain data), `robust`
(near-optimal candidates chosen by simulated p90), `files` (reading plan files strictly). A new
planning strategy goes here; it calls `solvers` for the optimization (admission orders are
`solvers.ordering.admission_orders`'s, fingerprints `models.fingerprints`) and may run simulations through
`planner.proof` (as robust plans do): proofs never import this room, so the order of the rooms
is io and the simulator, then proof, then plans.
"""
