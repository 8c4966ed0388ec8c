"""Spark's export target, registered as "spark" (`planner.io.targets`).

A plan made for Spark (``planner plan --target spark``) is its levers merged into the
configuration it was made from (`planner.io.spark.merge.spark_merged_files`). Any other slot plan
is exported as Spark's FIFO mode running the plan's order: jobs submitted in it, each no earlier
than its arrival (`planner.io.hadoop.applied.submission_schedule`), into their own pools; its
slot split and admission limit k cannot be enforced (`SparkTarget.notes`). A VM plan is not a
Spark plan. The run is the exported files read back (`planner.io.spark.merge.spark_deployed_run`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path

from models import Cluster, InvalidInput, Workload
from planner.io.hadoop.applied import submission_schedule
from planner.io.hadoop.merge import CurrentConfig
from planner.io.spark.conf import SUBMISSIONS, spark_run
from planner.io.spark.merge import (
    read_spark_current,
    spark_default_config,
    spark_deployed_run,
    spark_merged_files,
)
from planner.io.targets import register_target
from planner.plans.levers import Levers
from planner.plans.plan import Plan
from planner.simulator.options import SimOptions
from planner.simulator.run import Run

SPARK_SUMMARY = "Spark's scheduler (FIFO or FAIR pools): fairscheduler.xml, spark-defaults.conf and a driver script"


@dataclass(frozen=True)
class SparkTarget:
    """Spark behind `planner.io.targets.ExportTarget` (module docstring)."""

    name: str = "spark"
    summary: str = SPARK_SUMMARY

    def files(self, plan: Plan, workload: Workload | None, cluster: Cluster, *, ready_now: bool = False,
              options: SimOptions | None = None, current: CurrentConfig | None = None) -> dict[str, str]:
        """The exported folder's files (`planner.io.spark.merge.spark_merged_files`)."""
        if workload is None:
            raise InvalidInput("workload", "the spark target's schedule names each job's pool and dependencies: "
                                           "give the plan's workload (-w)")
        levers, config = self._levers(plan, workload, ready_now, current)
        return spark_merged_files(config, levers, workload, ready_now=ready_now or plan.ready_now)

    def run(self, plan: Plan, workload: Workload, cluster: Cluster, *, ready_now: bool = False,
            options: SimOptions | None = None) -> Run:
        """The run the exported files configure (read back as they are written)."""
        files = self.files(plan, workload, cluster, ready_now=ready_now, options=options)
        return spark_deployed_run(files, workload, cluster, options=options)

    def read(self, paths: Iterable[str | Path], workload: Workload, cluster: Cluster) -> Run:
        """The exported files read back (`planner.io.spark.conf.spark_run`)."""
        return spark_run(paths, workload, cluster)

    def notes(self, plan: Plan) -> Sequence[str]:
        """What Spark cannot enforce of ``plan``, in words."""
        if plan.target == "spark":
            return ["Spark orders FIFO jobs by job id, the order the driver submits them: jobs submitted within "
                    "milliseconds of each other may swap."]
        return [f"Spark's executors run tasks of any stage: the plan's split of {plan.map_slots} map and "
                f"{plan.reduce_slots} reduce slots cannot be enforced.",
                f"Spark has no running-job limit: the plan's admission limit k = {plan.k} is not enforced; its "
                "order is (FIFO, jobs submitted in it)."]

    def _levers(self, plan: Plan, workload: Workload, ready_now: bool,
                current: CurrentConfig | None) -> tuple[Levers, CurrentConfig]:
        if plan.phases:
            raise InvalidInput("plan", "a VM plan's phases are not a Spark configuration: export it to mrv1, "
                                       "yarn-fair or yarn-capacity")
        if plan.target is None:  # a slot plan: its order under FIFO
            schedule = submission_schedule(plan, workload, ready_now=ready_now)
            levers = Levers(order=tuple(s.job for s in schedule), submits={s.job: s.at for s in schedule})
            return levers, current if current is not None else spark_default_config()
        if plan.target != self.name:
            raise InvalidInput("target", f"the plan was made for {plan.target}, not spark: make one for spark "
                                         "(planner plan --target spark)")
        config = current if current is not None else spark_default_config()
        if config.fingerprint != plan.config_fingerprint:
            raise InvalidInput("spark_conf", "is not the configuration the plan was made from (fingerprints "
                                             "differ): give those files with --spark-conf")
        if not isinstance(plan.levers, Levers):
            raise InvalidInput("plan", "a plan for spark needs its levers")
        return plan.levers, config


import_module("planner.io.hadoop.targets")  # the built-in targets register in TARGET_MODULES' order
register_target(SparkTarget())


def spark_plan_run(plan: Plan, workload: Workload, cluster: Cluster,
                   spark_conf: Sequence[str | Path] | None = None) -> Run:
    """A plan for Spark as it runs once applied: a folder `planner export --to spark` wrote among
    ``spark_conf`` read back, else the plan's levers written into the configuration it was made
    from (``spark_conf``; Spark's stock configuration when it was made without) and read back."""
    paths = [Path(path) for path in spark_conf or ()]
    exports = [path for path in paths if path.is_dir() and (path / SUBMISSIONS).is_file()]
    if len(exports) > 1:
        raise InvalidInput("spark_conf", f"{len(exports)} exported folders ({exports[0]}, {exports[1]}): give one")
    if exports:
        return spark_run(exports, workload, cluster)
    made_from = (plan.simulated or {}).get("configuration")
    if not paths and plan.target == "spark" and made_from != "default":
        raise InvalidInput("spark_conf", f"the plan was made from {', '.join(made_from or [])}: give those files "
                                         "(or the folder `planner export --to spark` wrote) with --spark-conf")
    current = read_spark_current(paths) if paths else None
    target = SparkTarget()
    return spark_deployed_run(target.files(plan, workload, cluster, current=current), workload, cluster)
