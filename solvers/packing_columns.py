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

from solvers.packing import PackingInstance, Placement


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


def enumerate_phases(
    tables: LevelTables, duals: np.ndarray, slack: float, *, limit: int, deadline: float, clock,
    shift: np.ndarray | None = None,
) -> tuple[list[tuple[float, list[Placement]]], bool]:
    """Every phase (at its shortest length) whose reduced cost L - shift(L) - sum of its jobs' duals
    is at most ``slack`` (``shift[k]``: what other rows pay a phase of length levels[k]), and whether
    the list is complete: it stops at ``limit`` phases or at the ``deadline`` (seconds on
    ``clock``), and then proves nothing (its phases are still good ones).

    A depth-first search over jobs (largest dual first) and their roles. Each node carries, for
    every candidate length at once, the VMs its jobs need: U = primaries + hosts (hosts at their
    fewest) and X = primaries + r x extras. A finished set fits when max(U, X) <= N (hosts grow
    to carry the extras) and any extras have a host. The jobs still to come can add at most the
    knapsack value of what fits in the room left, (N - U, N - X), so a node whose best reachable
    reduced cost exceeds the slack has no qualifying descendant.
    """
    n_jobs, n, r = duals.size, tables.vms, tables.per_extra
    levels = tables.levels
    priced = levels - (shift if shift is not None else 0.0)
    impossible = 4 * n + 1  # more than any phase holds; no overflow when summed

    def needs(fewest: np.ndarray) -> np.ndarray:
        return np.where(fewest > 0, fewest, impossible).astype(np.int64)

    primary, host, extra = needs(tables.primary_need), needs(_fewest(tables.host_ok)), needs(r * tables.extra_need)
    can_host, can_extra = tables.host_ok.any(axis=(1, 2)), tables.extra_need.any(axis=1)
    order = sorted(range(n_jobs), key=lambda j: (-duals[j], j))
    room = _room_values(tables, duals, order)
    side = (n + 1) * (n + 1)
    flat = room.reshape(room.shape[0], -1)  # room[i] as one row: level k, a, b at k (n + 1)^2 + a (n + 1) + b
    tolerance = 1e-9 * max(1.0, float(levels[-1]))
    found: dict[int, tuple[float, tuple]] = {}
    zero = np.zeros(levels.size, dtype=np.int64)
    # A node carries the lengths still open below it (`active`, ascending) and its VMs at them: a
    # length where no completion qualifies stays closed for every descendant (their gains are
    # within the node's), so the search visits the same nodes as one over every length, at less cost.
    stack: list[tuple] = [(0, np.arange(levels.size), priced, zero, zero, 0.0, 0, (), False, False)]
    steps = 0
    while stack:
        i, active, prices, used_u, used_x, weight, mask, placed, hosted, extras = stack.pop()
        steps += 1
        if steps % 2048 == 0 and clock.seconds > deadline:
            return _widened(found, tables)[0], False
        left_u, left_x = n - used_u, n - used_x
        fits = (left_u >= 0) & (left_x >= 0)
        if not fits.any():
            continue
        gain = np.where(fits, flat[i].take(active * side + left_u.clip(0) * (n + 1) + left_x.clip(0)), -np.inf)
        reach = (prices - gain) - weight
        if not (reach <= slack + tolerance).any():
            continue
        # A length closes only when it misses by more than rounding (one more tolerance): a value
        # that rises one ulp deeper in the search must not close a length the leaf would reopen.
        keep = reach <= slack + 2 * tolerance
        if not keep.all():
            active, prices, used_u, used_x, reach = active[keep], prices[keep], used_u[keep], used_x[keep], reach[keep]
        if i == n_jobs:
            # Every open length fits. The phase is listed at its shortest length, if it qualifies
            # there; when a shorter (closed) one fits, only a longer version of this phase
            # qualifies: never in a best schedule. (Fitting is monotone in the length.)
            first = int(active[0])
            if reach[0] > slack + tolerance or (first > 0 and _fits_at(placed, primary, host, extra, first - 1, n)):
                continue
            length = float(levels[first])
            known = found.get(mask)
            if mask and (hosted or not extras) and (known is None or length < known[0]):
                if known is None and len(found) >= limit:
                    return _widened(found, tables)[0], False
                found[mask] = (length, placed)
            continue
        j = order[i]
        stack.append((i + 1, active, prices, used_u, used_x, weight, mask, placed, hosted, extras))
        bit, gained = mask | (1 << j), weight + float(duals[j])
        need = primary[j].take(active)
        stack.append((i + 1, active, prices, used_u + need, used_x + need, gained, bit, (*placed, (j, "primary")),
                      hosted, extras))
        if can_host[j]:
            stack.append((i + 1, active, prices, used_u + host[j].take(active), used_x, gained, bit,
                          (*placed, (j, "host")), True, extras))
        if can_extra[j]:
            stack.append((i + 1, active, prices, used_u, used_x + extra[j].take(active), gained, bit,
                          (*placed, (j, "extra")), hosted, True))
    return _widened(found, tables)


def _fits_at(placed: tuple, primary: np.ndarray, host: np.ndarray, extra: np.ndarray, k: int, n: int) -> bool:
    """Whether the jobs ``placed`` (job, role) fit a phase of length levels[k]."""
    used_u = used_x = 0
    for j, role in placed:
        if role == "primary":
            used_u += int(primary[j, k])
            used_x += int(primary[j, k])
        elif role == "host":
            used_u += int(host[j, k])
        else:
            used_x += int(extra[j, k])
    return used_u <= n and used_x <= n


def _room_values(tables: LevelTables, weights: np.ndarray, order: list[int]) -> np.ndarray:
    """room[i, k, a, b]: the most weight jobs order[i:] (positive weights only) add to a phase of
    length levels[k] using at most a more primary+host VMs and b more primaries + r x extras.
    Row n_jobs is zeros. (The rule X <= U is dropped for the added jobs: a relaxation.)"""
    n = tables.vms
    value = _empty((tables.levels.size,), n)
    room = np.zeros((len(order) + 1, tables.levels.size, n + 1, n + 1))
    for i in range(len(order) - 1, -1, -1):
        job = order[i]
        if weights[job] > 0:
            value = _step(value, tables.moves[job], float(weights[job]), single=False)
        room[i] = np.maximum.accumulate(np.maximum.accumulate(value, axis=1), axis=2)
    return room


def _widened(found: dict[int, tuple[float, tuple]], tables: LevelTables) -> tuple[list[tuple[float, list[Placement]]], bool]:
    """The found phases with VM counts at their lengths (hosts widened for their extras), and
    whether every one could be widened (only non-monotone host profiles can fail)."""
    phases = []
    for length, roles in found.values():
        k = int(np.searchsorted(tables.levels, length))
        placed = []
        for j, role in roles:
            if role == "primary":
                vms = int(tables.primary_need[j, k])
            elif role == "extra":
                vms = int(tables.extra_need[j, k])
            else:
                vms = int(tables.host_ok[j, :, k].argmax()) + 1
            placed.append(Placement(j, vms, role))
        primaries = sum(p.vms for p in placed if p.role == "primary")
        widened = _widen_hosts(placed, tables, k, tables.vms - primaries)
        if widened is not None:
            phases.append((length, widened))
    return phases, len(phases) == len(found)


def _widen_hosts(placed: list[Placement], tables: LevelTables, level: int, room: int) -> list[Placement] | None:
    """Give host jobs more VMs (counts whose time stays within the level) until r x extras fit
    beside them; None when no such counts exist (only possible for non-monotone profiles)."""
    need = tables.per_extra * sum(p.vms for p in placed if p.role == "extra")
    have = sum(p.vms for p in placed if p.role == "host")
    room -= have
    for i, p in enumerate(placed):
        if have >= need:
            break
        if p.role != "host":
            continue
        allowed = np.flatnonzero(tables.host_ok[p.job, :, level]) + 1
        allowed = allowed[(allowed > p.vms) & (allowed <= p.vms + room)]
        if not allowed.size:
            continue
        enough = allowed[allowed >= p.vms + need - have]
        target = int(enough[0]) if enough.size else int(allowed[-1])
        room, have = room - (target - p.vms), have + (target - p.vms)
        placed[i] = Placement(p.job, target, "host")
    return placed if have >= need else None
