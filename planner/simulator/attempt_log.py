"""The ended attempts of a run, in columns: 35 bytes an attempt instead of a Python list's 200.

The simulation appends nine numbers per ended attempt to a flat list (one cheap call on the
hot path); every `CHUNK` attempts the list moves into numpy columns of the types below and
is emptied. Records (`Attempt` tuples, flat dicts) are built from the columns on demand.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

import numpy as np

#: The columns, in the order the simulation appends them (the fields of `records.Attempt`).
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
#: Attempts gathered in the flat list before they move into columns (and progress is reported).
CHUNK: Final = 1 << 16
MAX_CHUNK: Final = 10_000_000


class AttemptLog:
    """Ended attempts: a flat list being filled (``buffer``, nine values an attempt, in the
    order they ended) and typed columns holding the attempts moved out of it.

    The columns are allocated for ``capacity`` attempts at the first move (the simulation
    passes its workload's task count, which a run without evictions meets exactly) and grow
    by half when evictions make more: no copy at the end, and no chunks left to join.
    """

    __slots__ = ("_columns", "_count", "buffer", "capacity", "limit")

    def __init__(self, chunk: int = CHUNK, capacity: int = 0) -> None:
        self.buffer: list[float] = []
        self.limit = WIDTH * chunk  # the simulation calls `flush` once the buffer holds this many
        self.capacity = capacity
        self._columns: dict[str, np.ndarray] | None = None
        self._count = 0  # attempts in the columns

    def __len__(self) -> int:
        return self._count + len(self.buffer) // WIDTH

    def __getstate__(self) -> dict[str, np.ndarray]:
        return {name: column.copy() for name, column in self.columns().items()}

    def __setstate__(self, columns: dict[str, np.ndarray]) -> None:
        self.buffer, self.limit, self._columns = [], WIDTH * CHUNK, dict(columns)
        self._count = self.capacity = len(columns["job"])

    def flush(self) -> None:
        """Move the buffer's attempts into the typed columns (the buffer object stays, emptied)."""
        if not self.buffer:
            return
        table = np.array(self.buffer, dtype=np.float64).reshape(-1, WIDTH)
        start, stop = self._count, self._count + len(table)
        columns = self._columns
        if columns is None or stop > len(columns["job"]):
            columns = self._grow(stop)
        for position, name in enumerate(NAMES):
            columns[name][start:stop] = table[:, position]
        self._count = stop
        self.buffer.clear()

    def _grow(self, needed: int) -> dict[str, np.ndarray]:
        size = max(needed, self.capacity) if self._columns is None else max(needed, len(self._columns["job"]) * 3 // 2)
        old = self._columns
        columns: dict[str, np.ndarray] = {}
        for name, dtype in COLUMNS:
            column: np.ndarray = np.empty(size, dtype=dtype)
            if old is not None:
                column[: self._count] = old.pop(name)[: self._count]
            columns[name] = column
        self._columns = columns
        return columns

    def columns(self) -> dict[str, np.ndarray]:
        """Every attempt's fields as arrays (name -> array, views of the columns), in the order
        the attempts ended."""
        self.flush()
        if self._columns is None:
            return {name: np.empty(0, dtype=dtype) for name, dtype in COLUMNS}
        return {name: column[: self._count] for name, column in self._columns.items()}

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
