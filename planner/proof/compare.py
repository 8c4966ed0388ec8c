"""Side-by-side runs: several schedulers or configurations on one workload, over seeds and splits.

`configurations` turns command-line style entries ("fair", "fair:pools.yaml")
into named schedulers; `grid` makes one `Spec` per (configuration, slot split,
seed); `compare` runs the grid with `sweep` and returns a `Comparison`: one
record per run and one aggregated record per (configuration, split). The
workload runs as submitted (unlike `validate`, which runs tonight's batch).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from models import Cluster, InvalidInput, Workload
from models.checks import as_instance, as_int, as_list, as_str
from models.fileio import csv_text, write_atomic
from planner.io.hadoop.conf import hadoop_settings
from planner.io.settings import simulation_settings
from planner.limits import MAX_RUNS
from planner.proof.sweep import ExecutorChoice, ProgressOption, Spec, sweep
from planner.simulator import SimOptions, simulate
from planner.simulator.effort import check_simulations
from planner.simulator.layout import check_slots
from planner.simulator.run import Run
from planner.simulator.schedulers.base import Scheduler

if TYPE_CHECKING:
    from matplotlib.axes import Axes

#: The per-run numbers a comparison aggregates (mean over seeds).
MEASURES = ("makespan", "mean_response", "utilization", "fairness", "node_local", "wasted_work", "deadline_misses")


@dataclass(frozen=True)
class Configuration:
    """A named scheduler with its options (from a settings file or defaults); ``cluster``, when
    given, replaces the comparison's (the cluster as Hadoop's files configure it)."""

    name: str
    scheduler: Scheduler
    options: SimOptions | None = None
    cluster: Cluster | None = None


#: The name of the configuration Hadoop's files make (`configured`).
AS_CONFIGURED = "as configured"


def configured(paths: Sequence[str | Path], cluster: Cluster, **options: Any) -> Configuration:
    """The cluster as Hadoop's configuration files make it (`hadoop_settings`), named
    "as configured": its scheduler, options (with ``options`` and ``delay`` on top) and cluster."""
    machines, scheduler, chosen = hadoop_settings(paths, cluster, **options)
    return Configuration(AS_CONFIGURED, scheduler, chosen, machines)


def configurations(entries: Sequence[str], *, config: str | Path | None = None, **options: Any
                   ) -> list[Configuration]:
    """``"NAME"`` or ``"NAME:SETTINGS_FILE"`` entries as configurations, as `simulation_settings`
    makes them: a NAME alone takes its settings from ``config`` when given (as ``planner
    simulate --scheduler NAME --config FILE`` does); no entries at all mean the scheduler of
    ``config``, else fifo. ``options`` are `SimOptions` fields (None ignored) and ``delay``,
    applied to each."""
    if not entries:
        scheduler, chosen = simulation_settings(config, None, **options)
        return [Configuration(scheduler.name, scheduler, chosen)]
    made = []
    for position, entry in enumerate(entries):
        if not isinstance(entry, str) or not entry:
            raise InvalidInput(f"scheduler[{position}]", f"must be NAME or NAME:SETTINGS_FILE, got {entry!r}")
        name, _, path = entry.partition(":")
        scheduler, chosen = simulation_settings(Path(path) if path else config, name or None, **options)
        made.append(Configuration(entry if path else scheduler.name, scheduler, chosen))
    names = [c.name for c in made]
    for position, name in enumerate(names):
        if name in names[:position]:
            raise InvalidInput(f"scheduler[{position}]", f"{name!r} is given twice")
    return made


def run_configuration(workload: Workload, cluster: Cluster, configuration: Configuration,
                      slots: tuple[int, int] | None, seed: int) -> dict[str, Any]:
    """One simulation: its summary as a flat record, labelled."""
    machines = configuration.cluster if configuration.cluster is not None else cluster
    result = simulate(workload, machines, copy.deepcopy(configuration.scheduler), seed=seed, slots=slots,
                      options=configuration.options)
    summary = result.summary()
    split = None if slots is None else f"{slots[0]}:{slots[1]}"
    return {"configuration": configuration.name, "slots": split, "seed": seed,
            **{key: value for key, value in summary.items() if key != "scheduler"}}


def grid(workload: Workload, cluster: Cluster, chosen: Sequence[Configuration],
         splits: Sequence[tuple[int, int] | None] = (None,), seeds: Sequence[int] = (0,)) -> list[Spec]:
    """One spec per (configuration, split, seed), in that nesting order."""
    return [Spec(run_configuration, (workload, cluster, configuration, split, seed),
                 label=f"{configuration.name} {split or ''} seed {seed}")
            for configuration in chosen for split in splits for seed in seeds]


@dataclass(frozen=True)
class Comparison:
    """``runs``: one record per simulation; `table`: means over the seeds per (configuration, split)."""

    workload: str | None
    runs: list[dict[str, Any]]

    def __post_init__(self) -> None:
        if self.workload is not None:
            as_str(self.workload, "workload")
        for position, record in enumerate(as_instance(self.runs, list, "runs")):
            as_instance(record, dict, f"runs[{position}]")

    def table(self) -> list[dict[str, Any]]:
        groups: dict[tuple[str, str | None], list[dict[str, Any]]] = {}
        for record in self.runs:
            groups.setdefault((record["configuration"], record["slots"]), []).append(record)
        rows = []
        for (name, split), records in groups.items():
            row: dict[str, Any] = {"configuration": name, "slots": split, "runs": len(records)}
            for measure in MEASURES:
                row[measure] = float(np.mean([r[measure] for r in records]))
            makespans = [r["makespan"] for r in records]
            row["makespan_min"], row["makespan_max"] = float(min(makespans)), float(max(makespans))
            rows.append(row)
        return rows

    def brief(self) -> list[dict[str, Any]]:
        """`table` narrowed to what fits a terminal (no slots column when every run used the cluster's)."""
        keys = ["configuration", "slots", "runs", "makespan", "mean_response", "fairness", "node_local", "utilization"]
        rows = self.table()
        if all(row["slots"] is None for row in rows):
            keys.remove("slots")
        return [{key: row[key] for key in keys} for row in rows]

    def write(self, folder: str | Path) -> dict[str, Path]:
        """Write comparison.png (`plot`), comparison.csv (`table`) and comparison.json (the table
        and every run) into ``folder``, each atomically; returns the paths by kind."""
        from matplotlib.figure import Figure

        from planner.proof.report import png

        folder = Path(folder)
        rows = self.table()
        figure = Figure(figsize=(11, 0.5 * len(rows) + 2.5))
        self.plot(figure.subplots(1, 2))
        figure.tight_layout()
        paths = {"figure": folder / "comparison.png", "csv": folder / "comparison.csv",
                 "json": folder / "comparison.json"}
        write_atomic(paths["figure"], png(figure))
        write_atomic(paths["csv"], csv_text(rows))
        write_atomic(paths["json"], json.dumps({"table": rows, "runs": self.runs}, indent=1) + "\n")
        return paths

    def plot(self, axes: Sequence[Axes] | None = None) -> Sequence[Axes]:
        """Makespan and mean response time per configuration (min-max over seeds as bars), on two
        axes side by side (``axes``, or a new figure's)."""
        import matplotlib.pyplot as plt

        rows = self.table()
        if axes is None:
            _, axes = plt.subplots(1, 2, figsize=(11, 0.5 * len(rows) + 2.5))
        labels = [row["configuration"] + (f" ({row['slots']})" if row["slots"] else "") for row in rows]
        y = np.arange(len(rows))
        makespan = np.array([row["makespan"] for row in rows])
        low = makespan - np.array([row["makespan_min"] for row in rows])
        high = np.array([row["makespan_max"] for row in rows]) - makespan
        axes[0].barh(y, makespan, xerr=[low, high], color="tab:blue", label="makespan (mean; min-max over seeds)")
        axes[1].barh(y, [row["mean_response"] for row in rows], color="tab:orange", label="mean response time")
        for ax, what in zip(axes, ("Makespan", "Mean response time"), strict=True):
            ax.set_yticks(y, labels)
            ax.invert_yaxis()
            ax.set_xlabel("seconds")
            ax.set_title(f"{what} of {self.workload or 'the workload'}")
            ax.legend(loc="lower right", fontsize="small")
        axes[1].set_yticklabels([])
        return axes


def compare(
    workload: Workload,
    cluster: Cluster,
    chosen: Sequence[Configuration | str],
    *,
    splits: Sequence[tuple[int, int] | None] = (None,),
    seeds: Sequence[int] = (0,),
    executor: ExecutorChoice = None,
    progress: ProgressOption = False,
) -> Comparison:
    """Run every configuration (entries as in `configurations`) on every split and seed."""
    as_instance(workload, Workload, "workload")
    as_instance(cluster, Cluster, "cluster")
    chosen = as_list(chosen, "chosen", what="a list of configurations (names, settings files or Configuration)")
    if not chosen:
        raise InvalidInput("chosen", "give at least one configuration")
    seeds = as_list(seeds, "seeds", what="a list of seeds", maximum=MAX_RUNS, limit="MAX_RUNS")
    splits = as_list(splits, "splits", what="a list of (map, reduce) slot splits or None", maximum=MAX_RUNS,
                     limit="MAX_RUNS")
    for position, entry in enumerate(chosen):
        as_instance(entry, (Configuration, str), f"chosen[{position}]")
    made = [c for c in chosen if isinstance(c, Configuration)]
    if len(made) != len(chosen):
        made = [c if isinstance(c, Configuration) else configurations([c])[0] for c in chosen]
    seeds = [as_int(seed, f"seeds[{i}]", minimum=0) for i, seed in enumerate(seeds)]
    if not seeds:
        raise InvalidInput("seeds", "give at least one seed")
    for split in splits:  # before any run starts
        if split is not None:
            check_slots(cluster, split, containers=True)  # containers: the scheduler's own check follows
    check_simulations(((Run(workload, c.cluster if c.cluster is not None else cluster, c.scheduler, split, c.options).effort("compare"), len(seeds))
                       for c in made for split in list(splits) or [None]), "compare")
    specs = grid(workload, cluster, made, list(splits) or [None], seeds)
    return Comparison(workload.name, sweep(specs, executor, progress=progress, description=f"{len(specs)} simulations"))
