"""Robust slot plans: among near-optimal candidates, the one with the best simulated p90.

A fluid model's optimum can be a knife edge: splits within a few percent of it
predict almost the same makespan but behave differently once task
granularity, locality and profile errors enter. `robust_candidates` gathers
the plausible plans:

- both admission orders (submission and Johnson's; with dependencies each kept where they allow,
  `planner.planning.pipelines.respecting`), under both fluid models ("fresh" and "capped");
- for each, the splits whose predicted makespan is within ``tolerance`` (5%)
  of that curve's optimum, at most ``max_splits`` of them spread evenly over
  that set, the optimum always among them ("johnson" plans keep their
  order and the cluster's split: only the model's prediction varies);

and `choose_robust` simulates each one ``runs`` times on biased batches
(`planner.proof.validate`, the same draws for every candidate, drawn apart from the
runs `validate` makes for the same seed, so a robust plan is validated on
runs it was not chosen on) and keeps the best 90th percentile of the
makespan, ties by mean, then by the prediction nearest the simulated mean.
Candidates that run identically (same order and split, found under both
models) are simulated once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from models import Cluster, Workload
from planner.planning.pipelines import respecting
from planner.proof.setups import Setup, all_ready, planned_scheduler, run_setup
from planner.proof.sweep import ExecutorChoice, ProgressOption, Spec, sweep
from planner.proof.validate import statistics
from planner.simulator.effort import check_simulations
from planner.simulator.run import Run
from solvers import SLOT_MODELS, configure_slots
from solvers.ordering.admission_orders import job_names, johnson_admission, submission_order

TOLERANCE = 0.05
#: The runs a robust plan is chosen on (`planner.proof.setups.biased`): not those `validate` uses.
SELECTION_STREAM = 1
MAX_SPLITS = 5


@dataclass(frozen=True)
class Candidate:
    """One plausible slot plan: admission order, split and fluid model, with its prediction."""

    model: str
    ordering: str
    order: tuple[str, ...]
    map_slots: int
    predicted: float
    curve: tuple[float, ...]

    def label(self) -> str:
        return f"{self.model} model, {self.ordering} order, {self.map_slots} map slots"


def near_optimal(curve: np.ndarray, tolerance: float, limit: int) -> list[int]:
    """Map-slot counts (1-based) whose value is within ``tolerance`` of the curve's minimum: at
    most ``limit``, spread evenly over them, the minimum always included."""
    best = int(np.argmin(curve))
    within = np.flatnonzero(curve <= curve[best] * (1.0 + tolerance))
    spread = np.rint(np.linspace(0, len(within) - 1, min(limit, len(within)))).astype(int)
    picks = {int(within[i]) for i in spread}
    picks.add(best)
    while len(picks) > limit:  # the optimum displaced an evenly spread pick
        picks.remove(max(picks - {best}, key=lambda p: (abs(p - best), p)))
    return sorted(p + 1 for p in picks)


def robust_candidates(
    workload: Workload, cluster: Cluster, strategy: str, k: int, *,
    tolerance: float = TOLERANCE, max_splits: int = MAX_SPLITS,
) -> list[Candidate]:
    """The candidate plans of the module docstring, in a fixed order."""
    jobs = list(workload)
    total = cluster.total_slots
    candidates = []
    orders = {"johnson": respecting(workload, johnson_admission(workload, cluster))}
    if strategy != "johnson":  # a "johnson" plan is its order: only the fluid model varies
        orders = {"submission": respecting(workload, submission_order(workload)), **orders}
    for ordering, order in orders.items():
        names = tuple(job_names(workload, order))
        for model in SLOT_MODELS:
            curve = np.asarray(configure_slots(jobs, total, k, order, model).makespans, dtype=float)
            splits = [cluster.total_map_slots] if strategy == "johnson" else near_optimal(curve, tolerance, max_splits)
            candidates.extend(Candidate(model, ordering, names, s, float(curve[s - 1]), tuple(curve.tolist()))
                              for s in splits)
    return candidates


def _setup(candidate: Candidate, strategy: str, k: int, batch: Workload, cluster: Cluster) -> Setup:
    scheduler, _ = planned_scheduler(strategy, k, candidate.order)
    return Setup(candidate.label(), "candidate", candidate.predicted,
                 Run(batch, cluster, scheduler, (candidate.map_slots, cluster.total_slots - candidate.map_slots)))


def choose_robust(
    candidates: list[Candidate], workload: Workload, cluster: Cluster, strategy: str, k: int, *,
    runs: int, noise: float, seed: int, executor: ExecutorChoice = None, progress: ProgressOption = False,
) -> tuple[Candidate, list[dict[str, Any]]]:
    """The candidate with the best simulated p90 makespan, and one record per candidate."""
    ready = all_ready(workload)
    distinct: dict[tuple[tuple[str, ...], int], Setup] = {}
    for candidate in candidates:
        distinct.setdefault((candidate.order, candidate.map_slots), _setup(candidate, strategy, k, ready, cluster))
    setups = list(distinct.values())
    check_simulations(((setup.run.effort("plan --robust"), runs) for setup in setups), "plan --robust")
    specs = [Spec(run_setup, (setup, noise, seed, run, SELECTION_STREAM))
             for setup in setups for run in range(runs)]
    samples = sweep(specs, executor, progress=progress, description=f"robust plan ({len(specs)} runs)")
    stats = {key: statistics([s["makespan"] for s in samples[i * runs:(i + 1) * runs]])
             for i, key in enumerate(distinct)}
    records = []
    for candidate in candidates:
        measured = stats[(candidate.order, candidate.map_slots)]
        records.append({"model": candidate.model, "order": candidate.ordering, "map_slots": candidate.map_slots,
                        "predicted": candidate.predicted, "mean": measured["mean"], "p90": measured["p90"]})
    # Candidates of one setup tie on p90 and mean: the model whose prediction is nearest the
    # simulation is then the one to believe (and to report as the plan's prediction).
    best = min(range(len(candidates)), key=lambda i: (records[i]["p90"], records[i]["mean"],
                                                       abs(records[i]["predicted"] - records[i]["mean"]), i))
    return candidates[best], records
