"""The `Plan` record: what an operator applies tonight, with the prediction that justifies it.

Slot plans (FRESH: split of the slots, admission order and limit) and VM-level
plans (Packing paper: pairs or phases of jobs on VMs) share one `Plan` record
and one JSON file format (reading it: `planner.plans.files`; the VM side's
phases: `planner.plans.phases`). Making one: `planner.planning.make.make_plan`.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from models import Cluster, InvalidInput, Workload
from models.checks import as_array, as_bool, as_float, as_instance, as_int
from models.fileio import read_mapping, write_atomic
from models.fingerprints import cluster_fingerprint, workload_fingerprint
from models.limits import MAX_SECONDS, MAX_TOTAL_SLOTS
from planner.limits import MAX_K
from planner.plans.files import PLAN_VERSION, plan_fields
from planner.plans.levers import Levers
from planner.plans.phases import evaluate_plan_phases, placement_seconds
from planner.simulator.layout import node_slots
from planner.simulator.vms import Phases

__all__ = ["Plan"]


@dataclass(frozen=True)
class Plan:
    """A plan: a slot plan (split of the slots, admission order and limit k) or a VM-level plan
    (phases of jobs on VMs).

    ``map_slots`` and ``reduce_slots`` are cluster totals (s_m + s_r = S); on
    the nodes they are spread evenly, the first (s_m mod nodes) nodes taking
    one more map slot (`node_map_slots`). ``order`` names the jobs in admission
    order. ``predicted_makespan`` is the fluid model's; ``baseline_makespan``
    the same model's for the cluster as configured, jobs in submission order.
    ``curve[i]`` is the predicted makespan with i + 1 map slots in this order.

    VM-level plans ("pairs", "packing") keep the slots as configured and no
    curve; ``phases`` run one after another, each a tuple of (job name, VMs,
    role) with role "primary", "host" or "extra"; ``order`` lists the jobs in
    phase order; ``predicted_makespan`` is the sum of phase lengths and
    ``baseline_makespan`` every job alone on all N VMs, one after another.
    ``bound`` and ``gap`` are the solver's proven bound and relative gap (None
    where the method proves none).

    ``robust`` is set when the plan was chosen by simulation (`make_plan(...,
    robust=True)`): how (runs, noise, seed, the statistic), the chosen
    candidate and every candidate's prediction, simulated mean and p90.

    A plan for a target (strategy "target", `planner.planning.deploy.plan_for_target`) names the
    ``target`` it was made for, its ``levers`` (what it changes of the configuration whose
    fingerprint is ``config_fingerprint``), and ``simulated``: what the simulation of its export
    measured against the baselines and the other candidates, the bounds, and whether the plan is
    to keep the configuration. Its ``predicted_makespan`` is the simulated mean makespan of the
    deployed configuration, ``baseline_makespan`` that of the configuration as it is.

    ``pipeline`` says that the batch the plan was made for has jobs that wait for jobs
    (``Job.after``): exporting it needs the workload, whose dependencies the submissions hold.

    ``seconds`` is the planner's wall time, a measurement that varies from run to run: it is
    neither written to the plan file (`to_dict`; the same plan is the same bytes) nor compared
    by ``==``, and a plan read from a file has 0.0 (or what a file before version 6 holds).
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
    seconds: float = field(compare=False)
    workload_fingerprint: str
    cluster_fingerprint: str
    curve: tuple[float, ...] = field(default=(), repr=False)
    phases: Phases = ()
    bound: float | None = None
    gap: float | None = None
    robust: dict[str, Any] | None = None
    objective: str = "makespan"
    ready_now: bool = False
    window: float | None = None
    ordering: dict[str, Any] | None = None
    target: str | None = None
    levers: Levers | None = None
    config_fingerprint: str | None = None
    simulated: dict[str, Any] | None = None
    pipeline: bool = False
    version: int = PLAN_VERSION

    def __post_init__(self) -> None:
        """The numbers within the plan file's bounds and finite (a NaN or inf given is refused, naming the
        field); a plan file is read with the same checks (`planner.plans.files.plan_fields`)."""
        put = object.__setattr__
        put(self, "k", as_int(self.k, "k", minimum=1, maximum=MAX_K))
        for name in ("map_slots", "reduce_slots"):
            put(self, name, as_int(getattr(self, name), name, minimum=1, maximum=MAX_TOTAL_SLOTS))
        for name in ("predicted_makespan", "baseline_makespan"):
            put(self, name, as_float(getattr(self, name), name, minimum=0.0))
        put(self, "seconds", as_float(self.seconds, "seconds", minimum=0.0))
        for name in ("bound", "gap"):
            if getattr(self, name) is not None:
                put(self, name, as_float(getattr(self, name), name, minimum=0.0))
        if self.window is not None:
            put(self, "window", as_float(self.window, "window", above=0.0, maximum=MAX_SECONDS))
        as_array(self.curve, "curve", minimum=0.0)  # finite numbers, checked at NumPy's speed (S - 1 of them)
        put(self, "version", as_int(self.version, "version", minimum=1))
        for name in ("strategy", "model", "status", "solver", "workload_fingerprint", "cluster_fingerprint",
                     "objective"):
            as_instance(getattr(self, name), str, name)
        for name in ("target", "config_fingerprint"):
            if getattr(self, name) is not None:
                as_instance(getattr(self, name), str, name)
        for name in ("robust", "ordering", "simulated"):
            if getattr(self, name) is not None:
                as_instance(getattr(self, name), dict, name)
        put(self, "pipeline", as_bool(self.pipeline, "pipeline"))

    def node_map_slots(self, nodes: int) -> list[int]:
        return node_slots(self.map_slots, self.reduce_slots, nodes)[0]

    def matches(self, workload: Workload, cluster: Cluster) -> bool:
        """Whether the plan was made for exactly this workload and cluster."""
        return (self.workload_fingerprint, self.cluster_fingerprint) == (
            workload_fingerprint(workload),
            cluster_fingerprint(cluster),
        )

    def summary(self) -> dict[str, Any]:
        """One flat record (no curve, order shortened, no wall time: ``seconds`` is the attribute)."""
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
            "bound": self.bound,
            "gap": self.gap,
            "phases": len(self.phases),
            "selection": self.selection,
            "objective": self.objective,
            "ready_now": self.ready_now,
            "window": self.window,
            "ordering_status": None if self.ordering is None else self.ordering["status"],
            "ordering_model_value": None if self.ordering is None else self.ordering["value"],
            "ordering_bound": None if self.ordering is None else self.ordering["bound"],
            "target": self.target,
            "keep": None if self.simulated is None else self.simulated["keep"],
            "order": shown,
        }

    @property
    def selection(self) -> str:
        """How the plan was chosen, in words."""
        if self.simulated is not None:
            chosen = self.simulated
            return (f"simulated: the best of {len(chosen['candidates'])} deployable candidates by mean "
                    f"{chosen['objective']} ({chosen['runs']} paired runs, noise {chosen['noise']:g}): "
                    f"{chosen['chosen']}")
        if self.robust is None:
            return "solver optimum" if not self.phases else f"solver ({self.status})"
        return (f"robust: best simulated p90 of {len(self.robust['candidates'])} candidates "
                f"({self.robust['runs']} runs, noise {self.robust['noise']:g}): {self.robust['chosen']}")

    def phase_records(self, workload: Workload | None = None, cluster: Cluster | None = None) -> list[dict[str, Any]]:
        """One flat record per placement (phase, job, vms, role), for tables and DataFrames; with the
        workload and cluster, also the job's predicted ``seconds`` there (alpha x F_j(vms) for hosts
        and extras). Phases are numbered from 0, as in the file (``phases[0]``)."""
        if workload is not None and cluster is not None:
            workload = _profiled(workload, cluster)
        jobs = {job.name: job for job in workload} if workload is not None else {}
        records = []
        for p, phase in enumerate(self.phases):
            for name, vms, role in phase:
                record: dict[str, Any] = {"phase": p, "job": name, "vms": vms, "role": role}
                if cluster is not None and name in jobs:
                    record["seconds"] = placement_seconds(jobs[name], vms, role, cluster)
                records.append(record)
        return records

    def evaluate_phases(self, workload: Workload, cluster: Cluster) -> float:
        """Check the phases against every rule of the packing model on ``cluster`` (capacity, hosts,
        roles, every job once; `InvalidPlan` naming the rule) and return their total length."""
        return evaluate_plan_phases(self.phases, _profiled(workload, cluster), cluster)

    def to_dict(self) -> dict[str, Any]:
        """The plan file's fields: everything but the wall time ``seconds``."""
        data = asdict(self)
        del data["seconds"]
        data["levers"] = None if self.levers is None else self.levers.to_dict()
        data["order"] = list(self.order)
        data["curve"] = list(self.curve)
        data["phases"] = [[list(entry) for entry in phase] for phase in self.phases]
        return data

    @classmethod
    def from_dict(cls, data: object) -> Plan:
        """Strictly, naming the field path of any problem; version 1 files load too (`planner.plans.files`)."""
        return cls(**plan_fields(data, tuple(cls.__dataclass_fields__)))

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


def _profiled(workload: Workload, cluster: Cluster) -> Workload:
    """Jobs without a runtime profile get the one planning derived for them (deterministic)."""
    from models.profiles.derived import with_wave_profiles  # scikit-learn: only for VM plans

    return with_wave_profiles(workload, cluster)[0]
