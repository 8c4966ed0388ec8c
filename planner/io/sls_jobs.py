"""The containers of an SLS job file, as recorded: where and when each one ran.

`read_sls` (`planner.io.json_traces`) keeps what a plan needs (task counts, mean times); a
replay of the recorded run (`planner.proof.replay`) needs each container. `read_sls_jobs(path)`
returns one `RecordedJob` per job, the records a Rumen trace's attempts become
(`planner.io.rumen_attempts`), so that both replay alike: a container is a `RumenAttempt` whose
``kind`` is its ``container.type``, ``task`` its place among the job's containers of that kind,
``host`` and ``rack`` from ``container.host`` (``/rack/host``), ``start`` and ``finish`` its
``container.start.ms`` and ``container.end.ms`` (seconds after the earliest ``job.start.ms``), and
no byte counters (the format has none). A job's ``pool`` is its ``job.queue.name``; its
``outcome`` is "SUCCESS" (the format records only jobs that ran), its ``priority`` 0 and its
``properties`` empty.

Fields the replay does not model (``job.user``, ``am.type``, ``container.priority``,
``container.execution.type``, ``container.request.delay``, ...) are named in one `TraceWarning`.
Bad input raises `InvalidInput` naming the file, the job's place and the key.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from types import MappingProxyType

from planner.io.json_traces import TraceWarning, sls_jobs
from planner.io.rumen_attempts import RecordedJob, RumenAttempt, host_and_rack

#: The keys of an SLS job and of its containers that the replay uses.
JOB_KEYS = frozenset({"job.id", "job.start.ms", "job.queue.name", "job.tasks"})
CONTAINER_KEYS = frozenset({"container.host", "container.start.ms", "container.end.ms", "container.type"})


def read_sls_jobs(path: str | Path) -> list[RecordedJob]:
    """Every job of an SLS job file with its containers as attempts (module docstring)."""
    source = str(path)
    jobs = []
    unused: set[str] = set()
    for head in sls_jobs(path):
        unused.update(key for key in head.job if key not in JOB_KEYS)
        for task in head.job["job.tasks"]:
            unused.update(f"job.tasks[].{key}" for key in task if key not in CONTAINER_KEYS)
        counts = {"map": 0, "reduce": 0}
        attempts = []
        for container in head.containers:
            host, rack = host_and_rack(container.host)
            attempts.append(RumenAttempt(job=head.name, kind=container.kind, task=counts[container.kind],
                                         host=host, rack=rack, start=container.start, finish=container.end))
            counts[container.kind] += 1
        jobs.append(RecordedJob(name=head.name, submit=head.submit, outcome="SUCCESS", pool=head.pool, priority=0,
                                properties=MappingProxyType({}), attempts=tuple(attempts)))
    if unused:
        warnings.warn(f"{source}: fields not modelled by the replay, ignored: {', '.join(sorted(unused))}",
                      TraceWarning, stacklevel=2)
    return jobs
