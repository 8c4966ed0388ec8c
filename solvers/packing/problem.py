"""Multi-phase overcommit packing (Packing paper, section 5).

A schedule is a sequence of phases run one after another. Each job runs in
exactly one phase, on n_j in 1..N VMs, in one role:

- "primary": an ordinary job on primary VMs, taking F_j(n_j);
- "host": an "io" job whose primary VMs accept overcommitted extra VMs,
  taking alpha * F_j(n_j);
- "extra": a "cpu" job on extra VMs beside hosts, taking alpha * F_j(n_j).

In each phase the VMs of its primary and host jobs sum to at most N, and r
times the VMs of its extra jobs is at most the VMs of its host jobs. A phase
lasts as long as its longest job; the objective is the sum of phase lengths.
`evaluate_phases` checks every rule; every method's result passes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from models import Cluster, InvalidInput, InvalidPlan, Job
from models.checks import as_array, as_float, as_instance, as_int, as_items, as_str, shown
from models.workload import as_jobs
from solvers.base import Solution, SolveStatus, Stopwatch, check_time_limit, method_choice, relative_gap
from solvers.certify import proven_bound
from solvers.packing.precedence import check_precedence, order_phases, precedence_pairs, repair_phases
from solvers.pairs.problem import check_cluster, profile_times
from solvers.registry import lookup as find_method

PROBLEM = "packing"
#: VMs (nodes x disks) of a cluster for packing: the exact packing keeps tables of levels x N^2
#: numbers (about 650 MB at 128 VMs for five jobs, 2 GB at 200).
MAX_PACKING_VMS = 128
#: Pairs of jobs (jobs x (jobs - 1) / 2) the greedy schedule prices ("milp" and "milp-compact"
#: start from it; "pso" keeps a particle's numbers for every job and VM count): 1,000 jobs
#: (499,500 pairs) took 25 s and 450 MB, 2,000 jobs 92 s and 1.3 GB (greedy, 40 VMs, a loaded
#: machine); 100,000 jobs would be 5e9 pairs.
MAX_PACKING_PAIRS = 500_000
ROLES = ("primary", "host", "extra")
#: Methods that solve the packing with dependencies themselves (`solvers.packing.precedence`).
PRECEDENCE_METHODS = ("exhaustive",)


@dataclass(frozen=True)
class Placement:
    """Job index ``job`` on ``vms`` VMs in ``role`` (one of `ROLES`)."""

    job: int
    vms: int
    role: str

    def __post_init__(self) -> None:
        if type(self.job) is int and type(self.vms) is int and self.job >= 0 and self.vms >= 1 and self.role in ROLES:
            return  # the methods make these by the thousand: the common case checked in a few comparisons
        object.__setattr__(self, "job", as_int(self.job, "job", minimum=0))
        object.__setattr__(self, "vms", as_int(self.vms, "vms", minimum=1))
        object.__setattr__(self, "role", as_str(self.role, "role", choices=ROLES))


@dataclass(frozen=True)
class PhaseSchedule(Solution):
    """``phases``: a tuple of phases, each a tuple of placements (job index, VMs, role)."""

    phases: tuple[tuple[Placement, ...], ...] = ()
    sequential_baseline: float = 0.0

    def __post_init__(self) -> None:
        super().__post_init__()
        phases = tuple(
            tuple(as_instance(pl, Placement, f"phases[{p}][{k}]") for k, pl in enumerate(as_items(phase, f"phases[{p}]")))
            for p, phase in enumerate(as_items(self.phases, "phases"))
        )
        object.__setattr__(self, "phases", phases)
        object.__setattr__(self, "sequential_baseline",
                           as_float(self.sequential_baseline, "sequential_baseline", minimum=0.0))


@dataclass(frozen=True)
class PackingInstance:
    """What every packing method needs: ``times[j, n - 1, 0]`` = F_j(n) (primary) and
    ``times[j, n - 1, 1]`` = alpha * F_j(n) (host or extra), and who may take which role."""

    times: np.ndarray
    can_host: np.ndarray
    can_extra: np.ndarray
    vms: int
    per_extra: int
    #: (predecessor, successor) job pairs: a job runs in a later phase than each job it waits for
    #: (`solvers.packing.precedence`); empty: no dependencies.
    precedence: tuple[tuple[int, int], ...] = ()

    def __post_init__(self) -> None:
        put = object.__setattr__
        times = as_array(self.times, "times", ndim=3)
        put(self, "vms", as_int(self.vms, "vms", minimum=1))
        if times.shape[1:] != (self.vms, 2) or not np.all(times > 0):
            raise InvalidInput("times", f"must be positive, of shape (jobs, vms = {self.vms}, 2), got shape "
                                        f"{times.shape}")
        put(self, "times", times)
        for name in ("can_host", "can_extra"):
            flags = as_array(getattr(self, name), name, kind="bool")
            if flags.shape != times.shape[:1]:
                raise InvalidInput(name, f"must hold one flag per job ({times.shape[0]}), got shape {flags.shape}")
            put(self, name, flags)
        put(self, "per_extra", as_int(self.per_extra, "per_extra", minimum=1))

    @property
    def jobs(self) -> int:
        return self.times.shape[0]

    def time(self, job: int, vms: int, role: str) -> float:
        return float(self.times[job, vms - 1, 0 if role == "primary" else 1])

    @property
    def sequential(self) -> float:
        return float(self.times[:, self.vms - 1, 0].sum())


def check_packing_size(jobs: int) -> None:
    """Refuse, before anything is built, more job pairs than `MAX_PACKING_PAIRS`."""
    pairs = jobs * (jobs - 1) // 2
    if pairs > MAX_PACKING_PAIRS:
        raise InvalidInput("jobs", f"packing: {jobs:,} jobs make {pairs:,} pairs to price; at most "
                                   f"{MAX_PACKING_PAIRS:,} (MAX_PACKING_PAIRS, 1,000 jobs)")


def packing_instance(jobs: Sequence[Job], cluster: Cluster) -> PackingInstance:
    jobs = as_jobs(jobs)
    cluster = check_cluster(cluster)
    if not jobs:
        raise InvalidInput("jobs", "need at least one job")
    check_packing_size(len(jobs))
    if cluster.vms > MAX_PACKING_VMS:
        raise InvalidInput("disks", f"packing plans take at most {MAX_PACKING_VMS} VMs (nodes x disks); this cluster "
                                    f"has {cluster.vms:,}")
    counts = np.arange(1, cluster.vms + 1)
    primary = np.array([profile_times(job, counts) for job in jobs]).reshape(len(jobs), cluster.vms)
    times = np.stack([primary, primary * cluster.overcommit_penalty], axis=2)
    intensity = np.array([job.intensity for job in jobs])
    return PackingInstance(times, intensity == "io", intensity == "cpu", cluster.vms, cluster.primaries_per_extra,
                           precedence_pairs(jobs))


def _check_placements(schedule: PhaseSchedule | Sequence, instance: PackingInstance) -> list[list[Placement]]:
    phases = schedule.phases if isinstance(schedule, PhaseSchedule) else schedule
    checked: list[list[Placement]] = []
    seen: dict[int, int] = {}
    for p, phase in enumerate(phases):
        if not phase:
            raise InvalidPlan(f"phase {p}: is empty")
        placements = []
        for item in phase:
            job, vms, role = (item.job, item.vms, item.role) if isinstance(item, Placement) else item
            if not isinstance(job, int | np.integer) or not 0 <= job < instance.jobs:
                raise InvalidPlan(f"phase {p}: job index {job!r} is not one of the {instance.jobs} jobs")
            job = int(job)
            if job in seen:
                raise InvalidPlan(f"phase {p}, job {job}: already runs in phase {seen[job]}")
            seen[job] = p
            if not isinstance(vms, int | np.integer) or not 1 <= vms <= instance.vms:
                raise InvalidPlan(f"phase {p}, job {job}: VMs must be in 1..{instance.vms}, got {vms!r}")
            if role not in ROLES:
                raise InvalidPlan(f"phase {p}, job {job}: role must be one of {', '.join(ROLES)}, got {role!r}")
            if role == "host" and not instance.can_host[job]:
                raise InvalidPlan(f"phase {p}, job {job}: only io jobs may host extra VMs")
            if role == "extra" and not instance.can_extra[job]:
                raise InvalidPlan(f"phase {p}, job {job}: only cpu jobs may run on extra VMs")
            placements.append(Placement(job, int(vms), role))
        primary = sum(pl.vms for pl in placements if pl.role != "extra")
        if primary > instance.vms:
            raise InvalidPlan(f"phase {p}: primary and host jobs use {primary} VMs, more than N = {instance.vms}")
        hosts = sum(pl.vms for pl in placements if pl.role == "host")
        extras = sum(pl.vms for pl in placements if pl.role == "extra")
        if instance.per_extra * extras > hosts:
            raise InvalidPlan(
                f"phase {p}: r * extra VMs = {instance.per_extra} * {extras} exceeds the host VMs ({hosts})"
            )
        checked.append(placements)
    missing = sorted(set(range(instance.jobs)) - set(seen))
    if missing:
        raise InvalidPlan(f"job {missing[0]}: runs in no phase")
    return checked


def evaluate_phases(schedule: PhaseSchedule | Sequence, jobs: Sequence[Job], cluster: Cluster) -> float:
    """Check every rule of the model (raising `InvalidPlan` naming the rule, phase and job) and
    return the objective, the sum of phase lengths. ``schedule``: a `PhaseSchedule`, or its phases
    as sequences of `Placement` or (job index, VMs, role) triples."""
    instance = packing_instance(jobs, cluster)
    phases = schedule.phases if isinstance(schedule, PhaseSchedule) else _phases_given(schedule)
    try:
        checked = _check_placements(phases, instance)
        check_precedence(checked, instance.precedence)
    except InvalidPlan as error:
        raise InvalidPlan(f"schedule: {error}") from None
    return phase_total(checked, instance)


def _phases_given(schedule: object) -> list[list[Placement | tuple]]:
    phases = []
    for p, phase in enumerate(as_items(schedule, "schedule")):
        items = []
        for k, item in enumerate(as_items(phase, f"schedule[{p}]")):
            if not isinstance(item, Placement):
                item = tuple(as_items(item, f"schedule[{p}][{k}]"))
                if len(item) != 3:
                    raise InvalidInput(f"schedule[{p}][{k}]", f"must be (job index, VMs, role), got {shown(item)}")
            items.append(item)
        phases.append(items)
    return phases


def evaluate_placements(phases: Sequence[Sequence[Placement]], instance: PackingInstance) -> float:
    """`evaluate_phases` on an instance: every rule checked (`InvalidPlan`), then the objective."""
    return phase_total(_check_placements(phases, instance), instance)


def phase_total(phases: Sequence[Sequence[Placement]], instance: PackingInstance) -> float:
    return float(sum(max(instance.time(pl.job, pl.vms, pl.role) for pl in phase) for phase in phases))


def simple_bound(instance: PackingInstance) -> float:
    """A bound on every schedule that needs no solver: the larger of

    - the longest of the jobs' fastest runs (the phase holding that job lasts at least that long);
    - the area bound (`split_area_bound`): primary and host VMs fill at most N per phase-second
      and extra VMs at most N / r, so with a_j the least VM-seconds of job j on primary room
      (as a primary or a host) and e_j its least as an extra, any placement lasts at least
      max(sum a_j over the jobs on primary room, r sum e_j over the extras) / N; the least of
      that over every split of the jobs, with jobs split fractionally, is a bound. It is at
      least half of sum min(a_j, r e_j) / N (the bound before it) and sum a_j / N when no job
      may ride as an extra.
    """
    times = instance.times
    vms = np.arange(1, instance.vms + 1, dtype=np.float64)
    overcommits = instance.can_host | instance.can_extra
    fastest = np.where(overcommits, times.min(axis=(1, 2)), times[:, :, 0].min(axis=1))
    primary = (vms * times[:, :, 0]).min(axis=1)
    host = np.where(instance.can_host, (vms * times[:, :, 1]).min(axis=1), np.inf)
    on_primary = np.minimum(primary, host) / instance.vms
    extra = np.where(instance.can_extra, instance.per_extra * (vms * times[:, :, 1]).min(axis=1) / instance.vms,
                     np.inf)
    return max(float(fastest.max(initial=0.0)), split_area_bound(on_primary, extra))


def split_area_bound(first: np.ndarray, second: np.ndarray) -> float:
    """min over x in [0, 1]^J of max(sum x_j first_j, sum (1 - x_j) second_j): two resources, each
    job's load on either (``second`` may be inf: that job must take the first). With the first
    resource's load L fixed, the second's least load is a fractional knapsack: the jobs that
    save the most of the second per unit of the first go first. So the jobs are taken in the
    order of second / first, largest first, and the answer is where the two loads meet (or the
    first resource's whole load, when every job is on it and it is still the lighter)."""
    first = np.asarray(first, dtype=np.float64)
    second = np.asarray(second, dtype=np.float64)
    forced = np.isinf(second)
    load_first = float(first[forced].sum())
    free = np.flatnonzero(~forced)
    load_second = float(second[free].sum())
    ratio = second[free] / first[free]
    for job in free[np.lexsort((free, -ratio))]:  # largest ratio first, ties by index
        a, b = float(first[job]), float(second[job])
        if load_first >= load_second:
            break
        if load_first + a >= load_second - b:  # the loads meet within this job
            return load_first + (load_second - load_first) / (a + b) * a
        load_first, load_second = load_first + a, load_second - b
    return max(load_first, load_second)


def grow_longest(instance: PackingInstance, phase: Sequence[Placement]) -> list[Placement]:
    """The phase with its longest job given one more VM at a time (primary room for primary and
    host jobs, extra capacity for extras) while there is room and that shortens it; ties go to
    the lowest job index. Never lengthens the phase."""
    grown = [[pl.job, pl.vms, pl.role] for pl in phase]
    n, r = instance.vms, instance.per_extra
    while True:
        longest = max(grown, key=lambda item: (instance.time(item[0], item[1], item[2]), -item[0]))
        job, vms, role = longest
        if role == "extra":
            hosts = sum(v for _, v, rl in grown if rl == "host")
            room = r * (sum(v for _, v, rl in grown if rl == "extra") + 1) <= hosts
        else:
            room = sum(v for _, v, rl in grown if rl != "extra") < n
        if not room or vms >= n or instance.time(job, vms + 1, role) >= instance.time(job, vms, role):
            return [Placement(j, v, rl) for j, v, rl in grown]
        longest[1] += 1


def make_schedule(
    phases: Sequence[Sequence[Placement]], instance: PackingInstance, status: SolveStatus, solver: str,
    clock: Stopwatch, bound: float | None = None,
) -> PhaseSchedule:
    """A validated schedule: phases checked, each sorted by job, phases in order of their first job
    (with dependencies: in the order nearest that which respects them, `order_phases`; phases that
    no order makes respect them are an `InvalidPlan`)."""
    checked = _check_placements([list(p) for p in phases], instance)
    ordered = sorted((tuple(sorted(p, key=lambda pl: pl.job)) for p in checked), key=lambda p: p[0].job)
    if instance.precedence:
        kept = order_phases(ordered, instance.precedence)
        if kept is None:
            raise InvalidPlan(f"{solver}: its phases run a job with one it waits for, or in no order that respects "
                              "the dependencies")
        ordered = [tuple(phase) for phase in kept]
    total = phase_total(ordered, instance)
    if status is SolveStatus.OPTIMAL:
        bound = total if bound is None else proven_bound(total, bound)
    return PhaseSchedule(status, total, bound, relative_gap(total, bound), solver, clock.seconds, tuple(ordered),
                         instance.sequential)


def pack_phases(
    jobs: Sequence[Job], cluster: Cluster, method_name: str | None = None, *, method: str | None = None,
    time_limit: float = 60.0, seed: int = 0, **options: object,
) -> PhaseSchedule:
    """Pack the jobs into phases minimizing the sum of phase lengths (module docstring).

    ``method`` names a registered packing method ("milp", the default, "milp-compact",
    "pso" or "greedy"); ``method_name``, its older spelling, still works.

    Jobs that wait for jobs (``after``) run in later phases than the jobs they wait for
    (`solvers.packing.precedence`): "exhaustive" solves that problem exactly; the other methods'
    schedules are ordered so, or repaired (status "feasible", the method's bound kept). A
    dependency with a delay is refused."""
    chosen = method_choice(method, method_name, "milp", PROBLEM)
    time_limit = check_time_limit(time_limit)
    seed = as_int(seed, "seed", minimum=0)
    solve = find_method(PROBLEM, chosen).solve
    instance = packing_instance(jobs, cluster)
    if not instance.precedence or chosen in PRECEDENCE_METHODS:
        return solve(instance, time_limit=time_limit, seed=seed, **options)
    # the method packs without the dependencies; its phases are ordered, or repaired, to respect them
    clock = Stopwatch()
    free = solve(replace(instance, precedence=()), time_limit=time_limit, seed=seed, **options)
    if order_phases(free.phases, instance.precedence) is not None:
        return make_schedule(free.phases, instance, free.status, free.solver, clock, free.bound)
    repaired = repair_phases(free.phases, instance.precedence, instance, Placement, grow_longest)
    status = SolveStatus.FEASIBLE if free.status is SolveStatus.OPTIMAL else free.status
    return make_schedule(repaired, instance, status, f"{free.solver}, repaired for dependencies", clock, free.bound)
