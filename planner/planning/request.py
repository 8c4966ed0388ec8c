"""What a plan for a target is asked (`planner.planning.deploy.plan_for_target`, and for Spark
`planner.planning.spark_deploy.plan_for_spark`): its arguments checked once, for every target."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from models import Cluster, InvalidInput, Workload
from models.checks import as_bool, as_instance, as_int, as_paths, as_str, as_str_mapping
from planner.io.hadoop.conf import conf_files
from planner.limits import MAX_RUNS, MAX_SEED
from planner.planning import arrivals
from planner.plans.files import TARGET_OBJECTIVES
from planner.proof.deployed import check_objective
from planner.proof.setups import all_ready
from planner.proof.validate import check_noise


@dataclass(frozen=True)
class TargetRequest:
    """A plan's arguments, checked: the configuration files (``conf``: empty for the target's stock
    one), ``queue_map`` (None: none), the objective and window, runs, noise, seed and ready_now,
    and ``night``, the batch as planned (every job ready at 0 with ``ready_now``)."""

    conf: tuple[str | os.PathLike, ...]
    queue_map: dict[str, str] | None
    objective: str
    window: float | None
    runs: int
    noise: float
    seed: int
    ready_now: bool
    night: Workload


def target_request(workload: object, cluster: object, conf: Sequence[str | Path] | None, conf_field: str,
                   queue_map: Mapping[str, str] | None, objective: object, window: object, runs: object,
                   noise: object, seed: object, ready_now: object) -> TargetRequest:
    """The arguments of a plan for a target checked (each refused in one line naming it); ``conf``
    is the configuration files given as ``conf_field`` (an empty folder is no configuration:
    refused here)."""
    as_instance(workload, Workload, "workload")
    as_instance(cluster, Cluster, "cluster")
    files: tuple[str | os.PathLike, ...] = ()
    if conf is not None:
        files = tuple(as_paths(conf, conf_field))
        if files:
            conf_files(list(files), conf_field)
    mapping = None if queue_map is None else as_str_mapping(queue_map, "queue_map")
    objective = as_str(objective, "objective", choices=TARGET_OBJECTIVES)
    window = arrivals.check_window(window)
    runs = as_int(runs, "runs", minimum=2, maximum=MAX_RUNS)
    noise = check_noise(noise)
    seed = as_int(seed, "seed", minimum=0, maximum=MAX_SEED)
    ready_now = as_bool(ready_now, "ready_now")
    if not len(workload):
        raise InvalidInput("jobs", "need at least one job")
    night = all_ready(workload) if ready_now else workload
    check_objective(objective, night, window)
    return TargetRequest(files, mapping, objective, window, runs, noise, seed, ready_now, night)
