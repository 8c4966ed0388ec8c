"""Task attempts, logged as tuples when they end (cheap to append a million of)."""

from __future__ import annotations

from typing import Any, NamedTuple

from planner.simulator.layout import KIND_NAMES

FATES = ("done", "killed", "suspended")
LOCALITY_NAMES = ("node", "rack", "off")
DONE_FATE, KILLED_FATE, SUSPENDED_FATE = 0, 1, 2


class Attempt(NamedTuple):
    """One task attempt: job is the job's position in the workload; kind 0 map, 1 reduce;
    locality 0 node, 1 rack, 2 off-rack, -1 for reduces; fate 0 done, 1 killed, 2 suspended."""

    job: int
    kind: int
    task: int
    node: int
    slot: int
    start: float
    end: float
    locality: int
    fate: int


def attempt_records(rows: list[tuple], names: list[str]) -> list[dict[str, Any]]:
    """Flat records, in order of start time (then slot): job, task, kind, node,
    slot, start, end, locality, fate."""
    ordered = sorted(rows, key=lambda row: (row[5], row[4], row[6]))
    return [
        {
            "job": names[job],
            "task": task,
            "kind": KIND_NAMES[kind],
            "node": node,
            "slot": slot,
            "start": start,
            "end": end,
            "locality": LOCALITY_NAMES[locality] if locality >= 0 else None,
            "fate": FATES[fate],
        }
        for job, kind, task, node, slot, start, end, locality, fate in ordered
    ]
