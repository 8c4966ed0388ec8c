"""The verb that sizes a cluster: size (a thin shell over `planner.planning.sizing.size_cluster`)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated, cast

import typer

from models.checks import as_float

# Light modules only (tests/test_layout.py): the command imports what it runs.
from models.errors import InvalidInput
from planner.cli.console import JsonFlag, Section, attribute, check_output_folder, emit, working
from planner.cli.options import (
    ExecutorOption,
    HadoopConfOption,
    ReadyNowOption,
    SparkConfOption,
    WorkloadArgument,
    check_runs,
    check_seed,
    executor_of,
)
from planner.cli.planning import Objective, PlanTarget, Strategy
from planner.defaults import DEFAULT_NOISE, DEFAULT_TARGET_RUNS

#: `planner.planning.sizing`'s defaults, repeated here so that `planner --help` imports no NumPy
#: (tests/test_sizing.py checks that they agree).
DEFAULT_CONFIDENCE, DEFAULT_BILLING = 0.95, 1.0

#: `planner size --strategy`: the VM plans whose number of machines can be a decision.
VmStrategy = StrEnum("VmStrategy", [(name, name) for name in (Strategy.pairs.value, Strategy.packing.value)])

#: The columns of the sizes' table (``--json`` has every field).
_SIZE_COLUMNS = ("nodes", "slots", "decided_by", "p_meet", "makespan", "cost", "chosen", "note")

#: size_cluster's fields as the command line spells them.
_SIZE_OPTIONS = {"window": "--window", "confidence": "--confidence", "price": "--price", "billing": "--billing",
                 "min_nodes": "--min", "max_nodes": "--max", "target": "--target", "objective": "--objective",
                 "runs": "--runs", "validation_runs": "--validation-runs", "noise": "--noise", "seed": "--seed",
                 "executor": "--executor", "ready_now": "--ready-now", "hadoop_conf": "--hadoop-conf",
                 "spark_conf": "--spark-conf", "queue_map": "--queue-map", "nodes": "--max"}


def size(
    workload: WorkloadArgument,
    node: Annotated[Path, typer.Option("--node", help="One machine (.yaml or .json): a cluster file's fields but "
                                                      "nodes and racks, and nodes_per_rack.")],
    target: Annotated[PlanTarget | None, typer.Option(help="What runs the batch: mrv1, yarn-fair, yarn-capacity or "
                                                           "spark; each size is planned for it.")] = None,
    strategy: Annotated[VmStrategy | None, typer.Option(help="A VM plan instead (pairs or packing): the number of "
                                                             "machines P as a decision, solved exactly.")] = None,
    window: Annotated[float | None, typer.Option(help="When the batch must be done (s, like submit times; with "
                                                      "--strategy, from the start).")] = None,
    confidence: Annotated[float | None, typer.Option(help="The probability of finishing by --window asked for "
                                                             "(default 0.95).")] = None,
    price: Annotated[float | None, typer.Option(help="Price of a node per hour: the cheapest size that meets "
                                                     "the window is the answer.")] = None,
    billing: Annotated[float | None, typer.Option(help="Billing granularity (s): a run's time is billed in whole "
                                                       "units of it (default 1).")] = None,
    min_nodes: Annotated[int, typer.Option("--min", help="The fewest nodes to consider.")] = 1,
    max_nodes: Annotated[int | None, typer.Option("--max", help="The most nodes to consider (default: four "
                                                                "times the fewest the bounds allow).")] = None,
    objective: Annotated[Objective, typer.Option(help="What each size's plan minimizes (default window: the "
                                                      "chance of missing it).")] = Objective.window,
    runs: Annotated[int, typer.Option(help="Simulated runs per candidate at each size.")] = DEFAULT_TARGET_RUNS,
    validation_runs: Annotated[int | None, typer.Option(help="Fresh runs of the proof (default: --runs, at least "
                                                                  "40).")] = None,
    noise: Annotated[float, typer.Option(help="Bias bound of each job's times (1 + U[-noise, noise]).")] = DEFAULT_NOISE,
    seed: Annotated[int, typer.Option(help="Seed of the runs (the same at every size); the proof's is seed + 1000.")] = 0,
    executor: ExecutorOption = "local",
    hadoop_conf: HadoopConfOption = None,
    spark_conf: SparkConfOption = None,
    queue_map: Annotated[
        list[str] | None, typer.Option("--queue-map", help="POOL=QUEUE or JOB=QUEUE (repeatable, or comma-separated; "
                                                           "*=QUEUE for the rest).")
    ] = None,
    ready_now: ReadyNowOption = False,
    solver: Annotated[str | None, typer.Option(help="--strategy: the exact method (default milp).")] = None,
    time_limit: Annotated[float | None, typer.Option(help="--strategy: the solver's time limit per machine count "
                                                          "(s; default 60).")] = None,
    report: Annotated[Path | None, typer.Option("--report", help="Folder to write the answer into: report.md, a "
                                                                 "figure, the records as JSON (and the answer's "
                                                                 "cluster.yaml and plan.json with --target).")
                      ] = None,
    json_output: JsonFlag = False,
) -> None:
    """How many nodes: the cheapest cluster that finishes the batch by --window with the asked
    probability, each size planned for --target and proven by simulation; or, with --strategy, the
    number of machines of a VM plan that costs least (machines x the schedule's time, billed).

    Example: planner size examples/nightly.yaml --node examples/node.yaml --target yarn-fair --window 1500 --max 24

    Example: planner size examples/nightly.yaml --node examples/node.yaml --strategy packing --min 4 --max 16 --billing 60
    """
    from models.cluster import Node
    from models.workload import Workload
    from planner.io.hadoop.queue_map import parse_queue_map
    from planner.planning.sizing import size_cluster, write_sizing_report

    if (target is None) == (strategy is None):
        raise InvalidInput("--target", "give --target (a cluster for a target) or --strategy (a VM plan), one of them")
    if strategy is not None:
        _size_machines(workload, node, strategy.value, min_nodes=min_nodes, max_nodes=max_nodes, price=price,
                       billing=DEFAULT_BILLING if billing is None else billing, window=window, solver=solver,
                       time_limit=60.0 if time_limit is None else time_limit, seed=seed, report=report,
                       json_output=json_output,
                       others={"--confidence": confidence is not None, "--objective": objective != Objective.window,
                               "--runs": runs != DEFAULT_TARGET_RUNS, "--validation-runs": validation_runs is not None,
                               "--noise": noise != DEFAULT_NOISE, "--hadoop-conf": bool(hadoop_conf),
                               "--spark-conf": bool(spark_conf), "--queue-map": bool(queue_map),
                               "--ready-now": ready_now, "--executor": executor != "local"})
        return
    target = cast(PlanTarget, target)  # given: one of the two is (checked above)
    for flag, given in (("--solver", solver is not None), ("--time-limit", time_limit is not None)):
        if given:
            raise InvalidInput(flag, "applies with --strategy only")
    check_seed(seed)
    check_runs(runs)
    check_output_folder(report, "--report")
    batch, machine = Workload.from_file(workload), Node.from_file(node)
    try:
        mapping = parse_queue_map(queue_map) if queue_map else None
        result = size_cluster(batch, machine, target.value, window=window,
                              confidence=DEFAULT_CONFIDENCE if confidence is None else confidence, price=price,
                              billing=DEFAULT_BILLING if billing is None else billing, min_nodes=min_nodes, max_nodes=max_nodes, objective=objective.value,
                              runs=runs, validation_runs=validation_runs, noise=noise, seed=seed, ready_now=ready_now,
                              hadoop_conf=hadoop_conf, spark_conf=spark_conf, queue_map=mapping,
                              executor=executor_of(executor), progress=True)
    except InvalidInput as error:
        raise attribute(error, _SIZE_OPTIONS, workload=workload, cluster=node) from None
    if report is not None:
        write_sizing_report(result, report)
    proof = {key: value for key, value in result.proof.items() if key not in ("critical_jobs", "paired")}
    proof.update({f"paired_{key}": value for key, value in (result.proof.get("paired") or {}).items()})
    emit([Section("answer", f"how many nodes for {workload.name} (simulated)", [result.summary()], one=True),
          Section("proof", "the proof: fresh runs at the answer and the next smaller size", [proof], one=True),
          Section("critical_jobs", "the jobs that decide the end (the answer's fresh runs)",
                  result.proof.get("critical_jobs") or []),
          Section("sizes", "every size: simulated, decided by the bounds, or not examined",
                  result.records() if json_output else [{key: record[key] for key in _SIZE_COLUMNS}
                                                        for record in result.records()]),
          Section("notes", "notes", [{"note": note} for note in result.notes])], as_json=json_output)


def _size_machines(workload: Path, node: Path, strategy: str, *, min_nodes: int, max_nodes: int | None,
                   price: float | None, billing: float, window: float | None, solver: str | None, time_limit: float,
                   seed: int, report: Path | None, json_output: bool, others: dict[str, bool]) -> None:
    """`planner size --strategy`: `size_machines`, printed as the answer and every count's record."""
    from models.cluster import Node
    from models.workload import Workload
    from planner.planning.sizing import size_machines, write_machine_count_report
    from solvers.base import MAX_TIME_LIMIT

    for flag, given in others.items():
        if given:
            raise InvalidInput(flag, "applies with --target only (a VM plan's machines are solved, not simulated)")
    if max_nodes is None:
        raise InvalidInput("--max", "give the most machines to consider (with --strategy)")
    as_float(time_limit, "--time-limit", above=0.0, maximum=MAX_TIME_LIMIT)
    check_seed(seed)
    check_output_folder(report, "--report")
    batch, machine = Workload.from_file(workload), Node.from_file(node)
    try:
        with working(f"how many machines for {workload.name} ({strategy})"):
            result = size_machines(batch, machine, strategy, min_nodes=min_nodes, max_nodes=max_nodes, price=price,
                                   billing=billing, window=window, solver=solver, time_limit=time_limit, seed=seed)
    except InvalidInput as error:
        raise attribute(error, {**_SIZE_OPTIONS, "strategy": "--strategy", "solver": "--solver",
                                "time_limit": "--time-limit"}, workload=workload, cluster=node) from None
    if report is not None:
        write_machine_count_report(result, report)
    emit([Section("answer", f"how many machines for {workload.name} ({strategy}, solved)", [result.summary()],
                  one=True),
          Section("machines", "every count: solved, pruned by its bound, or over the window", result.records())],
         as_json=json_output)
