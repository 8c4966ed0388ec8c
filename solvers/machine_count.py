"""How many machines for a VM plan: the number of physical machines P as a decision
(`cheapest_machine_count`).

The Packing paper plans a batch on a fixed cluster of P machines (k primary VMs each, N = k P).
On a rented cluster P is the first lever, and what is paid is the machines for as long as the
schedule runs: cost(P) = P x billed(T*(P)), where T*(P) is the least total time of the problem's
schedule on P machines (pairs: `solvers.pairs.problem.schedule_pairs`; packing:
`solvers.packing.problem.pack_phases`) and billed(t) rounds t up to whole units of the billing
granularity (machine-seconds; times a price per machine and hour, when given). "P x makespan" is
this toolkit's cost, not the paper's: the paper minimizes the time at a fixed P.

Exact over a range of P: each P is solved with an exact method, whose status must be
"optimal" (certified by the method itself, `solvers.certify`), or pruned by a lower bound: the
runtime profiles F_j(n) give, without a solver, a bound LB(P) <= T*(P) (packing:
`solvers.packing.problem.simple_bound`, the longest fastest run and the VM-seconds over the
primary and extra room, the jobs split between them at best; pairs: `pairs_bound`). billed() is
monotone, so P x billed(LB(P)) bounds cost(P)
from below: the sizes are visited in the order of that bound, and once it reaches the best cost
found the rest cannot be cheaper. The answer is proven optimal over the range when every P was
solved to optimality or pruned so. ``prune=False`` solves every P (the brute force the
benchmark checks the pruned search against). An optional ``window`` keeps only the P whose
T*(P) ends by it (the cheapest P that finishes in time).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from models import Cluster, ExtrapolationWarning, InvalidInput, Job
from models.checks import as_float, as_int, as_str
from models.limits import MAX_SECONDS

__all__ = ["MACHINE_PROBLEMS", "MAX_MACHINE_COUNTS", "MachineCount", "billed", "cheapest_machine_count",
           "machine_bound", "pairs_bound"]

#: The VM problems P can be a decision of.
MACHINE_PROBLEMS = ("pairs", "packing")
#: The most machine counts one call may try.
MAX_MACHINE_COUNTS = 1_000
#: Solver statuses that come with a schedule (its time is what is paid for); "optimal" alone proves.
SCHEDULED = ("optimal", "feasible", "time_limit")


@dataclass(frozen=True)
class MachineCount:
    """The answer: ``machines`` (None when no P in the range ends by the window), its ``cost`` and
    ``makespan``, ``proven`` (every P solved to optimality or pruned by its bound), and one flat
    record per P (`records`): machines, vms, status ("optimal", another solver status, "pruned"
    or "over the window"), makespan T*(P), bound LB(P), cost, cost_bound, seconds."""

    problem: str
    method: str
    machines: int | None
    cost: float | None
    makespan: float | None
    proven: bool
    price: float | None
    billing: float
    window: float | None
    solved: int
    per_machine: tuple[dict[str, Any], ...]

    def records(self) -> list[dict[str, Any]]:
        return [dict(record) for record in self.per_machine]

    def summary(self) -> dict[str, Any]:
        """The answer in one flat record: the problem, method, answer, cost, time, whether it is
        proven, the request's price, billing and window, and how many counts were solved of all."""
        return {"problem": self.problem, "method": self.method, "machines": self.machines, "cost": self.cost,
                "makespan": self.makespan, "proven": self.proven, "price": self.price, "billing": self.billing,
                "window": self.window, "solved": self.solved, "counts": len(self.per_machine)}


def billed(seconds: float, billing: float) -> float:
    """``seconds`` rounded up to whole units of ``billing`` seconds."""
    return math.ceil(seconds / billing - 1e-9) * billing


def machine_bound(problem: str, jobs: Sequence[Job], cluster: Cluster) -> float:
    """A lower bound on the problem's total time on ``cluster`` from the profiles alone (module
    docstring)."""
    if problem == "packing":
        from solvers.packing.problem import packing_instance, simple_bound

        return simple_bound(packing_instance(jobs, cluster))
    return pairs_bound(jobs, cluster)


def pairs_bound(jobs: Sequence[Job], cluster: Cluster) -> float:
    """A bound on the pairs' total time on ``cluster`` (`solvers.pairs.problem`) from the profiles:
    the larger of

    - the sorted fastest runs' odd places: with f_1 >= f_2 >= ... each job's fastest run on 1 to
      N VMs or on the extras' count E = N / r (alpha >= 1: overcommitting never beats it), a group of one or two jobs lasts at
      least its longer member's f, and the k-th longest group holds none of f_1 .. f_{2k-2} but
      its own, so it lasts at least f_{2k-1}: the total is at least f_1 + f_3 + f_5 + ...
      (at least half the sum of every f, the bound before it);
    - the area: each job needs at least w_j = min_n n F_j(n) VM-seconds (n over the same counts),
      and no group runs on more than the N primaries and the E extras beside them, so the total
      is at least sum w_j / (N + E)."""
    from solvers.pairs.problem import profile_times

    extras = cluster.vms / cluster.primaries_per_extra  # as the pairs problem counts them: P k / r
    counts = np.append(np.arange(1, cluster.vms + 1, dtype=np.float64), extras)
    times = [profile_times(job, counts) for job in jobs]
    fastest = np.sort([float(np.min(t)) for t in times])[::-1]
    work = sum(float(np.min(counts * t)) for t in times)
    return max(float(fastest[0::2].sum()), work / (cluster.vms + extras))


def _solve(problem: str, jobs: Sequence[Job], cluster: Cluster, method: str, time_limit: float, seed: int) -> Any:
    if problem == "packing":
        from solvers.packing.problem import pack_phases

        return pack_phases(jobs, cluster, method=method, time_limit=time_limit, seed=seed)
    from solvers.pairs.problem import schedule_pairs

    return schedule_pairs(jobs, cluster, method=method, time_limit=time_limit, seed=seed)


def cheapest_machine_count(
    jobs: Sequence[Job],
    machine: Cluster,
    machines: Sequence[int] | range,
    *,
    problem: str = "packing",
    method: str = "milp",
    price: float | None = None,
    billing: float = 1.0,
    window: float | None = None,
    time_limit: float = 60.0,
    seed: int = 0,
    prune: bool = True,
) -> MachineCount:
    """The P in ``machines`` (counts of ``machine``'s kind: its disks, r and alpha) of least cost
    (module docstring); ``price`` per machine and hour (None: machine-seconds), ``billing`` the
    granularity (s), ``window`` the longest the schedule may take (s), ``time_limit`` per P."""
    problem = as_str(problem, "problem", choices=MACHINE_PROBLEMS)
    method = as_str(method, "method")
    counts = sorted({as_int(p, f"machines[{i}]", minimum=1) for i, p in enumerate(machines)})
    if not counts:
        raise InvalidInput("machines", "give at least one number of machines")
    if len(counts) > MAX_MACHINE_COUNTS:
        raise InvalidInput("machines", f"{len(counts):,} counts; at most {MAX_MACHINE_COUNTS:,}")
    price = None if price is None else as_float(price, "price", minimum=0.0)
    billing = as_float(billing, "billing", above=0.0, maximum=MAX_SECONDS)
    window = None if window is None else as_float(window, "window", above=0.0, maximum=MAX_SECONDS)
    scale = 1.0 if price is None else price / 3600.0

    def cost(p: int, seconds: float) -> float:
        return scale * p * billed(seconds, billing)

    with warnings.catch_warnings():  # the methods evaluate F_j at every n in 1..N: the caller warns once
        warnings.simplefilter("ignore", ExtrapolationWarning)
        bounds = {p: machine_bound(problem, jobs, machine.with_changes(nodes=p, racks=1)) for p in counts}
        records: dict[int, dict[str, Any]] = {}
        best: tuple[float, int] | None = None
        proven = True
        for p in sorted(counts, key=lambda p: (cost(p, bounds[p]), p)) if prune else counts:
            cluster = machine.with_changes(nodes=p, racks=1)
            record: dict[str, Any] = {"machines": p, "vms": cluster.vms, "bound": bounds[p],
                                      "cost_bound": cost(p, bounds[p]), "makespan": None, "cost": None, "seconds": 0.0,
                                      "solver_bound": None}
            if window is not None and bounds[p] > window:
                records[p] = {**record, "status": "over the window"}  # its bound already ends after it
                continue
            if prune and best is not None and (cost(p, bounds[p]), p) > best:  # neither cheaper nor, as cheap, fewer
                records[p] = {**record, "status": "pruned"}
                continue
            solution = _solve(problem, jobs, cluster, method, time_limit, seed)
            status = str(solution.status)
            record["seconds"], record["solver_bound"] = solution.seconds, solution.bound
            if status != "optimal":
                proven = False
            if status not in SCHEDULED:  # no schedule to pay for
                records[p] = {**record, "status": status}
                continue
            record.update(status=status, makespan=solution.objective, cost=cost(p, solution.objective))
            records[p] = record
            fits = window is None or solution.objective <= window
            if not fits:
                record["status"] = f"{status}, over the window"
            elif best is None or (record["cost"], p) < best:
                best = (record["cost"], p)
        chosen = None if best is None else best[1]
        return MachineCount(problem, method, chosen, None if best is None else best[0],
                            None if chosen is None else records[chosen]["makespan"], proven and best is not None, price,
                            billing, window, sum(1 for r in records.values() if r["makespan"] is not None),
                            tuple(records[p] for p in counts))
