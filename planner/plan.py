"""Plans: what an operator applies tonight, with the prediction that justifies it."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from models import Cluster, InvalidInput, Workload
from models.checks import as_float, as_int, as_mapping, as_str, check_keys
from models.fileio import read_mapping, write_atomic
from solvers import SLOT_MODELS, configure_slots, fluid_makespan, order_two_stage, stage_times

STRATEGIES = ("slots", "johnson", "slots+johnson")
DEFAULT_K = 5
PLAN_VERSION = 1


def fingerprint(data: Any) -> str:
    """A short stable hash of JSON-able data (16 hex digits of SHA-256)."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def workload_fingerprint(workload: Workload) -> str:
    return fingerprint({"name": workload.name, "jobs": workload.to_records()})


def cluster_fingerprint(cluster: Cluster) -> str:
    return fingerprint(cluster.to_dict())


@dataclass(frozen=True)
class Plan:
    """A slot plan: the split of the cluster's slots, the admission order and limit k.

    ``map_slots`` and ``reduce_slots`` are cluster totals (s_m + s_r = S); on
    the nodes they are spread evenly, the first (s_m mod nodes) nodes taking
    one more map slot (`node_map_slots`). ``order`` names the jobs in admission
    order. ``predicted_makespan`` is the fluid model's; ``baseline_makespan``
    the same model's for the cluster as configured, jobs in submission order.
    ``curve[i]`` is the predicted makespan with i + 1 map slots in this order.
    """

    strategy: str
    model: str
    k: int
    map_slots: int
    reduce_slots: int
    order: tuple[str, ...]
    predicted_makespan: float
    baseline_makespan: float
    status: str
    solver: str
    seconds: float
    workload_fingerprint: str
    cluster_fingerprint: str
    curve: tuple[float, ...] = field(default=(), repr=False)
    version: int = PLAN_VERSION

    def node_map_slots(self, nodes: int) -> list[int]:
        base, extra = divmod(self.map_slots, nodes)
        return [base + (1 if i < extra else 0) for i in range(nodes)]

    def matches(self, workload: Workload, cluster: Cluster) -> bool:
        """Whether the plan was made for exactly this workload and cluster."""
        return (self.workload_fingerprint, self.cluster_fingerprint) == (
            workload_fingerprint(workload),
            cluster_fingerprint(cluster),
        )

    def summary(self) -> dict[str, Any]:
        """One flat record (no curve, order shortened)."""
        shown = ", ".join(self.order[:6]) + (f", ... ({len(self.order)} jobs)" if len(self.order) > 6 else "")
        gain = 1.0 - self.predicted_makespan / self.baseline_makespan if self.baseline_makespan > 0 else 0.0
        return {
            "strategy": self.strategy,
            "model": self.model,
            "k": self.k,
            "map_slots": self.map_slots,
            "reduce_slots": self.reduce_slots,
            "predicted_makespan": self.predicted_makespan,
            "baseline_makespan": self.baseline_makespan,
            "predicted_gain": gain,
            "status": self.status,
            "solver": self.solver,
            "seconds": self.seconds,
            "order": shown,
        }

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["order"] = list(self.order)
        data["curve"] = list(self.curve)
        return data

    @classmethod
    def from_dict(cls, data: object) -> Plan:
        mapping = as_mapping(data, "")
        names = tuple(cls.__dataclass_fields__)
        check_keys(mapping, names, "", required=tuple(n for n in names if n not in ("curve", "version")))
        version = as_int(mapping.get("version", PLAN_VERSION), "version", minimum=1)
        if version != PLAN_VERSION:
            raise InvalidInput("version", f"this batchplan reads plan version {PLAN_VERSION}, got {version}")
        order = mapping["order"]
        if not isinstance(order, list):
            raise InvalidInput("order", f"must be a list of job names, got {type(order).__name__}")
        curve = mapping.get("curve", [])
        if not isinstance(curve, list):
            raise InvalidInput("curve", "must be a list of numbers")
        plan = cls(
            strategy=as_str(mapping["strategy"], "strategy", choices=STRATEGIES),
            model=as_str(mapping["model"], "model", choices=SLOT_MODELS),
            k=as_int(mapping["k"], "k", minimum=1),
            map_slots=as_int(mapping["map_slots"], "map_slots", minimum=1),
            reduce_slots=as_int(mapping["reduce_slots"], "reduce_slots", minimum=1),
            order=tuple(as_str(name, f"order[{i}]") for i, name in enumerate(order)),
            predicted_makespan=as_float(mapping["predicted_makespan"], "predicted_makespan", minimum=0.0),
            baseline_makespan=as_float(mapping["baseline_makespan"], "baseline_makespan", minimum=0.0),
            status=as_str(mapping["status"], "status"),
            solver=as_str(mapping["solver"], "solver"),
            seconds=as_float(mapping["seconds"], "seconds", minimum=0.0),
            workload_fingerprint=as_str(mapping["workload_fingerprint"], "workload_fingerprint"),
            cluster_fingerprint=as_str(mapping["cluster_fingerprint"], "cluster_fingerprint"),
            curve=tuple(as_float(v, f"curve[{i}]", minimum=0.0) for i, v in enumerate(curve)),
            version=version,
        )
        if len(set(plan.order)) != len(plan.order):
            raise InvalidInput("order", "names a job twice")
        return plan

    def to_file(self, path: str | Path) -> None:
        """Write the plan as JSON, atomically."""
        if Path(path).suffix.lower() != ".json":
            raise InvalidInput("path", f"plans are JSON files; got {Path(path).name!r}", source=str(path))
        write_atomic(path, json.dumps(self.to_dict(), indent=2) + "\n")

    @classmethod
    def from_file(cls, path: str | Path) -> Plan:
        data = read_mapping(path)
        try:
            return cls.from_dict(data)
        except InvalidInput as error:
            raise error.in_file(str(path)) from None


def submission_order(workload: Workload) -> list[int]:
    """Indices by submit time, ties in file order."""
    return sorted(range(len(workload)), key=lambda i: (workload[i].submit, i))


def make_plan(
    workload: Workload,
    cluster: Cluster,
    strategy: str = "slots+johnson",
    *,
    k: int = DEFAULT_K,
    model: str = "fresh",
) -> Plan:
    """A slot plan for the batch.

    - "slots": jobs in submission order; the best split of the cluster's S slots
      (`configure_slots`, FRESH Algorithm 1);
    - "johnson": Johnson's order on stage times map_work / total map slots and
      reduce_work / total reduce slots of the cluster as configured, keeping
      its split;
    - "slots+johnson": that Johnson order, then the best split for it.
    """
    strategy = as_str(strategy, "strategy", choices=STRATEGIES)
    model = as_str(model, "model", choices=SLOT_MODELS)
    k = as_int(k, "k", minimum=1)
    jobs = list(workload)
    total = cluster.total_slots
    submitted = submission_order(workload)
    baseline = fluid_makespan(jobs, cluster.total_map_slots, cluster.total_reduce_slots, k, submitted, model)
    if strategy == "slots":
        order = submitted
    else:
        a, b = stage_times([jobs[i] for i in submitted], cluster.total_map_slots, cluster.total_reduce_slots)
        ordering = order_two_stage(a, b, "johnson")
        order = [submitted[i] for i in ordering.order]
    if strategy == "johnson":
        best = configure_slots(jobs, total, k, order, model)
        map_slots = cluster.total_map_slots
        predicted = float(best.makespans[map_slots - 1])
        status, solver, seconds = "optimal", "johnson", best.seconds
    else:
        best = configure_slots(jobs, total, k, order, model)
        map_slots, predicted = best.map_slots, best.makespan
        status, solver, seconds = str(best.status), best.solver, best.seconds
    return Plan(
        strategy=strategy,
        model=model,
        k=k,
        map_slots=map_slots,
        reduce_slots=total - map_slots,
        order=tuple(jobs[i].name for i in order),
        predicted_makespan=predicted,
        baseline_makespan=baseline,
        status=status,
        solver=solver,
        seconds=seconds,
        workload_fingerprint=workload_fingerprint(workload),
        cluster_fingerprint=cluster_fingerprint(cluster),
        curve=tuple(float(v) for v in np.asarray(best.makespans)),
    )
