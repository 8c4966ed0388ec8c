"""The export targets' contract (`planner.io.targets`), one test for every registered target and for a
throwaway one a test registers: the files hold a README.md and a submit.sh, the files written to a
folder and read back simulate to exactly what the target's run simulates, the notes are words; and
the registry's rules (the same class again is harmless, another class under a taken name and a bad
name are refused)."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest

from models import Cluster, InvalidInput, Workload
from planner import make_plan
from planner.io.hadoop.targets import HadoopTarget
from planner.io.targets import (
    ExportTarget,
    export_files,
    export_plan,
    export_target,
    plan_run,
    register_target,
    target_names,
    unregister_target,
)
from planner.plans.plan import Plan
from planner.simulator import Fifo, SimOptions
from planner.simulator.run import Run

ROOT = Path(__file__).resolve().parent.parent
NIGHTLY, CLUSTER = ROOT / "examples" / "nightly.yaml", ROOT / "examples" / "cluster.yaml"
THROWAWAY = "plan-txt"


def _plan_text_class() -> type:
    """A throwaway target, defined anew on each call (as a notebook cell run twice defines it): the
    plan's order in one file, run under FIFO in that order on the plan's slot split."""

    class PlanText:
        name = THROWAWAY
        summary = "the plan's order as plain text, run under FIFO (a test's target)"

        def files(self, plan: Plan, workload: Workload | None, cluster: Cluster, *, ready_now: bool = False,
                  options: SimOptions | None = None) -> dict[str, str]:
            slots = f"{plan.map_slots} {plan.reduce_slots}"
            return {"plan.txt": "\n".join([slots, *plan.order, ""]), "README.md": "# The plan's order\n",
                    "submit.sh": "#!/bin/sh\ncat plan.txt\n"}

        def run(self, plan: Plan, workload: Workload, cluster: Cluster, *, ready_now: bool = False,
                options: SimOptions | None = None) -> Run:
            return _fifo_run(list(plan.order), (plan.map_slots, plan.reduce_slots), workload, cluster)

        def read(self, paths: Iterable[str | Path], workload: Workload, cluster: Cluster) -> Run:
            (folder,) = [Path(path) for path in paths]
            slots, *order = (folder / "plan.txt").read_text().split("\n")[:-1]
            maps, reduces = (int(part) for part in slots.split())
            return _fifo_run(order, (maps, reduces), workload, cluster)

        def notes(self, plan: Plan) -> Sequence[str]:
            return ["Only the order is kept: jobs are submitted in it, 1 ms apart."]

    return PlanText


def _fifo_run(order: list[str], slots: tuple[int, int], workload: Workload, cluster: Cluster) -> Run:
    jobs = {job.name: job for job in workload}
    batch = Workload([jobs[name].with_changes(submit=0.001 * p) for p, name in enumerate(order)], name=workload.name)
    return Run(batch, cluster, Fifo(), slots, SimOptions())


@pytest.fixture
def throwaway():
    """The throwaway target, registered for one test and gone after it."""
    target = register_target(_plan_text_class()())
    yield target
    unregister_target(THROWAWAY)
    assert THROWAWAY not in target_names()


@pytest.fixture(scope="module")
def demo():
    workload, cluster = Workload.from_file(NIGHTLY), Cluster.from_file(CLUSTER)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # task-floor notes
        plan = make_plan(workload, cluster, "slots+johnson", time_limit=20)
    return plan, workload, cluster


@pytest.mark.parametrize("name", [*target_names(), THROWAWAY])
def test_every_target_keeps_the_contract(name, demo, throwaway, tmp_path):
    plan, workload, cluster = demo
    target = export_target(name)
    assert isinstance(target, ExportTarget) and target.name == name and target.summary.strip()
    files = target.files(plan, workload, cluster, ready_now=False, options=None)
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in files.items())
    assert {"README.md", "submit.sh"} <= set(files)
    assert export_files(plan, workload, cluster, name) == files
    run = target.run(plan, workload, cluster, ready_now=False, options=None)
    assert isinstance(run, Run) and plan_run(plan, workload, cluster, name).label == run.label
    assert sorted(export_plan(plan, workload, cluster, name, tmp_path / "out")) == sorted(files)
    assert (tmp_path / "out" / "submit.sh").stat().st_mode & 0o100
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the exported files hold nothing the simulator ignores
        read_back = target.read([tmp_path / "out"], workload, cluster)
    assert isinstance(read_back, Run)
    direct, again = run.simulate(3), read_back.simulate(3)
    assert direct.to_json() == again.to_json()  # the same job records and attempt columns
    assert direct.makespan > 0
    notes = target.notes(plan)
    assert all(isinstance(note, str) and note for note in notes)


def test_the_built_in_targets_are_hadoops():
    assert target_names()[:3] == ("mrv1", "yarn-fair", "yarn-capacity")


def test_registering_the_same_class_again_is_harmless(throwaway):
    again = _plan_text_class()()  # the class defined anew, as a notebook cell run twice does
    assert type(again) is not type(throwaway)
    assert register_target(again) is again and export_target(THROWAWAY) is again
    mrv1 = export_target("mrv1")
    assert register_target(HadoopTarget("mrv1", mrv1.summary)) == mrv1


def test_another_class_under_a_taken_name_is_refused(throwaway):
    class Impostor(_plan_text_class()):
        name = "mrv1"

    with pytest.raises(InvalidInput, match="name: export target 'mrv1' is already registered"):
        register_target(Impostor())
    assert isinstance(export_target("mrv1"), HadoopTarget)


@pytest.mark.parametrize("name", ["Yarn", "", "yarn_fair", "-x", "x-", 3, None])
def test_bad_names_are_refused(name):
    class Named(_plan_text_class()):
        pass

    Named.name = name  # type: ignore[assignment]
    with pytest.raises(InvalidInput, match="name: must be a lowercase word with dashes"):
        register_target(Named())


def test_a_target_without_its_methods_is_refused():
    class Partial:
        name, summary = "partial", "no methods"

        def files(self) -> dict[str, str]:
            return {}

    with pytest.raises(InvalidInput, match="'partial' lacks the method"):
        register_target(Partial())  # type: ignore[arg-type]
    assert "partial" not in target_names()


def test_an_unknown_target_names_the_choices(demo):
    plan, workload, cluster = demo
    with pytest.raises(InvalidInput, match=r"^name: must be one of mrv1, yarn-fair, yarn-capacity"):
        export_target("mesos")
    with pytest.raises(InvalidInput, match="target: must be one of mrv1"):
        plan_run(plan, workload, cluster, "mesos")


@pytest.mark.parametrize(("name", "problem"), [("tab\there", "a tab"), ("line\nbreak", "a line break"),
                                               ("bell\x07", r"a control character \(U\+0007\)"),
                                               (" edge", "whitespace at its start or end")])
def test_hadoop_schedules_refuse_names_a_cell_cannot_hold(name, problem):
    """submit.sh reads submissions.tsv line by line, tab-separated: such a name is refused in one
    line naming the job (Spark's schedule escapes them instead: tests/test_spark_target.py)."""
    from planner.io.hadoop.export import schedule_files
    from planner.io.hadoop.plan_files import Submission

    with pytest.raises(InvalidInput, match=rf"^job '.*': its name '.*' has {problem}: submissions.tsv") as caught:
        schedule_files([Submission("ok", 0.0, "q"), Submission(name, 1.0, "q")], "yarn-fair")
    assert "\n" not in str(caught.value)
    with pytest.raises(InvalidInput, match=rf"^job 'ok': its pool '.*' has {problem}"):
        schedule_files([Submission("ok", 0.0, name)], "yarn-fair")


def test_hadoop_schedules_keep_commas_and_pluses_in_names(tmp_path):
    """The Hadoop schedule's ``after`` names rows by position, so ``,`` and ``+`` in a name read back."""
    from planner.io.hadoop.export import schedule_files
    from planner.io.hadoop.plan_files import Submission, read_submissions

    schedule = [Submission("a,b", 0.0, "q+1", after=()), Submission("c+d", 1.0, "q", after=((0, 2.5),))]
    path = tmp_path / "submissions.tsv"
    path.write_text(schedule_files(schedule, "yarn-fair")["submissions.tsv"])
    assert [(s.job, s.pool, s.after) for s in read_submissions(path)] == [("a,b", "q+1", ()), ("c+d", "q", ((0, 2.5),))]
