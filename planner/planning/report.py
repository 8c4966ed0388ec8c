"""A plan for a target in words and tables: the recommendation and why, the bounds, the
candidates and baselines as simulated, and each job's predicted finish (`target_sections`).

Every figure is labelled with where it comes from: "simulated" (the configuration as exported,
mean and p5-p95 over the plan's runs), "bound" (no schedule does better: `solvers.bounds`) or
"model" (a fluid model's own prediction).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.planning.arrivals import makespan_bound_name
from planner.plans.plan import Plan

if TYPE_CHECKING:
    from models import Cluster, Workload
    from planner.proof.critical import CriticalPath
    from planner.simulator import SimResult, VmResult

__all__ = ["critical_sections", "plan_critical_path", "recommendation", "target_sections"]


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f} s"


def recommendation(plan: Plan) -> dict[str, Any]:
    """One flat record: what to do, why, and the simulated figures of the configuration as exported
    next to the bounds."""
    simulated = plan.simulated or {}
    bounds = simulated.get("bounds", {})
    objective = plan.objective
    record: dict[str, Any] = {
        "target": plan.target,
        "recommendation": "keep your configuration" if simulated.get("keep") else f"apply: {simulated.get('chosen')}",
        "why": simulated.get("reason"),
        "objective": objective,
        "simulated_mean": simulated.get("mean"),
        "simulated_p5": simulated.get("p5"),
        "simulated_p95": simulated.get("p95"),
        "simulated_makespan": simulated.get("makespan"),
        "makespan_p5": simulated.get("makespan_p5"),
        "makespan_p95": simulated.get("makespan_p95"),
        "makespan_bound": bounds.get("makespan"),
        "makespan_above_bound": _above(simulated.get("makespan"), bounds.get("makespan")),
        "bound_is": makespan_bound_name(bounds),
        "response_bound": bounds.get("mean_response"),
        "lateness_bound": bounds.get("max_lateness"),
        "p_window": simulated.get("p_window"),
        "runs": simulated.get("runs"),
        "seed": simulated.get("seed"),
        "noise": simulated.get("noise"),
    }
    if objective in ("mean_response", "weighted_response"):
        record["objective_above_bound"] = _above(simulated.get("mean"), bounds.get(objective))
    return record


def _above(value: float | None, bound: float | None) -> float | None:
    """How far above the bound, as a fraction of it (None without both)."""
    if value is None or bound is None or bound <= 0:
        return None
    return value / bound - 1.0


#: How each objective reads in a sentence, and its unit.
_OBJECTIVE_WORDS = {"makespan": ("makespan", " s"), "mean_response": ("mean response", " s"),
                    "weighted_response": ("weighted mean response", " s"), "max_lateness": ("maximum lateness", " s"),
                    "late_jobs": ("late jobs per run", ""), "window": ("share of runs missing the window", "")}


def _figure(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    return f"{value:,.0f}{unit}" if unit else f"{value:,.2f}"


def headline(plan: Plan) -> str:
    """The recommendation in one sentence: the objective as simulated against the configuration as
    it is, and the makespan against the bound no schedule beats."""
    record = recommendation(plan)
    simulated = plan.simulated or {}
    words, unit = _OBJECTIVE_WORDS[plan.objective]
    configured = next((r for r in simulated.get("candidates", []) if r["setup"] == "as configured"), None)
    versus = "" if configured is None or simulated.get("keep") else (
        f" against {_figure(configured['mean'], unit)} as configured")
    objective = (f"simulated {words} {_figure(record['simulated_mean'], unit)} (p5-p95 "
                 f"{_figure(record['simulated_p5'], unit)}-{_figure(record['simulated_p95'], unit)}){versus}")
    makespan = "" if plan.objective == "makespan" else (
        f"; makespan {_seconds(record['simulated_makespan'])}")
    bound = record["makespan_bound"]
    first = (simulated.get("bounds") or {}).get("first_arrival") or 0.0
    clock = "" if not first else f", ending no earlier than {_seconds(first + bound)} on the workload's clock"
    limit = "" if bound is None else (f"; no schedule's makespan is below {_seconds(bound)} ({record['bound_is']}, "
                                      f"from the first arrival{clock}): {record['makespan_above_bound']:.1%} "
                                      "above it")
    return f"{record['recommendation']}: {objective}{makespan}{limit}."


def target_sections(plan: Plan, name: str) -> list[tuple[str, str, list[dict[str, Any]], bool]]:
    """The printed plan as (key, title, records, one record): the recommendation, the setups as
    simulated (candidates and baselines), the paired comparisons and each job's prediction. The
    keys are the command's JSON keys."""
    simulated = plan.simulated or {}
    keys = ("setup", "role", "mean", "p5", "p95", "makespan", "late_jobs", "p_window", "model_makespan")
    setups = [{key: record.get(key) for key in keys} for record in simulated.get("candidates", [])]
    comparisons = [{key: record[key] for key in ("against", "objective", "mean_difference", "ci_low", "ci_high",
                                                  "plan_wins", "runs", "verdict")}
                   for record in simulated.get("comparisons", [])]
    return [
        ("plan", f"plan for {name} on {plan.target} ({plan.objective}): {headline(plan)}", [recommendation(plan)],
         True),
        ("setups", f"{plan.objective} as simulated (mean, p5, p95 over {simulated.get('runs')} paired runs; "
                   "model_makespan: the fluid model's own figure; what proposed each: the plan file)", setups, False),
        ("comparisons", "the recommendation against each baseline, run for run (positive: the plan is better)",
         comparisons, False),
        ("jobs", "each job as simulated under the recommendation (mean finish, lateness against its due date)",
         simulated.get("jobs", []), False),
    ]


def plan_critical_path(plan: Plan, workload: Workload, cluster: Cluster, *, seed: int = 0,
                       hadoop_conf: Sequence[str | Path] | None = None,
                       example: SimResult | VmResult | None = None) -> CriticalPath:
    """The plan's critical path and each job's slack (`planner.proof.critical.critical_path`), two
    figures: the model's (each job alone on the cluster's slots, from its arrival, or from 0 for a
    plan that takes every job as ready now) and the simulation's, from one run of the plan as it is
    deployed without bias (``example``, else `planner.proof.validate.example_run` with ``seed`` and
    ``hadoop_conf``). VM plans run at VM level, which records no holds: their simulated fields are
    None."""
    from planner.proof.critical import critical_path
    from planner.proof.validate import example_run
    from planner.simulator import SimResult

    if example is None and not plan.phases:
        example = example_run(plan, workload, cluster, seed=seed, hadoop_conf=hadoop_conf)
    run = example.jobs if isinstance(example, SimResult) else None
    return critical_path(workload, cluster.total_slots, run, ready_now=plan.ready_now)


def critical_sections(path: CriticalPath, *, shown: int | None = None) -> list[tuple[str, str, list[dict[str, Any]],
                                                                                     bool]]:
    """A critical path as printed sections (key, title, records, one record): ``critical`` (both
    chains) and ``slack`` (each job, every field; with ``shown``, the terminal's columns for the
    ``shown`` jobs with the least slack)."""
    simulated = ("the simulation's (the plan run once without bias; back from the last job, what held each)"
                 if path.summary["simulated_path"] is not None else "no simulated figure (VM-level runs record no holds)")
    jobs = path.jobs if shown is None else path.least_slack(shown)
    more = "" if shown is None or len(path.jobs) <= shown else (
        f"; the {shown} with the least slack of {len(path.jobs):,} (--json gives every job)")
    return [("critical", f"critical path: the model's (each job alone on the slots: a lower bound) and {simulated}",
             [path.summary], True),
            ("slack", f"each job's slack (s): how much later it could finish without delaying the end{more}",
             jobs, False)]
