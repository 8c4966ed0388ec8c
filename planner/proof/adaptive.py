"""Validation that stops when the answer is known (``--runs auto``, `AutoRuns`).

A fixed validation runs every setup N times, but most comparisons are settled long before: a
plan 30% faster than FIFO shows it in ten runs. `AutoRuns` runs the setups in rounds
(`AutoRuns.schedule`: ``min_runs``, then about `GROWTH` times as many each round, up to
``max_runs``; by default 10 runs first, or 4 for a production day of more than a million tasks,
`AutoRuns.for_batch`) and after each round looks at every paired comparison of the plan with a
baseline. The units are the runs' differences (baseline - plan, the report's measure), or with
antithetic runs each pair's mean difference (`planner.proof.setups.biased`). A comparison is
*settled* when its Student t interval of the units' mean, at the look's confidence,

- excludes zero, and the report's own verdict at that many runs (`planner.proof.paired`: the
  median's 95% bootstrap interval for slot and VM plans, the mean's for a target plan) is
  decided the same way ("decided"), or
- has a half-width of at most ``precision`` times the larger of the two setups' mean |measure|:
  whatever its sign, the difference is known to be smaller than the stated precision ("within
  precision"). The report calls it no clear difference, or whatever its 95% interval says;
  never a stop on a win it does not show.

Each comparison is looked at after every round, L times at most, so each look is held to
1 - 0.05 / L (`look_confidence`, Bonferroni: 99.375% for the default 8 rounds): a difference of
zero is called decided in at most 5% of validations, however many rounds they take. The t
interval is used for the looks rather than the report's percentile bootstrap, which at ten runs
excludes a zero difference far more often than its level says (measured: 4-8% at a nominal 1%
with 5-10 units). The validation stops after the first round at which every comparison is
settled, or at ``max_runs`` (the report names the comparisons still unsettled).

Run r is the same whatever the mode (`planner.proof.setups.biased` depends on the seed and r
only): an auto validation that stopped at n runs holds exactly the first n runs of a fixed
validation, and its report (the verdicts at 95%) is the fixed validation's with n runs. The
stopping rule reads only those runs and the seed, so every executor stops at the same round.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from models import InvalidInput
from models.checks import as_float, as_int, shown
from planner.defaults import AUTO_MAX_RUNS, AUTO_MIN_RUNS, AUTO_MIN_RUNS_LARGE, AUTO_PRECISION, LARGE_BATCH_TASKS
from planner.limits import MAX_RUNS

#: ``--runs auto``; its defaults (`planner.defaults`: AUTO_MIN_RUNS, or AUTO_MIN_RUNS_LARGE for a
#: batch of more than LARGE_BATCH_TASKS tasks, AUTO_MAX_RUNS, and AUTO_PRECISION, a share of the
#: larger mean |measure| of the two setups compared).
AUTO = "auto"
#: Each round has about this many times the runs of the one before.
GROWTH = 1.5
#: The error allowed a comparison over all its looks: each of L looks is held to 1 - 0.05 / L
#: (Bonferroni; `look_confidence`), so that a difference of zero is called decided in at most 5%
#: of validations however many rounds they take.
FAMILY_ERROR = 0.05
#: The most rounds a request may take (`AutoRuns` refuses a schedule with more).
MAX_LOOKS = 20


@dataclass(frozen=True)
class AutoRuns:
    """Runs in rounds until every paired comparison is settled (module docstring): at least
    ``min_runs``, at most ``max_runs``, ``precision`` a share of the mean measure. ``min_runs``
    None: by the batch (`for_batch`: `AUTO_MIN_RUNS`, or `AUTO_MIN_RUNS_LARGE` for a batch of more
    than `LARGE_BATCH_TASKS` tasks, at most ``max_runs``); a validation resolves it."""

    min_runs: int | None = None
    max_runs: int = AUTO_MAX_RUNS
    precision: float = AUTO_PRECISION

    def __post_init__(self) -> None:
        put = object.__setattr__
        put(self, "max_runs", as_int(self.max_runs, "max_runs", minimum=2, maximum=MAX_RUNS))
        if self.min_runs is not None:
            put(self, "min_runs", as_int(self.min_runs, "min_runs", minimum=2, maximum=MAX_RUNS))
            if self.max_runs < self.min_runs:
                raise InvalidInput("max_runs", f"must be >= min_runs ({self.min_runs}), got {self.max_runs}")
        precision = as_float(self.precision, "precision", above=0.0, maximum=1.0)
        put(self, "precision", precision)
        if len(self.schedule()) > MAX_LOOKS:
            raise InvalidInput("max_runs", f"{self.max_runs:,} runs from {self.first_round():,} take "
                                           f"{len(self.schedule())} rounds; at most {MAX_LOOKS}: raise min_runs")

    def first_round(self) -> int:
        """The first round's runs: ``min_runs``, or when None `AUTO_MIN_RUNS` (at most ``max_runs``)."""
        return self.min_runs if self.min_runs is not None else min(AUTO_MIN_RUNS, self.max_runs)

    def for_batch(self, tasks: int) -> AutoRuns:
        """This rule for a batch of ``tasks`` tasks a run: ``min_runs`` as given, or when None
        `AUTO_MIN_RUNS`, or for more than `LARGE_BATCH_TASKS` tasks (a production day, whose run
        takes minutes) `AUTO_MIN_RUNS_LARGE`, at most ``max_runs``."""
        if self.min_runs is not None:
            return self
        first = AUTO_MIN_RUNS_LARGE if tasks > LARGE_BATCH_TASKS else AUTO_MIN_RUNS
        return replace(self, min_runs=min(first, self.max_runs))

    def schedule(self, pairs: bool = False) -> list[int]:
        """The runs done after each round: the first round's (`first_round`), then x `GROWTH`
        (rounded up) to max_runs; with ``pairs`` (antithetic runs), each rounded up to an even number."""
        rounds = [self.first_round()]
        while rounds[-1] < self.max_runs:
            rounds.append(min(self.max_runs, max(rounds[-1] + 1, math.ceil(rounds[-1] * GROWTH))))
        return sorted({n + n % 2 for n in rounds}) if pairs else rounds

    def record(self) -> dict[str, Any]:
        return {"min_runs": self.first_round(), "max_runs": self.max_runs, "precision": self.precision}


def look_confidence(looks: int) -> float:
    """Each look's confidence when a comparison is looked at ``looks`` times (`FAMILY_ERROR`)."""
    return 1.0 - FAMILY_ERROR / max(looks, 1)


def runs_choice(runs: object) -> int | AutoRuns:
    """``runs`` as a validation takes it: "auto" (`AutoRuns` with its defaults), an `AutoRuns`, or a
    fixed number of runs (2 to `MAX_RUNS`; a string of digits, as a command line gives it)."""
    if isinstance(runs, AutoRuns):
        return runs
    if isinstance(runs, str):
        text = runs.strip().lower()
        if text == AUTO:
            return AutoRuns()
        if not text.isdigit():
            raise InvalidInput("runs", f"must be 'auto' or a whole number of runs, got {runs!r}")
        runs = int(text)
    if isinstance(runs, bool) or not isinstance(runs, int | np.integer):
        raise InvalidInput("runs", f"must be 'auto' or a whole number of runs, got {shown(runs)}")
    return as_int(runs, "runs", minimum=2, maximum=MAX_RUNS)


def look(plan: np.ndarray, other: np.ndarray, statistic: str, precision: float, seed: int, confidence: float,
         block: int = 1) -> dict[str, Any]:
    """One comparison at one look. The units are the runs' differences other - plan (with
    ``block`` 2, antithetic pairs: each pair's mean difference); their Student t interval at
    ``confidence`` (exact for normal units, and wide when they are few), its half-width, and the
    precision it is held to (``precision`` x the larger mean |measure|, absolute). ``settled``:
    "decided" when the interval excludes zero *and* the report's own verdict (``statistic``,
    "median" or "mean", its 95% bootstrap interval, `planner.proof.paired`) is decided the same
    way; "within precision" when the half-width is at most the precision; else None."""
    from scipy.stats import t as student

    from planner.proof.paired import paired_difference, paired_mean

    plan = np.asarray(plan, dtype=float)
    other = np.asarray(other, dtype=float)
    units = (other - plan).reshape(-1, block).mean(axis=1)
    mean = float(units.mean())
    half_width = math.inf  # one unit has no spread to go by
    if len(units) > 1:
        quantile = float(student.ppf(0.5 + confidence / 2, len(units) - 1))
        half_width = quantile * float(units.std(ddof=1)) / math.sqrt(len(units))
    low, high = mean - half_width, mean + half_width
    scale = max(float(np.mean(np.abs(plan))), float(np.mean(np.abs(other))))
    allowed = precision * scale
    report = (paired_difference(plan, other, seed, block=block) if statistic == "median"
              else paired_mean(plan, other, seed, block=block))
    agrees = (low > 0 and report["ci_low"] > 0) or (high < 0 and report["ci_high"] < 0)
    settled = "decided" if agrees else "within precision" if half_width <= allowed else None
    return {"runs": len(plan), "look_low": low, "look_high": high, "half_width": half_width,
            "precision_abs": allowed, "settled": settled}


def in_rounds(auto: AutoRuns, run_more: Callable[[int, int], None],
              comparisons: Callable[[], Sequence[tuple[str, np.ndarray, np.ndarray]]], statistic: str,
              seed: int, antithetic: bool = False) -> dict[str, Any]:
    """Run the rounds (``run_more(first, last)`` simulates runs first..last-1 of every setup) and
    look at ``comparisons()`` (each baseline's name, the plan's and its values, run for run) after
    each; ``antithetic`` runs come in pairs (even rounds, pairs resampled). The stopping record:
    the rule (`AutoRuns.record`), the ``rounds`` (runs after each), ``runs``, ``reason`` and each
    comparison's last look (``looks``)."""
    done, rounds = 0, []
    block = 2 if antithetic else 1
    schedule = auto.schedule(pairs=antithetic)
    confidence = look_confidence(len(schedule))
    looks: list[dict[str, Any]] = []
    for target in schedule:
        run_more(done, target)
        done = target
        rounds.append(target)
        looks = [{"baseline": name, **look(mine, theirs, statistic, auto.precision, seed, confidence, block)}
                 for name, mine, theirs in comparisons()]
        if all(item["settled"] for item in looks):
            decided = sum(1 for item in looks if item["settled"] == "decided")
            reason = (f"every comparison settled after {done} runs: {decided} decided (the "
                      f"{confidence:.2%} interval excludes zero), {len(looks) - decided} within the precision "
                      f"({auto.precision:.1%} of the mean)")
            break
    else:
        unsettled = [item["baseline"] for item in looks if not item["settled"]]
        reason = (f"the most runs ({done}) were made; not settled: {', '.join(unsettled)} (the interval "
                  f"holds zero and is wider than {auto.precision:.1%} of the mean)")
    return {"mode": AUTO, **auto.record(), "look_confidence": confidence, "antithetic": antithetic, "rounds": rounds,
            "runs": done, "reason": reason, "looks": looks}
