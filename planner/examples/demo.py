"""The main job on bundled data (tonight's batch planned and proven): what `planner demo` and `make demo` run."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from models import Cluster, Workload
from models.checks import as_instance, as_int, as_str
from planner.defaults import DEFAULT_TARGET_RUNS
from planner.io.summary import workload_summary
from planner.io.swim import read_swim
from planner.limits import MAX_RUNS, MAX_SEED
from planner.planning.deploy import plan_for_target
from planner.planning.report import headline, recommendation
from planner.plans.plan import Plan
from planner.proof.sweep import ExecutorChoice, ProgressOption, check_progress
from planner.proof.validate import ValidationReport, check_noise, example_run, validate
from planner.simulator import SimResult

SWIM_SAMPLE = "FB-2009_samples_24_times_1hr_0_first50jobs.tsv"
RUMEN_SAMPLE = "rumen-wordcount.json"
#: The cluster the demo plans for: 20 nodes of 2 map + 2 reduce slots (a small
#: slice of the 600-machine cluster the FB-2009 trace came from).
DEMO_CLUSTER = Cluster(nodes=20, map_slots=2, reduce_slots=2, racks=2)


def bundled(name: str) -> Path:
    """Path of a file shipped in planner/data (see its NOTICE.md); ``name`` is one of its files.

    Found beside the package's own files, not through `importlib.resources`: that imports
    `importlib.readers` on first use, one more import that can fail late (issue 39's read-only `-o`
    case ended in ModuleNotFoundError for that module); the package is never zipped."""
    data = Path(__file__).resolve().parent.parent / "data"
    shipped = sorted(entry.name for entry in data.iterdir() if entry.is_file() and not entry.name.startswith("."))
    return Path(str(data / as_str(name, "name", choices=shipped)))


#: Tonight's batch of the demo (see NOTICE.md): the first 40 jobs of the FB-2009 day with at
#: least 10 maps and a reduce phase, converted with `read_swim`'s defaults.
NIGHTLY_BATCH = "FB-2009_nightly40.tsv"


def nightly_batch() -> Workload:
    """The bundled nightly batch (40 jobs from the SWIM FB-2009 trace, NOTICE.md)."""
    return read_swim(bundled(NIGHTLY_BATCH))


#: What the demo plans for, and what for: containers' makespan is nearly fixed (every
#: work-conserving schedule ends close to total work / containers), so on YARN the plan is about who
#: finishes when; on Hadoop 1's typed slots the split and the order move the makespan.
DEMO_TARGETS = (("yarn-fair", "mean_response"), ("mrv1", "makespan"))


@dataclass(frozen=True)
class DemoResult:
    """What `run_demo` made: the batch, a plan per target (`DEMO_TARGETS`), the validation of the
    first (YARN) plan on a fresh sample, and one noise-free run of it as exported."""

    workload: Workload
    cluster: Cluster
    plans: dict[str, Plan]
    report: ValidationReport
    example: SimResult

    @property
    def plan(self) -> Plan:
        """The validated plan: the first target's."""
        return self.plans[DEMO_TARGETS[0][0]]

    def timings(self) -> dict[str, float]:
        """Wall seconds of each plan (keyed as in `sections`) and of the validation: measurements,
        the only figures that vary from run to run (``--json``'s ``timings``)."""
        return {**{f"plan_{target.replace('-', '_')}": plan.seconds for target, plan in self.plans.items()},
                "validation": self.report.seconds}

    def sections(self) -> list[tuple[str, str, list[dict[str, Any]]]]:
        """The printed summary as (key, title, records): the batch, each target's recommendation
        and why (with the bounds), the validation and each setup. The keys are the command's JSON
        keys; the titles are for people."""
        parts = [("batch", f"tonight's batch ({self.workload.name}: SWIM FB-2009, 40 jobs)",
                  [workload_summary(self.workload)])]
        for target, plan in self.plans.items():
            parts.append((f"plan_{target.replace('-', '_')}",
                          f"plan for {target} ({plan.objective}) on {self.cluster.nodes} nodes: {headline(plan)}",
                          [recommendation(plan)]))
        parts += [("validation", f"validation of the {DEMO_TARGETS[0][0]} plan on a fresh sample (seed "
                                 f"{self.report.seed})", [self.report.summary()]),
                  ("setups", f"{self.plan.objective} as simulated, plan and baselines", self.report.brief())]
        return parts


def run_demo(
    cluster: Cluster = DEMO_CLUSTER,
    *,
    runs: int = 30,
    noise: float = 0.3,
    seed: int = 0,
    plan_runs: int = DEFAULT_TARGET_RUNS,
    executor: ExecutorChoice = None,
    progress: ProgressOption = False,
) -> DemoResult:
    """Plan tonight's bundled batch for YARN and for Hadoop 1, and prove the YARN plan.

    - the batch: `nightly_batch` (40 FB-2009 jobs, every one ready at the start);
    - the plans (`plan_for_target`, ``plan_runs`` paired runs each, seed ``seed``): for yarn-fair
      on the mean response (on containers the makespan is nearly fixed: the plan says how close
      to its bound it is) and for mrv1 on the makespan; each from the target's stock
      configuration, chosen by simulating what it exports, and "keep your configuration" when
      nothing beats it;
    - the validation of the YARN plan (`validate`): ``runs`` runs on a fresh sample (seed + 1:
      the figure differs from planning's by sampling only) against the configuration as it is,
      FIFO and Fair;
    - one noise-free run of the YARN plan as exported, for the Gantt chart and fairness over time.
    """
    as_instance(cluster, Cluster, "cluster")  # all before the planning
    runs, noise = as_int(runs, "runs", minimum=2, maximum=MAX_RUNS), check_noise(noise)
    seed = as_int(seed, "seed", minimum=0, maximum=MAX_SEED - 1)  # the validation's is seed + 1
    as_int(plan_runs, "plan_runs", minimum=2, maximum=MAX_RUNS)
    check_progress(progress)
    workload = nightly_batch()
    plans = {target: plan_for_target(workload, cluster, target, objective=objective, ready_now=True, runs=plan_runs,
                                     noise=noise, seed=seed, executor=executor, progress=progress)
             for target, objective in DEMO_TARGETS}
    first = plans[DEMO_TARGETS[0][0]]
    report = validate(first, workload, cluster, runs=runs, noise=noise, seed=seed + 1, executor=executor,
                      progress=progress)
    example = example_run(first, workload, cluster, seed=seed)
    if not isinstance(example, SimResult):  # a target plan runs task by task
        raise TypeError(f"expected a task-level run, got {type(example).__name__}")
    return DemoResult(workload, cluster, plans, report, example)
