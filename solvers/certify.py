"""Checking a solver's claim before repeating it.

A solver library's "optimal" is a claim, not a proof: HiGHS 1.16.0 once
returned status Optimal with objective 0 and bound 0 for a MIP start whose
column presolve had dropped, and we printed a schedule 11% worse than the
optimum as "optimal, gap 0". So every exact method checks its own
certificate before it reports `SolveStatus.OPTIMAL`:

1. the solution is feasible (the method's own checker, e.g. `evaluate_phases`);
2. the objective recomputed from the solution equals the one the solver reported;
3. the proven bound lies between what we already know and what we can reach:
   at least every bound we hold independently (an LP bound, a combinatorial
   bound) and at most every objective we hold a solution for (the incumbent,
   a heuristic's schedule, Johnson's order);
4. objective and bound are within the requested gap.

`check_claim` says what is wrong (None when nothing is); `certified` turns a
claim into the status and bound to report: a failed check never reports
optimal, and the bound it reports is the best one that passed.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

from solvers.base import SolveStatus

#: Relative slack for comparing objectives and bounds computed two ways (floating point, LP tolerances).
TOLERANCE = 1e-6


class UncertifiedResult(UserWarning):
    """A solver claimed a proof that its certificate does not support; the result was downgraded."""


def _slack(*values: float | None) -> float:
    # Relative only: an absolute floor would let any schedule of a tiny time scale pass.
    scale = max([0.0] + [abs(v) for v in values if v is not None and math.isfinite(v)])
    return TOLERANCE * scale


@dataclass(frozen=True)
class Claim:
    """What a solver said: its status, the objective it reported and its proven bound (minimization)."""

    status: SolveStatus
    objective: float | None
    bound: float | None


def check_claim(
    claim: Claim,
    recomputed: float,
    *,
    lower: float = -math.inf,
    upper: float = math.inf,
    gap: float = 0.0,
    feasible: bool = True,
) -> str | None:
    """What is wrong with an optimality claim, or None when its certificate holds.

    ``recomputed`` is the objective of the returned solution as we compute it;
    ``lower`` the best bound we hold without the solver, ``upper`` the best
    objective of any solution we hold; ``gap`` the relative gap the solve was asked for.
    """
    if not feasible:
        return "the solution breaks a rule of the model"
    if not math.isfinite(recomputed):
        return f"the solution's objective is {recomputed}"
    slack = _slack(recomputed, claim.objective, claim.bound, lower if math.isfinite(lower) else None)
    if claim.objective is None or abs(claim.objective - recomputed) > slack:
        return f"reported objective {claim.objective} but the solution costs {recomputed:.6g}"
    if claim.bound is None or not math.isfinite(claim.bound):
        return "no finite bound"
    if claim.bound > recomputed + slack:
        return f"bound {claim.bound:.6g} is above the solution's objective {recomputed:.6g}"
    if claim.bound > upper + slack:
        return f"bound {claim.bound:.6g} is above a known solution's objective {upper:.6g}"
    if claim.bound < lower - slack:
        return f"bound {claim.bound:.6g} is below a bound already proven ({lower:.6g})"
    if recomputed - claim.bound > gap * abs(recomputed) + slack:
        return f"gap {(recomputed - claim.bound) / max(abs(recomputed), 1e-12):.3g} is above the requested {gap:g}"
    return None


def trusted_bound(claim: Claim, recomputed: float, *, lower: float = -math.inf, upper: float = math.inf) -> float | None:
    """The solver's bound when it is consistent with everything we know (finite, at most the
    solution's and every known objective, at least ``lower``), else ``lower`` (None when -inf)."""
    best = lower if math.isfinite(lower) else None
    bound = claim.bound
    if bound is None or not math.isfinite(bound):
        return best
    slack = _slack(recomputed, bound, best)
    if bound > min(recomputed, upper) + slack:
        return best  # a bound above a solution we hold is no bound at all
    return bound if best is None else max(bound, best)


def certified(
    claim: Claim,
    recomputed: float,
    *,
    lower: float = -math.inf,
    upper: float = math.inf,
    gap: float = 0.0,
    feasible: bool = True,
    method: str = "",
    warn: bool = True,
) -> tuple[SolveStatus, float | None]:
    """The status and bound to report for ``claim`` (see the module docstring).

    An optimal claim that passes `check_claim` stays optimal with its proven
    bound (`proven_bound`: the objective itself when they agree to round-off).
    One that fails becomes feasible with the best bound we hold independently,
    and warns `UncertifiedResult` naming what failed. Other statuses keep their
    status (their bound checked the same way), unless ``lower``, a bound of our
    own, already meets the objective: then it is optimal.
    """
    if claim.status is SolveStatus.OPTIMAL:
        problem = check_claim(claim, recomputed, lower=lower, upper=upper, gap=gap, feasible=feasible)
        if problem is None:
            return SolveStatus.OPTIMAL, proven_bound(recomputed, max(claim.bound, lower))
        if warn:
            warnings.warn(UncertifiedResult(f"{method or 'solver'}: optimality not certified ({problem})"),
                          stacklevel=2)
    if feasible and _meets(recomputed, lower, gap):
        # Our own bound meets the solution: proven without the solver's word (e.g. Johnson's
        # makespan reaching max(sum a + min b, min a + sum b)).
        return SolveStatus.OPTIMAL, proven_bound(recomputed, lower)
    if claim.status is SolveStatus.OPTIMAL:  # refused above: only bounds we hold independently remain
        return SolveStatus.FEASIBLE, lower if math.isfinite(lower) else None
    return claim.status, trusted_bound(claim, recomputed, lower=lower, upper=upper)


def own_proof(objective: float, lower: float) -> tuple[SolveStatus, float | None]:
    """Status and bound of an answer no solver looked at (a heuristic's, returned when the exact
    model was too large or too slow to build): optimal when our own bound ``lower`` meets it,
    else time_limit with that bound."""
    return certified(Claim(SolveStatus.TIME_LIMIT, None, None), objective, lower=lower)


def proven_bound(objective: float, bound: float) -> float:
    """The bound to report with an optimal answer: the proven one (within the requested gap of the
    objective, so possibly below it), or the objective itself when they agree to round-off."""
    return objective if objective - bound <= _slack(objective, bound) else min(bound, objective)


def _meets(recomputed: float, lower: float, gap: float) -> bool:
    return math.isfinite(lower) and recomputed - lower <= gap * abs(recomputed) + _slack(recomputed, lower)
