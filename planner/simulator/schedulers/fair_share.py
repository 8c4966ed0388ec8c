"""Max-min fair shares with weights and minimum shares (a pure function)."""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence

from models.checks import as_float
from models.errors import InvalidInput


def fair_shares(
    total: float,
    demands: Sequence[float],
    min_shares: Sequence[float] | None = None,
    weights: Sequence[float] | None = None,
) -> list[float]:
    """Share ``total`` slots among schedulables by weighted water filling.

    Each gets ``min(d_i, max(r * w_i, m_i))`` for the one ratio ``r`` with
    ``f(r) = sum_i min(d_i, max(r * w_i, m_i)) = total`` (the Hadoop fair
    scheduler's rule). Minimum shares above a demand count as the demand; when
    the minimum shares together exceed ``total`` they are scaled down in
    proportion. When demands fit, everyone gets its demand.

    ``f`` is non-decreasing and piecewise linear in ``r`` with breakpoints at
    ``m_i / w_i`` and ``d_i / w_i``; a binary search over the sorted breakpoints
    finds the segment where ``f`` crosses ``total`` and the segment is solved
    exactly, so whole-number answers come out whole.
    """
    demand = [as_float(value, f"demands[{i}]", minimum=0.0) for i, value in enumerate(demands)]
    count = len(demand)
    mins = _column(min_shares, count, "min_shares", 0.0)
    weight = _column(weights, count, "weights", 1.0)
    if any(w <= 0 for w in weight):
        raise InvalidInput("weights", "must all be > 0")
    total = as_float(total, "total", minimum=0.0)
    if sum(demand) <= total:
        return demand
    floors = [min(m, d) for m, d in zip(mins, demand, strict=True)]
    floor_sum = sum(floors)
    if floor_sum >= total:
        scale = total / floor_sum if floor_sum > 0 else 0.0
        return [m * scale for m in floors]

    def filled(ratio: float) -> float:
        return sum(min(d, max(ratio * w, m)) for d, w, m in zip(demand, weight, floors, strict=True))

    points = sorted({0.0, *(m / w for m, w in zip(floors, weight, strict=True))} | {d / w for d, w in zip(demand, weight, strict=True)})
    # The last breakpoint gives sum(demand) > total, so the crossing lies before it.
    upper = bisect.bisect_left(points, True, key=lambda point: filled(point) >= total)
    low = points[upper - 1] if upper > 0 else 0.0
    # On (low, points[upper]] the rising members are those strictly inside their range.
    probe = low + (points[upper] - low) / 2
    fixed = 0.0
    slope = 0.0
    for d, w, m in zip(demand, weight, floors, strict=True):
        value = probe * w
        if value >= d:
            fixed += d
        elif value <= m:
            fixed += m
        else:
            slope += w
    ratio = low if slope == 0 else (total - fixed) / slope
    shares = [min(d, max(ratio * w, m)) for d, w, m in zip(demand, weight, floors, strict=True)]
    return [float(round(share)) if math.isclose(share, round(share), abs_tol=1e-9) else share for share in shares]


def _column(values: Sequence[float] | None, count: int, name: str, default: float) -> list[float]:
    if values is None:
        return [default] * count
    if len(values) != count:
        raise InvalidInput(name, f"must have one value per demand ({count}), got {len(values)}")
    return [as_float(value, f"{name}[{i}]", minimum=0.0) for i, value in enumerate(values)]
