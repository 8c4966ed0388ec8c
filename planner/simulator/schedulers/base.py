"""What every scheduler is: pick a task for a free slot, hear about arrivals and
completions, and optionally look again at times it asks for (preemption).

A scheduler is a small class registered by name (`catalog.register`). `Scheduler` carries the
shared parts: delay scheduling (an option of every scheduler) and taking a
task from a chosen job for a slot.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from mypy_extensions import mypyc_attr

from models.errors import InvalidInput
from planner.simulator.jobs import NODE_LOCAL, OFF_RACK, JobRun
from planner.simulator.layout import ANY, MAP, REDUCE
from planner.simulator.locality import DelaySetting, as_delay

if TYPE_CHECKING:
    from planner.simulator.core import Simulation
    from planner.simulator.schedulers.declines import DeclineMemo
    from planner.simulator.schedulers.ranked import RankedJobs


class Launch(NamedTuple):
    """What a scheduler launches on the offered slot (`Scheduler.pick`): a task of ``job`` of
    ``kind`` (`TaskKind`), its number, and its locality (`Locality`; -1 for a reduce)."""

    job: JobRun
    kind: int
    task: int
    locality: int


#: `Launch`'s fields as a plain tuple: what `Scheduler.pick` returns (a `Launch` is one). The compiled
#: schedulers return plain tuples: mypyc makes a NamedTuple through a Python call, ten times the cost
#: of a tuple, at every launch.
LaunchTuple = tuple[JobRun, int, int, int]


@mypyc_attr(allow_interpreted_subclasses=True, serializable=True)  # subclassed in Python; copied, pickled
class Scheduler:
    """Base class: subclasses implement `pick` and may override the hooks."""

    # The built-in schedulers' constructors take their settings other than ``delay`` as Any and
    # check them with InvalidInput: compiled, an argument typed otherwise is checked by mypyc first,
    # with its own TypeError (``delay`` is a `DelaySetting`, which mypyc leaves to `as_delay`).

    name: ClassVar[str] = ""
    #: The constructor's settings, for a compiled class (whose signature Python cannot read):
    #: `config.setting_names` reads the signature otherwise.
    settings: ClassVar[tuple[str, ...] | None] = None

    def __init__(self, delay: DelaySetting = None) -> None:
        self.delay = as_delay(delay)
        self.sim: Simulation | None = None
        #: Set in `bind` by schedulers that can tell a repeated decline (`declines.DeclineMemo`).
        self.memo: DeclineMemo | None = None

    # -- hooks the simulation calls ------------------------------------------------
    def bind(self, sim: Simulation) -> None:
        """Attach to a simulation before it starts (a scheduler serves one run at a time)."""
        self.sim = sim
        self.memo = None

    def __getstate__(self) -> dict[str, Any]:
        """Every attribute, a compiled class's and a Python subclass's own (for copies and pickles)."""
        names = getattr(type(self), "__mypyc_attrs__", ())
        state = {name: getattr(self, name) for name in names if name != "__dict__" and hasattr(self, name)}
        state.update(getattr(self, "__dict__", {}))
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)

    def bound(self) -> Simulation:
        """The simulation this scheduler serves (`bind`)."""
        sim = self.sim
        if sim is None:
            raise RuntimeError(f"scheduler {self.name!r} is not bound to a simulation")
        return sim

    def job_arrived(self, job: JobRun, now: float) -> None:
        """A job was submitted."""

    def job_finished(self, job: JobRun, now: float) -> None:
        """A job's last task ended."""

    def job_has_work(self, job: JobRun) -> None:
        """``job`` has tasks to launch again: its reduces opened, or an attempt of it was
        evicted (its task is pending again)."""

    def pick(self, node: int, kind: int, now: float) -> LaunchTuple | None:
        """The task to launch on a free slot of ``kind`` on ``node``, or None to leave it idle."""
        raise NotImplementedError

    def settle(self, now: float) -> float | None:
        """Called after the events of an instant when `settles` is true; return a time to `wake` at."""
        return None

    def wake(self, now: float) -> None:
        """A time asked for by `settle` (or by delay scheduling) has come."""

    settles: ClassVar[bool] = False
    #: True: `simulate` runs it on containers (slots that run either kind), which it types itself.
    wants_containers: bool = False
    #: True: `attempt_ended` is called for every completed attempt (costs a call per task).
    hears_ends: ClassVar[bool] = False

    def attempt_ended(self, job: JobRun, kind: int, task: int, start: float, end: float) -> None:
        """A task attempt completed (only when `hears_ends`)."""

    def describe(self) -> dict[str, Any]:
        """The settings, as plain data (for result files)."""
        data: dict[str, Any] = {"name": self.name}
        if self.delay is not None:
            data["delay"] = self.delay.describe()
        return data

    # -- shared by the subclasses ----------------------------------------------------
    def take(self, job: JobRun, node: int, kind: int, now: float) -> LaunchTuple | None:
        """A task of ``job`` for a ``kind`` slot on ``node``, honouring delay scheduling."""
        sim = self.sim
        if sim is None:
            sim = self.bound()  # raises
        if kind != REDUCE and job.pending_maps:
            delay = self.delay
            memo = self.memo
            if delay is None:
                level = OFF_RACK
            else:
                before = job.level
                level = delay.allowed(job, now)
                if memo is not None and job.level != before:
                    memo.escalated(job)
            task, locality = job.take_map(node, sim.layout.rack_of[node], level)
            if task >= 0:
                if delay is not None:
                    delay.launched(job, locality)
                    if memo is not None:
                        memo.launched(job)
                return job, MAP, task, locality
            if delay is not None:
                started = job.wait_since is None
                sim.request_wake(delay.skipped(job, now))
                if memo is not None:
                    memo.skipped(job, started)
            if kind == ANY:
                # A container goes to a job's reducers only once its maps have all launched:
                # reducers holding every container would wait forever for a map that waits for one.
                return None
        if kind != MAP and job.pending_reduces and job.reduces_open and sim.may_copy(job, node):
            task = job.reduce_queue.pop()
            return job, REDUCE, task, -1
        return None

    def scan_maps(self, ranked: RankedJobs, node: int, now: float, drop_idle: bool = False) -> LaunchTuple | None:
        """The first job in ``ranked`` order that takes a map for ``node``: what
        ``ranked.scan(lambda job: self.take(job, node, MAP, now))`` returns, with the same effects,
        inlined (the hot path of delay scheduling: most jobs met decline, and each decline was
        seven calls). ``drop_idle``: a job met without pending maps leaves ``ranked`` (as
        ``scan``'s ``keep``)."""
        sim, delay, memo = self.sim, self.delay, self.memo
        if sim is None:
            sim = self.bound()  # raises
        rack = sim.layout.rack_of[node]
        plain = delay is not None and delay.intensities is None
        job = ranked.walk_first()
        try:
            while job is not None:
                if not job.pending_maps:
                    if drop_idle:
                        ranked.update(job, False)
                elif delay is None:
                    task, locality = job.take_map(node, rack, OFF_RACK)
                    if task >= 0:
                        return job, MAP, task, locality
                else:
                    level, since = job.level, job.wait_since
                    # `DelayScheduling.allowed` changes nothing unless a wait has run its course.
                    if not plain or (since is not None and level < OFF_RACK and now >= since + (
                            delay.node_wait if level == NODE_LOCAL else delay.rack_wait)):
                        before = level
                        level = delay.allowed(job, now)
                        if memo is not None and job.level != before:
                            memo.escalated(job)
                    if not job.indexed:
                        job.index_blocks()
                    local = job.on_node
                    if level == NODE_LOCAL and local.cursor[node] == local.end[node] and not job.retry:
                        task = -1  # no block left on the node (`JobRun.take_map` would say so)
                    else:
                        task, locality = job.take_map(node, rack, level)
                    if task >= 0:
                        job.level, job.wait_since = locality, None  # `DelayScheduling.launched`
                        if memo is not None:
                            memo.launched(job)
                        return job, MAP, task, locality
                    started = job.wait_since is None
                    if started:
                        job.wait_since = now  # `DelayScheduling.skipped`
                    wake = delay.wait_ends(job)
                    if now <= wake < sim.wake_at:
                        sim.request_wake(wake)
                    if started and memo is not None:
                        memo.skipped(job, True)
                job = ranked.walk_next()
            return None
        finally:
            ranked.walk_end()


def remade(cls: Callable[..., Any], args: tuple[Any, ...], attributes: dict[str, Any]) -> Any:
    """``cls(*args)`` given ``attributes``: how a compiled helper whose constructor takes arguments
    is copied and pickled (its ``__reduce__``; a compiled object has no ``__dict__`` to fill)."""
    made = cls(*args)
    for name, value in attributes.items():
        setattr(made, name, value)
    return made


def job_weight(job: JobRun) -> float:
    """A job's weight inside a fair pool: its own weight, doubled per priority level."""
    return job.weight * 2.0**job.priority


def fair_key(kind: int) -> Callable[[JobRun], tuple[float, int]]:
    """A fair pool's order for slots of ``kind``: fewest running tasks per weight first, then
    earlier submission, then name (`JobRun.order`: jobs waiting together tie on the first often)."""
    def key(job: JobRun) -> tuple[float, int]:
        return (job.running_of(kind) / job_weight(job), job.order)
    return key


def fifo_key(job: JobRun) -> tuple[int, float, str]:
    """Higher priority first, then earlier submission, then name."""
    return (-job.priority, job.submit, job.name)


def as_order(value: object, field: str = "order") -> dict[str, int] | None:
    """An explicit job order (a list of distinct job names) as name -> rank; None stays None.

    Schedulers that take one (FIFO, FRESH) rank the jobs it names first, in its
    order, and the others after them in their usual order: this is how a plan's
    admission order reaches the simulator.
    """
    if value is None:
        return None
    if isinstance(value, str) or not isinstance(value, list | tuple):
        raise InvalidInput(field, f"must be a list of job names, got {value!r}")
    ranks: dict[str, int] = {}
    for position, name in enumerate(value):
        if not isinstance(name, str) or not name:
            raise InvalidInput(f"{field}[{position}]", f"must be a job name, got {name!r}")
        if name in ranks:
            raise InvalidInput(f"{field}[{position}]", f"{name!r} appears twice")
        ranks[name] = position
    return ranks


def check_order_names(ranks: dict[str, int] | None, sim: Simulation) -> None:
    """Every name of an explicit order must be a job of the simulated workload."""
    if ranks is None:
        return
    known = set(sim.workload.names)
    for name, position in ranks.items():
        if name not in known:
            raise InvalidInput(f"order[{position}]", f"{name!r} is not a job of the workload")


def order_rank(ranks: dict[str, int] | None, job: JobRun) -> int:
    """A job's place in an explicit order (`as_order`); jobs it does not name come after."""
    if ranks is None:
        return 0
    return ranks.get(job.name, len(ranks))

