"""The ended attempts of a run, in columns: 38 bytes an attempt while the run goes on.

The simulation appends each ended attempt's nine numbers to nine typed columns (`librt.vecs.vec`
of 32-bit and 16-bit integers and floats: compiled, an append writes a machine word, with no
tuple, no boxed number and no later conversion). Every `CHUNK` attempts `add` says so, and the
simulation reports its progress. Records (`Attempt` tuples, flat dicts) and numpy columns of
the types below are built from the columns on demand.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

import numpy as np
from librt.vecs import append, vec
from mypy_extensions import i16, i32, i64

#: The columns, in the order `add` takes them (the fields of `records.Attempt`), as `columns` gives them.
COLUMNS: tuple[tuple[str, type], ...] = (
    ("job", np.int32),
    ("kind", np.int8),
    ("task", np.int32),
    ("node", np.int32),
    ("slot", np.int32),
    ("start", np.float64),
    ("end", np.float64),
    ("locality", np.int8),
    ("fate", np.int8),
)
NAMES = tuple(name for name, _ in COLUMNS)
WIDTH = len(COLUMNS)
#: Attempts between two progress reports, unless the simulation is told otherwise.
CHUNK: Final = 1 << 16
MAX_CHUNK: Final = 10_000_000


class AttemptLog:
    """Ended attempts in the order they ended, a typed column per field.

    The columns are allocated for ``capacity`` attempts (the simulation passes its workload's
    task count, which a run without evictions meets exactly) and double when evictions make
    more. `columns` gives numpy arrays of the `COLUMNS` types (views of the 32-bit and float
    columns, copies of the small codes, which are kept as 16-bit integers: `vec` has no 8-bit
    signed type, and locality is -1 for reduces).
    """

    __slots__ = ("_arrays", "_arrays_count", "chunk", "count", "due", "ends", "fates", "jobs", "kinds",
                 "localities", "nodes", "slots", "starts", "tasks")

    def __init__(self, chunk: int = CHUNK, capacity: int = 0) -> None:
        self._allocate(max(capacity, 0))
        self.count = 0
        self.chunk = chunk
        self.due = chunk  # `add` returns True when the count reaches it (then it moves on a chunk)
        self._arrays: dict[str, np.ndarray] | None = None  # `columns`, kept while no attempt is added
        self._arrays_count = -1

    def _allocate(self, size: i64) -> None:
        """Empty columns with room for ``size`` attempts."""
        self.jobs: vec[i32] = vec[i32](capacity=size)
        self.kinds: vec[i16] = vec[i16](capacity=size)
        self.tasks: vec[i32] = vec[i32](capacity=size)
        self.nodes: vec[i32] = vec[i32](capacity=size)
        self.slots: vec[i32] = vec[i32](capacity=size)
        self.starts: vec[float] = vec[float](capacity=size)
        self.ends: vec[float] = vec[float](capacity=size)
        self.localities: vec[i16] = vec[i16](capacity=size)
        self.fates: vec[i16] = vec[i16](capacity=size)

    def __len__(self) -> int:
        return self.count

    def add(self, job: int, kind: int, task: int, node: int, slot: int, start: float, end: float, locality: int,
            fate: int) -> bool:
        """Log an attempt; True when another ``chunk`` attempts have been logged (time to report)."""
        self.jobs = append(self.jobs, job)
        self.kinds = append(self.kinds, kind)
        self.tasks = append(self.tasks, task)
        self.nodes = append(self.nodes, node)
        self.slots = append(self.slots, slot)
        self.starts = append(self.starts, start)
        self.ends = append(self.ends, end)
        self.localities = append(self.localities, locality)
        self.fates = append(self.fates, fate)
        self.count += 1
        if self.count < self.due:
            return False
        self.due += self.chunk
        return True

    def __getstate__(self) -> dict[str, np.ndarray]:
        return {name: column.copy() for name, column in self.columns().items()}

    def __setstate__(self, columns: dict[str, np.ndarray]) -> None:
        self._allocate(0)  # the arrays are the log (nothing is added to a log that travelled)
        self.count = self._arrays_count = len(columns["job"])
        self.chunk = self.due = CHUNK
        self._arrays = dict(columns)

    def columns(self) -> dict[str, np.ndarray]:
        """Every attempt's fields as arrays (name -> array), in the order the attempts ended."""
        if self._arrays is not None and self._arrays_count == self.count:
            return dict(self._arrays)
        count = self.count
        typed: tuple[Any, ...] = (self.jobs, self.kinds, self.tasks, self.nodes, self.slots, self.starts, self.ends,
                 self.localities, self.fates)
        columns: dict[str, np.ndarray] = {}
        for (name, dtype), column in zip(COLUMNS, typed, strict=True):
            kept = np.dtype(np.int16 if dtype is np.int8 else dtype)
            array = np.frombuffer(column, dtype=kept) if count else np.empty(0, dtype=kept)
            columns[name] = array[:count] if dtype is not np.int8 else array[:count].astype(np.int8)
        self._arrays, self._arrays_count = columns, count
        return dict(columns)

    def rows(self, order: np.ndarray | None = None, start: int = 0, stop: int | None = None) -> Iterator[tuple]:
        """Attempts as tuples of Python numbers (ints and floats as the simulation logged
        them), in ended order or in ``order`` (positions), from ``start`` to ``stop``."""
        columns = self.columns()
        picked = [columns[name][start:stop] if order is None else columns[name][order[start:stop]] for name in NAMES]
        return zip(*(column.tolist() for column in picked), strict=True)

    def start_order(self) -> np.ndarray:
        """Positions of the attempts in order of start time, then slot, then end."""
        columns = self.columns()
        return np.lexsort((columns["end"], columns["slot"], columns["start"]))
