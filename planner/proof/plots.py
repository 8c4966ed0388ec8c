"""Figures of a validation report and of one simulated run.

Every function takes the data and an optional matplotlib Axes (a new figure
when None) and returns the Axes it drew on, with a title, axis labels and a
legend. Nothing here saves or shows a figure: `planner.proof.report` does the saving.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from models import InvalidInput
from planner.simulator import SimResult, VmResult
from planner.simulator.gantt import seconds_formatter

if TYPE_CHECKING:
    from planner.proof.validate import ValidationReport

#: Colours (matplotlib's tab10): predictions, simulated baselines and points, the plan.
PREDICTED = "tab:blue"
SIMULATED = "tab:grey"
PLAN = "tab:red"
JOBS = "tab:green"


def _axes(ax: Any, size: tuple[float, float]) -> Any:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=size, layout="constrained")
    return ax


def _spread(record: dict[str, Any]) -> tuple[list[float], list[float]]:
    """Error-bar lengths below and above the mean for the p5-p95 range."""
    return [max(record["mean"] - record["p5"], 0.0)], [max(record["p95"] - record["mean"], 0.0)]


def plot_makespan_curve(report: ValidationReport, ax: Any = None) -> Any:
    """Makespan against the number of map slots of a slot report: the fluid model's prediction for
    every split 1..S-1 (``report.curve``) and the simulated means with their p5-p95 range at the
    plan's split (a star) and the curve points. The y axis is logarithmic when the values span more
    than 10x (the prediction at the extreme splits dwarfs the rest)."""
    if report.kind == "vms" or not report.curve:
        raise InvalidInput("report", "VM plans have no makespan-vs-map-slots curve (it exists for slot plans only)")
    from matplotlib.ticker import LogLocator, MaxNLocator, NullFormatter

    ax = _axes(ax, (8, 5))
    slots = range(1, len(report.curve) + 1)
    ax.plot(slots, report.curve, color=PREDICTED, linewidth=1.5,
            label=f"predicted ({report.plan['model']} fluid model)")
    points = sorted(report.setup("curve"), key=lambda r: r["map_slots"])
    if points:
        below, above = zip(*(_spread(r) for r in points), strict=True)
        ax.errorbar([r["map_slots"] for r in points], [r["mean"] for r in points],
                    yerr=[[b[0] for b in below], [a[0] for a in above]], fmt="o", color="black", ecolor=SIMULATED,
                    capsize=4, markersize=5, zorder=3, label=f"simulated mean, p5-p95 ({points[0]['runs']} runs)")
    plan = report.planned
    ax.errorbar([plan["map_slots"]], [plan["mean"]], yerr=_spread(plan), fmt="*", color=PLAN, ecolor=PLAN,
                capsize=4, markersize=13, zorder=4,
                label=f"plan {plan['map_slots']}:{plan['reduce_slots']}, simulated ({plan['runs']} runs)")
    ax.axvline(plan["map_slots"], color=PLAN, linestyle=":", linewidth=0.8, zorder=1)
    values = [*report.curve, *(r["p5"] for r in [*points, plan]), *(r["p95"] for r in [*points, plan])]
    low, high = min(v for v in values if v > 0), max(values)
    if high > 10 * low:
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_minor_formatter(NullFormatter())
    ax.yaxis.set_major_formatter(seconds_formatter())
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    total = len(report.curve) + 1
    ax.set_xlim(0, total)
    ax.set_xlabel(f"map slots (of S = {total}; the rest are reduce slots)")
    ax.set_ylabel("makespan (s)")
    ax.set_title("Makespan vs map slots: fluid model and simulation")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(loc="upper center", fontsize="small")
    return ax


def plot_predicted_vs_simulated(report: ValidationReport, ax: Any = None) -> Any:
    """The plan, its variants and the baselines (``report.table()``) as horizontal bar pairs:
    the fluid prediction (where there is one) and the simulated mean with its p5-p95 range, each
    group labelled with the relative error of its prediction."""
    import numpy as np
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    records = report.table()
    ax = _axes(ax, (9, 1.0 + 0.7 * len(records)))
    rows = np.arange(len(records))
    height = 0.38
    predicted = [(i, r["predicted"]) for i, r in enumerate(records) if r["predicted"] is not None]
    if predicted:
        ax.barh([i - height / 2 for i, _ in predicted], [v for _, v in predicted], height=height,
                color=PREDICTED, alpha=0.45, label="predicted (fluid model)")
    colours = [PLAN if r["role"] == "plan" else SIMULATED for r in records]
    below, above = zip(*(_spread(r) for r in records), strict=True)
    ax.barh(rows + height / 2, [r["mean"] for r in records], height=height, color=colours,
            xerr=[[b[0] for b in below], [a[0] for a in above]], capsize=3, error_kw={"elinewidth": 1})
    right = max(max(r["p95"], r["predicted"] or 0.0) for r in records)
    for i, record in enumerate(records):
        text = "no prediction" if record["error"] is None else f"error {record['error']:+.1%}"
        ax.annotate(text, (max(record["p95"], record["predicted"] or 0.0), i), xytext=(6, 0),
                    textcoords="offset points", va="center", fontsize="small")
    ax.set_xlim(0, right * 1.28)
    ax.set_yticks(rows, [r["setup"] for r in records])
    for label, record in zip(ax.get_yticklabels(), records, strict=True):
        if record["role"] == "plan":
            label.set_fontweight("bold")
    ax.invert_yaxis()
    ax.xaxis.set_major_formatter(seconds_formatter())
    ax.set_xlabel("makespan (s)")
    ax.set_ylabel("setup")
    ax.set_title("Predicted vs simulated makespan")
    ax.grid(True, axis="x", alpha=0.3)
    handles = [Patch(color=PREDICTED, alpha=0.45, label="predicted (fluid model)"),
               Patch(color=PLAN, label="simulated mean, plan"),
               Patch(color=SIMULATED, label="simulated mean, others"),
               Line2D([], [], color="black", marker="|", markersize=8, linewidth=1,
                      label=f"p5-p95 over {report.runs} runs")]
    # Below the axes: inside, it would cover the error labels at the bars' ends.
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, fontsize="small",
              frameon=False)
    return ax


def plot_fairness_over_time(result: SimResult, ax: Any = None) -> Any:
    """FRESH's overall fairness of one run (Jain's index of the jobs' slot shares, in [0, 1]) at
    each job completion, as a step line, with the number of jobs in the system on a twin axis.
    Each value holds from the previous completion (the first from the start of the batch) up to
    its own, as in the time-weighted mean that `SimResult.fairness` reports."""
    if not isinstance(result, SimResult):
        raise InvalidInput("result", f"fairness over time needs a task-level SimResult, got {type(result).__name__}")
    ax = _axes(ax, (9, 4.5))
    records = result.fairness_over_time()
    times = [0.0, *(r["time"] for r in records)]
    fairness = [records[0]["fairness"], *(r["fairness"] for r in records)] if records else [1.0]
    present = [records[0]["jobs_in_system"], *(r["jobs_in_system"] for r in records)] if records else [0]
    fair_line = ax.step(times, fairness, where="pre", color=PREDICTED, linewidth=1.5,
                        label="fairness (Jain's index, left)")
    ax.axhline(result.fairness, color=PREDICTED, linestyle="--", linewidth=0.8)
    mean_line = ax.plot([], [], color=PREDICTED, linestyle="--", linewidth=0.8,
                        label=f"time-weighted mean {result.fairness:.2f}")
    ax.set_ylim(0, 1.05)
    ax.set_xlim(0, max(times[-1], 1e-9) * 1.01)
    ax.xaxis.set_major_formatter(seconds_formatter())
    ax.set_xlabel("time since the batch started (s)")
    ax.set_ylabel("overall fairness (Jain's index, 0-1)")
    twin = ax.twinx()
    jobs_line = twin.step(times, present, where="pre", color=JOBS, linewidth=1.0, alpha=0.8,
                          label="jobs in the system (right)")
    twin.set_ylim(0, max(present) * 1.1 + 1)
    twin.set_ylabel("jobs in the system (count)")
    ax.set_title(f"Fairness over time under {result.scheduler['name']} (makespan {result.makespan:,.0f} s)")
    ax.grid(True, alpha=0.3)
    ax.legend(handles=[*fair_line, *mean_line, *jobs_line], loc="lower left", fontsize="small")
    return ax


def plot_gantt(result: SimResult | VmResult, ax: Any = None) -> Any:
    """The run's Gantt chart: task attempts by slot (`SimResult`) or jobs by VM (`VmResult`); the
    simulator draws it (`planner.simulator.gantt`)."""
    if not isinstance(result, SimResult | VmResult):
        raise InvalidInput("result", f"expected a SimResult or a VmResult, got {type(result).__name__}")
    return result.plot_gantt(ax=_axes(ax, (10, 5)))
