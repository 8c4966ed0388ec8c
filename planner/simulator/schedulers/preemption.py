"""Preemption for the fair scheduler: kill the newest tasks of pools above their
fair share when a pool has starved for too long."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from models.checks import as_float, check_keys
from models.errors import InvalidInput
from planner.limits import MIN_RECHECK
from planner.simulator.schedulers.fair_share import fair_shares

if TYPE_CHECKING:
    from planner.simulator.core import Simulation
    from planner.simulator.schedulers.pools import Pool


@dataclass(frozen=True)
class Preemption:
    """When to preempt (seconds; None turns that kind off).

    - min-share preemption: a pool below min(min share, demand) for
      ``min_share_timeout`` seconds gets the missing slots;
    - fair-share preemption: a pool below half of min(fair share, demand) for
      ``fair_share_timeout`` seconds gets up to its full fair share;
    - a pool's clocks start when it falls short (a pool without jobs is never
      starved); while it stays starved past its timeout it is checked again
      every ``recheck`` seconds, and kills happen at most once per ``recheck``.
    Victims are the most recently launched tasks of pools running more than
    their fair share; no pool is taken below its fair share.
    """

    min_share_timeout: float | None = 60.0
    fair_share_timeout: float | None = 600.0
    recheck: float = 1.0

    def __post_init__(self) -> None:
        for name in ("min_share_timeout", "fair_share_timeout"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, as_float(value, f"preemption.{name}", minimum=0.0))
        # A period that does not advance the clock would never end: at least MIN_RECHECK.
        object.__setattr__(self, "recheck", as_float(self.recheck, "preemption.recheck", minimum=MIN_RECHECK))


class PoolLoads(Protocol):
    """What the preemptor reads of the scheduler whose pools it watches (`fair.Fair`)."""

    def pool_loads(self, kind: int) -> list[tuple[str, int, int]]:
        """(pool, running, demand) of ``kind`` for each pool with jobs."""
        ...

    def pool_of(self, name: str) -> Pool:
        """The pool named ``name``."""
        ...


class Preemptor:
    """The starvation clocks of one run's pools, and the kills."""

    def __init__(self, fair: PoolLoads, policy: Preemption, sim: Simulation) -> None:
        self.fair = fair
        self.policy = policy
        self.sim = sim
        # (pool, kind) -> last time the pool was at its min share / half its fair share.
        self.at_min: dict[tuple[str, int], float] = {}
        self.at_half: dict[tuple[str, int], float] = {}
        # Pools found short at the last settle. State only changes at event instants, so a
        # pool satisfied at the last settle stayed satisfied until the instant it is found short.
        self.short_of_min: set[tuple[str, int]] = set()
        self.short_of_half: set[tuple[str, int]] = set()
        self.quiet_until = -math.inf  # no new kills before this (one round per `recheck`)

    def pool_seen(self, pool: str, now: float, *, was_empty: bool) -> None:
        """A job joined ``pool``. A pool without jobs is never starved (as in Hadoop), so a
        pool that was empty starts its clocks now."""
        for kind in self.sim.kinds_present:
            key = (pool, kind)
            if was_empty or key not in self.at_min:
                self.at_min[key] = self.at_half[key] = now
                self.short_of_min.discard(key)
                self.short_of_half.discard(key)

    def _status(self, kind: int) -> list[tuple[str, int, int, float, float]]:
        """(pool, running, demand, min target, fair share) for each pool with jobs."""
        loads = self.fair.pool_loads(kind)
        pools = [self.fair.pool_of(name) for name, _, _ in loads]
        total = self.sim.layout.count(kind)
        shares = fair_shares(
            total,
            [demand for _, _, demand in loads],
            [pool.min_share(kind) for pool in pools],
            [pool.weight for pool in pools],
        )
        return [
            (name, running, demand, min(pool.min_share(kind), demand), share)
            for (name, running, demand), pool, share in zip(loads, pools, shares, strict=True)
        ]

    def settle(self, now: float) -> float | None:
        policy = self.policy
        soonest = math.inf
        for kind in self.sim.kinds_present:
            for name, running, demand, floor, share in self._status(kind):
                key = (name, kind)
                soonest = min(soonest, self._clock(key, running >= floor, self.at_min, self.short_of_min,
                                                   policy.min_share_timeout, now),
                              self._clock(key, running >= min(share / 2, demand), self.at_half, self.short_of_half,
                                          policy.fair_share_timeout, now))
        return None if soonest == math.inf else soonest

    def _clock(self, key: tuple[str, int], satisfied: bool, since: dict[tuple[str, int], float],
               short: set[tuple[str, int]], timeout: float | None, now: float) -> float:
        """One starvation clock (min share or half the fair share): restarted while the pool has its
        due, started when it falls short; the time its timeout would expire (inf without one)."""
        if satisfied:
            since[key] = now
            short.discard(key)
            return math.inf
        if key not in short:
            since[key] = now
            short.add(key)
        return math.inf if timeout is None else self._due(since[key] + timeout, now)

    def _due(self, deadline: float, now: float) -> float:
        if deadline <= now:
            deadline = now + self.policy.recheck
        return max(deadline, self.quiet_until)

    def preempt(self, now: float) -> None:
        policy = self.policy
        sim = self.sim
        if now < self.quiet_until:
            return
        for kind in sim.kinds_present:
            status = self._status(kind)
            wanted = 0
            for name, running, demand, floor, share in status:
                key = (name, kind)
                missing = 0
                # Compared as now >= clock + timeout: the very sum `settle` asked to be woken at.
                if policy.min_share_timeout is not None and now >= self.at_min[key] + policy.min_share_timeout:
                    missing = max(0, floor - running)
                if (
                    policy.fair_share_timeout is not None
                    and running < min(share / 2, demand)
                    and now >= self.at_half[key] + policy.fair_share_timeout
                ):
                    missing = max(missing, math.floor(min(share, demand) + 1e-9) - running)
                wanted += missing
            # Free slots go to starved pools first (they rank first), so they count.
            wanted -= sim.free_count[kind]
            if wanted > 0 and self._kill(kind, wanted, status, now):
                self.quiet_until = now + policy.recheck

    def _kill(self, kind: int, wanted: int, status: list, now: float) -> int:
        """Kill up to ``wanted`` attempts of ``kind``; returns how many were killed."""
        sim = self.sim
        running = {name: count for name, count, _, _, _ in status}
        shares = {name: share for name, _, _, _, share in status}
        slot_kind = sim.layout.slot_kind
        victims = [
            slot
            for slot in sim.running_slots()
            if slot_kind[slot] == kind and running.get(sim.slot_run[slot][0].pool, 0) > shares.get(sim.slot_run[slot][0].pool, 0)
        ]
        # The most recently launched first (they lose the least work).
        victims.sort(key=lambda slot: (sim.slot_run[slot][3], slot), reverse=True)
        killed = 0
        for slot in victims:
            if wanted <= 0:
                break
            pool = sim.slot_run[slot][0].pool
            if running[pool] - 1 >= shares[pool] - 1e-9:
                sim.kill(slot, now)
                running[pool] -= 1
                wanted -= 1
                killed += 1
        return killed


def as_preemption(value: object) -> Preemption | None:
    """`Fair`'s ``preemption`` setting: a Preemption, True (the defaults), a mapping of its fields, or None."""
    if value is None or isinstance(value, Preemption):
        return value
    if value is True:
        return Preemption()
    if isinstance(value, dict):
        check_keys(value, Preemption.__dataclass_fields__, "preemption")
        return Preemption(**value)
    raise InvalidInput("preemption", f"must be a Preemption or a mapping, got {value!r}")
