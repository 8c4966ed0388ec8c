"""Reading plan files strictly: every field checked and named by its path (``phases[1][0].vms``).

Version 1 files (slot plans only) predate ``phases``, ``bound`` and ``gap``;
they still load, with those fields at their defaults, and are upgraded to the
current version in memory, so writing one back gives a current file.

Version 6 files carry no wall-clock measurement, so that the same plan is the same bytes:
the planner's ``seconds`` and the ordering solve's ``ordering.seconds``, which files up to
version 5 hold, are not written. Where a file has them they are still read: ``seconds`` into
``Plan.seconds`` (0.0 without), ``ordering.seconds`` checked and dropped.
"""

from __future__ import annotations

from typing import Any

from models import InvalidInput
from models.checks import as_float, as_int, as_mapping, as_str, check_keys, shown
from models.limits import MAX_JOBS, MAX_SECONDS, MAX_TOTAL_SLOTS, MAX_VMS
from planner.limits import MAX_K, MAX_RUNS, MAX_SEED
from planner.plans.levers import Levers
from planner.plans.phases import VM_STRATEGIES
from planner.simulator.vms import Phases
from solvers import SLOT_MODELS
from solvers.packing.problem import ROLES

SLOT_STRATEGIES = ("slots", "johnson", "slots+johnson")
#: A plan made for a target (`planner.planning.deploy.plan_for_target`): levers chosen by simulation.
TARGET_STRATEGY = "target"
STRATEGIES = SLOT_STRATEGIES + VM_STRATEGIES + (TARGET_STRATEGY,)
PLAN_VERSION = 7
#: Keys an older file cannot hold (strict reading: a typo must not pass as an old file).
NEW_IN_V2 = ("phases", "bound", "gap")
NEW_IN_V3 = ("robust",)
NEW_IN_V4 = ("objective", "ready_now", "window", "ordering")
NEW_IN_V5 = ("target", "levers", "config_fingerprint", "simulated")
#: Version 7: whether the plan's batch has jobs that wait for jobs (an export needs the workload then).
NEW_IN_V7 = ("pipeline",)
#: Wall-clock measurements: files up to version 5 hold them, version 6 files do not (they vary from run to
#: run); read where present.
WALL_CLOCK = ("seconds",)
OPTIONAL = ("curve", "version", *WALL_CLOCK, *NEW_IN_V2, *NEW_IN_V3, *NEW_IN_V4, *NEW_IN_V5, *NEW_IN_V7)
#: What a slot plan's order minimizes (`make_plan(objective=...)`): its jobs' completion times against
#: their deadlines.
OBJECTIVES = ("makespan", "max_lateness", "late_jobs")
#: What a plan for a target minimizes (`plan_for_target`), measured in simulation: the slot plans'
#: objectives, the mean and weighted response time, and "window": the probability that the whole
#: batch finishes by the window (maximized).
TARGET_OBJECTIVES = (*OBJECTIVES, "mean_response", "weighted_response", "window")
ORDERING_KEYS = ("problem", "method", "objective", "status", "value", "bound", "gap")
#: What a target plan's ``simulated`` must hold (the planner's measurements; other keys are kept as written).
SIMULATED_KEYS = ("objective", "runs", "noise", "seed", "chosen", "keep", "reason", "mean", "makespan", "bounds",
                  "candidates", "comparisons", "jobs")
#: The targets a plan is made for (`planner.io.hadoop.applied.HADOOP_TARGETS` and "spark";
#: tests/test_target_plans.py checks they agree).
TARGETS = ("mrv1", "yarn-fair", "yarn-capacity", "spark")
ROBUST_KEYS = ("runs", "noise", "seed", "statistic", "chosen", "p90", "mean", "candidates")
CANDIDATE_KEYS = ("model", "order", "map_slots", "predicted", "mean", "p90")


def _list(value: object, field: str, what: str) -> list:
    if not isinstance(value, list):
        raise InvalidInput(field, f"must be a list of {what}, got {type(value).__name__}")
    return value


def _optional_float(value: object, field: str) -> float | None:
    return None if value is None else as_float(value, field, minimum=0.0)


def read_phases(value: object, field: str = "phases") -> Phases:
    """A list of phases, each a non-empty list of [job, vms, role]; every job in one place only."""
    seen: dict[str, str] = {}
    phases = []
    for p, phase in enumerate(_list(value, field, "phases")):
        where = f"{field}[{p}]"
        if not isinstance(phase, list) or not phase:
            raise InvalidInput(where, f"must be a non-empty list of [job, vms, role], got {shown(phase)}")
        entries = []
        for e, entry in enumerate(phase):
            at = f"{where}[{e}]"
            if not isinstance(entry, list) or len(entry) != 3:
                raise InvalidInput(at, f"must be [job, vms, role], got {shown(entry)}")
            name = as_str(entry[0], f"{at}.job")
            if name in seen:
                raise InvalidInput(f"{at}.job", f"{shown(name)} already runs at {seen[name]}")
            seen[name] = at
            vms = as_int(entry[1], f"{at}.vms", minimum=1, maximum=MAX_VMS)
            role = as_str(entry[2], f"{at}.role", choices=ROLES)
            entries.append((name, vms, role))
        phases.append(tuple(entries))
    return tuple(phases)


def _check_phases_follow_order(strategy: str, phases: Phases, order: tuple[str, ...]) -> None:
    """A VM plan's order lists its jobs in phase order; a slot plan has no phases."""
    if strategy not in VM_STRATEGIES:
        if phases:
            raise InvalidInput("phases", f"a {strategy} plan has no phases; got {len(phases)}")
        return
    if not phases:
        raise InvalidInput("phases", f"a {strategy} plan needs at least one phase")
    placed = [(p, e, name) for p, phase in enumerate(phases) for e, (name, _, _) in enumerate(phase)]
    for position, ((p, e, name), listed) in enumerate(zip(placed, order, strict=False)):
        if name != listed:
            raise InvalidInput(
                f"phases[{p}][{e}].job",
                f"is {shown(name)} but order[{position}] is {shown(listed)} (order lists jobs in phase order)"
            )
    if len(placed) != len(order):
        raise InvalidInput("phases", f"place {len(placed)} jobs but order names {len(order)}")


def read_robust(value: object, field: str = "robust") -> dict[str, Any] | None:
    """How a robust plan was chosen (`make_plan(robust=True)`), checked key by key."""
    if value is None:
        return None
    data = as_mapping(value, field)
    check_keys(data, ROBUST_KEYS, field, required=ROBUST_KEYS)
    candidates = []
    for i, entry in enumerate(_list(data["candidates"], f"{field}.candidates", "candidates")):
        at = f"{field}.candidates[{i}]"
        entry = as_mapping(entry, at)
        check_keys(entry, CANDIDATE_KEYS, at, required=CANDIDATE_KEYS)
        candidates.append({"model": as_str(entry["model"], f"{at}.model", choices=SLOT_MODELS),
                           "order": as_str(entry["order"], f"{at}.order", choices=("submission", "johnson")),
                           "map_slots": as_int(entry["map_slots"], f"{at}.map_slots", minimum=1,
                                               maximum=MAX_TOTAL_SLOTS),
                           **{key: as_float(entry[key], f"{at}.{key}", minimum=0.0) for key in ("predicted", "mean", "p90")}})
    return {"runs": as_int(data["runs"], f"{field}.runs", minimum=1, maximum=MAX_RUNS),
            "noise": as_float(data["noise"], f"{field}.noise", minimum=0.0),
            "seed": as_int(data["seed"], f"{field}.seed", minimum=0, maximum=MAX_SEED),
            "statistic": as_str(data["statistic"], f"{field}.statistic", choices=("p90",)),
            "chosen": as_str(data["chosen"], f"{field}.chosen"),
            "p90": as_float(data["p90"], f"{field}.p90", minimum=0.0),
            "mean": as_float(data["mean"], f"{field}.mean", minimum=0.0),
            "candidates": candidates}


def _flag(value: object, field: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidInput(field, f"must be true or false, got {shown(value)}")
    return value


def read_ordering(value: object, field: str = "ordering") -> dict[str, Any] | None:
    """How a plan's order was solved with release times or deadlines (`make_plan`), key by key; a
    file before version 6 also holds the solve's wall time, ``seconds``: checked, then dropped."""
    if value is None:
        return None
    data = as_mapping(value, field)
    check_keys(data, (*ORDERING_KEYS, *WALL_CLOCK), field, required=ORDERING_KEYS)
    if "seconds" in data:
        as_float(data["seconds"], f"{field}.seconds", minimum=0.0)
    return {"problem": as_str(data["problem"], f"{field}.problem"), "method": as_str(data["method"], f"{field}.method"),
            "objective": as_str(data["objective"], f"{field}.objective", choices=OBJECTIVES),
            "status": as_str(data["status"], f"{field}.status"),
            "value": as_float(data["value"], f"{field}.value"),
            "bound": None if data["bound"] is None else as_float(data["bound"], f"{field}.bound"),
            "gap": _optional_float(data["gap"], f"{field}.gap")}


def plan_fields(data: object, names: tuple[str, ...]) -> dict[str, Any]:
    """The checked constructor arguments of a `Plan` (field names ``names``) from parsed JSON; the
    plan's wall time ``seconds`` is read where a file has it (files before version 6), else 0.0."""
    mapping = as_mapping(data, "")
    version = as_int(mapping.get("version", PLAN_VERSION), "version", minimum=1)
    if not 1 <= version <= PLAN_VERSION:
        raise InvalidInput("version", f"this batchplan reads plan versions 1 to {PLAN_VERSION}, got {version}")
    newer = ((NEW_IN_V2 if version < 2 else ()) + (NEW_IN_V3 if version < 3 else ())
             + (NEW_IN_V4 if version < 4 else ()) + (NEW_IN_V5 if version < 5 else ())
             + (NEW_IN_V7 if version < 7 else ()))
    allowed = tuple(n for n in names if n not in newer)
    check_keys(mapping, allowed, "", required=tuple(n for n in allowed if n not in OPTIONAL))
    strategy = as_str(mapping["strategy"], "strategy", choices=STRATEGIES if version >= 2 else SLOT_STRATEGIES)
    order = tuple(as_str(name, f"order[{i}]") for i, name in enumerate(_list(mapping["order"], "order", "job names")))
    if len(order) > MAX_JOBS:
        raise InvalidInput("order", f"names {len(order):,} jobs; a workload has at most {MAX_JOBS:,}")
    if len(set(order)) != len(order):
        raise InvalidInput("order", "names a job twice")
    phases = read_phases(mapping.get("phases", []))
    _check_phases_follow_order(strategy, phases, order)
    curve = _list(mapping.get("curve", []), "curve", "numbers")
    return {
        "strategy": strategy,
        "model": as_str(mapping["model"], "model", choices=SLOT_MODELS),
        "k": as_int(mapping["k"], "k", minimum=1, maximum=MAX_K),
        "map_slots": as_int(mapping["map_slots"], "map_slots", minimum=1, maximum=MAX_TOTAL_SLOTS),
        "reduce_slots": as_int(mapping["reduce_slots"], "reduce_slots", minimum=1, maximum=MAX_TOTAL_SLOTS),
        "order": order,
        "predicted_makespan": as_float(mapping["predicted_makespan"], "predicted_makespan", minimum=0.0),
        "baseline_makespan": as_float(mapping["baseline_makespan"], "baseline_makespan", minimum=0.0),
        "status": as_str(mapping["status"], "status"),
        "solver": as_str(mapping["solver"], "solver"),
        "seconds": as_float(mapping.get("seconds", 0.0), "seconds", minimum=0.0),
        "workload_fingerprint": as_str(mapping["workload_fingerprint"], "workload_fingerprint"),
        "cluster_fingerprint": as_str(mapping["cluster_fingerprint"], "cluster_fingerprint"),
        "curve": tuple(as_float(v, f"curve[{i}]", minimum=0.0) for i, v in enumerate(curve)),
        "phases": phases,
        "bound": _optional_float(mapping.get("bound"), "bound"),
        "gap": _optional_float(mapping.get("gap"), "gap"),
        "robust": read_robust(mapping.get("robust")),
        "objective": as_str(mapping.get("objective", "makespan"), "objective",
                            choices=TARGET_OBJECTIVES if strategy == TARGET_STRATEGY else OBJECTIVES),
        # plans before version 4 treated every job as ready at 0
        "ready_now": _flag(mapping.get("ready_now", version < 4), "ready_now"),
        "window": None if mapping.get("window") is None else as_float(mapping["window"], "window", above=0.0,
                                                                        maximum=MAX_SECONDS),
        "ordering": read_ordering(mapping.get("ordering")),
        # plans before version 7 did not say; batches had no dependencies before it
        "pipeline": _flag(mapping.get("pipeline", False), "pipeline"),
        **_target_fields(mapping, strategy),
        # read into the current schema, so writing it back gives a current file
        "version": PLAN_VERSION,
    }


def _target_fields(mapping: dict[str, Any], strategy: str) -> dict[str, Any]:
    """A target plan's ``target``, ``levers``, ``config_fingerprint`` and ``simulated`` (all four,
    and only on a "target" plan); ``simulated`` is kept as written (what the planner measured)."""
    given = [key for key in NEW_IN_V5 if mapping.get(key) is not None]
    if strategy != TARGET_STRATEGY:
        if given:
            raise InvalidInput(given[0], f"only a {TARGET_STRATEGY!r} plan has one; this is a {strategy} plan")
        return {}
    missing = [key for key in NEW_IN_V5 if mapping.get(key) is None]
    if missing:
        raise InvalidInput(missing[0], f"a {TARGET_STRATEGY!r} plan needs it")
    simulated = as_mapping(mapping["simulated"], "simulated")
    missing_keys = [key for key in SIMULATED_KEYS if key not in simulated]
    if missing_keys:
        raise InvalidInput(f"simulated.{missing_keys[0]}", "is required (what the planner measured)")
    as_int(simulated["runs"], "simulated.runs", minimum=2, maximum=MAX_RUNS)
    as_int(simulated["seed"], "simulated.seed", minimum=0, maximum=MAX_SEED)
    as_float(simulated["noise"], "simulated.noise", minimum=0.0, maximum=1.0)
    _flag(simulated["keep"], "simulated.keep")
    as_str(simulated["chosen"], "simulated.chosen")
    for key in ("candidates", "comparisons", "jobs"):
        _list(simulated[key], f"simulated.{key}", "records")
    as_mapping(simulated["bounds"], "simulated.bounds")
    if simulated.get("configured_queues") is not None:  # since the small-jobs queue; older files lack it
        for job, queue in as_mapping(simulated["configured_queues"], "simulated.configured_queues").items():
            as_str(queue, f"simulated.configured_queues.{job}")
    return {"target": as_str(mapping["target"], "target", choices=TARGETS),
            "levers": Levers.from_dict(mapping["levers"]),
            "config_fingerprint": as_str(mapping["config_fingerprint"], "config_fingerprint"),
            "simulated": simulated}
