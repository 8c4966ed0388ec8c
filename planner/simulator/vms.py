"""VM-level execution of pair and phase schedules: `simulate_vms`.

A VM-level plan (see `planner.planning.vm`) is plain data: a list of phases, each a
list of ``(job name, VMs, role)`` with role "primary", "host" or "extra". Each
job is gang-scheduled on its VMs for its whole run; it never shares them and
never changes its VM count.

The capacity rule (re-implemented here from the packing model of the Packing
paper, section 5, because the simulator never imports `solvers`):

- the cluster has N = nodes * disks primary VMs and E = floor(N / r) extra
  (overcommitted) VMs, r = ``cluster.primaries_per_extra``;
- "primary" and "host" jobs run on primary VMs; "extra" jobs on extra VMs;
- only "io" jobs may host extras and only "cpu" jobs may run as extras;
- in every phase, the VMs of its primary and host jobs sum to at most N, and r
  times the VMs of its extra jobs is at most the VMs of its host jobs (hence at
  most E extra VMs);
- a job on n VMs takes F_j(n) = ``job.runtime(n)`` seconds as a primary and
  alpha * F_j(n) as a host or extra (alpha = ``cluster.overcommit_penalty``).

A pair schedule is the special case of phases of at most two jobs (concurrent:
two primaries on x and N - x VMs; overcommitted: an io host on N VMs beside a
cpu extra on floor(N / r) VMs; sequential or alone: one job per phase on N).

Arrivals and dependencies (`Job.after`): a job is ready at its submit time, or once each of its
predecessors has finished plus the dependency's delay if that is later (``ready``; ``held_by``
names the predecessor that set it, the first in ``after`` order among equals, None when the submit
time rules). Its VMs are its own from its phase's start (its gang's, with backfill) and it runs on
them from its ready time: a job never starts before its submit time or a predecessor's finish
(plus delay). A predecessor may run in an earlier phase or in the same one (the job waits on its
VMs), never in a later phase: such a plan is refused (`InvalidPlan`, naming both jobs and phases).
A VM plan made ready now runs on a batch submitted at 0 (`planner.proof.setups.all_ready`).
"""

from __future__ import annotations

import heapq
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from models import Cluster, InvalidInput, InvalidPlan, Job, Workload
from models.checks import as_bool, as_float, as_instance, as_int, as_list
from models.dag import Precedence
from models.limits import MAX_JOBS
from planner.simulator.options import MAX_TASK_TIME_CV  # planner.limits, as the simulator reads it

if TYPE_CHECKING:
    from matplotlib.axes import Axes

VM_ROLES = ("primary", "host", "extra")
#: A placement of a VM-level plan: (job name, VMs, role); a plan's phases run one after another.
Entry = tuple[str, int, str]
Phases = tuple[tuple[Entry, ...], ...]


@dataclass(frozen=True)
class _Entry:
    """One checked placement: the job's position in ``jobs``, its phase and position in the phase."""

    job: int
    name: str
    phase: int
    vms: int
    role: str


@dataclass(frozen=True, eq=False)
class VmResult:
    """One VM-level run, as flat records.

    - ``jobs``: one record per job, in plan order (phase, then position in the
      phase): name, phase, vms, role, submit, ready (its submit time, or its predecessors' last
      finish plus delay), held_by (that predecessor, None when the submit time rules), start,
      finish (start + runtime), runtime (seconds, noise included), planned (the noise-free
      F_j(n), times alpha for host and extra) and vm_ids (the VMs it ran on: primary VMs are
      0..N-1, extra VMs 0..E-1 in their own pool, its own from its phase's start).
    - ``phases``: one record per phase: phase, start (its first job's start),
      end (its last job's finish), vms_used (primary and host VMs) and
      extra_vms_used.
    - ``makespan``: the last finish, in seconds from 0 (a batch submitted at 0 and without
      dependencies is ready at 0: the packing model's).
    """

    makespan: float
    jobs: list[dict[str, Any]]
    phases: list[dict[str, Any]]
    seed: int
    noise: float
    backfill: bool
    vms: int
    extra_vms: int
    cluster: dict[str, Any] = field(repr=False, default_factory=dict)

    def __post_init__(self) -> None:
        """Each field of its type and every number finite (a NaN or inf given is refused, naming the field)."""
        put = object.__setattr__
        put(self, "makespan", as_float(self.makespan, "makespan", minimum=0.0))
        for name in ("jobs", "phases"):
            as_instance(getattr(self, name), list, name)
        put(self, "seed", as_int(self.seed, "seed", minimum=0))
        put(self, "noise", as_float(self.noise, "noise", minimum=0.0))
        put(self, "backfill", as_bool(self.backfill, "backfill"))
        put(self, "vms", as_int(self.vms, "vms", minimum=0))
        put(self, "extra_vms", as_int(self.extra_vms, "extra_vms", minimum=0))
        as_instance(self.cluster, dict, "cluster")

    def job(self, name: str) -> dict[str, Any]:
        for record in self.jobs:
            if record["name"] == name:
                return record
        raise KeyError(name)

    @property
    def busy_vm_seconds(self) -> float:
        """Primary-VM seconds held by primary and host jobs."""
        return float(sum(r["vms"] * r["runtime"] for r in self.jobs if r["role"] != "extra"))

    @property
    def utilization(self) -> float:
        """Busy primary-VM seconds over N * makespan."""
        return self.busy_vm_seconds / (self.vms * self.makespan) if self.makespan > 0 else 0.0

    def summary(self) -> dict[str, Any]:
        """The headline numbers as one flat record."""
        return {
            "mode": "backfill" if self.backfill else "barrier",
            "jobs": len(self.jobs),
            "phases": len(self.phases),
            "makespan": self.makespan,
            "mean_finish": sum(r["finish"] for r in self.jobs) / len(self.jobs),
            "utilization": self.utilization,
            "noise": self.noise,
            "seed": self.seed,
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "summary": self.summary(),
            "seed": self.seed,
            "noise": self.noise,
            "backfill": self.backfill,
            "vms": self.vms,
            "extra_vms": self.extra_vms,
            "cluster": self.cluster,
            "jobs": self.jobs,
            "phases": self.phases,
        }

    def to_json(self) -> str:
        """The whole result as JSON text: same inputs and seed give the same bytes."""
        return json.dumps(self.to_dict(), indent=1, sort_keys=True)

    def plot_gantt(self, ax: Axes | None = None) -> Axes:
        """Jobs as bars on their VMs (see `planner.plots.plot_vm_schedule`)."""
        from planner.plots import plot_vm_schedule

        return plot_vm_schedule(self, ax=ax)


def _check_jobs(jobs: Workload | Iterable[Job]) -> list[Job]:
    jobs = list(jobs) if isinstance(jobs, Workload) else as_list(jobs, "jobs", what="a Workload or a list of Jobs",
                                                                 maximum=MAX_JOBS)
    if not jobs:
        raise InvalidInput("jobs", "need at least one job")
    seen: set[str] = set()
    for i, job in enumerate(jobs):
        as_instance(job, Job, f"jobs[{i}]")
        if job.name in seen:
            raise InvalidInput(f"jobs[{i}].name", f"{job.name!r} appears twice")
        seen.add(job.name)
    return jobs


def check_vm_groups(jobs: Sequence[Job], cluster: Cluster, groups: object) -> list[list[_Entry]]:
    """The phases of ``groups`` checked against the capacity rule (module docstring).

    Malformed values (an entry that is not (name, VMs, role), VMs not an integer
    >= 1, an unknown role) raise `InvalidInput`; a plan that breaks a rule (an
    unknown job, a job in two phases or in none, an empty phase, more than N
    VMs, a role the job's intensity does not allow, a phase over capacity, a job
    without a runtime profile) raises `InvalidPlan`. Messages name the phase
    index and the job.
    """
    index = {job.name: i for i, job in enumerate(jobs)}
    n, r = cluster.vms, cluster.primaries_per_extra
    if isinstance(groups, str | bytes) or not isinstance(groups, Iterable):
        raise InvalidInput("groups", f"must be a list of phases, got {type(groups).__name__}")
    phases: list[list[_Entry]] = []
    placed: dict[str, int] = {}
    for p, phase in enumerate(groups):
        if isinstance(phase, str | bytes) or not isinstance(phase, Iterable):
            raise InvalidInput(f"groups[{p}]", f"phase {p}: must be a list of (job, vms, role), got {phase!r}")
        entries = []
        for e, item in enumerate(phase):
            where = f"groups[{p}][{e}]"
            if isinstance(item, str | bytes) or not isinstance(item, Sequence) or len(item) != 3:
                raise InvalidInput(where, f"phase {p}: must be (job name, vms, role), got {item!r}")
            name, vms, role = item
            if not isinstance(name, str):
                raise InvalidInput(f"{where}.job", f"phase {p}: must be a job name, got {name!r}")
            if name not in index:
                raise InvalidPlan(f"phase {p}, job {name!r}: not one of the {len(jobs)} jobs")
            if name in placed:
                raise InvalidPlan(f"phase {p}, job {name!r}: already runs in phase {placed[name]}")
            placed[name] = p
            try:
                vms = as_int(vms, f"{where}.vms", minimum=1)
            except InvalidInput as error:
                raise InvalidInput(error.field, f"phase {p}, job {name!r}: {error.problem}") from None
            if role not in VM_ROLES:
                raise InvalidInput(f"{where}.role",
                                   f"phase {p}, job {name!r}: must be one of {', '.join(VM_ROLES)}; got {role!r}")
            job = jobs[index[name]]
            if vms > n:
                raise InvalidPlan(f"phase {p}, job {name!r}: {vms} VMs, more than the N = {n} of the cluster")
            if role == "host" and job.intensity != "io":
                raise InvalidPlan(f"phase {p}, job {name!r}: only io jobs may host extra VMs ({job.intensity})")
            if role == "extra" and job.intensity != "cpu":
                raise InvalidPlan(f"phase {p}, job {name!r}: only cpu jobs may run on extra VMs ({job.intensity})")
            if job.profile is None:
                raise InvalidPlan(f"phase {p}, job {name!r}: has no runtime profile (VM-level runs need F_j(n))")
            entries.append(_Entry(index[name], name, p, vms, role))
        if not entries:
            raise InvalidPlan(f"phase {p}: is empty")
        primary = sum(x.vms for x in entries if x.role != "extra")
        if primary > n:
            raise InvalidPlan(f"phase {p}: primary and host jobs use {primary} VMs, more than N = {n} "
                              f"({', '.join(x.name for x in entries if x.role != 'extra')})")
        hosts = sum(x.vms for x in entries if x.role == "host")
        extras = sum(x.vms for x in entries if x.role == "extra")
        if r * extras > hosts:
            raise InvalidPlan(f"phase {p}: r * extra VMs = {r} * {extras} exceeds the host VMs ({hosts}) "
                              f"({', '.join(x.name for x in entries if x.role == 'extra')})")
        phases.append(entries)
    missing = [job.name for job in jobs if job.name not in placed]
    if missing:
        raise InvalidPlan(f"job {missing[0]!r}: runs in no phase ({len(missing)} of {len(jobs)} jobs missing)")
    for job in jobs:
        for dependency in job.after:
            if dependency.job in placed and placed[dependency.job] > placed[job.name]:
                raise InvalidPlan(f"phase {placed[job.name]}, job {job.name!r}: waits for {dependency.job!r}, which "
                                  f"runs in the later phase {placed[dependency.job]}")
    return phases


def _noise_factors(count: int, seed: int, noise: float) -> list[float]:
    """One lognormal factor per job (mean 1, coefficient of variation ``noise``), job i drawn
    from the i-th child of SeedSequence(seed); all 1.0 when ``noise`` is 0."""
    if noise == 0:
        return [1.0] * count
    sigma2 = math.log1p(noise * noise)
    return [float(np.random.default_rng(child).lognormal(-sigma2 / 2, math.sqrt(sigma2)))
            for child in np.random.SeedSequence(seed).spawn(count)]


def _units(phases: list[list[_Entry]], precedence: Precedence | None = None) -> list[list[_Entry]]:
    """What backfill starts as one gang, in plan order: each primary job alone, and each phase's
    host and extra jobs together (at the place of the first of them), so extras start beside the
    hosts the plan priced them with. With dependencies a phase's gangs come in plan order as far
    as its dependencies allow: a gang after those holding its jobs' predecessors of the same phase
    (`_in_dependency_order`)."""
    units: list[list[_Entry]] = []
    for phase in phases:
        gangs: list[list[_Entry]] = []
        overcommitted: list[_Entry] | None = None
        for entry in phase:
            if entry.role == "primary":
                gangs.append([entry])
            elif overcommitted is None:
                overcommitted = [entry]
                gangs.append(overcommitted)
            else:
                overcommitted.append(entry)
        units.extend(gangs if precedence is None else _in_dependency_order(gangs, precedence))
    return units


def _in_dependency_order(gangs: list[list[_Entry]], precedence: Precedence) -> list[list[_Entry]]:
    """One phase's gangs, each after the gangs holding its jobs' predecessors (the earliest in plan
    order first among those free to go); a gang that must both precede and follow another (its
    host waits for a primary that waits for its extra, say) is refused (`InvalidPlan`)."""
    gang_of = {entry.job: number for number, gang in enumerate(gangs) for entry in gang}
    waits: list[set[int]] = [set() for _ in gangs]  # gang -> the gangs it waits for
    followers: list[set[int]] = [set() for _ in gangs]
    for number, gang in enumerate(gangs):
        for entry in gang:
            for before, _ in precedence.predecessors[entry.job]:
                other = gang_of.get(before)
                if other is not None and other != number:
                    waits[number].add(other)
                    followers[other].add(number)
    free = [number for number, waited in enumerate(waits) if not waited]
    heapq.heapify(free)
    placed: list[list[_Entry]] = []
    done: set[int] = set()
    while free:
        number = heapq.heappop(free)
        placed.append(gangs[number])
        done.add(number)
        for other in followers[number]:
            waits[other].discard(number)
            if not waits[other]:
                heapq.heappush(free, other)
    if len(placed) < len(gangs):
        stuck = next(gang for number, gang in enumerate(gangs) if number not in done)
        raise InvalidPlan(f"phase {stuck[0].phase}: with backfill the host and extra jobs start together "
                          f"({', '.join(entry.name for entry in stuck)}), but their dependencies within the phase "
                          "need a job of theirs to wait for another job that waits for one of them")
    return placed


class _Pools:
    """Free primary and extra VM ids (lowest first) and the running gangs, released at their finish."""

    def __init__(self, vms: int, extra_vms: int) -> None:
        self.free = {"primary": list(range(vms)), "extra": list(range(extra_vms))}
        self.running: list[tuple[float, int, str, list[int]]] = []  # (finish, seq, pool, ids)
        self.seq = 0

    def release_until(self, time: float) -> None:
        while self.running and self.running[0][0] <= time:
            _, _, pool, ids = heapq.heappop(self.running)
            for vm in ids:
                heapq.heappush(self.free[pool], vm)

    def fits(self, need: dict[str, int]) -> bool:
        return all(len(self.free[pool]) >= count for pool, count in need.items())

    def next_release(self) -> float:
        return self.running[0][0]

    def take(self, pool: str, count: int, finish: float) -> list[int]:
        ids = sorted(heapq.heappop(self.free[pool]) for _ in range(count))
        heapq.heappush(self.running, (finish, self.seq, pool, ids))
        self.seq += 1
        return ids


def _pool(role: str) -> str:
    return "extra" if role == "extra" else "primary"


class _Readiness:
    """When each job may start on its VMs (the module docstring's arrivals and dependencies)."""

    def __init__(self, jobs: Sequence[Job]) -> None:
        self.submits = [float(job.submit) for job in jobs]
        self.precedence = Precedence(jobs) if any(job.after for job in jobs) else None
        self.ready = list(self.submits)
        self.held_by: list[int | None] = [None] * len(jobs)
        self.rank = [0] * len(jobs)  # position -> place in the graph's topological order
        if self.precedence is not None:
            for place, position in enumerate(self.precedence.order):
                self.rank[position] = place

    def start(self, entries: Sequence[_Entry], taken: float, runtime: dict[int, float],
              start: dict[int, float], finish: dict[int, float]) -> None:
        """``entries`` hold their VMs from ``taken``: each starts then or once ready, predecessors
        of the same group first (a dependency inside a group is met in the graph's order)."""
        precedence = self.precedence
        ordered = list(entries) if precedence is None else sorted(entries, key=lambda entry: self.rank[entry.job])
        for entry in ordered:
            position = entry.job
            if precedence is not None:
                at, held = self.submits[position], None
                for before, delay in precedence.predecessors[position]:
                    if finish[before] + delay > at:  # placed in this group or an earlier one: finish known
                        at, held = finish[before] + delay, before
                self.ready[position], self.held_by[position] = at, held
            start[position] = max(taken, self.ready[position])
            finish[position] = start[position] + runtime[position]


def simulate_vms(
    jobs: Workload | Iterable[Job],
    cluster: Cluster,
    groups: Sequence[Sequence[Sequence[Any]]],
    *,
    seed: int = 0,
    noise: float = 0.0,
    backfill: bool = False,
) -> VmResult:
    """Run a VM-level plan (phases of ``(job name, vms, role)``, module docstring) and report it.

    Every job of ``jobs`` must appear in exactly one phase; ``groups`` is checked by
    `check_vm_groups` first. Job j on n VMs runs for F_j(n) seconds (alpha * F_j(n) as host or
    extra), times a lognormal factor with mean 1 and coefficient of variation ``noise`` when
    ``noise`` > 0. The factors are drawn per job from SeedSequence(seed) spawned in the order of
    ``jobs``, so they depend neither on the plan nor on the mode: a barrier run and a backfill run
    with the same seed see the same runtimes.

    ``backfill=False`` (phase barriers): phase 0 starts at 0 and phase p + 1 starts when every job
    of phase p has finished; all jobs of a phase take their VMs together, and each runs on them from
    its ready time (the module docstring: its submit time, its predecessors' finishes plus delays).
    For a batch submitted at 0 without dependencies, without noise the makespan is the sum of the
    phases' longest runtimes, the packing model's objective, to the last bit (each phase start is
    the running sum of the lengths, in phase order).

    ``backfill=True`` (in-order list scheduling): the plan is cut into gangs in plan order (each
    primary job alone; a phase's host and extra jobs together; within a phase, a gang after those
    holding its predecessors) and each gang takes its VMs at the first instant, no earlier than the
    gang before it, at which enough VMs of each kind are free for all its jobs (primary VMs for
    primary and host jobs, extra VMs, at most E = floor(N / r), for extras); each of its jobs runs
    on them from its ready time. Gangs never overtake each other, and the rule only needs to know
    which jobs have finished, so an online scheduler can apply it.

    Backfill never makes the makespan longer (for any runtimes, so with noise too, given the same
    draws). Let B_p be the barrier start of phase p, so B_{p+1} is the last finish of phase p's jobs.
    Claim: every gang of phase p takes its VMs at s <= B_p and each job finishes no later than under
    barriers. By induction over the gangs in their order: the gangs before it took theirs no later
    than their phases' barrier starts and their jobs finished no later, so every job of a phase
    q < p finished by B_{q+1} <= B_p, and the previous gang took its VMs at or before B_p. At B_p the
    only jobs holding VMs are therefore the phase-p jobs of earlier gangs, and the jobs of phase p
    fit together (the phase check: primary + host <= N, and extras <= hosts / r <= N / r, so <= E).
    Later gangs have not started (no overtaking), so the gang fits at B_p and takes its VMs at the
    latest then. A job's predecessors finished no later than under barriers, so it is ready no
    later, and starts at max(s, ready) <= max(B_p, its barrier ready time), its barrier start: it
    finishes no later, by B_{p+1}, and the last finish is at most the barrier makespan.

    Returns a `VmResult`. Raises `InvalidInput` for wrong values (seed, noise above
    `MAX_TASK_TIME_CV`, malformed entries, VMs not an integer >= 1, unknown role; `InvalidType` for
    a wrong type) and `InvalidPlan` for a plan that breaks a rule, each naming the phase index and
    the job.
    """
    jobs = _check_jobs(jobs)
    as_instance(cluster, Cluster, "cluster")
    seed = as_int(seed, "seed", minimum=0)
    # a larger coefficient of variation draws factors of 0 or infinity (MAX_TASK_TIME_CV)
    noise = as_float(noise, "noise", minimum=0.0, maximum=MAX_TASK_TIME_CV)
    backfill = as_bool(backfill, "backfill")
    phases = check_vm_groups(jobs, cluster, groups)
    alpha = cluster.overcommit_penalty
    factors = _noise_factors(len(jobs), seed, noise)
    planned: dict[int, float] = {}
    runtime: dict[int, float] = {}
    for entry in (e for phase in phases for e in phase):
        seconds = jobs[entry.job].runtime(entry.vms)
        planned[entry.job] = seconds * alpha if entry.role != "primary" else seconds
        runtime[entry.job] = planned[entry.job] * factors[entry.job]

    pools = _Pools(cluster.vms, cluster.extra_vms)
    readiness = _Readiness(jobs)
    start: dict[int, float] = {}
    finish: dict[int, float] = {}
    ids: dict[int, list[int]] = {}
    if backfill:
        now = 0.0
        for unit in _units(phases, readiness.precedence):
            need: dict[str, int] = {}
            for entry in unit:
                need[_pool(entry.role)] = need.get(_pool(entry.role), 0) + entry.vms
            pools.release_until(now)
            while not pools.fits(need):  # the phase check makes every gang fit on an idle cluster
                now = pools.next_release()
                pools.release_until(now)
            readiness.start(unit, now, runtime, start, finish)
            for entry in unit:
                ids[entry.job] = pools.take(_pool(entry.role), entry.vms, finish[entry.job])
    else:
        now = 0.0
        for phase in phases:
            pools.release_until(now)  # everything: now is the last finish so far
            readiness.start(phase, now, runtime, start, finish)
            for entry in phase:
                ids[entry.job] = pools.take(_pool(entry.role), entry.vms, finish[entry.job])
            now = max(finish[entry.job] for entry in phase)

    records = [
        {
            "name": e.name, "phase": e.phase, "vms": e.vms, "role": e.role, "submit": jobs[e.job].submit,
            "ready": readiness.ready[e.job],
            "held_by": None if readiness.held_by[e.job] is None else jobs[readiness.held_by[e.job]].name,
            "start": start[e.job],
            "finish": finish[e.job], "runtime": runtime[e.job], "planned": planned[e.job],
            "vm_ids": ids[e.job],
        }
        for phase in phases for e in phase
    ]
    phase_records = [
        {
            "phase": p,
            "start": min(start[e.job] for e in phase),
            "end": max(finish[e.job] for e in phase),
            "vms_used": sum(e.vms for e in phase if e.role != "extra"),
            "extra_vms_used": sum(e.vms for e in phase if e.role == "extra"),
        }
        for p, phase in enumerate(phases)
    ]
    return VmResult(
        makespan=max(finish.values()),
        jobs=records,
        phases=phase_records,
        seed=seed,
        noise=noise,
        backfill=bool(backfill),
        vms=cluster.vms,
        extra_vms=cluster.extra_vms,
        cluster=cluster.to_dict(),
    )
