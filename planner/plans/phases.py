"""A VM-level plan's phases as plain data, and the rules they are checked by.

A VM-level plan is a sequence of phases run one after another; each phase is a
tuple of (job name, VMs, role) with role one of "primary", "host" or "extra"
(the packing model's roles, see `solvers.packing`). Pair schedules are written
in the same form so one file format, one checker and one table serve both
(making them: `planner.planning.vm`).
"""

from __future__ import annotations

import warnings

import numpy as np

from models import Cluster, ExtrapolationWarning, InvalidInput, Job, Workload
from planner.simulator.vms import Phases
from solvers import evaluate_phases
from solvers.pairs.problem import profile_times

#: Each VM strategy is named after the solver problem whose registered methods it accepts.
VM_STRATEGIES = ("pairs", "packing")


def placement_seconds(job: Job, vms: int, role: str, cluster: Cluster) -> float:
    """F_j(vms), times the overcommit penalty alpha for a host or extra."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtrapolationWarning)
        seconds = float(profile_times(job, np.array([float(vms)]))[0])
    return seconds * (cluster.overcommit_penalty if role != "primary" else 1.0)


def phase_indices(phases: Phases, workload: Workload) -> list[list[tuple[int, int, str]]]:
    """The phases with job indices into ``workload`` (what `solvers.evaluate_phases` takes)."""
    index = {name: i for i, name in enumerate(workload.names)}
    converted = []
    for p, phase in enumerate(phases):
        row = []
        for e, (name, vms, role) in enumerate(phase):
            if name not in index:
                raise InvalidInput(f"phases[{p}][{e}].job", f"names {name!r}, which is not in the workload")
            row.append((index[name], vms, role))
        converted.append(row)
    return converted


def evaluate_plan_phases(phases: Phases, workload: Workload, cluster: Cluster) -> float:
    """Check the phases against the packing model's rules on this cluster (`InvalidPlan` naming the
    rule) and return their total length. Pair plans pass too: their phases follow the same rules."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtrapolationWarning)
        return evaluate_phases(phase_indices(phases, workload), list(workload), cluster)

