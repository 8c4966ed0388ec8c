"""The schedulers by name: `SCHEDULERS`, `register` and `make_scheduler`.

Plain Python beside the compiled schedulers: a scheduler registers its class here when its module
is imported, and `make_scheduler` makes one from its name, checking what it is given (a compiled
function would answer a wrong type with mypyc's TypeError, not with an `InvalidInput`).
"""

from __future__ import annotations

from typing import Any, TypeVar

from models.checks import shown
from models.errors import InvalidInput, InvalidType
from planner.simulator.schedulers.base import Scheduler

#: The registered scheduler classes, by their ``name``.
SCHEDULERS: dict[str, type[Scheduler]] = {}

S = TypeVar("S", bound=type[Scheduler])


def register(cls: S) -> S:
    """Make a scheduler class available by its ``name`` (a class decorator, or a call).

    Registering the same class again is harmless: a class of the same module and qualified name
    replaces the one registered (a notebook cell run again defines a new class object). Another
    class under a taken name is an error, and so is an empty name.
    """
    name = cls.name
    if not name:
        raise InvalidInput("name", f"scheduler class {cls.__qualname__} has an empty name")
    known = SCHEDULERS.get(name)
    if known is not None and (known.__module__, known.__qualname__) != (cls.__module__, cls.__qualname__):
        raise InvalidInput("name", f"scheduler name {name!r} is taken by {known.__module__}.{known.__qualname__}")
    SCHEDULERS[name] = cls
    return cls


def make_scheduler(scheduler: str | Scheduler, **settings: Any) -> Scheduler:
    """A scheduler from its registered name (with settings) or an instance as is."""
    if isinstance(scheduler, Scheduler):
        if settings:
            raise InvalidInput("scheduler", "settings go to the constructor when passing an instance")
        return scheduler
    if not isinstance(scheduler, str):
        raise InvalidType("scheduler", f"must be a scheduler's name ({', '.join(sorted(SCHEDULERS))}) or a "
                                       f"Scheduler, got {shown(scheduler)} ({type(scheduler).__name__})")
    if scheduler not in SCHEDULERS:
        raise InvalidInput("scheduler", f"unknown scheduler {shown(scheduler)}; known: {', '.join(sorted(SCHEDULERS))}")
    return SCHEDULERS[scheduler](**settings)
