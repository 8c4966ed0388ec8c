"""The packing problem by exhaustive search, for cross-checking the exact methods on small inputs.

Nothing here is shared with the other methods: for every set of jobs, every
combination of its members' roles and VM counts is tried (numpy over the
Cartesian product) and the rules of the model are checked directly, giving
the shortest phase that holds exactly that set; then the best partition of
the jobs into such sets is found by dynamic programming over subsets
(best[S] = min over the block B holding S's lowest job of shortest[B] +
best[S - B]). With dependencies the partition is built phase by phase over the sets of jobs
already run (`solvers.packing.precedence.exact_phases`). Exponential: at most `EXHAUSTIVE_JOBS` jobs and
`EXHAUSTIVE_COMBINATIONS` combinations per set.
"""

from __future__ import annotations

import itertools

import numpy as np

from models import InvalidInput
from solvers.base import SolveStatus, Stopwatch
from solvers.packing.precedence import exact_phases
from solvers.packing.problem import PROBLEM, PackingInstance, PhaseSchedule, Placement, make_schedule
from solvers.registry import register_method

EXHAUSTIVE_JOBS = 6
EXHAUSTIVE_COMBINATIONS = 2_000_000
_ROLES = ("primary", "host", "extra")


def _options(instance: PackingInstance, job: int) -> np.ndarray:
    """Rows (VMs, role code, time) of every way the job may run."""
    rows = []
    for code, role in enumerate(_ROLES):
        if (role == "host" and not instance.can_host[job]) or (role == "extra" and not instance.can_extra[job]):
            continue
        for vms in range(1, instance.vms + 1):
            rows.append((vms, code, instance.time(job, vms, role)))
    return np.array(rows, dtype=np.float64)


def _shortest(instance: PackingInstance, members: tuple[int, ...]) -> tuple[float, list[Placement] | None]:
    """The shortest phase holding exactly ``members`` by trying every combination (inf, None if none fits)."""
    options = [_options(instance, j) for j in members]
    grids = np.meshgrid(*[np.arange(len(o)) for o in options], indexing="ij")
    picks = [grid.ravel() for grid in grids]
    vms = np.stack([o[p, 0] for o, p in zip(options, picks, strict=True)])
    role = np.stack([o[p, 1] for o, p in zip(options, picks, strict=True)])
    time = np.stack([o[p, 2] for o, p in zip(options, picks, strict=True)])
    on_primary = np.where(role != 2, vms, 0).sum(axis=0)
    hosts = np.where(role == 1, vms, 0).sum(axis=0)
    extras = np.where(role == 2, vms, 0).sum(axis=0)
    fits = (on_primary <= instance.vms) & (instance.per_extra * extras <= hosts)
    if not fits.any():
        return np.inf, None
    length = np.where(fits, time.max(axis=0), np.inf)
    best = int(np.argmin(length))
    phase = [Placement(j, int(vms[i, best]), _ROLES[int(role[i, best])]) for i, j in enumerate(members)]
    return float(length[best]), phase


@register_method(PROBLEM, "exhaustive", exact=True)
def _exhaustive(instance: PackingInstance, *, time_limit: float, seed: int, **_: object) -> PhaseSchedule:
    """Every set partition, role and VM count (at most 6 jobs): the cross-check of the exact methods."""
    clock = Stopwatch()
    n = instance.jobs
    per_job = 1 + int(instance.can_host.any()) + int(instance.can_extra.any())
    if n > EXHAUSTIVE_JOBS or (per_job * instance.vms) ** n > EXHAUSTIVE_COMBINATIONS:
        raise InvalidInput("jobs", f"exhaustive packing takes at most {EXHAUSTIVE_JOBS} jobs and "
                                   f"{EXHAUSTIVE_COMBINATIONS:,} combinations per phase; got {n} jobs on "
                                   f"{instance.vms} VMs")
    if instance.precedence:  # phases in order, each of jobs whose predecessors ran before it
        _, phases = exact_phases(instance, instance.precedence, lambda members: _shortest(instance, members))
        return make_schedule(phases, instance, SolveStatus.OPTIMAL, "exhaustive", clock)
    shortest: dict[int, tuple[float, list[Placement] | None]] = {}
    for size in range(1, n + 1):
        for members in itertools.combinations(range(n), size):
            shortest[sum(1 << j for j in members)] = _shortest(instance, members)
    best: dict[int, tuple[float, list[int]]] = {0: (0.0, [])}
    for mask in range(1, 1 << n):
        low = mask & -mask
        rest = mask ^ low
        choice = (np.inf, [])
        block = rest
        while True:  # every block holding the lowest job: low plus a subset of the rest
            whole = block | low
            total = shortest[whole][0] + best[mask ^ whole][0]
            if total < choice[0]:
                choice = (total, [whole, *best[mask ^ whole][1]])
            if block == 0:
                break
            block = (block - 1) & rest
        best[mask] = choice
    phases = [shortest[block][1] for block in best[(1 << n) - 1][1]]
    return make_schedule(phases, instance, SolveStatus.OPTIMAL, "exhaustive", clock)
