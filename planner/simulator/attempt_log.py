"""The ended attempts of a run, in columns: 35 bytes an attempt instead of a Python list's 200.

The simulation appends nine numbers per ended attempt to a flat list (one cheap call on the
hot path); every `CHUNK` attempts the list moves into numpy columns of the types below and
is emptied. Records (`Attempt` tuples, flat dicts) are built from the columns on demand.
"""

from __future__ import annotations

from collections.abc import Iterator

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
CHUNK = 1 << 16
MAX_CHUNK = 10_000_000


class AttemptLog:
    """Ended attempts: a flat list being filled (``buffer``, nine values an attempt, in the
    order they ended) and the columns of the attempts moved out of it."""

    __slots__ = ("_chunks", "_columns", "buffer", "limit")

    def __init__(self, chunk: int = CHUNK) -> None:
        self.buffer: list[float] = []
        self.limit = WIDTH * chunk  # the simulation calls `flush` once the buffer holds this many
        self._chunks: dict[str, list[np.ndarray]] = {name: [] for name in NAMES}  # per column, in order
        self._columns: dict[str, np.ndarray] | None = None

    def __len__(self) -> int:
        done = 0 if self._columns is None else len(self._columns["job"])
        return done + sum(len(part) for part in self._chunks["job"]) + len(self.buffer) // WIDTH

    def __getstate__(self) -> dict[str, np.ndarray]:
        return self.columns()

    def __setstate__(self, columns: dict[str, np.ndarray]) -> None:
        self.buffer, self.limit, self._columns = [], WIDTH * CHUNK, dict(columns)
        self._chunks = {name: [] for name in NAMES}

    def flush(self) -> None:
        """Move the buffer's attempts into typed columns (the buffer object stays, emptied)."""
        if not self.buffer:
            return
        table = np.array(self.buffer, dtype=np.float64).reshape(-1, WIDTH)
        for position, (name, dtype) in enumerate(COLUMNS):
            self._chunks[name].append(table[:, position].astype(dtype))
        self.buffer.clear()

    def columns(self) -> dict[str, np.ndarray]:
        """Every attempt's fields as arrays (name -> array), in the order the attempts ended."""
        self.flush()
        if self._chunks["job"]:
            columns = self._columns or {}
            for name in NAMES:  # a column at a time, its parts let go: the peak is one column over the log
                parts = self._chunks[name]
                columns[name] = np.concatenate(([columns[name]] if name in columns else []) + parts)
                parts.clear()
            self._columns = columns
        if self._columns is None:
            self._columns = {name: np.empty(0, dtype=dtype) for name, dtype in COLUMNS}
        return self._columns

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
