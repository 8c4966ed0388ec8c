"""The `planner` verbs that prove plans: validate, compare, sweep and demo (thin shells over
`planner.validate`, `planner.compare`, `planner.report` and `planner.demo`)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated

import typer

from models import Cluster, InvalidInput, Workload
from models.checks import as_int, shown
from models.fileio import csv_text, write_atomic
from planner.compare import Comparison, compare, configurations
from planner.console import JsonFlag, attribute, emit, exits_cleanly, heartbeats_fit, not_a_folder, parse_slots
from planner.demo import DEMO_CLUSTER, run_demo
from planner.limits import MAX_RUNS, MAX_SEED
from planner.plan import Plan
from planner.simulator import SCHEDULERS
from planner.validate import DEFAULT_NOISE, DEFAULT_RUNS, example_run, validate

ExecutorOption = Annotated[
    str, typer.Option(help="Where runs go: local (a process per core), serial, or dask://HOST:PORT.")
]
SeedOption = Annotated[int, typer.Option(help="Seed of profile bias, block placement and task times.")]
RunsOption = Annotated[int, typer.Option(help="Simulated runs per configuration.")]
NoiseOption = Annotated[float, typer.Option(help="Bias bound: each job's times scaled by 1 + U[-noise, noise].")]
SchedulerOption = Annotated[
    list[str],
    typer.Option("--scheduler", "-s",
                 help=f"Scheduler NAME or NAME:SETTINGS_FILE, repeatable; names: {', '.join(sorted(SCHEDULERS))}."),
]
SlotsOption = Annotated[
    list[str] | None, typer.Option("--slots", help="MAP,REDUCE slot totals, repeatable (default: the cluster's).")
]


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


def _check_folder(path: Path | None) -> None:
    """Before any work: an output folder must not be a file."""
    if path is not None and path.exists() and not path.is_dir():
        raise InvalidInput("--output", "is a file; give a folder to write into", source=str(path))


def _inputs(workload: Path, cluster: Path) -> tuple[Workload, Cluster]:
    return Workload.from_file(workload), Cluster.from_file(cluster)


_VALIDATE_OPTIONS = {"runs": "--runs", "noise": "--noise", "seed": "--seed", "executor": "--executor"}
_COMPARE_OPTIONS = {"scheduler": "--scheduler", "slots": "--slots", "seeds": "--seed", "executor": "--executor"}


def validate_command(
    plan: Annotated[Path, typer.Argument(help="Plan file (.json) from `planner plan`.")],
    workload: Annotated[Path, typer.Option("--workload", "-w", help="The workload the plan was made for.")],
    cluster: Annotated[Path, typer.Option("--cluster", "-c", help="The cluster the plan was made for.")],
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Report folder: report.md, report.html, figures, JSON.")
    ] = None,
    runs: RunsOption = DEFAULT_RUNS,
    noise: NoiseOption = DEFAULT_NOISE,
    seed: SeedOption = 0,
    executor: ExecutorOption = "local",
    json_output: JsonFlag = False,
) -> None:
    """Prove a plan: simulate it many times under profile bias, against the baselines.

    Baselines: Fair 1:3, 2:2, 3:1 and FIFO for slot plans; sequential execution for VM plans.
    Prints predicted against simulated makespans; with -o, writes the report (Markdown, HTML
    with the figures embedded, PNG figures, validation.json).

    Example: planner validate plan.json --workload examples/nightly.yaml --cluster examples/cluster.yaml -o report/
    """
    _check_folder(output)
    check_runs(runs)
    check_seed(seed)
    made, (batch, machines) = Plan.from_file(plan), _inputs(workload, cluster)
    if not made.phases:  # a slot plan runs task by task, with heartbeats
        heartbeats_fit(batch.jobs, machines, [(made.map_slots, made.reduce_slots)], cluster_file=cluster)
    try:
        report = validate(made, batch, machines, runs=runs, noise=noise, seed=seed, executor=executor_of(executor),
                          progress=True)
        example = example_run(made, batch, machines, seed=seed) if output is not None else None
    except InvalidInput as error:
        raise attribute(error, _VALIDATE_OPTIONS, plan=plan) from None
    if output is not None:
        from planner.report import write_report

        write_report(report, output, example=example, title=f"Validation of {plan.name} on {workload.name}")
    emit({f"validation of {plan.name}": [report.summary()], "predicted against simulated makespan (seconds)": report.brief()},
         as_json=json_output)


def _splits(slots: list[str] | None) -> list[tuple[int, int] | None]:
    return [parse_slots(text) for text in slots] if slots else [None]


def _seeds(seed: int, runs: int) -> list[int]:
    as_int(runs, "--runs", minimum=1, maximum=MAX_RUNS)
    return list(range(check_seed(seed, runs), seed + runs))


def _compared(workload: Path, cluster: Path, scheduler: list[str] | None, slots: list[str] | None, seed: int,
              runs: int, executor: str) -> Comparison:
    seeds, splits = _seeds(seed, runs), _splits(slots)  # before reading anything
    batch, machines = _inputs(workload, cluster)
    heartbeats_fit(batch.jobs, machines, splits, cluster_file=cluster)
    try:
        return compare(batch, machines, configurations(scheduler or ["fifo"]), splits=splits,
                       seeds=seeds, executor=executor_of(executor), progress=True)
    except InvalidInput as error:
        raise attribute(error, _COMPARE_OPTIONS, workload=workload, cluster=cluster) from None


def compare_command(
    workload: Annotated[Path, typer.Argument(help="Workload file (.yaml or .json).")],
    cluster: Annotated[Path, typer.Option("--cluster", "-c", help="Cluster file (.yaml or .json).")],
    scheduler: SchedulerOption = None,  # type: ignore[assignment]
    slots: SlotsOption = None,
    runs: Annotated[int, typer.Option(help="Seeds per configuration (seed, seed + 1, ...).")] = 1,
    seed: SeedOption = 0,
    executor: ExecutorOption = "local",
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Folder for comparison.png, comparison.csv and .json.")
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Run several schedulers or configurations on the same workload side by side.

    Prints a table; with -o, also writes a figure (makespan and mean response time) and the
    records as CSV and JSON.

    Example: planner compare examples/nightly.yaml --cluster examples/cluster.yaml --scheduler fifo --scheduler fair --scheduler fresh -o compare/
    """
    _check_folder(output)
    result = _compared(workload, cluster, scheduler, slots, seed, runs, executor)
    if output is not None:
        result.write(output)
    emit({f"comparison on {workload.name}": result.table() if json_output else result.brief()}, as_json=json_output)


def sweep_command(
    workload: Annotated[Path, typer.Argument(help="Workload file (.yaml or .json).")],
    cluster: Annotated[Path, typer.Option("--cluster", "-c", help="Cluster file (.yaml or .json).")],
    scheduler: SchedulerOption = None,  # type: ignore[assignment]
    slots: SlotsOption = None,
    runs: Annotated[int, typer.Option(help="Seeds per (scheduler, split): seed, seed + 1, ...")] = 5,
    seed: SeedOption = 0,
    executor: ExecutorOption = "local",
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Every run as a record: .csv or .json.")
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Simulate a grid of (scheduler, slot split, seed), locally or on a Dask cluster.

    The records are the same on every executor for the same seeds. Prints the means per
    (scheduler, split); -o writes every run.

    Example: planner sweep examples/nightly.yaml --cluster examples/cluster.yaml -s fifo -s fair --slots 8,24 --slots 16,16 --runs 10 --executor dask://scheduler:8786 -o runs.csv
    """
    if output is not None and output.suffix.lower() not in (".csv", ".json"):
        raise InvalidInput("--output", "sweep results are written as .csv or .json", source=str(output))
    not_a_folder(output)
    clock = time.perf_counter()
    result = _compared(workload, cluster, scheduler, slots, seed, runs, executor)
    if output is not None:
        text = csv_text(result.runs) if output.suffix.lower() == ".csv" else json.dumps(result.runs, indent=1) + "\n"
        write_atomic(output, text)
    title = f"sweep of {workload.name}: {len(result.runs)} runs in {time.perf_counter() - clock:.1f} s"
    emit({title: result.table() if json_output else result.brief()}, as_json=json_output)


def demo_command(
    output: Annotated[Path, typer.Option("-o", "--output", help="Report folder.")] = Path("out"),
    runs: RunsOption = DEFAULT_RUNS,
    noise: NoiseOption = DEFAULT_NOISE,
    seed: SeedOption = 0,
    executor: ExecutorOption = "local",
    json_output: JsonFlag = False,
) -> None:
    """Plan tonight's bundled batch, prove the plan, write out/report.html.

    The batch: 40 jobs of the SWIM FB-2009 trace on 20 nodes (80 slots). The plan is robust
    (best simulated p90 among near-optimal candidates) and is validated against Fair 1:3, 2:2,
    3:1 and FIFO; the summary is printed.

    Example: planner demo -o out
    """
    _check_folder(output)
    check_runs(runs)
    check_seed(seed)
    try:
        result = run_demo(runs=runs, noise=noise, seed=seed, executor=executor_of(executor), progress=True)
    except InvalidInput as error:
        raise attribute(error, _VALIDATE_OPTIONS) from None
    from planner.report import write_report

    written = write_report(result.report, output, example=result.example,
                           title=f"Tonight's plan for {result.workload.name} on {DEMO_CLUSTER.nodes} nodes")
    sections = result.sections()
    sections["report"] = [{"file": str(path)} for path in written.values()]
    emit(sections, as_json=json_output)


def register(app: typer.Typer) -> None:
    """Add these verbs to the `planner` command."""
    for name, function in (("validate", validate_command), ("compare", compare_command),
                           ("sweep", sweep_command), ("demo", demo_command)):
        app.command(name)(exits_cleanly(function))
