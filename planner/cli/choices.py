"""What the command's help lists, known without importing the registries behind it.

The scheduler and solver registries live with the simulator and the solvers, whose imports take
a second or more; `planner --help` takes a fraction of that. The names are written here once
and `tests/test_cli_choices.py` checks them against the registries, so a scheduler or solver
method added there and not here fails the suite. The trace formats come from the importer
registry itself, which is light.
"""

from __future__ import annotations

from planner.io.importers import IMPORTERS

#: `planner.simulator.SCHEDULERS`, sorted.
SCHEDULER_NAMES = ("capacity", "fair", "fifo", "fresh", "natjam")
#: `planner.plans.vm.all_solver_choices()`: the pair and packing methods --solver may name.
SOLVER_CHOICES = ("exhaustive", "greedy", "matching", "milp", "milp-compact", "pso")
#: `planner.io.swim.SwimConversion`'s fields: what ``planner import swim --set NAME=VALUE`` sets.
SWIM_SETTINGS = ("block_size", "bytes_per_reduce", "map_startup", "map_rate", "reduce_startup", "shuffle_rate",
                 "output_rate")
#: The registered trace importers, in registration order.
TRACE_FORMATS = tuple(IMPORTERS)


def version() -> str:
    """The installed batchplan's version (``planner --version``)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("batchplan")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"
