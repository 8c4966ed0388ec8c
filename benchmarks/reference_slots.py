"""A straightforward reference for the fluid slot model: one event loop per s_m, plain Python.

It follows FRESH's Algorithm 1 step by step (see solvers/slots/configure.py for the
semantics) and exists to check and time the vectorized `configure_slots`.
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np

from solvers.slots.work import SIMULTANEOUS, TASK_EPSILON, PhaseWork


def _waterfill(caps: list[float], total: float) -> list[float]:
    ordered = sorted(caps)
    before = 0.0
    level = math.inf
    for j, cap in enumerate(ordered):
        candidate = (total - before) / (len(ordered) - j)
        if candidate <= cap:
            level = candidate
            break
        before += cap
    return [min(cap, level) for cap in caps]


def _rates(active: dict[int, float], slots: float, task_time: np.ndarray, model: str) -> dict[int, float]:
    if not active:
        return {}
    if model == "fresh":
        return dict.fromkeys(active, slots / len(active))
    jobs = list(active)
    caps = [max(1.0, math.ceil(active[j] / task_time[j] - TASK_EPSILON)) for j in jobs]
    return dict(zip(jobs, _waterfill(caps, slots), strict=True))


def reference_makespan(phases: PhaseWork, total_slots: int, k: int, map_slots: int, model: str = "fresh") -> float:
    n = phases.map_work.size
    smap, sred = float(map_slots), float(total_slots - map_slots)
    in_map = {p: float(phases.map_work[p]) for p in range(min(k, n))}
    in_reduce: dict[int, float] = {}
    waiting: deque[int] = deque()
    upcoming = len(in_map)
    left = n
    clock = 0.0
    while left:
        map_rate = _rates(in_map, smap, phases.map_time, model)
        red_rate = _rates(in_reduce, sred, phases.reduce_time, model)
        times = [w / map_rate[p] for p, w in in_map.items()] + [w / red_rate[p] for p, w in in_reduce.items()]
        step = min(times)
        cutoff = step * (1.0 + SIMULTANEOUS)
        map_done = sorted(p for p, w in in_map.items() if w / map_rate[p] <= cutoff)
        red_done = sorted(p for p, w in in_reduce.items() if w / red_rate[p] <= cutoff)
        clock += step
        for p in in_map:
            in_map[p] -= map_rate[p] * step
        for p in in_reduce:
            in_reduce[p] -= red_rate[p] * step
        for p in map_done:
            del in_map[p]
            if phases.reduce_work[p] > 0:
                waiting.append(p)
            else:
                left -= 1
            if upcoming < n:
                in_map[upcoming] = float(phases.map_work[upcoming])
                upcoming += 1
        for p in red_done:
            del in_reduce[p]
            left -= 1
        while waiting and len(in_reduce) < k:
            p = waiting.popleft()
            in_reduce[p] = float(phases.reduce_work[p])
    return clock


def reference_makespans(phases: PhaseWork, total_slots: int, k: int, model: str = "fresh") -> np.ndarray:
    """One loop per s_m = 1..S-1."""
    return np.array([reference_makespan(phases, total_slots, k, s, model) for s in range(1, total_slots)])
