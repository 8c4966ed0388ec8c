"""`planner simulate`: one run of a workload on a cluster, from the command line."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from models.errors import InvalidInput
from planner.cli.choices import SCHEDULER_NAMES
from planner.cli.console import (
    JsonFlag,
    Section,
    attribute,
    check_output_file,
    emit,
    heartbeats_fit,
    parse_slots,
    progress_shown,
)
from planner.cli.options import (
    SIMULATION_FLAGS,
    ClusterOption,
    ConfigOption,
    ContainersOption,
    DelayOption,
    HadoopConfOption,
    HeartbeatOption,
    NetworkOption,
    ReadyNowOption,
    SimulationFlags,
    SlowstartOption,
    SparkConfOption,
    TaskTimeCvOption,
    WorkloadArgument,
    check_seed,
)

if TYPE_CHECKING:
    from models import Cluster, Workload
    from planner.plans.plan import Plan
    from planner.simulator.effort import SimulationEffort
    from planner.simulator.progress import Progress
    from planner.simulator.run import Run


def simulate_command(
    workload: WorkloadArgument,
    cluster: ClusterOption,
    scheduler: Annotated[
        str | None,
        typer.Option("--scheduler", "-s",
                     help=f"Scheduler: {', '.join(SCHEDULER_NAMES)}; default the --config file's, else fifo."),
    ] = None,
    config: ConfigOption = None,
    delay: DelayOption = None,
    slots: Annotated[
        str | None, typer.Option(help="MAP,REDUCE slot totals instead of the cluster's, e.g. 30,10.")
    ] = None,
    slowstart: SlowstartOption = None,
    task_time_cv: TaskTimeCvOption = None,
    containers: ContainersOption = False,
    heartbeat: HeartbeatOption = None,
    network: NetworkOption = False,
    hadoop_conf: HadoopConfOption = None,
    spark_conf: SparkConfOption = None,
    queue_map: Annotated[
        list[str] | None, typer.Option("--queue-map", help="--hadoop-conf: POOL=QUEUE or JOB=QUEUE (repeatable, or "
                                                           "comma-separated; *=QUEUE for the rest).")
    ] = None,
    plan: Annotated[
        Path | None, typer.Option("--plan", "-p", help="Run this plan (.json) as its exported Hadoop files "
                                                       "configure the cluster (see --target).")
    ] = None,
    target: Annotated[
        str, typer.Option("--target", help="--plan: mrv1 (the default), yarn-fair or yarn-capacity.")
    ] = "mrv1",
    ready_now: ReadyNowOption = False,
    seed: Annotated[int, typer.Option(help="Seed of block placement and task-time noise.")] = 0,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Result file to write (.json).")] = None,
    summary_only: Annotated[
        bool, typer.Option("--summary-only", help="-o: write the summary, settings and jobs, not the task attempts.")
    ] = False,
    json_output: JsonFlag = False,
) -> None:
    """Simulate a workload task by task on a cluster under a scheduler, as Hadoop's files
    configure it (--hadoop-conf, also a folder from `planner export`), or as a plan runs once
    applied (--plan).

    Example: planner simulate examples/nightly.yaml --cluster examples/cluster.yaml --scheduler fair --delay 15,15 -o result.json

    Example: planner simulate examples/nightly.yaml --cluster examples/cluster.yaml --config pools.yaml --seed 1

    Example: planner simulate trace.yaml -c cluster.yaml --hadoop-conf yarn-site.xml --hadoop-conf fair-scheduler.xml

    Example: planner simulate examples/nightly.yaml -c examples/cluster.yaml --plan plan.json --target mrv1

    Example: planner simulate examples/nightly.yaml -c examples/cluster.yaml --spark-conf spark-export/

    The result file is written a chunk of task records at a time; a long run shows its
    progress on stderr (simulated time, share of tasks done, ETA).
    """
    from models.cluster import Cluster
    from models.workload import Workload
    from planner.io.hadoop.conf import hadoop_run
    from planner.io.results import write_result_json
    from planner.io.settings import simulation_settings
    from planner.simulator import simulate
    from planner.simulator.effort import check_simulation

    if summary_only and output is None:
        raise InvalidInput("--summary-only", "applies to the result file; give -o/--output")
    if output is not None and output.suffix.lower() != ".json":
        raise InvalidInput("--output", "simulation results are written as .json", source=str(output))
    check_output_file(output)
    check_seed(seed)
    split = parse_slots(slots)
    chosen_options = SimulationFlags.of(config, delay, slowstart, task_time_cv, containers, heartbeat, network)
    batch, given_cluster = Workload.from_file(workload), Cluster.from_file(cluster)
    try:
        machines = chosen_options.on(given_cluster)
        heartbeats_fit(batch.jobs, machines, [split], cluster_file=cluster,
                       flag="--heartbeat" if heartbeat is not None else None)
        chosen_plan = _read_plan(plan) if plan is not None else None
        made_for = chosen_plan.target if chosen_plan is not None else None
        if spark_conf or made_for == "spark" or (plan is not None and target == "spark"):
            run = _spark_run(chosen_plan, batch, given_cluster, spark_conf, target, ready_now, hadoop_conf,
                             queue_map, split, scheduler, config, chosen_options)
            label = f"spark {run.label}"
            with _progress(run.effort(), f"simulating {workload.name} ({label})") as progress:
                result = run.simulate(seed, progress=progress)
        elif plan is not None or hadoop_conf:
            sets = "--plan" if plan is not None else "--hadoop-conf"
            setting = [("--scheduler", scheduler is not None), ("--config", config is not None)]
            # a plan for a target runs in the configuration it was made from (--hadoop-conf)
            setting += ([("--slots", slots is not None), ("--hadoop-conf", bool(hadoop_conf) and made_for is None)]
                        if plan is not None else [])
            foreign = [] if plan is not None else [("--target", target != "mrv1"), ("--ready-now", ready_now)]
            foreign += [("--queue-map", bool(queue_map))] if plan is not None else []
            for flag, given in setting + foreign:
                if given:
                    raise InvalidInput(flag, f"does not go with {sets}" if (flag, given) in foreign
                                       else f"{sets} sets the scheduler and the slots; leave it out")
            if plan is not None and made_for is not None:
                run = _target_plan_run(chosen_plan, batch, given_cluster, target, made_for, hadoop_conf,
                                       chosen_options)
            elif plan is not None:
                run = _plan_run(chosen_plan, batch, given_cluster, machines, target, ready_now, chosen_options)
            else:
                from planner.io.hadoop.queue_map import parse_queue_map

                run = hadoop_run(hadoop_conf, batch, machines, delay=chosen_options.delay,
                                 queue_map=parse_queue_map(queue_map) if queue_map else None,
                                 **chosen_options.options)
                if split is not None:
                    if run.slots is not None:
                        raise InvalidInput("--slots", "the folder's slot groups set the slots; leave it out")
                    run = replace(run, slots=split)
            label = run.label
            with _progress(run.effort(), f"simulating {workload.name} ({label})") as progress:
                result = run.simulate(seed, progress=progress)
        else:
            if target != "mrv1" or ready_now:
                raise InvalidInput("--target" if target != "mrv1" else "--ready-now", "applies with --plan only")
            chosen, options = simulation_settings(config, scheduler, delay=chosen_options.delay,
                                                  **chosen_options.options)
            label = chosen.name
            effort = check_simulation(batch, machines, chosen, slots=split, options=options)
            with _progress(effort, f"simulating {workload.name} ({label})") as progress:
                result = simulate(batch, machines, chosen, seed=seed, slots=split, options=options, progress=progress)
    except InvalidInput as error:
        raise attribute(error, {**SIMULATION_FLAGS, "target": "--target", "queue_map": "--queue-map"}, workload=workload,
                        cluster=cluster) from None
    if output is not None:
        write_result_json(output, result, tasks=not summary_only)
    emit([Section("result", f"simulation of {workload.name} ({label})", [result.summary()], one=True),
          Section("waits", f"jobs held longest by a predecessor (at most {SHOWN_WAITS})", held_longest(result.jobs))],
         as_json=json_output)


#: How many of the jobs held by a predecessor `planner simulate` lists (the result file has them all).
SHOWN_WAITS = 20


def held_longest(records: list[dict]) -> list[dict]:
    """The jobs that waited for a predecessor (``held_by`` set: ready after their submit time), the
    longest waits (ready - submit) first, then by name; at most `SHOWN_WAITS`."""
    held = sorted((record for record in records if record["held_by"] is not None),
                  key=lambda record: (record["submit"] - record["ready"], record["name"]))
    return [{"job": record["name"], "submit": record["submit"], "ready": record["ready"],
             "held_by": record["held_by"], "start": record["start"], "finish": record["finish"]}
            for record in held[:SHOWN_WAITS]]


def _progress(effort: SimulationEffort, message: str) -> AbstractContextManager[Callable[[Progress], None]]:
    """`progress_shown` for a run estimated at ``effort``: a long one (`announcement`) says its
    estimate on stderr before it starts and its progress every `PROGRESS_SECONDS` after."""
    import sys

    from planner.simulator.effort import PROGRESS_SECONDS, announcement

    line = announcement(effort, message)
    if line is None:
        return progress_shown(message)
    print(line, file=sys.stderr, flush=True)
    return progress_shown(message, every=PROGRESS_SECONDS)


def _plan_run(chosen: Plan, batch: Workload, given: Cluster, machines: Cluster, target: str, ready_now: bool,
              chosen_options: SimulationFlags) -> Run:
    """The run of ``chosen`` as its exported files configure the cluster (``given``, the cluster
    file's, is the one the plan was made for; ``machines`` has the flags' changes)."""
    from planner.io.targets import plan_run
    from planner.simulator import with_options

    if not chosen.matches(batch, given):
        raise InvalidInput("--plan", "was made for another workload or cluster (fingerprints differ)")
    if chosen_options.delay is not None:
        raise InvalidInput("--delay", "a plan's exported scheduler has no delay scheduling")
    if target == "mrv1" and chosen_options.options.get("containers"):
        raise InvalidInput("--containers", "Hadoop 1 (--target mrv1) has typed slots; YARN targets run containers")
    return plan_run(chosen, batch, machines, target, ready_now=ready_now,
                    options=with_options(None, **chosen_options.options))


def _spark_run(chosen: Plan | None, batch: Workload, given: Cluster, spark_conf: list[Path] | None, target: str,
               ready_now: bool, hadoop_conf: list[Path] | None, queue_map: list[str] | None, split: object,
               scheduler: str | None, config: Path | None, chosen_options: SimulationFlags) -> Run:
    """`planner simulate --spark-conf` (Spark's files, or a folder `planner export --to spark` wrote)
    or ``--plan`` of a plan for spark: the jobs as Spark's scheduler runs them
    (`planner.io.spark.conf`); the files set the scheduler, the cluster file the executors."""
    from planner.io.spark.conf import spark_run
    from planner.io.spark.target import spark_plan_run

    given_flags = [("--scheduler", scheduler is not None), ("--config", config is not None),
                   ("--slots", split is not None), ("--hadoop-conf", bool(hadoop_conf)),
                   ("--queue-map", bool(queue_map)), ("--delay", chosen_options.delay is not None),
                   ("--heartbeat", chosen_options.heartbeat is not None),
                   *((flag, chosen_options.options.get(key) is not None) for key, flag in (
                       ("reduce_slowstart", "--slowstart"), ("task_time_cv", "--task-time-cv"),
                       ("containers", "--containers"), ("network", "--network")))]
    for flag, given_flag in given_flags:
        if given_flag:
            raise InvalidInput(flag, "does not go with Spark's files: they set the scheduler, the cluster file the "
                                     "executors")
    if chosen is None:
        if target != "mrv1" or ready_now:
            raise InvalidInput("--target" if target != "mrv1" else "--ready-now", "applies with --plan only")
        return spark_run(spark_conf or [], batch, given)
    if target not in ("mrv1", "spark") or (chosen.target not in (None, "spark")):
        made = chosen.target or "a slot plan"
        raise InvalidInput("--target", f"the plan was made for {made}; a plan for spark runs with --target spark")
    if not chosen.matches(batch, given):
        raise InvalidInput("--plan", "was made for another workload or cluster (fingerprints differ)")
    if ready_now:
        raise InvalidInput("--ready-now", "a plan runs on Spark as it was made; make it with --ready-now instead")
    return spark_plan_run(chosen, batch, given, spark_conf)


def _read_plan(path: Path) -> Plan:
    """The plan file given with --plan, read once."""
    from planner.plans.plan import Plan

    return Plan.from_file(path)


def _target_plan_run(chosen: Plan, batch: Workload, given: Cluster, target: str, made_for: str,
                     hadoop_conf: list[Path] | None, chosen_options: SimulationFlags) -> Run:
    """A plan for a target as it runs once applied (`planner.proof.validate.target_run`): its levers
    in the configuration it was made from (``hadoop_conf``, or the target's stock one)."""
    from planner.proof.validate import target_run

    if target not in ("mrv1", made_for):  # mrv1 is the option's default
        raise InvalidInput("--target", f"the plan was made for {made_for}; leave --target out or give {made_for}")
    if not chosen.matches(batch, given):
        raise InvalidInput("--plan", "was made for another workload or cluster (fingerprints differ)")
    if chosen_options.delay is not None or any(v is not None for v in chosen_options.options.values()):
        raise InvalidInput("--plan", "a plan for a target runs as its configuration says; leave the simulation "
                                     "options out")
    return target_run(chosen, batch, given, hadoop_conf)
