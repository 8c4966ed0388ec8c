"""Task attempts as records, and result files written a chunk of records at a time."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, NamedTuple, TextIO

from models.fileio import write_atomic
from planner.simulator.jobs import LOCALITY_NAMES
from planner.simulator.layout import KIND_NAMES

if TYPE_CHECKING:
    from planner.simulator.result import SimResult

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


#: Task records turned into text at a time when a result file is written.
WRITE_CHUNK: Final = 50_000
_LIST_HEAD = '{\n "tasks": [\n'
_LIST_TAIL = "\n ]\n}"


def write_result_json(path: str | Path, result: SimResult, *, tasks: bool = True, chunk: int = WRITE_CHUNK) -> None:
    """Write ``result.to_json(tasks=tasks)``'s very bytes to ``path``, atomically, holding at
    most ``chunk`` task records at a time.

    The document without its task list is dumped as usual; the list is spliced in where
    the dump has ``"tasks": []``, each chunk dumped at the list's own depth (as the value of
    a ``"tasks"`` key, with that wrapper's first and last lines cut off).
    """
    head = result.to_dict(tasks=False)
    log = result.attempt_log
    if not tasks or not len(log):
        if tasks:
            head["tasks"] = []
        write_atomic(path, json.dumps(head, indent=1, sort_keys=True))
        return
    head["tasks"] = []
    before, after = json.dumps(head, indent=1, sort_keys=True).split('"tasks": []', 1)
    order = log.start_order()

    def write(stream: TextIO) -> None:
        stream.write(before + '"tasks": [\n')
        for first in range(0, len(order), chunk):
            records = task_records(log.rows(order, first, first + chunk), result.job_names)
            text = json.dumps({"tasks": records}, indent=1, sort_keys=True)
            if first:
                stream.write(",\n")
            stream.write(text[len(_LIST_HEAD) : -len(_LIST_TAIL)])
        stream.write("\n ]" + after)

    write_atomic(path, write)
