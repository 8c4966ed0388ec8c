"""Shared by the packing tests (test_packing*.py, test_certified.py): the small overcommit cluster,
a job of a power-law profile, and an independent brute force over every phase schedule."""

from __future__ import annotations

import itertools

import numpy as np

from models import Cluster, InvalidPlan, Job, PowerLawProfile
from solvers import evaluate_phases
from solvers.packing.problem import Placement, packing_instance

#: P = 2, k = 2: N = 4 VMs; r = 2; alpha = 1.5.
CLUSTER = Cluster(nodes=2, disks=2, primaries_per_extra=2, overcommit_penalty=1.5)


def job(name, a, b, intensity="balanced"):
    return Job(name, intensity=intensity, profile=PowerLawProfile.from_coefficients(a, b))


def brute_force(jobs, cluster) -> float:
    """Every assignment of jobs to phases (set partitions), roles and VM counts, for tiny batches."""
    instance = packing_instance(jobs, cluster)
    n, vms = instance.jobs, instance.vms
    options = []
    for j in range(n):
        roles = ["primary"] + (["host"] if instance.can_host[j] else []) + (["extra"] if instance.can_extra[j] else [])
        options.append([(v, r) for v in range(1, vms + 1) for r in roles])
    best = np.inf
    for labels in itertools.product(range(n), repeat=n):
        if any(labels[j] > max(labels[:j], default=-1) + 1 for j in range(n)):
            continue  # canonical set partitions only
        for choice in itertools.product(*options):
            phases: dict[int, list] = {}
            for j, (v, r) in enumerate(choice):
                phases.setdefault(labels[j], []).append(Placement(j, v, r))
            try:
                total = evaluate_phases(list(phases.values()), jobs, cluster)
            except InvalidPlan:
                continue
            best = min(best, total)
    return best
