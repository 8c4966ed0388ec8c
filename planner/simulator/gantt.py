"""A Gantt chart of a simulation: task attempts as bars, one row per slot."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from planner.simulator.result import SimResult


def plot_gantt(result: SimResult, ax: Any = None, *, max_slots: int | None = 200) -> Any:
    """Draw every attempt of ``result`` as a bar on its slot's row, coloured by
    job; killed attempts are hatched. Only the first ``max_slots`` slots are
    drawn (None draws all). Returns the matplotlib Axes."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    if ax is None:
        _, ax = plt.subplots(figsize=(10, 5))
    colours = plt.get_cmap("tab20")
    shown = result.slots if max_slots is None else min(result.slots, max_slots)
    bars: dict[tuple[int, int, bool], list[tuple[float, float]]] = {}
    for job, _kind, _task, _node, slot, start, end, _locality, fate in result.attempts:
        if slot < shown:
            bars.setdefault((slot, job, fate != 0), []).append((start, end - start))
    for (slot, job, lost), spans in sorted(bars.items()):
        ax.broken_barh(spans, (slot - 0.4, 0.8), facecolor=colours(job % 20), hatch="//" if lost else None,
                       edgecolor="black" if lost else "none", linewidth=0.3)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("slot")
    ax.set_ylim(-1, shown)
    ax.set_title(f"Task attempts under {result.scheduler['name']} (makespan {result.makespan:g} s)")
    names = result.job_names
    used = sorted({job for _, job, _ in bars})
    if len(used) <= 20:
        ax.legend(handles=[Patch(color=colours(job % 20), label=names[job]) for job in used],
                  loc="upper right", fontsize="small", title="job")
    return ax
