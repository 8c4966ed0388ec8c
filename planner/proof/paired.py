"""The plan against each baseline run for run: win rate and the median difference with its
bootstrap confidence interval.

In run r the plan and every baseline see the same biased batch and the same simulation seed
(`validate`), so the runs pair up: d_r = baseline makespan - plan makespan (or the report's
``metric``: a target plan's objective; positive: the plan
was faster). The median of the d_r gets a 95% percentile bootstrap interval (`RESAMPLES`
resamples of the runs, seeded by the validation's seed: the same report every time). The
verdict says "faster" or "slower" only when the interval excludes zero, else "no clear
difference".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from planner.proof.validate import ValidationReport

#: Bootstrap resamples of the paired differences, and the interval's coverage.
RESAMPLES = 2_000
CONFIDENCE = 0.95


def resampled(differences: np.ndarray, seed: int, block: int = 1) -> np.ndarray:
    """`RESAMPLES` bootstrap resamples (rows) of ``differences``, drawn with replacement by blocks
    of ``block`` consecutive runs (antithetic runs come in pairs, `planner.proof.setups.biased`:
    a pair, not a run, is the independent unit), seeded by ``seed``. The count must be a
    multiple of ``block``."""
    count = len(differences)
    rng = np.random.default_rng(seed)
    if block == 1:
        return differences[rng.integers(0, count, size=(RESAMPLES, count))]
    if count % block:
        from models import InvalidInput

        raise InvalidInput("runs", f"{count} runs are not whole blocks of {block} (antithetic runs come in pairs)")
    blocks = differences.reshape(-1, block)
    return blocks[rng.integers(0, len(blocks), size=(RESAMPLES, len(blocks)))].reshape(RESAMPLES, count)


def paired_difference(plan: Sequence[float] | np.ndarray, baseline: Sequence[float] | np.ndarray, seed: int, *,
                      confidence: float = CONFIDENCE, block: int = 1) -> dict[str, Any]:
    """Win rate, median difference (baseline - plan, s) and its bootstrap interval (``confidence``;
    resampled by blocks of ``block`` runs, `resampled`) of paired runs."""
    differences = np.asarray(baseline, dtype=float) - np.asarray(plan, dtype=float)
    count = len(differences)
    medians = np.median(resampled(differences, seed, block), axis=1)
    tail = 100 * (1 - confidence) / 2
    low, high = (float(v) for v in np.percentile(medians, [tail, 100 - tail]))
    verdict = "plan faster" if low > 0 else "plan slower" if high < 0 else "no clear difference"
    return {"runs": count, "plan_wins": int(np.sum(differences > 0)), "win_rate": float(np.mean(differences > 0)),
            "median_difference": float(np.median(differences)), "ci_low": low, "ci_high": high, "verdict": verdict}


def paired_mean(plan: np.ndarray, other: np.ndarray, seed: int, *, confidence: float = CONFIDENCE,
                block: int = 1) -> dict[str, Any]:
    """``other - plan`` run for run (positive: the plan was better): the mean difference and its
    percentile bootstrap interval (``confidence``, 95% by default) (`RESAMPLES` resamples seeded by ``seed``), the win rate,
    and the verdict ("plan better", "plan worse" or "no clear difference"); resampled by blocks of
    ``block`` runs (`resampled`)."""
    differences = np.asarray(other, dtype=float) - np.asarray(plan, dtype=float)
    count = len(differences)
    means = resampled(differences, seed, block).mean(axis=1)
    tail = 100 * (1 - confidence) / 2
    low, high = (float(v) for v in np.percentile(means, [tail, 100 - tail]))
    verdict = "plan better" if low > 0 else "plan worse" if high < 0 else "no clear difference"
    return {"runs": count, "plan_wins": int(np.sum(differences > 0)), "ties": int(np.sum(differences == 0)),
            "mean_difference": float(differences.mean()), "ci_low": low, "ci_high": high, "verdict": verdict}


def values_by_setup(report: ValidationReport) -> dict[str, dict[int, float]]:
    """The report's measure (``report.metric``) of each setup's runs: setup -> run -> value."""
    by_setup: dict[str, dict[int, float]] = {}
    for sample in report.samples:
        by_setup.setdefault(sample["setup"], {})[sample["run"]] = sample[report.metric]
    return by_setup


def paired_comparisons(report: ValidationReport) -> list[dict[str, Any]]:
    """One record per baseline of the report: the plan against it run for run."""
    by_setup = values_by_setup(report)
    plan = by_setup[report.planned["setup"]]
    records = []
    for baseline in report.setup("baseline"):
        runs = sorted(set(plan) & set(by_setup[baseline["setup"]]))
        mine, theirs = [plan[r] for r in runs], [by_setup[baseline["setup"]][r] for r in runs]
        block = 2 if report.antithetic else 1
        if report.kind == "target":  # the statistic the plan was chosen by: the mean (counts and 0/1 too)
            pairs = paired_mean(np.asarray(mine, dtype=float), np.asarray(theirs, dtype=float), report.seed,
                                block=block)
            pairs = {key: pairs[key] for key in ("runs", "plan_wins", "mean_difference", "ci_low", "ci_high",
                                                 "verdict")}
            pairs["win_rate"] = pairs["plan_wins"] / pairs["runs"]
        else:
            pairs = paired_difference(mine, theirs, report.seed, block=block)
        records.append({"baseline": baseline["setup"], **pairs})
    return records


def verdict_text(records: list[dict[str, Any]]) -> str:
    """The paired comparisons in one or two sentences, "beats" only where the interval excludes zero."""
    if not records:
        return ""
    faster = [r for r in records if r["verdict"] in ("plan faster", "plan better")]
    slower = [r["baseline"] for r in records if r["verdict"] in ("plan slower", "plan worse")]
    better = "better" if any("mean_difference" in r for r in records) else "faster"
    unclear = [r["baseline"] for r in records if r["verdict"] == "no clear difference"]
    runs = records[0]["runs"]
    if len(faster) == len(records):
        wins = min(r["plan_wins"] for r in records)
        statistic = "mean" if better == "better" else "median"
        return (f"Run for run it beats every baseline: it was {better} in at least {wins} of {runs} paired runs "
                f"against each, and the {CONFIDENCE:.0%} interval of the {statistic} difference excludes zero for "
                "all.")
    parts = []
    if faster:
        parts.append(f"Run for run it beats {len(faster)} of the {len(records)} baselines (the {CONFIDENCE:.0%} "
                     f"interval of the median difference excludes zero)")
    if unclear:
        parts.append(f"against {', '.join(unclear)} the difference is not clear (the interval holds zero)")
    if slower:
        parts.append(f"{', '.join(slower)} {'is' if len(slower) == 1 else 'are'} {better} run for run")
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."
