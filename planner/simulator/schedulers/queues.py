"""Capacity-scheduler queues: their settings (a plain dataclass, kept out of the compiled capacity.py)."""

from __future__ import annotations

from dataclasses import dataclass

from models.checks import as_float, as_str, check_keys
from models.errors import InvalidInput, InvalidType

#: How a queue orders its jobs: "fifo" (priority, then submission) or "fair" (YARN's
#: FairOrderingPolicy: the job using the fewest containers first, then submission).
ORDERINGS = ("fifo", "fair")


@dataclass(frozen=True)
class Queue:
    """A queue guaranteed ``capacity`` of each slot kind (a fraction of the
    cluster) and allowed up to ``max_capacity`` when other queues leave slots
    idle: ``max_capacity == capacity`` is a hard cap, 1.0 a soft one.
    ``max_capacity=None`` means 1.0. ``ordering`` (`ORDERINGS`) is the queue's
    ``ordering-policy``: "fifo" runs its jobs by priority, then submission; "fair"
    offers a slot to the job running the fewest tasks (of the slot's kind; on
    containers, all its containers), then the earliest submitted, priorities aside,
    as YARN's FairOrderingPolicy does without size-based weight."""

    name: str
    capacity: float
    max_capacity: float | None = None
    ordering: str = "fifo"

    def __post_init__(self) -> None:
        as_str(self.name, "queue.name")
        capacity = as_float(self.capacity, f"queues.{self.name}.capacity", above=0.0)
        if capacity > 1.0:
            raise InvalidInput(f"queues.{self.name}.capacity", f"must be a fraction <= 1, got {capacity:g}")
        top = 1.0 if self.max_capacity is None else as_float(self.max_capacity, f"queues.{self.name}.max_capacity")
        if not capacity <= top <= 1.0:
            raise InvalidInput(
                f"queues.{self.name}.max_capacity", f"must be between capacity ({capacity:g}) and 1, got {top:g}"
            )
        as_str(self.ordering, f"queues.{self.name}.ordering", choices=ORDERINGS)
        object.__setattr__(self, "capacity", capacity)
        object.__setattr__(self, "max_capacity", top)

    @property
    def most(self) -> float:
        """``max_capacity``, read as a number (it is one after construction)."""
        return 1.0 if self.max_capacity is None else self.max_capacity


def as_queue(value: object, position: int) -> Queue:
    """A `Queue` from itself or a mapping of its fields (``queues[position]`` in errors)."""
    if isinstance(value, Queue):
        return value
    if isinstance(value, dict):
        check_keys(value, Queue.__dataclass_fields__, f"queues[{position}]", required=("name", "capacity"))
        return Queue(**value)
    raise InvalidType(f"queues[{position}]", f"must be a Queue or a mapping, got {type(value).__name__}")
