"""A binary heap of entries (key, order, a, b) in four typed columns, smallest (key, order) first.

The event heap (`engine.EventQueue`: time, priority and sequence, then what the event is) and
Fair's job orders (`schedulers.pair_ranked`: value, `JobRun.order`, then job index and stamp)
both order four machine words by a float and then an integer. Kept as parallel columns
(`librt.vecs.vec` of native floats and 64-bit integers) and sifted here, compiled
(`compiled.txt`), an entry is moved and compared with no object made, counted or freed. The
columns only grow; ``size`` says how much of them is the heap.
"""

from __future__ import annotations

from librt.vecs import append, vec
from mypy_extensions import i64


class EntryHeap:
    """Entry i is (keys[i], orders[i], a_of[i], b_of[i]) for i < size; entry 0 comes first."""

    __slots__ = ("a_of", "b_of", "keys", "orders", "size")

    def __init__(self) -> None:
        self.keys: vec[float] = vec[float]()
        self.orders: vec[i64] = vec[i64]()
        self.a_of: vec[i64] = vec[i64]()
        self.b_of: vec[i64] = vec[i64]()
        self.size: i64 = 0

    def put(self, position: i64, key: float, order: i64, a: i64, b: i64) -> None:
        """Write an entry at ``position`` (at most the columns' length: there they grow by one)."""
        if position == len(self.keys):
            self.keys = append(self.keys, key)
            self.orders = append(self.orders, order)
            self.a_of = append(self.a_of, a)
            self.b_of = append(self.b_of, b)
            return
        self.keys[position] = key
        self.orders[position] = order
        self.a_of[position] = a
        self.b_of[position] = b

    def move(self, source: i64, target: i64) -> None:
        self.keys[target] = self.keys[source]
        self.orders[target] = self.orders[source]
        self.a_of[target] = self.a_of[source]
        self.b_of[target] = self.b_of[source]

    def push(self, key: float, order: i64, a: i64, b: i64) -> None:
        """Add an entry: from a new last place it rises past the parents that come after it."""
        position = self.size
        self.put(position, key, order, a, b)
        self.size = position + 1
        self._rise(position, key, order, a, b)

    def drop_first(self) -> None:
        """Remove the first entry. The last takes its place: the lesser child moves up each level
        down to a leaf, then the entry rises from there (as `heapq` does: fewer comparisons than
        stopping early, since the last entry mostly belongs near the bottom)."""
        if self.size == 0:
            raise IndexError("drop from an empty heap")
        end = self.size - 1
        self.size = end
        if end == 0:
            return
        keys, orders, a_of, b_of = self.keys, self.orders, self.a_of, self.b_of
        last_key, last_order, last_a, last_b = keys[end], orders[end], a_of[end], b_of[end]
        position: i64 = 0
        child: i64 = 1
        while child < end:
            right = child + 1
            if right < end and (keys[right] < keys[child] or (
                    keys[right] == keys[child] and orders[right] < orders[child])):
                child = right
            keys[position] = keys[child]  # `move`, inlined: once per level of every event
            orders[position] = orders[child]
            a_of[position] = a_of[child]
            b_of[position] = b_of[child]
            position = child
            child = 2 * position + 1
        self._rise(position, last_key, last_order, last_a, last_b)

    def _rise(self, position: i64, key: float, order: i64, a: i64, b: i64) -> None:
        """Place the entry at ``position`` or above it, past the parents that come after it."""
        keys, orders, a_of, b_of = self.keys, self.orders, self.a_of, self.b_of
        while position > 0:
            parent = (position - 1) >> 1
            parent_key = keys[parent]
            if key < parent_key or (key == parent_key and order < orders[parent]):
                keys[position] = parent_key  # `move`, inlined
                orders[position] = orders[parent]
                a_of[position] = a_of[parent]
                b_of[position] = b_of[parent]
                position = parent
            else:
                break
        self.put(position, key, order, a, b)


class IntHeap:
    """A binary heap of 64-bit integers in one typed column, smallest first (as `heapq` on a list of
    ints, with no number boxed: the heartbeats' reports, `engine.EventQueue.ticks`)."""

    __slots__ = ("items", "size")

    def __init__(self) -> None:
        self.items: vec[i64] = vec[i64]()
        self.size: i64 = 0

    def __len__(self) -> int:
        return self.size

    def first(self) -> i64:
        if self.size == 0:
            raise IndexError("first of an empty heap")
        return self.items[0]

    def push(self, item: i64) -> None:
        """Add ``item``: from a new last place it rises past the parents greater than it."""
        position = self.size
        if position == len(self.items):
            self.items = append(self.items, item)
        self.size = position + 1
        items = self.items
        while position > 0:
            parent = (position - 1) >> 1
            above = items[parent]
            if item < above:
                items[position] = above
                position = parent
            else:
                break
        items[position] = item

    def pop(self) -> i64:
        """Remove and return the smallest item (the last takes its place as in `EntryHeap.drop_first`)."""
        if self.size == 0:
            raise IndexError("pop from an empty heap")
        items = self.items
        smallest = items[0]
        end = self.size - 1
        self.size = end
        if end == 0:
            return smallest
        last = items[end]
        position: i64 = 0
        child: i64 = 1
        while child < end:
            right = child + 1
            if right < end and items[right] < items[child]:
                child = right
            items[position] = items[child]
            position = child
            child = 2 * position + 1
        while position > 0:
            parent = (position - 1) >> 1
            above = items[parent]
            if last < above:
                items[position] = above
                position = parent
            else:
                break
        items[position] = last
        return smallest
