"""The vocabulary of batchplan: jobs, clusters, workloads, profiles and errors.

This package imports neither `solvers` nor `planner`. The names are served on first use
(`__getattr__`): the profile estimators need scikit-learn, which the command line's start and
the error classes do not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from models.lazy import lazy_names

if TYPE_CHECKING:  # the names for the type checker: one served by __getattr__ is Any to it, and mypyc
    # compiles from its types (the simulator's reads of a Job's fields would be untyped Python reads)
    from models.cluster import Cluster, Node  # noqa: F401
    from models.errors import InvalidInput, InvalidType, PlannerError  # noqa: F401
    from models.job import Job  # noqa: F401
    from models.workload import Workload  # noqa: F401

#: Public name -> the module that defines it.
_PUBLIC = {
    "Cluster": "models.cluster",
    "Node": "models.cluster",
    "Workload": "models.workload",
    "Job": "models.job",
    "INTENSITIES": "models.job",
    "PRIORITY_CLASSES": "models.job",
    "RuntimeProfile": "models.job",
    "Dependency": "models.dag",
    "Precedence": "models.dag",
    "PlannerError": "models.errors",
    "InvalidInput": "models.errors",
    "InvalidType": "models.errors",
    "InvalidPlan": "models.errors",
    "InfeasibleProblem": "models.errors",
    "SolverFailed": "models.errors",
    "ExtrapolationWarning": "models.errors",
    "TaskFloorWarning": "models.errors",
    "NotFittedError": "models.profiles.base",
    "write_atomic": "models.fileio",
    "classify_intensity": "models.intensity",
    "PhaseProfile": "models.profiles",
    "PowerLawProfile": "models.profiles",
    "RegressionProfile": "models.profiles",
    "profile_from_dict": "models.profiles",
    "profile_kinds": "models.profiles",
    "profile_to_dict": "models.profiles",
    "wave_power_law": "models.profiles",
    "wave_runtime": "models.profiles",
    "with_wave_profiles": "models.profiles",
    "DerivedProfileWarning": "models.profiles",
}


__getattr__, __dir__ = lazy_names("models", _PUBLIC, globals())

__all__ = sorted(_PUBLIC)
