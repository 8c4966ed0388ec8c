"""What the command's help lists, known without importing the registries behind it.

The scheduler, solver and export target registries live with the simulator, the solvers and
`planner.io`: loading them takes as long as `planner --help` may (NumPy and every scheduler;
pyomo, SciPy and pyswarms for the solver methods; the simulator for the targets). The names are
written here once and `tests/test_cli_choices.py` checks them against the registries, so a
scheduler, solver method or export target added there and not here fails the suite. The trace formats and SWIM's settings come from `planner.io` itself, which is light.
"""

from __future__ import annotations

from planner.io.importers import IMPORTERS
from planner.io.swim import CONVERSION_SETTINGS

#: `planner.simulator.SCHEDULERS`, sorted.
SCHEDULER_NAMES = ("capacity", "fair", "fifo", "fresh", "natjam")
#: `planner.planning.vm.all_solver_choices()`: the pair and packing methods --solver may name.
SOLVER_CHOICES = ("exhaustive", "greedy", "matching", "milp", "milp-compact", "pso")
#: `planner.io.targets.target_names()`: the export targets `planner export --to` and `planner simulate
#: --target` take, in registration order.
TARGET_NAMES = ("mrv1", "yarn-fair", "yarn-capacity", "spark")
#: `planner.io.swim.SwimConversion`'s fields: what ``planner import swim --set NAME=VALUE`` sets.
SWIM_SETTINGS = CONVERSION_SETTINGS
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
