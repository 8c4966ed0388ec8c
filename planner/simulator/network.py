"""Links shared by transfers: a fluid max-min fair model of a cluster's network.

Every node has a full-duplex link to its rack switch (``ingress`` into the node,
``egress`` out of it), every rack a full-duplex uplink to the core (``down`` into
the rack, ``up`` out of it). A transfer is a *flow* over the links it crosses;
at every instant the flows' rates are the max-min fair allocation (progressive
filling): no link carries more than its capacity, and no flow could go faster
without slowing a flow that is no faster. A flow may also have a rate cap of
its own (a map reading its block cannot consume it faster than it computes).

Rates change only when the set of flows changes, so between changes every flow
moves at a constant rate: the model is exact for fluid flows and costs one
allocation per flow start or end (packets, TCP dynamics and the sending side's
disks are not modelled).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from typing import Final

from models import Cluster
from planner.simulator.layout import Layout

#: A flow is complete once this fraction of its bytes is left: float round-off.
_DONE_FRACTION: Final = 1e-9
_DONE_SECONDS: Final = 1e-6


def node_bytes_per_second(cluster: Cluster) -> float:
    """What a node's link carries each way: ``cluster.network_gbps`` in bytes per second."""
    return cluster.network_gbps * 1e9 / 8


def link_capacities(cluster: Cluster, layout: Layout) -> list[float]:
    """Bytes per second of every link: node ingress, node egress, rack down, rack up (in that order).

    A node's link carries ``cluster.network_gbps``; a rack's uplink carries its nodes' total
    divided by ``cluster.rack_oversubscription``.
    """
    node = node_bytes_per_second(cluster)
    per_node = [node] * layout.nodes
    racks = [float(size) * node / cluster.rack_oversubscription for size in layout.rack_size.tolist()]
    return per_node + per_node + racks + racks


def slack_links(cluster: Cluster, layout: Layout) -> frozenset[int]:
    """The links that can never fill before the node links of their flows: the racks' (down and up)
    when racks are non-blocking (``cluster.rack_oversubscription`` 1).

    Every flow over a rack's link also crosses the link of one of the rack's nodes (the reader's
    ingress down, the sender's egress up), so the link carries at most what its nodes' links carry
    together, its capacity. The max-min rates without such links satisfy them too, so they are the
    rates with them (to round-off: the filling subtracts in another order). `Network` leaves these
    links out, and a change then reaches only the flows that share a node's link with it, not every
    flow in and out of the rack.
    """
    if cluster.rack_oversubscription > 1:
        return frozenset()
    return frozenset(range(2 * layout.nodes, 2 * layout.nodes + 2 * layout.racks))


class Links:
    """Where each link of a layout sits in `link_capacities`' list."""

    __slots__ = ("nodes", "rack_of", "racks")

    def __init__(self, layout: Layout) -> None:
        self.nodes = layout.nodes
        self.racks = layout.racks
        self.rack_of = layout.rack_of

    def ingress(self, node: int) -> int:
        return node

    def egress(self, node: int) -> int:
        return self.nodes + node

    def down(self, rack: int) -> int:
        return 2 * self.nodes + rack

    def up(self, rack: int) -> int:
        return 2 * self.nodes + self.racks + rack

    def path(self, source: int, target: int) -> tuple[int, ...]:
        """The links a transfer from node ``source`` to node ``target`` crosses (none on one node)."""
        if source == target:
            return ()
        rack_s, rack_t = self.rack_of[source], self.rack_of[target]
        if rack_s == rack_t:
            return (self.egress(source), self.ingress(target))
        return (self.egress(source), self.up(rack_s), self.down(rack_t), self.ingress(target))


def max_min_rates(capacity: Sequence[float], paths: Sequence[Sequence[int]], caps: Sequence[float]) -> list[float]:
    """The max-min fair rates of flows over links (progressive filling).

    ``paths[f]`` lists the links flow ``f`` crosses (at least one), ``caps[f]`` its
    own rate limit (``math.inf`` for none). All unfrozen flows grow at the same
    pace; a flow freezes when a link it crosses fills up or it reaches its cap.
    A pure function: the network calls it on every change, the tests with
    numbers worked by hand.

    While the unfrozen flows all move at the common level, link ``l`` fills at
    level (capacity - rates of its frozen flows) / its unfrozen flows, whatever
    the current level: a heap of those levels (stale entries skipped) and the caps
    in order give the next flow to freeze in O(log) time.
    """
    count = len(paths)
    rates = [0.0] * count
    left: dict[int, float] = {}
    users: dict[int, list[int]] = {}
    for flow, path in enumerate(paths):
        for link in path:
            if link in users:
                users[link].append(flow)
            else:
                users[link] = [flow]
                left[link] = float(capacity[link])
    unfrozen = {link: len(flows) for link, flows in users.items()}
    version = dict.fromkeys(users, 0)  # a heap entry of an older version is stale
    fills = [(left[link] / unfrozen[link], 0, link) for link in users]
    heapq.heapify(fills)
    frozen = [False] * count
    by_cap = sorted((caps[flow], flow) for flow in range(count) if caps[flow] < math.inf)
    next_cap = 0
    remaining = count
    while remaining:
        while next_cap < len(by_cap) and frozen[by_cap[next_cap][1]]:
            next_cap += 1
        while fills:  # drop stale entries: the link's level changed since, or it has no unfrozen flow
            _, seen, link = fills[0]
            if unfrozen[link] and seen == version[link]:
                break
            heapq.heappop(fills)
        link_level = fills[0][0] if fills else math.inf
        if next_cap < len(by_cap) and by_cap[next_cap][0] <= link_level:
            level, flow = by_cap[next_cap]
            freezing = [flow]
        else:
            level, _, link = fills[0]
            freezing = [flow for flow in users[link] if not frozen[flow]]
        touched = set()
        for flow in freezing:
            frozen[flow] = True
            rates[flow] = level
            remaining -= 1
            for link in paths[flow]:
                left[link] = left[link] - level
                unfrozen[link] = unfrozen[link] - 1
                touched.add(link)
        for link in touched:
            version[link] = version[link] + 1
            if unfrozen[link]:
                heapq.heappush(fills, (max(left[link], 0.0) / unfrozen[link], version[link], link))
    return rates


class Network:
    """The flows in progress and their rates; one per simulation.

    A flow is identified by an integer key chosen by the caller. `add` and
    `remove` change the set of flows; `reallocate` then recomputes the rates of
    the flows that share links, directly or through other flows, with the changed
    ones (their *component*: the others' rates cannot change), once per instant
    however many flows changed. Progress is kept lazily (bytes left at the last
    change of rate), and the completion times sit in a heap, so that a change
    costs the size of its component, not of the whole network. A flow whose rate
    comes out the same keeps its progress and its completion (most do: a change
    moves the flows that share its bottlenecks).
    """

    __slots__ = ("capacity", "caps", "dirty", "ends", "left", "moved", "paths", "rates", "sequence", "since",
                 "sizes", "slack", "users", "version")

    def __init__(self, capacity: list[float], slack: frozenset[int] = frozenset()) -> None:
        self.capacity = capacity
        self.slack = slack  # links that never fill first (`slack_links`): flows leave them out
        self.paths: dict[int, tuple[int, ...]] = {}  # the flows in progress, in order of start
        self.caps: dict[int, float] = {}
        self.sizes: dict[int, float] = {}
        self.left: dict[int, float] = {}  # bytes left at ``since``
        self.since: dict[int, float] = {}
        self.rates: dict[int, float] = {}
        self.version: dict[int, int] = {}  # a completion in ``ends`` of another allocation is stale
        self.users: dict[int, dict[int, None]] = {}  # link -> flows crossing it
        self.dirty: dict[int, None] = {}  # links whose flows changed since the last allocation
        self.ends: list[tuple[float, int, int, int]] = []  # (completion, sequence, flow, version)
        self.sequence = 0
        self.moved = 0.0  # bytes moved over the network in all

    def remaining(self, key: int, now: float) -> float:
        """Bytes flow ``key`` has left to move at ``now``."""
        return max(0.0, self.left[key] - self.rates[key] * (now - self.since[key]))

    def add(self, key: int, path: tuple[int, ...], size: float, now: float, cap: float = math.inf) -> None:
        """Start moving ``size`` bytes over ``path`` (at most ``cap`` bytes per second) at ``now``."""
        if key in self.paths:
            raise RuntimeError(f"flow {key} is already in progress")
        if self.slack:
            path = tuple(link for link in path if link not in self.slack) or path
        self.paths[key] = path
        self.caps[key] = cap
        self.sizes[key] = self.left[key] = size
        self.since[key] = now
        self.rates[key] = 0.0
        self.version[key] = 0
        users = self.users
        for link in path:
            if link in users:
                users[link][key] = None
            else:
                users[link] = {key: None}
            self.dirty[link] = None

    def remove(self, key: int, now: float) -> float:
        """Stop a flow at ``now``; return the bytes it had left (0 when it was done)."""
        left = self.remaining(key, now)
        size = self.sizes.pop(key)
        rate = self.rates.pop(key)
        if left <= max(size * _DONE_FRACTION, rate * _DONE_SECONDS):
            left = 0.0
        self.moved += size - left
        path = self.paths.pop(key)
        for link in path:
            del self.users[link][key]
            self.dirty[link] = None
        del self.caps[key], self.left[key], self.since[key], self.version[key]
        return left

    def done(self, now: float) -> list[int]:
        """Keys of the flows with nothing left to move at ``now``, in order of completion.

        Nothing left is a microsecond's worth at the flow's rate: at a clock of a day, one
        step of the clock's float is worth less than that.
        """
        ends, version = self.ends, self.version
        found = []
        while ends and ends[0][0] <= now + _DONE_SECONDS:
            _, _, key, seen = heapq.heappop(ends)
            if version.get(key) == seen:
                found.append(key)
        return found

    def reallocate(self, now: float) -> None:
        """Share the links again among the flows of the components that changed."""
        if not self.dirty:
            return
        users, paths = self.users, self.paths
        links: set[int] = set()
        component: dict[int, None] = {}
        stack = list(self.dirty)
        self.dirty = {}
        while stack:
            link = stack.pop()
            if link in links:
                continue
            links.add(link)
            for key in users.get(link, ()):
                if key not in component:
                    component[key] = None
                    stack.extend(other for other in paths[key] if other not in links)
        flows = sorted(component)  # the order of the computation: by key, whatever the history
        rates = max_min_rates(self.capacity, [paths[key] for key in flows], [self.caps[key] for key in flows])
        ends, left, since, version, current = self.ends, self.left, self.since, self.version, self.rates
        for key, rate in zip(flows, rates, strict=True):
            if rate == current[key]:
                continue  # its progress and its completion in ``ends`` stand: most of a component keeps its rate
            remaining = self.remaining(key, now)  # at the old rate, which ends now
            left[key] = remaining
            since[key] = now
            current[key] = rate
            self.sequence += 1  # one number per allocation ever made: a key used again never matches old entries
            version[key] = self.sequence
            if rate > 0:
                heapq.heappush(ends, (now + remaining / rate, self.sequence, key, self.sequence))

    def next_done(self) -> float:
        """When the first flow completes at the current rates (``math.inf`` with none)."""
        ends, version = self.ends, self.version
        while ends and version.get(ends[0][2]) != ends[0][3]:
            heapq.heappop(ends)
        return ends[0][0] if ends else math.inf
