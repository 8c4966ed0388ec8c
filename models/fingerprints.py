"""Fingerprints: short stable hashes that tie a plan to the workload and cluster it was made for."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from models.cluster import Cluster
    from models.workload import Workload


def fingerprint(data: Any) -> str:
    """A short stable hash of JSON-able data (16 hex digits of SHA-256)."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def workload_fingerprint(workload: Workload) -> str:
    from models.job import BYTE_FIELDS

    # Unknown byte counts and an empty ``after`` are left out, so that plans made before jobs had
    # them still match.
    records = [{key: value for key, value in record.items()
                if not (key in BYTE_FIELDS and value is None) and key != "after"}
               for record in workload.to_records()]
    for record, job in zip(records, workload, strict=True):
        if job.after:  # the file form, exact (the record's text rounds delays)
            record["after"] = [dependency.to_item() for dependency in job.after]
    data: dict[str, Any] = {"name": workload.name, "jobs": records}
    if any(job.profile is not None for job in workload):  # VM plans are made from the profiles
        from models.profiles import profile_to_dict  # scikit-learn: only when there are profiles

        data["profiles"] = [None if job.profile is None else profile_to_dict(job.profile) for job in workload]
    return fingerprint(data)


def cluster_fingerprint(cluster: Cluster) -> str:
    from models.cluster import NETWORK_DEFAULTS

    # The network at its defaults is left out, so that plans made before clusters had one still match.
    return fingerprint({key: value for key, value in cluster.to_dict().items()
                        if not (key in NETWORK_DEFAULTS and value == NETWORK_DEFAULTS[key])})
