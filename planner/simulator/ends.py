"""How attempts end: completion, the reducer's compute phase, freeing the slot.

A class of `Simulation`'s chain (`planner.simulator.state` declares the state): the
per-task hot path, kept apart from the event loop and the offers.
"""

from __future__ import annotations

from typing import cast

from mypy_extensions import mypyc_attr

from planner.simulator.engine import ENDS, FINISH
from planner.simulator.eviction import suspended
from planner.simulator.jobs import DONE, JobRun, SlotRun
from planner.simulator.layout import ANY, MAP, REDUCE
from planner.simulator.records import DONE_FATE
from planner.simulator.shuffle import Transfers


@mypyc_attr(allow_interpreted_subclasses=True)  # as Simulation, which tests subclass
class Ends(Transfers):
    """Ending attempts (see `Simulation`)."""

    def _compute(self, slot: int, node: int, now: float) -> None:
        """A reducer has all its input: compute now, or queue for a compute slot of its node."""
        if self.max_computing:
            if self.computing[node] >= self.max_computing:
                self.compute_queue[node].append(slot)
                return
            self.computing[node] = self.computing[node] + 1
        run: SlotRun = self.slot_run[slot]
        job, _, task, _, _ = run
        left = job.left.pop((REDUCE, task), None) if job.left else None
        if left is not None and self.changed is not None:
            self.changed.append(job)  # a suspended reducer resumed: its job's rank may change
        times = cast(list[float], job.reduce_times)  # a list while the job runs (arrays once it is done)
        self._end_at(now + (times[task] if left is None else left), slot)

    def _end_at(self, end: float, slot: int) -> None:
        """Schedule the end of the attempt on ``slot``.

        Attempts launched one after another that end at the same time (a job's
        tasks launched in one instant, with deterministic task times) share one
        heap entry: the first has its own, the others join an ``ENDS`` batch.
        """
        self.slot_end[slot] = end
        if end == self.cohort_end:
            batch = self.cohort
            if batch is None:
                batch = self.cohort = []
                self.batch_count += 1
                self.batches[self.batch_count] = batch
                self.events.push(end, FINISH, self.batch_count, ENDS)
            batch.append(slot)
            batch.append(self.slot_gen[slot])
            return
        self.cohort_end = end
        self.cohort = None
        self.events.push_end(end, slot, self.slot_gen[slot])

    def _finish(self, slot: int, now: float) -> None:
        """The attempt on ``slot`` completed (the release is inlined: this runs once per task)."""
        if self.suspending and slot in self.suspending:
            suspended(self, slot, now)  # type: ignore[arg-type]  # self is a Simulation
            return
        if self.hears_ends:
            job, kind, task, start, _ = self.slot_run[slot]
            self.scheduler.attempt_ended(job, kind, task, start, now)
        if self.heartbeat:
            job, kind, task, _, _ = self._release(slot, now, DONE_FATE)
        else:
            run: SlotRun = self.slot_run[slot]
            job, kind, task, start, locality = run
            if self.attempt_log.add(job.index, kind, task, self.slot_node[slot], slot, start, now, locality,
                                    DONE_FATE):
                self._report_progress()
            job.running[kind] = job.running[kind] - 1
            if self.changed is not None:
                self.changed.append(job)
            self.slot_run[slot] = None
            self.slot_gen[slot] = self.slot_gen[slot] + 1
            self.slot_busy[slot] = self.slot_busy[slot] + (now - start)
            self.running_total -= 1
            kind_freed = self.slot_kind[slot]
            self.free_count[kind_freed] = self.free_count[kind_freed] + 1
            if kind == MAP:
                job.map_state[task] = DONE
                done = job.maps_done = job.maps_done + 1
                if job.shuffle is not None:
                    self._map_output(job, job.shuffle, self.slot_node[slot], now)
                if done < job.open_at or (done < job.maps and job.reduces_open):
                    # The common case: nothing else changes. If the instant holds nothing
                    # more, offering the slot now is what the dispatch would do.
                    if self.dispatch_due or self.events.more_at(now):
                        self.fresh.append(slot)
                        self.dispatch_due = True
                        return
                    kind = self.slot_kind[slot]
                    pending = self.pending
                    if not (pending[kind] if kind != ANY else pending[0] or pending[1]) or not self._offer(
                        slot, self.slot_node[slot], kind, now
                    ):
                        self.idle[slot] = 1
                    return
                self.fresh.append(slot)
                self.dispatch_due = True
                return self._after_map(job, done, now)
            self.fresh.append(slot)
            self.dispatch_due = True
        if kind == MAP:
            job.map_state[task] = DONE
            done = job.maps_done = job.maps_done + 1
            if job.shuffle is not None:
                self._map_output(job, job.shuffle, self.slot_node[slot], now)
            if done < job.open_at or (done < job.maps and job.reduces_open):
                return
            self._after_map(job, done, now)
        else:
            job.reduces_done += 1
            if self.max_computing:
                self._compute_slot_freed(self.slot_node[slot], now)
            self._maybe_done(job, now)

    def _after_map(self, job: JobRun, done: int, now: float) -> None:
        """A map completed that opens the job's reduces or was its last."""
        if not job.reduces_open:
            job.reduces_open = True
            if job.pending_reduces:
                self.pending[REDUCE] = self.pending[REDUCE] + job.pending_reduces
                self.scheduler.job_has_work(job)
                self._work_appeared(REDUCE)
        if done == job.maps:
            job.map_done = now
            if self.max_computing and job.pending_reduces:
                self._work_appeared(REDUCE)  # the per-node limit on copying reducers is lifted
            if job.copying and job.shuffle is None:  # with the network, copies end with their transfers
                copying, job.copying = job.copying, []
                job.copying_on.clear()
                for reducer in copying:
                    self._compute(reducer, self.slot_node[reducer], now)
        self._maybe_done(job, now)

    def _maybe_done(self, job: JobRun, now: float) -> None:
        if job.maps_done == job.maps and job.reduces_done == job.reduces:
            job.finish = now
            del self.active[job.name]
            self.scheduler.job_finished(job, now)
            job.drop_tasks()
            if self.pending[0] or self.pending[1]:
                self._work_appeared()  # a job waiting for a running-job limit may start

    def _compute_slot_freed(self, node: int, now: float) -> None:
        self.computing[node] = self.computing[node] - 1
        if self.compute_queue[node]:
            self._compute(self.compute_queue[node].pop(0), node, now)

    def _release(self, slot: int, now: float, fate: int) -> SlotRun:
        """Log the attempt on ``slot``, free the slot, and return the attempt."""
        run: SlotRun = self.slot_run[slot]
        job, kind, task, start, locality = run
        node = self.slot_node[slot]
        slot_kind = self.slot_kind[slot]
        if self.attempt_log.add(job.index, kind, task, node, slot, start, now, locality, fate):
            self._report_progress()
        job.running[kind] = job.running[kind] - 1
        if self.changed is not None:
            self.changed.append(job)
        self.slot_run[slot] = None
        self.slot_gen[slot] = self.slot_gen[slot] + 1  # a pending end event of this attempt is now stale
        self.slot_busy[slot] = self.slot_busy[slot] + (now - start)
        self.running_total -= 1
        if not self.running_total:
            self.last_change = now  # the cluster fell idle: the stall clock starts over
        self.free_count[slot_kind] = self.free_count[slot_kind] + 1
        if self.heartbeat == 0:
            self.fresh.append(slot)
            self.dispatch_due = True
            return run
        self.node_free[node][slot_kind].append(slot)
        if not self.awake[node]:
            self._slot_freed(node, slot_kind, now)
        return run
