"""A synthetic pipeline structure for a batch without one: `add_pipelines`.

Public traces (SWIM, Rumen, SYNTH, SWF) record no dependencies between jobs. To study a batch of
pipelines on their shapes, `add_pipelines` makes a chosen fraction of the jobs wait for an earlier
job of the same pool, by this rule, drawn from one NumPy generator seeded by ``seed``:

1. The jobs are ranked by (submit time, position in the batch).
2. A job is *eligible* when a job of its pool ranks before it.
3. ``round(fraction x jobs)`` of the eligible jobs (all of them if fewer; halves round to even)
   are chosen uniformly without replacement (``Generator.choice``).
4. In rank order, each chosen job waits for one of the ``window`` latest jobs of its pool ranked
   before it (fewer when fewer rank before it), drawn uniformly (``Generator.integers``): a
   dependency with ``delay`` seconds (`models.dag.Dependency`).

Every dependency points to an earlier-ranked job, so the graph has no cycle; a job waits for at
most one job it did not wait for before, and its submit time stays. The same batch, fraction,
window, delay and seed give the same dependencies. A batch that already has dependencies is
refused (its own graph could meet the new edges in a cycle). ``planner import ... --pipelines
FRACTION`` (with ``--pipeline-seed``) applies it to an imported trace.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from models import InvalidInput, Workload
from models.checks import as_float, as_instance, as_int
from models.dag import Dependency
from models.limits import MAX_SECONDS
from planner.limits import MAX_SEED

__all__ = ["PIPELINE_WINDOW", "add_pipelines"]

#: How many of the latest earlier jobs of its pool a chosen job may wait for (the rule's step 4).
PIPELINE_WINDOW = 5


def add_pipelines(workload: Workload, fraction: float = 0.3, *, seed: int = 0, window: int = PIPELINE_WINDOW,
                  delay: float = 0.0) -> Workload:
    """``workload`` with a fraction of its jobs waiting for an earlier job of their pool (the module
    docstring's rule), as a new `Workload` of the same name and job order.

    >>> from models import Job
    >>> batch = Workload([Job(f"j{i}", 1, 0, 10.0, submit=float(i)) for i in range(4)])
    >>> print(*(",".join(d.job for d in job.after) or "-" for job in add_pipelines(batch, 0.5, seed=1)))
    - j0 j0 -
    """
    as_instance(workload, Workload, "workload")
    fraction = as_float(fraction, "fraction", minimum=0.0, maximum=1.0)
    seed = as_int(seed, "seed", minimum=0, maximum=MAX_SEED)
    window = as_int(window, "window", minimum=1)
    delay = as_float(delay, "delay", minimum=0.0, maximum=MAX_SECONDS)
    jobs = workload.jobs
    if workload.has_dependencies:
        waiting = next(job for job in jobs if job.after)
        raise InvalidInput("workload", f"already has dependencies (job {waiting.name!r} waits for "
                                       f"{waiting.after[0].job!r}); pipelines are added to a batch without any")
    ranked = sorted(range(len(jobs)), key=lambda position: (jobs[position].submit, position))
    before: dict[str, list[int]] = defaultdict(list)  # pool -> its jobs ranked so far
    earlier: dict[int, list[int]] = {}  # eligible job -> the jobs of its pool ranked before it
    for position in ranked:
        pool = before[jobs[position].pool]
        if pool:
            earlier[position] = pool[-window:]
        pool.append(position)
    eligible = [position for position in ranked if position in earlier]
    count = min(round(fraction * len(jobs)), len(eligible))
    rng = np.random.default_rng(seed)
    picked = {eligible[i] for i in rng.choice(len(eligible), size=count, replace=False).tolist()} if count else set()
    waits: dict[int, int] = {}
    for position in ranked:
        if position in picked:
            candidates = earlier[position]
            waits[position] = candidates[len(candidates) - 1 - int(rng.integers(len(candidates)))]
    changed = [job.with_changes(after=(Dependency(jobs[waits[position]].name, delay),)) if position in waits else job
               for position, job in enumerate(jobs)]
    return Workload(changed, name=workload.name)
