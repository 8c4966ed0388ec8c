"""Hadoop's configuration as the simulator's cluster, scheduler and options: the cluster as it is.

`read_hadoop_conf(paths)` reads any mix of:

- a fair scheduler allocation file, MRv1 or YARN (``<allocations>``; `allocations`);
- capacity-scheduler.xml (``yarn.scheduler.capacity.*``): leaf queues with their capacity and
  maximum-capacity as fractions of the cluster (each level's percentages multiplied down the
  path);
- mapred-site.xml and yarn-site.xml (any ``<configuration>`` file): the settings in
  `SITE_SETTINGS` (slots or containers per node, reduce slow-start (Hadoop's `HADOOP_SLOWSTART`,
  0.05, when no file sets it), assign-multiple, preemption, the scheduler class, block
  replication);
- SLS's nodes file (JSON): the nodes and racks;
- what `planner export` writes beside them (`plan_files`): per-host slot groups
  (``NAME.xml`` with ``NAME.hosts``), ``submissions.tsv`` and ``phases.tsv``.

A folder stands for the files in it (sorted by name); what an export writes for the operator to
read (`EXPORT_NOTES`: README.md, submit.sh, changes.diff) is skipped.

The scheduler is the one the site files name, else the one the files configure (an allocation
file: fair; capacity properties: capacity), else FIFO. A setting the simulator does not model
is named in an `IgnoredSetting` warning, never dropped silently; a malformed file is one
`InvalidInput` naming the file and the element.
"""

from __future__ import annotations

import math
import os
import stat
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from models import Cluster, Workload
from models.checks import as_bool, as_instance, as_int, as_paths, as_str_mapping
from models.errors import InvalidInput, InvalidPlan
from models.fileio import os_problem
from models.limits import MAX_NESTING
from planner.io.hadoop.allocations import DEFAULT_CONTAINER, Allocations, read_allocations
from planner.io.hadoop.parsing import Topology, number_text, read_sls_nodes, read_xml, site_properties
from planner.io.hadoop.plan_files import (
    SlotGroup,
    Submission,
    group_slots,
    read_hosts,
    read_phases,
    read_submissions,
    submitted,
)
from planner.simulator.config import delay_from_value, with_options
from planner.simulator.layout import spread
from planner.simulator.options import SimOptions
from planner.simulator.run import Run
from planner.simulator.schedulers.base import Scheduler
from planner.simulator.schedulers.capacity import Capacity, Queue
from planner.simulator.schedulers.fair import Fair
from planner.simulator.schedulers.fifo import Fifo
from planner.simulator.schedulers.preemption import Preemption
from planner.simulator.schedulers.queues import ORDERINGS


class IgnoredSetting(UserWarning):
    """A Hadoop setting the simulator does not model (named in the message)."""


#: Site settings the simulator models: property -> what it sets.
SITE_SETTINGS = {
    "mapred.tasktracker.map.tasks.maximum": "map_slots",
    "mapreduce.tasktracker.map.tasks.maximum": "map_slots",
    "mapred.tasktracker.reduce.tasks.maximum": "reduce_slots",
    "mapreduce.tasktracker.reduce.tasks.maximum": "reduce_slots",
    "mapred.reduce.slowstart.completed.maps": "reduce_slowstart",
    "mapreduce.job.reduce.slowstart.completedmaps": "reduce_slowstart",
    "mapred.jobtracker.taskScheduler": "scheduler",
    "mapreduce.jobtracker.taskscheduler": "scheduler",
    "yarn.resourcemanager.scheduler.class": "scheduler",
    "mapred.fairscheduler.preemption": "preemption",
    "yarn.scheduler.fair.preemption": "preemption",
    "mapred.fairscheduler.assignmultiple": "assign_multiple",
    "yarn.scheduler.fair.assignmultiple": "assign_multiple",
    "yarn.nodemanager.resource.memory-mb": "node_memory",
    "yarn.nodemanager.resource.cpu-vcores": "node_vcores",
    "yarn.scheduler.minimum-allocation-mb": "container_memory",
    "yarn.scheduler.minimum-allocation-vcores": "container_vcores",
    "dfs.replication": "replication",
    # YARN resets an application's priority above it to it (default 0): applied to the schedule.
    "yarn.cluster.max-application-priority": "max_priority",
    # Where the allocation file is: read when given on the command line, nothing to apply.
    "mapred.fairscheduler.allocation.file": "allocation_file",
    "yarn.scheduler.fair.allocation.file": "allocation_file",
}
#: Hadoop's reduce slow-start when the files do not set it (mapred-default.xml, MRv1 and MRv2).
HADOOP_SLOWSTART = 0.05
#: Scheduler classes by the last part of their Java name.
SCHEDULER_CLASSES = {"FairScheduler": "fair", "CapacityTaskScheduler": "capacity", "CapacityScheduler": "capacity",
                     "JobQueueTaskScheduler": "fifo", "FifoScheduler": "fifo"}
_CAPACITY = "yarn.scheduler.capacity."
#: The files of an exported folder written for the operator, not read as configuration.
EXPORT_NOTES = ("README.md", "submit.sh", "changes.diff")


@dataclass(frozen=True)
class HadoopSetup:
    """The cluster as its Hadoop files configure it.

    ``scheduler`` is ready to simulate with; ``cluster`` holds the `Cluster` fields the files
    set (apply them with `on`), ``options`` the `SimOptions` fields (`sim_options`); ``ignored``
    lists the settings read but not modelled, ``sources`` the files read. ``slots`` are the map
    and reduce slot totals per-host slot groups configure (None without groups),
    ``submissions`` the submission schedule (apply it with `submit`), ``phases`` a VM plan's.
    """

    scheduler: Scheduler
    cluster: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    ignored: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    slots: tuple[int, int] | None = None
    submissions: tuple[Submission, ...] = ()
    phases: tuple[tuple[tuple[str, int, str], ...], ...] = ()
    schedule_source: str = ""
    max_priority: int | None = None

    def __post_init__(self) -> None:
        """Each field of its type (a number where a record belongs is refused, naming the field)."""
        as_instance(self.scheduler, Scheduler, "scheduler")
        for name in ("cluster", "options"):
            as_instance(getattr(self, name), dict, name)
        for name in ("ignored", "sources", "submissions", "phases"):
            as_instance(getattr(self, name), tuple, name)
        if self.slots is not None:
            slots = as_instance(self.slots, tuple, "slots")
            if len(slots) != 2:
                raise InvalidInput("slots", f"must be (map slots, reduce slots), got {len(slots)} numbers")
            for position, count in enumerate(slots):
                as_int(count, f"slots[{position}]", minimum=0)
        as_instance(self.schedule_source, str, "schedule_source")
        if self.max_priority is not None:
            object.__setattr__(self, "max_priority", as_int(self.max_priority, "max_priority"))

    def submit(self, workload: Workload) -> Workload:
        """``workload`` as the submission schedule submits it (unchanged without one); on YARN
        (``max_priority`` set) a priority above the cluster's maximum is that maximum, as YARN
        resets it (0 under YARN's fair scheduler, which does not order applications by priority)."""
        if not self.submissions:
            return workload
        schedule = self.submissions
        if self.max_priority is not None:
            schedule = tuple(replace(s, priority=min(s.priority, self.max_priority)) for s in schedule)
        return submitted(workload, schedule, self.schedule_source)

    def on(self, cluster: Cluster) -> Cluster:
        """``cluster`` with the files' nodes, racks, slots and replication."""
        return cluster.with_changes(**self.cluster) if self.cluster else cluster

    def sim_options(self, base: SimOptions | None = None) -> SimOptions:
        """``base`` (default options) with the files' settings."""
        return replace(base or SimOptions(), **self.options)


def read_hadoop_conf(paths: Iterable[str | Path], *, warn: bool = True) -> HadoopSetup:
    """Read Hadoop's files (see the module docstring) into a `HadoopSetup`; with ``warn``, an
    `IgnoredSetting` warning lists what is not modelled."""
    warn = as_bool(warn, "warn")
    files = conf_files(paths, "paths")
    site: dict[str, tuple[str, str, str]] = {}  # setting -> (value, file, place)
    capacity: dict[str, tuple[str, str, str]] = {}
    allocations: list[tuple[Any, str]] = []
    cluster: dict[str, Any] = {}
    ignored: list[str] = []
    groups: list[SlotGroup] = []
    topology: Topology | None = None
    extra: dict[str, Any] = {}
    hosts_files = {path.with_suffix(""): path for path in files if path.suffix.lower() == ".hosts"}
    yarn_site = False
    for path in files:
        source = str(path)
        suffix = path.suffix.lower()
        if suffix == ".hosts":
            if path.with_suffix(".xml") not in files:
                raise InvalidInput("file", f"a hosts file needs its slot group's {path.with_suffix('.xml').name}",
                                   source=source)
            continue
        if suffix == ".tsv":
            if path.name == "phases.tsv":
                extra["phases"], extra["schedule_source"] = read_phases(path), source
            elif path.name == "submissions.tsv":
                extra["submissions"], extra["schedule_source"] = read_submissions(path), source
            else:
                raise InvalidInput("file", "is not a file Hadoop or `planner export` writes (submissions.tsv and "
                                       "phases.tsv are)", source=source)
            if "phases" in extra and "submissions" in extra:
                raise InvalidInput("file", "a folder holds a slot plan's submissions.tsv or a VM plan's phases.tsv, "
                                       "not both", source=source)
            continue
        if suffix == ".xml" and path.with_suffix("") in hosts_files:
            groups.append(_group(path, read_hosts(hosts_files[path.with_suffix("")]), ignored))
            continue
        if suffix == ".xml" and path.name.startswith("tasktracker-"):
            raise InvalidInput("file", f"a slot group needs its hosts file {path.with_suffix('.hosts').name}",
                               source=source)
        if suffix == ".json":
            topology = read_sls_nodes(path)
            cluster["nodes"], cluster["racks"] = topology.nodes, len(topology.racks)
            sizes = sorted({len(hosts) for hosts in topology.racks.values()})
            laid_out = spread(topology.nodes, len(topology.racks))
            if [len(hosts) for hosts in topology.racks.values()] != laid_out:
                ignored.append(f"{source}: racks of {sizes[0]}-{sizes[-1]} nodes (the simulator splits "
                               f"{topology.nodes} nodes evenly over {len(topology.racks)} racks)")
            continue
        root = read_xml(path)
        if root.tag == "allocations":
            allocations.append((root, source))
        elif root.tag == "configuration":
            for name, (value, place) in site_properties(root, source).items():
                yarn_site = yarn_site or name.startswith("yarn.")  # a YARN file: containers
                if name.startswith(_CAPACITY):
                    capacity[name[len(_CAPACITY):]] = (value, source, place)
                elif name in SITE_SETTINGS:
                    site[SITE_SETTINGS[name]] = (value, source, place)
                else:
                    ignored.append(f"{source}: {name} = {value}")
        else:
            raise InvalidInput(root.tag, "expected <configuration> (a site file) or <allocations> (a fair "
                                         "scheduler allocation file)", source=source)
    container = container_size(site)
    read = [read_allocations(root, source, container) for root, source in allocations]
    for found, (_, source) in zip(read, allocations, strict=True):
        ignored.extend(f"{source}: {item}" for item in found.ignored)
    options: dict[str, Any] = {}
    cluster.update(_slots(site, container, yarn=yarn_site or any(a.yarn for a in read) or bool(capacity)))
    if "containers" in cluster:
        options["containers"] = cluster.pop("containers")
    # Hadoop launches a job's reduces once 5% of its maps are done unless the files say otherwise
    options["reduce_slowstart"] = _site_number(site, "reduce_slowstart", HADOOP_SLOWSTART)
    if "assign_multiple" in site:
        options["assign_multiple"] = _site_flag(site, "assign_multiple")
    if "replication" in site:
        cluster["replication"] = _site_number(site, "replication", 3, whole=True)
    if groups:
        extra["slots"] = group_slots(groups, topology)
    scheduler = _scheduler(site, capacity, read, ignored)
    if options.get("containers") and "submissions" in extra:
        # YARN's fair scheduler does not order applications by priority (the capacity scheduler
        # does, up to yarn.cluster.max-application-priority): its submissions run at priority 0
        fair = isinstance(scheduler, Fair)
        extra["max_priority"] = 0 if fair else int(_site_number(site, "max_priority", 0, whole=True))
    setup = HadoopSetup(scheduler, cluster, options, tuple(ignored), tuple(str(path) for path in files), **extra)
    if warn and ignored:
        warnings.warn(f"not modelled, ignored: {'; '.join(ignored)}", IgnoredSetting, stacklevel=2)
    return setup


def conf_files(paths: object, field: str) -> list[Path]:
    """The files of `expand_paths` of ``paths`` (checked by `as_paths`), at least one (an error names
    ``field``, the parameter the caller took them as)."""
    files = expand_paths(as_paths(paths, field))
    if not files:
        raise InvalidInput(field, "give at least one file")
    return files


def expand_paths(paths: Iterable[str | Path]) -> list[Path]:
    """The files given, a folder standing for the files in it (sorted; not hidden files nor
    `EXPORT_NOTES`); a file given twice is listed once. A path that cannot be looked at (a link
    loop, a name too long) is listed as given: reading it says what is wrong, in one line."""
    files: list[Path] = []
    for path in (Path(p) for p in paths):
        if _kind(path) == "folder":
            try:
                entries = sorted(path.iterdir())
            except OSError as error:
                raise InvalidInput("", f"cannot read: {os_problem(error)}", source=str(path)) from None
            files.extend(p for p in entries if _kind(p) == "file" and not p.name.startswith(".")
                         and p.name not in EXPORT_NOTES)
        else:
            files.append(path)
    # os.path.realpath, not Path.resolve: it leaves a link loop as it is instead of raising
    unique = {os.path.realpath(path): path for path in reversed(files)}  # a file given twice is read once
    return [path for path in files if unique.get(os.path.realpath(path)) is path]


def _kind(path: Path) -> str | None:
    """"folder", "file" (a regular one, links followed), "other", or None when it cannot be looked at."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    return "folder" if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode) else "other"


def _group(path: Path, hosts: tuple[str, ...], ignored: list[str]) -> SlotGroup:
    """A slot group's site file: its map and reduce slot maxima (both required)."""
    source = str(path)
    root = read_xml(path)
    if root.tag != "configuration":
        raise InvalidInput(root.tag, "a slot group's file must be a <configuration> site file", source=source)
    slots: dict[str, int] = {}
    for name, (value, place) in site_properties(root, source).items():
        kind = SITE_SETTINGS.get(name)
        if kind in ("map_slots", "reduce_slots"):
            slots[kind] = int(number_text(value, place, source, whole=True))
        else:
            ignored.append(f"{source}: {name} = {value} (a slot group sets slots only)")
    for kind in ("map_slots", "reduce_slots"):
        if kind not in slots:
            raise InvalidInput(kind, "is missing: a slot group's file sets both slot maxima", source=source)
    return SlotGroup(hosts, slots["map_slots"], slots["reduce_slots"], source)


def hadoop_settings(paths: Iterable[str | Path], cluster: Cluster, *, delay: object = None,
                    **options: Any) -> tuple[Cluster, Scheduler, SimOptions]:
    """What a run of ``cluster`` as Hadoop's files configure it uses: the cluster with the files'
    nodes, racks and slots, their scheduler (with ``delay`` scheduling when given), and their
    options with the `SimOptions` fields given as keywords on top (None values are ignored)."""
    as_instance(cluster, Cluster, "cluster")
    setup = read_hadoop_conf(paths)
    if setup.slots is not None or setup.submissions or setup.phases:
        raise InvalidInput("hadoop_conf", "holds a plan's export (slot groups, a submission schedule or phases), "
                                          "which only `planner simulate --hadoop-conf` runs whole; give the "
                                          "cluster's own files here", source=setup.schedule_source or None)
    return _settings(setup, cluster, delay, options)


def _settings(setup: HadoopSetup, cluster: Cluster, delay: object, options: dict[str, Any],
              base: SimOptions | None = None) -> tuple[Cluster, Scheduler, SimOptions]:
    scheduler = setup.scheduler
    chosen_delay = delay_from_value(delay)
    if chosen_delay is not None:
        scheduler.delay = chosen_delay
    return setup.on(cluster), scheduler, with_options(setup.sim_options(base), **options)


def hadoop_run(paths: Iterable[str | Path], workload: Workload, cluster: Cluster, *, delay: object = None,
               base: SimOptions | None = None, warn: bool = True, queue_map: Mapping[str, str] | None = None,
               **options: Any) -> Run:
    """A `Run` of ``workload`` on ``cluster`` as the files configure it (`hadoop_settings`),
    with their per-host slot groups, their submission schedule (each job's time, pool and
    priority), and a VM plan's phases (whose jobs without a runtime profile get the one planning
    derives, `with_wave_profiles`). ``base``: the options the files' settings go on top of
    (default `SimOptions()`); ``warn`` as in `read_hadoop_conf`. ``queue_map`` (job or pool ->
    queue, "*" for the rest) puts every job in a queue of the configuration by
    `planner.io.hadoop.queue_map`'s rule; an exported folder's schedule names the queues itself."""
    as_instance(workload, Workload, "workload")
    as_instance(cluster, Cluster, "cluster")
    if base is not None:
        as_instance(base, SimOptions, "base")
    if queue_map is not None:
        queue_map = as_str_mapping(queue_map, "queue_map")
    setup = read_hadoop_conf(paths, warn=warn)
    if queue_map is not None and (setup.submissions or setup.phases):
        raise InvalidInput("queue_map", "the folder's schedule names each job's queue: leave the map out",
                           source=setup.schedule_source)
    if not (setup.submissions or setup.phases) and (queue_map is not None or isinstance(setup.scheduler, Capacity)):
        from planner.io.hadoop.queue_map import in_queues

        # the capacity scheduler takes jobs into its queues only: an unmapped job is an error naming them
        workload = in_queues(workload, setup.scheduler, queue_map)
    machines, scheduler, chosen = _settings(setup, cluster, delay, options, base)
    if setup.phases:
        from models.profiles.derived import with_wave_profiles  # scikit-learn: only for VM plans
        from planner.simulator.vms import check_vm_groups

        # a VM plan's phases submit every job with its phase: each is ready at 0 (`simulate_vms`)
        ready = Workload([job.with_changes(submit=0.0) for job in workload], name=workload.name)
        jobs = with_wave_profiles(ready, machines)[0]
        try:
            check_vm_groups(jobs, machines, setup.phases)
        except InvalidInput as error:
            raise InvalidInput(error.field, error.problem, source=setup.schedule_source) from None
        except InvalidPlan as error:  # a rule of the packing model: still the file's problem
            raise InvalidInput("phases", str(error), source=setup.schedule_source) from None
        return Run(jobs, machines, None, phases=setup.phases)
    return Run(setup.submit(workload), machines, scheduler, setup.slots, chosen)


def _scheduler(site: dict, capacity: dict, read: list[Allocations], ignored: list[str]) -> Scheduler:
    named = None
    if "scheduler" in site:
        value, source, place = site["scheduler"]
        named = SCHEDULER_CLASSES.get(value.strip().rsplit(".", 1)[-1])
        if named is None:
            raise InvalidInput(place, f"unknown scheduler class {value!r}; known: {', '.join(SCHEDULER_CLASSES)}",
                               source=source)
    kind = named or ("fair" if read else "capacity" if capacity else "fifo")
    if kind != "fair" and read:
        ignored.append(f"the allocation file (the scheduler is {kind})")
    if kind != "capacity" and capacity:
        ignored.append(f"the {len(capacity)} capacity-scheduler properties (the scheduler is {kind})")
    if kind == "fifo":
        return Fifo()
    if kind == "capacity":
        return Capacity(queues=capacity_queues(capacity, ignored))
    pools = [pool for found in read for pool in found.pools]
    preemption = None
    if "preemption" in site and _site_flag(site, "preemption"):
        minimum = min((f.min_share_timeout for f in read if f.min_share_timeout is not None), default=None)
        fair = min((f.fair_share_timeout for f in read if f.fair_share_timeout is not None), default=None)
        given = {round(v, 9) for f in read for v in [*f.min_share_timeouts.values(), *f.fair_share_timeouts.values()]}
        if len(given) > 2:
            ignored.append("per-pool preemption timeouts (the simulator uses the shortest of each kind)")
        preemption = Preemption(min_share_timeout=minimum, fair_share_timeout=fair)
    return Fair(pools=pools, preemption=preemption)


#: YARN's ordering-policy classes by name (the value may name the class instead of "fifo"/"fair").
_ORDERING_CLASSES = {f"org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.{name}OrderingPolicy": ordering
                     for name, ordering in (("Fifo", "fifo"), ("Fair", "fair"))}


def capacity_queues(properties: dict[str, tuple[str, str, str]], ignored: list[str]) -> list[Queue]:
    """Leaf queues of capacity-scheduler properties (names below ``yarn.scheduler.capacity.``);
    a leaf's ``ordering-policy`` is fifo (the default) or fair (`Queue.ordering`), as written or as
    the policy's class name; any other is read as fifo and noted, as is fair's size-based weight."""
    used: set[str] = set()

    def value(key: str) -> tuple[str, str, str] | None:
        if key in properties:
            used.add(key)
            return properties[key]
        return None

    def percent(key: str, default: float) -> float:
        entry = value(key)
        if entry is None:
            return default
        text, source, place = entry
        return number_text(text, place, source, maximum=100.0) / 100.0

    queues: list[Queue] = []

    def level(path: str, share: float, top: float) -> None:
        entry = value(f"{path}.queues")
        if entry is None:
            if path == "root":
                raise InvalidInput(_CAPACITY + "root.queues", "is missing: no queues defined")
            name = path.split(".", 1)[1]
            policy = value(f"{path}.ordering-policy")
            ordering = "fifo"
            if policy is not None:
                written = policy[0].strip()  # YARN compares it as written: "FAIR" is no policy there
                ordering = _ORDERING_CLASSES.get(written, written)
                if ordering not in ORDERINGS:
                    ignored.append(f"{policy[1]}: {_CAPACITY}{path}.ordering-policy = {policy[0]} (read as fifo: "
                                   f"the simulator's capacity queues order jobs by {' or '.join(ORDERINGS)})")
                    ordering = "fifo"
            if share > 0:
                queues.append(Queue(name, share, max(share, min(top, 1.0)), ordering))
            else:
                ignored.append(f"queue {name} (capacity 0: never runs a task in the simulator)")
            return
        if path.count(".") >= MAX_NESTING:  # each level is a property: bounded before Python's stack is
            raise InvalidInput(_CAPACITY + f"{path}.queues", f"queues nested more than {MAX_NESTING} levels deep",
                               source=entry[1])
        for child in (part.strip() for part in entry[0].split(",") if part.strip()):
            child_path = f"{path}.{child}"
            level(child_path, share * percent(f"{child_path}.capacity", 0.0),
                  top * percent(f"{child_path}.maximum-capacity", 1.0))

    level("root", 1.0, 1.0)
    ignored.extend(f"{properties[key][1]}: {_CAPACITY}{key} = {properties[key][0]}"
                   for key in properties if key not in used)
    if not queues:
        raise InvalidInput(_CAPACITY + "root.queues", "no queue has a capacity above 0")
    return queues


def _slots(site: dict, container: tuple[float, float], *, yarn: bool) -> dict[str, Any]:
    """Slots per node: MRv1's maxima, or YARN's containers per node (memory and vcores over a
    container's), split half and half between the two kinds of a container cluster."""
    slots: dict[str, Any] = {}
    for kind in ("map_slots", "reduce_slots"):
        if kind in site:
            slots[kind] = _site_number(site, kind, 1, whole=True)
    if "node_memory" in site or "node_vcores" in site:
        memory = _site_number(site, "node_memory", 8192.0)
        vcores = _site_number(site, "node_vcores", 8.0)
        per_node = math.floor(min(memory / container[0], vcores / container[1]))
        if per_node < 2:
            _, source, place = site.get("node_memory") or site["node_vcores"]
            raise InvalidInput(place, f"a node holds {per_node} container(s) of {container[0]:g} MB and "
                                      f"{container[1]:g} vcores; the simulator needs at least 2", source=source)
        slots.update(map_slots=per_node - per_node // 2, reduce_slots=per_node // 2)
        yarn = True
    if yarn:
        slots["containers"] = True
    return slots


def container_size(site: dict) -> tuple[float, float]:
    """A YARN container's memory (MB) and vcores: the scheduler's minimum allocation in ``site``
    (setting -> (value, source, place), as `read_hadoop_conf` gathers it), else Hadoop's defaults."""
    return (_site_number(site, "container_memory", DEFAULT_CONTAINER[0]),
            _site_number(site, "container_vcores", DEFAULT_CONTAINER[1]))


def _site_number(site: dict, key: str, default: float, *, whole: bool = False) -> float:
    if key not in site:
        return default
    value, source, place = site[key]
    return number_text(value, place, source, whole=whole)


def _site_flag(site: dict, key: str) -> bool:
    value, source, place = site[key]
    if value.strip().lower() not in ("true", "false"):
        raise InvalidInput(place, f"must be true or false, got {value!r}", source=source)
    return value.strip().lower() == "true"
