"""Listing every phase of small reduced cost: the enumeration behind the exact packing's proofs
(solvers/packing/exact.py). A schedule better than the incumbent in a region uses only phases
whose reduced cost there is at most the region's slack (`lp.LpBound.slack`), so the
integer program over a complete list decides the region."""

from __future__ import annotations

import numpy as np

from solvers.packing.columns import LevelTables, _empty, _fewest, _step, best_by_level, restricted
from solvers.packing.problem import Placement

#: A probe lists the phases within half the slack first (`PhaseLister.probe`): lists grow steeply with
#: the slack (random_batch(40, 2) on P = 9 at its root: 1,114 phases within 20 s of reduced cost,
#: 7,147 within 40, 83,294 within 75), so more than 1/PROBE of the limit there predicts a whole
#: list over it, and the search stops before it spends its time. (Predicting the whole list from
#: the lists within a quarter and a half, half^2 / quarter, turned down lists that would have
#: closed their regions: seeds 1, 3 and 4 of random_batch(40) then branched more.)
PROBE = 16


class PhaseLister:
    """The phases whose reduced cost L - shift(L) - sum of their jobs' duals is at most a slack
    (``shift[k]``: what other rows pay a phase of length levels[k]), for one set of duals. The
    setup (which lengths can hold such a phase, the knapsack over the room left) serves every
    slack up to ``slack``: a probe and the whole list share it.

    A depth-first search over jobs (largest dual first) and their roles. Each node carries, for
    every candidate length at once, the VMs its jobs need: U = primaries + hosts (hosts at their
    fewest) and X = primaries + r x extras. A finished set fits when max(U, X) <= N (hosts grow
    to carry the extras) and any extras have a host. The jobs still to come can add at most the
    knapsack value of what fits in the room left, (N - U, N - X), so a node whose best reachable
    reduced cost exceeds the slack has no qualifying descendant.
    """

    def __init__(self, tables: LevelTables, duals: np.ndarray, slack: float, shift: np.ndarray | None = None) -> None:
        self.tables, self.duals, self.slack = tables, duals, float(slack)
        n, r = tables.vms, tables.per_extra
        self.tolerance = 1e-9 * max(1.0, float(tables.levels[-1]))
        priced = tables.levels - (shift if shift is not None else 0.0)
        impossible = 4 * n + 1  # more than any phase holds; no overflow when summed

        def needs(fewest: np.ndarray) -> np.ndarray:
            return np.where(fewest > 0, fewest, impossible).astype(np.int64)

        #: Each job's fewest VMs (as U or X) at every length, by role: primary, host, r x extra.
        self.needs = (needs(tables.primary_need), needs(_fewest(tables.host_ok)), needs(r * tables.extra_need))
        self.can_host, self.can_extra = tables.host_ok.any(axis=(1, 2)), tables.extra_need.any(axis=1)
        # Only lengths where the most weight a phase holds (the pricing's exact knapsack) brings the
        # reduced cost within the slack can hold a listed phase: the search runs over those alone
        # (`ks`, indices into tables.levels), which makes its tables a fraction of the size.
        self.ks = np.flatnonzero(priced - best_by_level(tables, duals) <= self.slack + 2 * self.tolerance)
        self.priced = priced[self.ks]
        self.inside = tuple(need[:, self.ks] for need in self.needs)
        self.order = sorted(range(duals.size), key=lambda j: (-duals[j], j))
        # room[i] as one row: level k, a, b at k (n + 1)^2 + a (n + 1) + b
        room = _room_values(restricted(tables, self.ks), duals, self.order) if self.ks.size else np.zeros((1, 1))
        self.flat = room.reshape(room.shape[0], -1)

    def within(self, slack: float, *, limit: int, deadline: float, clock) -> tuple[list[tuple[float, list[Placement]]], bool]:
        """Every phase (at its shortest length) whose reduced cost is at most ``slack`` (at most the
        setup's), and whether the list is complete: it stops at ``limit`` phases or at the
        ``deadline`` (seconds on ``clock``), and then proves nothing (its phases are still good ones)."""
        if slack > self.slack:
            raise ValueError(f"slack {slack} is above the {self.slack} the lister was set up for")
        if not self.ks.size:
            return [], True
        tables, duals, flat, ks, tolerance = self.tables, self.duals, self.flat, self.ks, self.tolerance
        n_jobs, n = duals.size, tables.vms
        primary, host, extra = self.needs
        side = (n + 1) * (n + 1)
        found: dict[int, tuple[float, tuple]] = {}
        zero = np.zeros(ks.size, dtype=np.int64)
        # A node carries the lengths still open below it (`active`, ascending) and its VMs at them: a
        # length where no completion qualifies stays closed for every descendant (their gains are
        # within the node's), so the search visits the same nodes as one over every length, at less cost.
        stack: list[tuple] = [(0, np.arange(ks.size), self.priced, zero, zero, 0.0, 0, (), False, False)]
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
            at = active * side + np.maximum(left_u, 0) * (n + 1) + np.maximum(left_x, 0)
            reach = (prices - np.where(fits, flat[i].take(at), -np.inf)) - weight
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
                first = int(ks[active[0]])  # the shortest open length, in tables.levels
                if reach[0] > slack + tolerance or (first > 0 and _fits_at(placed, primary, host, extra, first - 1, n)):
                    continue
                length = float(tables.levels[first])
                known = found.get(mask)
                if mask and (hosted or not extras) and (known is None or length < known[0]):
                    if known is None and len(found) >= limit:
                        return _widened(found, tables)[0], False
                    found[mask] = (length, placed)
                continue
            j = self.order[i]
            stack.append((i + 1, active, prices, used_u, used_x, weight, mask, placed, hosted, extras))
            bit, gained = mask | (1 << j), weight + float(duals[j])
            need = self.inside[0][j].take(active)
            stack.append((i + 1, active, prices, used_u + need, used_x + need, gained, bit, (*placed, (j, "primary")),
                          hosted, extras))
            if self.can_host[j]:
                stack.append((i + 1, active, prices, used_u + self.inside[1][j].take(active), used_x, gained, bit,
                              (*placed, (j, "host")), True, extras))
            if self.can_extra[j]:
                stack.append((i + 1, active, prices, used_u, used_x + self.inside[2][j].take(active), gained, bit,
                              (*placed, (j, "extra")), hosted, True))
        return _widened(found, tables)

    def probe(self, *, limit: int, deadline: float, clock) -> tuple[list[tuple[float, list[Placement]]], bool]:
        """The whole list within the setup's slack, unless the list within half of it already holds
        over limit / `PROBE` phases (then those, incomplete)."""
        found, whole = self.within(self.slack / 2, limit=max(1, limit // PROBE), deadline=deadline, clock=clock)
        if not whole:
            return found, False
        return self.within(self.slack, limit=limit, deadline=deadline, clock=clock)


def enumerate_phases(
    tables: LevelTables, duals: np.ndarray, slack: float, *, limit: int, deadline: float, clock,
    shift: np.ndarray | None = None,
) -> tuple[list[tuple[float, list[Placement]]], bool]:
    """Every phase (at its shortest length) whose reduced cost is at most ``slack``, and whether the
    list is complete (`PhaseLister.within`)."""
    return PhaseLister(tables, duals, slack, shift).within(slack, limit=limit, deadline=deadline, clock=clock)


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
