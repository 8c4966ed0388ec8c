"""Fair-scheduler pools: their settings (a plain dataclass, kept out of the compiled fair.py)."""

from __future__ import annotations

from dataclasses import dataclass

from models.checks import as_float, as_int, as_str, check_keys
from models.errors import InvalidType
from planner.simulator.layout import ANY, MAP


@dataclass(frozen=True)
class Pool:
    """A pool of jobs: ``weight`` sets its share against other pools, ``min_map``
    and ``min_reduce`` are slots it is owed whenever it has that much demand,
    ``mode`` orders its own jobs ("fair": fewest running tasks per job weight
    first; "fifo": priority, then submission), ``max_running`` caps how many of
    its jobs run at once (a started job keeps running; the others wait in FIFO order).
    ``max_map`` and ``max_reduce`` (None: no cap) cap the tasks of each kind it runs
    at once (Hadoop's maxMaps and maxReduces); on containers a pool's min share and
    cap are the sums of the two kinds'."""

    name: str
    weight: float = 1.0
    min_map: int = 0
    min_reduce: int = 0
    mode: str = "fair"
    max_running: int | None = None
    max_map: int | None = None
    max_reduce: int | None = None

    def __post_init__(self) -> None:
        put = object.__setattr__
        as_str(self.name, "pool.name")
        where = f"pools.{self.name}"
        put(self, "weight", as_float(self.weight, f"{where}.weight", above=0.0))
        put(self, "min_map", as_int(self.min_map, f"{where}.min_map", minimum=0))
        put(self, "min_reduce", as_int(self.min_reduce, f"{where}.min_reduce", minimum=0))
        as_str(self.mode, f"{where}.mode", choices=("fair", "fifo"))
        if self.max_running is not None:
            put(self, "max_running", as_int(self.max_running, f"{where}.max_running", minimum=1))
        for name in ("max_map", "max_reduce"):
            if getattr(self, name) is not None:
                put(self, name, as_int(getattr(self, name), f"{where}.{name}", minimum=0))

    def min_share(self, kind: int) -> int:
        if kind == ANY:
            return self.min_map + self.min_reduce
        return self.min_map if kind == MAP else self.min_reduce

    def max_share(self, kind: int) -> int | None:
        """The most tasks of ``kind`` the pool may run at once (None: no cap)."""
        if kind == ANY:
            return None if self.max_map is None or self.max_reduce is None else self.max_map + self.max_reduce
        return self.max_map if kind == MAP else self.max_reduce

    @property
    def capped(self) -> bool:
        return self.max_map is not None or self.max_reduce is not None


def as_pool(value: object, position: int) -> Pool:
    if isinstance(value, Pool):
        return value
    if isinstance(value, dict):
        check_keys(value, Pool.__dataclass_fields__, f"pools[{position}]", required=("name",))
        return Pool(**value)
    raise InvalidType(f"pools[{position}]", f"must be a Pool or a mapping, got {type(value).__name__}")

