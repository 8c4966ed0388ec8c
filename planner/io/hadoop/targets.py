"""Hadoop's export targets, registered by name (`planner.io.targets`): "mrv1", "yarn-fair" and
"yarn-capacity" (`HADOOP_TARGETS`).

Each is a `HadoopTarget`: its files are `planner.io.hadoop.export.hadoop_files`, its run is
`planner.io.hadoop.applied.hadoop_plan_run`, its files read back are
`planner.io.hadoop.conf.hadoop_run` and its notes `planner.io.hadoop.applied.target_notes`, each
for the target's name. Importing this module registers them; `planner.io.targets` does on its
first look-up (`TARGET_MODULES`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from models import Cluster, InvalidInput, Workload
from planner.io.hadoop.applied import HADOOP_TARGETS, hadoop_plan_run, target_notes
from planner.io.hadoop.conf import hadoop_run
from planner.io.hadoop.export import hadoop_files
from planner.io.hadoop.merge import CurrentConfig, default_config, merged_files
from planner.io.targets import register_target
from planner.plans.levers import Levers
from planner.plans.plan import Plan
from planner.simulator.options import SimOptions
from planner.simulator.run import Run


@dataclass(frozen=True)
class HadoopTarget:
    """One of Hadoop's targets (`HADOOP_TARGETS`), behind `planner.io.targets.ExportTarget`."""

    name: str
    summary: str

    def files(self, plan: Plan, workload: Workload | None, cluster: Cluster, *, ready_now: bool = False,
              options: SimOptions | None = None, current: CurrentConfig | None = None) -> dict[str, str]:
        """The exported folder's files: the scheduler's and site files, the submission schedule
        and its script, and a README (`planner.io.hadoop.export`); with ``current``, the plan's
        levers merged into that configuration (`planner.io.hadoop.merge.merged_files`)."""
        if plan.target is not None:  # a plan for a target: its levers merged into its configuration
            if plan.target != self.name:
                raise InvalidInput("target", f"the plan was made for {plan.target}, not {self.name}: make one for "
                                             f"{self.name} (planner plan --target {self.name})")
            current = current if current is not None else default_config(self.name, cluster)
            if current.fingerprint != plan.config_fingerprint:
                raise InvalidInput("hadoop_conf", "is not the configuration the plan was made from (fingerprints "
                                                  "differ): give those files with --hadoop-conf")
        if current is None:
            return hadoop_files(plan, workload, cluster, self.name, ready_now=ready_now, options=options)
        levers = plan.levers
        if not isinstance(levers, Levers):
            raise InvalidInput("plan", "has no levers: only a plan made for a target (planner plan --target) is "
                                       "merged into a configuration; export it without --hadoop-conf")
        if workload is None:
            raise InvalidInput("workload", "merging a plan into a configuration needs its workload (-w)")
        return merged_files(current, levers, workload, cluster, self.name, ready_now=ready_now or plan.ready_now)

    def run(self, plan: Plan, workload: Workload, cluster: Cluster, *, ready_now: bool = False,
            options: SimOptions | None = None) -> Run:
        """The run the exported files configure (`planner.io.hadoop.applied`)."""
        return hadoop_plan_run(plan, workload, cluster, self.name, ready_now=ready_now, options=options)

    def read(self, paths: Iterable[str | Path], workload: Workload, cluster: Cluster) -> Run:
        """The exported files read back as Hadoop's configuration (`planner.io.hadoop.conf`)."""
        return hadoop_run(paths, workload, cluster)

    def notes(self, plan: Plan) -> Sequence[str]:
        """What this target cannot enforce of ``plan``, in words."""
        return target_notes(plan, self.name)


for _name, _summary in HADOOP_TARGETS.items():
    register_target(HadoopTarget(_name, _summary))
