"""The vocabulary of batchplan: jobs, clusters, workloads, profiles and errors.

This package imports neither `solvers` nor `planner`.
"""

from __future__ import annotations

from models.cluster import Cluster
from models.errors import (
    ExtrapolationWarning,
    InvalidInput,
    InvalidPlan,
    NotFittedError,
    PlannerError,
)
from models.fileio import write_atomic
from models.intensity import classify_intensity
from models.job import INTENSITIES, PRIORITY_CLASSES, Job, RuntimeProfile
from models.profiles import (
    PhaseProfile,
    PowerLawProfile,
    RegressionProfile,
    profile_from_dict,
    profile_kinds,
    profile_to_dict,
    wave_power_law,
    wave_runtime,
)
from models.workload import Workload

__all__ = [
    "INTENSITIES",
    "PRIORITY_CLASSES",
    "Cluster",
    "ExtrapolationWarning",
    "InvalidInput",
    "InvalidPlan",
    "Job",
    "NotFittedError",
    "PhaseProfile",
    "PlannerError",
    "PowerLawProfile",
    "RegressionProfile",
    "RuntimeProfile",
    "Workload",
    "classify_intensity",
    "profile_from_dict",
    "profile_kinds",
    "profile_to_dict",
    "wave_power_law",
    "wave_runtime",
    "write_atomic",
]
