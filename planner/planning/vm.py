"""Making VM-level plans: pair and phase schedules from the solvers, turned into the plain
phases of `planner.plans.phases`."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from models import Cluster, ExtrapolationWarning, InvalidInput, Job, Workload
from models.checks import as_str
from planner.plans.phases import VM_STRATEGIES
from planner.simulator.vms import Entry, Phases
from solvers import PairSchedule, PhaseSchedule, methods, pack_phases, schedule_pairs
from solvers.pairs.problem import profile_times

DEFAULT_SOLVER = "milp"


@dataclass(frozen=True)
class VmSchedule:
    """What `make_plan` needs from a pair or packing solution, by job name."""

    phases: Phases
    objective: float
    baseline: float
    status: str
    solver: str
    seconds: float
    bound: float | None
    gap: float | None


def solver_choices(strategy: str) -> tuple[str, ...]:
    return tuple(sorted(methods(strategy)))


def all_solver_choices() -> tuple[str, ...]:
    """Every registered pair or packing method (what `--solver` may name)."""
    return tuple(sorted({name for strategy in VM_STRATEGIES for name in solver_choices(strategy)}))


def check_solver(strategy: str, solver: str | None) -> str:
    """The method to run for a VM strategy: ``solver`` if registered for it, else "milp"."""
    if solver is None:
        return DEFAULT_SOLVER
    solver = as_str(solver, "solver")
    choices = solver_choices(strategy)
    if solver not in choices:
        raise InvalidInput("solver", f"unknown {strategy} method {solver!r}; choose from {', '.join(choices)}")
    return solver


def derived_profiles(workload: Workload, cluster: Cluster) -> Workload:
    """``workload`` with a runtime profile derived from the tasks of every job that has none
    (`with_wave_profiles`), and one `DerivedProfileWarning` naming them."""
    from models.profiles.derived import DerivedProfileWarning, with_wave_profiles

    profiled, derived = with_wave_profiles(workload, cluster)
    if derived:  # every job has a profile now: one of its own, or its tasks' (a job has one or the other)
        warnings.warn(
            f"{len(derived)} of {len(profiled)} jobs have no runtime profile; derived from their tasks by the "
            f"wave model (`planner fit WORKLOAD --wave -c CLUSTER -o OUT` writes them, to fit your own "
            f"instead): {', '.join(derived[:10])}{', ...' if len(derived) > 10 else ''}",
            DerivedProfileWarning, stacklevel=3)
    return profiled


def warn_extrapolation(phases: Phases, jobs: Sequence[Job]) -> None:
    """One warning naming every job the plan runs on a VM count outside its profile's fitted range.

    Solvers evaluate F_j at every n in 1..N, which a fitted power law would
    flag hundreds of times (they are silenced during the solve); what matters
    to an operator is whether the chosen VM counts were ever measured.
    """
    by_name = {job.name: job for job in jobs}
    outside = []
    for phase in phases:
        for name, vms, _ in phase:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ExtrapolationWarning)
                profile_times(by_name[name], np.array([float(vms)]))
            if any(issubclass(w.category, ExtrapolationWarning) for w in caught):
                fitted = getattr(by_name[name].profile, "n_range_", None)
                outside.append(f"{name} on {vms} VMs" + (f" (fitted on {fitted[0]:g}..{fitted[1]:g})" if fitted else ""))
    if outside:
        warnings.warn(
            f"the plan runs jobs on VM counts outside the range their profiles were fitted on: {', '.join(outside)}",
            ExtrapolationWarning,
            stacklevel=4,  # the caller of make_plan
        )


def pair_phases(schedule: PairSchedule, jobs: Sequence[Job], cluster: Cluster) -> Phases:
    """Each pair group as phases: concurrent -> both primary on x and N - x VMs; overcommit -> the io
    job hosts on N VMs and the cpu job rides on the extra VMs; sequential -> two phases of one job
    on N VMs; alone -> one."""
    n = cluster.vms
    phases: list[tuple[Entry, ...]] = []
    for group in schedule.groups:
        names = [jobs[i].name for i in group.jobs]
        if group.mode == "alone" or group.mode == "sequential":
            phases.extend(((name, n, "primary"),) for name in names)
        elif group.mode == "concurrent":
            if group.split is None:
                raise InvalidInput("pairs", f"internal error: concurrent group {names} has no split")
            phases.append(((names[0], group.split, "primary"), (names[1], n - group.split, "primary")))
        elif group.mode == "overcommit":
            # The pair model prices the cpu job on nodes * disks / r extra VMs; a plan needs whole
            # VMs, and floor(N / r) is what the host rule (r * extra <= host VMs) allows.
            if cluster.extra_vms < 1:
                raise InvalidInput(
                    "primaries_per_extra",
                    f"the pair schedule overcommits but N = {n} VMs with r = {cluster.primaries_per_extra} "
                    "leaves no whole extra VM",
                )
            hosts = [i for i in group.jobs if jobs[i].intensity == "io"]
            if len(hosts) != 1:
                raise InvalidInput("pairs", f"internal error: overcommitted group {names} needs one io job")
            phases.append(tuple(
                (jobs[i].name, n, "host") if i == hosts[0] else (jobs[i].name, cluster.extra_vms, "extra")
                for i in group.jobs
            ))
        else:
            raise InvalidInput("pairs", f"internal error: unknown pair mode {group.mode!r}")
    return tuple(phases)


def packing_phases(schedule: PhaseSchedule, jobs: Sequence[Job]) -> Phases:
    return tuple(tuple((jobs[pl.job].name, int(pl.vms), str(pl.role)) for pl in phase) for phase in schedule.phases)


def solve_vm(
    jobs: Sequence[Job], cluster: Cluster, strategy: str, solver: str, *, time_limit: float, seed: int
) -> VmSchedule:
    """Run the strategy's solver (profiles already checked) and convert its solution."""
    jobs = list(jobs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtrapolationWarning)  # see warn_extrapolation
        if strategy == "pairs":
            pairs = schedule_pairs(jobs, cluster, solver, time_limit=time_limit, seed=seed)
            phases, solution, baseline = pair_phases(pairs, jobs, cluster), pairs, pairs.sequential_baseline
        else:
            packed = pack_phases(jobs, cluster, solver, time_limit=time_limit, seed=seed)
            phases, solution, baseline = packing_phases(packed, jobs), packed, packed.sequential_baseline
    return VmSchedule(
        phases=phases,
        objective=float(solution.objective),
        baseline=float(baseline),
        status=str(solution.status),
        solver=solution.solver,
        seconds=float(solution.seconds),
        bound=None if solution.bound is None else float(solution.bound),
        gap=None if solution.gap is None else float(solution.gap),
    )
