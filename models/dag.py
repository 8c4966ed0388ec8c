"""Jobs that wait for jobs: a batch's dependencies (`Job.after`) as a checked graph.

A job with ``after: [a, b]`` is submitted once ``a`` and ``b`` have finished, and not before
its own ``submit`` time; a dependency may carry a fixed ``delay`` (a copy between clusters,
say): the job may start ``delay`` seconds after its predecessor finished.

`Precedence` is that graph over a batch's positions, checked when it is built: every name is a
job of the batch and there is no cycle, else one `InvalidInput` naming the job and the cycle.
Its timing walks (`schedule`, `latest_finishes`) take each job's duration as given (the planner
chooses what a job lasts: alone on the cluster, its two stages, ...), so they are models'
figures, not simulated ones.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from models.checks import as_float, as_items, as_str, check_keys, shown
from models.errors import InvalidInput, InvalidType
from models.limits import MAX_PREDECESSORS, MAX_SECONDS


@dataclass(frozen=True)
class Dependency:
    """``job`` must have finished, and ``delay`` seconds passed since, before the waiting job starts."""

    job: str
    delay: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "job", as_str(self.job, "job"))
        object.__setattr__(self, "delay", as_float(self.delay, "delay", minimum=0.0, maximum=MAX_SECONDS))

    def to_item(self) -> str | dict[str, Any]:
        """The file form: the name alone, or ``{job, delay}`` when there is a delay."""
        return self.job if self.delay == 0 else {"job": self.job, "delay": self.delay}


def as_dependencies(value: object, field: str = "after") -> tuple[Dependency, ...]:
    """``after`` as given (a name, a `Dependency`, a ``{job, delay}`` mapping, or a list of these)
    as a tuple of `Dependency`; a name given twice, or more than `MAX_PREDECESSORS`, is refused."""
    if value is None:
        return ()
    items = [value] if isinstance(value, (str, Dependency, Mapping)) else value
    if not isinstance(items, (list, tuple)):
        raise InvalidType(field, f"must be a job name or a list of job names, got {shown(value)} "
                                 f"({type(value).__name__})")
    if len(items) > MAX_PREDECESSORS:
        raise InvalidInput(field, f"a job waits for at most {MAX_PREDECESSORS:,} jobs, got {len(items):,}")
    found: list[Dependency] = []
    seen: set[str] = set()
    for position, item in enumerate(items):
        where = f"{field}[{position}]"
        if isinstance(item, Dependency):
            dependency = item
        elif isinstance(item, str):
            try:
                dependency = Dependency(item)
            except InvalidInput as error:
                raise type(error)(where, error.problem) from None
        elif isinstance(item, Mapping):
            check_keys(dict(item), ("job", "delay"), where, required=("job",))
            try:
                dependency = Dependency(item["job"], item.get("delay", 0.0))
            except InvalidInput as error:
                raise error.within(where) from None
        else:
            raise InvalidType(where, f"must be a job name or {{job, delay}}, got {shown(item)} ({type(item).__name__})")
        if dependency.job in seen:
            raise InvalidInput(where, f"{shown(dependency.job)} is named twice")
        seen.add(dependency.job)
        found.append(dependency)
    return tuple(found)


@dataclass(frozen=True)
class Timing:
    """One job's place in a schedule of durations (`Precedence.schedule`): seconds, a model's figures."""

    name: str
    earliest_start: float
    earliest_finish: float
    latest_finish: float
    slack: float
    #: The predecessor whose finish (plus delay) decided the earliest start; None: the submit time did.
    held_by: str | None
    critical: bool


class Precedence:
    """The dependency graph of ``jobs`` (anything with ``name``, ``submit`` and ``after``), by position.

    ``predecessors[i]`` and ``successors[i]`` are ``(position, delay)`` pairs; ``order`` is a
    topological order (among jobs ready together, the earlier position first).
    """

    __slots__ = ("edges", "names", "order", "predecessors", "submits", "successors")

    def __init__(self, jobs: Sequence[Any]) -> None:
        jobs = as_items(jobs, "jobs")
        for position, job in enumerate(jobs):
            if not (isinstance(getattr(job, "name", None), str) and isinstance(getattr(job, "submit", None), float)
                    and isinstance(getattr(job, "after", None), tuple)
                    and all(isinstance(dependency, Dependency) for dependency in job.after)):
                raise InvalidType(f"jobs[{position}]", f"must be a Job, got {shown(job)} ({type(job).__name__})")
        self.names = [job.name for job in jobs]
        self.submits = [job.submit for job in jobs]
        index = {name: position for position, name in enumerate(self.names)}
        self.predecessors: list[tuple[tuple[int, float], ...]] = []
        self.successors: list[list[tuple[int, float]]] = [[] for _ in jobs]
        edges = 0
        for position, job in enumerate(jobs):
            found = []
            for number, dependency in enumerate(job.after):
                before = index.get(dependency.job)
                if before is None:
                    raise InvalidInput(f"jobs[{position}].after[{number}]",
                                       f"{shown(dependency.job)} is not a job of this batch (job {shown(job.name)})")
                if before == position:
                    raise InvalidInput(f"jobs[{position}].after[{number}]",
                                       f"job {shown(job.name)} cannot wait for itself")
                found.append((before, dependency.delay))
                self.successors[before].append((position, dependency.delay))
            edges += len(found)
            self.predecessors.append(tuple(found))
        self.edges = edges
        self.order = self._topological_order()

    def __len__(self) -> int:
        return len(self.names)

    def _topological_order(self) -> list[int]:
        waiting = [len(before) for before in self.predecessors]
        ready = [position for position, count in enumerate(waiting) if count == 0]
        heapq.heapify(ready)
        order: list[int] = []
        while ready:
            position = heapq.heappop(ready)
            order.append(position)
            for after, _ in self.successors[position]:
                waiting[after] -= 1
                if waiting[after] == 0:
                    heapq.heappush(ready, after)
        if len(order) < len(self.names):
            self._refuse_cycle(waiting)
        return order

    def _refuse_cycle(self, waiting: list[int]) -> None:
        """Name one cycle among the jobs left waiting: walk back through waiting predecessors until one repeats."""
        position = min(p for p, count in enumerate(waiting) if count > 0)
        walked: dict[int, int] = {}
        path: list[int] = []
        while position not in walked:
            walked[position] = len(path)
            path.append(position)
            position = min(before for before, _ in self.predecessors[position] if waiting[before] > 0)
        cycle = path[walked[position]:]
        cycle.reverse()  # predecessors first
        first = min(cycle)
        turn = cycle.index(first)
        cycle = cycle[turn:] + cycle[:turn]
        names = " -> ".join(shown(self.names[p]) for p in [*cycle, cycle[0]])
        raise InvalidInput(f"jobs[{first}].after", f"the dependencies make a cycle: {names}")

    @property
    def has_edges(self) -> bool:
        return self.edges > 0

    def respecting(self, order: Sequence[int]) -> list[int]:
        """A topological order that keeps ``order`` (positions, each once) wherever the dependencies
        allow: each next job is the earliest in ``order`` whose predecessors are all placed."""
        count = len(self.names)
        if sorted(order) != list(range(count)):
            raise InvalidInput("order", f"must list each of the {count} jobs once")
        rank = [0] * count
        for place, position in enumerate(order):
            rank[position] = place
        waiting = [len(before) for before in self.predecessors]
        ready = [(rank[p], p) for p in range(count) if waiting[p] == 0]
        heapq.heapify(ready)
        placed: list[int] = []
        while ready:
            _, position = heapq.heappop(ready)
            placed.append(position)
            for after, _ in self.successors[position]:
                waiting[after] -= 1
                if waiting[after] == 0:
                    heapq.heappush(ready, (rank[after], after))
        return placed

    def ancestors(self, position: int) -> set[int]:
        """Every job that must finish before the job at ``position`` starts (transitively)."""
        found: set[int] = set()
        pending = [before for before, _ in self.predecessors[position]]
        while pending:
            before = pending.pop()
            if before not in found:
                found.add(before)
                pending.extend(p for p, _ in self.predecessors[before])
        return found

    def schedule(self, durations: Sequence[float], *, releases: Sequence[float] | None = None,
                 horizon: float | None = None, deadlines: Sequence[float | None] | None = None) -> list[Timing]:
        """Each job's earliest start and finish with unlimited slots (its release, by default its submit
        time; its predecessors' finishes plus delays; its own duration), latest finish and slack.

        The latest finish is ``horizon`` (default: the last earliest finish), or the job's deadline if
        earlier, tightened backwards along the graph (`latest_finishes`). Critical jobs are those on a
        longest chain: they end the schedule and each is held by the one before it, or has no slack.
        """
        start, finish, held = self._forward(durations, releases)
        count = len(finish)
        end = max(finish) if count else 0.0
        latest = self.latest_finishes(durations, horizon=end if horizon is None else horizon, deadlines=deadlines)
        critical = [False] * count
        for position in self._chain(finish, held):
            critical[position] = True
        return [
            Timing(self.names[p], start[p], finish[p], latest[p], latest[p] - finish[p],
                   None if held[p] is None else self.names[held[p]], critical[p])
            for p in range(count)
        ]

    def _forward(self, durations: Sequence[float], releases: Sequence[float] | None
                 ) -> tuple[list[float], list[float], list[int | None]]:
        """Earliest starts and finishes, and the predecessor that set each start (None: its release)."""
        count = len(self.names)
        if len(durations) != count:
            raise InvalidInput("durations", f"must give one duration per job ({count}), got {len(durations)}")
        if releases is not None and len(releases) != count:
            raise InvalidInput("releases", f"must give one release per job ({count}), got {len(releases)}")
        at_release = self.submits if releases is None else [float(r) for r in releases]
        start = [0.0] * count
        finish = [0.0] * count
        held: list[int | None] = [None] * count
        for position in self.order:
            at = at_release[position]
            for before, delay in self.predecessors[position]:
                if finish[before] + delay > at:
                    at, held[position] = finish[before] + delay, before
            start[position] = at
            finish[position] = at + float(durations[position])
        return start, finish, held

    @staticmethod
    def _chain(finish: list[float], held: list[int | None]) -> list[int]:
        """The longest chain, first to last: back along the holds from the last job to finish (the
        first such job on a tie; a zero duration ties starts, so the walk, not a sort, gives the order)."""
        if not finish:
            return []
        position: int | None = max(range(len(finish)), key=lambda p: (finish[p], -p))
        chain: list[int] = []
        while position is not None:
            chain.append(position)
            position = held[position]
        return chain[::-1]

    def latest_finishes(self, durations: Sequence[float], *, horizon: float = math.inf,
                        deadlines: Sequence[float | None] | None = None) -> list[float]:
        """Each job's latest finish: its deadline (or ``horizon``), and no later than each successor's
        latest finish less the successor's duration and the dependency's delay (deadlines propagate
        backwards along the graph)."""
        count = len(self.names)
        latest = [horizon] * count
        if deadlines is not None:
            for position, deadline in enumerate(deadlines):
                if deadline is not None and deadline < latest[position]:
                    latest[position] = float(deadline)
        for position in reversed(self.order):
            for after, delay in self.successors[position]:
                bound = latest[after] - float(durations[after]) - delay
                if bound < latest[position]:
                    latest[position] = bound
        return latest

    def tails(self, durations: Sequence[float]) -> list[float]:
        """Each job's longest remaining path: its own duration plus the longest chain of delays and
        durations of the jobs that wait for it, directly or not (a list heuristic's priority)."""
        tail = [float(d) for d in durations]
        for position in reversed(self.order):
            for after, delay in self.successors[position]:
                through = float(durations[position]) + delay + tail[after]
                if through > tail[position]:
                    tail[position] = through
        return tail

    def critical_path(self, durations: Sequence[float], releases: Sequence[float] | None = None) -> list[str]:
        """The names of a longest chain (`schedule`'s critical jobs), first to last."""
        _, finish, held = self._forward(durations, releases)
        return [self.names[p] for p in self._chain(finish, held)]
