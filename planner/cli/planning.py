"""The verb that makes plans: plan (a thin shell over `planner.planning.make.make_plan`)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

# Only light modules here: `planner --help` must not import NumPy, scikit-learn, pyomo or the
# simulator (tests/test_layout.py); each command imports what it runs.
from models.checks import as_float, as_int
from models.errors import InvalidInput
from planner.cli.choices import SOLVER_CHOICES, TARGET_NAMES
from planner.cli.console import (
    JOBS_SHOWN,
    JsonFlag,
    Section,
    attribute,
    check_output_file,
    check_output_folder,
    emit,
    heartbeats_fit,
    jobs_section,
    steps_shown,
    working,
)
from planner.cli.options import (
    ClusterOption,
    ExecutorOption,
    HadoopConfOption,
    ReadyNowOption,
    SparkConfOption,
    WorkloadArgument,
    check_runs,
    check_seed,
    executor_of,
)
from planner.defaults import DEFAULT_K, DEFAULT_NOISE, DEFAULT_TARGET_RUNS, DEFAULT_TIME_LIMIT, ROBUST_RUNS
from planner.limits import MAX_K

if TYPE_CHECKING:
    from models.cluster import Cluster
    from models.workload import Workload
    from planner.plans.plan import Plan


class Strategy(StrEnum):
    slots = "slots"
    johnson = "johnson"
    slots_johnson = "slots+johnson"
    pairs = "pairs"
    packing = "packing"


class Objective(StrEnum):
    makespan = "makespan"
    max_lateness = "max_lateness"
    late_jobs = "late_jobs"
    mean_response = "mean_response"
    weighted_response = "weighted_response"
    window = "window"


#: `planner plan --target`: the targets a plan can be made for (the export targets, `TARGET_NAMES`).
PlanTarget = StrEnum("PlanTarget", [(name.replace("-", "_"), name) for name in TARGET_NAMES])


class SlotModel(StrEnum):
    fresh = "fresh"
    capped = "capped"


#: make_plan's option fields as the command line spells them; other fields are the files'.
_PLAN_OPTIONS = {"solver": "--solver", "time_limit": "--time-limit", "seed": "--seed", "k": "-k",
                 "model": "--model", "strategy": "--strategy", "robust": "--robust", "runs": "--runs",
                 "noise": "--noise", "executor": "--executor", "objective": "--objective",
                 "ready_now": "--ready-now", "window": "--window", "target": "--target",
                 "hadoop_conf": "--hadoop-conf", "paths": "--hadoop-conf", "queue_map": "--queue-map",
                 "spark_conf": "--spark-conf"}


def plan(
    workload: WorkloadArgument,
    cluster: ClusterOption,
    strategy: Annotated[
        Strategy, typer.Option(help="slots, johnson, slots+johnson (slot plans), pairs or packing (VM plans).")
    ] = Strategy.slots_johnson,
    k: Annotated[int, typer.Option("-k", help="Slot plans: the admission limit, jobs running at once.")] = DEFAULT_K,
    model: Annotated[
        SlotModel | None, typer.Option(help="Fluid model: fresh (paper; the default) or capped; --robust tries both.")
    ] = None,
    solver: Annotated[
        str | None,
        typer.Option(help=f"pairs/packing: solver method ({', '.join(SOLVER_CHOICES)}); default milp."),
    ] = None,
    time_limit: Annotated[float, typer.Option(help="pairs/packing: solver time limit in seconds.")] = DEFAULT_TIME_LIMIT,
    seed: Annotated[int, typer.Option(help="Random seed: the solver's (pairs/packing), the simulations' (--robust).")] = 0,
    robust: Annotated[
        bool, typer.Option("--robust", help="Slot plans: choose the best simulated p90 among near-optimal candidates.")
    ] = False,
    runs: Annotated[
        int | None, typer.Option(help=f"--robust, --target: simulated runs per candidate ({ROBUST_RUNS}, "
                                      f"{DEFAULT_TARGET_RUNS}).")
    ] = None,
    noise: Annotated[
        float, typer.Option(help="--robust, --target: bias bound of each job's times (1 + U[-noise, noise]).")
    ] = DEFAULT_NOISE,
    executor: ExecutorOption = "local",
    objective: Annotated[
        Objective, typer.Option(help="What the plan minimizes: makespan, max_lateness or late_jobs (deadlines: "
                                     "the jobs', else --window); with --target also mean_response, "
                                     "weighted_response, or window (the chance of finishing by --window).")
    ] = Objective.makespan,
    target: Annotated[
        PlanTarget | None, typer.Option(help="Plan for what runs it: mrv1, yarn-fair, yarn-capacity or spark, with that "
                                             "target's levers, chosen by simulating the configuration as exported.")
    ] = None,
    hadoop_conf: HadoopConfOption = None,
    spark_conf: SparkConfOption = None,
    queue_map: Annotated[
        list[str] | None, typer.Option("--queue-map", help="--target: POOL=QUEUE or JOB=QUEUE (repeatable, or "
                                                           "comma-separated; *=QUEUE for the rest).")
    ] = None,
    ready_now: ReadyNowOption = False,
    window: Annotated[
        float | None, typer.Option(help="The batch window's end (s, like submit times): the due date of jobs "
                                        "without a deadline.")
    ] = None,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Plan file to write (.json).")] = None,
    json_output: JsonFlag = False,
) -> None:
    """Plan a batch: a slot plan or a VM plan, with the predicted makespan.

    Slot plans use the jobs' arrivals (submit times) unless --ready-now; with arrivals or a
    deadline objective the order is solved as a two-stage flow shop with release dates.

    Slot plans: the split of the slots, the admission order and limit. VM plans: phases of jobs
    on VMs. --robust picks, among near-optimal slot plans, the best simulated p90 makespan.

    Example: planner plan examples/nightly.yaml --cluster examples/cluster.yaml --strategy slots+johnson -k 5 -o plan.json

    Example: planner plan examples/nightly.yaml --cluster examples/cluster.yaml --strategy packing --solver milp --time-limit 30

    Example: planner plan examples/nightly.yaml --cluster examples/cluster.yaml --robust --runs 20 -o plan.json
    """
    from models.cluster import Cluster
    from models.workload import Workload
    from planner.planning.make import make_plan
    from planner.plans.files import SLOT_STRATEGIES
    from solvers.base import MAX_TIME_LIMIT

    if output is not None and output.suffix.lower() != ".json":
        raise InvalidInput("--output", "plans are written as .json", source=str(output))
    check_output_file(output)
    if target is not None:
        _target_plan(workload, cluster, target.value, strategy=strategy, robust=robust, model=model, solver=solver,
                     k=k, time_limit=time_limit, seed=seed, runs=DEFAULT_TARGET_RUNS if runs is None else runs, noise=noise,
                     executor=executor, objective=objective.value, ready_now=ready_now, window=window,
                     hadoop_conf=hadoop_conf, queue_map=queue_map, output=output, json_output=json_output,
                     spark_conf=spark_conf)
        return
    for flag, given in (("--hadoop-conf", hadoop_conf), ("--spark-conf", spark_conf), ("--queue-map", queue_map)):
        if given:
            raise InvalidInput(flag, "applies with --target only")
    runs = ROBUST_RUNS if runs is None else runs
    if robust and model is not None:
        raise InvalidInput("--model", "--robust considers both fluid models; leave --model out")
    as_int(k, "-k", minimum=1, maximum=MAX_K)
    as_float(time_limit, "--time-limit", above=0.0, maximum=MAX_TIME_LIMIT)
    check_seed(seed)
    check_runs(runs)
    chosen_model = (model or SlotModel.fresh).value
    if not robust:
        for flag, given, default in (("--runs", runs, ROBUST_RUNS), ("--noise", noise, DEFAULT_NOISE),
                                     ("--executor", executor, "local")):
            if given != default:
                raise InvalidInput(flag, "applies with --robust or --target only")
    timing = {"objective": objective.value, "ready_now": ready_now, "window": window}
    batch, machines = Workload.from_file(workload), Cluster.from_file(cluster)
    if robust and strategy.value in SLOT_STRATEGIES:
        heartbeats_fit(batch.jobs, machines, [None], cluster_file=cluster)
    try:
        if robust:  # minutes of simulation: a progress bar, not a spinner
            made = make_plan(batch, machines, strategy.value, k=k, model=chosen_model, solver=solver,
                             time_limit=time_limit, seed=seed, robust=True, runs=runs, noise=noise,
                             executor=executor_of(executor), progress=True, **timing)
        elif strategy.value in SLOT_STRATEGIES:  # a day's fluid curves take minutes: their splits, an ETA
            with steps_shown(f"planning {workload.name} ({strategy.value}): fluid curve", "splits",
                             numbered=True) as heard:
                made = make_plan(batch, machines, strategy.value, k=k, model=chosen_model, solver=solver,
                                 time_limit=time_limit, seed=seed, progress=heard, **timing)
        else:
            with working(f"planning {workload.name} ({strategy.value})"):
                made = make_plan(batch, machines, strategy.value, k=k, model=chosen_model, solver=solver,
                                 time_limit=time_limit, seed=seed, **timing)
    except InvalidInput as error:
        raise attribute(error, _PLAN_OPTIONS, workload=workload, cluster=cluster) from None
    if output is not None:
        made.to_file(output)
    phases = made.phase_records(batch, machines) if made.phases else []
    emit([Section("plan", f"plan for {workload.name}", [made.summary()], one=True),
          Section("phases", f"phases of {workload.name} ({made.strategy}, run one after another)", phases),
          *_critical_sections(made, batch, machines, as_json=json_output),
          Section("timings", "wall time (s)", [{"plan": made.seconds}], one=True)],
         as_json=json_output)


def _critical_sections(made: Plan, batch: Workload, machines: Cluster, *, as_json: bool,
                         hadoop_conf: list[Path] | None = None) -> list[Section]:
    """A plan of a workload with dependencies: its critical path and each job's slack, the model's
    figure and the simulation's (`planner.planning.report.plan_critical_path`); none without."""
    if not batch.has_dependencies:
        return []
    from planner.planning.report import critical_sections, plan_critical_path

    with working("critical path: the plan run once"):
        path = plan_critical_path(made, batch, machines, hadoop_conf=hadoop_conf)
    return [Section(key, title, records, one=one)
            for key, title, records, one in critical_sections(path, shown=None if as_json else JOBS_SHOWN)]




def _target_plan(workload: Path, cluster: Path, target: str, *, strategy: Strategy, robust: bool,
                 model: SlotModel | None, solver: str | None, k: int, time_limit: float, seed: int, runs: int, noise: float,
                 executor: str, objective: str, ready_now: bool, window: float | None, hadoop_conf: list[Path] | None,
                 queue_map: list[str] | None, output: Path | None, json_output: bool,
                 spark_conf: list[Path] | None = None) -> None:
    """`planner plan --target`: `plan_for_target`, printed as the recommendation and why, the
    bounds, the candidates and baselines as simulated, and each job's predicted finish."""
    from models.cluster import Cluster
    from models.workload import Workload
    from planner.io.hadoop.queue_map import parse_queue_map
    from planner.planning.deploy import plan_for_target
    from planner.planning.report import target_sections

    for flag, given in (("--strategy", strategy != Strategy.slots_johnson), ("--robust", robust),
                        ("--model", model is not None), ("--solver", solver is not None), ("-k", k != DEFAULT_K),
                        ("--time-limit", time_limit != DEFAULT_TIME_LIMIT)):
        if given:
            raise InvalidInput(flag, "does not apply with --target: the target's levers are chosen by simulation")
    if spark_conf and target != "spark":
        raise InvalidInput("--spark-conf", f"applies with --target spark; {target} reads --hadoop-conf")
    if hadoop_conf and target == "spark":
        raise InvalidInput("--hadoop-conf", "--target spark reads Spark's files: give them with --spark-conf")
    check_seed(seed)
    check_runs(runs)
    batch, machines = Workload.from_file(workload), Cluster.from_file(cluster)
    try:
        mapping = parse_queue_map(queue_map) if queue_map else None
        made = plan_for_target(batch, machines, target, hadoop_conf=hadoop_conf, queue_map=mapping,
                               objective=objective, window=window, ready_now=ready_now, runs=runs, noise=noise,
                               seed=seed, executor=executor_of(executor), progress=True, spark_conf=spark_conf)
    except InvalidInput as error:
        raise attribute(error, _PLAN_OPTIONS, workload=workload, cluster=cluster) from None
    if output is not None:
        made.to_file(output)
    emit([jobs_section(key, title, records, as_json=json_output) if key == "jobs" else
          Section(key, title, records, one=one) for key, title, records, one in target_sections(made, workload.name)]
         + (_critical_sections(made, batch, machines, as_json=json_output, hadoop_conf=hadoop_conf)
            if target != "spark" else [])
         + [Section("timings", "wall time (s)", [{"plan": made.seconds}], one=True)], as_json=json_output)


#: `planner export --to`'s choices: the export targets' names (`TARGET_NAMES`).
Target = StrEnum("Target", [(name.replace("-", "_"), name) for name in TARGET_NAMES])


def export(
    plan_file: Annotated[Path, typer.Argument(metavar="PLAN", help="Plan file (.json) from `planner plan`.")],
    cluster: ClusterOption,
    target: Annotated[Target, typer.Option("--to", help="mrv1 (Hadoop 1), yarn-fair, yarn-capacity or spark.")],
    output: Annotated[Path, typer.Option("-o", "--output", help="Folder to write (new, or empty).")],
    workload: Annotated[
        Path | None, typer.Option("--workload", "-w", help="The plan's workload: submit jobs no earlier than "
                                                           "their submit times, and after the jobs they wait for "
                                                           "(after:). Without it: all at once, in order, and no "
                                                           "job waits: give it for a pipeline.")
    ] = None,
    ready_now: ReadyNowOption = False,
    hadoop_conf: HadoopConfOption = None,
    spark_conf: SparkConfOption = None,
    json_output: JsonFlag = False,
) -> None:
    """Write the Hadoop or Spark configuration that applies a plan: the scheduler's files, per-node slot
    counts, a submission script in the plan's order, and a README saying what goes where.

    A plan made with `planner plan --target` is merged into the configuration it was made from
    (--hadoop-conf, the same files; --spark-conf for spark; without: the target's stock
    configuration), with changes.diff against it.

    Example: planner export plan.json --cluster examples/cluster.yaml -w examples/nightly.yaml --to mrv1 -o hadoop-conf/

    Check it: planner simulate examples/nightly.yaml -c examples/cluster.yaml --hadoop-conf hadoop-conf/
    gives the same result as planner simulate examples/nightly.yaml -c examples/cluster.yaml --plan plan.json
    """
    from models.cluster import Cluster
    from models.workload import Workload
    from planner.io.targets import export_plan
    from planner.plans.plan import Plan

    check_output_folder(output)
    chosen = Plan.from_file(plan_file)
    machines = Cluster.from_file(cluster)
    batch = Workload.from_file(workload) if workload is not None else None
    try:
        current = None
        spark = target.value == "spark"
        if spark_conf and not spark:
            raise InvalidInput("--spark-conf", f"applies with --to spark; {target.value} reads --hadoop-conf")
        if hadoop_conf and spark:
            raise InvalidInput("--hadoop-conf", "--to spark merges into Spark's files: give them with --spark-conf")
        if spark_conf:
            from planner.io.spark.merge import read_spark_current

            current = read_spark_current(spark_conf)
        elif hadoop_conf:
            from planner.io.hadoop.merge import read_current

            current = read_current(hadoop_conf)
        names = export_plan(chosen, batch, machines, target.value, output, ready_now=ready_now, current=current)
    except InvalidInput as error:
        raise attribute(error, {"target": "--to", "ready_now": "--ready-now", "workload": "--workload",
                                "hadoop_conf": "--hadoop-conf", "paths": "--hadoop-conf",
                                "spark_conf": "--spark-conf"},
                        workload=workload,
                        cluster=cluster) from None
    emit([Section("files", f"{target.value} configuration in {output}", [{"file": name} for name in names])],
         as_json=json_output)
