"""The options commands share, defined once so that a flag means the same on every command.

The workload is the positional argument of every command that reads one; the cluster is
``--cluster/-c``; the simulation options of `planner simulate` (--config, --delay, --slowstart,
--task-time-cv, --containers, --heartbeat, --network) are taken by compare and sweep too, with the same
meaning; --seed, --runs, --noise and --executor are the same wherever randomness or many runs
enter.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from models.checks import as_int, shown
from models.errors import InvalidInput
from planner.cli.choices import SCHEDULER_NAMES
from planner.cli.console import parse_pair
from planner.limits import MAX_RUNS, MAX_SEED

if TYPE_CHECKING:
    from models.cluster import Cluster

WorkloadArgument = Annotated[Path, typer.Argument(metavar="WORKLOAD", help="Workload file (.yaml or .json).")]
ClusterOption = Annotated[Path, typer.Option("--cluster", "-c", help="Cluster file (.yaml or .json).")]
ExecutorOption = Annotated[
    str, typer.Option(help="Where runs go: local (a process per core), serial, or dask://HOST:PORT.")
]
SeedOption = Annotated[int, typer.Option(help="Seed of profile bias, block placement and task times.")]
#: compare and sweep: no profile bias, seeds counted up from this one for --runs.
SimulationSeedOption = Annotated[
    int, typer.Option(help="Seed of block placement and task-time noise; --runs counts up from it.")
]
RunsOption = Annotated[int, typer.Option(help="Simulated runs per configuration.")]
NoiseOption = Annotated[float, typer.Option(help="Bias bound: each job's times scaled by 1 + U[-noise, noise].")]
SchedulersOption = Annotated[
    list[str] | None,
    typer.Option("--scheduler", "-s",
                 help=f"Scheduler NAME or NAME:SETTINGS_FILE, repeatable; names: {', '.join(SCHEDULER_NAMES)}."),
]
SlotsListOption = Annotated[
    list[str] | None, typer.Option("--slots", help="MAP,REDUCE slot totals, repeatable (default: the cluster's).")
]
ConfigOption = Annotated[
    Path | None, typer.Option(help="Scheduler settings file (.yaml or .json): pools, queues, delay, preemption, options.")
]
DelayOption = Annotated[str | None, typer.Option(help="Delay scheduling NODE_WAIT,RACK_WAIT in seconds, e.g. 15,15.")]
SlowstartOption = Annotated[
    float | None, typer.Option(help="Fraction of a job's maps done before its reduces launch (default 1.0).")
]
TaskTimeCvOption = Annotated[
    float | None, typer.Option(help="Coefficient of variation of task times (default 0: deterministic).")
]
ContainersOption = Annotated[bool, typer.Option("--containers", help="Flexible containers that run maps or reduces.")]
HadoopConfOption = Annotated[
    list[Path] | None,
    typer.Option("--hadoop-conf", help="Hadoop configuration file, repeatable: mapred-site.xml, yarn-site.xml, a fair "
                                       "scheduler allocation file, capacity-scheduler.xml, SLS's nodes .json. "
                                       "Simulates the cluster as configured (its scheduler, slots, nodes); "
                                       "a folder from `planner export` too.")
]
SparkConfOption = Annotated[
    list[Path] | None,
    typer.Option("--spark-conf", help="Spark's files, repeatable: spark-defaults.conf and fairscheduler.xml, or a "
                                      "folder from `planner export --to spark`. Simulates the jobs as Spark's "
                                      "scheduler runs them.")
]
ReadyNowOption = Annotated[
    bool, typer.Option("--ready-now", help="Every job is ready at the start: ignore the submit times.")
]
NetworkOption = Annotated[
    bool, typer.Option("--network", help="Move jobs' bytes over the cluster's links (remote reads, the shuffle).")
]
HeartbeatOption = Annotated[
    float | None, typer.Option(help="Heartbeat in seconds instead of the cluster's (0: offer slots at once).")
]

#: Simulation option fields (as the library names them) and the flags that set them.
SIMULATION_FLAGS = {"scheduler": "--scheduler", "delay": "--delay", "slots": "--slots", "seed": "--seed",
                    "reduce_slowstart": "--slowstart", "task_time_cv": "--task-time-cv",
                    "containers": "--containers", "copy_compute": "--containers", "heartbeat": "--heartbeat",
                    "config": "--config", "network": "--network", "hadoop_conf": "--hadoop-conf",
                    "paths": "--hadoop-conf", "spark_conf": "--spark-conf"}  # read_hadoop_conf's parameter


@dataclass(frozen=True)
class SimulationFlags:
    """The simulation options of a command line, as the library takes them."""

    config: Path | None
    delay: tuple[float, float] | None
    options: dict[str, Any]
    heartbeat: float | None

    @classmethod
    def of(cls, config: Path | None, delay: str | None, slowstart: float | None, task_time_cv: float | None,
           containers: bool, heartbeat: float | None, network: bool = False) -> SimulationFlags:
        return cls(config, parse_pair(delay, "--delay", float, "15,15"),
                   {"reduce_slowstart": slowstart, "task_time_cv": task_time_cv,
                    "containers": True if containers else None, "network": True if network else None}, heartbeat)

    def on(self, cluster: Cluster) -> Cluster:
        """The cluster with --heartbeat applied."""
        return cluster if self.heartbeat is None else cluster.with_changes(heartbeat=self.heartbeat)


def executor_of(text: str) -> str | None:
    """The `sweep` executor an --executor value names ("local" is the default process pool)."""
    if text == "local":
        return None
    if text == "serial" or text.startswith(("dask://", "tcp://")):
        return text
    raise InvalidInput("--executor", f"must be local, serial or dask://HOST:PORT, got {shown(text)}")


def check_runs(runs: int) -> int:
    """--runs within `MAX_RUNS` (the library checks the least each command needs)."""
    return as_int(runs, "--runs", maximum=MAX_RUNS)


def check_seed(seed: int, runs: int = 1) -> int:
    """--seed in 0..`MAX_SEED`, and so are the seeds counted up from it (seed + runs - 1)."""
    as_int(seed, "--seed", minimum=0, maximum=MAX_SEED)
    if seed + runs - 1 > MAX_SEED:
        raise InvalidInput("--seed", f"the seeds {seed}..{seed + runs - 1} pass {MAX_SEED}")
    return seed
