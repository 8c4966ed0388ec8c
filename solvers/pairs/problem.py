"""VM pair scheduling (Packing paper, section 4): pair jobs so the groups, run one after another,
finish soonest.

Each job j has a runtime profile F_j(n) on n VMs. The cluster has P machines, k
primary VMs per machine (N = P * k) and one extra VM per r primaries, with
overcommit penalty alpha. Two jobs i, j can run

- sequentially: F_i(N) + F_j(N);
- concurrently, splitting the primaries: min over x in 1..N-1 of
  max(F_i(x), F_j(N - x)) (the smallest such x is the split);
- overcommitted, when one is "io" and the other "cpu": the io job on all N
  primaries and the cpu job on the P * k / r extra VMs beside them, both slowed
  by alpha: alpha * max(F_io(N), F_cpu(P * k / r)).

A pair costs the cheapest of the three (sequential, then concurrent, then
overcommit on ties). `schedule_pairs` partitions the jobs into pairs, plus one
job alone (F_i(N)) when their number is odd, minimizing the total: a
minimum-weight perfect matching on the jobs (and a dummy partner whose edges
cost F_i(N) when the count is odd).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from models import Cluster, InvalidInput, Job
from models.checks import as_array, as_float, as_instance, as_int, as_items, as_str, shown
from models.workload import as_jobs
from solvers.base import Solution, SolveStatus, Stopwatch, check_time_limit, method_choice, relative_gap
from solvers.certify import proven_bound
from solvers.registry import lookup as find_method
from solvers.registry import register_method

PROBLEM = "pairs"
MODES = ("sequential", "concurrent", "overcommit", "alone")
EXHAUSTIVE_LIMIT = 12
#: Entries of a pair matrix (jobs^2, one more job when their number is odd), checked before any is
#: built: the costs keep a dozen such matrices, about 115 bytes an entry in all (4,000 jobs on 40
#: VMs: 1.8 GB; the `pairs` benchmark's largest batch is 2,000 jobs).
MAX_PAIR_ENTRIES = 16_000_000
#: Pairs times the splits their concurrent cost tries (jobs^2 x (VMs - 1)): 2,000 jobs on 40 VMs
#: are 1.6e8, priced in about 3 s.
MAX_PAIR_SPLITS = 2_000_000_000
#: Numbers of one block of the concurrent costs (a block of jobs against all, at every split).
BLOCK_ENTRIES = 2**25


def profile_times(job: Job, vms: np.ndarray) -> np.ndarray:
    """F_j at each VM count in ``vms`` (positive and finite, or an InvalidInput naming the job)."""
    if job.profile is None:
        raise InvalidInput(f"{job.name}.profile", "VM-level planning needs a runtime profile on every job")
    vms = np.asarray(vms, dtype=np.float64)
    try:
        values = np.asarray(job.profile(vms), dtype=np.float64)
    except (TypeError, ValueError):
        values = None
    if values is None or values.shape != vms.shape:  # a profile that takes one n at a time
        values = np.array([float(job.profile(float(v))) for v in vms.ravel()]).reshape(vms.shape)
    if not np.all(np.isfinite(values)) or np.any(values <= 0):
        raise InvalidInput(f"{job.name}.profile", "predicted a non-positive or non-finite runtime")
    return values


@dataclass(frozen=True)
class PairCost:
    """The ways to run two jobs: one after the other (``sequential``), side by side on a split of
    the VMs (``concurrent``, with ``split`` VMs for the first job; inf and None when the cluster has
    a single VM), or overcommitted (``overcommit``; inf unless one job is "io" and the other
    "cpu"); ``best`` is the cheapest, finite, and ``mode`` its name."""

    sequential: float
    concurrent: float
    split: int | None
    overcommit: float
    best: float
    mode: str

    def __post_init__(self) -> None:
        put = object.__setattr__
        put(self, "sequential", as_float(self.sequential, "sequential", minimum=0.0))
        for name in ("concurrent", "overcommit"):  # inf: the mode does not apply to the pair
            value = getattr(self, name)
            put(self, name, math.inf if value == math.inf else as_float(value, name, minimum=0.0))
        if self.split is not None:
            put(self, "split", as_int(self.split, "split", minimum=1))
        put(self, "best", as_float(self.best, "best", minimum=0.0))
        put(self, "mode", as_str(self.mode, "mode", choices=MODES))


@dataclass(frozen=True)
class PairCosts:
    """Costs of every pair of a batch: ``best[i, j]``, its ``mode[i, j]`` (index into MODES),
    the split ``split[i, j]`` (VMs of job i when the best mode is concurrent, else 0), the
    best concurrent split whatever the mode (``concurrent_split``) and ``alone[i]`` = F_i(N).
    As in `PairCost`, ``concurrent`` and ``overcommit`` hold inf where the mode does not apply;
    every other number is finite."""

    best: np.ndarray
    mode: np.ndarray
    split: np.ndarray
    concurrent_split: np.ndarray
    sequential: np.ndarray
    concurrent: np.ndarray
    overcommit: np.ndarray
    alone: np.ndarray

    def __post_init__(self) -> None:
        for name in ("best", "mode", "split", "concurrent_split", "sequential", "concurrent", "overcommit"):
            kind = "int" if name in ("mode", "split", "concurrent_split") else "float"
            finite = name not in ("concurrent", "overcommit")
            object.__setattr__(self, name, as_array(getattr(self, name), name, ndim=2, kind=kind, minimum=0.0,
                                                    finite=finite))
        object.__setattr__(self, "alone", as_array(self.alone, "alone", minimum=0.0))


def check_cluster(cluster: Cluster) -> Cluster:
    if not isinstance(cluster, Cluster):
        raise InvalidInput("cluster", f"must be a Cluster, got {type(cluster).__name__}")
    return cluster


def check_pair_size(jobs: int, vms: int) -> None:
    """Refuse, before anything is built, more pairs than `MAX_PAIR_ENTRIES` or pairs times splits
    over `MAX_PAIR_SPLITS` (one line with the limit and the size)."""
    entries = (jobs + jobs % 2) ** 2
    if entries > MAX_PAIR_ENTRIES:
        raise InvalidInput("jobs", f"pairs: {jobs:,} jobs make a pair matrix of {entries:,} entries; at most "
                                   f"{MAX_PAIR_ENTRIES:,} (MAX_PAIR_ENTRIES, {math.isqrt(MAX_PAIR_ENTRIES):,} jobs)")
    splits = jobs * jobs * max(vms - 1, 0)
    if splits > MAX_PAIR_SPLITS:
        raise InvalidInput("jobs", f"pairs: {jobs:,} jobs on {vms:,} VMs make {splits:,} pair splits "
                                   f"(jobs^2 x (VMs - 1)); at most {MAX_PAIR_SPLITS:,} (MAX_PAIR_SPLITS)")


def pair_costs(jobs: Sequence[Job], cluster: Cluster, *, chunk: int = 256) -> PairCosts:
    """Every pair's cost at once (vectorized over pairs and splits, ``chunk`` jobs against all at a
    time, fewer when a block would hold more than `BLOCK_ENTRIES` numbers)."""
    jobs = as_jobs(jobs)
    cluster = check_cluster(cluster)
    chunk = as_int(chunk, "chunk", minimum=1)
    n, vms = len(jobs), cluster.vms
    check_pair_size(n, vms)
    chunk = max(1, min(chunk, BLOCK_ENTRIES // max(n * (vms - 1), 1)))
    extra = cluster.nodes * cluster.disks / cluster.primaries_per_extra
    alpha = cluster.overcommit_penalty
    table = np.array([profile_times(job, np.arange(1, vms)) for job in jobs]).reshape(n, vms - 1)
    alone = np.array([profile_times(job, np.array([vms]))[0] for job in jobs])
    on_extra = np.array([profile_times(job, np.array([extra]))[0] for job in jobs])
    sequential = alone[:, None] + alone[None, :]
    concurrent = np.full((n, n), np.inf)
    split = np.zeros((n, n), dtype=np.int64)
    if vms > 1:
        mirrored = table[:, ::-1]  # mirrored[j, x - 1] = F_j(N - x)
        for start in range(0, n, chunk):
            block = np.maximum(table[start : start + chunk, None, :], mirrored[None, :, :])
            split[start : start + chunk] = np.argmin(block, axis=2) + 1
            concurrent[start : start + chunk] = np.min(block, axis=2)
    intensity = np.array([job.intensity for job in jobs])
    io_cpu = (intensity[:, None] == "io") & (intensity[None, :] == "cpu")
    overcommit = np.full((n, n), np.inf)
    host_time = np.maximum(alone[:, None], on_extra[None, :]) * alpha
    overcommit[io_cpu] = host_time[io_cpu]
    overcommit = np.minimum(overcommit, overcommit.T)
    stacked = np.stack([sequential, concurrent, overcommit])
    mode = np.argmin(stacked, axis=0)  # first minimum: sequential, concurrent, overcommit
    best = np.take_along_axis(stacked, mode[None], axis=0)[0]
    return PairCosts(best, mode, np.where(mode == 1, split, 0), split, sequential, concurrent, overcommit, alone)


def pair_cost(job_i: Job, job_j: Job, cluster: Cluster) -> PairCost:
    """The three ways to run two jobs and the cheapest (module docstring)."""
    costs = pair_costs([as_instance(job_i, Job, "job_i"), as_instance(job_j, Job, "job_j")], cluster)
    concurrent = float(costs.concurrent[0, 1])
    return PairCost(
        sequential=float(costs.sequential[0, 1]),
        concurrent=concurrent,
        split=int(costs.concurrent_split[0, 1]) if math.isfinite(concurrent) else None,
        overcommit=float(costs.overcommit[0, 1]),
        best=float(costs.best[0, 1]),
        mode=MODES[int(costs.mode[0, 1])],
    )


@dataclass(frozen=True)
class PairGroup:
    """Jobs run together (one or two indices), how, for how long, and the split (VMs of the first)."""

    jobs: tuple[int, ...]
    mode: str
    seconds: float
    split: int | None = None

    def __post_init__(self) -> None:
        put = object.__setattr__
        jobs = tuple(as_int(j, f"jobs[{p}]", minimum=0) for p, j in enumerate(as_items(self.jobs, "jobs")))
        if len(jobs) not in (1, 2):
            raise InvalidInput("jobs", f"a group holds one or two job indices, got {len(jobs)}")
        put(self, "jobs", jobs)
        put(self, "mode", as_str(self.mode, "mode", choices=MODES))
        put(self, "seconds", as_float(self.seconds, "seconds", minimum=0.0))
        if self.split is not None:
            put(self, "split", as_int(self.split, "split", minimum=1))


@dataclass(frozen=True)
class PairSchedule(Solution):
    groups: tuple[PairGroup, ...] = ()
    sequential_baseline: float = 0.0

    def __post_init__(self) -> None:
        super().__post_init__()
        groups = tuple(as_instance(g, PairGroup, f"groups[{p}]") for p, g in enumerate(as_items(self.groups, "groups")))
        object.__setattr__(self, "groups", groups)
        object.__setattr__(self, "sequential_baseline",
                           as_float(self.sequential_baseline, "sequential_baseline", minimum=0.0))


def _edge_costs(costs: PairCosts) -> np.ndarray:
    """The matching's cost matrix: jobs 0..n-1, plus dummy node n (alone costs) when n is odd."""
    n = costs.alone.size
    size = n + (n % 2)
    matrix = np.full((size, size), np.inf)
    matrix[:n, :n] = costs.best
    if size > n:
        matrix[:n, n] = matrix[n, :n] = costs.alone
    np.fill_diagonal(matrix, np.inf)
    return matrix


def _schedule(costs: PairCosts, mates: Sequence[tuple[int, int]], status, solver, clock, bound=None) -> PairSchedule:
    n = costs.alone.size
    groups = []
    for i, j in sorted((min(p), max(p)) for p in mates):
        if j >= n:
            groups.append(PairGroup((i,), "alone", float(costs.alone[i])))
        else:
            mode = MODES[int(costs.mode[i, j])]
            split = int(costs.split[i, j]) if mode == "concurrent" else None
            groups.append(PairGroup((i, j), mode, float(costs.best[i, j]), split))
    covered = sorted(i for g in groups for i in g.jobs)
    if covered != list(range(n)):
        raise InvalidInput("pairs", "internal error: the matching does not cover every job once")
    total = float(sum(g.seconds for g in groups))
    if status is SolveStatus.OPTIMAL:
        bound = total if bound is None else proven_bound(total, bound)
    return PairSchedule(status, total, bound, relative_gap(total, bound), solver, clock.seconds, tuple(groups),
                        float(costs.alone.sum()))


@register_method(PROBLEM, "exhaustive", exact=True)
def _exhaustive(costs: PairCosts, *, time_limit: float, seed: int) -> PairSchedule:
    """Every pairing (at most 12 jobs), with branch and bound on the partial sum."""
    clock = Stopwatch()
    n = costs.alone.size
    if n > EXHAUSTIVE_LIMIT:
        raise InvalidInput("jobs", f"exhaustive pairing takes at most {EXHAUSTIVE_LIMIT} jobs, got {n}")
    matrix = _edge_costs(costs)
    best: list = [math.inf, []]

    def search(free: tuple[int, ...], partial: float, chosen: list[tuple[int, int]]) -> None:
        if partial >= best[0]:
            return
        if not free:
            best[0], best[1] = partial, list(chosen)
            return
        first, rest = free[0], free[1:]
        for index, other in enumerate(rest):
            chosen.append((first, other))
            search(rest[:index] + rest[index + 1 :], partial + matrix[first, other], chosen)
            chosen.pop()

    search(tuple(range(matrix.shape[0])), 0.0, [])
    return _schedule(costs, best[1], SolveStatus.OPTIMAL, "exhaustive", clock)


def refuse_dependencies(jobs: Sequence[Job]) -> None:
    """The pair model runs jobs two at a time and its groups in any order, and a pair's two jobs
    together: it cannot honour jobs that wait for jobs (``after``), and says so in one line."""
    waiting = next((job for job in jobs if job.after), None)
    if waiting is not None:
        raise InvalidInput("after", f"job {shown(waiting.name)} waits for {shown(waiting.after[0].job)}: the pair "
                                    "model runs jobs in pairs, in any order, and cannot honour dependencies (plan "
                                    "with packing, a slot strategy or a target)")


def schedule_pairs(
    jobs: Sequence[Job], cluster: Cluster, method_name: str | None = None, *, method: str | None = None,
    time_limit: float = 60.0, seed: int = 0,
) -> PairSchedule:
    """Pair the jobs to minimize the total of the groups' times (module docstring).

    ``method`` names a registered pair method ("milp", the default, "matching" or
    "exhaustive"); ``method_name``, its older spelling, still works."""
    jobs = as_jobs(jobs)
    if not jobs:
        raise InvalidInput("jobs", "need at least one job")
    refuse_dependencies(jobs)
    check_pair_size(len(jobs), check_cluster(cluster).vms)
    chosen = method_choice(method, method_name, "milp", PROBLEM)
    time_limit = check_time_limit(time_limit)
    seed = as_int(seed, "seed", minimum=0)
    solve = find_method(PROBLEM, chosen).solve
    clock = Stopwatch()
    costs = pair_costs(jobs, cluster)
    # The limit covers the whole call: what the pair costs took comes off the method's share.
    return solve(costs, time_limit=max(1e-3, time_limit - clock.seconds), seed=seed)
