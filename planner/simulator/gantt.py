"""Gantt charts: task attempts by slot (task-level runs), jobs by VM (VM-level runs)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from planner.simulator.result import SimResult
    from planner.simulator.vms import VmResult


def plot_gantt(result: SimResult, ax: Any = None, *, max_slots: int | None = 200) -> Any:
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


def seconds_formatter() -> Any:
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


def _legend(ax: Any, handles: list[Any], title: str | None) -> None:
    # Outside the axes, right: inside, the legend hides the end of the schedule, where the last jobs run.
    ax.legend(handles=handles, title=title, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    ax.xaxis.set_major_formatter(seconds_formatter())


def plot_vm_gantt(result: VmResult, ax: Any = None) -> Any:
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
