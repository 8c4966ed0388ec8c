"""The "pso" method of the packing problem (Packing paper, section 5: particle swarm optimization).

Encoding. A particle has 3n coordinates for n jobs, in three blocks of n:

- phase key x in [0, n): job j runs in phase floor(x) (clipped to n - 1), so up
  to n phases, any partition of the jobs into phases is reachable;
- VM count v in [0.5, N + 0.5]: rounded to the nearest integer in 1..N, so every
  count has an equally wide basin (`solvers.backends.pso.integers`);
- overcommit key o in [0, 1]: o >= 0.5 asks for the job's overcommit role, "host"
  for an io job and "extra" for a cpu job; a balanced job has no such role and
  decodes to "primary" whatever its key (the coordinate is then inert).

Repair. Every particle decodes to a feasible schedule, so the swarm never needs
penalties. Steps 1-3 leave a position that already decodes feasibly untouched
(so every feasible schedule without idle hosts is reachable as itself); step 4
only shortens:

1. a phase whose primary and host VMs sum to S > N has each of those jobs'
   counts scaled by N / S (rounded down, at least 1);
2. should a phase still overflow (more such jobs than VMs), jobs are admitted in
   job order, each taking at most the VMs left; a job finding none moves to a
   phase of its own, as primary on N VMs;
3. extras are admitted in job order against their phase's extra capacity
   floor(host VMs / r), each taking at most what is left; an extra finding none
   becomes primary in its phase (at most the primary VMs left) or, failing that,
   moves to a phase of its own;
4. a host whose phase has no extra VMs becomes primary: the same VMs without
   the overcommit penalty.

All of this is vectorized over the swarm (loops run over jobs, never particles),
so the paper's defaults (1500 particles, 200 iterations) take a few seconds for
20 jobs.

Polish. The best position's decoded schedule gets a cheap deterministic local
step: in each phase, the longest job takes one more VM (primary room for
primary and host jobs, extra capacity for extras) while that shortens it; then a
phase longer than running its jobs one after another on N VMs each is split
into those solo phases. The second step makes the result never worse than the
sequential baseline. The method is otherwise pure PSO: no greedy seed.

The swarm runs its fixed number of iterations (pyswarms has no time limit), so
``time_limit`` is not enforced. ``seed`` seeds the wrapper's swarm: the same
seed gives the same schedule.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from solvers.backends import pso as wrapper
from solvers.base import SolveStatus, Stopwatch
from solvers.packing.problem import (
    PROBLEM,
    ROLES,
    PackingInstance,
    PhaseSchedule,
    Placement,
    grow_longest,
    make_schedule,
)
from solvers.registry import register_method

PRIMARY, HOST, EXTRA = (ROLES.index(role) for role in ("primary", "host", "extra"))


def bounds(instance: PackingInstance) -> tuple[np.ndarray, np.ndarray]:
    """The swarm's box: phase keys, then VM counts, then overcommit keys (module docstring)."""
    n, vms = instance.jobs, instance.vms
    lower = np.concatenate([np.zeros(n), np.full(n, 0.5), np.zeros(n)])
    upper = np.concatenate([np.full(n, float(n)), np.full(n, vms + 0.5), np.ones(n)])
    return lower, upper


def _per_phase(phase: np.ndarray, values: np.ndarray, phases: int) -> np.ndarray:
    """Sum ``values`` (particles x jobs) by phase: an array of particles x phases."""
    particles = phase.shape[0]
    index = (np.arange(particles)[:, None] * phases + phase).ravel()
    return np.bincount(index, weights=values.ravel(), minlength=particles * phases).reshape(particles, phases)


def decode(swarm: np.ndarray, instance: PackingInstance) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Feasible (phase, VMs, role) per particle and job, each particles x jobs (module docstring).

    Phases are numbered 0..n-1 as decoded and n + j for job j moved to a phase of its own.
    """
    swarm = np.atleast_2d(np.asarray(swarm, dtype=np.float64))
    n, cap, r = instance.jobs, instance.vms, instance.per_extra
    particles, phases = swarm.shape[0], 2 * n
    rows = np.arange(particles)
    phase = np.clip(np.floor(swarm[:, :n]), 0, n - 1).astype(np.int64)
    vms = wrapper.integers(swarm[:, n : 2 * n], 1, cap)
    wants = swarm[:, 2 * n :] >= 0.5
    role = np.where(wants & instance.can_host, HOST, np.where(wants & instance.can_extra, EXTRA, PRIMARY))

    # 1: shrink proportionally, which keeps the particle's split of the phase's VMs.
    on_primary = role != EXTRA
    demand = _per_phase(phase, np.where(on_primary, vms, 0), phases)
    scale = np.minimum(1.0, cap / np.maximum(np.take_along_axis(demand, phase, axis=1), 1.0))
    vms = np.where(on_primary, np.maximum(1, np.floor(vms * scale + 1e-9).astype(np.int64)), vms)

    used = np.zeros((particles, phases), dtype=np.int64)

    def admit(j: int, mask: np.ndarray) -> np.ndarray:
        """Place job j's masked particles on primary VMs left in their phase; the rest move alone."""
        left = cap - used[rows, phase[:, j]]
        fits = mask & (left >= 1)
        vms[:, j] = np.where(fits, np.minimum(vms[:, j], left), vms[:, j])
        used[rows, phase[:, j]] += np.where(fits, vms[:, j], 0)
        alone = mask & ~fits
        phase[alone, j] = n + j
        vms[alone, j] = cap
        role[alone, j] = PRIMARY
        return fits

    # 2: primary and host jobs, in job order.
    for j in range(n):
        admit(j, on_primary[:, j])

    # 3: extras against floor(host VMs / r), in job order; the rest fall back to primary.
    capacity = _per_phase(phase, np.where(role == HOST, vms, 0), phases).astype(np.int64) // r
    taken = np.zeros((particles, phases), dtype=np.int64)
    for j in range(n):
        extra = role[:, j] == EXTRA
        if not extra.any():
            continue
        left = capacity[rows, phase[:, j]] - taken[rows, phase[:, j]]
        fits = extra & (left >= 1)
        vms[:, j] = np.where(fits, np.minimum(vms[:, j], left), vms[:, j])
        taken[rows, phase[:, j]] += np.where(fits, vms[:, j], 0)
        falls = extra & ~fits
        role[falls, j] = PRIMARY
        admit(j, falls)

    # 4: a host with no extras beside it pays the penalty for nothing.
    idle = (role == HOST) & (np.take_along_axis(taken, phase, axis=1) == 0)
    role = np.where(idle, PRIMARY, role)
    return phase, vms, role


def phase_totals(instance: PackingInstance, phase: np.ndarray, vms: np.ndarray, role: np.ndarray) -> np.ndarray:
    """The objective (sum of phase lengths) of each decoded particle."""
    n = instance.jobs
    times = instance.times[np.arange(n), vms - 1, (role != PRIMARY).astype(np.int64)]
    rows = np.arange(phase.shape[0])
    lengths = np.zeros((phase.shape[0], 2 * n))
    for j in range(n):
        lengths[rows, phase[:, j]] = np.maximum(lengths[rows, phase[:, j]], times[:, j])
    return lengths.sum(axis=1)


def swarm_cost(instance: PackingInstance) -> Callable[[np.ndarray], np.ndarray]:
    """The vectorized cost handed to the swarm: decode, repair, total."""

    def cost(swarm: np.ndarray) -> np.ndarray:
        return phase_totals(instance, *decode(swarm, instance))

    return cost


def polish(instance: PackingInstance, placements: list[list[Placement]]) -> list[list[Placement]]:
    """Grow each phase's longest job into its spare room, then split phases slower than running solo."""
    polished: list[list[Placement]] = []
    for members in placements:
        phase = grow_longest(instance, members)
        length = max(instance.time(pl.job, pl.vms, pl.role) for pl in phase)
        solo = sum(instance.time(pl.job, instance.vms, "primary") for pl in phase)
        if len(phase) > 1 and solo < length - 1e-12 * max(1.0, length):
            polished.extend([Placement(pl.job, instance.vms, "primary")] for pl in phase)
        else:
            polished.append(phase)
    return polished


def placements(instance: PackingInstance, position: np.ndarray) -> list[list[Placement]]:
    """The phases one position decodes to (empty phases dropped)."""
    phase, vms, role = (a[0] for a in decode(position, instance))
    grouped: dict[int, list[Placement]] = {}
    for j in range(instance.jobs):
        grouped.setdefault(int(phase[j]), []).append(Placement(j, int(vms[j]), ROLES[int(role[j])]))
    return [grouped[p] for p in sorted(grouped)]


@register_method(PROBLEM, "pso", exact=False)
def _pso(
    instance: PackingInstance, *, time_limit: float, seed: int, particles: int | None = None,
    iterations: int | None = None, pso: wrapper.PsoOptions | None = None, **_: object,
) -> PhaseSchedule:
    """Particle swarm over (phase key, VM count, overcommit key) per job, repaired to feasibility
    and polished; the paper's 1500 particles and 200 iterations unless overridden (``pso`` takes a
    whole `PsoOptions`, as the two_stage "pso" method does; ``particles`` and ``iterations`` win)."""
    clock = Stopwatch()
    options = pso or wrapper.PsoOptions()
    overrides = {"particles": particles, "iterations": iterations}
    options = dataclasses.replace(options, **{k: v for k, v in overrides.items() if v is not None})
    lower, upper = bounds(instance)
    outcome = wrapper.minimize(swarm_cost(instance), lower, upper, options=options, seed=seed)
    best = polish(instance, placements(instance, outcome.position))
    return make_schedule(best, instance, SolveStatus.FEASIBLE, "pso", clock)
