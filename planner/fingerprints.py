"""Fingerprints: short stable hashes that tie a plan to the workload and cluster it was made for."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from models import Cluster, Workload


def fingerprint(data: Any) -> str:
    """A short stable hash of JSON-able data (16 hex digits of SHA-256)."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def workload_fingerprint(workload: Workload) -> str:
    return fingerprint({"name": workload.name, "jobs": workload.to_records()})


def cluster_fingerprint(cluster: Cluster) -> str:
    return fingerprint(cluster.to_dict())
