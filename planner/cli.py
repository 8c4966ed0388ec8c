"""The `planner` command. Every verb is a thin shell over a library function.

`main` runs it: bad input of any kind (a file, a value, an option click cannot parse) exits
with status 2 and one line on stderr; Ctrl-C exits with 130 without a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from typer._click import exceptions as click_errors  # typer's own click; the names below are not re-exported

from models import Cluster, InvalidInput, Workload
from models.checks import as_float, as_int, shown
from models.fileio import csv_text, file_format, write_atomic
from models.limits import MAX_JOBS
from planner.cli_proofs import ExecutorOption, check_runs, check_seed, executor_of
from planner.cli_proofs import register as register_proofs
from planner.console import (
    EXIT_BAD_INPUT,
    JsonFlag,
    attribute,
    emit,
    exits_cleanly,
    heartbeats_fit,
    not_a_folder,
    one_line,
    parse_pair,
    parse_slots,
    working,
)
from planner.fitting import csv_kind, fit_runtimes, fit_tasks, read_csv_rows, runtime_workload, task_workload
from planner.limits import MAX_K
from planner.plan import DEFAULT_K, ROBUST_RUNS, make_plan
from planner.plan_io import SLOT_STRATEGIES
from planner.plan_vm import all_solver_choices
from planner.simulator import SCHEDULERS, simulate, simulation_settings
from planner.startup import EXIT_INTERRUPTED, end_startup
from planner.summary import phase_records, workload_summary
from planner.traces import SwimConversion, read_rumen, read_sls, read_swim, rumen_task_records
from planner.validate import DEFAULT_NOISE
from solvers.base import MAX_TIME_LIMIT

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Plan nightly batches of MapReduce-style jobs and prove the plans in a simulator.",
)



class TraceFormat(StrEnum):
    swim = "swim"
    rumen = "rumen"
    sls = "sls"


class Strategy(StrEnum):
    slots = "slots"
    johnson = "johnson"
    slots_johnson = "slots+johnson"
    pairs = "pairs"
    packing = "packing"


class SlotModel(StrEnum):
    fresh = "fresh"
    capped = "capped"


class CsvKind(StrEnum):
    runtimes = "runtimes"
    tasks = "tasks"


def _swim_settings(settings: list[str]) -> dict[str, float]:
    known = set(SwimConversion.__dataclass_fields__)
    values: dict[str, float] = {}
    for item in settings:
        name, sep, text = item.partition("=")
        if not sep or name not in known:
            raise InvalidInput(
                "--set", f"expected NAME=VALUE with NAME one of {', '.join(sorted(known))}; got {shown(item)}"
            )
        try:
            if len(text) > 40:  # not a number anyone means; float() of it may take long
                raise ValueError
            values[name] = float(text)
        except ValueError:
            raise InvalidInput(f"--set {name}", f"must be a number, got {shown(text)}") from None
    try:
        SwimConversion(**values)  # checked here to name the option
    except InvalidInput as error:
        raise InvalidInput(f"--set {error.field}", error.problem) from None
    return values


#: make_plan's option fields as the command line spells them; other fields are the files'.
_PLAN_OPTIONS = {"solver": "--solver", "time_limit": "--time-limit", "seed": "--seed", "k": "-k",
                 "model": "--model", "strategy": "--strategy", "robust": "--robust", "runs": "--runs",
                 "noise": "--noise", "executor": "--executor"}


def _check_output(path: Path) -> None:
    try:
        file_format(path)
    except InvalidInput as error:
        raise InvalidInput("--output", error.problem, source=str(path)) from None
    not_a_folder(path)


@app.command("import")
@exits_cleanly
def import_trace(
    trace: Annotated[TraceFormat, typer.Argument(help="Trace format: swim, rumen or sls.")],
    file: Annotated[Path, typer.Argument(help="The trace file.")],
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Workload file to write (.yaml or .json).")
    ] = None,
    limit: Annotated[int | None, typer.Option(help="SWIM: keep the first N jobs.")] = None,
    setting: Annotated[list[str] | None, typer.Option("--set", help="SWIM conversion NAME=VALUE (see README).")] = None,
    keep_failed: Annotated[bool, typer.Option(help="Rumen: keep jobs whose outcome is not SUCCESS.")] = False,
    tasks_csv: Annotated[Path | None, typer.Option(help="Rumen: also write every task attempt as CSV.")] = None,
    json_output: JsonFlag = False,
) -> None:
    """Import a public trace as a workload file.

    Example: planner import swim FB-2009_samples_24_times_1hr_0.tsv -o fb2009.yaml
    """
    if output is not None:
        _check_output(output)
    if limit is not None:
        as_int(limit, "--limit", minimum=1, maximum=MAX_JOBS)
    not_a_folder(tasks_csv, "--tasks-csv")
    with working(f"importing {file.name}"):
        if trace is TraceFormat.swim:
            workload = read_swim(file, limit=limit, **_swim_settings(setting or []))
        elif trace is TraceFormat.rumen:
            workload = read_rumen(file, keep_failed=keep_failed)
        else:
            workload = read_sls(file)
    if tasks_csv is not None:
        if trace is not TraceFormat.rumen:
            raise InvalidInput("--tasks-csv", "only Rumen traces carry task attempts")
        write_atomic(tasks_csv, csv_text(rumen_task_records(file), ("job", "kind", "start", "end")))
    if output is not None:
        workload.to_file(output)
    emit({f"imported {file.name}": [workload_summary(workload)]}, as_json=json_output)


@app.command()
@exits_cleanly
def fit(
    file: Annotated[Path, typer.Argument(help="runtimes.csv (job,nodes,runtime) or tasks.csv (job,kind,start,end).")],
    kind: Annotated[
        CsvKind | None, typer.Option(help="Force the CSV kind instead of reading it off the header.")
    ] = None,
    workload: Annotated[
        Path | None, typer.Option(help="Runtimes: attach the profiles to this workload's jobs.")
    ] = None,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Workload file to write (.yaml or .json).")
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Fit power-law runtime profiles or map/reduce phase profiles.

    Example: planner fit runtimes.csv -o profiled.yaml
    """
    if output is not None:
        _check_output(output)
    if kind is None:
        header, _ = read_csv_rows(file)
        try:
            detected = csv_kind(header)
        except InvalidInput as error:
            raise error.in_file(str(file)) from None
    else:
        detected = kind.value
    if detected == "runtimes":
        fits = fit_runtimes(file)
        base = Workload.from_file(workload) if workload is not None else None
        try:
            result = runtime_workload(fits, base)
        except InvalidInput as error:  # a job of the runtimes file that the workload lacks
            raise InvalidInput(error.field, f"{error.problem} {workload}", source=str(file)) from None
        emit({f"power-law profiles from {file.name}": [f.record() for f in fits]}, as_json=json_output)
    else:
        if workload is not None:
            raise InvalidInput("--workload", "applies to runtimes files only")
        result = task_workload(fit_tasks(file), file)
        emit({f"phase profiles from {file.name}": phase_records(result)}, as_json=json_output)
    if output is not None:
        result.to_file(output)


@app.command()
@exits_cleanly
def plan(
    workload: Annotated[Path, typer.Argument(help="Workload file (.yaml or .json).")],
    cluster: Annotated[Path, typer.Option("--cluster", "-c", help="Cluster file (.yaml or .json).")],
    strategy: Annotated[
        Strategy, typer.Option(help="slots, johnson, slots+johnson (slot plans), pairs or packing (VM plans).")
    ] = Strategy.slots_johnson,
    k: Annotated[int, typer.Option("-k", help="Admission limit: jobs per phase at once.")] = DEFAULT_K,
    model: Annotated[
        SlotModel | None, typer.Option(help="Fluid model: fresh (paper; the default) or capped; --robust tries both.")
    ] = None,
    solver: Annotated[
        str | None,
        typer.Option(help=f"pairs/packing: solver method ({', '.join(all_solver_choices())}); default milp."),
    ] = None,
    time_limit: Annotated[float, typer.Option(help="pairs/packing: solver time limit in seconds.")] = 60.0,
    seed: Annotated[int, typer.Option(help="Random seed: the solver's (pairs/packing), the simulations' (--robust).")] = 0,
    robust: Annotated[
        bool, typer.Option("--robust", help="Slot plans: choose the best simulated p90 among near-optimal candidates.")
    ] = False,
    runs: Annotated[int, typer.Option(help="--robust: simulated runs per candidate.")] = ROBUST_RUNS,
    noise: Annotated[
        float, typer.Option(help="--robust: bias bound of each job's times (1 + U[-noise, noise]).")
    ] = DEFAULT_NOISE,
    executor: ExecutorOption = "local",
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Plan file to write (.json).")] = None,
    json_output: JsonFlag = False,
) -> None:
    """Plan a batch: a slot plan or a VM plan, with the predicted makespan.

    Slot plans: the split of the slots, the admission order and limit. VM plans: phases of jobs
    on VMs. --robust picks, among near-optimal slot plans, the best simulated p90 makespan.

    Example: planner plan examples/nightly.yaml --cluster examples/cluster.yaml --strategy slots+johnson -k 5 -o plan.json

    Example: planner plan examples/nightly.yaml --cluster examples/cluster.yaml --strategy packing --solver milp --time-limit 30

    Example: planner plan examples/nightly.yaml --cluster examples/cluster.yaml --robust --runs 20 -o plan.json
    """
    if output is not None and output.suffix.lower() != ".json":
        raise InvalidInput("--output", "plans are written as .json", source=str(output))
    not_a_folder(output)
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
                raise InvalidInput(flag, "applies with --robust only")
    batch, machines = Workload.from_file(workload), Cluster.from_file(cluster)
    if robust and strategy.value in SLOT_STRATEGIES:
        heartbeats_fit(batch.jobs, machines, [None], cluster_file=cluster)
    try:
        if robust:  # minutes of simulation: a progress bar, not a spinner
            made = make_plan(batch, machines, strategy.value, k=k, model=chosen_model, solver=solver,
                             time_limit=time_limit, seed=seed, robust=True, runs=runs, noise=noise,
                             executor=executor_of(executor), progress=True)
        else:
            with working(f"planning {workload.name} ({strategy.value})"):
                made = make_plan(batch, machines, strategy.value, k=k, model=chosen_model, solver=solver,
                                 time_limit=time_limit, seed=seed)
    except InvalidInput as error:
        raise attribute(error, _PLAN_OPTIONS, workload=workload, cluster=cluster) from None
    if output is not None:
        made.to_file(output)
    sections = {f"plan for {workload.name}": [made.summary()]}
    if made.phases:
        sections[f"phases of {workload.name} ({made.strategy}, run one after another)"] = made.phase_records(
            batch, machines
        )
    emit(sections, as_json=json_output)


#: simulate's option fields (as the library names them) and the flags that set them.
_SIMULATE_OPTIONS = {"scheduler": "--scheduler", "delay": "--delay", "slots": "--slots", "seed": "--seed",
                     "reduce_slowstart": "--slowstart", "task_time_cv": "--task-time-cv",
                     "containers": "--containers", "copy_compute": "--containers", "heartbeat": "--heartbeat"}


@app.command("simulate")
@exits_cleanly
def simulate_command(
    workload: Annotated[Path, typer.Argument(help="Workload file (.yaml or .json).")],
    cluster: Annotated[Path, typer.Option("--cluster", "-c", help="Cluster file (.yaml or .json).")],
    scheduler: Annotated[
        str | None,
        typer.Option(help=f"Scheduler: {', '.join(sorted(SCHEDULERS))}; default the --config file's, else fifo."),
    ] = None,
    config: Annotated[
        Path | None, typer.Option(help="Scheduler settings file (.yaml or .json): pools, queues, delay, preemption, options.")
    ] = None,
    delay: Annotated[
        str | None, typer.Option(help="Delay scheduling NODE_WAIT,RACK_WAIT in seconds, e.g. 15,15.")
    ] = None,
    slots: Annotated[
        str | None, typer.Option(help="MAP,REDUCE slot totals instead of the cluster's, e.g. 30,10.")
    ] = None,
    slowstart: Annotated[
        float | None, typer.Option(help="Fraction of a job's maps done before its reduces launch (default 1.0).")
    ] = None,
    task_time_cv: Annotated[
        float | None, typer.Option(help="Coefficient of variation of task times (default 0: deterministic).")
    ] = None,
    containers: Annotated[
        bool, typer.Option("--containers", help="Flexible containers that run maps or reduces.")
    ] = False,
    heartbeat: Annotated[
        float | None, typer.Option(help="Heartbeat in seconds instead of the cluster's (0: offer slots at once).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of block placement and task-time noise.")] = 0,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Result file to write (.json).")] = None,
    json_output: JsonFlag = False,
) -> None:
    """Simulate a workload task by task on a cluster under a scheduler.

    Example: planner simulate examples/nightly.yaml --cluster examples/cluster.yaml --scheduler fair --delay 15,15 -o result.json

    Example: planner simulate examples/nightly.yaml --cluster examples/cluster.yaml --config pools.yaml --seed 1
    """
    if output is not None and output.suffix.lower() != ".json":
        raise InvalidInput("--output", "simulation results are written as .json", source=str(output))
    not_a_folder(output)
    check_seed(seed)
    split = parse_slots(slots)
    batch, machines = Workload.from_file(workload), Cluster.from_file(cluster)
    try:
        if heartbeat is not None:
            machines = machines.with_changes(heartbeat=heartbeat)
        heartbeats_fit(batch.jobs, machines, [split], cluster_file=cluster,
                       flag="--heartbeat" if heartbeat is not None else None)
        chosen, options = simulation_settings(
            config, scheduler, delay=parse_pair(delay, "--delay", float, "15,15"), reduce_slowstart=slowstart,
            task_time_cv=task_time_cv, containers=True if containers else None,
        )
        with working(f"simulating {workload.name} ({chosen.name})"):
            result = simulate(batch, machines, chosen, seed=seed, slots=split, options=options)
    except InvalidInput as error:
        raise attribute(error, _SIMULATE_OPTIONS, workload=workload, cluster=cluster) from None
    if output is not None:
        write_atomic(output, result.to_json())
    emit({f"simulation of {workload.name} ({chosen.name})": [result.summary()]}, as_json=json_output)


register_proofs(app)


def run(argv: Sequence[str] | None = None) -> int:
    """Run the command line on ``argv`` (default: the process's) and return the exit status,
    printing click's own usage errors (a missing argument, a value that is not a number) as one
    line like every other error."""
    command = typer.main.get_command(app)
    try:
        status = command.main(args=None if argv is None else list(argv), prog_name="planner",
                              standalone_mode=False)
    except click_errors.NoArgsIsHelpError as error:  # `planner` alone: the help, as --help
        typer.echo(error.ctx.get_help() if error.ctx is not None else error.format_message())
        return 0
    except typer.TyperException as error:  # click's usage errors, e.g. "No such option: --x"
        print(one_line(f"error: {_usage_problem(error)}"), file=sys.stderr)
        return EXIT_BAD_INPUT
    except (typer.Abort, KeyboardInterrupt):
        return EXIT_INTERRUPTED
    return status if isinstance(status, int) else 0


def _usage_problem(error: typer.TyperException) -> str:
    """``--runs: 'x' is not a valid integer`` from click's ``Invalid value for '--runs': ...``."""
    param = getattr(error, "param", None)
    if isinstance(error, typer.BadParameter) and not isinstance(error, click_errors.MissingParameter) and param:
        options = [name for name in getattr(param, "opts", ()) if name.startswith("-")]
        name = max(options, key=len) if options else str(getattr(param, "name", "argument")).upper()
        return f"{name}: {error.message.removeprefix('Value error, ')}"
    return error.format_message()


def main(argv: Sequence[str] | None = None) -> int:
    """The `planner` console script: `run`, with Ctrl-C handled from here on (the import-time
    guard of `planner.startup` covers the seconds before)."""
    end_startup()
    try:
        return run(argv)
    except KeyboardInterrupt:  # between click's own handling and the return
        return EXIT_INTERRUPTED
