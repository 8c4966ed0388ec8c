"""Fidelity to the papers: every published claim of `benchmarks.fidelity_claims`, set up from its
paper's text, with the paper's value, ours, the tolerance and whether the claim holds.

One row per claim: ``instance`` is the claim's id and text, ``method`` its paper, ``objective``
our value and ``bound`` the paper's (where they are numbers; orderings give theirs in the
detail), ``gap`` |ours - paper| / |paper|, ``status`` "holds" or "does not hold", ``detail`` the
paper's value and ours as shown, the tolerance and the set-up. ``seconds`` is the wall time of
the claim's group (the claims of a group share one set of runs). A claim that does not hold is
a finding, not a failure: there are no floors and the runner's exit status does not depend on it.

Suites: ``quick`` runs the FRESH set-ups on seeds 0-2 (as docs/fidelity-claims.md shows them),
``full`` on seeds 0-4; the Natjam set-ups always run the paper's five seeds (0-4), the Packing
and Fair-design set-ups are deterministic.
"""

from __future__ import annotations

from benchmarks.fidelity_claims import Settings, run_claims
from benchmarks.registry import Row, register

NAME = "fidelity"


@register(NAME, suites=("quick", "full"))
def fidelity(suite: str) -> list[Row]:
    """Published claims of FRESH, Packing, Natjam and the Hadoop Fair Scheduler design: paper value, ours, tolerance, holds."""
    rows = []
    for group in run_claims(Settings.for_suite(suite)):
        for claim in group.claims:
            rows.append(Row(NAME, f"{claim.id}: {claim.text}", claim.source, claim.ours, claim.paper, claim.gap,
                            group.seconds, claim.status, 1, detail=claim.detail))
    return rows
