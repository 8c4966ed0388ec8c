"""The least of many lines at a clock that only moves forward: a kinetic tournament.

A match between two lines changes winner only where they cross, so the tournament is kept at the
current time by replaying the matches whose crossing has come (each node knows the earliest one
in its subtree), and it lists the lines in increasing value without sorting them: the next one is
always among the subtrees beside the path of those already listed.
"""

from __future__ import annotations

import math

from librt.vecs import vec
from mypy_extensions import i64

from planner.simulator.entry_heap import EntryHeap


class KineticLines:
    """Lines ``d - b (t - s)`` on the leaves 0 .. count - 1 of a tournament kept at the time
    ``now``: each match holds its winner at ``now`` and ``melt``, the first time a match in its
    subtree may change (two lines crossing). `advance` replays only those matches; putting or
    removing a line replays the matches above its leaf."""

    __slots__ = ("b", "d", "due", "listing", "melt", "now", "s", "size", "stack", "win")

    def __init__(self, count: int) -> None:
        size = 2
        while size < count:
            size *= 2
        self.size: i64 = size
        # Typed columns (`librt.vecs.vec`): a match reads and writes machine words, no float objects.
        self.win = vec[i64]([-1] * (2 * size))  # node -> the leaf winning its subtree (-1: no line)
        self.melt = vec[float]([math.inf] * (2 * size))
        self.d = vec[float]([0.0] * size)
        self.b = vec[float]([0.0] * size)
        self.s = vec[float]([0.0] * size)
        self.now = 0.0
        self.listing: LinesInOrder | None = None  # `ordered`'s, made again each time from its columns
        # `advance`'s stack of nodes to look at and the nodes due, in order (each node once at most).
        self.stack = vec[i64]([0] * (2 * size))
        self.due = vec[i64]([0] * (2 * size))

    def __contains__(self, leaf: int) -> bool:
        return self.win[self.size + leaf] >= 0

    def value(self, leaf: i64, now: float) -> float:
        return self.d[leaf] - self.b[leaf] * (now - self.s[leaf])

    def put(self, leaf: i64, d: float, b: float, s: float) -> None:
        self.d[leaf] = d
        self.b[leaf] = b
        self.s[leaf] = s
        self._set(leaf, leaf)

    def remove(self, leaf: i64) -> None:
        self._set(leaf, -1)

    def _set(self, leaf: i64, value: i64) -> None:
        node = self.size + leaf
        self.win[node] = value
        node >>= 1
        while node:
            winner, melt = self.win[node], self.melt[node]
            self._match(node)
            if winner != leaf and self.win[node] == winner and self.melt[node] == melt:
                return  # nothing above depends on more than this node's winner and melt
            node >>= 1

    def advance(self, now: float) -> None:
        """Bring every match to ``now`` (time only moves forward)."""
        self.now = now
        melt = self.melt
        if melt[1] > now:
            return
        size, stack, due = self.size, self.stack, self.due
        stack[0] = 1
        top: i64 = 1
        count: i64 = 0
        while top:
            top -= 1
            node = stack[top]
            due[count] = node
            count += 1
            child = 2 * node
            if child < size:
                if melt[child] <= now:
                    stack[top] = child
                    top += 1
                if melt[child + 1] <= now:
                    stack[top] = child + 1
                    top += 1
        for position in range(count - 1, -1, -1):  # children before their parents
            self._match(due[position])

    def _match(self, node: i64) -> None:
        left, right = self.win[2 * node], self.win[2 * node + 1]
        soon = min(self.melt[2 * node], self.melt[2 * node + 1])
        if left < 0 or right < 0:
            self.win[node] = right if left < 0 else left
        else:
            now, d, b, s = self.now, self.d, self.b, self.s
            at_left = d[left] - b[left] * (now - s[left])
            at_right = d[right] - b[right] * (now - s[right])
            if at_left < at_right or (at_left == at_right and b[left] >= b[right]):
                winner, loser, gap = left, right, at_right - at_left
            else:
                winner, loser, gap = right, left, at_left - at_right
            self.win[node] = winner
            faster = b[loser] - b[winner]
            if faster > 0:  # the loser falls faster: it wins from where the lines cross
                cross = now + gap / faster
                soon = min(soon, cross if cross > now else math.nextafter(now, math.inf))
        self.melt[node] = soon

    def runner_up(self) -> i64:
        """The node whose winner is the second line at ``now`` (-1: fewer than two lines): the
        least, by (value, node), of the subtrees beside the winner's path, as the second `step`
        of `ordered` finds it, with no heap (a decision mostly needs no third)."""
        win, size, now = self.win, self.size, self.now
        leaf = win[1]
        best_node: i64 = -1
        best = math.inf
        node: i64 = 1
        while node < size:
            node *= 2
            beside = node + 1
            if win[node] != leaf:
                node, beside = beside, node
            other = win[beside]
            if other >= 0:
                value = self.value(other, now)
                if best_node < 0 or value < best or (value == best and beside < best_node):
                    best, best_node = value, beside
        return best_node

    def ordered(self) -> LinesInOrder:
        """The lines in increasing value at ``now`` (up to rounding), lazily: the first costs
        nothing, each next one O(log count). One listing at a time: each call starts it again
        (its heap's columns are kept, so a listing allocates nothing once they have grown)."""
        if self.listing is None:
            self.listing = LinesInOrder(self)
        else:
            self.listing.restart()
        return self.listing


class LinesInOrder:
    """The lines of a `KineticLines` at its time, one `step` at a time: ``value`` and ``leaf`` of
    the next (the next one is always among the subtrees beside the path of those already listed,
    kept on a heap by (value, node))."""

    __slots__ = ("heap", "leaf", "lines", "value")

    def __init__(self, lines: KineticLines) -> None:
        self.lines = lines
        self.heap = EntryHeap()
        self.value = math.inf
        self.leaf: i64 = -1
        self.restart()

    def restart(self) -> None:
        """List from the least line again, at the lines' time now."""
        lines = self.lines
        self.heap.size = 0
        self.value, self.leaf = math.inf, -1
        if lines.win[1] >= 0:
            self.heap.push(lines.value(lines.win[1], lines.now), 1, 0, 0)

    def step(self) -> bool:
        """Move to the next line (``value``, ``leaf``); False when none is left."""
        heap, lines = self.heap, self.lines
        if heap.size == 0:
            return False
        self.value = heap.keys[0]
        node = heap.orders[0]
        heap.drop_first()
        win, size, now = lines.win, lines.size, lines.now
        leaf = win[node]
        self.leaf = leaf
        while node < size:  # the subtrees beside the winner's path hold the next ones
            node *= 2
            beside = node + 1
            if win[node] != leaf:
                node, beside = beside, node
            other = win[beside]
            if other >= 0:
                heap.push(lines.value(other, now), beside, 0, 0)
        return True


__all__ = ["KineticLines", "LinesInOrder"]
