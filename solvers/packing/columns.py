"""Phases as columns: the pricing and enumeration behind the exact packing MILP.

A column is one feasible phase (which jobs, on how many VMs, in which role);
its cost is its length, the longest of its jobs' times. Every phase length is
one of the jobs' times, so the candidate lengths ("levels") are the distinct
values of F_j(v) (and alpha F_j(v) for jobs that may host or ride as extras).

For a level L each job needs at least ``primary_need[j]`` VMs as a primary and
``extra_need[j]`` extra VMs as an extra (the fewest that finish it within L);
as a host it may take any VM count whose time is within L, since more host VMs
make room for more extras. A set of jobs fits a phase of length L when, with U
the primary and host VMs and X = primary VMs + r x extra VMs, U <= N and
X <= U (the second is the paper's r x extras <= hosts, plus the primaries on
both sides). `best_by_level` is a knapsack over (U, X) for every level at once:
the most weight (a job's dual value) a phase of each length can hold. It is
exact: every feasible phase of length L uses at least these VMs, so the
pricing never misses a column.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solvers.packing.problem import PackingInstance, Placement


@dataclass(frozen=True)
class Move:
    """One way a job joins a phase, at the levels ``ks``: it adds ``du`` primary+host VMs and
    ``dx`` to primaries + r x extras. ``at_least`` (hosts): any count from ``du`` up will do."""

    ks: np.ndarray
    du: int
    dx: int
    role: str
    vms: int
    at_least: bool = False


@dataclass(frozen=True)
class LevelTables:
    """What each job needs at each candidate length: ``levels[k]`` ascending;
    ``primary_need[j, k]`` and ``extra_need[j, k]`` the fewest VMs (0: impossible);
    ``host_ok[j, v - 1, k]`` whether job j may host on v VMs within ``levels[k]``;
    ``moves[j]`` the same grouped by level for the knapsack."""

    levels: np.ndarray
    primary_need: np.ndarray
    extra_need: np.ndarray
    host_ok: np.ndarray
    vms: int
    per_extra: int
    moves: tuple[tuple[Move, ...], ...]

    def moves_at(self, job: int, k: int) -> list[Move]:
        """The job's moves at the one level k (``ks`` left empty)."""
        none = np.empty(0, dtype=np.int64)
        n, r = self.vms, self.per_extra
        moves = []
        w, e = int(self.primary_need[job, k]), int(self.extra_need[job, k])
        if w:
            moves.append(Move(none, w, w, "primary", w))
        if e and r * e <= n:
            moves.append(Move(none, 0, r * e, "extra", e))
        hosts = np.flatnonzero(self.host_ok[job, :, k]) + 1
        if hosts.size:
            at_least = any(m.at_least for m in self.moves[job])
            moves += [Move(none, int(v), 0, "host", int(v), at_least) for v in (hosts[:1] if at_least else hosts)]
        return moves


def _fewest(ok: np.ndarray) -> np.ndarray:
    """ok[j, v - 1, k] -> the smallest v with ok, 0 where there is none."""
    return np.where(ok.any(axis=1), ok.argmax(axis=1) + 1, 0)


def _grouped(need: np.ndarray, role: str, scale: int, limit: int, at_least: bool = False) -> list[Move]:
    moves = []
    for w in np.unique(need[need > 0]):
        w = int(w)
        if scale * w <= limit:
            du, dx = {"primary": (w, w), "host": (w, 0), "extra": (0, scale * w)}[role]
            moves.append(Move(np.flatnonzero(need == w), du, dx, role, w, at_least))
    return moves


def _job_moves(job: int, primary_need: np.ndarray, extra_need: np.ndarray, host_ok: np.ndarray, n: int,
               r: int) -> tuple[Move, ...]:
    moves = _grouped(primary_need[job], "primary", 1, n) + _grouped(extra_need[job], "extra", r, n)
    ok = host_ok[job]
    if ok.any():
        # For a non-increasing profile every count above the fewest also fits the level, and
        # the knapsack takes "any count from w up" in one step (a running maximum).
        if np.all(ok[1:] >= ok[:-1]):
            moves += _grouped(_fewest(ok[None])[0], "host", 1, n, at_least=True)
        else:
            moves += [Move(np.flatnonzero(ok[v - 1]), v, 0, "host", v) for v in range(1, n + 1) if ok[v - 1].any()]
    return tuple(moves)


def _tables(levels: np.ndarray, primary_need: np.ndarray, extra_need: np.ndarray, host_ok: np.ndarray, n: int,
            r: int) -> LevelTables:
    moves = tuple(_job_moves(j, primary_need, extra_need, host_ok, n, r) for j in range(primary_need.shape[0]))
    return LevelTables(levels, primary_need, extra_need, host_ok, n, r, moves)


def candidate_lengths(instance: PackingInstance) -> np.ndarray:
    """Every length a phase can have: each job's time on each VM count, in each role it may take."""
    shared = instance.can_host | instance.can_extra
    return np.unique(np.concatenate([instance.times[:, :, 0].ravel(), instance.times[:, :, 1][shared].ravel()]))


def level_tables(instance: PackingInstance) -> LevelTables:
    primary, overcommitted = instance.times[:, :, 0], instance.times[:, :, 1]
    levels = candidate_lengths(instance)
    within = overcommitted[:, :, None] <= levels[None, None, :]
    primary_need = _fewest(primary[:, :, None] <= levels[None, None, :])
    extra_need = np.where(instance.can_extra[:, None], _fewest(within), 0)
    host_ok = within & instance.can_host[:, None, None]
    return _tables(levels, primary_need, extra_need, host_ok, instance.vms, instance.per_extra)


def restricted(tables: LevelTables, ks: np.ndarray) -> LevelTables:
    """The same tables at the candidate lengths ``levels[ks]`` only (for partial pricing)."""
    ks = np.unique(ks)
    return _tables(tables.levels[ks], tables.primary_need[:, ks], tables.extra_need[:, ks], tables.host_ok[:, :, ks],
                   tables.vms, tables.per_extra)


def _empty(shape: tuple[int, ...], n: int) -> np.ndarray:
    """A knapsack table over (..., U, X) holding only the empty phase (weight 0 at U = X = 0)."""
    value = np.full((*shape, n + 1, n + 1), -np.inf)
    value[..., 0, 0] = 0.0
    return value


def _step(value: np.ndarray, moves: list[Move] | tuple[Move, ...], weight: float, single: bool) -> np.ndarray:
    """One job's turn in the knapsack over value[..., U, X] (all levels, or one level when ``single``)."""
    n = value.shape[-1] - 1
    grown = value.copy()
    running = None
    for m in moves:
        if m.at_least:
            running = np.maximum.accumulate(value, axis=-2) if running is None else running
            source = running
        else:
            source = value
        if single:
            moved = source[: n + 1 - m.du, : n + 1 - m.dx] + weight
            np.maximum(grown[m.du:, m.dx:], moved, out=grown[m.du:, m.dx:])
        elif m.ks.size and int(m.ks[-1]) - int(m.ks[0]) + 1 == m.ks.size:
            # A run of lengths (a need only falls as the length grows, so every move's lengths are
            # one run): views in place of fancy indexing's gather and scatter, a third of the time.
            rows = slice(int(m.ks[0]), int(m.ks[-1]) + 1)
            target = grown[rows, m.du:, m.dx:]
            moved = source[rows, : n + 1 - m.du, : n + 1 - m.dx] + weight
            np.maximum(target, moved, out=target)
        else:
            moved = source[m.ks, : n + 1 - m.du, : n + 1 - m.dx] + weight
            grown[m.ks, m.du:, m.dx:] = np.maximum(grown[m.ks, m.du:, m.dx:], moved)
    return grown


def _fits(n: int) -> np.ndarray:
    u, x = np.indices((n + 1, n + 1))
    return x <= u


def best_by_level(tables: LevelTables, weights: np.ndarray, jobs: list[int] | None = None) -> np.ndarray:
    """The most weight a phase of each candidate length can hold (0 for the empty phase): a
    knapsack over value[k, U, X], the most weight fitting a phase of length levels[k] with
    exactly U primary+host VMs and X = primaries + r x extras (-inf where impossible)."""
    jobs = [j for j in range(weights.size) if weights[j] > 0] if jobs is None else jobs
    n = tables.vms
    value = _empty((tables.levels.size,), n)
    for job in jobs:
        value = _step(value, tables.moves[job], float(weights[job]), single=False)
    return value[:, _fits(n)].max(axis=1)


def best_phase(tables: LevelTables, weights: np.ndarray, level: int, jobs: list[int] | None = None) -> list[Placement]:
    """The placements achieving `best_by_level` at one level (traced back through the knapsack)."""
    return best_phases(tables, weights, [level], jobs)[0]


def best_phases(
    tables: LevelTables, weights: np.ndarray, levels: list[int], jobs: list[int] | None = None
) -> list[list[Placement]]:
    """`best_phase` at each of ``levels`` (indices into tables.levels), from one knapsack over
    them all (`restricted`): one pass for a round's columns instead of one per column."""
    jobs = [j for j in range(weights.size) if weights[j] > 0] if jobs is None else jobs
    n = tables.vms
    ks = np.unique(np.asarray(levels, dtype=np.int64))
    part = restricted(tables, ks)
    value = _empty((ks.size,), n)
    history = []
    for job in jobs:
        history.append(value)
        value = _step(value, part.moves[job], float(weights[job]), single=False)
    masked = np.where(_fits(n), value, -np.inf)
    phases = {}
    for t, k in enumerate(ks.tolist()):
        u, x = (int(i) for i in np.unravel_index(np.argmax(masked[t]), masked[t].shape))
        after, placements = value[t], []
        for job, before in zip(reversed(jobs), reversed(history), strict=True):
            target, after = after[u, x], before[t]
            if target == after[u, x]:
                continue
            placement = _trace(part.moves_at(job, t), after, u, x, float(weights[job]), target)
            if placement is None:  # pragma: no cover - every knapsack value comes from one move
                raise RuntimeError("knapsack trace-back lost its way")
            role, vms, du, dx = placement
            placements.append(Placement(job, vms, role))
            u, x = u - du, x - dx
        phases[k] = placements
    return [phases[int(k)] for k in levels]


def _trace(moves: list[Move], value: np.ndarray, u: int, x: int, weight: float,
           target: float) -> tuple[str, int, int, int] | None:
    """The move (role, VMs, dU, dX) from whose source cell ``weight`` more makes ``target``."""
    for m in moves:
        if m.dx > x or m.du > u:
            continue
        for du in range(m.du, u + 1) if m.at_least else (m.du,):
            if value[u - du, x - m.dx] + weight == target:
                return m.role, (du if m.role == "host" else m.vms), du, m.dx
    return None


def cheapest_phase(tables: LevelTables, members: list[int]) -> tuple[float, list[Placement]] | None:
    """The shortest phase holding exactly ``members`` (None if they never fit together)."""
    weights = np.zeros(tables.primary_need.shape[0])
    weights[members] = 1.0
    held = best_by_level(tables, weights, members)
    full = np.flatnonzero(held >= len(members) - 0.5)
    if not full.size:
        return None
    return float(tables.levels[full[0]]), best_phase(tables, weights, int(full[0]), members)
