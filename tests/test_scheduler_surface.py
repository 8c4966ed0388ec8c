"""The scheduler surface users read: the kinds as IntEnums equal to the compiled path's ints, a
`Launch` a scheduler may return, `register` idempotent for the same class, and wrong settings
answered with InvalidInput whether the schedulers run compiled or not."""

from __future__ import annotations

import pytest

from models import Cluster, Job
from models.errors import InvalidInput, InvalidType
from planner.simulator import (
    SCHEDULERS,
    EventKind,
    Fair,
    Fifo,
    Launch,
    Locality,
    Scheduler,
    TaskKind,
    engine,
    jobs,
    layout,
    make_scheduler,
    register,
    simulate,
)


def test_the_kinds_equal_the_ints_the_compiled_path_compares():
    assert [TaskKind.MAP, TaskKind.REDUCE, TaskKind.ANY] == [layout.MAP, layout.REDUCE, layout.ANY]
    assert [kind.name.lower() for kind in TaskKind] == list(layout.KIND_NAMES)
    assert [Locality.NODE_LOCAL, Locality.RACK_LOCAL, Locality.OFF_RACK] == [
        jobs.NODE_LOCAL, jobs.RACK_LOCAL, jobs.OFF_RACK]
    assert [EventKind.ARRIVAL, EventKind.WAKE_UP, EventKind.ENDS, EventKind.NETWORK] == [
        engine.ARRIVAL, engine.WAKE_UP, engine.ENDS, engine.NETWORK]
    assert all(kind < 0 for kind in EventKind)  # an attempt's end is tagged by its number, >= 0


class FirstJob(Scheduler):
    """Every slot to the first job with a task of its kind, as a `Launch` (named fields)."""

    name = "first-job-launch"

    def __init__(self, delay=None, named: bool = True) -> None:
        super().__init__(delay)
        self.named = named
        self.active = []

    def job_arrived(self, job, now):
        self.active.append(job)

    def job_finished(self, job, now):
        self.active.remove(job)

    def pick(self, node, kind, now):
        for job in self.active:
            launch = self.take(job, node, kind, now)
            if launch is not None:
                return Launch(*launch) if self.named else launch
        return None


def test_a_scheduler_may_return_a_launch():
    """A `Launch` is a tuple of its fields: the run is the one plain tuples make."""
    jobs_ = [Job(f"j{i}", submit=3.0 * i, map_tasks=6, reduce_tasks=2, map_time=10, reduce_time=20) for i in range(4)]
    cluster = Cluster(nodes=2, map_slots=2, reduce_slots=1)
    named = simulate(jobs_, cluster, FirstJob(named=True), seed=1)
    plain = simulate(jobs_, cluster, FirstJob(named=False), seed=1)
    assert named.makespan == plain.makespan
    assert named.attempts == plain.attempts and len(named.attempts) == 4 * 8
    launch = Launch(None, TaskKind.MAP, 3, Locality.NODE_LOCAL)
    assert launch == (None, 0, 3, 0) and launch.task == 3


def test_registering_the_same_class_again_is_harmless():
    """A notebook cell run again defines a new class object of the same module and qualified
    name: it replaces the registered one."""
    def define():
        class Again(FirstJob):
            name = "again-registered"
        return Again

    first, second = define(), define()
    assert first is not second
    try:
        assert register(first) is first and SCHEDULERS["again-registered"] is first
        assert register(first) is first  # the very same class
        assert register(second) is second and SCHEDULERS["again-registered"] is second
        assert isinstance(make_scheduler("again-registered"), second)
    finally:
        SCHEDULERS.pop("again-registered", None)


def test_another_class_under_a_taken_name_is_an_error():
    class Impostor(FirstJob):
        name = "fifo"

    with pytest.raises(InvalidInput, match=r"scheduler name 'fifo' is taken by planner\.simulator\.schedulers\.fifo\.Fifo"):
        register(Impostor)
    assert SCHEDULERS["fifo"] is Fifo

    class Nameless(FirstJob):
        name = ""

    with pytest.raises(InvalidInput, match="empty name"):
        register(Nameless)


@pytest.mark.parametrize("spec", [42, None, ["fifo"]])
def test_a_scheduler_of_a_wrong_type_is_invalid_input(spec):
    """An InvalidType: an InvalidInput and a TypeError, naming what it takes."""
    with pytest.raises(InvalidType, match=r"^scheduler: must be a scheduler's name \(capacity, fair, fifo"):
        make_scheduler(spec)
    with pytest.raises(InvalidInput, match=r"^scheduler: unknown scheduler 'no-such-one'"):
        make_scheduler("no-such-one")


@pytest.mark.parametrize("scheduler", [Fifo, Fair])
@pytest.mark.parametrize("delay", ["15", 15, (1, 2, 3)])
def test_a_delay_of_a_wrong_type_is_invalid_input(scheduler, delay):
    """Compiled, a wrongly typed ``delay`` still meets `as_delay`'s InvalidInput (`DelaySetting`)."""
    with pytest.raises(InvalidInput, match=r"^delay: must be \(node_wait, rack_wait\)"):
        scheduler(delay=delay)
    assert scheduler(delay=[15, 5]).delay.describe()["rack_wait"] == 5.0
