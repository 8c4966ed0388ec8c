"""Packing a batch whose jobs wait for jobs (`Job.after`): phases in an order that respects them.

Phases run one after another, each ending when its longest job does, so a job may run in a phase
only when every job it waits for ran in an earlier one: never in the same phase (they would run
together) nor a later one (`check_precedence`). The objective, the sum of phase lengths, does not
depend on the phases' order, so a schedule respects the dependencies exactly when its phases can
be ordered so (`order_phases`).

- The exhaustive method solves the constrained problem exactly (`exact_phases`: dynamic
  programming over the sets of jobs already run, each closed under predecessors; the next phase
  holds jobs whose predecessors have all run).
- Every other method solves the problem without dependencies; its schedule is kept when its
  phases can be ordered (its status stands: the constrained optimum is never below the
  unconstrained one), else repaired (`repair_phases`): phases are emitted one at a time, each the
  members of a remaining phase whose predecessors have all run (a whole phase when one is ready,
  else the first partly ready one, split), re-placed when a split leaves extra VMs without hosts.
  A repaired schedule is "feasible": its bound is the method's, a bound without dependencies,
  still a bound with them.

A dependency's delay cannot be honoured (phases run back to back, with no clock between them):
`precedence_pairs` refuses one, naming it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import numpy as np

from models import InvalidInput, InvalidPlan, Job
from models.checks import shown

__all__ = ["check_precedence", "exact_phases", "order_phases", "precedence_pairs", "repair_phases"]


def precedence_pairs(jobs: Sequence[Job]) -> tuple[tuple[int, int], ...]:
    """The (predecessor, successor) index pairs of ``jobs``' dependencies, checked (names of the
    batch, no cycle: `models.dag.Precedence`); a delay is refused (module docstring)."""
    if not any(job.after for job in jobs):
        return ()
    from models.dag import Precedence

    graph = Precedence(jobs)
    pairs = []
    for after, found in enumerate(graph.predecessors):
        for before, delay in found:
            if delay > 0:
                raise InvalidInput(f"jobs[{after}].after", f"job {shown(jobs[after].name)} waits {delay:g} s after "
                                   f"{shown(jobs[before].name)}: packing runs phases back to back and cannot honour "
                                   "a dependency's delay (plan with a slot strategy or a target)")
            pairs.append((before, after))
    return tuple(pairs)


def _predecessors(jobs: int, pairs: Sequence[tuple[int, int]]) -> list[set[int]]:
    found: list[set[int]] = [set() for _ in range(jobs)]
    for before, after in pairs:
        found[after].add(before)
    return found


def check_precedence(phases: Sequence[Sequence[object]], pairs: Sequence[tuple[int, int]]) -> None:
    """Phases (of `Placement`, or (job, VMs, role) triples) in the order they run: `InvalidPlan`
    naming the first job whose predecessor runs in its phase or a later one."""
    phase_of: dict[int, int] = {}
    for p, phase in enumerate(phases):
        for item in phase:
            phase_of[int(item.job if hasattr(item, "job") else item[0])] = p  # type: ignore[index, attr-defined]
    for before, after in pairs:
        if before in phase_of and after in phase_of and phase_of[before] >= phase_of[after]:
            where = "the same phase" if phase_of[before] == phase_of[after] else f"phase {phase_of[before]}"
            raise InvalidPlan(f"phase {phase_of[after]}, job {after}: waits for job {before} (after), which runs in "
                              f"{where}")


def order_phases(phases: Sequence[Sequence], pairs: Sequence[tuple[int, int]]) -> list[list] | None:
    """The phases in an order that respects the dependencies (ties: the order given), or None when
    none does (a phase holds a job and one it waits for, or two phases wait for each other)."""
    phase_of = {int(pl.job): p for p, phase in enumerate(phases) for pl in phase}
    needs: list[set[int]] = [set() for _ in phases]
    for before, after in pairs:
        first, second = phase_of[before], phase_of[after]
        if first == second:
            return None
        needs[second].add(first)
    ordered: list[list] = []
    done: set[int] = set()
    while len(ordered) < len(phases):
        ready = next((p for p in range(len(phases)) if p not in done and needs[p] <= done), None)
        if ready is None:
            return None
        done.add(ready)
        ordered.append(list(phases[ready]))
    return ordered


def repair_phases(phases: Sequence[Sequence], pairs: Sequence[tuple[int, int]], instance, placement: type,
                  grow: Callable[[object, list], list]) -> list[list]:
    """Phases that respect the dependencies, made from ``phases`` (module docstring); each emitted
    phase is a subset of one given, re-placed by `_refit` where the subset breaks a rule, hosts
    left without extras run as primaries, and its longest job is given the VMs left free
    (``grow``: `solvers.packing.problem.grow_longest`, which never lengthens a phase); ``placement``
    makes a placement (`solvers.packing.problem.Placement`)."""
    before = _predecessors(instance.jobs, pairs)
    remaining = [list(phase) for phase in phases]
    ran: set[int] = set()
    emitted: list[list] = []
    while remaining:
        ready_parts = [[pl for pl in phase if before[pl.job] <= ran] for phase in remaining]
        whole = next((i for i, part in enumerate(ready_parts) if len(part) == len(remaining[i])), None)
        index = whole if whole is not None else next(i for i, part in enumerate(ready_parts) if part)
        part = ready_parts[index]
        rest = [pl for pl in remaining[index] if pl not in part]
        emitted.append(grow(instance, _unhosted(_refit(part, instance, placement), placement)))
        if rest:
            remaining[index] = _refit(rest, instance, placement)
        else:
            remaining.pop(index)
        ran.update(pl.job for pl in part)
    return emitted


def _unhosted(placements: list, placement: type) -> list:
    """Hosts of a phase without extras run as primaries (a host pays the overcommit penalty)."""
    if any(pl.role == "extra" for pl in placements):
        return placements
    return [placement(pl.job, pl.vms, "primary") if pl.role == "host" else pl for pl in placements]


def _refit(placements: list, instance, placement: type) -> list:
    """``placements`` (part of a valid phase) as a valid phase: kept when extras still have enough
    hosts, else every job as a primary on its VMs where they fit in N, else on an equal share of
    the N VMs (each still runs; the phase is longer)."""
    hosts = sum(pl.vms for pl in placements if pl.role == "host")
    extras = sum(pl.vms for pl in placements if pl.role == "extra")
    if instance.per_extra * extras <= hosts:
        return placements
    if sum(pl.vms for pl in placements) <= instance.vms:  # every job on primary VMs, as many as it had
        return [placement(pl.job, pl.vms, "primary") for pl in placements]
    share = max(1, instance.vms // len(placements))
    return [placement(pl.job, min(pl.vms, share), "primary") for pl in placements]


def exact_phases(instance, pairs: Sequence[tuple[int, int]], shortest) -> tuple[float, list[list]]:
    """The best schedule that respects the dependencies (module docstring), by dynamic programming
    over the sets of jobs already run (each closed under predecessors); ``shortest(members)`` gives
    the shortest phase holding exactly ``members`` (length, placements or None)."""
    n = instance.jobs
    before_mask = [0] * n
    for before, after in pairs:
        before_mask[after] |= 1 << before
    full = (1 << n) - 1
    best: dict[int, tuple[float, list[int]]] = {0: (0.0, [])}
    known: dict[int, tuple[float, list | None]] = {}
    for ran in sorted(range(full + 1), key=lambda mask: bin(mask).count("1")):
        if ran not in best:
            continue
        value, blocks = best[ran]
        ready = [j for j in range(n) if not ran >> j & 1 and before_mask[j] & ~ran == 0]
        for size in range(1, len(ready) + 1):
            for members in itertools.combinations(ready, size):
                block = sum(1 << j for j in members)
                if block not in known:
                    known[block] = shortest(members)
                length = known[block][0]
                if not np.isfinite(length):
                    continue
                after = ran | block
                if after not in best or value + length < best[after][0]:
                    best[after] = (value + length, [*blocks, block])
    total, blocks = best[full]
    return total, [known[block][1] for block in blocks]
