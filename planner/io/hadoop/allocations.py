"""Fair scheduler allocation files (MRv1 pools and YARN queues) as `Pool`s and preemption timeouts.

- MRv1 (``<pool>``): minMaps, minReduces, maxMaps, maxReduces, maxRunningJobs, weight and
  schedulingMode per pool; poolMaxJobsDefault and defaultPoolSchedulingMode as defaults.
- YARN (``<queue>``, nested): minResources and maxResources become containers of the given size
  (``container``: memory MB and vcores; a resource of N mb and M vcores is
  floor(min(N / MB, M / VCORES)) containers), maxRunningApps, weight, schedulingPolicy (fair,
  fifo; drf is read as fair, with a warning); queueMaxAppsDefault and defaultQueueSchedulingPolicy
  as defaults. Leaf queues become pools named by their path below root ("parent.child"); when
  queues nest, a leaf's weight is its share of the cluster (each level's weight over its
  siblings', multiplied down the path), since the simulator shares among pools in one level.
- Preemption timeouts (seconds): the simulator has one min-share and one fair-share timeout; the
  smallest given (default or per pool) is used, with a warning when pools differ.

Everything else (users and their limits, ACLs, AM shares, placement policies, thresholds) is
not modelled: `Allocations.ignored` names each, and the caller warns.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field, replace

from models.errors import InvalidInput
from planner.io.hadoop.parsing import number_text
from planner.simulator.schedulers.fair import Pool

#: (memory MB, vcores) of one container, when the files do not say (YARN's minimum allocation).
DEFAULT_CONTAINER = (1024.0, 1.0)

_MRV1_POOL = ("minMaps", "minReduces", "maxMaps", "maxReduces", "maxRunningJobs", "weight", "schedulingMode",
              "minSharePreemptionTimeout", "fairSharePreemptionTimeout")
_YARN_QUEUE = ("minResources", "maxResources", "maxRunningApps", "weight", "schedulingPolicy", "schedulingMode",
               "minSharePreemptionTimeout", "fairSharePreemptionTimeout", "queue")
_DEFAULTS = ("poolMaxJobsDefault", "queueMaxAppsDefault", "defaultPoolSchedulingMode",
             "defaultQueueSchedulingPolicy", "defaultQueueSchedulingMode", "defaultMinSharePreemptionTimeout",
             "defaultFairSharePreemptionTimeout", "fairSharePreemptionTimeout")


@dataclass
class Allocations:
    """What an allocation file says: pools, the preemption timeouts given, settings not modelled."""

    pools: list[Pool] = field(default_factory=list)
    yarn: bool = False
    min_share_timeouts: dict[str, float] = field(default_factory=dict)  # where -> seconds
    fair_share_timeouts: dict[str, float] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)

    @property
    def min_share_timeout(self) -> float | None:
        return min(self.min_share_timeouts.values(), default=None)

    @property
    def fair_share_timeout(self) -> float | None:
        return min(self.fair_share_timeouts.values(), default=None)


def read_allocations(root: ElementTree.Element, source: str,
                     container: tuple[float, float] = DEFAULT_CONTAINER) -> Allocations:
    """The pools and timeouts of an ``<allocations>`` element."""
    if root.tag != "allocations":
        raise InvalidInput(root.tag, "an allocation file's root element is <allocations>", source=source)
    found = Allocations()
    defaults: dict[str, str] = {}
    for element in root:
        if element.tag in _DEFAULTS:
            defaults[element.tag] = (element.text or "").strip()
        elif element.tag not in ("pool", "queue") and isinstance(element.tag, str):
            found.ignored.append(_described(element))
    for name in ("defaultMinSharePreemptionTimeout",):
        if name in defaults:
            found.min_share_timeouts[name] = _number(defaults[name], name, source, float)
    for name in ("defaultFairSharePreemptionTimeout", "fairSharePreemptionTimeout"):
        if name in defaults:
            found.fair_share_timeouts[name] = _number(defaults[name], name, source, float)
    max_default = next((defaults[k] for k in ("poolMaxJobsDefault", "queueMaxAppsDefault") if k in defaults), None)
    mode_default = next((defaults[k] for k in ("defaultPoolSchedulingMode", "defaultQueueSchedulingPolicy",
                                               "defaultQueueSchedulingMode") if k in defaults), "fair")
    context = _Context(source, container, max_default, _mode(mode_default, "default scheduling mode", source, found))
    for position, pool in enumerate(root.findall("pool")):
        found.pools.append(_mrv1_pool(pool, f"pool[{position}]", context, found))
    queues = root.findall("queue")
    if queues:
        found.yarn = True
        leaves: list[tuple[Pool, float]] = []
        _yarn_level(queues, "", 1.0, context, found, leaves)
        nested = any("." in pool.name for pool, _ in leaves)
        found.pools.extend(pool if not nested else replace(pool, weight=share) for pool, share in leaves)
    names = [pool.name for pool in found.pools]
    duplicate = next((name for name in names if names.count(name) > 1), None)
    if duplicate is not None:
        raise InvalidInput(f"pool {duplicate!r}", "is defined twice", source=source)
    return found


@dataclass(frozen=True)
class _Context:
    source: str
    container: tuple[float, float]
    max_running: str | None
    mode: str


def _mrv1_pool(element: ElementTree.Element, where: str, context: _Context, found: Allocations) -> Pool:
    name = _name(element, where, context.source)
    where = f"{where} ({name})"
    values = _children(element, _MRV1_POOL, where, found)
    number = lambda tag, kind=int: _number(values[tag], f"{where}.{tag}", context.source, kind)  # noqa: E731
    _timeouts(values, where, context.source, found)
    max_running = values.get("maxRunningJobs", context.max_running)
    return _pool(context.source, where, name=name,
                 weight=number("weight", float) if "weight" in values else 1.0,
                 min_map=number("minMaps") if "minMaps" in values else 0,
                 min_reduce=number("minReduces") if "minReduces" in values else 0,
                 max_map=number("maxMaps") if "maxMaps" in values else None,
                 max_reduce=number("maxReduces") if "maxReduces" in values else None,
                 max_running=None if max_running is None else _number(max_running, f"{where}.maxRunningJobs",
                                                                      context.source, int),
                 mode=_mode(values["schedulingMode"], f"{where}.schedulingMode", context.source, found)
                 if "schedulingMode" in values else context.mode)


def _yarn_level(queues: list[ElementTree.Element], parent: str, share: float, context: _Context,
                found: Allocations, leaves: list[tuple[Pool, float]]) -> None:
    """Leaf queues of one level, with each one's share of the cluster by weight."""
    named = []
    for element in queues:
        name = _name(element, f"queue {parent or 'root'}", context.source)
        path = f"{parent}.{name}" if parent else name
        weight = element.find("weight")
        named.append((element, name, path, 1.0 if weight is None else
                      _number((weight.text or "").strip(), f"queue {path}.weight", context.source, float)))
    total = sum(weight for *_, weight in named) or 1.0
    for element, name, path, weight in named:
        if name == "root" and not parent:  # <queue name="root"> holds the top level
            _yarn_level(element.findall("queue"), "", share, context, found, leaves)
            continue
        children = element.findall("queue")
        if children:
            _children(element, _YARN_QUEUE, f"queue {path}", found)
            _yarn_level(children, path, share * weight / total, context, found, leaves)
        else:
            leaves.append((_yarn_queue(element, path, weight, context, found), share * weight / total))


def _yarn_queue(element: ElementTree.Element, path: str, weight: float, context: _Context,
                found: Allocations) -> Pool:
    where = f"queue {path}"
    values = _children(element, _YARN_QUEUE, where, found)
    _timeouts(values, where, context.source, found)
    minimum = _containers(values.get("minResources"), f"{where}.minResources", context, found)
    maximum = _containers(values.get("maxResources"), f"{where}.maxResources", context, found)
    max_running = values.get("maxRunningApps", context.max_running)
    mode = values.get("schedulingPolicy", values.get("schedulingMode"))
    # On containers a pool's min share and cap are map + reduce: the containers go in the map field.
    return _pool(context.source, where, name=path, weight=weight, min_map=minimum or 0, max_map=maximum, max_reduce=None if maximum is None else 0,
                 max_running=None if max_running is None else _number(max_running, f"{where}.maxRunningApps",
                                                                      context.source, int),
                 mode=context.mode if mode is None else _mode(mode, f"{where}.schedulingPolicy", context.source,
                                                             found))


def _containers(text: str | None, where: str, context: _Context, found: Allocations) -> int | None:
    """Containers in a YARN resource: "1024 mb, 1 vcores" or "memory-mb=1024, vcores=1"."""
    if text is None:
        return None
    if "%" in text:
        found.ignored.append(f"{where} = {text} (percentages of the cluster: give mb and vcores)")
        return None
    if re.search(r"\d[eE][+-]?\d", text):
        raise InvalidInput(where, f"must be whole numbers, 'N mb, M vcores', got {text!r}", source=context.source)
    pairs = re.findall(r"(\d+(?:\.\d+)?)\s*(mb|vcores)\b|(memory-mb|vcores)\s*=\s*(\d+(?:\.\d+)?)", text.lower())
    amounts: dict[str, float] = {}
    for number, unit, key, value in pairs:
        amounts["mb" if (unit or key).startswith("m") else "vcores"] = float(number or value)
    if set(amounts) != {"mb", "vcores"}:
        raise InvalidInput(where, f"must be 'N mb, M vcores', got {text!r}", source=context.source)
    memory, vcores = context.container
    return math.floor(min(amounts["mb"] / memory, amounts["vcores"] / vcores))


def _timeouts(values: dict[str, str], where: str, source: str, found: Allocations) -> None:
    if "minSharePreemptionTimeout" in values:
        found.min_share_timeouts[where] = _number(values["minSharePreemptionTimeout"],
                                                  f"{where}.minSharePreemptionTimeout", source, float)
    if "fairSharePreemptionTimeout" in values:
        found.fair_share_timeouts[where] = _number(values["fairSharePreemptionTimeout"],
                                                   f"{where}.fairSharePreemptionTimeout", source, float)


def _children(element: ElementTree.Element, known: tuple[str, ...], where: str, found: Allocations) -> dict[str, str]:
    values = {}
    for child in element:
        if not isinstance(child.tag, str):  # comments
            continue
        if child.tag in known:
            if child.tag != "queue":
                values[child.tag] = (child.text or "").strip()
        else:
            found.ignored.append(f"{where}.{_described(child)}")
    return values


def _described(element: ElementTree.Element) -> str:
    text = (element.text or "").strip()
    label = element.get("name")
    return element.tag + (f" {label!r}" if label else "") + (f" = {text}" if text and len(element) == 0 else "")


def _name(element: ElementTree.Element, where: str, source: str) -> str:
    name = (element.get("name") or "").strip()
    if not name:
        raise InvalidInput(where, "has no name attribute", source=source)
    return name


def _mode(text: str, where: str, source: str, found: Allocations) -> str:
    mode = text.strip().lower()
    if mode == "drf":
        found.ignored.append(f"{where} = drf (read as fair: the simulator's containers have one size)")
        return "fair"
    if mode not in ("fair", "fifo"):
        raise InvalidInput(where, f"must be fair or fifo, got {text!r}", source=source)
    return mode


def _number(text: str, where: str, source: str, kind: type) -> float:
    return number_text(text, where, source, whole=kind is int)


def _pool(source: str, where: str, **fields: object) -> Pool:
    try:
        return Pool(**fields)
    except InvalidInput as error:
        raise InvalidInput(where, error.problem, source=source) from None
