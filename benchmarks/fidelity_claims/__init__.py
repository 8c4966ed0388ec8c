"""Published claims of the papers, each set up from the paper's text and measured here.

`claims` holds what a claim is (`Claim`: paper value, ours, tolerance, verdict, set-up) and the
registry of claim groups; each module registers its groups on import:

- `packing`: Packing the most onto your cloud, W1-W6 (Figures 2-3);
- `fresh_setup`, `fresh_figures_3_4`, `fresh_figures_5_6`: FRESH, Figures 3-6 and Table II;
- `natjam`: Natjam, Figures 4-6 and Natjam-R's Figure 10;
- `fair_design`: the Hadoop Fair Scheduler design document;
- `zaharia`: Zaharia et al., sections 5.3, 6.1-6.3 (with the network model).

A new claim is one more `Claim` in a group's list, or one more function registered with
`claim_group` in any module imported here. The ``fidelity`` benchmark (benchmarks/bench_fidelity.py)
runs them all; docs/fidelity-claims.md shows the table.
"""

from __future__ import annotations

from benchmarks.fidelity_claims import fair_design, fresh_figures_3_4, fresh_figures_5_6, natjam, packing, zaharia
from benchmarks.fidelity_claims.claims import CLAIM_GROUPS, Claim, ClaimGroup, GroupResult, Settings, run_claims

__all__ = ["CLAIM_GROUPS", "Claim", "ClaimGroup", "GroupResult", "Settings", "fair_design", "fresh_figures_3_4",
           "fresh_figures_5_6", "natjam", "packing", "run_claims", "zaharia"]
