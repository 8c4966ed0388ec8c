"""Scheduler settings files (YAML or JSON) read into a scheduler and `SimOptions`.

What a file may hold, and the conversion from plain data, is `planner.simulator.config`
(`settings_from_dict`); this module reads the file and names it in errors.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from models.checks import as_path, as_str, shown
from models.errors import InvalidInput
from models.fileio import read_mapping
from planner.simulator.config import (
    DEFAULT_SCHEDULER,
    delay_from_value,
    scheduler_class,
    scheduler_from_dict,
    settings_from_dict,
    with_options,
)
from planner.simulator.options import SimOptions
from planner.simulator.schedulers.base import Scheduler


def load_settings(
    path: str | Path, scheduler: str | None = None, *, delay: object = None
) -> tuple[Scheduler, SimOptions | None]:
    """`settings_from_dict` of a YAML or JSON file; errors name the file."""
    path = as_path(path, "path")
    if scheduler is not None:
        as_str(scheduler, "scheduler")
    data = read_mapping(path)
    try:
        return settings_from_dict(data, scheduler, delay=delay)
    except InvalidInput as error:
        raise error.in_file(str(path)) from None


def load_scheduler(name: str | None, path: str | Path) -> Scheduler:
    """The scheduler a settings file describes (``name`` as in `settings_from_dict`).
    Its ``options`` section is checked too; `load_settings` returns it."""
    if name is not None:
        as_str(name, "name")
        try:
            scheduler_class(name)
        except InvalidInput as error:
            raise InvalidInput("name", error.problem) from None
    path = as_path(path, "path")
    data = read_mapping(path)
    named = data.get("scheduler") if isinstance(data, dict) else None
    if name is not None and isinstance(named, str) and named != name:  # the file's own error would name `scheduler`
        raise InvalidInput("name", f"the settings are for {shown(named)}, but {shown(name)} was asked for",
                           source=str(path))
    try:
        return settings_from_dict(data, name)[0]
    except InvalidInput as error:
        raise error.in_file(str(path)) from None


def simulation_settings(
    config: str | Path | None = None,
    scheduler: str | None = None,
    *,
    delay: object = None,
    **options: Any,
) -> tuple[Scheduler, SimOptions]:
    """What a run uses: the settings file ``config`` (if any), the scheduler
    named ``scheduler`` (default: the file's, else fifo), ``delay`` replacing
    the file's delay setting, and `SimOptions` fields given as keywords (None
    values are ignored) replacing the file's options.

    Errors in the file name the file; errors in ``delay`` or an option name
    that field only (``delay...``, ``reduce_slowstart``, ...).
    """
    if config is not None:
        config = as_path(config, "config")
    if scheduler is not None:
        as_str(scheduler, "scheduler")
    delay = delay_from_value(delay)
    if config is None:
        chosen = scheduler_from_dict(scheduler or DEFAULT_SCHEDULER, {"delay": delay} if delay else None)
        base: SimOptions | None = None
    else:
        chosen, base = load_settings(config, scheduler, delay=delay)
    return chosen, with_options(base, **options)

