"""Task attempts as records (`planner.io.results` writes them to a result file)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final, NamedTuple

from planner.simulator.jobs import LOCALITY_NAMES
from planner.simulator.layout import KIND_NAMES

FATES = ("done", "killed", "suspended")
DONE_FATE: Final = 0
KILLED_FATE: Final = 1
SUSPENDED_FATE: Final = 2


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


def task_records(rows: Iterable[tuple], names: list[str]) -> list[dict[str, Any]]:
    """Flat records of attempt rows (`Attempt` fields), in the rows' order: job, task, kind,
    node, slot, start, end, locality, fate."""
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
        for job, kind, task, node, slot, start, end, locality, fate in rows
    ]
