"""A plan's levers written into the operator's own Hadoop configuration: the merged export, its
diff against the files as they are, and the run those files configure.

- `CurrentConfig`: the configuration files as the operator runs them (`read_current`), or the
  target's stock configuration for a cluster when none are given (`default_config`).
- `config_queues` and `map_queues`: the queues jobs can be submitted to, and which one each job
  goes to (`map_queues`, by `planner.io.hadoop.queue_map`'s rule, which also reads ``--queue-map`` items).
- `merged_files`: the exported folder: the operator's files with the `Levers` written in (every
  other byte kept), the submission schedule (``submissions.tsv``, ``submit.sh``), a README and
  ``changes.diff`` (`config_diff`); `export_levers` writes it, whole or not at all.
- `deployed_run`: the exported files read back (`planner.io.hadoop.conf.hadoop_run`), the run
  the planner simulates for every candidate: exactly what is deployed.

What a lever changes, by target (a lever left empty or None changes nothing):

- ``scheduler``: mrv1 ``mapred.jobtracker.taskScheduler`` (FIFO: JobQueueTaskScheduler, fair:
  FairScheduler), YARN ``yarn.resourcemanager.scheduler.class`` (FIFO, fair, capacity). Switching
  to fair without an allocation file adds ``fair-scheduler.xml`` and the allocation-file
  property; switching to capacity without capacity properties adds ``capacity-scheduler.xml``
  with one queue "default" at 100%.
- ``policies``, ``max_running``, ``weights`` (per queue): the fair scheduler's allocation file
  (mrv1 ``<pool>``: schedulingMode, maxRunningJobs, weight; YARN ``<queue>``, "a.b" being queue
  b inside queue a: schedulingPolicy, maxRunningApps, weight); a queue not there yet is added.
  ``caps`` (YARN's fair scheduler only): the queue's maxResources, the containers given times
  the configuration's container (``yarn.scheduler.minimum-allocation-mb`` and ``-vcores``).
  The capacity scheduler takes the policy as the queue's ``...root.QUEUE.ordering-policy`` (fifo
  or fair, YARN's FairOrderingPolicy); the simulator models no running-application limit or
  weight there.
- ``slowstart``: mrv1 ``mapred.reduce.slowstart.completed.maps``, YARN
  ``mapreduce.job.reduce.slowstart.completedmaps``, in mapred-site.xml.
- ``slots`` (mrv1 only): per-host slot groups (``tasktracker-N.xml`` and ``.hosts``, with
  ``topology.json`` unless the configuration has a nodes file), replacing any groups there.
- ``min_shares`` (Spark's lever): refused.
- ``priorities``: YARN raises ``yarn.cluster.max-application-priority`` to the largest level
  given; mrv1 has five levels, -2..2 (VERY_LOW..VERY_HIGH).
- ``order``, ``submits``, ``queues``, ``priorities``: the submission schedule. A job that waits for
  others (``after``) comes after them in the order and is submitted at least `SUBMIT_GAP` after
  each (an order that lists it first is refused); submit.sh holds it until they have finished.

A site property is changed where the files have it, under whichever of Hadoop's names for the
setting they use, else added to the file that holds it (created if absent). Files are edited as
XML with their prolog (declaration, licence comments) and everything after the root kept
verbatim and comments kept; a file no lever touches is kept byte for byte. Node resources
(memory, vcores, slot maxima) are never touched: only ``slots`` changes slots.
"""

from __future__ import annotations

import difflib
import hashlib
import math
import re
import shutil
import tempfile
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from models import Cluster, Workload
from models.checks import as_str
from models.errors import InvalidInput
from models.fileio import read_text, write_folder
from planner.io.hadoop.applied import HADOOP_TARGETS, SUBMIT_GAP
from planner.io.hadoop.conf import (
    EXPORT_NOTES,
    SITE_SETTINGS,
    HadoopSetup,
    container_size,
    expand_paths,
    hadoop_run,
    read_hadoop_conf,
)
from planner.io.hadoop.export import (
    CAPACITY_YARN,
    FAIR_MRV1,
    FAIR_YARN,
    FIFO_MRV1,
    FIFO_YARN,
    MRV1_PRIORITIES,
    file_place,
    host_names,
    schedule_files,
    site_xml,
    slot_group_files,
    topology_json,
    yarn_site,
)
from planner.io.hadoop.parsing import read_sls_nodes, site_properties
from planner.io.hadoop.plan_files import Submission, schedule_after, submission_order
from planner.io.hadoop.queue_map import queues_of, scheduler_kind, scheduler_queues
from planner.plans.levers import Levers
from planner.simulator.options import SimOptions
from planner.simulator.run import Run

#: What a previous export wrote beside the configuration: the operator's notes and the schedule.
NOT_CONFIGURATION = (*EXPORT_NOTES, "submissions.tsv", "phases.tsv")
#: Each scheduler's class, by target kind (mrv1 or YARN) and scheduler.
SCHEDULER_CLASS = {("mrv1", "fifo"): FIFO_MRV1, ("mrv1", "fair"): FAIR_MRV1, ("yarn", "fifo"): FIFO_YARN,
                   ("yarn", "fair"): FAIR_YARN, ("yarn", "capacity"): CAPACITY_YARN}
_CAPACITY = "yarn.scheduler.capacity."
_MAX_PRIORITY = "yarn.cluster.max-application-priority"


@dataclass(frozen=True)
class CurrentConfig:
    """The operator's configuration files as they are: name -> text (sorted by name), the paths
    they were read from, and ``default`` when they are a target's stock configuration made by
    `default_config` because none were given."""

    files: dict[str, str] = field(default_factory=dict)
    sources: tuple[str, ...] = ()
    default: bool = False

    @property
    def fingerprint(self) -> str:
        """A short sha256 of the files' names and texts (what a plan records it was made on)."""
        digest = hashlib.sha256()
        for name in sorted(self.files):
            digest.update(name.encode() + b"\0" + self.files[name].encode() + b"\0")
        return digest.hexdigest()[:16]


def read_current(paths: Iterable[str | Path]) -> CurrentConfig:
    """The configuration files in ``paths`` (files, or folders standing for the files in them):
    a previous export's notes and schedule (`NOT_CONFIGURATION`) are skipped; everything else must
    read as Hadoop's configuration (`read_hadoop_conf`: an error names the file). Two files of the
    same name from different folders are refused."""
    chosen = [path for path in expand_paths(paths) if path.name not in NOT_CONFIGURATION]
    named: dict[str, Path] = {}
    for path in chosen:
        if path.name in named:
            raise InvalidInput("hadoop_conf", f"two files named {path.name}: {named[path.name]} and {path}")
        named[path.name] = path
    read_hadoop_conf(chosen, warn=False)
    return CurrentConfig({name: read_text(named[name]) for name in sorted(named)},
                         tuple(str(path) for path in chosen))


def default_config(target: str, cluster: Cluster) -> CurrentConfig:
    """``target``'s stock configuration for ``cluster``: mrv1 the FIFO scheduler
    (JobQueueTaskScheduler) with the cluster's map and reduce slots per node; yarn-fair the fair
    scheduler with one queue "default" (fair policy); yarn-capacity the capacity scheduler with
    one queue "default" at 100%. Both YARN targets offer each node's slots as containers of
    1024 MB and 1 vcore (the minimum allocation), as `planner.io.hadoop.export` writes them."""
    target = as_str(target, "target", choices=HADOOP_TARGETS)
    if target == "mrv1":
        site = {"mapred.jobtracker.taskScheduler": FIFO_MRV1,
                "mapred.tasktracker.map.tasks.maximum": cluster.map_slots,
                "mapred.tasktracker.reduce.tasks.maximum": cluster.reduce_slots}
        return CurrentConfig({"mapred-site.xml": site_xml(site, "JobTracker and TaskTrackers: FIFO, slots per node")},
                             default=True)
    fair = target == "yarn-fair"
    yarn = yarn_site(cluster, fair)
    if fair:
        yarn["yarn.scheduler.fair.allocation.file"] = "fair-scheduler.xml"
        scheduler = {"fair-scheduler.xml": _FAIR_DEFAULT}
    else:
        scheduler = {"capacity-scheduler.xml": _CAPACITY_DEFAULT}
    files = {"yarn-site.xml": site_xml(yarn, "ResourceManager and NodeManagers: scheduler and containers"),
             **scheduler}
    return CurrentConfig(dict(sorted(files.items())), default=True)


_FAIR_DEFAULT = ('<?xml version="1.0"?>\n<allocations>\n  <queue name="default">\n'
                 "    <schedulingPolicy>fair</schedulingPolicy>\n  </queue>\n</allocations>\n")
_CAPACITY_DEFAULT = site_xml({_CAPACITY + "root.queues": "default", _CAPACITY + "root.default.capacity": 100,
                              _CAPACITY + "root.default.maximum-capacity": 100},
                             "the capacity scheduler's queues: one, the whole cluster")


def _setup(files: Mapping[str, str]) -> HadoopSetup:
    """Configuration files given as text, read (in a temporary folder)."""
    folder = Path(tempfile.mkdtemp(prefix="batchplan-conf-"))
    try:
        for name, text in files.items():
            (folder / name).write_text(text)
        return read_hadoop_conf([folder], warn=False)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _kind(setup: HadoopSetup) -> str:
    return scheduler_kind(setup.scheduler)


def _queues(setup: HadoopSetup) -> tuple[str, ...]:
    return scheduler_queues(setup.scheduler)


def config_queues(config: CurrentConfig, target: str) -> tuple[str, ...]:
    """The queues jobs can be submitted to under ``config``, named as the simulator names them:
    the fair scheduler's pools (a nested YARN queue by its path below root, "parent.child"), the
    capacity scheduler's leaf queues, or ("default",) for the FIFO scheduler."""
    as_str(target, "target", choices=HADOOP_TARGETS)
    return _queues(_setup(config.files))


def map_queues(workload: Workload, config: CurrentConfig, target: str,
               queue_map: Mapping[str, str] | None = None) -> dict[str, str]:
    """Job name -> the queue it is submitted to under ``config``. For each job, the first of:

    1. ``queue_map[job name]``;
    2. ``queue_map[job's pool]``;
    3. the job's pool, when it is a queue of the configuration (`config_queues`);
    4. ``queue_map["*"]``;
    5. by scheduler: the fair scheduler (MRv1 or YARN) creates a pool or queue named as the
       job's pool at submission (Hadoop's default placement), so the job's pool; the capacity
       scheduler has no such rule: the job is one `InvalidInput` naming it, its pool and the
       configuration's queues.

    Under the FIFO scheduler (MRv1's JobQueueTaskScheduler has one queue) every job goes to
    "default". A ``queue_map`` key that is neither a job, a pool of the workload nor "*" is
    refused (a typo), and on the capacity scheduler so is a value that is not one of its queues."""
    setup = _setup(config.files)
    return queues_of(workload, setup.scheduler, queue_map)






# --- editing the files --------------------------------------------------------------------------

_START = re.compile(r"\s*(?:<\?.*?\?>|<!--.*?-->)", re.DOTALL)


@dataclass
class _Xml:
    """One XML file being edited: the text before the root element and after it, kept verbatim,
    and the root with its comments."""

    prolog: str
    root: ElementTree.Element
    epilog: str
    changed: bool = False

    @classmethod
    def parse(cls, text: str, name: str) -> _Xml:
        position = 0
        while (match := _START.match(text, position)) is not None:
            position = match.end()
        position += len(text[position:]) - len(text[position:].lstrip())
        if "<!DOCTYPE" in text or "<!ENTITY" in text:
            raise InvalidInput("", "document type declarations and entities are not accepted", source=name)
        # Declarations refused above, as `parsing.read_xml` does: comments are kept for the merge.
        parser = ElementTree.XMLParser(target=ElementTree.TreeBuilder(insert_comments=True))  # noqa: S314
        try:
            parser.feed(text)
            root = parser.close()
        except ElementTree.ParseError as error:
            raise InvalidInput(f"line {error.position[0]}", "malformed XML", source=name) from None
        closing = f"</{root.tag}>"
        end = text.rfind(closing)
        end = end + len(closing) if end >= 0 else len(text.rstrip())
        return cls(text[:position], root, text[end:])


def _serialize(document: _Xml) -> str:
    """The document's text: prolog + root + epilog (the prolog's trailing whitespace is its own)."""
    return document.prolog + ElementTree.tostring(document.root, encoding="unicode") + document.epilog


def _append(parent: ElementTree.Element, child: ElementTree.Element, depth: int) -> None:
    """Add ``child`` as the last element of ``parent``, indented as its siblings are."""
    text = parent.text or ""
    inner = "  " * (depth + 1)
    if len(parent) and "\n" in text and not text.strip():
        inner = text[text.rfind("\n") + 1:]
    if len(parent) == 0:
        closing = (parent.text or "") if not (parent.text or "").strip() else "\n" + "  " * depth
        parent.text = "\n" + inner
        child.tail = closing if "\n" in closing else "\n" + "  " * depth
    else:
        last = parent[-1]
        closing = last.tail or ""
        if closing.strip() or "\n" not in closing:
            closing = "\n" + "  " * depth
        last.tail = closing[:closing.rfind("\n") + 1] + inner
        child.tail = closing
    parent.append(child)


def _element(tag: str, text: str | None = None, **attributes: str) -> ElementTree.Element:
    element = ElementTree.Element(tag, attributes)
    element.text = text
    return element


def _value_text(value: object) -> str:
    return repr(float(value)) if isinstance(value, float) else str(value)


class _Edit:
    """The configuration being merged: the files' texts, those parsed for editing, and which
    files were added or removed."""

    def __init__(self, config: CurrentConfig) -> None:
        self.texts = dict(config.files)
        self.parsed: dict[str, _Xml] = {}

    def xml(self, name: str) -> _Xml:
        if name not in self.parsed:
            self.parsed[name] = _Xml.parse(self.texts[name], name)
        return self.parsed[name]

    def roots(self, tag: str) -> list[str]:
        """The XML files whose root is ``tag`` (slot groups are not site files)."""
        found = []
        for name, text in self.texts.items():
            if not name.endswith(".xml") or name.removesuffix(".xml") + ".hosts" in self.texts:
                continue
            if re.search(rf"<{tag}[\s>/]", text) and self.xml(name).root.tag == tag:
                found.append(name)
        return found

    def add_file(self, name: str, text: str) -> None:
        self.texts[name] = text
        self.parsed.pop(name, None)

    def find(self, names: Sequence[str]) -> tuple[str, ElementTree.Element] | None:
        """The site property named by one of ``names`` (file, its value element)."""
        for file in self.roots("configuration"):
            for element in self.xml(file).root.findall("property"):
                name = element.find("name")
                if name is not None and (name.text or "").strip() in names:
                    value = element.find("value")
                    if value is None:
                        value = _element("value")
                        _append(element, value, 1)
                    return file, value
        return None

    def set(self, names: Sequence[str], value: object, home: str, comment: str = "site settings") -> None:
        """Set the site property (``names``: Hadoop's names for it, the first written when added)
        where the files have it, else in ``home`` (created if absent)."""
        text = _value_text(value)
        found = self.find(names)
        if found is not None:
            file, element = found
            if (element.text or "").strip() != text:
                element.text = text
                self.xml(file).changed = True
            return
        if home not in self.texts:
            self.add_file(home, site_xml({}, comment))
        document = self.xml(home)
        prop = _element("property")
        prop.append(_element("name", names[0]))
        prop.append(_element("value", text))
        _append(document.root, prop, 0)
        document.changed = True

    def files(self) -> dict[str, str]:
        for name, document in self.parsed.items():
            if document.changed:
                self.texts[name] = _serialize(document)
        return dict(sorted(self.texts.items()))


def _site_names(setting: str, preferred: str) -> tuple[str, ...]:
    """Hadoop's names for one setting of `SITE_SETTINGS`, ``preferred`` first."""
    return (preferred, *(name for name, kind in SITE_SETTINGS.items() if kind == setting and name != preferred))


def _mrv1_or_yarn(target: str) -> str:
    return "mrv1" if target == "mrv1" else "yarn"


def _switch_scheduler(edit: _Edit, kind: str, current: str, family: str) -> None:
    site = "mapred-site.xml" if family == "mrv1" else "yarn-site.xml"
    names = (("mapred.jobtracker.taskScheduler", "mapreduce.jobtracker.taskscheduler") if family == "mrv1"
             else ("yarn.resourcemanager.scheduler.class",))
    if (family, kind) not in SCHEDULER_CLASS:
        raise InvalidInput("levers.scheduler", f"{kind} is not a scheduler of the mrv1 target (fifo, fair)")
    found = edit.find(names)
    if kind != current or found is None:
        named = None if found is None else (found[1].text or "").strip().rsplit(".", 1)[-1]
        if found is None or named != SCHEDULER_CLASS[family, kind].rsplit(".", 1)[-1]:
            edit.set(names, SCHEDULER_CLASS[family, kind], site)
    if kind == "fair" and not edit.roots("allocations"):
        _add_allocation_file(edit, family)
    if kind == "capacity" and not any(_CAPACITY in edit.texts[name] for name in edit.roots("configuration")):
        edit.add_file("capacity-scheduler.xml", _CAPACITY_DEFAULT)


def _add_allocation_file(edit: _Edit, family: str) -> None:
    """An empty fair-scheduler.xml, named as the allocation file in the site file (a configuration
    that runs the fair scheduler on its defaults has none)."""
    name = "fair-scheduler.xml"
    edit.add_file(name, '<?xml version="1.0"?>\n<!-- the fair scheduler\'s pools and queues -->\n'
                        "<allocations>\n</allocations>\n")
    prefix = "mapred.fairscheduler" if family == "mrv1" else "yarn.scheduler.fair"
    site = "mapred-site.xml" if family == "mrv1" else "yarn-site.xml"
    edit.set((f"{prefix}.allocation.file",), name, site)


def _queue_element(edit: _Edit, queue: str, family: str) -> tuple[_Xml, ElementTree.Element, int]:
    """The allocation file's element for ``queue`` (added when missing, and the file too), with its depth."""
    if not edit.roots("allocations"):
        _add_allocation_file(edit, family)
    (name, *_) = edit.roots("allocations")
    document = edit.xml(name)
    tag = "pool" if family == "mrv1" else "queue"
    other = "queue" if family == "mrv1" else "pool"
    if document.root.find(other) is not None and document.root.find(tag) is None:
        raise InvalidInput(f"levers.queues ({queue})", f"the allocation file holds <{other}> elements; the "
                                                       f"{family} target's are <{tag}>", source=name)
    parent, depth = document.root, 1
    top = next((e for e in parent.findall("queue") if e.get("name") == "root"), None) if tag == "queue" else None
    if top is not None:
        parent, depth = top, 2
    for part in queue.split(".") if tag == "queue" else [queue]:
        element = next((e for e in parent.findall(tag) if (e.get("name") or "").strip() == part), None)
        if element is None:
            element = _element(tag, name=part)
            _append(parent, element, depth - 1)
            document.changed = True
        parent, depth = element, depth + 1
    return document, parent, depth - 1


def _set_child(document: _Xml, element: ElementTree.Element, depth: int, tags: Sequence[str], value: object) -> None:
    """Set the child ``tags[0]`` (or whichever of ``tags`` the element has) of ``element``."""
    text = _value_text(value)
    child = next((c for c in element if c.tag in tags), None)
    if child is None:
        _append(element, _element(tags[0], text), depth)
        document.changed = True
    elif (child.text or "").strip() != text:
        child.text = text
        document.changed = True


def _queue_levers(edit: _Edit, levers: Levers, kind: str, family: str, queues: tuple[str, ...]) -> None:
    if not (levers.policies or levers.max_running or levers.weights or levers.caps):
        return
    if levers.caps and (kind != "fair" or family == "mrv1"):
        raise InvalidInput("levers.caps", "caps are YARN fair-scheduler queues' maxResources: the yarn-fair "
                                          "target's lever")
    for queue in levers.caps:
        if any(leaf.startswith(queue + ".") for leaf in queues):
            raise InvalidInput(f"levers.caps.{queue}", "is a parent queue: a cap applies to a leaf queue (the "
                                                       "simulator caps leaves only)")
    if kind == "fifo":
        raise InvalidInput("levers.policies", "the FIFO scheduler has one queue and no queue settings "
                                              "(policies, max_running and weights need the fair scheduler)")
    if kind == "capacity":
        if levers.max_running or levers.weights:
            which = "levers.max_running" if levers.max_running else "levers.weights"
            raise InvalidInput(which, "the capacity scheduler's queues take no running-application limit or "
                                      "weight here (the simulator models neither for capacity queues)")
        for queue, policy in levers.policies.items():
            if queue not in queues:
                raise InvalidInput(f"levers.policies.{queue}", f"no queue named {queue!r}; queues: "
                                                               f"{', '.join(queues)}")
            (home, *_) = [name for name in edit.roots("configuration") if _CAPACITY in edit.texts[name]]
            edit.set((f"{_CAPACITY}root.{queue}.ordering-policy",), policy, home)
        return
    mrv1 = family == "mrv1"
    settings = ((levers.policies, ("schedulingMode",) if mrv1 else ("schedulingPolicy", "schedulingMode")),
                (levers.max_running, ("maxRunningJobs",) if mrv1 else ("maxRunningApps",)),
                (levers.weights, ("weight",)),
                ({queue: _resources(edit, count) for queue, count in levers.caps.items()}, ("maxResources",)))
    for values, tags in settings:
        for queue, value in values.items():
            document, element, depth = _queue_element(edit, queue, family)
            _set_child(document, element, depth, tags, value)


def _resources(edit: _Edit, containers: int) -> str:
    """``containers`` of the configuration's size (`planner.io.hadoop.conf.container_size`) as a
    YARN resource ("N mb, M vcores", whole numbers: YARN reads no exponent)."""
    site = {SITE_SETTINGS[name]: (value, file, place) for file in edit.roots("configuration")
            for name, (value, place) in site_properties(edit.xml(file).root, file).items() if name in SITE_SETTINGS}
    memory, vcores = container_size(site)
    return f"{math.ceil(containers * memory)} mb, {math.ceil(containers * vcores)} vcores"


def _slot_levers(edit: _Edit, slots: tuple[int, int], cluster: Cluster) -> None:
    groups = [name for name in edit.texts if name.endswith(".hosts") and name.removesuffix(".hosts") + ".xml"
              in edit.texts]
    for name in groups:
        del edit.texts[name]
        stem = name.removesuffix(".hosts") + ".xml"
        edit.texts.pop(stem)
        edit.parsed.pop(stem, None)
    nodes = [name for name in edit.texts if name.endswith(".json")]
    if nodes:
        folder = Path(tempfile.mkdtemp(prefix="batchplan-nodes-"))
        try:
            (folder / nodes[0]).write_text(edit.texts[nodes[0]])
            hosts = [host for rack in read_sls_nodes(folder / nodes[0]).racks.values() for host in rack]
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    else:
        edit.add_file("topology.json", topology_json(cluster))
        hosts = [host for rack in host_names(cluster) for host in rack]
    for name, text in slot_group_files(slots[0], slots[1], hosts).items():
        edit.add_file(name, text)


def _priority_levers(edit: _Edit, levers: Levers, family: str) -> None:
    if not levers.priorities or family == "mrv1":
        return
    highest = max(levers.priorities.values())
    found = edit.find((_MAX_PRIORITY,))
    current = 0
    if found is not None:
        try:
            current = int((found[1].text or "0").strip())
        except ValueError:
            raise InvalidInput(_MAX_PRIORITY, f"must be an integer, got {found[1].text!r}", source=found[0]) from None
    if highest > current:
        edit.set((_MAX_PRIORITY,), highest, "yarn-site.xml", "ResourceManager")


def _schedule(levers: Levers, workload: Workload, queues: Mapping[str, str], family: str,
              ready_now: bool) -> tuple[Submission, ...]:
    """The submission schedule (module docstring): rows in the levers' order, else by arrival."""
    jobs = {job.name: job for job in workload}
    order = submission_order(levers, workload, SUBMIT_GAP, ready_now)
    schedule: list[Submission] = []
    placed: dict[str, float] = {}
    for name in order:
        job = jobs[name]
        at = levers.submits.get(name, 0.0 if ready_now else job.submit)
        for dependency in job.after:  # a job is submitted after the jobs it waits for (submit.sh waits for them too)
            if dependency.job not in placed:
                raise InvalidInput("levers.order", f"submits {name!r} before {dependency.job!r}, which it waits for "
                                                   "(after): list every job after its predecessors")
            at = max(at, placed[dependency.job] + SUBMIT_GAP)
        placed[name] = at
        if schedule and at < schedule[-1].at:
            raise InvalidInput(f"levers.submits.{name}", f"{at:g} s is before {schedule[-1].job!r} at "
                                                         f"{schedule[-1].at:g} s, which comes before it in the order")
        priority = levers.priorities.get(name, job.priority)
        if family == "mrv1" and priority not in MRV1_PRIORITIES:
            which = f"levers.priorities.{name}" if name in levers.priorities else f"jobs[{name!r}].priority"
            raise InvalidInput(which, f"MRv1 has five priorities, -2..2 (VERY_LOW..VERY_HIGH), got {priority}")
        schedule.append(Submission(name, at, levers.queues[name] if name in levers.queues else queues[name],
                                   priority))
    if workload.has_dependencies:
        schedule = [replace(row, after=after) for row, after in zip(schedule, schedule_after(workload, order),
                                                                      strict=True)]
    return tuple(schedule)


def merged_files(config: CurrentConfig, levers: Levers, workload: Workload, cluster: Cluster, target: str, *,
                 ready_now: bool = False) -> dict[str, str]:
    """The exported folder, name -> text: ``config``'s files with ``levers`` written in (module
    docstring), the submission schedule (``submissions.tsv``, ``submit.sh``), a README.md and
    ``changes.diff`` (`config_diff`). ``Levers()`` keeps every configuration file byte for byte.
    ``ready_now``: jobs without a submit time in the levers are submitted at 0."""
    target = as_str(target, "target", choices=HADOOP_TARGETS)
    if levers.min_shares:
        raise InvalidInput("levers.min_shares", f"minShare is a Spark pool's lever; {target} takes none (plan for "
                                                "spark, or leave it out)")
    family = _mrv1_or_yarn(target)
    before = _setup(config.files)
    current = _kind(before)
    kind = levers.scheduler or current
    edit = _Edit(config)
    if levers.scheduler is not None:
        _switch_scheduler(edit, levers.scheduler, current, family)
    if levers.slots is not None:
        if family != "mrv1":
            raise InvalidInput("levers.slots", f"{target} runs containers: a slot split is an mrv1 lever")
        _slot_levers(edit, levers.slots, cluster)
    queues = _queues(_setup(edit.files())) if levers.scheduler is not None else _queues(before)
    _queue_levers(edit, levers, kind, family, queues)
    if levers.slowstart is not None:
        preferred = ("mapred.reduce.slowstart.completed.maps" if family == "mrv1"
                     else "mapreduce.job.reduce.slowstart.completedmaps")
        edit.set(_site_names("reduce_slowstart", preferred), levers.slowstart, "mapred-site.xml",
                 "MapReduce: reduce slow-start")
    _priority_levers(edit, levers, family)
    files = edit.files()
    after = _setup(files) if files != config.files else before
    unmapped = {name: queue for name, queue in levers.queues.items()}
    if kind == "capacity":
        listed = _queues(after)
        wrong = next((name for name, queue in unmapped.items() if queue not in listed), None)
        if wrong is not None:
            raise InvalidInput(f"levers.queues.{wrong}", f"no queue named {unmapped[wrong]!r}; queues: "
                                                         f"{', '.join(listed)}")
    # The jobs left in their queues, only to map them to queues: their dependencies may name a moved job.
    rest = Workload([job.with_changes(after=()) for job in workload if job.name not in levers.queues],
                    name=workload.name)
    mapped = queues_of(rest, after.scheduler)
    schedule = _schedule(levers, workload, mapped, family, ready_now)
    exported = {**files, **schedule_files(schedule, target)}
    exported["changes.diff"] = config_diff(config, files)
    exported["README.md"] = _readme(config, levers, target, exported)
    return dict(sorted(exported.items()))


def config_diff(config: CurrentConfig, files: Mapping[str, str]) -> str:
    """A unified diff of every configuration file of ``files`` (not `NOT_CONFIGURATION`) against
    ``config``'s ("a/NAME" against "b/NAME"; a file added is diffed against /dev/null, one
    removed to it); empty when nothing changes."""
    changed = {name: text for name, text in files.items() if name not in NOT_CONFIGURATION}
    parts: list[str] = []
    for name in sorted(set(config.files) | set(changed)):
        old, new = config.files.get(name), changed.get(name)
        if old == new:
            continue
        lines = difflib.unified_diff(_lines(old), _lines(new), "/dev/null" if old is None else f"a/{name}",
                                     "/dev/null" if new is None else f"b/{name}")
        parts.extend(lines)
    return "".join(parts)


def _lines(text: str | None) -> list[str]:
    if text is None:
        return []
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines




def _readme(config: CurrentConfig, levers: Levers, target: str, files: Mapping[str, str]) -> str:
    source = ("the target's default configuration (no files were given)" if config.default
              else f"your configuration ({len(config.files)} file(s), fingerprint {config.fingerprint})")
    changed = [name for name in files if name not in NOT_CONFIGURATION and files[name] != config.files.get(name)]
    removed = [name for name in config.files if name not in files]
    lines = [f"# A plan for {target}, merged into your configuration", "",
             f"Made by `planner export` from {source}. Every file is yours as it was, with the plan's settings "
             "written in; `changes.diff` shows each change.", "",
             "| file | where it goes | changed |", "|---|---|---|"]
    for name in files:
        where = file_place(name, files[name], "where it was")
        mark = "" if name in NOT_CONFIGURATION else ("new" if name not in config.files else
                                                      "yes" if name in changed else "no")
        lines.append(f"| {name} | {where} | {mark} |")
    lines += ["", "## What changes", ""]
    for name in changed:
        if name in config.files:
            lines.append(f"- {name}: changed")
        elif config.default or name.startswith("tasktracker-"):
            lines.append(f"- {name}: added")
        else:  # a site file the configuration given did not include: the operator has one already
            lines.append(f"- {name}: NEW here, because the files given did not include it: do not copy it over "
                         f"your own {name}; add its properties to it (or give your {name} with --hadoop-conf "
                         "and export again)")
    lines += [f"- {name}: removed (replaced by the plan's slot groups)" for name in removed]
    if not changed and not removed:
        lines.append("- Nothing: keep your configuration; only the submission schedule is new.")
    lines += ["", "## Submission", "",
              "Submit asynchronously; the order is kept by priorities and submission times. `submit.sh` submits "
              "each job in the background at its time in submissions.tsv, into its queue and at its priority, "
              "so a submission command that blocks until its job ends does not run the batch one job after "
              "another; it waits for every submission and exits non-zero if any failed.", "",
              "Caveat: the order among jobs of one priority level rests on their submission times (the "
              "script keeps fractions of a second where `date +%N` works); a plan made by `planner plan "
              "--target` submits jobs that arrive together at one level a second apart, and simulates them "
              "so. A submit command whose time to reach the scheduler varies by more than that may swap "
              "neighbours. YARN honours application priorities under the capacity scheduler, up to "
              "`yarn.cluster.max-application-priority`; its fair scheduler does not order applications by "
              "priority.", "",
              "Check it before applying: `planner simulate WORKLOAD -c CLUSTER --hadoop-conf THIS_FOLDER`.", ""]
    if "\tafter" in files.get("submissions.tsv", "").partition("\n")[0]:
        lines += ["Jobs that wait for jobs: submissions.tsv's column `after` lists the rows each job waits for "
                  "(`ROW`, or `ROW+DELAY` in seconds). `submit.sh` holds such a job until those rows' submissions "
                  "have returned successfully, then the delay, so the submit command must return when its job has "
                  "finished (as `hadoop jar` does); a job whose predecessor failed is never submitted.", ""]
    return "\n".join(lines)


def export_levers(levers: Levers, workload: Workload, cluster: Cluster, target: str, folder: str | Path, *,
                  current: CurrentConfig | None = None, ready_now: bool = False) -> list[str]:
    """Write `merged_files` (into ``current``, or the target's `default_config` for ``cluster``)
    as ``folder``, whole or not at all (`models.fileio.write_folder`; submit.sh executable); returns the names."""
    config = current if current is not None else default_config(target, cluster)
    files = merged_files(config, levers, workload, cluster, target, ready_now=ready_now)
    return write_folder(files, folder, executable=("submit.sh",))


def deployed_run(files: Mapping[str, str], workload: Workload, cluster: Cluster, *,
                 options: SimOptions | None = None) -> Run:
    """The run ``files`` (an exported folder's, e.g. `merged_files`) configure, read back exactly
    as ``planner simulate --hadoop-conf`` reads the folder (`hadoop_run`; ``options`` are the base
    the files' settings go on top of): how the planner simulates a candidate as deployed. The
    run's jobs are ``workload``'s, in its order (`plan_files.submitted`), each with the time,
    queue and priority the schedule gives it."""
    folder = Path(tempfile.mkdtemp(prefix="batchplan-deployed-"))
    try:
        for name, text in files.items():
            (folder / name).write_text(text)
        return hadoop_run([folder], workload, cluster, base=options, warn=False)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
