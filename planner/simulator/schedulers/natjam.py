"""Natjam (Cho et al.): production jobs take containers back from research jobs,
by suspending (or killing) research tasks; Natjam-R orders jobs by deadline."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from models.checks import as_float, as_str
from models.errors import InvalidInput
from planner.simulator.jobs import JobRun
from planner.simulator.layout import ANY, MAP, REDUCE
from planner.simulator.schedulers.base import Launch, Scheduler, fifo_key, register

JOB_POLICIES = ("MR", "LR", "PR")
TASK_POLICIES = ("SRT", "LRT", "random")
DEADLINE_POLICIES = ("MDF", "MLF")
#: Jobs of this priority level or above are production jobs; the others research.
PRODUCTION = 1
#: The shortest protection from eviction (seconds): with none, an attempt evicted for a job that
#: then declines the container (delay scheduling) is relaunched and evicted again in the same instant.
MIN_RUN = 0.01


@register
class Natjam(Scheduler):
    """Dual-priority eviction on containers.

    Production jobs (``Job.priority >= 1``) come first, FIFO; then research
    jobs, those with suspended tasks to resume first, then FIFO. A suspended
    task resumes preferably on the node it was suspended on. After each
    instant, if production tasks are pending and no container is free (nor
    about to be, from a suspension in progress), research tasks are evicted, one
    per pending production task: the victim job by ``job_eviction`` ("MR" most
    containers, "LR" fewest, "PR" at random in proportion to containers held,
    seeded), then the victim task by ``task_eviction`` ("SRT" shortest remaining
    time, "LRT" longest, "random"). ``mode="suspend"`` checkpoints the task
    (``suspend_overhead`` seconds holding its container), keeps its progress and
    adds ``resume_overhead`` when it runs again; ``mode="kill"`` loses its work.

    Natjam-R (``deadline_policy``): one queue ordered by deadline ("MDF",
    selection EDF) or by laxity ("MLF", selection LLF; laxity = deadline -
    projected completion, the job's remaining work at its progress rate so
    far); when the head job has pending tasks and no container is free, tasks
    of the lowest-ranked running jobs below it are evicted. Jobs without a
    deadline rank last.

    An attempt is evicted only after it has run ``min_run`` seconds (default
    twice the two overheads, at least `MIN_RUN`), so every start makes progress and eviction
    cannot cycle for ever; under MLF a task is evicted only if its job keeps
    more laxity than the head job after paying the task's remaining time and
    the overheads (laxities move as tasks are evicted; without this two jobs
    take turns evicting each other).
    """

    name = "natjam"
    wants_containers = True
    settles = True

    def __init__(self, job_eviction: str = "MR", task_eviction: str = "SRT", mode: str = "suspend",
                 suspend_overhead: float = 1.35, resume_overhead: float = 3.88, deadline_policy: str | None = None,
                 min_run: float | None = None, delay=None) -> None:
        super().__init__(delay)
        self.job_eviction = as_str(job_eviction, "job_eviction", choices=JOB_POLICIES)
        self.task_eviction = as_str(task_eviction, "task_eviction", choices=TASK_POLICIES)
        self.mode = as_str(mode, "mode", choices=("suspend", "kill"))
        self.suspend_overhead = as_float(suspend_overhead, "suspend_overhead", minimum=0.0)
        self.resume_overhead = as_float(resume_overhead, "resume_overhead", minimum=0.0)
        default_run = max(2 * (self.suspend_overhead + self.resume_overhead), MIN_RUN)
        self.min_run = default_run if min_run is None else as_float(min_run, "min_run", minimum=MIN_RUN)
        self.deadline_policy = None if deadline_policy is None else as_str(
            deadline_policy, "deadline_policy", choices=DEADLINE_POLICIES)
        self.jobs: list[JobRun] = []
        self.rng = np.random.default_rng(0)
        self._head_laxity = 0.0
        self._laxities: dict[int, float] = {}
        self._protected_until = math.inf

    def __repr__(self) -> str:
        return (f"Natjam(job_eviction={self.job_eviction!r}, task_eviction={self.task_eviction!r}, "
                f"mode={self.mode!r}, deadline_policy={self.deadline_policy!r})")

    def describe(self) -> dict[str, Any]:
        data = super().describe()
        data.update(job_eviction=self.job_eviction, task_eviction=self.task_eviction, mode=self.mode,
                    suspend_overhead=self.suspend_overhead, resume_overhead=self.resume_overhead,
                    deadline_policy=self.deadline_policy, min_run=self.min_run)
        return data

    def bind(self, sim) -> None:
        super().bind(sim)
        if sim.kinds_present != (ANY,):
            raise InvalidInput("options.containers", "Natjam schedules containers: use SimOptions(containers=True)")
        self.jobs = []
        self.rng = np.random.default_rng([sim.seed, 0x4E4A])  # PR draws: seeded, apart from the placement streams

    def job_arrived(self, job: JobRun, now: float) -> None:
        self.jobs.append(job)

    def job_finished(self, job: JobRun, now: float) -> None:
        self.jobs.remove(job)

    # -- order ---------------------------------------------------------------------------
    def ranked(self, now: float) -> list[JobRun]:
        """Every unfinished job, most important first."""
        if self.deadline_policy == "MDF":
            return sorted(self.jobs, key=lambda job: (_deadline(job), job.submit, job.name))
        if self.deadline_policy == "MLF":
            remaining = self._running_left(now)
            return sorted(self.jobs, key=lambda job: (self.laxity(job, now, remaining), job.submit, job.name))
        return sorted(self.jobs, key=lambda job: (job.priority < PRODUCTION, job.priority < PRODUCTION
                                                  and not job.left, *fifo_key(job)))

    def laxity(self, job: JobRun, now: float, running_left: dict[int, float] | None = None) -> float:
        """Deadline minus projected completion: the job's remaining work at the rate it has
        progressed so far (at least its even share of the containers)."""
        if job.deadline is None:
            return math.inf
        if running_left is None:
            running_left = self._running_left(now)
        spec = job.job
        left = (job.pending_maps * spec.map_time + job.pending_reduces * spec.reduce_time
                + running_left.get(job.index, 0.0))
        for (kind, _), seconds in job.left.items():  # suspended tasks: their work left, not a whole task
            left += seconds - (spec.map_time if kind == MAP else spec.reduce_time)
        total = job.maps * spec.map_time + job.reduces * spec.reduce_time
        elapsed = now - job.start if job.start is not None else 0.0
        # A job that has not run long has no rate of its own yet: count on its even share of the cluster.
        share = self.sim.layout.slots / max(len(self.jobs), 1)
        rate = max((total - left) / elapsed if elapsed > 0 else 0.0, share)
        return job.deadline - (now + left / rate)

    def _running_left(self, now: float) -> dict[int, float]:
        sim = self.sim
        left: dict[int, float] = {}
        for slot in sim.running_slots():
            job = sim.slot_run[slot][0]
            left[job.index] = left.get(job.index, 0.0) + self._remaining(slot, now)
        return left

    def _remaining(self, slot: int, now: float) -> float:
        """Seconds the attempt on ``slot`` has left (a reducer still copying: its whole compute)."""
        sim = self.sim
        job, kind, task, _, _ = sim.slot_run[slot]
        if kind == REDUCE and (slot in job.copying or slot in sim.compute_queue[sim.slot_node[slot]]):
            return job.reduce_times[task]
        return max(sim.slot_end[slot] - now, 0.0)

    # -- assignment ---------------------------------------------------------------------------
    def pick(self, node: int, kind: int, now: float) -> Launch | None:
        for job in self.ranked(now):
            if job.pending(kind):
                launch = self._resume_here(job, node) or self.take(job, node, kind, now)
                if launch is not None:
                    return launch
        return None

    def _resume_here(self, job: JobRun, node: int) -> Launch | None:
        """A suspended reduce of ``job`` that was suspended on ``node``, if any (its checkpoint is there)."""
        if not job.left or job.pending_maps or not job.reduces_open:
            return None
        for position in range(len(job.reduce_queue) - 1, -1, -1):
            task = job.reduce_queue[position]
            if job.resume_on.get((REDUCE, task)) == node and (REDUCE, task) in job.left:
                del job.reduce_queue[position]
                return job, REDUCE, task, -1
        return None

    # -- eviction -------------------------------------------------------------------------------
    def settle(self, now: float) -> float | None:
        sim = self.sim
        order = self.ranked(now)
        if self.deadline_policy is None:
            urgent = [job for job in order if job.priority >= PRODUCTION]
            victims = [job for job in order if job.priority < PRODUCTION]
        else:
            head = next((job for job in order if job.pending(ANY)), None)
            if head is None:
                return None
            position = order.index(head)
            urgent, victims = [head], order[position + 1 :]
            if self.deadline_policy == "MLF":
                running_left = self._running_left(now)
                self._head_laxity = self.laxity(head, now, running_left)
                self._laxities = {job.index: self.laxity(job, now, running_left) for job in victims}
        wanted = sum(job.pending(ANY) for job in urgent) - sim.free_count[ANY] - len(sim.suspending)
        self._protected_until = math.inf
        while wanted > 0:
            slot = self._victim(victims, now)
            if slot is None:
                # Look again when a protected attempt has run min_run (nothing else may happen then).
                return None if self._protected_until == math.inf else self._protected_until
            if self.mode == "kill":
                sim.kill(slot, now)
            else:
                sim.suspend(slot, now, self.suspend_overhead, self.resume_overhead)
            wanted -= 1
        return None

    def _victim(self, victims: list[JobRun], now: float) -> int | None:
        sim = self.sim
        held: dict[int, list[int]] = {}
        for slot in sim.running_slots():
            # An attempt runs at least `min_run` seconds (and some time at all) before it can be
            # evicted: every start then makes progress, so eviction cannot go round in circles.
            if slot in sim.suspending or sim.slot_run[slot][0] not in victims:
                continue
            start = sim.slot_run[slot][3]
            if now >= start + self.min_run:  # the very sum settle asks to be woken at
                held.setdefault(sim.slot_run[slot][0].index, []).append(slot)
            else:
                self._protected_until = min(self._protected_until, start + self.min_run)
        candidates = [job for job in victims if held.get(job.index)]
        if not candidates:
            return None
        if self.deadline_policy == "MLF":
            candidates = [job for job in candidates if self._laxities[job.index] > self._head_laxity]
            if not candidates:
                return None
        if self.deadline_policy is not None:
            job = candidates[-1]  # the lowest-ranked job holding containers
        elif self.job_eviction == "MR":
            job = max(candidates, key=lambda j: (len(held[j.index]), j.submit, j.name))
        elif self.job_eviction == "LR":
            job = min(candidates, key=lambda j: (len(held[j.index]), -j.submit, j.name))
        else:
            weights = np.array([len(held[j.index]) for j in candidates], dtype=float)
            job = candidates[int(self.rng.choice(len(candidates), p=weights / weights.sum()))]
        slots = sorted(held[job.index])
        if self.deadline_policy == "MLF":
            # Laxities move as tasks are evicted: evict a task only if its job keeps more slack than
            # the head after losing the task's remaining time and the overheads, or two jobs would
            # take turns evicting each other for ever.
            slack = self._laxities[job.index] - self._head_laxity
            slots = [slot for slot in slots if slack > self._eviction_cost(slot, now)]
            if not slots:
                return None
            chosen = self._by_task_policy(slots, now)
            self._laxities[job.index] -= self._eviction_cost(chosen, now)
            return chosen
        return self._by_task_policy(slots, now)

    def _eviction_cost(self, slot: int, now: float) -> float:
        """What evicting the attempt on ``slot`` costs its job (an upper bound): its remaining
        time plus the overheads when suspended; its remaining time plus the work done when killed."""
        if self.mode == "kill":
            return self._remaining(slot, now) + (now - self.sim.slot_run[slot][3])
        return self._remaining(slot, now) + self.suspend_overhead + self.resume_overhead

    def _by_task_policy(self, slots: list[int], now: float) -> int:
        if self.task_eviction == "random":
            return slots[int(self.rng.integers(len(slots)))]
        remaining = [(self._remaining(slot, now), slot) for slot in slots]
        return min(remaining)[1] if self.task_eviction == "SRT" else max(remaining)[1]


def _deadline(job: JobRun) -> float:
    return math.inf if job.deadline is None else job.deadline


__all__ = ["DEADLINE_POLICIES", "JOB_POLICIES", "MAP", "TASK_POLICIES", "Natjam"]
