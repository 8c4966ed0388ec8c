"""A job at run time: its pending tasks, where their blocks are, its counters."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from enum import IntEnum
from typing import Final

import numpy as np

from models import Job
from models.errors import InvalidInput
from planner.simulator.layout import ANY, MAP, REDUCE, Layout, place_blocks


class Locality(IntEnum):
    """Where a map ran from its input block: on a node holding it, in its rack, or off the rack."""

    NODE_LOCAL = 0
    RACK_LOCAL = 1
    OFF_RACK = 2


# `Locality`'s values as the compiled code compares them (Final ints, as `layout.MAP`'s).
NODE_LOCAL: Final = 0
RACK_LOCAL: Final = 1
OFF_RACK: Final = 2
LOCALITY_NAMES = ("node", "rack", "off")
PENDING: Final = 0
RUNNING: Final = 1
DONE: Final = 2


def _replayed(replay: Mapping[str, Sequence[float]], kind: str, drawn: list[float], name: str) -> list[float]:
    if kind not in replay:
        return drawn
    if len(replay[kind]) != len(drawn):
        raise InvalidInput(f"task_times.{name}.{kind}", f"has {len(replay[kind])} times for {len(drawn)} tasks")
    return list(replay[kind])


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
        "block",
        "copying",
        "copying_on",
        "deadline",
        "finish",
        "index",
        "intensity",
        "job",
        "left",
        "level",
        "map_done",
        "map_state",
        "map_time",
        "map_times",
        "maps",
        "maps_done",
        "name",
        "next_any",
        "on_node",
        "on_rack",
        "open_at",
        "order",
        "pending_maps",
        "pending_reduces",
        "pool",
        "priority",
        "rack_of",
        "reduce_queue",
        "reduce_time",
        "reduce_times",
        "reduces",
        "reduces_done",
        "reduces_open",
        "replicas",
        "resume_on",
        "retry",
        "running",
        "shuffle",
        "slowdown",
        "start",
        "submit",
        "wait_since",
        "weight",
    )

    def __init__(self, index: int, job: Job, layout: Layout, replication: int, cv: float, slowstart: float,
                 rng: np.random.Generator, rack_factor: float = 1.0, off_rack_factor: float = 1.0,
                 replay: Mapping[str, Sequence[float]] | None = None) -> None:
        self.index = index
        # The job's rank by (submit, name) in its workload, which the simulation sets (`Simulation._arrive`):
        # orders that end in (submit, name) end in this one integer, cheaper to compare.
        self.order = index
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
        # The mean task times, as native floats (a compiled read of ``job.job.map_time`` is a Python one).
        self.map_time = float(job.map_time)
        self.reduce_time = float(job.reduce_time)
        # Task times: lists while the job runs, float64 arrays once it is done (`drop_tasks`).
        self.map_times: list[float] | np.ndarray = task_times(rng, job.map_time, self.maps, cv)
        #: Map time multipliers by locality: node-local, rack-local, off-rack.
        self.slowdown = (1.0, rack_factor, off_rack_factor)
        self.reduce_times: list[float] | np.ndarray = task_times(rng, job.reduce_time, self.reduces, cv)
        if replay:
            self.map_times = _replayed(replay, "map", self.map_times, job.name)
            self.reduce_times = _replayed(replay, "reduce", self.reduce_times, job.name)
        self.replicas = place_blocks(rng, self.maps, layout, replication)
        self.rack_of = layout.rack_of
        self.map_state: list[int] = [PENDING] * self.maps  # a list: compiled, a bytearray's items are Python reads
        self.on_node, self.on_rack = locality_indexes(self.replicas, layout)
        self.next_any = 0  # every task below this one has been launched at least once
        self.retry: list[int] = []  # killed or suspended maps, pending again
        self.left: dict[tuple[int, int], float] = {}  # (kind, task) -> seconds a suspended task has left
        self.resume_on: dict[tuple[int, int], int] = {}  # (kind, task) -> the node it was suspended on
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
        # With the network on (`core.Simulation`): bytes per block, where map outputs are.
        self.block: float | None = None
        self.shuffle: ShuffleState | None = None
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
        if self.retry:
            found = self._take_retry(node, rack, level)
            if found[0] >= 0:
                return found
        # TaskIndex.take for the node, inlined: this runs once per launched map.
        index = self.on_node
        position = index.cursor[node]
        end = index.end[node]
        tasks = index.tasks
        while position < end:
            task = tasks[position]
            position += 1
            if state[task] == PENDING:
                index.cursor[node] = position
                state[task] = RUNNING
                return task, NODE_LOCAL
        index.cursor[node] = position
        if level >= RACK_LOCAL:
            task = self.on_rack.take(rack, state)
            if task >= 0:
                state[task] = RUNNING
                return task, RACK_LOCAL
            if level >= OFF_RACK:
                task = self.next_any
                maps = self.maps
                while task < maps:
                    if state[task] == PENDING:
                        self.next_any = task + 1
                        state[task] = RUNNING
                        return task, OFF_RACK
                    task += 1
                self.next_any = task
        return -1, -1

    def _take_retry(self, node: int, rack: int, level: int) -> tuple[int, int]:
        self.retry = [task for task in self.retry if self.map_state[task] == PENDING]
        best, where = -1, level + 1
        for task in self.retry:
            nodes = self.replicas[task].tolist()
            here = NODE_LOCAL if node in nodes else RACK_LOCAL if rack in self._racks(nodes) else OFF_RACK
            if here < where:
                best, where = task, here
        if best < 0:
            return -1, -1
        self.retry.remove(best)
        self.map_state[best] = RUNNING
        return best, where

    def _racks(self, nodes: list[int]) -> set[int]:
        return {self.rack_of[node] for node in nodes}

    def drop_tasks(self) -> None:
        """The job is done: let go of what only scheduling needs (the locality indexes, about
        100 bytes a task, and per-node cursors) and keep the task times and block places in
        compact arrays (14 bytes a task with three replicas on fewer than 32,768 nodes)."""
        self.map_times = np.asarray(self.map_times, dtype=np.float64)
        self.reduce_times = np.asarray(self.reduce_times, dtype=np.float64)
        small = len(self.rack_of) <= 2**15 or self.replicas.size == 0 or int(self.replicas.max()) < 2**15
        self.replicas = self.replicas.astype(np.int16 if small else np.int32)
        self.map_state = []
        self.on_node = self.on_rack = _NO_TASKS

    def return_map(self, task: int) -> None:
        """A killed map is pending again."""
        self.map_state[task] = PENDING
        self.retry.append(task)
        self.pending_maps += 1


def locality_indexes(replicas: np.ndarray, layout: Layout) -> tuple[TaskIndex, TaskIndex]:
    """Tasks grouped by the nodes holding their blocks, and by rack.

    Racks hold consecutive nodes, so one sort by node serves both: a rack's
    group is the run of its nodes' groups (a task with two replicas in the
    rack appears twice; the second is skipped as no longer pending).
    """
    copies = replicas.shape[1]
    flat = replicas.ravel()
    if layout.nodes < 2**15:
        flat = flat.astype(np.int16)  # numpy's stable sort is a radix sort on 16-bit keys
    order = flat.argsort(kind="stable")  # (methods, not numpy's functions: no Python wrapper per call)
    listed = (order // copies).tolist()
    bounds = [0, *np.bincount(flat, minlength=layout.nodes).cumsum().tolist()]
    rack_bounds = [bounds[start] for start in layout.rack_starts] + [bounds[-1]]
    return TaskIndex(listed, bounds), TaskIndex(listed, rack_bounds)


class TaskIndex:
    """Tasks grouped by a key (the nodes or racks holding their blocks).

    Group ``k`` is ``tasks[bounds[k]:bounds[k + 1]]``, read front to back once:
    ``take`` moves the group's cursor past tasks that are no longer pending, so
    a whole run costs one pass over the (task, replica) pairs however the tasks
    get launched.
    """

    __slots__ = ("cursor", "end", "tasks")

    def __init__(self, tasks: list[int], bounds: list[int]) -> None:
        self.tasks = tasks
        self.cursor = bounds[:-1]
        self.end = bounds[1:]

    def take(self, key: int, state: list[int]) -> int:
        """The first pending task of group ``key`` (-1 if none); the caller marks it running."""
        position = self.cursor[key]
        end = self.end[key]
        tasks = self.tasks
        while position < end:
            task = tasks[position]
            position += 1
            if state[task] == PENDING:
                self.cursor[key] = position
                return task
        self.cursor[key] = position
        return -1


_NO_TASKS = TaskIndex([], [0])


# -- the shuffle, with the network on (`core.Simulation` moves the bytes) -------------------------
#: A reducer that has fetched everything available waits for this many seconds' worth (at its
#: node's link speed) of new map output before fetching again (or for the job's last map).
BATCH_SECONDS: Final = 1.0


class ShuffleState:
    """Where a job's map outputs are, and the reducers waiting for more of them."""

    __slots__ = ("chunk", "copied", "in_rack", "kept", "on_node", "step", "waiting")

    def __init__(self, shuffle_bytes: float, maps: int, reduces: int, racks: int, node_rate: float) -> None:
        self.chunk = shuffle_bytes / (maps * reduces)  # bytes of one map's output for one reducer
        self.on_node: dict[int, int] = {}  # node -> maps done there
        self.in_rack = [0] * racks
        #: Maps to wait for between fetches of a caught-up reducer.
        self.step = max(1, min(maps, math.ceil(node_rate * BATCH_SECONDS / self.chunk)))
        self.waiting: dict[int, list[tuple[int, int]]] = {}  # maps done -> (slot, attempt) to wake then
        self.kept: dict[int, list[float]] = {}  # reduce task -> bytes a suspended attempt had fetched
        self.copied: set[int] = set()  # reduce tasks suspended after their copy: they resume computing


class ReducerCopy:
    """A reducer in its copy phase: bytes fetched from its rack and from others, and in flight."""

    __slots__ = ("fetched", "job", "moving", "node", "rack", "state")

    def __init__(self, job: JobRun, state: ShuffleState, node: int, rack: int, fetched: list[float]) -> None:
        self.job = job
        self.state = state  # the job's
        self.node = node
        self.rack = rack
        self.fetched = fetched
        self.moving = [0.0, 0.0]  # bytes of the flow in progress, per class (0: none)


#: The attempt on a slot (`Simulation.slot_run`): job, kind, task, start time and locality. The hot
#: path reads a slot's attempt as a SlotRun, so that the compiled code unpacks it and reads the
#: job's fields natively (``slot_run`` itself holds None for a free slot).
SlotRun = tuple[JobRun, int, int, float, int]
