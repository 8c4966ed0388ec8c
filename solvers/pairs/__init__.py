"""VM pair scheduling (Packing paper, section 4): the pair costs, the schedule and the
"exhaustive" method (`problem`), the exact "milp" and "matching" methods (`matching`) and the
matching LP they shrink the graph with (`matching_lp`)."""
