"""Deployed configurations judged run for run: what a plan for a target is chosen by and proven with.

A plan for a target (`planner.planning.deploy.plan_for_target`) is a set of `Levers` on top of
the operator's configuration. Each candidate is exported (`planner.io.hadoop.merge.merged_files`),
read back (`deployed_run`) and simulated here, paired run for run with the baselines (module
`planner.proof.validate`: run r of every setup sees the same biased batch and simulation seed):

- "as configured": the configuration as it is, every job submitted as it arrives into its queue;
- "FIFO on TARGET" and "Fair on TARGET": the stock schedulers on the same resources (the
  configuration's slots on mrv1; its containers on YARN), one pool per job's queue for Fair.

Each run is measured (`run_setup`) by the objectives operators have (`METRICS`): the makespan
(from the first arrival), the mean and weighted response (from each job's arrival, however
late the configuration submits it), the maximum lateness and late jobs (against each job's
deadline, else the window), and whether the last job finished by the window.

The same function serves the planner and `validate --target`: for the same plan, target, runs,
noise and seed, the figure the plan prints is validation's mean.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from models import InvalidInput, Workload
from planner.proof.paired import paired_mean
from planner.proof.setups import Setup, first_arrival, run_setup
from planner.proof.sweep import ExecutorChoice, ProgressOption, Spec, sweep
from planner.simulator import Fair, Fifo, SimOptions
from planner.simulator.effort import check_simulations
from planner.simulator.run import Run
from planner.simulator.schedulers.fair import Pool

#: Objective -> the per-run measure it minimizes ("window": 1 when the batch missed the window).
METRICS = {"makespan": "makespan", "mean_response": "arrival_response", "weighted_response": "weighted_response",
           "max_lateness": "max_lateness", "late_jobs": "deadline_misses", "window": "missed_window"}
#: Objectives that need due dates (a job's deadline, or the window).
DUE_OBJECTIVES = ("max_lateness", "late_jobs", "window")


@dataclass(frozen=True)
class Measured:
    """One setup's runs: its name, role, and every run's record (`run_setup`, plus ``missed_window``)."""

    name: str
    role: str
    samples: tuple[dict[str, Any], ...]

    def values(self, objective: str) -> np.ndarray:
        key = METRICS[objective]
        return np.asarray([np.nan if s[key] is None else float(s[key]) for s in self.samples], dtype=float)

    def record(self, objective: str) -> dict[str, Any]:
        """Flat: the setup, its role, the objective's mean, p5 and p95, and the means of every measure."""
        values = self.values(objective)
        p5, p95 = np.percentile(values, [5, 95]) if not np.isnan(values).any() else (np.nan, np.nan)
        record: dict[str, Any] = {"setup": self.name, "role": self.role, "objective": objective,
                                  "mean": _number(float(np.mean(values))), "p5": _number(float(p5)),
                                  "p95": _number(float(p95)), "runs": len(self.samples)}
        for name in METRICS:
            column = self.values(name)
            record[name] = None if np.isnan(column).any() else float(np.mean(column))
        makespans = self.values("makespan")
        record["makespan_p5"], record["makespan_p95"] = (float(v) for v in np.percentile(makespans, [5, 95]))
        record["p_window"] = (None if record["window"] is None else 1.0 - record["window"])
        return record


def _number(value: float) -> float | None:
    return None if np.isnan(value) else value


def measured_run(setup: Setup, noise: float, seed: int, run: int, *, chain: bool = False,
                 antithetic: bool = False) -> dict[str, Any]:
    """`run_setup`'s record with each job's ``finishes`` and ``missed_window`` (1.0 when the last
    job finished after the window, None without one); with ``chain``, the run's critical chain;
    ``antithetic`` runs come in mirrored pairs (`planner.proof.setups.biased`)."""
    record = run_setup(setup, noise, seed, run, finishes=True, chain=chain, antithetic=antithetic)
    record["missed_window"] = None if setup.window is None else float(record["last_finish"] > setup.window)
    return record


def measure(setups: Sequence[Setup], *, runs: int, noise: float, seed: int, executor: ExecutorChoice = None,
            progress: ProgressOption = False, description: str = "simulating", chains: bool = False,
            first: int = 0, antithetic: bool = False) -> list[Measured]:
    """Every setup's runs ``first`` to ``runs - 1`` (all ``runs`` by default), paired (module
    docstring), ``antithetic`` or not (`planner.proof.setups.biased`); with ``chains``, the
    plan's runs (role "plan") also record their simulated critical chain (``chain``)."""
    count = runs - first
    check_simulations(((setup.run.effort(description), count) for setup in setups), description)
    mirrored = {"antithetic": True} if antithetic else {}
    specs = [Spec(measured_run, (setup, noise, seed, run),
                  {**({"chain": True} if chains and setup.role == "plan" else {}), **mirrored},
                  label=f"{setup.name} #{run}")
             for setup in setups for run in range(first, runs)]
    samples = sweep(specs, executor, progress=progress, description=f"{description} ({len(specs)} runs)")
    return [Measured(setup.name, setup.role, tuple(samples[i * count:(i + 1) * count]))
            for i, setup in enumerate(setups)]


def compare(plan: Measured, others: Sequence[Measured], objective: str, seed: int) -> list[dict[str, Any]]:
    """The plan against each of ``others`` on the objective, run for run (`paired_mean`)."""
    mine = plan.values(objective)
    return [{"against": other.name, "role": other.role, "objective": objective,
             **paired_mean(mine, other.values(objective), seed)} for other in others if other.name != plan.name]


def target_baselines(night: Workload, as_configured: Run, target: str, queues: Mapping[str, str], *,
                     window: float | None, arrivals: dict[str, float]) -> list[Setup]:
    """FIFO and Fair on the resources of the configuration as it is (module docstring): its nodes,
    its slots (mrv1) or containers (YARN), each job in its queue (Fair: one fair pool per queue)."""
    options = replace(as_configured.options or SimOptions(), containers=target != "mrv1")
    batch = Workload([job.with_changes(pool=queues[job.name]) for job in night], name=night.name)
    pools = [Pool(queue) for queue in sorted(set(queues.values()))]
    origin = first_arrival(night)
    return [Setup(f"FIFO on {target}", "baseline", None,
                  Run(batch, as_configured.cluster, Fifo(), as_configured.slots, options),
                  window=window, origin=origin, arrivals=arrivals),
            Setup(f"Fair on {target}", "baseline", None,
                  Run(batch, as_configured.cluster, Fair(pools=pools), as_configured.slots, options),
                  window=window, origin=origin, arrivals=arrivals)]


def deployed_setup(name: str, role: str, run: Run, night: Workload, *, window: float | None,
                   arrivals: dict[str, float]) -> Setup:
    """A deployed configuration's run as a setup: makespans from the first arrival, responses from
    each job's arrival. Its batch must hold the night's jobs in the night's order, as a read-back
    schedule keeps them (`planner.io.hadoop.plan_files.submitted`): runs pair by job position
    (`planner.proof.setups.biased`)."""
    if [job.name for job in run.workload] != [job.name for job in night]:
        raise InvalidInput("jobs", "the deployed run does not submit the batch's jobs in the batch's order")
    return Setup(name, role, None, run, window=window, origin=first_arrival(night), arrivals=arrivals)


def check_objective(objective: str, night: Workload, window: float | None) -> None:
    """Deadline objectives need a due date: a job's deadline or the window."""
    if objective in DUE_OBJECTIVES and window is None and not any(job.deadline is not None for job in night):
        raise InvalidInput("objective", f"{objective!r} needs due dates: give a window, or deadlines to the jobs")
    if objective == "window" and window is None:
        raise InvalidInput("objective", "'window' is the probability of finishing by the window: give --window")


def job_outcomes(measured: Measured, night: Workload, window: float | None) -> list[dict[str, Any]]:
    """Each job's finish (mean over the runs, seconds like submit times), its due date (its deadline,
    else the window), its mean lateness (finish - due) and the fraction of runs it was late."""
    finishes: dict[str, list[float]] = {}
    for sample in measured.samples:
        for name, finish in sample.get("finishes", {}).items():
            finishes.setdefault(name, []).append(finish)
    records = []
    for job in night:
        values = finishes.get(job.name, [])
        due = job.deadline if job.deadline is not None else window
        mean = float(np.mean(values)) if values else None
        records.append({"job": job.name, "arrival": job.submit, "finish": mean, "due": due,
                        "lateness": None if due is None or mean is None else mean - due,
                        "p_late": None if due is None or not values else float(np.mean([v > due for v in values]))})
    return records
