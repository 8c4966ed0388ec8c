"""The fair scheduler: pools with weights and minimum shares, FIFO or fair inside; optionally
FRESH's admission limit (at most k jobs in their map phase and k in their reduce phase)."""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from librt.vecs import vec
from mypy_extensions import i64, mypyc_attr

from models.checks import as_int, as_list
from models.errors import InvalidInput
from models.limits import MAX_PRIORITY
from planner.simulator.jobs import OFF_RACK, JobRun
from planner.simulator.layout import ANY, MAP, REDUCE
from planner.simulator.locality import DelaySetting
from planner.simulator.schedulers.base import LaunchTuple, Scheduler, as_order, check_order_names, fifo_key, order_rank
from planner.simulator.schedulers.catalog import register
from planner.simulator.schedulers.declines import DeclineMemo
from planner.simulator.schedulers.fresh import AdmissionLimit
from planner.simulator.schedulers.pair_ranked import PairRanked, fair_value, fifo_value
from planner.simulator.schedulers.pools import Pool, as_pool
from planner.simulator.schedulers.preemption import Preemptor, as_preemption
from planner.simulator.schedulers.ranked import Changes, RankedJobs

if TYPE_CHECKING:
    from planner.simulator.core import Simulation


#: How pools compare (`Fair`'s ``rules``): Hadoop's fair scheduler or Spark's.
FAIR_RULES = ("hadoop", "spark")


@mypyc_attr(allow_interpreted_subclasses=True, serializable=True)  # subclassed in Python; copied, pickled
class Fair(Scheduler):
    """Hadoop's fair scheduler.

    A free slot goes first to the pool farthest below its minimum share
    (running / min(min share, demand)), then to the pool with the fewest
    running tasks per unit of weight; ties go to the pool with the earliest
    job, then by name. Inside the pool, jobs are taken by the pool's mode.
    Jobs name their pool in ``Job.pool``; pools not listed are created with
    the defaults. ``preemption`` (a `Preemption`) kills tasks for starved pools.

    ``rules`` is "hadoop" (the above) or "spark": Spark's comparison of pools, where a pool is
    below its minimum share while it runs fewer tasks than the share (not capped at its demand),
    such pools compare by running / max(min share, 1), and ties go to the pool whose name sorts
    first (its first job's submission aside).

    ``ties`` (None: none) orders jobs inside fair pools as Spark does: Spark weighs every stage of
    a pool 1 and breaks ties between stages with as many running tasks by their names
    (``TaskSet_<stage id>.<attempt>``, compared as strings). It maps job names to two numbers in
    [0, 1), the ranks of the job's map stage and of its reduce stage in that order over the jobs'
    stages (`planner.io.spark.conf.spark_ties`); in a fair pool a job is then ranked by its running
    tasks plus the number of its current stage (the reduce stage's once its maps are done), its
    weight and priority aside. Jobs it does not name come after, in the usual order. ``order``
    (None: none; a list of job names) ranks jobs inside FIFO pools before priority and submission,
    as Spark's FIFO pools rank by job id; jobs it does not name come after.

    ``k`` (None: no limit) is FRESH's admission limit: at most k jobs in their
    map phase and k in their reduce phase, over all pools. A submitted job enters
    the map phase as it arrives if fewer than k are in it (so of jobs submitted
    together the first k in workload order), else waits, and waiting jobs enter
    in FIFO order (priority, submit time, name) as places free. A job leaves
    the map phase when its last map completes: a job without reduces leaves, the
    others enter the reduce phase when fewer than k are in it, else wait in the
    order their maps completed. Only jobs in the map phase get maps and only
    jobs in the reduce phase get reduces (and count in their pool's demand).
    """

    name = "fair"
    settings = ("pools", "delay", "preemption", "k", "ties", "order", "rules")

    def __init__(self, pools: Any = None, delay: DelaySetting = None, preemption: Any = None, k: Any = None,
                 ties: Any = None, order: Any = None, rules: Any = "hadoop") -> None:
        super().__init__(delay)
        self.k = None if k is None else as_int(k, "k", minimum=1)
        self.ties: dict[str, tuple[float, float]] | None = None if ties is None else _ties(ties)
        self.ranks = as_order(order)
        if rules not in FAIR_RULES:
            raise InvalidInput("rules", f"must be one of {', '.join(FAIR_RULES)}, got {rules!r}")
        self.rules: str = str(rules)
        self._spark = self.rules == "spark"
        self.pools: dict[str, Pool] = {}
        given = [] if pools is None else as_list(pools, "pools", what="a list of pools")
        for position, pool in enumerate(given):
            pool = as_pool(pool, position)
            if pool.name in self.pools:
                raise InvalidInput(f"pools[{position}].name", f"duplicate pool {pool.name!r}")
            self.pools[pool.name] = pool
        self.capped = any(pool.capped for pool in self.pools.values())
        self.preemption = as_preemption(preemption)
        self.members: dict[str, list[JobRun]] = {}
        self.runnable: dict[str, list[JobRun]] = {}
        self.preemptor: Preemptor | None = None
        self._phases()

    def __repr__(self) -> str:
        ties = "" if self.ties is None else f", ties={self.ties!r}"
        order = "" if self.ranks is None else f", order={list(self.ranks)!r}"
        rules = "" if self.rules == "hadoop" else f", rules={self.rules!r}"
        return (f"Fair(pools={list(self.pools.values())!r}, delay={self.delay!r}, preemption={self.preemption!r}, "
                f"k={self.k!r}{ties}{order}{rules})")

    @property
    def hears_ends(self) -> bool:  # type: ignore[override]  # a class flag elsewhere
        """With an admission limit, completed maps move jobs between the phases."""
        return self.k is not None

    @property
    def settles(self) -> bool:  # type: ignore[override]
        return self.preemption is not None

    def describe(self) -> dict[str, Any]:
        data = super().describe()
        # Caps appear when set, so that results of uncapped pools read as before caps existed.
        data["pools"] = [{key: value for key, value in vars(pool).items()
                          if not (key in ("max_map", "max_reduce") and value is None)} for pool in self.pools.values()]
        if self.preemption is not None:
            data["preemption"] = vars(self.preemption).copy()
        if self.k is not None:
            data["k"] = self.k
        if self.ties is not None:
            data["ties"] = {name: list(pair) for name, pair in self.ties.items()}
        if self.ranks is not None:
            data["order"] = list(self.ranks)
        if self.rules != "hadoop":
            data["rules"] = self.rules
        return data

    def bind(self, sim: Simulation) -> None:
        super().bind(sim)
        self._kinds = sim.kinds_present
        self.members = {}
        self.runnable = {}
        self._known = dict(self.pools)
        # Kept as jobs change (`ranked`): per (pool, kind) the jobs with a task for that kind in
        # the pool's order, and per pool the running and pending tasks by kind.
        self._changes = Changes(self._refresh)
        sim.changed = self._changes.jobs
        self._ranked: dict[str, list[PairRanked]] = {}  # pool -> its order for each kind (MAP, REDUCE, ANY)
        self._running: dict[str, list[int]] = {}
        self._pending: dict[str, list[int]] = {}
        # What the decisions read of each pool, as native values (a Pool is a Python object):
        # whether it orders its jobs fairly, whether it limits running jobs, its weight and its
        # minimum shares by kind.
        self._fair_pool: dict[str, bool] = {}
        self._limited: dict[str, bool] = {}
        self._weight: dict[str, float] = {}
        self._min_shares: dict[str, list[int]] = {}
        # Each job's counts in the totals, six from 6 x its index: running tasks by kind, then pending
        # tasks by kind (a typed column: compiled, read and written as machine words).
        self._seen = vec[i64]([0] * (6 * len(sim.workload)))
        # Spark's ties inside fair pools (``ties``), by job name: (map stage, reduce stage).
        self._tie: dict[str, tuple[float, float]] = {}
        if self.ties is not None:
            known = set(sim.workload.names)
            unknown = sorted(name for name in self.ties if name not in known)
            if unknown:
                raise InvalidInput("ties", f"{unknown[0]!r} is not a job of the workload")
            self._tie = dict(self.ties)
        check_order_names(self.ranks, sim)
        self._runnable_ids: set[int] = set()
        self._rack_of = sim.layout.rack_of
        self.preemptor = Preemptor(self, self.preemption, sim) if self.preemption is not None else None
        self.preempt_due = math.inf  # when the preemptor's next timeout expires (as of the last settle)
        self._phases()
        # Delay scheduling's repeated declines of a node's map slot, told without asking every job
        # (`declines`): not with caps on running tasks or k, whose declines end unannounced.
        if self.delay is not None and not self.capped and self.k is None and not sim.max_computing:
            self.memo = DeclineMemo(sim, self.delay)

    def _phases(self) -> None:
        """The admission limit's phases (used only with ``k``), empty; waiting jobs in FIFO order."""
        self.admission = AdmissionLimit(self.k or 1, fifo_key)
        self.admitted: tuple[set[JobRun], set[JobRun]] = (set(), set())  # by kind: may launch maps / reduces

    def pool_of(self, name: str) -> Pool:
        return self._known[name]

    def job_arrived(self, job: JobRun, now: float) -> None:
        if job.pool not in self._known:
            self._known[job.pool] = Pool(job.pool)
        if job.pool not in self._running:
            self._new_pool(job.pool)
        members = self.members.setdefault(job.pool, [])
        bisect.insort(members, job, key=fifo_key)
        self._limit(job.pool)
        if self._limited[job.pool] and job.index not in self._runnable_ids and self.sim is not None:
            self.sim.hold(job, MAP)  # behind the pool's running-job limit: none of its tasks is offered
            self.sim.hold(job, REDUCE)
        if self.k is not None:
            self.admission.arrived(job)
            self._admit(now)
        self._changes.jobs.append(job)
        if self.memo is not None:
            self.memo.arrived(job)
        if self.preemptor is not None:
            self.preemptor.pool_seen(job.pool, now, was_empty=len(members) == 1)

    def job_finished(self, job: JobRun, now: float) -> None:
        self.members[job.pool].remove(job)
        self._forget(job)
        self._limit(job.pool)
        if self.k is not None:
            self.admission.finished(job)
            self._admit(now)

    def job_has_work(self, job: JobRun) -> None:
        if self.memo is not None and job.retry:  # a map evicted (not only reduces opening)
            self.memo.evicted()

    def attempt_ended(self, job: JobRun, kind: int, task: int, start: float, end: float) -> None:
        """With ``k``: a job whose last map completes leaves the map phase (the simulation
        raises maps_done after this call)."""
        if kind == MAP and job.maps_done + 1 == job.maps and self.admission.last_map_done(job):
            self._admit(end)

    def _admit(self, now: float) -> None:
        """Admit what the limit allows; slots declined meanwhile are offered again."""
        admitted = self.admission.admit()
        before = self.admitted
        self.admitted = (set(self.admission.map_phase), set(self.admission.reduce_phase))
        self._changes.jobs.extend(job for kind in (MAP, REDUCE) for job in before[kind] ^ self.admitted[kind])
        if admitted:
            for pool in self.members:  # a running-job limit starts admitted jobs first
                if self._known[pool].max_running is not None:
                    self._limit(pool)
            if self.sim is not None:
                self.sim.request_wake(now)

    def _kind_of(self, job: JobRun, kind: int) -> int:
        """The kind of task ``job`` may take on a slot of ``kind``: with ``k``, a container
        gives a job in its map phase a map and a job in its reduce phase a reduce."""
        if self.k is None or kind != ANY:
            return kind
        return MAP if job in self.admitted[MAP] else REDUCE

    def _pending_of(self, job: JobRun, kind: int) -> int:
        """Tasks ``job`` may launch on a slot of ``kind`` (with ``k``: only in its admitted phase)."""
        if self.k is None:
            return job.pending(kind)
        kind = self._kind_of(job, kind)
        return job.pending(kind) if job in self.admitted[kind] else 0

    def _limit(self, pool: str) -> None:
        """The pool's runnable jobs: with a running-job limit, the jobs that have started
        (a limit never pauses a job) and then the first waiting ones in FIFO order (with the
        admission limit k, the admitted ones first)."""
        members = self.members[pool]
        cap = self._known[pool].max_running
        if cap is None:
            self.runnable[pool] = members
            return
        before = self.runnable.get(pool, [])
        if self.k is None:
            # A job starts only while it is runnable and stays so until it finishes, so the started
            # members are the started jobs of ``before``, and the waiting ones to add are the first
            # of the members (in FIFO order) that have not started: O(cap) a change, not O(members).
            started = [job for job in before if job.start is not None and job.finish is None]
            room = cap - len(started)
            waiting: list[JobRun] = []
            for job in members:
                if len(waiting) >= room:
                    break
                if job.start is None:
                    waiting.append(job)
        else:  # O(members) a change
            started = [job for job in members if job.start is not None]
            waiting = [job for job in members if job.start is None]
            # With the admission limit, jobs it admitted go first (else both wait forever).
            waiting.sort(key=self._not_admitted)
            waiting = waiting[: max(cap - len(started), 0)]
        self.runnable[pool] = sorted(started + waiting, key=fifo_key)
        now_ids = {job.index for job in self.runnable[pool]}
        sim = self.sim
        for job in before:
            if job.index not in now_ids:
                self._runnable_ids.discard(job.index)
                self._changes.jobs.append(job)
                if sim is not None and job.finish is None:  # displaced before it started (with k)
                    sim.hold(job, MAP)
                    sim.hold(job, REDUCE)
        for job in self.runnable[pool]:
            if job.index not in self._runnable_ids:
                self._runnable_ids.add(job.index)
                self._changes.jobs.append(job)
                if sim is not None:
                    sim.release(job, MAP)
                    sim.release(job, REDUCE)
                if self.memo is not None:
                    self.memo.arrived(job)  # it may run now

    # -- the totals and orders, kept as jobs change ------------------------------------------
    def _not_admitted(self, job: JobRun) -> bool:
        return job not in self.admitted[MAP] and job not in self.admitted[REDUCE]

    def _new_pool(self, name: str) -> None:
        self._running[name] = [0, 0, 0]
        self._pending[name] = [0, 0, 0]
        pool = self._known[name]
        fair = self._fair_pool[name] = pool.mode == "fair"
        self._limited[name] = pool.max_running is not None
        self._weight[name] = float(pool.weight)
        self._min_shares[name] = [pool.min_share(MAP), pool.min_share(REDUCE), pool.min_share(ANY)]
        # One order per kind, MAP, REDUCE and ANY (those of kinds absent from the cluster stay empty).
        # (`PairRanked`: a fair pool's key is (running / weight, order), a FIFO pool's (-priority, order).)
        inside = [(self._tied_value(kind) if self._tie else fair_value(kind)) if fair
                  else (self._ordered_value if self.ranks is not None else fifo_value) for kind in (MAP, REDUCE, ANY)]
        self._ranked[name] = [PairRanked(value) for value in inside]

    def _ordered_value(self, job: JobRun) -> float:
        """A FIFO pool's value with an explicit ``order``: the job's place in it, then its priority."""
        return float(order_rank(self.ranks, job)) * (2 * MAX_PRIORITY + 1) - float(job.priority)

    def _tied_value(self, kind: int) -> Callable[[JobRun], float]:
        """A fair pool's value with Spark's ties (``ties``): running tasks plus the current stage's tie."""
        def value(job: JobRun) -> float:
            return job.running_of(kind) + self._stage_tie(job)
        return value

    def _stage_tie(self, job: JobRun) -> float:
        tie = self._tie.get(job.name, (1.0, 1.0))
        return tie[0] if job.maps_done < job.maps else tie[1]

    def _refresh(self, job: JobRun) -> None:
        """Bring ``job``'s place in its pool's orders and its counts in the pool's totals up to date
        (once per launch and per end: the common case is inlined)."""
        pool = job.pool
        index = job.index
        runnable = not self._limited[pool] or index in self._runnable_ids
        seen = self._seen
        at: i64 = 6 * index
        running_total, pending_total = self._running[pool], self._pending[pool]
        counts = job.running
        maps, reduces = counts[MAP], counts[REDUCE]
        fair = self._fair_pool[pool]
        for kind in self._kinds:
            running = maps if kind == MAP else reduces if kind == REDUCE else maps + reduces
            if not runnable:
                pending = 0
            elif self.k is None:
                pending = job.pending(kind)
            else:
                pending = self._pending_of(job, kind)
            if running == seen[at + kind] and pending == seen[at + 3 + kind]:
                continue  # nothing this kind's order or totals depend on has changed
            running_total[kind] = running_total[kind] + (running - seen[at + kind])
            pending_total[kind] = pending_total[kind] + (pending - seen[at + 3 + kind])
            seen[at + kind] = running
            seen[at + 3 + kind] = pending
            if pending <= 0:
                self._ranked[pool][kind].update(job, False)
            else:  # the values `fair_value` and `fifo_value` give, computed here (a call each saved)
                if not fair:
                    value = -float(job.priority) if self.ranks is None else self._ordered_value(job)
                elif self._tie:
                    value = float(running) + self._stage_tie(job)
                else:
                    value = float(running) / (job.weight * 2.0**job.priority)
                self._ranked[pool][kind].update_value(job, True, value)

    def _forget(self, job: JobRun) -> None:
        seen = self._seen
        at: i64 = 6 * job.index
        for kind in self._kinds:
            self._running[job.pool][kind] = self._running[job.pool][kind] - seen[at + kind]
            self._pending[job.pool][kind] = self._pending[job.pool][kind] - seen[at + 3 + kind]
            self._ranked[job.pool][kind].update(job, False)
        for position in range(at, at + 6):
            seen[position] = 0  # (it counts in no total now)

    def pool_loads(self, kind: int) -> list[tuple[str, int, int]]:
        """(pool, running tasks, demand) of every pool with jobs, for slots of ``kind``; a
        pool's demand stops at its cap."""
        self._catch_up()
        loads = []
        for name, members in self.members.items():
            if members:
                running = self._running[name][kind]
                loads.append((name, running, self._demand(name, kind, running)))
        return loads

    def pick(self, node: int, kind: int, now: float) -> LaunchTuple | None:
        memo = self.memo
        if memo is not None and kind == MAP:
            if memo.declines_again(node, now):
                return None
            launch = self._pick(node, kind, now)
            if launch is None:
                memo.declined_now(node)
            return launch
        return self._pick(node, kind, now)

    def _catch_up(self) -> None:
        """Re-key the jobs changed since (`Changes.drain`, with `_refresh` called natively)."""
        for job in self._changes.take():
            self._refresh(job)

    def _pick(self, node: int, kind: int, now: float) -> LaunchTuple | None:
        self._catch_up()
        # The first pool of `_pools_in_order`, found in one pass with no tuple made: most launch.
        best: str | None = None
        best_tier, best_ratio, best_submit = 0, 0.0, 0.0
        wanting = 0
        for name, members in self.members.items():
            if not members:
                continue
            running = self._running[name][kind]
            demand = self._demand(name, kind, running)
            if demand <= running:  # nothing to launch, or at its cap
                continue
            wanting += 1
            tier, ratio = self._need(name, kind, running, demand)
            submit = 0.0 if self._spark else members[0].submit
            if best is None or tier < best_tier or (tier == best_tier and (ratio < best_ratio or (
                    ratio == best_ratio and (submit < best_submit or (submit == best_submit and name < best))))):
                best, best_tier, best_ratio, best_submit = name, tier, ratio, submit
        if best is None:
            return None
        launch = self._launch_in(best, node, kind, now)
        if launch is not None or wanting == 1:
            return launch
        for name in self._pools_in_order(kind):  # the first declined: the others in order
            if name != best:
                launch = self._launch_in(name, node, kind, now)
                if launch is not None:
                    return launch
        return None

    def _demand(self, name: str, kind: int, running: int) -> int:
        """The pool's running plus pending tasks of ``kind``, stopped at its cap."""
        demand = running + self._pending[name][kind]
        cap = self._known[name].max_share(kind) if self.capped else None
        if cap is not None:
            demand = max(min(demand, cap), min(running, demand))
        return demand

    def _need(self, name: str, kind: int, running: int, demand: int) -> tuple[int, float]:
        """A pool's need, smaller first: (0, running / min share) below its min share, else
        (1, running / weight) (a native pair: no tuple object is made)."""
        if self._spark:  # Spark's FairSchedulingAlgorithm
            share = self._min_shares[name][kind]
            return (0, running / max(share, 1)) if running < share else (1, running / self._weight[name])
        floor = min(self._min_shares[name][kind], demand)
        return (0, running / floor) if running < floor else (1, running / self._weight[name])

    def _pools_in_order(self, kind: int) -> list[str]:
        """The pools with a task to launch on a ``kind`` slot, neediest first (`_need`); ties by
        its first job's submission (not with Spark's ``rules``), then its name."""
        ranked = []
        for name, running, demand in self.pool_loads(kind):
            if demand <= running:
                continue
            tier, ratio = self._need(name, kind, running, demand)
            ranked.append((tier, ratio, 0.0 if self._spark else self.members[name][0].submit, name))
        ranked.sort()
        return [entry[-1] for entry in ranked]

    def _launch_in(self, name: str, node: int, kind: int, now: float) -> LaunchTuple | None:
        """A launch from pool ``name``'s order for a ``kind`` slot on ``node``, or None."""
        jobs = self._ranked[name][kind]
        job = jobs.first()
        launch: LaunchTuple | None
        if job is not None and self.delay is None and kind == MAP:
            # The common case, as in `take`: the neediest job launches a map, as local as it can.
            task, locality = job.take_map(node, self._rack_of[node], OFF_RACK)
            launch = job, MAP, task, locality
        elif kind == MAP:
            launch = self.scan_maps(jobs, node, now)
        else:
            launch = self._scan(jobs, node, kind, now)
        if launch is not None:
            self._changes.jobs.append(launch[0])
        return launch

    def _scan(self, jobs: RankedJobs, node: int, kind: int, now: float) -> LaunchTuple | None:
        """The first of ``jobs`` that takes a task of ``kind`` for ``node`` (apart from `_pick`:
        compiled, a function holding a lambda builds its closure at every call)."""
        return jobs.scan(lambda job: self.take(job, node, self._kind_of(job, kind), now))

    def settle(self, now: float) -> float | None:
        if self.preemptor is None:
            return None
        due = self.preemptor.settle(now)
        self.preempt_due = math.inf if due is None else due
        return due

    def wake(self, now: float) -> None:
        # With ``k``, wake-ups also come from admissions, in the middle of an instant whose
        # starvation clocks the settle has not updated yet: preempt only when one is due.
        if self.preemptor is not None and (self.k is None or now >= self.preempt_due):
            self.preemptor.preempt(now)


register(Fair)  # a call, not the decorator: a compiled class takes no decorator of ours (setup.py)


def _ties(value: object) -> dict[str, tuple[float, float]]:
    """``ties`` checked: job name -> (map stage, reduce stage), each in [0, 1)."""
    from models.checks import as_float, as_mapping

    found: dict[str, tuple[float, float]] = {}
    for name, pair in as_mapping(value, "ties").items():
        where = f"ties.{name}"
        if not isinstance(name, str):
            raise InvalidInput("ties", f"keys must be job names, got {name!r}")
        items = as_list(pair, where, what="[map stage, reduce stage]")
        if len(items) != 2:
            raise InvalidInput(where, f"must be [map stage, reduce stage], got {len(items)} numbers")
        first, second = (as_float(item, f"{where}[{i}]", minimum=0.0) for i, item in enumerate(items))
        if first >= 1.0 or second >= 1.0:
            raise InvalidInput(where, "must be below 1")
        found[name] = (first, second)
    return found
