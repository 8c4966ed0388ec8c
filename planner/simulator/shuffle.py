"""Bytes over the network: remote map reads and the reducers' copy phase.

The first class of `Simulation`'s chain (`planner.simulator.state` declares the state),
active when ``SimOptions.network`` is on, for the jobs whose bytes are known. The links and their fair sharing are
`planner.simulator.network`; what moves over them:

- A map that runs away from its block (rack-local or off-rack) reads the block
  (``input_bytes / map_tasks``) from a node holding a replica (in its rack when
  rack-local) while it computes: a flow capped at block / task time, so the map
  takes its usual time when the network keeps up and longer when it does not.
  Node-local maps read their disks, as without the network.
- A reducer fetches its share of every map's output (``shuffle_bytes / (maps x
  reduces)``) from the moment it launches, following the outputs as maps end.
  Output on its own node costs nothing; the rest is two flows into its node, one
  from its rack and one from the other racks through its rack's downlink (the
  senders' links are not modelled: a job's maps are spread over many nodes). A
  reducer that has caught up fetches again once ``BATCH_SECONDS`` at its link's
  speed has accumulated (or the job's last map ended), as Hadoop's fetchers take
  whole map outputs. It computes once it holds its whole share, never before the
  job's last map.
- A killed reducer loses what it fetched (and fetches it all again); a suspended
  one keeps it: suspended while copying, its fetched bytes count when it resumes,
  on whatever node; suspended while computing, it resumes computing. A suspended
  remote map resumes as a computation of the time it had left at its full rate.
"""

from __future__ import annotations

import math
from typing import Final

from mypy_extensions import mypyc_attr

from planner.simulator.engine import FINISH
from planner.simulator.jobs import RACK_LOCAL, JobRun
from planner.simulator.network import Links, Network, link_capacities, node_bytes_per_second, slack_links
from planner.simulator.state import SimState

#: A reducer that has fetched everything available waits for this many seconds' worth (at its
#: node's link speed) of new map output before fetching again (or for the job's last map).
BATCH_SECONDS: Final = 1.0
#: The event kind of the network's next completion (``a`` is the network's generation).
NETWORK: Final = -5


class ShuffleState:
    """Where a job's map outputs are, and the reducers waiting for more of them."""

    __slots__ = ("chunk", "copied", "in_rack", "kept", "on_node", "step", "waiting")

    def __init__(self, shuffle_bytes: float, maps: int, reduces: int, racks: int, node_rate: float) -> None:
        self.chunk = shuffle_bytes / (maps * reduces)  # bytes of one map's output for one reducer
        self.on_node: dict[int, int] = {}  # node -> maps done there
        self.in_rack = [0] * racks
        #: Maps to wait for between fetches of a caught-up reducer.
        self.step = max(1, min(maps, math.ceil(node_rate * BATCH_SECONDS / self.chunk)))
        self.waiting: dict[int, list[tuple[int, int]]] = {}  # maps done -> (slot, attempt) to wake then
        self.kept: dict[int, list[float]] = {}  # reduce task -> bytes a suspended attempt had fetched
        self.copied: set[int] = set()  # reduce tasks suspended after their copy: they resume computing


class ReducerCopy:
    """A reducer in its copy phase: bytes fetched from its rack and from others, and in flight."""

    __slots__ = ("fetched", "job", "moving", "node", "rack", "state")

    def __init__(self, job: JobRun, state: ShuffleState, node: int, rack: int, fetched: list[float]) -> None:
        self.job = job
        self.state = state  # the job's
        self.node = node
        self.rack = rack
        self.fetched = fetched
        self.moving = [0.0, 0.0]  # bytes of the flow in progress, per class (0: none)


@mypyc_attr(allow_interpreted_subclasses=True)  # as Simulation, which tests subclass
class Transfers(SimState):
    """Remote reads and copies (see `Simulation`)."""

    def _network_init(self) -> None:
        self.network: Network | None = None
        self.copies: dict[int, ReducerCopy] = {}
        self.reads: dict[int, float] = {}  # slot -> the cap (bytes/s) of the remote map reading there
        self.network_gen = 0
        self.network_dirty = False
        self.network_bytes = {"remote_reads": 0.0, "shuffle_remote": 0.0, "shuffle_local": 0.0}
        if self.options.network:
            self.network = Network(link_capacities(self.cluster, self.layout), slack_links(self.cluster, self.layout))
            self.links = Links(self.layout)
            self.node_rate = node_bytes_per_second(self.cluster)

    def _network_job(self, job: JobRun) -> None:
        """Give an arriving job its bytes (when the network is on and the job knows them)."""
        spec = job.job
        if spec.input_bytes:  # no bytes to read: nothing to wait for
            job.block = spec.input_bytes / job.maps
        if spec.shuffle_bytes and job.reduces:
            job.shuffle = ShuffleState(spec.shuffle_bytes, job.maps, job.reduces, self.layout.racks, self.node_rate)

    def _touch(self) -> Network:
        network = self.network
        if network is None:
            raise RuntimeError("the network model is off")  # the network paths run only when it is on
        self.network_dirty = True
        return network

    # -- remote map reads ------------------------------------------------------------------
    def _read_start(self, slot: int, job: JobRun, block: float, task: int, node: int, locality: int,
                    now: float) -> None:
        """A remote map reads its block (``job.block`` bytes) over the network."""
        replicas = job.replicas[task].tolist()
        source = replicas[0]
        if locality == RACK_LOCAL:
            rack = self.layout.rack_of[node]
            source = next(holder for holder in replicas if self.layout.rack_of[holder] == rack)
        cap = block / job.map_times[task]
        self.reads[slot] = cap
        self.slot_end[slot] = math.inf  # the network decides
        self._touch().add(2 * slot, self.links.path(source, node), block, now, cap)

    # -- the copy phase --------------------------------------------------------------------
    def _copy_start(self, slot: int, job: JobRun, state: ShuffleState, task: int, node: int, now: float) -> None:
        """A reducer of ``job`` (whose shuffle is ``state``) starts its copy phase."""
        if task in state.copied:  # suspended while computing: it holds its input
            state.copied.discard(task)
            self._compute(slot, node, now)
            return
        fetched = state.kept.pop(task, None) or [0.0, 0.0]
        copy = self.copies[slot] = ReducerCopy(job, state, node, self.layout.rack_of[node], fetched)
        job.copying.append(slot)
        job.copying_on[node] = job.copying_on.get(node, 0) + 1
        self._refill(slot, copy, now, True)

    def _refill(self, slot: int, copy: ReducerCopy, now: float, eager: bool) -> None:
        """Fetch what is available (all of it when ``eager`` or the maps are done, else a batch's
        worth at least); with nothing to fetch, wait for more maps or start computing."""
        job, state = copy.job, copy.state
        done = job.maps_done
        finished = done == job.maps
        in_rack = state.in_rack[copy.rack]
        produced = (state.chunk * (in_rack - state.on_node.get(copy.node, 0)), state.chunk * (done - in_rack))
        batch = state.chunk * state.step
        for kind in (0, 1):
            if copy.moving[kind]:
                continue
            backlog = produced[kind] - copy.fetched[kind]
            if backlog > state.chunk * 1e-9 and (eager or finished or backlog >= batch):
                links = self.links
                path = (links.ingress(copy.node),) if kind == 0 else (links.ingress(copy.node), links.down(copy.rack))
                self._touch().add(2 * slot + kind, path, backlog, now)
                copy.moving[kind] = backlog
        if copy.moving[0] or copy.moving[1]:
            return
        if finished:
            del self.copies[slot]
            job.copying.remove(slot)
            job.copying_on[copy.node] = job.copying_on[copy.node] - 1
            counted = self.network_bytes
            counted["shuffle_remote"] = counted["shuffle_remote"] + (copy.fetched[0] + copy.fetched[1])
            counted["shuffle_local"] = counted["shuffle_local"] + (state.chunk * state.on_node.get(copy.node, 0))
            self._compute(slot, copy.node, now)
            return
        state.waiting.setdefault(min(job.maps, done + state.step), []).append((slot, self.slot_gen[slot]))

    def _map_output(self, job: JobRun, state: ShuffleState, node: int, now: float) -> None:
        """A map of a shuffling job (its shuffle ``state``) ended on ``node`` (its ``maps_done``
        already counts it)."""
        state.on_node[node] = state.on_node.get(node, 0) + 1
        rack = self.layout.rack_of[node]
        state.in_rack[rack] = state.in_rack[rack] + 1
        woken = state.waiting.pop(job.maps_done, None)
        if woken:
            for slot, attempt in woken:
                copy = self.copies.get(slot)
                if copy is not None and self.slot_gen[slot] == attempt:
                    self._refill(slot, copy, now, True)

    # -- events ------------------------------------------------------------------------------
    def _network_event(self, generation: int, now: float) -> None:
        """Flows completed (the event of the latest allocation only: earlier ones are stale)."""
        if generation != self.network_gen:
            return
        network = self._touch()
        ended = network.done(now)
        copies: dict[int, None] = {}
        for key in ended:
            network.remove(key, now)
        for key in ended:
            slot, kind = divmod(key, 2)
            if slot in self.reads:
                self.network_bytes["remote_reads"] = self.network_bytes["remote_reads"] + self.slot_run[slot][0].block
                del self.reads[slot]
                self.dispatch_due = True
                self._finish(slot, now)
            else:
                copy = self.copies[slot]
                copy.fetched[kind] = copy.fetched[kind] + copy.moving[kind]
                copy.moving[kind] = 0.0
                copies[slot] = None
        for slot in copies:
            waiting = self.copies.get(slot)
            if waiting is not None:
                self._refill(slot, waiting, now, False)

    def _network_settle(self, now: float) -> None:
        """The instant is over: share the links among the flows now in progress, and schedule the
        first completion."""
        network = self._touch()
        self.network_dirty = False
        network.reallocate(now)
        self.network_gen += 1
        when = network.next_done()
        if when < math.inf:
            self.events.push(max(when, self.events.now), FINISH, self.network_gen, NETWORK)

    def _network_evict(self, slot: int, now: float, suspend: bool) -> float | None:
        """Stop the transfers of the attempt on ``slot`` (a suspended reducer keeps what it
        fetched); for a remote map, return the seconds of work it had left at its full rate."""
        if slot in self.reads:
            cap = self.reads.pop(slot)
            return self._touch().remove(2 * slot, now) / cap
        copy = self.copies.pop(slot, None)
        job, kind, task, _, _ = self.slot_run[slot]
        if copy is None and suspend and kind == 1 and job.shuffle is not None:
            job.shuffle.copied.add(task)  # a computing reducer keeps its input
        if copy is not None:
            network = self._touch()
            for kind in (0, 1):
                if copy.moving[kind]:
                    copy.fetched[kind] = copy.fetched[kind] + (copy.moving[kind] - network.remove(2 * slot + kind, now))
            if suspend:
                job.shuffle.kept[task] = copy.fetched
        return None
