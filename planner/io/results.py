"""A run's result file: `SimResult.to_json`'s bytes written a chunk of task records at a time, or a
VM-level run's (`VmResult.to_json`: a record per job and per phase, no task attempts)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final, TextIO

from models.checks import as_bool, as_instance, as_int, as_path
from models.fileio import write_atomic
from models.limits import MAX_TASKS
from planner.simulator.records import task_records
from planner.simulator.result import SimResult
from planner.simulator.vms import VmResult

#: Task records turned into text at a time when a result file is written.
WRITE_CHUNK: Final = 50_000
_LIST_HEAD = '{\n "tasks": [\n'
_LIST_TAIL = "\n ]\n}"


def write_result_json(path: str | Path, result: SimResult | VmResult, *, tasks: bool = True,
                      chunk: int = WRITE_CHUNK) -> None:
    """Write ``result.to_json(tasks=tasks)``'s very bytes to ``path``, atomically, holding at
    most ``chunk`` task records at a time; a `VmResult` (a VM plan's run) has no task attempts:
    its ``to_json()`` whatever ``tasks`` says.

    The document without its task list is dumped as usual; the list is spliced in where
    the dump has ``"tasks": []``, each chunk dumped at the list's own depth (as the value of
    a ``"tasks"`` key, with that wrapper's first and last lines cut off).
    """
    path = as_path(path, "path")
    as_instance(result, (SimResult, VmResult), "result")
    tasks = as_bool(tasks, "tasks")
    chunk = as_int(chunk, "chunk", minimum=1, maximum=MAX_TASKS)
    if isinstance(result, VmResult):
        write_atomic(path, result.to_json())
        return
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
