"""One simulation, described once: the batch as submitted, the cluster, the scheduler with its
slot split and options, or a VM plan's phases (`Run`).

Everything that simulates describes its run so: Hadoop's files read back
(`planner.io.hadoop`'s ``hadoop_run``) and a plan as exported (``plan_run``) prepare one, so that
a plan and the files it exports run the same simulation, byte for byte; a validation's setups
(`planner.proof.setups.Setup`: a name, a role, a prediction and one run) and a robust plan's
candidates hold one each and simulate it on biased copies of its batch (`Run.with_workload`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, replace

from models import Cluster, Workload
from planner.simulator.api import simulate
from planner.simulator.effort import NO_EFFORT, SimulationEffort, check_simulation
from planner.simulator.options import SimOptions
from planner.simulator.progress import Progress
from planner.simulator.result import SimResult
from planner.simulator.schedulers.base import Scheduler
from planner.simulator.vms import Phases, VmResult, simulate_vms


@dataclass(frozen=True)
class Run:
    """What one simulation needs. ``phases`` (a VM plan's) replace the scheduler: the run is
    `simulate_vms` on the jobs' runtime profiles, each phase waiting for the one before (or,
    with ``backfill``, each job starting as soon as its VMs are free)."""

    workload: Workload
    cluster: Cluster
    scheduler: Scheduler | None = None
    slots: tuple[int, int] | None = None
    options: SimOptions | None = None
    phases: Phases = ()
    backfill: bool = False

    @property
    def label(self) -> str:
        """What runs it, in words: the scheduler's name, or "vm phases"."""
        if self.phases:
            return "vm phases (backfill)" if self.backfill else "vm phases"
        return self.scheduler.name if self.scheduler is not None else "?"

    @property
    def total_slots(self) -> int:
        """The slots (or containers) it runs on: its slot split's total, else its cluster's."""
        return self.cluster.total_slots if self.slots is None else sum(self.slots)

    def with_workload(self, workload: Workload) -> Run:
        """The same run on another batch (a biased copy of this one's, for instance)."""
        return replace(self, workload=workload)

    def effort(self, what: str = "simulate") -> SimulationEffort:
        """Its estimate, refused over the limits of one run (`planner.simulator.effort`); a VM
        plan's phases cost nothing to speak of."""
        if self.phases:
            return NO_EFFORT
        return check_simulation(self.workload, self.cluster, self.scheduler, slots=self.slots, options=self.options,
                                what=what)

    def simulate(self, seed: int = 0, progress: Callable[[Progress], None] | None = None) -> SimResult | VmResult:
        """Run it (on a copy of the scheduler: a run can run again, and runs of one setup may
        share a process); ``progress`` as in `simulate` (not heard by runs of VM phases)."""
        if self.phases:
            return simulate_vms(self.workload, self.cluster, self.phases, seed=seed, backfill=self.backfill)
        return simulate(self.workload, self.cluster, copy.deepcopy(self.scheduler), seed=seed, slots=self.slots,
                        options=self.options, progress=progress)
