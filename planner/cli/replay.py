"""The `planner replay` verb: a recorded run through the simulator (a thin shell over
`planner.proof.replay`)."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

# Only light modules here: `planner --help` must not import NumPy or the simulator.
from models.errors import InvalidInput
from planner.cli.choices import SCHEDULER_NAMES
from planner.cli.console import JsonFlag, Section, attribute, check_output_folder, emit, working
from planner.cli.options import HeartbeatOption, check_seed

if TYPE_CHECKING:
    from planner.io.rumen_attempts import RecordedJob
    from planner.io.spark.records import SparkApplication


class ReplayFormat(StrEnum):
    rumen = "rumen"
    sls = "sls"
    spark = "spark"


#: The columns of the terminal's job table (JSON and -o have every field of the report).
SHOWN = ("job", "maps", "reduces", "unexplained_wait", "recorded", "simulated", "error", "adjusted_error")


def replay_command(
    trace: Annotated[ReplayFormat, typer.Argument(metavar="FORMAT", help="Trace format: rumen, sls or spark.")],
    file: Annotated[Path, typer.Argument(metavar="FILE", help="The trace file (spark: an event log, a file or a "
                                                              "rolling eventlog_v2_* folder).")],
    cluster: Annotated[
        Path | None,
        typer.Option("--cluster", "-c", help="Cluster file (.yaml or .json); default: the cluster the trace ran on."),
    ] = None,
    scheduler: Annotated[
        str | None, typer.Option("--scheduler", "-s", help=f"Scheduler: {', '.join(SCHEDULER_NAMES)}; default: the "
                                                           "recorded one (spark), else fifo.")
    ] = None,
    heartbeat: HeartbeatOption = None,
    spark_conf: Annotated[
        list[Path] | None,
        typer.Option("--spark-conf", help="spark: the application's fairscheduler.xml (or a folder holding it), for "
                                          "its pools' mode, weight and minShare: the log names the file but does not "
                                          "hold it."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of block placement (clusters of more than 32 nodes).")] = 0,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Folder for replay.csv and replay.json.")
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Replay a recorded run: its jobs, with each task's recorded time, in the simulator.

    Prints recorded against simulated runtime per job (each from the job's first task
    attempt), the median and worst absolute error, and the jobs whose waits the trace does not
    explain (a clock effect, a start-up or a wait with recorded slots free); with -o, writes
    replay.csv and replay.json.

    Example: planner replay rumen tests/data/2jobs2min-rumen-jh.json -o replay/
    """
    from models.cluster import Cluster
    from planner.proof.replay import replay

    check_output_folder(output)
    check_seed(seed)
    machines = None if cluster is None else Cluster.from_file(cluster)
    pools = None
    if spark_conf:
        if trace is not ReplayFormat.spark:
            raise InvalidInput("--spark-conf", "is a Spark application's allocation file: only for replay spark")
        from planner.io.spark.conf import read_spark_conf

        pools = read_spark_conf(spark_conf).pools
    try:
        with working(f"replaying {file.name}"):
            report = replay(_read(trace, file), machines, scheduler, seed=seed, heartbeat=heartbeat,
                            source=str(file), pools=pools)
    except InvalidInput as error:
        flags = {"scheduler": "--scheduler", "heartbeat": "--heartbeat", "seed": "--seed"}
        raise attribute(error, flags, workload=file, cluster=cluster) from None
    if output is not None:
        report.write(output)
    jobs = report.jobs if json_output else [{key: job[key] for key in SHOWN} for job in report.jobs]
    emit([Section("jobs", f"replay of {file.name}: recorded against simulated runtime (s)", jobs),
          Section("errors", f"absolute error over {len(report.jobs)} jobs", report.errors()),
          Section("unexplained", "waits the trace does not explain", report.unexplained()),
          Section("cluster", "the cluster replayed on", [{"scheduler": report.scheduler, **report.cluster}], one=True),
          Section("notes", "what the replay leaves out", [{"note": note} for note in report.notes])],
         as_json=json_output)


def _read(trace: ReplayFormat, file: Path) -> Sequence[RecordedJob] | SparkApplication:
    """The recorded run in ``file``, read by `planner.io`'s reader of its format."""
    if trace is ReplayFormat.sls:
        from planner.io.sls_jobs import read_sls_jobs

        return read_sls_jobs(file)
    if trace is ReplayFormat.spark:
        from planner.io.spark.logs import read_spark_application

        return read_spark_application(file)
    from planner.io.rumen_attempts import read_rumen_attempts

    return read_rumen_attempts(file)
