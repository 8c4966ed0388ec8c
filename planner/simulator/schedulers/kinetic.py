"""The least of many lines at a clock that only moves forward: a kinetic tournament.

A match between two lines changes winner only where they cross, so the tournament is kept at the
current time by replaying the matches whose crossing has come (each node knows the earliest one
in its subtree), and it lists the lines in increasing value without sorting them: the next one is
always among the subtrees beside the path of those already listed.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterator


class KineticLines:
    """Lines ``d - b (t - s)`` on the leaves 0 .. count - 1 of a tournament kept at the time
    ``now``: each match holds its winner at ``now`` and ``melt``, the first time a match in its
    subtree may change (two lines crossing). `advance` replays only those matches; putting or
    removing a line replays the matches above its leaf."""

    __slots__ = ("b", "d", "melt", "now", "s", "size", "win")

    def __init__(self, count: int) -> None:
        size = 2
        while size < count:
            size *= 2
        self.size = size
        self.win = [-1] * (2 * size)  # node -> the leaf winning its subtree (-1: no line)
        self.melt = [math.inf] * (2 * size)
        self.d = [0.0] * size
        self.b = [0.0] * size
        self.s = [0.0] * size
        self.now = 0.0

    def __contains__(self, leaf: int) -> bool:
        return self.win[self.size + leaf] >= 0

    def value(self, leaf: int, now: float) -> float:
        return self.d[leaf] - self.b[leaf] * (now - self.s[leaf])

    def put(self, leaf: int, d: float, b: float, s: float) -> None:
        self.d[leaf], self.b[leaf], self.s[leaf] = d, b, s
        self._set(leaf, leaf)

    def remove(self, leaf: int) -> None:
        self._set(leaf, -1)

    def _set(self, leaf: int, value: int) -> None:
        win, melt = self.win, self.melt
        node = self.size + leaf
        win[node] = value
        node >>= 1
        while node:
            before = win[node], melt[node]
            self._match(node)
            if before[0] != leaf and win[node] == before[0] and melt[node] == before[1]:
                return  # nothing above depends on more than this node's winner and melt
            node >>= 1

    def advance(self, now: float) -> None:
        """Bring every match to ``now`` (time only moves forward)."""
        self.now = now
        melt = self.melt
        if melt[1] > now:
            return
        size = self.size
        stack, due = [1], []
        while stack:
            node = stack.pop()
            due.append(node)
            child = 2 * node
            if child < size:
                if melt[child] <= now:
                    stack.append(child)
                if melt[child + 1] <= now:
                    stack.append(child + 1)
        for node in reversed(due):  # children before their parents
            self._match(node)

    def _match(self, node: int) -> None:
        win, melt = self.win, self.melt
        left, right = win[2 * node], win[2 * node + 1]
        soon = min(melt[2 * node], melt[2 * node + 1])
        if left < 0 or right < 0:
            win[node] = right if left < 0 else left
        else:
            now, d, b, s = self.now, self.d, self.b, self.s
            at_left = d[left] - b[left] * (now - s[left])
            at_right = d[right] - b[right] * (now - s[right])
            if at_left < at_right or (at_left == at_right and b[left] >= b[right]):
                winner, loser, gap = left, right, at_right - at_left
            else:
                winner, loser, gap = right, left, at_left - at_right
            win[node] = winner
            faster = b[loser] - b[winner]
            if faster > 0:  # the loser falls faster: it wins from where the lines cross
                cross = now + gap / faster
                soon = min(soon, cross if cross > now else math.nextafter(now, math.inf))
        melt[node] = soon

    def ordered(self) -> Iterator[tuple[float, int]]:
        """(value at ``now``, leaf) in increasing value (up to rounding), lazily: the first costs
        nothing, each next one O(log count)."""
        win, size, now = self.win, self.size, self.now
        if win[1] < 0:
            return
        heap = [(self.value(win[1], now), 1)]
        while heap:
            value, node = heapq.heappop(heap)
            leaf = win[node]
            yield value, leaf
            while node < size:  # the subtrees beside the winner's path hold the next ones
                node *= 2
                beside = node + 1
                if win[node] != leaf:
                    node, beside = beside, node
                other = win[beside]
                if other >= 0:
                    heapq.heappush(heap, (self.value(other, now), beside))


__all__ = ["KineticLines"]
