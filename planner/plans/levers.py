"""What a plan for a target changes of the cluster's configuration: its `Levers`.

A target (mrv1, yarn-fair, yarn-capacity, spark) has its own levers, and a plan made for it
(`planner.planning.deploy.plan_for_target`) is a set of them on top of the configuration the
operator runs (or the target's default one):

- ``scheduler``: "fifo", "fair" or "capacity" (None: the configured one);
- ``order`` and ``priorities``: the planned order, as each job's priority level (higher runs
  first in a FIFO queue) and its submission time (``submits``: when the submission script submits
  it, seconds from the batch's start);
- ``queues``: the queue (pool) each job is submitted to; ``policies`` (queue -> "fifo" or "fair"),
  ``max_running`` (queue -> running-application limit: YARN's maxRunningApps, MRv1's
  maxRunningJobs, counted from a job's first task to its last), ``weights`` (queue -> weight) and
  ``caps`` (queue -> the most containers it holds at once: YARN's fair-scheduler maxResources,
  in containers of the configuration's size);
- ``slowstart``: the fraction of a job's maps done before its reduces start;
- ``slots`` (mrv1 only): the cluster's map and reduce slot totals, laid out per node;
- ``min_shares`` (spark only): queue (pool) -> its minShare, the cores it is owed while it has
  tasks to run (Spark's fairscheduler.xml); Hadoop's targets refuse it.

An empty mapping or None leaves that part of the configuration as it is. Levers are data: the
export (`planner.io.hadoop.merge`) writes them into the operator's files, and the simulator runs
those files read back.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from models import InvalidInput, InvalidType
from models.checks import as_float, as_int, as_mapping, as_str, check_keys, shown
from models.limits import MAX_PRIORITY, MAX_SECONDS, MAX_TOTAL_SLOTS, MAX_WEIGHT, MIN_WEIGHT

#: Schedulers a plan may switch to.
SCHEDULER_KINDS = ("fifo", "fair", "capacity")
#: Ordering policies inside a queue.
QUEUE_POLICIES = ("fifo", "fair")
LEVER_KEYS = ("scheduler", "order", "priorities", "submits", "queues", "policies", "max_running", "weights",
              "caps", "slowstart", "slots", "min_shares")


@dataclass(frozen=True)
class Levers:
    """The changes a target plan makes (module docstring). ``Levers()`` changes nothing."""

    scheduler: str | None = None
    order: tuple[str, ...] = ()
    priorities: Mapping[str, int] = field(default_factory=dict)
    submits: Mapping[str, float] = field(default_factory=dict)
    queues: Mapping[str, str] = field(default_factory=dict)
    policies: Mapping[str, str] = field(default_factory=dict)
    max_running: Mapping[str, int] = field(default_factory=dict)
    weights: Mapping[str, float] = field(default_factory=dict)
    caps: Mapping[str, int] = field(default_factory=dict)
    slowstart: float | None = None
    slots: tuple[int, int] | None = None
    min_shares: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        put = object.__setattr__
        if self.scheduler is not None:
            as_str(self.scheduler, "levers.scheduler", choices=SCHEDULER_KINDS)
        if isinstance(self.order, str | bytes | Mapping) or not isinstance(self.order, Iterable):
            raise InvalidType("levers.order", f"must be a list of job names, got {shown(self.order)} "
                                              f"({type(self.order).__name__})")
        order = tuple(as_str(name, f"levers.order[{i}]") for i, name in enumerate(self.order))
        if len(set(order)) != len(order):
            raise InvalidInput("levers.order", "names a job twice")
        put(self, "order", order)
        put(self, "priorities", {as_str(k, "levers.priorities"): as_int(v, f"levers.priorities.{k}",
                                                                          minimum=-MAX_PRIORITY, maximum=MAX_PRIORITY)
                                 for k, v in as_mapping(self.priorities, "levers.priorities").items()})
        put(self, "submits", {as_str(k, "levers.submits"): as_float(v, f"levers.submits.{k}", minimum=0.0,
                                                                     maximum=MAX_SECONDS)
                              for k, v in as_mapping(self.submits, "levers.submits").items()})
        put(self, "queues", {as_str(k, "levers.queues"): as_str(v, f"levers.queues.{k}")
                             for k, v in as_mapping(self.queues, "levers.queues").items()})
        put(self, "policies", {as_str(k, "levers.policies"): as_str(v, f"levers.policies.{k}", choices=QUEUE_POLICIES)
                               for k, v in as_mapping(self.policies, "levers.policies").items()})
        put(self, "max_running", {as_str(k, "levers.max_running"): as_int(v, f"levers.max_running.{k}", minimum=1)
                                  for k, v in as_mapping(self.max_running, "levers.max_running").items()})
        put(self, "weights", {as_str(k, "levers.weights"): as_float(v, f"levers.weights.{k}", minimum=MIN_WEIGHT,
                                                                     maximum=MAX_WEIGHT)
                              for k, v in as_mapping(self.weights, "levers.weights").items()})
        put(self, "caps", {as_str(k, "levers.caps"): as_int(v, f"levers.caps.{k}", minimum=1, maximum=MAX_TOTAL_SLOTS)
                           for k, v in as_mapping(self.caps, "levers.caps").items()})
        put(self, "min_shares", {as_str(k, "levers.min_shares"): as_int(v, f"levers.min_shares.{k}", minimum=0,
                                                                         maximum=MAX_TOTAL_SLOTS)
                                 for k, v in as_mapping(self.min_shares, "levers.min_shares").items()})
        if self.slowstart is not None:
            put(self, "slowstart", as_float(self.slowstart, "levers.slowstart", minimum=0.0, maximum=1.0))
        if self.slots is not None:
            if not isinstance(self.slots, (tuple, list)) or len(self.slots) != 2:
                raise InvalidInput("levers.slots", f"must be [map slots, reduce slots], got {self.slots!r}")
            put(self, "slots", (as_int(self.slots[0], "levers.slots[0]", minimum=1, maximum=MAX_TOTAL_SLOTS),
                                as_int(self.slots[1], "levers.slots[1]", minimum=1, maximum=MAX_TOTAL_SLOTS)))

    @property
    def changes_nothing(self) -> bool:
        """Whether these levers leave the configuration files as they are (the plan says "keep your
        configuration"): no scheduler, queue setting (minShare too), slow-start, split or priority changed. The
        schedule (``order``, ``submits``, ``queues``) is not configuration: a plan that keeps the
        configuration submits every job as it arrives into the queue it maps to."""
        return (self.scheduler is None and not self.priorities and not self.policies and not self.max_running
                and not self.weights and not self.caps and self.slowstart is None and self.slots is None
                and not self.min_shares)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (``min_shares`` only when set: plans written before it read the same)."""
        data = {"scheduler": self.scheduler, "order": list(self.order), "priorities": dict(self.priorities),
                "submits": dict(self.submits), "queues": dict(self.queues), "policies": dict(self.policies),
                "max_running": dict(self.max_running), "weights": dict(self.weights), "caps": dict(self.caps),
                "slowstart": self.slowstart,
                "slots": None if self.slots is None else list(self.slots)}
        if self.min_shares:
            data["min_shares"] = dict(self.min_shares)
        return data

    @classmethod
    def from_dict(cls, data: object, field_name: str = "levers") -> Levers:
        """Strictly: unknown keys are refused, each value checked and named."""
        mapping = as_mapping(data, field_name)
        check_keys(mapping, LEVER_KEYS, field_name)
        values = dict(mapping)
        if values.get("order") is not None:
            if not isinstance(values["order"], list):
                raise InvalidInput(f"{field_name}.order", "must be a list of job names")
            values["order"] = tuple(values["order"])
        if values.get("slots") is not None:
            values["slots"] = tuple(values["slots"]) if isinstance(values["slots"], list) else values["slots"]
        try:
            return cls(**values)
        except InvalidInput as error:
            raise InvalidInput(error.field.replace("levers", field_name, 1), error.problem) from None
