"""The trace importers `planner import` offers, by name: the plug-in point for a new format.

An importer is a function ``read(path, **options) -> Workload`` in a module of `planner.io`;
registering it here by name (with the module, so that nothing is imported until it is used)
puts it on the command line and behind `read_trace`.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from models.checks import as_str, shown
from models.errors import InvalidInput
from planner.io.swim import CONVERSION_SETTINGS

if TYPE_CHECKING:
    from models.workload import Workload

_NAME = re.compile(r"[a-z][a-z0-9_-]{0,31}")


@dataclass(frozen=True)
class Importer:
    """One trace format: its name, where its reader lives, and the options the reader takes."""

    name: str
    module: str
    function: str
    summary: str
    options: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.fullmatch(self.name):
            raise InvalidInput("name", f"must be a lowercase word of at most 32 characters, got {shown(self.name)}")
        if not self.module or not self.function.isidentifier():
            raise InvalidInput("function", f"must name a function of a module, got {shown(self.function)}")

    def reader(self) -> Callable[..., Workload]:
        """The reader function (imports its module on first use)."""
        return getattr(importlib.import_module(self.module), self.function)


#: Registered importers by name, in the order the command line lists them.
IMPORTERS: dict[str, Importer] = {}


def register_importer(importer: Importer) -> Importer:
    """Add a format. Registering an equal importer again is harmless (a notebook cell run twice);
    another importer under a taken name is refused (`InvalidInput`, a `ValueError`)."""
    if IMPORTERS.get(importer.name) == importer:
        return importer
    if importer.name in IMPORTERS:
        raise InvalidInput("name", f"importer {importer.name!r} is already registered")
    IMPORTERS[importer.name] = importer
    return importer


def read_trace(name: str, path: str | Path, **options: Any) -> Workload:
    """Read a trace with the importer registered as `name` (options go to its reader)."""
    importer = IMPORTERS.get(as_str(name, "name"))
    if importer is None:
        raise InvalidInput("name", f"unknown trace format {shown(name)}; known: {', '.join(IMPORTERS)}")
    unknown = sorted(set(options) - set(importer.options))
    if unknown:
        raise InvalidInput(unknown[0], f"is not an option of the {name} importer (it takes: "
                           f"{', '.join(importer.options) or 'none'})")
    return importer.reader()(path, **options)


register_importer(Importer("swim", "planner.io.swim", "read_swim", "SWIM workload traces (Facebook 2009/2010)",
                           options=("limit", "pool", "intensity", "window", "split_output", *CONVERSION_SETTINGS)))
register_importer(Importer("rumen", "planner.io.json_traces", "read_rumen", "Hadoop Rumen job histories",
                           options=("keep_failed",)))
register_importer(Importer("sls", "planner.io.json_traces", "read_sls", "Hadoop SLS job files"))
register_importer(Importer("synth", "planner.io.synth", "read_synth", "Hadoop SLS synthetic workload descriptions",
                           options=("seed", "limit")))
register_importer(Importer("swf", "planner.io.swf", "read_swf", "Standard Workload Format logs (Parallel Workloads "
                           "Archive)", options=("limit", "window", "pool_by")))
register_importer(Importer("oozie", "planner.io.oozie", "read_oozie", "Oozie workflows (jobs that wait for jobs), "
                           "profiled from a trace", options=("trace", "trace_format", "matches", "properties",
                                                             "sub_workflows", "default_job")))
register_importer(Importer("spark", "planner.io.spark.logs", "read_spark", "Spark event logs (one or several "
                           "applications; plain, zstd, lz4, snappy or lzf; rolling folders)"))
