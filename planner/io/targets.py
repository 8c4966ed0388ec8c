"""Export targets by name: the plug-in point for writing a plan as a cluster's configuration.

A target (`ExportTarget`) is a small class with a ``name``, a one-line ``summary`` and four
methods: the files of the exported folder (``files``), the `Run` those files configure
(``run``), the files read back into a run (``read``) and what the target cannot enforce of a
plan, in words (``notes``). Its contract, checked for every registered target by
tests/test_export_targets.py: the files hold a README.md and a submit.sh, and the files
written to a folder and read back simulate to exactly what ``run`` simulates.

`register_target` adds one (registering the same class again - a module reloaded, a notebook
cell run twice - is harmless; another class under a taken name is refused); `export_target`
looks one up and `target_names` lists them. The built-in targets are registered by importing the
modules in `TARGET_MODULES`, on the first look-up: importing `planner.io` stays light.

The generic entry points dispatch through the registry: `export_files` (the plan's fingerprints
checked, then the target's files), `export_plan` (those files written as one folder, whole or
not at all: `models.fileio.write_folder`) and `plan_run` (the run a target's files configure).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from models.checks import as_bool, as_instance, as_path, as_str, shown
from models.errors import InvalidInput
from models.fileio import write_folder
from models.fingerprints import cluster_fingerprint, workload_fingerprint
from planner.plans.arguments import as_options, check_planned

if TYPE_CHECKING:
    from models.cluster import Cluster
    from models.workload import Workload
    from planner.io.hadoop.merge import CurrentConfig
    from planner.plans.plan import Plan
    from planner.simulator.options import SimOptions
    from planner.simulator.run import Run

#: The modules whose import registers the built-in targets, imported on the first look-up.
TARGET_MODULES = ("planner.io.hadoop.targets", "planner.io.spark.target")
#: A target's name: a lowercase word, parts joined by dashes ("yarn-fair").
_NAME = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
#: What a target must have besides its name and summary.
_METHODS = ("files", "run", "read", "notes")


@runtime_checkable
class ExportTarget(Protocol):
    """What a cluster's software runs a plan as: its files written, the run they configure, and
    the files read back (module docstring)."""

    @property
    def name(self) -> str:
        """The target's name, a lowercase word with dashes ("yarn-fair")."""
        ...

    @property
    def summary(self) -> str:
        """What the target is, in one line."""
        ...

    def files(self, plan: Plan, workload: Workload | None, cluster: Cluster, *, ready_now: bool,
              options: SimOptions | None, current: CurrentConfig | None = None) -> dict[str, str]:
        """The exported folder's files, name -> content, with a README.md and a submit.sh;
        ``current``: the operator's configuration to merge the plan into (None: the target's own
        files)."""
        ...

    def run(self, plan: Plan, workload: Workload, cluster: Cluster, *, ready_now: bool,
            options: SimOptions | None) -> Run:
        """The run of ``plan`` as the exported files configure the cluster."""
        ...

    def read(self, paths: Iterable[str | Path], workload: Workload, cluster: Cluster) -> Run:
        """The run the files in ``paths`` (an exported folder) configure: the same as `run`'s."""
        ...

    def notes(self, plan: Plan) -> Sequence[str]:
        """What the target cannot enforce of ``plan``, in words (for the export's README)."""
        ...


_TARGETS: dict[str, ExportTarget] = {}


def register_target(target: ExportTarget) -> ExportTarget:
    """Add ``target`` under its name (module docstring); returns it. The name must be a lowercase
    word with dashes, and the target must have a summary and the four methods."""
    name = getattr(target, "name", None)
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise InvalidInput("target.name", f"must be a lowercase word with dashes (e.g. yarn-fair), got {shown(name)}")
    summary = getattr(target, "summary", None)
    if not isinstance(summary, str) or not summary.strip():
        raise InvalidInput("target.summary", f"target {name!r} needs a one-line summary")
    missing = [method for method in _METHODS if not callable(getattr(target, method, None))]
    if missing:
        raise InvalidInput("target", f"{name!r} lacks the method(s) {', '.join(missing)} of an ExportTarget")
    taken = _TARGETS.get(name)
    if taken is not None and not _same_class(taken, target):
        raise InvalidInput("target.name", f"export target {name!r} is already registered (by "
                                   f"{type(taken).__module__}.{type(taken).__qualname__})")
    _TARGETS[name] = target
    return target


def unregister_target(name: str) -> None:
    """Remove the target registered as ``name`` (a test's throwaway one); unknown names are ignored."""
    _TARGETS.pop(name, None)


def _same_class(registered: object, target: object) -> bool:
    """The same class, or its definition run again (same module and qualified name)."""
    first, second = type(registered), type(target)
    return first is second or (first.__module__, first.__qualname__) == (second.__module__, second.__qualname__)


def _load_targets() -> None:
    for module in TARGET_MODULES:
        importlib.import_module(module)  # registers on first import; a no-op after


def target_names() -> tuple[str, ...]:
    """The registered targets' names, built-in ones first, in registration order."""
    _load_targets()
    return tuple(_TARGETS)


def export_target(name: str) -> ExportTarget:
    """The target registered as ``name``; an unknown name is an `InvalidInput` naming the choices."""
    return target_named(name, "name")


def target_named(name: object, field: str) -> ExportTarget:
    """`export_target` for an argument called ``field`` (``target`` of `export_plan`, `plan_run`)."""
    _load_targets()
    return _TARGETS[as_str(name, field, choices=_TARGETS)]


def export_files(plan: Plan, workload: Workload | None, cluster: Cluster, target: str, *, ready_now: bool = False,
                 options: SimOptions | None = None, current: CurrentConfig | None = None) -> dict[str, str]:
    """The exported folder's files, name -> content (`export_plan` writes them). Without the
    workload the schedule submits every job at once, in order (its submit times are unknown); a
    plan of a batch whose jobs wait for jobs (``Plan.pipeline``) is not exported without it.
    ``current``: the operator's configuration the plan is merged into (targets that merge; None:
    the target's own files)."""
    check_export(plan, workload, cluster, ready_now, options, current)
    chosen = target_named(target, "target")
    if plan.cluster_fingerprint != cluster_fingerprint(cluster):
        raise InvalidInput("cluster", "is not the cluster the plan was made for (fingerprints differ)")
    if workload is not None and plan.workload_fingerprint != workload_fingerprint(workload):
        raise InvalidInput("workload", "is not the workload the plan was made for (fingerprints differ)")
    if plan.target is not None:  # a plan for a target: its schedule is fixed by its levers
        if workload is None:
            raise InvalidInput("workload", "a plan made for a target is exported with its workload (-w): the "
                                           "schedule names each job's time and queue")
        if ready_now and not plan.ready_now:
            raise InvalidInput("ready_now", "the plan was made with the jobs' arrivals; make it with --ready-now to "
                                            "submit every job at the start")
    if workload is None and plan.pipeline:
        raise InvalidInput("workload", "the plan's batch has jobs that wait for jobs (after): give its workload (-w), "
                                       "whose dependencies the submissions hold")
    if workload is None and not (ready_now or plan.ready_now or plan.phases):
        raise InvalidInput("workload", "the plan uses the jobs' arrivals: give its workload (-w) for their submit "
                                       "times, or --ready-now to submit every job at the start")
    if current is None:  # targets written before merging take no ``current``
        return chosen.files(plan, workload, cluster, ready_now=ready_now, options=options)
    return chosen.files(plan, workload, cluster, ready_now=ready_now, options=options, current=current)


def check_export(plan: object, workload: object, cluster: object, ready_now: object, options: object,
                 current: object) -> None:
    """The arguments of `export_files` and `export_plan`, each of its type (`InvalidType` naming it)."""
    from planner.io.hadoop.merge import CurrentConfig

    check_planned(plan, workload, cluster, workload_optional=True)
    as_bool(ready_now, "ready_now")
    as_options(options)
    if current is not None:
        as_instance(current, CurrentConfig, "current")


def export_plan(plan: Plan, workload: Workload | None, cluster: Cluster, target: str, folder: str | Path, *,
                ready_now: bool = False, options: SimOptions | None = None,
                current: CurrentConfig | None = None) -> list[str]:
    """Write the exported files (`export_files`) as ``folder`` (`models.fileio.write_folder`: whole or
    not at all; submit.sh made executable); returns their names."""
    folder = as_path(folder, "folder")
    files = export_files(plan, workload, cluster, target, ready_now=ready_now, options=options, current=current)
    return write_folder(files, folder, executable=("submit.sh",))


def plan_run(plan: Plan, workload: Workload, cluster: Cluster, target: str = "mrv1", *, ready_now: bool = False,
             options: SimOptions | None = None) -> Run:
    """The run of ``plan`` as ``target``'s exported files configure the cluster: the same run that
    reading those files back gives (the target's ``read``)."""
    check_planned(plan, workload, cluster)
    as_bool(ready_now, "ready_now")
    as_options(options)
    return target_named(target, "target").run(plan, workload, cluster, ready_now=ready_now, options=options)
