"""A job at run time: its pending tasks, where their blocks are, its counters."""

from __future__ import annotations

import math

import numpy as np

from models import Job
from planner.simulator.layout import ANY, MAP, REDUCE, Layout, place_blocks

NODE_LOCAL, RACK_LOCAL, OFF_RACK = 0, 1, 2
LOCALITY_NAMES = ("node", "rack", "off")
PENDING, RUNNING, DONE = 0, 1, 2


def task_times(rng: np.random.Generator, mean: float, count: int, cv: float) -> list[float]:
    """Deterministic means, or lognormal times with mean ``mean`` and coefficient of variation ``cv``."""
    if count == 0:
        return []
    if cv <= 0:
        return [mean] * count
    sigma2 = math.log1p(cv * cv)
    return rng.lognormal(math.log(mean) - sigma2 / 2, math.sqrt(sigma2), count).tolist()


class JobRun:
    """Run-time state of one submitted job.

    Pending maps sit in three lists (by node holding a replica, by rack, and
    all), popped lazily: an entry whose task is no longer pending is dropped
    when met, so taking a task costs O(1) amortized whatever the locality.
    """

    __slots__ = (
        "by_node",
        "by_rack",
        "copying",
        "copying_on",
        "deadline",
        "finish",
        "index",
        "intensity",
        "job",
        "level",
        "map_done",
        "map_state",
        "map_times",
        "maps",
        "maps_done",
        "name",
        "open_at",
        "pending_maps",
        "pending_reduces",
        "pool",
        "priority",
        "reduce_queue",
        "reduce_times",
        "reduces",
        "reduces_done",
        "reduces_open",
        "replicas",
        "rest",
        "running",
        "start",
        "submit",
        "wait_since",
        "weight",
    )

    def __init__(self, index: int, job: Job, layout: Layout, replication: int, cv: float, slowstart: float,
                 rng: np.random.Generator) -> None:
        self.index = index
        self.job = job
        self.name = job.name
        self.submit = job.submit
        self.pool = job.pool
        self.priority = job.priority
        self.deadline = job.deadline
        self.intensity = job.intensity
        self.weight = job.weight
        self.maps = job.map_tasks
        self.reduces = job.reduce_tasks
        self.map_times = task_times(rng, job.map_time, self.maps, cv)
        self.reduce_times = task_times(rng, job.reduce_time, self.reduces, cv)
        self.replicas = place_blocks(rng, self.maps, layout, replication)
        self.map_state = bytearray(self.maps)
        self.by_node, self.by_rack = _locality_lists(self.replicas, layout)
        self.rest = list(range(self.maps - 1, -1, -1))
        self.pending_maps = self.maps
        self.reduce_queue = list(range(self.reduces - 1, -1, -1))
        self.pending_reduces = self.reduces
        self.open_at = min(self.maps, math.ceil(slowstart * self.maps - 1e-9))
        self.reduces_open = self.open_at == 0
        self.running = [0, 0]
        self.maps_done = 0
        self.reduces_done = 0
        self.copying: list[int] = []  # attempts of reducers waiting for the last map
        self.copying_on: dict[int, int] = {}
        self.start: float | None = None
        self.map_done: float | None = None
        self.finish: float | None = None
        self.level = NODE_LOCAL  # delay scheduling: the locality the job may currently launch at
        self.wait_since: float | None = None

    def __repr__(self) -> str:
        return f"<JobRun {self.name}: {self.pending_maps} maps and {self.pending_reduces} reduces pending>"

    @property
    def launchable_reduces(self) -> int:
        return self.pending_reduces if self.reduces_open else 0

    def pending(self, kind: int) -> int:
        if kind == MAP:
            return self.pending_maps
        if kind == REDUCE:
            return self.pending_reduces if self.reduces_open else 0
        return self.pending_maps + (self.pending_reduces if self.reduces_open else 0)

    def running_of(self, kind: int) -> int:
        return self.running[0] + self.running[1] if kind == ANY else self.running[kind]

    def take_map(self, node: int, rack: int, level: int) -> tuple[int, int]:
        """The best pending map for ``node`` no less local than ``level`` allows: (task, locality) or (-1, -1)."""
        state = self.map_state
        found = self.by_node.get(node)
        while found:
            task = found.pop()
            if state[task] == PENDING:
                state[task] = RUNNING
                return task, NODE_LOCAL
        if level >= RACK_LOCAL:
            found = self.by_rack.get(rack)
            while found:
                task = found.pop()
                if state[task] == PENDING:
                    state[task] = RUNNING
                    return task, RACK_LOCAL
        if level >= OFF_RACK:
            found = self.rest
            while found:
                task = found.pop()
                if state[task] == PENDING:
                    state[task] = RUNNING
                    return task, OFF_RACK
        return -1, -1

    def return_map(self, task: int, layout: Layout) -> None:
        """A killed map is pending again, in every list it belongs to."""
        self.map_state[task] = PENDING
        for node in self.replicas[task].tolist():
            self.by_node.setdefault(node, []).append(task)
            self.by_rack.setdefault(layout.rack_of[node], []).append(task)
        self.rest.append(task)
        self.pending_maps += 1


def _locality_lists(replicas: np.ndarray, layout: Layout) -> tuple[dict[int, list[int]], dict[int, list[int]]]:
    tasks, copies = replicas.shape
    if tasks == 0:
        return {}, {}
    flat = replicas.ravel()
    owner = np.repeat(np.arange(tasks), copies)
    # Reversed task order in each list, so that pop() takes the lowest task first.
    order = np.lexsort((-owner, flat))
    nodes, starts = np.unique(flat[order], return_index=True)
    owners = owner[order]
    bounds = [*starts.tolist()[1:], len(order)]
    by_node = {node: owners[start:end].tolist() for node, start, end in zip(nodes.tolist(), starts.tolist(), bounds, strict=True)}
    racks = np.asarray(layout.rack_of, dtype=np.int64)[flat]
    order = np.lexsort((-owner, racks))
    keys, starts = np.unique(racks[order], return_index=True)
    owners = owner[order]
    bounds = [*starts.tolist()[1:], len(order)]
    by_rack = {rack: owners[start:end].tolist() for rack, start, end in zip(keys.tolist(), starts.tolist(), bounds, strict=True)}
    return by_node, by_rack
