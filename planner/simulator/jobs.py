"""A job at run time: its pending tasks, where their blocks are, its counters."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from enum import IntEnum
from typing import Final

import numpy as np
from librt.vecs import append, vec
from mypy_extensions import i64, u8

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
        "copies",
        "copying",
        "copying_on",
        "deadline",
        "finish",
        "held_maps",
        "held_reduces",
        "index",
        "indexed",
        "intensity",
        "job",
        "layout",
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
        "replica_array",
        "replica_nodes",
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
        # Block places: task t's replicas are ``replica_nodes[t * copies:(t + 1) * copies]`` while the job
        # runs (a typed column: compiled, read and written as machine words), a compact array once it is
        # done (`replicas`).
        self.copies = min(replication, layout.nodes)
        self.replica_nodes: vec[i64] = place_flat(rng, self.maps, layout, self.copies)
        self.replica_array: np.ndarray | None = None
        self.rack_of = layout.rack_of
        self.map_state: vec[u8] = vec[u8]([PENDING] * self.maps)  # typed: compiled, an item is a byte
        # The locality indexes (a cursor and an end per node: 48 KB a job on 3,000 nodes) are built
        # when the job is first asked for a map (`index_blocks`), not at its arrival: a job that waits
        # (behind an admission limit, or FIFO's queue) holds none. They are a function of the block
        # places alone, so when they are built changes nothing.
        self.layout = layout
        self.indexed = False
        self.on_node = self.on_rack = _NO_TASKS
        self.next_any = 0  # every task below this one has been launched at least once
        self.retry: list[int] = []  # killed or suspended maps, pending again
        self.left: dict[tuple[int, int], float] = {}  # (kind, task) -> seconds a suspended task has left
        self.resume_on: dict[tuple[int, int], int] = {}  # (kind, task) -> the node it was suspended on
        self.pending_maps = self.maps
        self.reduce_queue = list(range(self.reduces - 1, -1, -1))
        self.pending_reduces = self.reduces
        self.open_at = min(self.maps, math.ceil(slowstart * self.maps - 1e-9))
        self.reduces_open = self.open_at == 0
        # Held back by the scheduler (`Simulation.hold`): its pending tasks of that kind are not in
        # the simulation's pending counts until released.
        self.held_maps = False
        self.held_reduces = False
        self.running = vec[i64]([0, 0])  # running maps, reduces (a typed column: no number boxed)
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
    def replicas(self) -> np.ndarray:
        """Replica nodes of the job's blocks, shape (maps, copies) (`layout.place_blocks`'s form; 16-bit
        integers once the job is done, on fewer than 32,768 nodes)."""
        if self.replica_array is not None:
            return self.replica_array
        return _replica_rows(self.replica_nodes, self.copies).copy()

    def task_replicas(self, task: int) -> list[int]:
        """The nodes holding map ``task``'s block (while the job runs)."""
        copies = self.copies
        flat = self.replica_nodes
        return [flat[at] for at in range(task * copies, (task + 1) * copies)]

    def index_blocks(self) -> None:
        """Build the locality indexes (`flat_locality_indexes`) if not yet built."""
        if not self.indexed:
            self.indexed = True
            self.on_node, self.on_rack = flat_locality_indexes(self.replica_nodes, self.copies, self.layout)

    def block_nodes(self) -> list[int]:
        """The nodes holding a block of the job, in increasing order (while the job runs)."""
        if not self.indexed:
            self.index_blocks()
        end = self.on_node.end
        held: list[int] = []
        before: i64 = 0
        for node in range(len(end)):
            bound = end[node]
            if bound > before:
                held.append(node)
            before = bound
        return held

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
        if not self.indexed:
            self.index_blocks()
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
            nodes = self.task_replicas(task)
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
        flat = self.replica_nodes
        small = len(self.rack_of) <= 2**15 or all(flat[at] < 2**15 for at in range(len(flat)))
        self.replica_array = _replica_rows(flat, self.copies).astype(np.int16 if small else np.int32)
        self.replica_nodes = vec[i64]()
        self.map_state = vec[u8]()
        self.indexed = True  # (nothing is asked of a done job; nothing to build)
        self.on_node = self.on_rack = _NO_TASKS

    def return_map(self, task: int) -> None:
        """A killed map is pending again."""
        self.map_state[task] = PENDING
        self.retry.append(task)
        self.pending_maps += 1


def _replica_rows(flat: vec[i64], copies: int) -> np.ndarray:
    """``flat`` (`place_flat`'s replicas) as numpy rows, one per block (a view while it lives)."""
    if len(flat) == 0:
        return np.zeros((0, copies), dtype=np.int64)
    return np.frombuffer(memoryview(flat), dtype=np.int64).reshape(-1, copies)


def place_flat(rng: np.random.Generator, blocks: int, layout: Layout, copies: int) -> vec[i64]:
    """`layout.place_blocks`'s replica nodes, row by row in one flat list: the same draws from
    ``rng`` and the same nodes. Where no replica can clash (`Layout.replicas_never_clash`) and there
    are at most three, the nodes are computed here from the draws as Python numbers (numpy's calls
    on small arrays cost more than the arithmetic: a job's set-up made a dozen); otherwise
    `place_blocks` itself."""
    if copies > 3 or not layout.replicas_never_clash:
        placed: list[int] = place_blocks(rng, blocks, layout, copies).ravel().tolist()
        return vec[i64](placed)
    first: list[int] = rng.integers(0, layout.nodes, blocks).tolist()
    if copies == 1:
        return vec[i64](first)
    racks = layout.racks
    shift: list[int] = rng.integers(1, racks, blocks).tolist()
    # Two draws of ``blocks`` uniforms in one call: a double takes one 64-bit output, so the
    # second half is what a second call would have drawn.
    uniform: list[float] = rng.random(blocks if copies == 2 else 2 * blocks).tolist()
    rack_of = layout.rack_of
    starts = layout.rack_starts
    sizes = layout.rack_sizes
    flat = vec[i64]([0] * (blocks * copies))
    for block in range(blocks):
        node = first[block]
        rack = (rack_of[node] + shift[block]) % racks
        start = starts[rack]
        size = sizes[rack]
        second = start + int(uniform[block] * size)  # (`_within`: floor of a non-negative number)
        at = block * copies
        flat[at] = node
        flat[at + 1] = second
        if copies == 3:  # `_beside`: another node of the second's rack (racks of two nodes or more)
            step = 1 + int(uniform[blocks + block] * (size - 1))
            flat[at + 2] = start + (second - start + step) % size
    return flat


def flat_locality_indexes(flat: vec[i64], copies: int, layout: Layout) -> tuple[TaskIndex, TaskIndex]:
    """Tasks grouped by the nodes holding their blocks (``flat``: `place_flat`'s replicas), and by rack.

    Racks hold consecutive nodes, so one sort by node serves both: a rack's group is the run of
    its nodes' groups (a task with two replicas in the rack appears twice; the second is skipped
    as no longer pending). The sort counts the replicas per node (stable: a node's tasks in task
    order), in typed columns: compiled, no number is boxed.
    """
    nodes: i64 = layout.nodes
    size: i64 = len(flat)
    bounds = vec[i64]([0] * (nodes + 1))
    for position in range(size):
        node = flat[position] + 1
        bounds[node] = bounds[node] + 1
    total: i64 = 0
    for node in range(nodes + 1):
        total = total + bounds[node]  # (bounds[k] counted node k - 1's replicas)
        bounds[node] = total  # the replicas on the nodes before node k: where its group starts
    place = bounds[0:nodes]
    listed = vec[i64]([0] * size)
    step: i64 = copies
    for position in range(size):
        node = flat[position]
        at = place[node]
        listed[at] = position // step
        place[node] = at + 1
    racks = vec[i64]([bounds[start] for start in layout.rack_starts])
    racks_end = racks[1:len(racks)]
    racks_end = append(racks_end, total)
    return TaskIndex(listed, bounds, place), TaskIndex(listed, racks, racks_end)


class TaskIndex:
    """Tasks grouped by a key (the nodes or racks holding their blocks).

    Group ``k`` is ``tasks[bounds[k]:bounds[k + 1]]``, read front to back once:
    ``take`` moves the group's cursor past tasks that are no longer pending, so
    a whole run costs one pass over the (task, replica) pairs however the tasks
    get launched.
    """

    __slots__ = ("cursor", "end", "tasks")

    def __init__(self, tasks: vec[i64], cursor: vec[i64], end: vec[i64]) -> None:
        self.tasks = tasks
        self.cursor = cursor  # each group's first task not yet passed (its start at first)
        self.end = end

    def take(self, key: int, state: vec[u8]) -> int:
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


_NO_TASKS = TaskIndex(vec[i64](), vec[i64](), vec[i64]())


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
