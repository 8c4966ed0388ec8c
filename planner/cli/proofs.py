"""The `planner` verbs that prove plans: validate, compare, sweep and demo (thin shells over
`planner.proof.validate`, `planner.proof.compare`, `planner.proof.report` and
`planner.examples.demo`)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from models.checks import as_int
from models.errors import InvalidInput
from models.fileio import csv_text, write_atomic
from planner.cli.console import (
    JsonFlag,
    Section,
    attribute,
    check_output_file,
    check_output_folder,
    emit,
    exits_cleanly,
    heartbeats_fit,
    jobs_section,
    parse_slots,
)
from planner.cli.options import (
    SIMULATION_FLAGS,
    ClusterOption,
    ConfigOption,
    ContainersOption,
    DelayOption,
    ExecutorOption,
    HadoopConfOption,
    HeartbeatOption,
    NetworkOption,
    NoiseOption,
    RunsOption,
    SchedulersOption,
    SeedOption,
    SimulationFlags,
    SimulationSeedOption,
    SlotsListOption,
    SlowstartOption,
    TaskTimeCvOption,
    WorkloadArgument,
    check_runs,
    check_seed,
    executor_of,
)
from planner.cli.simulating import simulate_command
from planner.defaults import (
    AUTO_MAX_RUNS,
    AUTO_MIN_RUNS,
    AUTO_MIN_RUNS_LARGE,
    AUTO_PRECISION,
    CURVE_SPLITS,
    DEFAULT_NOISE,
    DEFAULT_RUNS,
    LARGE_BATCH_TASKS,
)
from planner.limits import MAX_RUNS

if TYPE_CHECKING:
    from models.cluster import Cluster
    from models.workload import Workload
    from planner.proof.compare import Comparison
    from planner.proof.validate import ValidationReport


def _inputs(workload: Path, cluster: Path) -> tuple[Workload, Cluster]:
    from models.cluster import Cluster
    from models.workload import Workload

    return Workload.from_file(workload), Cluster.from_file(cluster)


_VALIDATE_OPTIONS = {"runs": "--runs", "min_runs": "--min-runs", "max_runs": "--max-runs", "precision": "--precision",
                     "antithetic": "--antithetic", "curve_splits": "--curve-splits",
                     "noise": "--noise", "seed": "--seed", "executor": "--executor",
                     "target": "--target", "hadoop_conf": "--hadoop-conf", "paths": "--hadoop-conf"}
_COMPARE_OPTIONS = {**SIMULATION_FLAGS, "seeds": "--seed", "executor": "--executor"}


def validate_command(
    workload: WorkloadArgument,
    cluster: ClusterOption,
    plan: Annotated[Path, typer.Option("--plan", "-p", help="Plan file (.json) from `planner plan`.")],
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Report folder: report.md, report.html, figures, JSON.")
    ] = None,
    runs: Annotated[
        str, typer.Option(help="Simulated runs per configuration: 'auto' (rounds of runs until every comparison "
                               "with a baseline is settled, between --min-runs and --max-runs) or a number.")
    ] = "auto",
    min_runs: Annotated[
        int | None, typer.Option(help=f"--runs auto: the first round's runs. Default: {AUTO_MIN_RUNS}, or "
                                      f"{AUTO_MIN_RUNS_LARGE} for a batch of more than {LARGE_BATCH_TASKS:,} tasks.")
    ] = None,
    max_runs: Annotated[int, typer.Option(help="--runs auto: the most runs.")] = AUTO_MAX_RUNS,
    precision: Annotated[
        float, typer.Option(help="--runs auto: a comparison whose interval is narrower than this share of "
                                 "the mean (half-width) is settled as no clear difference.")
    ] = AUTO_PRECISION,
    antithetic: Annotated[
        bool | None, typer.Option("--antithetic/--independent",
                                  help="Runs in mirrored pairs (each job 1 + u, then 1 - u): less variance per run. "
                                       "Default: antithetic with --runs auto, independent with a number.")
    ] = None,
    curve_splits: Annotated[
        int | None, typer.Option(help="Other slot splits simulated for the makespan-vs-map-slots figure (slot plans). "
                                      f"Default: {CURVE_SPLITS}, none for a batch of more than "
                                      f"{LARGE_BATCH_TASKS:,} tasks.")
    ] = None,
    noise: NoiseOption = DEFAULT_NOISE,
    seed: SeedOption = 0,
    hadoop_conf: HadoopConfOption = None,
    target: Annotated[
        str | None, typer.Option(help="The export whose run is the plan's variant: mrv1 (default), yarn-fair or "
                                      "yarn-capacity; a plan made with --target is validated for its own.")
    ] = None,
    executor: ExecutorOption = "local",
    json_output: JsonFlag = False,
) -> None:
    """Prove a plan: simulate it many times under profile bias, against the baselines.

    Baselines: Fair 1:3, 2:2, 3:1 and FIFO for slot plans, and with --hadoop-conf the cluster
    as configured (its own scheduler, slots and nodes); sequential execution for VM plans.
    A folder written by `planner export` among --hadoop-conf runs as the plan's variant.
    A plan made with --target is validated as it was chosen: its configuration as exported
    (from the files it was made from, --hadoop-conf) against the configuration as it is, FIFO
    and Fair, on its objective; with the same --runs (a number), --noise and --seed its mean is
    the figure `planner plan` printed.
    --runs auto (the default) runs in rounds (10, 16, 24, 36, ... up to --max-runs; 4, 6, 10, ... for a
    batch of more than a million tasks) and stops when
    each comparison with a baseline is settled: its interval excludes zero (held to 1 - 0.05 /
    rounds per look), or is narrower than --precision of the mean. It prints how many runs it made and why it stopped.
    Prints predicted against simulated makespans; with -o, writes the report (Markdown, HTML
    with the figures embedded, PNG figures, validation.json).

    Example: planner validate examples/nightly.yaml --cluster examples/cluster.yaml --plan plan.json -o report/
    """
    from planner.plans.plan import Plan
    from planner.proof.adaptive import AutoRuns, runs_choice
    from planner.proof.validate import example_run, validate

    check_output_folder(output)
    try:
        chosen = runs_choice(runs)
        if isinstance(chosen, AutoRuns):
            chosen = AutoRuns(min_runs=min_runs, max_runs=max_runs, precision=precision)
    except InvalidInput as error:
        raise attribute(error, _VALIDATE_OPTIONS) from None
    made, (batch, machines) = Plan.from_file(plan), _inputs(workload, cluster)
    check_seed(seed)
    if not made.phases:  # a slot plan runs task by task, with heartbeats
        heartbeats_fit(batch.jobs, machines, [(made.map_slots, made.reduce_slots)], cluster_file=cluster)
    try:
        report = validate(made, batch, machines, runs=chosen, noise=noise, seed=seed, executor=executor_of(executor),
                          progress=True, hadoop_conf=hadoop_conf, target=target, antithetic=antithetic,
                          curve_splits=curve_splits)
        example = example_run(made, batch, machines, seed=seed, hadoop_conf=hadoop_conf) if output is not None else None
    except InvalidInput as error:
        raise attribute(error, _VALIDATE_OPTIONS, plan=plan) from None
    if output is not None:
        from planner.proof.report import write_report

        write_report(report, output, example=example, title=f"Validation of {plan.name} on {workload.name}")
    measure = "makespan (seconds)" if report.metric == "makespan" else f"{made.objective} ({report.metric})"
    versus = (f"the plan's figure when it was made (predicted: simulated then, seed {made.simulated['seed']}) "
              f"against this validation's {measure}" if report.kind == "target" else
              f"predicted against simulated {measure}")
    sections = [Section("validation", f"validation of {plan.name}", [report.summary()], one=True),
                Section("setups", versus, report.brief()),
                Section("paired", f"the plan against each baseline, run for run (difference = baseline - plan, "
                                  f"{report.metric})", report.paired)]
    if report.stopping is not None:
        stopping = report.stopping
        sections.append(Section("stopping", f"--runs auto: {stopping['runs']} runs in {len(stopping['rounds'])} "
                                            f"round(s) ({', '.join(str(n) for n in stopping['rounds'])}); "
                                            f"{stopping['reason']}", stopping["looks"]))
    if report.jobs_outcome:
        sections.append(jobs_section("jobs", "each job under the plan: mean finish, lateness, fraction of runs late",
                                     report.jobs_outcome, as_json=json_output))
    emit([*sections, *_critical_section(report, as_json=json_output),
          Section("timings", "wall time (s)", [{"validation": report.seconds}], one=True)], as_json=json_output)


def _critical_section(report: ValidationReport, *, as_json: bool) -> list[Section]:
    """A workload with dependencies: which jobs delayed the end over the plan's runs (every job
    that was on a simulated critical chain in JSON; the `CRITICAL_SHOWN` most often on one on a
    terminal); none without."""
    from planner.proof.report import CRITICAL_SHOWN

    records = report.critical_jobs
    if not records:
        return []
    more = "" if as_json or len(records) <= CRITICAL_SHOWN else (
        f"; the {CRITICAL_SHOWN} most often of {len(records):,} (--json gives every one)")
    return [Section("critical", f"which jobs delay the end: over the plan's {report.runs} runs, on the simulated "
                                f"critical chain, holding the last job (binding_last), finishing last{more}",
                    records if as_json else records[:CRITICAL_SHOWN])]


def _splits(slots: list[str] | None) -> list[tuple[int, int] | None]:
    return [parse_slots(text) for text in slots] if slots else [None]


def _seeds(seed: int, runs: int) -> list[int]:
    as_int(runs, "--runs", minimum=1, maximum=MAX_RUNS)
    return list(range(check_seed(seed, runs), seed + runs))


def _compared(workload: Path, cluster: Path, scheduler: list[str] | None, slots: list[str] | None, seed: int,
              runs: int, executor: str, simulation: SimulationFlags, hadoop_conf: list[Path] | None = None
              ) -> Comparison:
    from planner.proof.compare import compare, configurations, configured

    seeds, splits = _seeds(seed, runs), _splits(slots)  # before reading anything
    batch, machines = _inputs(workload, cluster)
    try:
        machines = simulation.on(machines)
        heartbeats_fit(batch.jobs, machines, splits, cluster_file=cluster,
                       flag="--heartbeat" if simulation.heartbeat is not None else None)
        chosen = configurations(scheduler or [], config=simulation.config, delay=simulation.delay,
                                **simulation.options) if scheduler or not hadoop_conf else []
        if hadoop_conf:
            chosen.append(configured(hadoop_conf, machines, delay=simulation.delay, **simulation.options))
        return compare(batch, machines, chosen, splits=splits, seeds=seeds, executor=executor_of(executor),
                       progress=True)
    except InvalidInput as error:
        raise attribute(error, _COMPARE_OPTIONS, workload=workload, cluster=cluster) from None


def compare_command(
    workload: WorkloadArgument,
    cluster: ClusterOption,
    scheduler: SchedulersOption = None,
    slots: SlotsListOption = None,
    runs: Annotated[int, typer.Option(help="Seeds per configuration (seed, seed + 1, ...).")] = 1,
    seed: SimulationSeedOption = 0,
    config: ConfigOption = None,
    delay: DelayOption = None,
    slowstart: SlowstartOption = None,
    task_time_cv: TaskTimeCvOption = None,
    containers: ContainersOption = False,
    heartbeat: HeartbeatOption = None,
    network: NetworkOption = False,
    hadoop_conf: HadoopConfOption = None,
    executor: ExecutorOption = "local",
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Folder for comparison.png, comparison.csv and .json.")
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Run several schedulers or configurations on the same workload side by side.

    Prints a table; with -o, also writes a figure (makespan and mean response time) and the
    records as CSV and JSON. The simulation options (--config, --delay, --slowstart,
    --task-time-cv, --containers, --heartbeat) apply to every configuration, as in simulate.
    With --hadoop-conf the cluster as Hadoop's files configure it is one more configuration,
    "as configured".

    Example: planner compare examples/nightly.yaml --cluster examples/cluster.yaml --scheduler fifo --scheduler fair --scheduler fresh -o compare/
    """
    check_output_folder(output)
    simulation = SimulationFlags.of(config, delay, slowstart, task_time_cv, containers, heartbeat, network)
    result = _compared(workload, cluster, scheduler, slots, seed, runs, executor, simulation, hadoop_conf)
    if output is not None:
        result.write(output)
    emit([Section("configurations", f"comparison on {workload.name}",
                  result.table() if json_output else result.brief())], as_json=json_output)


def sweep_command(
    workload: WorkloadArgument,
    cluster: ClusterOption,
    scheduler: SchedulersOption = None,
    slots: SlotsListOption = None,
    runs: Annotated[int, typer.Option(help="Seeds per (scheduler, split): seed, seed + 1, ...")] = 5,
    seed: SimulationSeedOption = 0,
    config: ConfigOption = None,
    delay: DelayOption = None,
    slowstart: SlowstartOption = None,
    task_time_cv: TaskTimeCvOption = None,
    containers: ContainersOption = False,
    heartbeat: HeartbeatOption = None,
    network: NetworkOption = False,
    hadoop_conf: HadoopConfOption = None,
    executor: ExecutorOption = "local",
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Every run as a record: .csv or .json.")
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Simulate a grid of (scheduler, slot split, seed), locally or on a Dask cluster.

    The records are the same on every executor for the same seeds. Prints the means per
    (scheduler, split); -o writes every run. The simulation options apply to every run, as in
    simulate.

    Example: planner sweep examples/nightly.yaml --cluster examples/cluster.yaml -s fifo -s fair --slots 8,24 --slots 16,16 --runs 10 --executor dask://scheduler:8786 -o runs.csv
    """
    if output is not None and output.suffix.lower() not in (".csv", ".json"):
        raise InvalidInput("--output", "sweep results are written as .csv or .json", source=str(output))
    check_output_file(output)
    clock = time.perf_counter()
    simulation = SimulationFlags.of(config, delay, slowstart, task_time_cv, containers, heartbeat, network)
    result = _compared(workload, cluster, scheduler, slots, seed, runs, executor, simulation, hadoop_conf)
    if output is not None:
        text = csv_text(result.runs) if output.suffix.lower() == ".csv" else json.dumps(result.runs, indent=1) + "\n"
        write_atomic(output, text)
    title = f"sweep of {workload.name}: {len(result.runs)} runs in {time.perf_counter() - clock:.1f} s"
    emit([Section("configurations", title, result.table() if json_output else result.brief())], as_json=json_output)


def demo_command(
    output: Annotated[Path, typer.Option("-o", "--output", help="Report folder.")] = Path("out"),
    runs: RunsOption = DEFAULT_RUNS,
    noise: NoiseOption = DEFAULT_NOISE,
    seed: SeedOption = 0,
    executor: ExecutorOption = "local",
    json_output: JsonFlag = False,
) -> None:
    """Plan tonight's bundled batch for YARN and for Hadoop 1, prove the YARN plan, write out/report.html.

    The batch: 40 jobs of the SWIM FB-2009 trace on 20 nodes (80 slots). Each plan is made for its
    target (yarn-fair on the mean response, mrv1 on the makespan), chosen by simulating the
    configuration it exports against the configuration as it is, FIFO and Fair; the recommendation,
    why, and the bound no schedule beats are printed. The YARN plan is validated on a fresh sample.

    Example: planner demo -o out
    """
    from planner.examples.demo import DEMO_CLUSTER, run_demo
    from planner.proof.report import write_report

    check_output_folder(output)
    check_runs(runs)
    check_seed(seed)
    try:
        result = run_demo(runs=runs, noise=noise, seed=seed, executor=executor_of(executor), progress=True)
    except InvalidInput as error:
        raise attribute(error, _VALIDATE_OPTIONS) from None
    written = write_report(result.report, output, example=result.example,
                           title=f"Tonight's plan for {result.workload.name} on {DEMO_CLUSTER.nodes} nodes")
    report = [{"file": str(path)} for path in written.values()]
    sections = [Section(key, title, rows, one=key != "setups") for key, title, rows in result.sections()]
    emit([*sections, Section("report", "report", report),
          Section("timings", "wall time (s)", [result.timings()], one=True)], as_json=json_output)


def register(app: typer.Typer) -> None:
    """Add these verbs to the `planner` command."""
    for name, function in (("simulate", simulate_command), ("validate", validate_command),
                           ("compare", compare_command), ("sweep", sweep_command), ("demo", demo_command)):
        app.command(name)(exits_cleanly(function))
