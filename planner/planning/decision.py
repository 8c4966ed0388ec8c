"""Whether a plan for a target pays: the decision between the best candidate and the configuration
as it is (`decide`, step 3 of `planner.planning.deploy`), and how candidates rank (`best_measured`).

Shared by every target's planning (`planner.planning.deploy` for Hadoop's, `planner.planning.spark_deploy`
for Spark's): a change is recommended only when it beats the configuration run for run by at least
`MIN_GAIN` of the configuration's own mean objective.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from planner.proof.deployed import (
    Measured,
    compare,
)

#: The least a change must gain to be recommended, as a fraction of the configuration's own mean
#: objective (the makespan's for the maximum lateness; none for late jobs and the window, where
#: being better run for run is enough): a lever is changed only when it pays.
MIN_GAIN = 0.01


def decide(best: Measured, configured: Measured, others: Sequence[Measured], objective: str, scale: float,
           seed: int) -> tuple[bool, tuple[str, ...]]:
    """Whether to keep the configuration rather than apply ``best`` (module docstring, step 3), and
    the baselines whose beating the configuration as it is waived `MIN_GAIN` (empty unless
    waived). ``others`` are the baselines besides the configuration; ``scale`` is `gain_scale`'s."""
    against = compare(best, [configured], objective, seed)[0]
    if pays(against, objective, scale):
        return False, ()
    # A baseline that beats the configuration as it is run for run would beat "keep": then a
    # candidate better than the configuration run for run and beaten by no baseline is recommended
    # whatever its gain (`MIN_GAIN` guards against changes for nothing, not against that).
    beaten_by = tuple(r["against"] for r in compare(configured, others, objective, seed) if r["verdict"] == "plan worse")
    if (beaten_by and against["verdict"] == "plan better"
            and not any(r["verdict"] == "plan worse" for r in compare(best, others, objective, seed))):
        return False, beaten_by
    return True, ()


def gain_scale(configured: Measured, objective: str) -> float:
    """What `MIN_GAIN` is a fraction of: the configuration's own mean of the objective (the
    makespan's for the maximum lateness, which may be near zero or negative); 0 for counts and
    chances (late jobs, the window), where being better run for run is enough."""
    if objective in ("late_jobs", "window"):
        return 0.0
    measure = "makespan" if objective == "max_lateness" else objective
    return abs(float(np.mean(configured.values(measure))))


def pays(record: dict[str, Any], objective: str, scale: float) -> bool:
    """Whether a change pays: better run for run (the interval excludes zero) by at least
    `MIN_GAIN` x ``scale`` (`gain_scale`)."""
    return record["verdict"] == "plan better" and record["mean_difference"] >= MIN_GAIN * scale


#: The unit of each objective's measure, for sentences.
UNITS = {"makespan": " s", "mean_response": " s", "weighted_response": " s", "max_lateness": " s",
         "late_jobs": " late jobs", "window": " of the runs missing the window"}


def verdict_words(record: dict[str, Any]) -> str:
    unit = UNITS[record["objective"]]
    return (f"mean difference {record['mean_difference']:,.2f}{unit}, 95% interval [{record['ci_low']:,.2f}, "
            f"{record['ci_high']:,.2f}], better in {record['plan_wins']} of {record['runs']} runs")


def rank(measured: Measured, objective: str, position: int) -> tuple[float, float, int]:
    """How candidates rank: the smaller mean objective, then mean makespan, then the first proposed."""
    return (float(np.mean(measured.values(objective))), float(np.mean(measured.values("makespan"))), position)


def best_measured(measured: Sequence[Measured], objective: str) -> Measured:
    """The best by `rank`."""
    return min(enumerate(measured), key=lambda item: rank(item[1], objective, item[0]))[1]


def settle(best: Measured, configured: Measured, others: Sequence[Measured], chosen_name: str, objective: str,
           scale: float, seed: int) -> tuple[bool, str]:
    """The decision on ``best`` (the candidate ``chosen_name``, measured) against the configuration
    as it is (`decide`), in words: whether to keep the configuration, and the sentence that says
    why."""
    against = compare(best, [configured], objective, seed)[0]
    keep_it, beaten_by = decide(best, configured, others, objective, scale, seed)
    if keep_it:
        short = against["verdict"] == "plan better" and against["mean_difference"] < MIN_GAIN * scale
        because = (f"better run for run, but by less than the {MIN_GAIN:.0%} ({MIN_GAIN * scale:,.1f}"
                   f"{UNITS[objective]}) a change must gain" if short else "not better run for run")
        reason = (f"no candidate gains enough over the configuration as it is on {objective}: the best, "
                  f"{chosen_name}, is {because} ({verdict_words(against)}): keep your configuration")
    elif beaten_by:
        reason = (f"{chosen_name} beats the configuration as it is run for run on {objective}, by less than the "
                  f"{MIN_GAIN:.0%} a change must gain; but {' and '.join(beaten_by)} "
                  f"beat{'s' if len(beaten_by) == 1 else ''} the configuration as it is run for run, so keeping "
                  f"it would be beaten, and no baseline beats {chosen_name}: {verdict_words(against)}")
    else:
        reason = f"{chosen_name} beats the configuration as it is run for run on {objective}: {verdict_words(against)}"
    return keep_it, reason
