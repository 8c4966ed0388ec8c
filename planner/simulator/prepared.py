"""A run ready to simulate: the batch as submitted, the cluster, the scheduler, the slot split and
the options, or a VM plan's phases. Hadoop's files (`planner.io.hadoop.conf.hadoop_run`) and a
plan (`planner.io.hadoop.applied.plan_run`) both prepare one, so that a plan and the files it exports run
the same simulation, byte for byte."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass

from models import Cluster, Workload
from planner.simulator.api import simulate
from planner.simulator.options import SimOptions
from planner.simulator.progress import Progress
from planner.simulator.result import SimResult
from planner.simulator.schedulers.base import Scheduler
from planner.simulator.vms import VmResult, simulate_vms

Phases = tuple[tuple[tuple[str, int, str], ...], ...]


@dataclass(frozen=True)
class PreparedRun:
    """What one simulation needs. ``phases`` (a VM plan's) replace the scheduler: the run is
    `simulate_vms` with phase barriers on the jobs' runtime profiles."""

    workload: Workload
    cluster: Cluster
    scheduler: Scheduler | None
    slots: tuple[int, int] | None = None
    options: SimOptions | None = None
    phases: Phases = ()

    @property
    def label(self) -> str:
        return "vm phases" if self.phases else self.scheduler.name if self.scheduler is not None else "?"

    def simulate(self, seed: int = 0, progress: Callable[[Progress], None] | None = None) -> SimResult | VmResult:
        """Run it (on a copy of the scheduler: a prepared run can run again); ``progress`` as
        in `simulate` (not heard by runs of VM phases)."""
        if self.phases:
            return simulate_vms(self.workload, self.cluster, self.phases, seed=seed)
        return simulate(self.workload, self.cluster, copy.deepcopy(self.scheduler), seed=seed, slots=self.slots,
                        options=self.options, progress=progress)
