"""The files `planner export` writes beside Hadoop's own, read back: per-node slot groups, the
submission schedule and a VM plan's phases.

- A slot group is a site file ``NAME.xml`` (a TaskTracker's mapred-site.xml) with a hosts file
  ``NAME.hosts`` beside it (one host per line, ``#`` comments): the group's map and reduce slot
  maxima hold on those hosts only. Groups need the nodes file (SLS's topology) that names every
  host, and every host in exactly one group. The simulator lays a split of the slots out evenly
  (extra map slots on the first nodes, extra reduce slots on the last: `layout.build_layout`);
  groups laid out otherwise are refused with the reason, never approximated.
- ``submissions.tsv``: ``position, job, submit_at, pool, priority`` (tab-separated, a header
  line): the order and the second at which the submission script submits each job, its pool or
  queue and its priority level (an integer, higher first; files of four columns, written before
  the priority column, read as priority 0). A batch with dependencies adds the column ``after``:
  the rows whose jobs this one waits for, by position, comma-separated, each ``P`` or ``P+DELAY``
  (seconds); submit.sh submits the job once those submissions have returned, plus the delay. Read
  back, it must say what the workload's ``after`` says. A job or pool name a cell cannot hold
  (a tab, a line break, another control character, whitespace at either end: submit.sh reads the
  file line by line, tab-separated) is refused at export, naming the job (`check_schedule_names`).
- ``phases.tsv``: ``phase, job, vms, role``: a VM plan's phases, run one after another.

A malformed line is one `InvalidInput` naming the file, the line and the column.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from models import Workload
from models.checks import as_int, as_str, shown
from models.errors import InvalidInput
from models.fileio import read_text
from models.limits import MAX_JOBS, MAX_PRIORITY, MAX_SECONDS
from planner.io.hadoop.parsing import Topology, number_text

if TYPE_CHECKING:
    from planner.plans.levers import Levers
from planner.simulator.layout import node_slots

SUBMISSIONS_COLUMNS = ("position", "job", "submit_at", "pool", "priority")
#: The columns of a schedule written before the priority column (every job at priority 0).
SUBMISSIONS_COLUMNS_V1 = SUBMISSIONS_COLUMNS[:4]
#: The columns of a schedule whose jobs wait for jobs: ``after`` lists their predecessors' rows.
SUBMISSIONS_COLUMNS_AFTER = (*SUBMISSIONS_COLUMNS, "after")
PHASES_COLUMNS = ("phase", "job", "vms", "role")


@dataclass(frozen=True)
class Submission:
    """One job of the submission schedule: its name, when it is submitted (s), its pool and its
    priority level."""

    job: str
    at: float
    pool: str
    priority: int = 0
    line: int = 0  # where a file gave it (0: made in memory)
    #: The rows (positions) and delays of the jobs it waits for; None: the schedule does not say
    #: (a file without the ``after`` column).
    after: tuple[tuple[int, float], ...] | None = None


@dataclass(frozen=True)
class SlotGroup:
    """Hosts sharing one TaskTracker configuration: their map and reduce slot maxima."""

    hosts: tuple[str, ...]
    map_slots: int
    reduce_slots: int
    source: str


def read_hosts(path: str | Path) -> tuple[str, ...]:
    """A hosts file: one host name per line; blank lines and ``#`` comments are skipped."""
    hosts: list[str] = []
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        name = line.split("#", 1)[0].strip()
        if not name:
            continue
        if any(c.isspace() for c in name):
            raise InvalidInput(f"line {number}", f"must be one host name, got {name!r}", source=str(path))
        if name in hosts:
            raise InvalidInput(f"line {number}", f"host {name!r} is listed twice", source=str(path))
        hosts.append(name)
    if not hosts:
        raise InvalidInput("file", "lists no hosts", source=str(path))
    return tuple(hosts)


def _rows(path: str | Path, columns: Sequence[str], *older: Sequence[str]) -> list[tuple[int, list[str]]]:
    """The rows under the header ``columns`` (or one of the ``older`` headers, whose rows then
    have that header's number of cells)."""
    lines = read_text(path).splitlines()
    header = lines[0].split("\t") if lines else []
    if header not in [list(columns), *(list(other) for other in older)]:
        raise InvalidInput("line 1", f"must be the header {chr(9).join(columns)!r} (tab-separated)", source=str(path))
    columns = header
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = line.split("\t")
        if len(cells) != len(columns):
            raise InvalidInput(f"line {number}", f"has {len(cells)} columns, expected {len(columns)}",
                               source=str(path))
        rows.append((number, cells))
        if len(rows) > MAX_JOBS:
            raise InvalidInput(f"line {number}", f"more than {MAX_JOBS:,} rows", source=str(path))
    return rows


def read_submissions(path: str | Path) -> tuple[Submission, ...]:
    """``submissions.tsv``: rows in position order 0, 1, ...; times never decreasing. A file of
    four columns (no priority) submits every job at priority 0."""
    source = str(path)
    submissions: list[Submission] = []
    seen: set[str] = set()
    for number, (position, job, at, pool, *rest) in _rows(path, SUBMISSIONS_COLUMNS, SUBMISSIONS_COLUMNS_AFTER,
                                                          SUBMISSIONS_COLUMNS_V1):
        try:
            if number_text(position, "position", source, whole=True) != len(submissions):
                raise InvalidInput("position", f"must be {len(submissions)} (rows in order), got {position}")
            name = as_str(job.strip(), "job")
            if name in seen:
                raise InvalidInput("job", f"{name!r} is submitted twice")
            seconds = number_text(at, "submit_at", source, maximum=MAX_SECONDS)
            if submissions and seconds < submissions[-1].at:
                raise InvalidInput("submit_at", f"{seconds:g} is before the previous row's {submissions[-1].at:g}")
            priority = _priority(rest[0]) if rest else 0
            after = _after(rest[1], len(submissions), source) if len(rest) > 1 else None
            submissions.append(Submission(name, seconds, as_str(pool.strip(), "pool"), priority, number, after))
            seen.add(name)
        except InvalidInput as error:
            raise InvalidInput(f"line {number}.{error.field}", error.problem, source=str(path)) from None
    if not submissions:
        raise InvalidInput("file", "submits no job", source=str(path))
    return tuple(submissions)


def _after(text: str, position: int, source: str) -> tuple[tuple[int, float], ...]:
    """The ``after`` cell: ``P`` or ``P+DELAY`` items, comma-separated, each an earlier row."""
    found: list[tuple[int, float]] = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        row, _, delay = item.partition("+")
        before = number_text(row, "after", source, whole=True)
        if not 0 <= before < position:
            raise InvalidInput("after", f"row {before} is not an earlier row (this is row {position})")
        found.append((int(before), number_text(delay, "after", source, maximum=MAX_SECONDS) if delay else 0.0))
    return tuple(found)


def after_cell(submission: Submission) -> str:
    """The ``after`` cell of ``submission`` (`_after` reads it)."""
    return ",".join(f"{row}" if not delay else f"{row}+{delay!r}" for row, delay in submission.after or ())


def cell_problem(name: str) -> str | None:
    """Why ``name`` cannot be a cell of a tab-separated line read back as it was written, or None:
    a tab, a line break (any `str.splitlines` splits at), another control character, or
    whitespace at either end (cells are read stripped)."""
    for character in name:
        if character == "\t":
            return "a tab"
        if len(f"a{character}b".splitlines()) > 1:
            return "a line break"
        if unicodedata.category(character) == "Cc":
            return f"a control character (U+{ord(character):04X})"
    if name != name.strip():
        return "whitespace at its start or end"
    return None


def check_schedule_names(schedule: Sequence[Submission]) -> None:
    """Refuse a schedule whose job or pool name ``submissions.tsv`` cannot hold (`cell_problem`),
    with one line naming the job."""
    for submission in schedule:
        for what, name in (("name", submission.job), ("pool", submission.pool)):
            problem = cell_problem(name)
            if problem is not None:
                raise InvalidInput(f"job {shown(submission.job)}", f"its {what} {shown(name)} has {problem}: "
                                                                   "submissions.tsv (tab-separated, read line by line "
                                                                   "by submit.sh) cannot hold it; rename it")


def schedule_after(workload: Workload, names: Sequence[str]) -> list[tuple[tuple[int, float], ...]]:
    """Each row's predecessors (rows, delays) for jobs submitted in the order ``names``; a job listed
    before a job it waits for is refused (`InvalidInput` naming both)."""
    row = {name: position for position, name in enumerate(names)}
    jobs = {job.name: job for job in workload}
    found = []
    for position, name in enumerate(names):
        pairs = []
        for dependency in jobs[name].after:
            if row.get(dependency.job, position) >= position:
                raise InvalidInput("order", f"submits {name!r} before {dependency.job!r}, which it waits for (after): "
                                            "list every job after its predecessors")
            pairs.append((row[dependency.job], dependency.delay))
        found.append(tuple(pairs))
    return found


def _priority(text: str) -> int:
    try:
        level = int(text.strip())
    except ValueError:
        raise InvalidInput("priority", f"must be an integer level, got {text!r}") from None
    return as_int(level, "priority", minimum=-MAX_PRIORITY, maximum=MAX_PRIORITY)


def read_phases(path: str | Path) -> tuple[tuple[tuple[str, int, str], ...], ...]:
    """``phases.tsv``: (job, vms, role) per phase, phases numbered 0, 1, ... in order."""
    source = str(path)
    phases: list[list[tuple[str, int, str]]] = []
    for number, (phase, job, vms, role) in _rows(path, PHASES_COLUMNS):
        try:
            index = number_text(phase, "phase", source, whole=True)
            if index not in (len(phases) - 1, len(phases)):
                raise InvalidInput("phase", f"must be {max(len(phases) - 1, 0)} or {len(phases)}, got {phase}")
            if index == len(phases):
                phases.append([])
            phases[index].append((as_str(job.strip(), "job"), as_int(number_text(vms, "vms", source, whole=True), "vms",
                                                                      minimum=1), as_str(role.strip(), "role")))
        except InvalidInput as error:
            raise InvalidInput(f"line {number}.{error.field}", error.problem, source=str(path)) from None
    if not phases:
        raise InvalidInput("file", "lists no phases", source=str(path))
    return tuple(tuple(phase) for phase in phases)


def group_slots(groups: Sequence[SlotGroup], topology: Topology | None) -> tuple[int, int]:
    """The cluster's map and reduce slot totals the groups configure, after checking that they
    cover every host once and are laid out as the simulator lays a split out (module docstring)."""
    first = groups[0].source
    if topology is None:
        raise InvalidInput("hosts", "slot groups need the nodes file (topology.json) that names every host",
                           source=first)
    hosts = [host for rack in topology.racks.values() for host in rack]
    per_host: dict[str, tuple[int, int]] = {}
    for group in groups:
        for host in group.hosts:
            if host not in hosts:
                raise InvalidInput("hosts", f"host {host!r} is not in the nodes file", source=group.source)
            if host in per_host:
                raise InvalidInput("hosts", f"host {host!r} is in two slot groups", source=group.source)
            per_host[host] = (group.map_slots, group.reduce_slots)
    missing = [host for host in hosts if host not in per_host]
    if missing:
        raise InvalidInput("hosts", f"{len(missing)} host(s) in no slot group, e.g. {missing[0]!r}", source=first)
    maps = [per_host[host][0] for host in hosts]
    reduces = [per_host[host][1] for host in hosts]
    total_map, total_reduce = sum(maps), sum(reduces)
    if (maps, reduces) != node_slots(total_map, total_reduce, len(hosts)):
        raise InvalidInput("hosts", f"per-host slots the simulator cannot lay out: it spreads {total_map} map and "
                                    f"{total_reduce} reduce slots evenly over the {len(hosts)} hosts in the nodes "
                                    "file's order, extra map slots on the first hosts and extra reduce slots on "
                                    "the last", source=first)
    return total_map, total_reduce


def submitted(workload: Workload, submissions: Sequence[Submission], source: str) -> Workload:
    """``workload`` as the schedule submits it: every job at its time, in its pool, at its
    priority. The jobs stay in the workload's order: the simulator orders them by submit time
    (then name), and draws each job's task-time noise from the stream of its position in the
    workload, so a job keeps its noise whatever the schedule (runs of two schedules pair job by
    job)."""
    jobs = {job.name: job for job in workload}
    named = {s.job for s in submissions}
    unknown = [s for s in submissions if s.job not in jobs]
    if unknown:
        where = f"line {unknown[0].line}.job" if unknown[0].line else "job"
        raise InvalidInput(where, f"{unknown[0].job!r} is not a job of {workload.name or 'the workload'}",
                           source=source)
    left = [name for name in jobs if name not in named]
    if left:
        raise InvalidInput("job", f"{len(left)} job(s) of the workload are never submitted, e.g. {left[0]!r}",
                           source=source)
    given = {s.job: s for s in submissions}
    _check_after(workload, submissions, source)
    return Workload([job.with_changes(submit=given[job.name].at, pool=given[job.name].pool,
                                      priority=given[job.name].priority) for job in workload], name=workload.name)


def arrival_floors(workload: Workload, gap: float, ready_now: bool = False) -> dict[str, float]:
    """Each job's earliest submission: its ``submit`` (0 with ``ready_now``), and ``gap`` after the
    earliest submission of each job it waits for (``after``), so that sorting by it lists every
    job after its predecessors (the submission schedule of a batch with dependencies)."""
    floors: dict[str, float] = {}
    graph = workload.precedence if workload.has_dependencies else None
    positions = graph.order if graph is not None else range(len(workload))
    for position in positions:
        job = workload[position]
        floors[job.name] = max([0.0 if ready_now else job.submit, *(floors[d.job] + gap for d in job.after)])
    return floors



def submission_order(levers: Levers, workload: Workload, gap: float, ready_now: bool) -> list[str]:
    """The jobs in the order a submission schedule lists them: the levers' order, else by
    `arrival_floors` (then name). The levers' order, submits, queues and priorities must name jobs
    of ``workload``, and an order every job (`InvalidInput` naming the lever)."""
    jobs = [job.name for job in workload]  # in workload order: the job an error names
    known = set(jobs)
    for name, given in (("order", levers.order), ("submits", levers.submits), ("queues", levers.queues),
                        ("priorities", levers.priorities)):
        unknown = next((job for job in given if job not in known), None)
        if unknown is not None:
            raise InvalidInput(f"levers.{name}", f"names {unknown!r}, which is not a job of the workload")
    floors = arrival_floors(workload, gap, ready_now)  # with dependencies, after the jobs waited for
    order = list(levers.order) or sorted(jobs, key=lambda name: (floors[name], name))
    if len(order) != len(jobs):
        missing = next(name for name in jobs if name not in order)
        raise InvalidInput("levers.order", f"leaves out {len(jobs) - len(order)} job(s), e.g. {missing!r}")
    return order

def _check_after(workload: Workload, submissions: Sequence[Submission], source: str) -> None:
    """A schedule read from a file says what the workload's dependencies are, so that submit.sh
    waits for what the simulation waits for: the ``after`` column, where the workload has any,
    must name each job's predecessors and delays (by row)."""
    if not workload.has_dependencies:
        return
    jobs = {job.name: job for job in workload}
    names = [s.job for s in submissions]
    for submission in submissions:
        if not submission.line:
            continue  # made in memory from the workload
        expected = {(d.job, d.delay) for d in jobs[submission.job].after}
        if submission.after is None:
            if expected:
                raise InvalidInput(f"line {submission.line}", f"{submission.job!r} waits for "
                                   f"{sorted(expected)[0][0]!r} (after), but the schedule has no after column: "
                                   "export the plan again", source=source)
            continue
        said = {(names[row], delay) for row, delay in submission.after}
        if said != expected:
            raise InvalidInput(f"line {submission.line}.after", f"says {submission.job!r} waits for "
                               f"{sorted(said) or 'nothing'}, but the workload says {sorted(expected) or 'nothing'}",
                               source=source)
