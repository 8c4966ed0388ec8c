"""Scheduler settings from plain data: what a settings file (YAML or JSON) holds, once read.

`planner.io.settings` reads the file (`load_settings`, `simulation_settings`); a settings file
is a mapping: an optional ``scheduler`` (a registered name),
an optional ``options`` section (`SimOptions` fields) and the scheduler's own
settings, e.g. for the fair scheduler::

    scheduler: fair
    pools:
      - {name: production, weight: 2, min_map: 10, min_reduce: 4}
      - {name: research, mode: fifo, max_running: 3}
    delay: [15, 15]                 # or {node_wait: 15, rack_wait: 15, intensities: [io]}
    preemption: {min_share_timeout: 60, fair_share_timeout: 600}
    options: {reduce_slowstart: 0.8, copy_compute: [4, 2]}

Loading is strict: an unknown key is refused with its field path (e.g.
``pools[1].weigth: unknown key; ...``); `planner.io.settings` adds the file's name to errors.
"""

from __future__ import annotations

import dataclasses
import inspect
import numbers
from collections.abc import Callable, Mapping
from typing import Any

from models.checks import as_mapping, as_str, check_keys, key_name, shown
from models.errors import InvalidInput
from models.limits import MAX_JOBS, MAX_TOTAL_SLOTS, MAX_WEIGHT, MIN_WEIGHT
from planner.limits import MAX_SETTING, MIN_RECHECK
from planner.simulator.locality import DelayScheduling
from planner.simulator.options import SimOptions
from planner.simulator.schedulers.base import Scheduler
from planner.simulator.schedulers.catalog import SCHEDULERS
from planner.simulator.schedulers.fair import Pool
from planner.simulator.schedulers.preemption import Preemption
from planner.simulator.schedulers.queues import Queue

#: Keys of a settings file besides the scheduler's own settings.
FILE_KEYS = ("scheduler", "options")
DEFAULT_SCHEDULER = "fifo"

_DELAY_KEYS = ("node_wait", "rack_wait", "intensities")
_POOL_KEYS = tuple(field.name for field in dataclasses.fields(Pool))
_QUEUE_KEYS = tuple(field.name for field in dataclasses.fields(Queue))
_PREEMPTION_KEYS = tuple(field.name for field in dataclasses.fields(Preemption))
_OPTION_KEYS = tuple(field.name for field in dataclasses.fields(SimOptions))


def scheduler_class(name: object) -> type[Scheduler]:
    """The registered scheduler class called ``name``."""
    if not isinstance(name, str) or name not in SCHEDULERS:
        raise InvalidInput("scheduler", f"unknown scheduler {shown(name)}; known: {', '.join(sorted(SCHEDULERS))}")
    return SCHEDULERS[name]


def setting_names(name: str) -> tuple[str, ...]:
    """The settings the scheduler ``name`` takes (its constructor's keyword parameters)."""
    cls = scheduler_class(name)
    if cls.settings is not None:
        return cls.settings
    parameters = inspect.signature(cls.__init__).parameters.values()
    return tuple(
        p.name
        for p in parameters
        if p.name != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    )


def delay_from_value(value: object, field: str = "delay") -> DelayScheduling | None:
    """Delay scheduling from ``[node_wait, rack_wait]``, ``{node_wait, rack_wait,
    intensities}``, a `DelayScheduling`, or None/false (no delay scheduling)."""
    if value is None or value is False or isinstance(value, DelayScheduling):
        return value or None
    if isinstance(value, (list, tuple)):
        if len(value) != 2:
            raise InvalidInput(field, f"must be [node_wait, rack_wait] in seconds, got {shown(list(value))}")
        for position, wait in enumerate(value):
            _within(wait, f"{field}[{position}]", MAX_SETTING)
        return _rename(lambda: DelayScheduling(value[0], value[1]), {"delay.node_wait": f"{field}[0]",
                                                                     "delay.rack_wait": f"{field}[1]"})
    if isinstance(value, Mapping):
        check_keys(dict(value), _DELAY_KEYS, field, required=("node_wait", "rack_wait"))
        for key in ("node_wait", "rack_wait"):
            _within(value[key], f"{field}.{key}", MAX_SETTING)
        return _rename(lambda: DelayScheduling(**value), {f"delay.{key}": f"{field}.{key}" for key in _DELAY_KEYS})
    raise InvalidInput(
        field, f"must be [node_wait, rack_wait] or a mapping with node_wait and rack_wait, got {shown(value)}"
    )


def pools_from_value(value: object, field: str = "pools") -> list[Pool] | None:
    """Fair-scheduler pools from a list of mappings with the `Pool` fields (``name`` required)."""
    return _entries(value, field, Pool, _POOL_KEYS, "pool")


def queues_from_value(value: object, field: str = "queues") -> list[Queue] | None:
    """Capacity queues from a list of mappings with ``name``, ``capacity`` and optional ``max_capacity``."""
    return _entries(value, field, Queue, _QUEUE_KEYS, "queue", required=("name", "capacity"))


def preemption_from_value(value: object, field: str = "preemption") -> Preemption | None:
    """Preemption from a mapping of `Preemption` fields; true gives the defaults, false or null none."""
    if value is None or value is False or isinstance(value, Preemption):
        return value or None
    if value is True:
        return Preemption()
    if isinstance(value, Mapping):
        check_keys(dict(value), _PREEMPTION_KEYS, field)
        for key in ("min_share_timeout", "fair_share_timeout", "recheck"):
            _within(value.get(key), f"{field}.{key}", MAX_SETTING, least=MIN_RECHECK if key == "recheck" else None)
        return _rename(lambda: Preemption(**value), {f"preemption.{key}": f"{field}.{key}" for key in _PREEMPTION_KEYS})
    raise InvalidInput(field, f"must be a mapping of {', '.join(_PREEMPTION_KEYS)}, true or false, got {shown(value)}")


#: How each known setting turns from plain data into what the constructors take.
CONVERTERS: dict[str, Callable[[object, str], Any]] = {
    "delay": delay_from_value,
    "pools": pools_from_value,
    "queues": queues_from_value,
    "preemption": preemption_from_value,
}


def scheduler_from_dict(name: str, data: Mapping[str, Any] | None = None) -> Scheduler:
    """A scheduler from its registered ``name`` and its settings as plain data.

    The keys allowed are the constructor's parameters (fifo: delay; fair:
    pools, delay, preemption; capacity: queues, delay); ``delay``, ``pools``,
    ``queues`` and ``preemption`` take the forms of a settings file, other
    keys (of schedulers registered elsewhere) are passed on as they are.
    """
    cls = scheduler_class(name)
    settings = as_mapping({} if data is None else dict(data), "")
    allowed = setting_names(name)
    for key, value in settings.items():
        if key not in allowed:
            raise InvalidInput(
                key_name(key),
                f"unknown key for the {name} scheduler; expected one of {', '.join(sorted(allowed)) or '(none)'}",
            )
        if key not in CONVERTERS:  # the constructor checks the type; the size is ours (overheads, k, ...)
            _within(value, key_name(key), MAX_SETTING, magnitude=True)
    arguments = {
        key: CONVERTERS[key](value, key) if key in CONVERTERS else value for key, value in settings.items()
    }
    return cls(**arguments)


def options_from_dict(data: Mapping[str, Any] | None, field: str = "options") -> SimOptions:
    """`SimOptions` from plain data (lists for ``copy_compute`` are fine); errors name ``field.key``."""
    if data is None:
        return SimOptions()
    mapping = as_mapping(dict(data) if isinstance(data, Mapping) else data, field)
    check_keys(mapping, _OPTION_KEYS, field)
    try:
        return SimOptions(**mapping)
    except InvalidInput as error:
        raise error.within(field) from None


def settings_from_dict(
    data: Mapping[str, Any], scheduler: str | None = None, *, delay: object = None
) -> tuple[Scheduler, SimOptions | None]:
    """The scheduler and options of a settings mapping (see the module's docstring).

    ``scheduler`` names the scheduler when the mapping has no ``scheduler``
    key (default fifo) and must agree with it when it has one. ``delay``,
    when not None, replaces the mapping's delay setting. The options are None
    when the mapping has no ``options`` section.
    """
    mapping = as_mapping(dict(data) if isinstance(data, Mapping) else data, "")
    named = mapping.get("scheduler")
    if named is not None:
        as_str(named, "scheduler")
        scheduler_class(named)
        if scheduler is not None and scheduler != named:
            raise InvalidInput("scheduler", f"the settings are for {shown(named)}, but {shown(scheduler)} was asked for")
    name = named or scheduler or DEFAULT_SCHEDULER
    scheduler_class(name)
    own = {key: value for key, value in mapping.items() if key not in FILE_KEYS}
    allowed = setting_names(name)
    for key in own:
        if key not in allowed:
            expected = ", ".join(sorted({*allowed, *FILE_KEYS}))
            raise InvalidInput(key_name(key), f"unknown key for the {name} scheduler; expected one of {expected}")
    if delay is not None:
        own["delay"] = delay
    options = options_from_dict(mapping["options"]) if mapping.get("options") is not None else None
    return scheduler_from_dict(name, own), options


def with_options(base: SimOptions | None, **options: Any) -> SimOptions:
    """``base`` (default: `SimOptions()`) with the `SimOptions` fields given as keywords; None
    values are ignored and an unknown name is refused."""
    changes = {key: value for key, value in options.items() if value is not None}
    unknown = sorted(set(changes) - set(_OPTION_KEYS))
    if unknown:
        raise InvalidInput(unknown[0], f"unknown option; known: {', '.join(_OPTION_KEYS)}")
    base = base if base is not None else SimOptions()
    return dataclasses.replace(base, **changes) if changes else base


def _entries(
    value: object, field: str, cls: type, keys: tuple[str, ...], noun: str, required: tuple[str, ...] = ("name",)
) -> list | None:
    if value is None:
        return None
    if not isinstance(value, (list, tuple)):
        raise InvalidInput(field, f"must be a list of {noun}s (mappings with {', '.join(keys)}), got {shown(value)}")
    made = []
    for position, entry in enumerate(value):
        where = f"{field}[{position}]"
        if isinstance(entry, cls):
            made.append(entry)
            continue
        mapping = as_mapping(entry, where)
        check_keys(mapping, keys, where, required=required)
        for key, maximum in _ENTRY_LIMITS.items():
            if key in mapping and mapping[key] is not None:
                _within(mapping[key], f"{where}.{key}", maximum, least=MIN_WEIGHT if key == "weight" else None)
        name = mapping["name"]
        renames = {f"{noun}.name": f"{where}.name"}
        if isinstance(name, str):
            renames.update({f"{field}.{name}.{key}": f"{where}.{key}" for key in keys})
        made.append(_rename(lambda mapping=mapping: cls(**mapping), renames))
    return made


#: Upper limits of pool fields (a queue's are fractions its constructor bounds).
_ENTRY_LIMITS = {"weight": MAX_WEIGHT, "min_map": MAX_TOTAL_SLOTS, "min_reduce": MAX_TOTAL_SLOTS,
                 "max_map": MAX_TOTAL_SLOTS, "max_reduce": MAX_TOTAL_SLOTS, "max_running": MAX_JOBS}


def _within(value: object, field: str, maximum: float, *, least: float | None = None, magnitude: bool = False) -> None:
    """Refuse a number beyond a limit before a constructor sees it (the constructors, some of them
    elsewhere, check types and lower bounds; ``least`` refuses positive values below it). Values
    that are not numbers are left to them."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return
    if value > maximum or (magnitude and value < -maximum):
        bound = f"at most {maximum:g} in magnitude" if magnitude else f"<= {maximum:g}"
        raise InvalidInput(field, f"must be {bound}, got {shown(value)}")
    if least is not None and 0 < value < least:
        raise InvalidInput(field, f"must be >= {least:g}, got {shown(value)}")


def _rename(build: Callable[[], Any], renames: dict[str, str]) -> Any:
    """Run ``build``; an `InvalidInput` about a field in ``renames`` is re-raised under the new name."""
    try:
        return build()
    except InvalidInput as error:
        if error.field in renames:
            raise InvalidInput(renames[error.field], error.problem, source=error.source) from None
        raise
