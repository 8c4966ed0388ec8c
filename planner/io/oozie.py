"""The Oozie importer: a workflow (``workflow-app`` XML, any schema version) as a batch of jobs
that wait for jobs.

What a workflow's nodes become (docs/profiles-and-importers.md, "Oozie", says it for users):

- an action that runs on the cluster (every type but `OOZIE_LOCAL_ACTIONS`: map-reduce, pig, hive,
  sqoop, distcp, spark, java, shell, and custom types) is a `Job` named after the action, its
  ``after`` the nearest cluster jobs before it (one already waited for through another is left
  out); its tasks and times come from a trace job (`read_oozie`'s matching rule);
- fs, ssh and email actions do not run on the cluster: they pass their dependencies through (the
  job after an fs step waits for the jobs before it), since a job needs tasks and these have none;
- start, end, kill, fork and join are control: a join waits for every path that reaches it;
- a decision is taken as all of its branches (every branch's jobs are in the batch; a node that
  several branches reach waits for all of them): the batch a plan must hold whichever way it goes;
- a sub-workflow is inlined when its workflow is a local file (``sub_workflows``, or an app-path
  that names a local file or folder), its jobs named ``ACTION/CHILD``; otherwise it is refused;
- error transitions are checked (they must name a node) but not followed: the batch is the
  workflow's successful run.

The queue (``mapreduce.job.queuename`` or ``mapred.job.queue.name`` in the action's
configuration, else in ``<global>``) is the job's pool; ``${NAME}`` in it is resolved from a
job.properties file (``properties``), then the workflow's ``<parameters>`` defaults; an EL
function or an undefined name is refused. A coordinator (``coordinator-app``) is a run of its
workflow per nominal time from start to end (`_read_coordinator`: jobs named ``TIME/ACTION``,
submitted at their nominal time, each run waiting for run k - concurrency); its datasets and input
events are not read (the data is taken as there at the nominal time). Errors name the file and the
element:
``wf.xml: action[mr-node].ok.to: 'nxt' is not a node of the workflow``.
"""

from __future__ import annotations

import heapq
import os
import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from models import InvalidInput, Job, Workload
from models.checks import as_instance, as_path, as_str, key_name, shown
from models.fileio import read_mapping, read_text
from models.limits import MAX_JOBS
from planner.io.xml_files import read_xml

__all__ = ["MAX_COORDINATOR_RUNS", "MAX_SUB_WORKFLOW_DEPTH", "OOZIE_LOCAL_ACTIONS", "OOZIE_QUEUE_KEYS",
           "read_job_properties", "read_oozie"]

#: Action types that do not run on the cluster: they pass their dependencies through.
OOZIE_LOCAL_ACTIONS = ("fs", "ssh", "email")
#: Configuration keys that name the queue, in the order they are looked up (Hadoop 2's name first).
OOZIE_QUEUE_KEYS = ("mapreduce.job.queuename", "mapred.job.queue.name")
#: Sub-workflows inlined within sub-workflows, at most this deep.
MAX_SUB_WORKFLOW_DEPTH = 8
#: A variable's value may refer to other variables, at most this deep.
_MAX_RESOLVE_DEPTH = 20
#: Oozie's node names: a letter or underscore, then letters, digits, - and _ (its schema's IDENTIFIER).
_NODE_NAME = re.compile(r"[A-Za-z_][-\w]{0,99}", re.ASCII)
_EXPRESSION = re.compile(r"\$\{([^}]*)\}")
_VARIABLE = re.compile(r"[A-Za-z_][-\w.]*", re.ASCII)
_CONTROL = ("start", "end", "kill", "decision", "fork", "join")
_IGNORED = ("parameters", "global", "credentials")


def _local(tag: object) -> str:
    """An element's name without its namespace (``{uri:oozie:workflow:0.5}action`` -> ``action``)."""
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def _namespace(tag: str) -> str:
    return tag[1:].partition("}")[0] if tag.startswith("{") else ""


# -- variables: job.properties and <parameters> ------------------------------------------------------


def read_job_properties(path: str | Path) -> dict[str, str]:
    """A Java properties file (Oozie's job.properties) as name -> value.

    ``NAME=VALUE``, ``NAME: VALUE`` or ``NAME VALUE`` per line; ``#`` and ``!`` start a comment
    line; a line ending in a backslash goes on in the next line; ``\\t``, ``\\n``, ``\\uXXXX`` and an
    escaped separator are unescaped. A name given twice is refused (Java takes the last: a
    copy-paste slip), naming the line.
    """
    source = str(as_path(path, "properties"))
    found: dict[str, str] = {}
    lines: dict[str, int] = {}
    pending = ""
    first = 0
    for number, raw in enumerate(read_text(path).splitlines(), start=1):
        text = raw.lstrip() if pending else raw.strip()
        if not pending:
            first = number
            if not text or text[0] in "#!":
                continue
        trailing = len(text) - len(text.rstrip("\\"))
        if trailing % 2:
            pending += text[:-1]
            continue
        name, value = _property(pending + text, f"line {first}", source)
        pending = ""
        if name in found:
            raise InvalidInput(f"line {first} ({key_name(name)})", f"given twice (also line {lines[name]})",
                               source=source)
        found[name], lines[name] = value, first
    if pending:
        name, value = _property(pending, f"line {first}", source)
        if name in found:
            raise InvalidInput(f"line {first} ({key_name(name)})", f"given twice (also line {lines[name]})",
                               source=source)
        found[name] = value
    return found


def _property(line: str, where: str, source: str) -> tuple[str, str]:
    name: list[str] = []
    value: list[str] = []
    escaped = in_value = False
    position = 0
    while position < len(line):
        char = line[position]
        position += 1
        if escaped:
            if char == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", line[position:position + 4]):
                char = chr(int(line[position:position + 4], 16))
                position += 4
            else:
                char = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}.get(char, char)
            (value if in_value else name).append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif not in_value and char in "=: \t\f":
            rest = line[position - 1:].lstrip(" \t\f")
            if rest[:1] in ("=", ":"):
                rest = rest[1:].lstrip(" \t\f")
            position = len(line) - len(rest)
            in_value = True
        else:
            (value if in_value else name).append(char)
    key = "".join(name)
    if not key:
        raise InvalidInput(where, "has no property name", source=source)
    return key, "".join(value)


@dataclass(frozen=True)
class _Value:
    text: str
    #: The scope its own ${...} resolve in; None: the scope it was found in.
    scope: _Scope | None = None


@dataclass(frozen=True)
class _Scope:
    """The variables a workflow's EL sees, in layers looked up in order."""

    layers: tuple[Mapping[str, _Value], ...]
    hint: str

    def value(self, name: str) -> tuple[_Value, _Scope] | None:
        for layer in self.layers:
            if name in layer:
                found = layer[name]
                return found, found.scope or self
        return None

    def resolve(self, text: str, where: str, source: str, depth: int = 0) -> str:
        """``text`` with every ``${NAME}`` replaced by its value; an EL function or an undefined
        name is `InvalidInput` naming ``where``."""
        if "${" not in text:
            return text
        if depth > _MAX_RESOLVE_DEPTH:
            raise InvalidInput(where, f"variables refer to each other more than {_MAX_RESOLVE_DEPTH} levels deep "
                                      "(a loop?)", source=source)

        def replace(match: re.Match) -> str:
            expression = match.group(1).strip()
            if not _VARIABLE.fullmatch(expression):
                raise InvalidInput(where, f"{shown(match.group(0))} is an EL expression; only ${{NAME}} variables "
                                          "are resolved", source=source)
            found = self.value(expression)
            if found is None:
                raise InvalidInput(where, f"${{{expression}}} is not defined; {self.hint}", source=source)
            value, scope = found
            return scope.resolve(value.text, where, source, depth + 1)

        return _EXPRESSION.sub(replace, text)


# -- the workflow's graph ---------------------------------------------------------------------------


@dataclass
class _Node:
    """A node of the (inlined) workflow graph: ``key`` is its name with the sub-workflow prefix."""

    key: str
    kind: str  # start, end, kill, decision, fork, join, action, local, sub
    sequence: int
    next: list[str] = field(default_factory=list)
    pool: str | None = None
    action: str = ""  # the action's own name, for matching a trace job
    source: str = ""
    submit: float = 0.0  # a coordinator's run: its nominal time, seconds after the first run's


@dataclass
class _Graph:
    nodes: dict[str, _Node] = field(default_factory=dict)
    counter: int = 0
    added: list[_Node] = field(default_factory=list)
    #: The coordinator's name when the file is one.
    coordinator: str | None = None

    def add(self, key: str, kind: str, source: str, **extra: Any) -> _Node:
        if len(self.nodes) >= 4 * MAX_JOBS:
            raise InvalidInput("", f"the workflow and its sub-workflows have more than {4 * MAX_JOBS:,} nodes",
                               source=source)
        self.counter += 1
        node = _Node(key, kind, self.counter, source=source, **extra)
        self.nodes[key] = node
        self.added.append(node)
        return node


@dataclass(frozen=True)
class _Options:
    properties: Mapping[str, _Value]
    sub_workflows: Mapping[str, str | os.PathLike]
    hint: str


def _text(element: ElementTree.Element) -> str:
    return (element.text or "").strip()


def _children(element: ElementTree.Element, name: str) -> list[ElementTree.Element]:
    return [child for child in element if _local(child.tag) == name]


def _configuration(element: ElementTree.Element | None, where: str, source: str) -> dict[str, str]:
    """The ``<configuration><property><name/><value/></property></configuration>`` of an element."""
    found: dict[str, str] = {}
    if element is None:
        return found
    for block in _children(element, "configuration"):
        for position, item in enumerate(_children(block, "property")):
            at = f"{where}.configuration.property[{position}]"
            names = _children(item, "name")
            if not names or not _text(names[0]):
                raise InvalidInput(at, "has no <name>", source=source)
            name = _text(names[0])
            values = _children(item, "value")
            found[name] = _text(values[0]) if values else ""
    return found


def _attribute(element: ElementTree.Element, name: str, where: str, source: str) -> str:
    value = (element.get(name) or "").strip()
    if not value:
        raise InvalidInput(f"{where}.{name}", "is missing", source=source)
    return value


def _read_workflow(path: str | os.PathLike, graph: _Graph, prefix: str, scope_layers: tuple[Mapping[str, _Value], ...],
                   options: _Options, stack: tuple[str, ...]) -> tuple[str, str, str]:
    """Add a workflow's nodes to ``graph`` under ``prefix``; (its name, its start's key, its end's key)."""
    source = str(path)
    root = read_xml(path)
    kind = _local(root.tag)
    if kind == "coordinator-app":
        if prefix:
            raise InvalidInput("coordinator-app", "a sub-workflow must be a <workflow-app>", source=source)
        return _read_coordinator(root, source, graph, _Scope(scope_layers, options.hint), options, stack)
    workflow_ns = _namespace(root.tag)
    if kind != "workflow-app" or (workflow_ns and not workflow_ns.startswith("uri:oozie:workflow:")):
        raise InvalidInput(kind[:40] or "root", "must be an Oozie <workflow-app>", source=source)
    name = (root.get("name") or "").strip() or Path(source).stem
    parameters: dict[str, _Value] = {}
    for block in _children(root, "parameters"):
        for position, item in enumerate(_children(block, "property")):
            names = _children(item, "name")
            if not names or not _text(names[0]):
                raise InvalidInput(f"parameters.property[{position}]", "has no <name>", source=source)
            values = _children(item, "value")
            if values:
                parameters[_text(names[0])] = _Value(_text(values[0]))
    scope = _Scope((*scope_layers, parameters), options.hint)
    global_conf: dict[str, str] = {}
    for block in _children(root, "global"):
        global_conf.update(_configuration(block, "global", source))

    elements: dict[str, tuple[str, ElementTree.Element]] = {}
    start: ElementTree.Element | None = None
    for position, child in enumerate(root):
        if not isinstance(child.tag, str):  # a comment or processing instruction
            continue
        tag = _local(child.tag)
        if _namespace(child.tag) != workflow_ns or tag in _IGNORED:
            continue  # sla:info and other namespaces' elements, parameters, global, credentials
        if tag == "start":
            if start is not None:
                raise InvalidInput(f"start[{position}]", "a workflow has one <start>", source=source)
            start = child
            continue
        if tag not in (*_CONTROL, "action"):
            raise InvalidInput(f"{tag[:40]}[{position}]", "is not an element of an Oozie workflow", source=source)
        node_name = _attribute(child, "name", f"{tag}[{position}]", source)
        if not _NODE_NAME.fullmatch(node_name):
            raise InvalidInput(f"{tag}[{position}].name", f"{shown(node_name)} is not a node name (a letter or _, "
                                                           "then letters, digits, - and _)", source=source)
        if node_name in elements:
            raise InvalidInput(f"{tag}[{node_name}]", f"a second node named {node_name!r} "
                                                     f"(also a <{elements[node_name][0]}>)", source=source)
        elements[node_name] = (tag, child)
    if start is None:
        raise InvalidInput("start", "the workflow has no <start>", source=source)
    start_to = _attribute(start, "to", "start", source)
    ends = [node_name for node_name, (tag, _) in elements.items() if tag == "end"]
    if len(ends) != 1:
        raise InvalidInput("end", f"a workflow has one <end>, this one {len(ends)}", source=source)

    def target(node_name: str, where: str) -> str:
        if node_name not in elements:
            raise InvalidInput(where, f"{shown(node_name)} is not a node of the workflow", source=source)
        return prefix + node_name

    start_key = prefix + ":start"
    graph.add(start_key, "start", source, next=[target(start_to, "start.to")])
    for node_name, (tag, element) in elements.items():
        where = f"{tag}[{node_name}]"
        key = prefix + node_name
        if tag in ("end", "kill"):
            graph.add(key, tag, source)
        elif tag == "join":
            graph.add(key, tag, source, next=[target(_attribute(element, "to", where, source), f"{where}.to")])
        elif tag == "fork":
            paths = _children(element, "path")
            if not paths:
                raise InvalidInput(where, "a fork needs <path start=...> elements", source=source)
            graph.add(key, tag, source, next=[target(_attribute(path_, "start", f"{where}.path[{i}]", source),
                                                     f"{where}.path[{i}].start") for i, path_ in enumerate(paths)])
        elif tag == "decision":
            switches = _children(element, "switch")
            if len(switches) != 1:
                raise InvalidInput(f"{where}.switch", "a decision has one <switch>", source=source)
            cases = [(f"{where}.switch.case[{i}].to", case) for i, case in enumerate(_children(switches[0], "case"))]
            defaults = _children(switches[0], "default")
            if len(defaults) != 1:
                raise InvalidInput(f"{where}.switch.default", "a decision has one <default to=...>", source=source)
            cases.append((f"{where}.switch.default.to", defaults[0]))
            branches = [target(_attribute(case, "to", at.rpartition(".")[0], source), at) for at, case in cases]
            graph.add(key, tag, source, next=list(dict.fromkeys(branches)))  # all branches (see the module's doc)
        else:
            _action(element, where, node_name, graph, prefix, scope, global_conf, options, stack, source, target)
    end_key = prefix + ends[0]
    return name, start_key, end_key


def _action(element: ElementTree.Element, where: str, node_name: str, graph: _Graph, prefix: str, scope: _Scope,
            global_conf: dict[str, str], options: _Options, stack: tuple[str, ...], source: str,
            target: Any) -> None:
    transitions: dict[str, list[ElementTree.Element]] = {"ok": [], "error": []}
    bodies = []
    for child in element:
        if not isinstance(child.tag, str):
            continue
        tag = _local(child.tag)
        if tag in transitions:
            transitions[tag].append(child)
        else:
            bodies.append(child)
    for tag, found in transitions.items():
        if len(found) != 1:
            raise InvalidInput(f"{where}.{tag}", f"an action has one <{tag} to=...>, this one {len(found)}",
                               source=source)
    ok = target(_attribute(transitions["ok"][0], "to", f"{where}.ok", source), f"{where}.ok.to")
    target(_attribute(transitions["error"][0], "to", f"{where}.error", source), f"{where}.error.to")  # checked only
    if len(bodies) != 1:
        problem = "has no action type element (map-reduce, pig, fs, ...)" if not bodies else \
            f"has {len(bodies)} action type elements ({', '.join(_local(b.tag)[:40] for b in bodies[:4])})"
        raise InvalidInput(where, problem, source=source)
    body = bodies[0]
    action_type = _local(body.tag)
    key = prefix + node_name
    if action_type in OOZIE_LOCAL_ACTIONS:
        graph.add(key, "local", source, next=[ok])
    elif action_type == "sub-workflow":
        _sub_workflow(body, f"{where}.sub-workflow", node_name, key, ok, graph, scope, options, stack, source)
    else:
        conf = _configuration(body, f"{where}.{action_type}", source)
        if not any(queue_key in conf for queue_key in OOZIE_QUEUE_KEYS):  # the action's own queue, else <global>'s
            conf = global_conf
        pool = None
        for queue_key in OOZIE_QUEUE_KEYS:
            if queue_key in conf:
                at = f"{where if conf is not global_conf else 'global'}.configuration.{queue_key}"
                value = scope.resolve(conf[queue_key], at, source).strip()
                if not value:
                    raise InvalidInput(at, "is empty", source=source)
                if pool is not None and value != pool:
                    raise InvalidInput(at, f"names queue {value!r}, {OOZIE_QUEUE_KEYS[0]} {pool!r}", source=source)
                pool = value
        graph.add(key, "action", source, next=[ok], pool=pool, action=node_name)


def _sub_workflow(body: ElementTree.Element, where: str, node_name: str, key: str, ok: str, graph: _Graph,
                  scope: _Scope, options: _Options, stack: tuple[str, ...], source: str) -> None:
    given = options.sub_workflows.get(key, options.sub_workflows.get(node_name))
    app_paths = _children(body, "app-path")
    app_path = _text(app_paths[0]) if app_paths else ""
    local = Path(given) if given is not None else _local_app_path(app_path, scope, Path(source).parent)
    if local is None:
        raise InvalidInput(f"{where}.app-path", f"{shown(app_path)} is not a local file; give the child "
                                                f"workflow's file (sub_workflows={{{node_name!r}: FILE}}, "
                                                f"--sub-workflow {node_name}=FILE)", source=source)
    child = local / "workflow.xml" if local.is_dir() else local
    if len(stack) > MAX_SUB_WORKFLOW_DEPTH:  # the top workflow and its sub-workflows so far
        raise InvalidInput(where, f"sub-workflows nest more than {MAX_SUB_WORKFLOW_DEPTH} deep", source=source)
    resolved = os.path.realpath(child)
    if resolved in stack:
        raise InvalidInput(where, f"{child} starts itself (a sub-workflow of its own)", source=source)
    # The child sees the action's configuration (resolved where it is written), then the parent's
    # variables when it propagates the configuration, then its own <parameters> defaults.
    passed = {name: _Value(text, scope) for name, text in _configuration(body, where, source).items()}
    layers: tuple[Mapping[str, _Value], ...] = (passed,)
    if _children(body, "propagate-configuration"):
        layers = (passed, *scope.layers)
    graph.add(key, "sub", source)
    _, child_start, child_end = _read_workflow(child, graph, f"{key}/", layers, options, (*stack, resolved))
    graph.nodes[key].next = [child_start]
    graph.nodes[child_end].next = [ok]


def _local_app_path(app_path: str, scope: _Scope, folder: Path) -> Path | None:
    """The local file or folder an app-path names (relative to the workflow's folder), or None."""
    try:
        text = scope.resolve(app_path, "app-path", "")
    except InvalidInput:
        return None
    if text.startswith("file://"):
        text = text[len("file://"):]
    elif re.match(r"[A-Za-z][\w+.-]*://", text) or not text:
        return None
    candidate = folder / text
    return candidate if candidate.exists() else None


# -- coordinators: a workflow run at each nominal time ------------------------------------------------

_FREQUENCY = re.compile(r"\$\{\s*coord:(minutes|hours|days)\(\s*(\d{1,9})\s*\)\s*\}")
_MINUTES = {"minutes": 1, "hours": 60, "days": 1440}
#: A coordinator imported as at most this many runs of its workflow.
MAX_COORDINATOR_RUNS = 10_000


def _nominal_time(text: str, where: str, source: str) -> datetime:
    try:
        return datetime.strptime(text.strip(), "%Y-%m-%dT%H:%MZ").replace(tzinfo=UTC)
    except ValueError:
        raise InvalidInput(where, f"must be a time as Oozie writes it (2010-01-01T00:00Z), got {shown(text)}",
                           source=source) from None


def _read_coordinator(root: ElementTree.Element, source: str, graph: _Graph, scope: _Scope, options: _Options,
                      stack: tuple[str, ...]) -> tuple[str, str, str]:
    """A coordinator as one run of its workflow per nominal time in [start, end): run k's jobs are
    named ``NOMINAL-TIME/ACTION``, submitted at its nominal time (seconds after start), and its
    first jobs wait for the last jobs of run k - concurrency (Oozie's default concurrency is 1)."""
    name = (root.get("name") or "").strip() or Path(source).stem
    frequency_text = (root.get("frequency") or "").strip()
    if "coord:" not in frequency_text:  # ${coord:hours(1)} as written, or a variable that holds one
        frequency_text = scope.resolve(frequency_text, "coordinator-app.frequency", source).strip()
    match = _FREQUENCY.fullmatch(frequency_text)
    if match:
        minutes = int(match.group(2)) * _MINUTES[match.group(1)]
    elif frequency_text.isdigit():
        minutes = int(frequency_text)
    else:
        raise InvalidInput("coordinator-app.frequency", f"must be minutes, or ${{coord:minutes|hours|days(N)}}, got "
                                                        f"{shown(frequency_text)} (months and cron are not "
                                                        "imported)", source=source)
    if minutes < 1:
        raise InvalidInput("coordinator-app.frequency", "must be at least a minute", source=source)
    start = _nominal_time(scope.resolve(_attribute(root, "start", "coordinator-app", source),
                                        "coordinator-app.start", source), "coordinator-app.start", source)
    end = _nominal_time(scope.resolve(_attribute(root, "end", "coordinator-app", source),
                                      "coordinator-app.end", source), "coordinator-app.end", source)
    if end <= start:
        raise InvalidInput("coordinator-app.end", f"must be after start ({start:%Y-%m-%dT%H:%MZ})", source=source)
    runs = -(-int((end - start).total_seconds()) // (60 * minutes))
    if runs > MAX_COORDINATOR_RUNS:
        raise InvalidInput("coordinator-app.end", f"{runs:,} runs of the workflow; at most "
                                                  f"{MAX_COORDINATOR_RUNS:,} are imported", source=source)
    concurrency = 1
    for controls in _children(root, "controls"):
        for element in _children(controls, "concurrency"):
            text = scope.resolve(_text(element), "controls.concurrency", source)
            if not text.isdigit() or int(text) < 1:
                raise InvalidInput("controls.concurrency", f"must be a whole number >= 1, got {shown(text)}",
                                   source=source)
            concurrency = int(text)
    actions = _children(root, "action")
    workflows = _children(actions[0], "workflow") if len(actions) == 1 else []
    if len(workflows) != 1:
        raise InvalidInput("action", "a coordinator has one <action> holding one <workflow>", source=source)
    body = workflows[0]
    app_paths = _children(body, "app-path")
    app_path = _text(app_paths[0]) if app_paths else ""
    given = options.sub_workflows.get(name)
    local = Path(given) if given is not None else _local_app_path(app_path, scope, Path(source).parent)
    if local is None:
        raise InvalidInput("action.workflow.app-path", f"{shown(app_path)} is not a local file; give the workflow's "
                                                       f"file (sub_workflows={{{name!r}: FILE}}, --sub-workflow "
                                                       f"{name}=FILE)", source=source)
    child = local / "workflow.xml" if local.is_dir() else local
    # The workflow sees the action's configuration (resolved in the coordinator's variables), then those.
    passed = {key: _Value(text, scope) for key, text in _configuration(body, "action.workflow", source).items()}
    start_key = ":start"
    graph.add(start_key, "start", source)
    graph.coordinator = name
    ends: list[str] = []
    for run in range(runs):
        nominal = start + timedelta(minutes=minutes * run)
        key = f"{nominal:%Y-%m-%dT%H:%MZ}"
        first = len(graph.added)
        graph.add(key, "sub", source)
        _, child_start, child_end = _read_workflow(child, graph, f"{key}/", (passed, *scope.layers), options,
                                                   (*stack, os.path.realpath(child)))
        for node in graph.added[first:]:
            node.submit = 60.0 * minutes * run
        graph.nodes[key].next = [child_start]
        graph.nodes[start_key].next.append(key)
        if run >= concurrency:
            graph.nodes[ends[run - concurrency]].next.append(key)
        ends.append(child_end)
    return name, start_key, ends[-1]


# -- from the graph to jobs -------------------------------------------------------------------------


def _ordered(graph: _Graph, start: str, source: str) -> list[_Node]:
    """The nodes reached from ``start`` along success transitions, in topological order (the
    earlier in the file first among nodes ready together); a cycle is refused, naming it."""
    nodes = graph.nodes
    reached: set[str] = set()
    # an iterative depth-first walk: on the path (grey) or done (black)
    state: dict[str, int] = {}
    walk = [(start, iter(nodes[start].next))]
    state[start] = 1
    path = [start]
    while walk:
        key, successors = walk[-1]
        step = next(successors, None)
        if step is None:
            walk.pop()
            path.pop()
            state[key] = 2
            reached.add(key)
            continue
        if state.get(step) == 1:
            names = " -> ".join(part for part in [*path[path.index(step):], step])
            kind = nodes[step].kind if nodes[step].kind in _CONTROL else "action"
            raise InvalidInput(f"{kind}[{step}]", f"the workflow has a cycle: {names}",
                               source=nodes[step].source or source)
        if step not in state:
            state[step] = 1
            path.append(step)
            walk.append((step, iter(nodes[step].next)))
    waiting = {key: 0 for key in reached}
    for key in reached:
        for step in nodes[key].next:
            waiting[step] += 1
    ready = [(nodes[key].sequence, key) for key, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, key = heapq.heappop(ready)
        order.append(nodes[key])
        for step in nodes[key].next:
            waiting[step] -= 1
            if waiting[step] == 0:
                heapq.heappush(ready, (nodes[step].sequence, step))
    return order


def _dependencies(order: list[_Node]) -> dict[str, list[str]]:
    """Each cluster action's nearest cluster actions before it (a job already waited for through
    another is left out), by key, in topological order."""
    index: dict[str, int] = {}
    ancestors: list[int] = []  # bit i: job i is before this job
    leaving: dict[str, frozenset[int]] = {}  # the nearest jobs "before" what follows a node
    arriving: dict[str, set[int]] = {node.key: set() for node in order}
    found: dict[str, list[str]] = {}
    keys: list[str] = []

    def nearest(jobs: set[int]) -> frozenset[int]:
        if len(jobs) < 2:
            return frozenset(jobs)
        covered = 0
        for job in jobs:
            covered |= ancestors[job]
        return frozenset(job for job in jobs if not covered >> job & 1)

    for node in order:
        before = nearest(arriving[node.key])
        if node.kind == "action":
            position = len(keys)
            index[node.key] = position
            keys.append(node.key)
            mask = 0
            for job in before:
                mask |= ancestors[job] | 1 << job
            ancestors.append(mask)
            found[node.key] = [keys[job] for job in sorted(before)]
            leaving[node.key] = frozenset((position,))
        else:
            leaving[node.key] = before
        for step in node.next:
            arriving[step] |= leaving[node.key]
    return found


@dataclass(frozen=True)
class _Profiles:
    trace: Workload | None
    trace_source: str
    matches: Mapping[str, str]
    default: Job | None

    def job(self, node: _Node, source: str) -> tuple[Job, str]:
        """The trace job (or default) that profiles ``node``, and how it was found."""
        for key in (node.key, node.action):
            if key in self.matches:
                wanted = self.matches[key]
                if self.trace is None or wanted not in self.trace:
                    raise InvalidInput(f"matches.{key_name(key)}", f"trace job {shown(wanted)} is not in the trace "
                                                               f"{self.trace_source}", source=source)
                return self.trace[wanted], f"matched: {wanted}"
        if self.trace is not None:
            for key in (node.key, node.action):
                if key in self.trace:
                    return self.trace[key], f"name: {key}"
        if self.default is not None:
            return self.default, "default"
        raise InvalidInput(f"action[{node.key}]", "no profile: no trace job of that name and no match "
                                                  f"(give matches=, --map {node.key}=TRACEJOB; or default_job=, "
                                                  "--default-job)", source=source)


def read_oozie(
    path: str | Path,
    *,
    trace: str | Path | Workload | None = None,
    trace_format: str = "rumen",
    matches: Mapping[str, str] | str | Path | None = None,
    properties: Mapping[str, str] | str | Path | None = None,
    sub_workflows: Mapping[str, str | Path] | None = None,
    default_job: Job | None = None,
) -> Workload:
    """Import an Oozie workflow (``workflow-app`` XML) as a workload whose jobs wait for jobs; a
    coordinator (``coordinator-app``) as a run of its workflow per nominal time.

    Each cluster action becomes a `Job` named after it (a sub-workflow's ``ACTION/CHILD``) with
    ``after`` the nearest cluster jobs before it, ``submit`` 0 and ``pool`` its queue (else
    "default"); see the module's documentation for what each node becomes.

    Profiles: the job takes the task counts, task times, bytes, priority and intensity of a trace
    job (``trace``: a file read by the ``trace_format`` importer, or a `Workload`). The match, in
    this order: the ``matches`` entry (action -> trace job name; a mapping, or a YAML/JSON file of
    one) for the job's name, then for the action's own name; a trace job named as the job, then
    as the action; ``default_job``'s. Nothing found is `InvalidInput` naming the action.

    ``properties``: job.properties (a file, `read_job_properties`, or a mapping) for
    ``${NAME}`` in queues and app-paths. ``sub_workflows``: action name -> the child workflow's
    local file (or folder holding workflow.xml).
    """
    path = as_path(path, "path")
    source = str(path)
    from planner.io.importers import IMPORTERS

    formats = [name for name in IMPORTERS if name != "oozie"]
    if not isinstance(trace_format, str) or trace_format not in formats:
        raise InvalidInput("trace_format", f"must be one of {', '.join(formats)}; got {shown(trace_format)}")
    variables = _properties(properties)
    hint = ("give it in the properties file" if properties is not None
            else "give its value in a job.properties file (properties=, --properties)")
    children = _sub_workflow_files(sub_workflows)
    matches = _matches(matches)
    if default_job is not None:
        as_instance(default_job, Job, "default_job")
    workload = _trace(trace, trace_format)
    if matches and workload is None:
        raise InvalidInput("matches", "names trace jobs, but no trace is given")
    if workload is None and default_job is None:
        raise InvalidInput("trace", "the jobs' profiles come from a trace (or a default job); give one")
    graph = _Graph()
    options = _Options(variables, children, hint)
    name, start, _ = _read_workflow(path, graph, "", (variables,), options, (os.path.realpath(path),))
    order = _ordered(graph, start, source)
    inlined = {key for node in order if node.kind == "sub" for key in (node.key, node.key.rpartition("/")[2])}
    inlined.add(graph.coordinator or "")
    unused = sorted(set(children) - inlined)
    if unused:
        raise InvalidInput(f"sub_workflows.{key_name(unused[0])}", "is not a sub-workflow action the workflow runs",
                           source=source)
    actions = [node for node in order if node.kind == "action"]
    known = {key for node in actions for key in (node.key, node.action)}
    stray = sorted(set(matches) - known)
    if stray:
        raise InvalidInput(f"matches.{key_name(stray[0])}", "is not a cluster action of the workflow", source=source)
    for key, wanted in matches.items():
        if workload is not None and wanted not in workload:
            raise InvalidInput(f"matches.{key_name(key)}", f"trace job {shown(wanted)} is not in the trace "
                                                           f"{_trace_name(trace)}", source=source)
    if not actions:
        kinds = sorted({node.kind for node in order} - {"start", "end", "kill"})
        raise InvalidInput("workflow-app", "the workflow runs no action on the cluster"
                               + (" (its fs, ssh and email actions pass through)" if "local" in kinds else ""),
                           source=source)
    if len(actions) > MAX_JOBS:
        raise InvalidInput("workflow-app", f"a workload has at most {MAX_JOBS:,} jobs; the workflow has {len(actions):,} "
                               "cluster actions", source=source)
    profiles = _Profiles(workload, _trace_name(trace), matches, default_job)
    after = _dependencies(order)
    jobs = []
    for node in actions:
        model, _ = profiles.job(node, node.source or source)
        try:
            jobs.append(model.with_changes(name=node.key, submit=node.submit, deadline=None, pool=node.pool or "default",
                                           after=tuple(after[node.key])))
        except InvalidInput as error:
            raise InvalidInput(f"action[{node.key}].{error.field}", error.problem, source=source) from None
    try:
        return Workload(jobs, name=name)
    except InvalidInput as error:
        raise error.in_file(source) from None


def _properties(value: object) -> dict[str, _Value]:
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return {as_str(name, "properties key"): _Value(as_str(text, f"properties.{key_name(name)}")
                                                      if text != "" else "")
                for name, text in value.items()}
    return {name: _Value(text) for name, text in read_job_properties(as_path(value, "properties")).items()}


def _sub_workflow_files(value: object) -> dict[str, str | os.PathLike]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidInput("sub_workflows", f"must map sub-workflow action names to files, got {shown(value)}")
    return {as_str(name, "sub_workflows key"): as_path(path, f"sub_workflows.{key_name(name)}")
            for name, path in value.items()}


def _matches(value: object) -> dict[str, str]:
    if value is None:
        return {}
    if isinstance(value, Mapping):
        mapping, source = dict(value), None
    else:
        source = str(as_path(value, "matches"))
        mapping = read_mapping(source)
    try:
        return {as_str(name, "matches key"): as_str(job, f"matches.{key_name(name)}")
                for name, job in mapping.items()}
    except InvalidInput as error:
        raise error.in_file(source) if source else error from None


def _trace_name(trace: object) -> str:
    return f"workload {shown(trace.name)}" if isinstance(trace, Workload) else str(trace)


def _trace(trace: object, trace_format: str) -> Workload | None:
    if trace is None or isinstance(trace, Workload):
        return trace
    from planner.io.importers import read_trace

    return read_trace(trace_format, as_path(trace, "trace"))
