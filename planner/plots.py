"""Figures, for every room: a run's Gantt chart (task attempts by slot, or jobs by VM), fairness
over time, and a validation report's makespan curve and predicted-vs-simulated bars.

Every function takes the data and an optional matplotlib Axes (a new figure when None) and
returns the Axes it drew on, with a title, axis labels and a legend. Nothing here saves or shows
a figure: `planner.proof.report` does the saving. The data is read through what it offers
(`AttemptRun`, `VmRun`, `ValidationFigures`: `SimResult`, `VmResult` and `ValidationReport`
have these), so this module imports no room: `SimResult.plot_gantt`, `VmResult.plot_gantt` and
the proof's report all call it. matplotlib is imported where a figure is drawn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from models import InvalidInput, InvalidType
from models.checks import shown

if TYPE_CHECKING:
    import numpy as np
    from matplotlib.axes import Axes
    from matplotlib.ticker import FuncFormatter


@runtime_checkable
class AttemptRun(Protocol):
    """What the figures of a task-level run read (`planner.simulator.SimResult` has it)."""

    slots: int
    makespan: float
    fairness: float
    kills: int
    scheduler: dict[str, Any]
    jobs: list[dict[str, Any]]
    job_names: list[str]

    def columns(self) -> dict[str, np.ndarray]: ...

    def fairness_over_time(self) -> list[dict[str, Any]]: ...


@runtime_checkable
class VmRun(Protocol):
    """What the Gantt chart of a VM-level run reads (`planner.simulator.VmResult` has it)."""

    makespan: float
    jobs: list[dict[str, Any]]
    phases: list[dict[str, Any]]
    backfill: bool
    vms: int
    extra_vms: int


@runtime_checkable
class ValidationFigures(Protocol):
    """What a validation report's figures read (`planner.proof.validate.ValidationReport` has it)."""

    kind: str
    curve: list[float]
    plan: dict[str, Any]
    runs: int

    @property
    def planned(self) -> dict[str, Any]: ...

    def setup(self, role: str) -> list[dict[str, Any]]: ...

    def table(self) -> list[dict[str, Any]]: ...


@runtime_checkable
class SizingFigures(Protocol):
    """What the sizing figure reads (`planner.planning.sizing.SizingResult` has it)."""

    answer: int
    confidence: float
    price: float | None
    runs: int

    def records(self) -> list[dict[str, Any]]: ...


@runtime_checkable
class MachineCountFigures(Protocol):
    """What the machine-count figure reads (`solvers.machine_count.MachineCount` has it)."""

    problem: str
    machines: int | None
    price: float | None

    def records(self) -> list[dict[str, Any]]: ...


#: Colours (matplotlib's tab10): predictions, simulated baselines and points, the plan.
PREDICTED = "tab:blue"
SIMULATED = "tab:grey"
PLAN = "tab:red"
JOBS = "tab:green"


def _axes(ax: Axes | None, size: tuple[float, float]) -> Axes:
    if ax is not None:
        from matplotlib.axes import Axes

        if not isinstance(ax, Axes):
            raise InvalidType("ax", f"must be a matplotlib Axes or None, got {shown(ax)} ({type(ax).__name__})")
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=size, layout="constrained")
    return ax


def _report(report: object) -> ValidationFigures:
    """``report`` itself when it reads like a `ValidationReport`; else `InvalidType`."""
    if not isinstance(report, ValidationFigures):
        raise InvalidType("report", f"must be a ValidationReport (validate's result), got {shown(report)} "
                                    f"({type(report).__name__})")
    return report


def _spread(record: dict[str, Any]) -> tuple[list[float], list[float]]:
    """Error-bar lengths below and above the mean for the p5-p95 range."""
    return [max(record["mean"] - record["p5"], 0.0)], [max(record["p95"] - record["mean"], 0.0)]


def plot_makespan_curve(report: ValidationFigures, ax: Axes | None = None) -> Axes:
    """Makespan against the number of map slots of a slot report: the fluid model's prediction for
    every split 1..S-1 (``report.curve``) and the simulated means with their p5-p95 range at the
    plan's split (a star) and the curve points. The y axis is logarithmic when the values span more
    than 10x (the prediction at the extreme splits dwarfs the rest)."""
    if _report(report).kind == "vms" or not report.curve:
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


def plot_predicted_vs_simulated(report: ValidationFigures, ax: Axes | None = None) -> Axes:
    """The plan, its variants and the baselines (``report.table()``) as horizontal bar pairs:
    the fluid prediction (where there is one) and the simulated mean with its p5-p95 range, each
    group labelled with the relative error of its prediction."""
    import numpy as np
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    records = _report(report).table()
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


def plot_sizing(result: SizingFigures, ax: Axes | None = None) -> Axes:
    """P(finish by the window) against the cluster's size (`planner.planning.sizing`): the
    simulated sizes as points, the sizes the bounds rule out (not planned) as crosses on the axis, the confidence asked
    as a dashed line and the answer as a star; with a price, each simulated size's cost (and the
    bound's cost of the others) on a second axis."""
    if not isinstance(result, SizingFigures):
        raise InvalidType("result", f"must be a SizingResult (size_cluster's), got {shown(result)} "
                                    f"({type(result).__name__})")
    from matplotlib.ticker import MaxNLocator

    ax = _axes(ax, (8, 5))
    records = result.records()
    simulated = [r for r in records if r["decided_by"] == "simulation"]
    bounded = [r for r in records if r["decided_by"] == "bound"]
    ax.plot([r["nodes"] for r in simulated], [r["p_meet"] for r in simulated], "o-", color=SIMULATED,
            label=f"P(meet), simulated ({result.runs} runs)", zorder=3)
    if bounded:
        ax.plot([r["nodes"] for r in bounded], [0.0] * len(bounded), "x", color=PREDICTED,
                label="not planned: the bounds end after the window")
    ax.axhline(result.confidence, color="black", linestyle="--", linewidth=0.8, label=f"confidence {result.confidence:g}")
    answer = next(r for r in records if r["nodes"] == result.answer)
    ax.plot([answer["nodes"]], [answer["p_meet"]], "*", color=PLAN, markersize=15, zorder=4,
            label=f"answer: {answer['nodes']} nodes")
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel("nodes")
    ax.set_ylabel("P(finish by the window)")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(True, alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    if result.price is not None:
        costs = ax.twinx()
        costs.plot([r["nodes"] for r in simulated], [r["cost"] for r in simulated], "s:", color=JOBS,
                   label="cost, simulated mean makespan billed")
        others = [r for r in records if r["decided_by"] != "simulation" and r["cost_bound"] is not None]
        if others:
            costs.plot([r["nodes"] for r in others], [r["cost_bound"] for r in others], ".", color=JOBS, alpha=0.4,
                       label="cost's lower bound (the bounds' makespan)")
        costs.set_ylabel("cost")
        more_handles, more_labels = costs.get_legend_handles_labels()
        handles, labels = handles + more_handles, labels + more_labels
    ax.legend(handles, labels, loc="center right", fontsize="small")
    ax.set_title("How many nodes: P(finish by the window) by size")
    return ax


def plot_machine_count(result: MachineCountFigures, ax: Axes | None = None) -> Axes:
    """A VM plan's cost against its number of machines P (`solvers.machine_count`): the solved
    counts' cost (P x the optimal time, billed), the bounds' cost of every count (the pruned ones
    were not solved), and the answer as a star; the optimal time on a second axis."""
    if not isinstance(result, MachineCountFigures):
        raise InvalidType("result", f"must be a MachineCount (cheapest_machine_count's), got {shown(result)} "
                                    f"({type(result).__name__})")
    from matplotlib.ticker import MaxNLocator

    ax = _axes(ax, (8, 5))
    records = result.records()
    solved = [r for r in records if r["cost"] is not None]
    unit = "cost" if result.price is not None else "machine-seconds"
    ax.plot([r["machines"] for r in records], [r["cost_bound"] for r in records], ".", color=PREDICTED,
            label=f"{unit}: the bound (profiles, no solver)")
    ax.plot([r["machines"] for r in solved], [r["cost"] for r in solved], "o-", color=SIMULATED,
            label=f"{unit}: solved ({result.problem})")
    if result.machines is not None:
        best = next(r for r in records if r["machines"] == result.machines)
        ax.plot([best["machines"]], [best["cost"]], "*", color=PLAN, markersize=15, zorder=4,
                label=f"answer: {best['machines']} machines")
    ax.set_xlabel("machines P")
    ax.set_ylabel(unit)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(True, alpha=0.3)
    times = ax.twinx()
    times.plot([r["machines"] for r in solved], [r["makespan"] for r in solved], "s:", color=JOBS,
               label="the schedule's time T*(P)")
    times.set_ylabel("time (s)")
    handles, labels = ax.get_legend_handles_labels()
    more_handles, more_labels = times.get_legend_handles_labels()
    ax.legend(handles + more_handles, labels + more_labels, loc="upper center", fontsize="small")
    ax.set_title(f"How many machines for the {result.problem} plan: cost by P")
    return ax


def plot_fairness_over_time(result: AttemptRun, ax: Axes | None = None) -> Axes:
    """FRESH's overall fairness of one run (Jain's index of the jobs' slot shares, in [0, 1]) at
    each job completion, as a step line, with the number of jobs in the system on a twin axis.
    Each value holds from the previous completion (the first from the start of the batch) up to
    its own, as in the time-weighted mean that `SimResult.fairness` reports."""
    if not isinstance(result, AttemptRun):
        raise InvalidType("result", f"fairness over time needs a task-level SimResult, got {shown(result)} "
                                    f"({type(result).__name__})")
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


def plot_attempts(result: AttemptRun, ax: Axes | None = None, *, max_slots: int | None = 200) -> Axes:
    """Draw every attempt of ``result`` as a bar on its slot's row, coloured by
    job; killed attempts are hatched. Only the first ``max_slots`` slots are
    drawn (None draws all). Returns the matplotlib Axes."""
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.collections import PolyCollection
    from matplotlib.patches import Patch

    if ax is None:
        _, ax = plt.subplots(figsize=(10, 5))
    colours = plt.get_cmap("tab20")
    shown = result.slots if max_slots is None else min(result.slots, max_slots)
    # From the attempt columns, not `result.attempts`: a day's 8.8 million attempts as tuples take
    # 3 GB to draw the 200 rows shown.
    table = result.columns()
    picked = np.flatnonzero(table["slot"] < shown)
    slot, job, lost = table["slot"][picked], table["job"][picked], table["fate"][picked] != 0
    start, end = table["start"][picked], table["end"][picked]
    # One collection per (job, fate), not per slot: thousands of broken_barh calls take seconds.
    # Boxes by job, fate, then slot, and in the order the attempts ended within a slot (stable).
    group = job.astype(np.int64) * 2 + lost  # (job, fate) as one key
    order = np.lexsort((slot, group))
    x, width, row, group = start[order], (end - start)[order], slot[order].astype(float), group[order]
    low, high = row - 0.4, row + 0.4
    boxes = np.stack([[x, low], [x + width, low], [x + width, high], [x, high]]).transpose(2, 0, 1)
    firsts = np.flatnonzero(np.diff(group, prepend=-1))
    for first, last in zip(firsts, [*firsts[1:], len(order)], strict=True):
        owner, killed = divmod(int(group[first]), 2)
        ax.add_collection(PolyCollection(boxes[first:last], facecolor=colours(owner % 20),
                                         hatch="//" if killed else None, edgecolor="black" if killed else "none",
                                         linewidth=0.3), autolim=True)
    ax.autoscale_view()
    ax.set_xlabel("time (s)")
    ax.set_ylabel("slot")
    ax.set_ylim(-1, shown)
    ax.set_title(f"Task attempts under {result.scheduler['name']} (makespan {result.makespan:g} s)")
    names = result.job_names
    used = [int(owner) for owner in np.unique(job)]
    if len(used) <= 20:
        _legend(ax, [Patch(color=colours(job % 20), label=names[job]) for job in used], "job")
    else:
        _legend(ax, _colour_key(len(result.jobs), killed=result.kills > 0), None)
    return ax


def plot_vm_schedule(result: VmRun, ax: Axes | None = None) -> Axes:
    """Jobs as bars on the VMs they ran on (one row per primary VM, then one per extra VM),
    coloured by job; dotted lines mark phase starts. Returns the matplotlib Axes."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    if ax is None:
        _, ax = plt.subplots(figsize=(10, 5))
    colours = plt.get_cmap("tab20")
    for index, record in enumerate(result.jobs):
        offset = result.vms if record["role"] == "extra" else 0
        span = [(record["start"], record["runtime"])]
        for vm in record["vm_ids"]:
            ax.broken_barh(span, (offset + vm - 0.4, 0.8), facecolor=colours(index % 20),
                           hatch="//" if record["role"] != "primary" else None, edgecolor="black", linewidth=0.2)
    for phase in result.phases:
        ax.axvline(phase["start"], color="grey", linestyle=":", linewidth=0.8)
    if result.extra_vms and any(r["role"] == "extra" for r in result.jobs):
        ax.axhline(result.vms - 0.5, color="black", linewidth=0.6)
        rows = result.vms + result.extra_vms
    else:
        rows = result.vms
    ax.set_ylim(-1, rows)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(f"VM (0-{result.vms - 1} primary" + (f", {result.vms}+ extra)" if rows > result.vms else ")"))
    mode = "backfill" if result.backfill else "phase barriers"
    ax.set_title(f"VM schedule, {mode} (makespan {result.makespan:.1f} s)")
    if len(result.jobs) <= 20:
        _legend(ax, [Patch(facecolor=colours(i % 20), label=f"{r['name']} ({r['role']}, {r['vms']} VMs)")
                     for i, r in enumerate(result.jobs)], "job")
    else:
        _legend(ax, _colour_key(len(result.jobs), killed=False), None)
    return ax


def plot_jobs(result: AttemptRun, ax: Axes | None = None, *, max_jobs: int | None = 60) -> Axes:
    """Jobs as rows (a job-level Gantt chart of a task-level run): each job's wait for a slot (from
    its ready time to its start, light) and its run (start to finish); a dotted line from its submit
    time to its ready time while it waited for other jobs. Each dependency between two jobs drawn
    is an arrow from the predecessor's finish to the successor's ready time, and the simulated
    critical chain (``result.critical_chain``: the last job to finish and, back from it, what held
    each) is drawn in red, its arrows too. The dependencies are
    the run's (``result.dependencies``: (predecessor, job, delay)). At most ``max_jobs`` rows
    (None: every job): the chain's jobs, then the others by start. Returns the matplotlib Axes."""
    import numpy as np
    from matplotlib.collections import LineCollection
    from matplotlib.lines import Line2D
    from matplotlib.patches import FancyArrowPatch, Patch

    if not isinstance(result, AttemptRun):
        raise InvalidType("result", f"a job-level Gantt chart needs a task-level SimResult, got {shown(result)} "
                                    f"({type(result).__name__})")
    if max_jobs is not None and (isinstance(max_jobs, bool) or not isinstance(max_jobs, int) or max_jobs < 1):
        raise InvalidInput("max_jobs", f"must be a positive whole number or None, got {shown(max_jobs)}")
    ax = _axes(ax, (10, 5))
    records = result.jobs
    edges = list(getattr(result, "dependencies", ()))
    chain = list(getattr(result, "critical_chain", ())) if edges else []
    picked = _picked_jobs(records, chain, max_jobs)
    row = {records[p]["name"]: r for r, p in enumerate(picked)}
    on_chain = set(chain)
    ready = np.array([_ready(records[p]) for p in picked], dtype=float)
    start = np.array([records[p]["start"] for p in picked], dtype=float)
    finish = np.array([records[p]["finish"] for p in picked], dtype=float)
    submit = np.array([records[p]["submit"] for p in picked], dtype=float)
    rows = np.arange(len(picked), dtype=float)
    colours = [PLAN if records[p]["name"] in on_chain else PREDICTED for p in picked]
    ax.barh(rows, start - ready, left=ready, height=0.6, color=SIMULATED, alpha=0.35)
    ax.barh(rows, finish - start, left=start, height=0.6, color=colours)
    held = ready > submit
    if held.any():
        ax.add_collection(LineCollection([[(a, y), (b, y)] for a, b, y in zip(submit[held], ready[held], rows[held],
                                                                                 strict=True)],
                                         colors=SIMULATED, linestyles=":", linewidths=1.0))
    by_name = {record["name"]: record for record in records}
    drawn = 0
    for before, after, _delay in edges:
        if before not in row or after not in row:
            continue
        critical = before in on_chain and after in on_chain and by_name[after].get("held_by") == before
        ax.add_patch(FancyArrowPatch((by_name[before]["finish"], row[before]), (_ready(by_name[after]), row[after]),
                                     arrowstyle="-|>", mutation_scale=9, shrinkA=0, shrinkB=0,
                                     color=PLAN if critical else "black", linewidth=1.4 if critical else 0.7,
                                     alpha=0.9 if critical else 0.55, zorder=3, gid="dependency"))
        drawn += 1
    right = float(finish.max()) if len(finish) else 1.0
    left = float(min(submit.min(), ready.min())) if len(finish) else 0.0
    ax.set_xlim(left - 0.02 * (right - left), right + 0.02 * (right - left) + 1e-9)
    ax.set_ylim(len(picked) - 0.5, -0.5)  # the first row on top
    ax.set_yticks(rows, [records[p]["name"] for p in picked] if len(picked) <= 60 else [])
    ax.set_xlabel("time (s)")
    ax.set_ylabel("job")
    counted = "" if len(picked) == len(records) else f", {len(picked)} of {len(records):,} jobs"
    ax.set_title(f"Jobs and their {drawn} dependencies under {result.scheduler['name']} "
                 f"(makespan {result.makespan:,.0f} s{counted})")
    ax.grid(True, axis="x", alpha=0.3)
    handles = [Patch(color=PLAN, label="critical chain (simulated)"), Patch(color=PREDICTED, label="other jobs"),
               Patch(color=SIMULATED, alpha=0.35, label="waiting for a slot"),
               Line2D([], [], color=SIMULATED, linestyle=":", label="waiting for other jobs"),
               Line2D([], [], color="black", marker=">", markersize=5, linewidth=0.7,
                      label="dependency (finish to ready)")]
    _legend(ax, handles, None)
    return ax


def _ready(record: dict[str, Any]) -> float:
    """When a job could be submitted (a run without dependencies records its submit time)."""
    return float(record.get("ready", record["submit"]))


def _picked_jobs(records: list[dict[str, Any]], chain: list[str], max_jobs: int | None) -> list[int]:
    """The positions of the jobs drawn, in row order (by start, then position): all of them, or the
    chain's and then the earliest to start, ``max_jobs`` in all."""
    by_start = sorted(range(len(records)), key=lambda p: (records[p]["start"], p))
    if max_jobs is None or len(records) <= max_jobs:
        return by_start
    first = {name: p for p, name in enumerate(r["name"] for r in records)}
    kept = {first[name] for name in chain[:max_jobs]}
    for position in by_start:
        if len(kept) >= max_jobs:
            break
        kept.add(position)
    return [p for p in by_start if p in kept]


def plot_gantt(result: AttemptRun | VmRun, ax: Axes | None = None, *, rows: str | None = None) -> Axes:
    """The run's Gantt chart: task attempts by slot (`plot_attempts`) or jobs as rows with their
    dependencies and critical chain (`plot_jobs`) for a `SimResult`, jobs by VM
    (`plot_vm_schedule`) for a `VmResult`. ``rows`` ("slots" or "jobs"; a `SimResult` only)
    chooses; None: "jobs" when the run's jobs wait for other jobs (``result.dependencies``), else
    "slots"."""
    if rows is not None and rows not in ("slots", "jobs"):
        raise InvalidInput("rows", f"must be 'slots', 'jobs' or None, got {shown(rows)}")
    if isinstance(result, AttemptRun):
        if rows == "jobs" or (rows is None and getattr(result, "dependencies", ())):
            return plot_jobs(result, ax=_axes(ax, (10, 5)))
        return plot_attempts(result, ax=_axes(ax, (10, 5)))
    if isinstance(result, VmRun):
        if rows == "jobs":
            raise InvalidInput("rows", "a VM-level run is drawn by VM; 'jobs' needs a task-level SimResult")
        return plot_vm_schedule(result, ax=_axes(ax, (10, 5)))
    raise InvalidType("result", f"must be a SimResult or a VmResult, got {shown(result)} ({type(result).__name__})")


def seconds_formatter() -> FuncFormatter:
    """Tick labels in seconds with thousands separators, whole from 100 s up (log axes print 10^4
    otherwise)."""
    from matplotlib.ticker import FuncFormatter

    return FuncFormatter(lambda value, _: f"{value:,.0f}" if abs(value) >= 100 or value == round(value)
                         else f"{value:.3g}")


def _colour_key(jobs: int, *, killed: bool) -> list[Any]:
    """What the colours mean when there are too many jobs to name."""
    from matplotlib.patches import Patch

    handles = [Patch(facecolor="tab:blue", label=f"{jobs} jobs,\none colour each\n(colours repeat)")]
    if killed:
        handles.append(Patch(facecolor="white", edgecolor="black", hatch="//", label="killed attempt"))
    return handles


def _legend(ax: Axes, handles: list[Any], title: str | None) -> None:
    # Outside the axes, right: inside, the legend hides the end of the schedule, where the last jobs run.
    ax.legend(handles=handles, title=title, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    ax.xaxis.set_major_formatter(seconds_formatter())
