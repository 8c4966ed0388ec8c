"""Multi-phase overcommit packing (Packing paper, section 5): the instance, the schedule and its
checker (`problem`); the methods "greedy" and "milp-compact" (`methods`), the exact "milp" over
phases as columns (`exact`, with its pricing in `columns`, its LP in `lp` and its phase listing
in `listing`), the particle swarm "pso" (`pso`) and "exhaustive" (`exhaustive`)."""
