"""Runtime profiles derived from task profiles, for jobs that have none (imported traces).

VM-level planning (pairs, packing) needs F_j(n) for every job; a trace gives task counts and mean
task times. `with_wave_profiles` fits each such job a power law to its whole-wave runtime
(`wave_power_law`) on 1, 2, 4, ... and all N VMs of the cluster, a VM holding its machine's slots
divided by its disks (``map_slots // disks`` map and ``reduce_slots // disks`` reduce slots, at
least one each). Deterministic: planning and validation derive the same profiles.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from models.checks import as_instance, shown
from models.cluster import Cluster
from models.errors import InvalidType
from models.job import Job
from models.profiles.phase import wave_power_law

if TYPE_CHECKING:  # not at run time: models.workload loads the profiles lazily, and this is one of them
    from models.workload import Workload


class DerivedProfileWarning(UserWarning):
    """Jobs got runtime profiles derived from their tasks (named in the message)."""


def vm_counts(cluster: Cluster) -> list[int]:
    """The VM counts a derived profile is fitted on: powers of two below N, and N (at least two counts)."""
    counts = {1, max(cluster.vms, 2)}
    power = 2
    while power < cluster.vms:
        counts.add(power)
        power *= 2
    return sorted(counts)


def with_wave_profiles(workload: Workload, cluster: Cluster) -> tuple[Workload, list[str]]:
    """``workload`` with a wave-model power law on every job that has no runtime profile, and the
    names of those jobs (jobs that have a profile keep it)."""
    jobs = getattr(workload, "jobs", None)  # a Workload (not imported: models.workload loads this module)
    if not isinstance(jobs, tuple) or not all(isinstance(job, Job) for job in jobs):
        raise InvalidType("workload", f"must be a Workload, got {shown(workload)} ({type(workload).__name__})")
    as_instance(cluster, Cluster, "cluster")
    map_slots = max(1, cluster.map_slots // cluster.disks)
    reduce_slots = max(1, cluster.reduce_slots // cluster.disks)
    counts = vm_counts(cluster)
    derived = [job.name for job in workload if job.profile is None]
    if not derived:
        return workload, []
    jobs = [job if job.profile is not None
            else job.with_changes(profile=wave_power_law(job, map_slots, reduce_slots, counts)) for job in workload]
    return type(workload)(jobs, name=workload.name), derived
