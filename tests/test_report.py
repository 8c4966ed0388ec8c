"""Validation reports as files (planner.proof.report) and their figures (planner.plots), on small real reports."""

from __future__ import annotations

import json
import re

import pytest
from matplotlib.figure import Figure

from models import Cluster, InvalidInput, Job, PowerLawProfile, Workload
from planner import plots
from planner.examples.demo import bundled
from planner.io.swim import read_swim
from planner.planning.make import make_plan
from planner.proof.paired import paired_comparisons, verdict_text
from planner.proof.report import FIGURES, render_figures, render_html, render_markdown, write_report
from planner.proof.validate import example_run, validate

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
#: P = 2 machines, k = 2 disks: N = 4 primary VMs, 2 extra VMs (as in test_plan_vm).
VM_CLUSTER = Cluster(nodes=2, disks=2, primaries_per_extra=2, overcommit_penalty=1.5)


def profiled_job(name: str, a: float, b: float, intensity: str = "balanced") -> Job:
    return Job(name, map_tasks=1, map_time=10.0, intensity=intensity, profile=PowerLawProfile.from_coefficients(a, b))


@pytest.fixture(scope="module")
def slot_case():
    workload = read_swim(bundled("FB-2009_nightly40.tsv"), limit=8)
    cluster = Cluster(nodes=4)
    plan = make_plan(workload, cluster, "slots+johnson")
    report = validate(plan, workload, cluster, runs=3, curve_splits=3, executor="serial")
    return report, example_run(plan, workload, cluster)


@pytest.fixture(scope="module")
def vm_case():
    workload = Workload([profiled_job("scan", 120, -1, "io"), profiled_job("train", 60, -1, "cpu"),
                         profiled_job("flat", 50, 0), profiled_job("etl", 90, -0.8, "io"),
                         profiled_job("score", 40, -0.5, "cpu")], name="vm")
    plan = make_plan(workload, VM_CLUSTER, "packing", solver="greedy")
    report = validate(plan, workload, VM_CLUSTER, runs=3, executor="serial")
    return report, example_run(plan, workload, VM_CLUSTER)


@pytest.fixture(scope="module")
def slot_files(slot_case, tmp_path_factory):
    report, example = slot_case
    directory = tmp_path_factory.mktemp("slot") / "new" / "report"  # created by write_report
    return write_report(report, directory, example=example)


def axes() -> object:
    return Figure().add_subplot()


def check_labelled(ax) -> None:
    assert ax.get_title() and ax.get_xlabel() and ax.get_ylabel()
    assert ax.get_legend() is not None and ax.get_legend().get_texts()


def test_slot_report_writes_every_artefact(slot_files):
    assert set(slot_files) == {"markdown", "html", "json", *FIGURES}
    assert json.loads(slot_files["json"].read_text())["summary"]["runs"] == 3
    assert slot_files["markdown"].name == "report.md" and slot_files["html"].name == "report.html"
    for name, path in slot_files.items():
        assert path.is_file() and path.stat().st_size > 0, name
        assert path.parent == slot_files["markdown"].parent
    for name in FIGURES:
        assert slot_files[name].name == f"{name}.png"
        assert slot_files[name].read_bytes().startswith(PNG_MAGIC)
    # atomic writes leave no temporary files behind
    assert sorted(p.name for p in slot_files["markdown"].parent.iterdir()) == sorted(
        ["report.md", "report.html", "validation.json", *(f"{name}.png" for name in FIGURES)])


def test_html_is_self_contained(slot_files):
    text = slot_files["html"].read_text(encoding="utf-8")
    assert text.count("data:image/png;base64,") == len(FIGURES)
    for name in FIGURES:
        assert f'<figure id="{name}"><img src="data:image/png;base64,' in text
    assert 'src="http' not in text and "<link" not in text and "<script" not in text
    assert "<table>" in text and "<th>mean (s)</th>" in text


def test_markdown_names_plan_baselines_and_figures(slot_case, slot_files):
    report, _ = slot_case
    text = slot_files["markdown"].read_text(encoding="utf-8")
    assert text.startswith("# Validation of the slots+johnson plan for FB-2009_nightly40\n")
    for record in report.table():
        assert f"| {record['setup']} |" in text
    assert {r["setup"] for r in report.setup("baseline")} >= {"Fair 1:3 (4:12)", "FIFO, submission order (8:8)"}
    for name in FIGURES:
        assert f"]({name}.png)" in text
    assert "## How this was measured" in text and "1 + U[-30%, +30%]" in text
    assert "## Makespan vs map slots" in text
    whole_order = ", ".join(f"{i}. {name}" for i, name in enumerate(report.order, start=1))
    assert len(report.order) == 8 and f"## Admission order\n\n{whole_order}\n" in text
    summary = report.summary()
    assert summary["best_baseline"] in text.split("\n\n")[1]
    paired = paired_comparisons(report)
    assert verdict_text(paired) in text.split("\n\n")[1]
    if all(record["ci_low"] > 0 for record in paired):
        assert "Run for run it beats every baseline" in text
    else:
        assert "beats every baseline" not in text
    assert "## The plan against each baseline, run for run" in text
    for record in paired:
        assert f"| {record['baseline']} | {record['runs']} | {record['plan_wins']} |" in text


def test_markdown_table_matches_the_records(slot_case, slot_files):
    report, _ = slot_case
    text = slot_files["markdown"].read_text(encoding="utf-8")
    for record in report.table():
        row = next(line for line in text.splitlines() if line.startswith(f"| {record['setup']} |"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[2:4] == [str(record["map_slots"]), str(record["reduce_slots"])]
        assert cells[4:9] == ["-" if record[k] is None else f"{record[k]:,.0f}"
                              for k in ("predicted", "mean", "p5", "p50", "p95")]
        if record["predicted"] is None:  # the dynamic baselines: the fluid models are of static splits
            assert cells[9] == "-"
        else:
            assert cells[9] == f"{record['error']:+.1%}" and re.fullmatch(r"[+-]\d+\.\d%", cells[9])
        assert cells[10] == f"{record['fairness']:.3f}"
    plan = report.planned
    assert f"{plan['mean']:,.0f} s on average" in text
    assert f"an error of {plan['error']:+.1%}" in text
    curve_rows = [line for line in text.splitlines() if re.match(r"\| \d+ \| \d+ \|", line)]
    assert len(curve_rows) == len(report.setup("curve")) + 1


def test_render_markdown_is_pure_and_takes_a_title(slot_case):
    report, _ = slot_case
    text = render_markdown(report, {"gantt": "figures/g.png"}, title="Tonight")
    assert text.startswith("# Tonight\n") and "](figures/g.png)" in text
    assert "makespan_vs_map_slots.png" not in text
    assert "## Figures" not in render_markdown(report, {})
    with pytest.raises(InvalidInput, match="figures"):
        render_markdown(report, {"pie_chart": "pie.png"})
    html = render_html(report, {"gantt": PNG_MAGIC}, title="<Tonight>")
    assert "<h1>&lt;Tonight&gt;</h1>" in html and html.count("data:image/png;base64,") == 1


def test_writing_twice_gives_the_same_bytes(slot_case, slot_files, tmp_path):
    report, example = slot_case
    again = write_report(report, tmp_path, example=example)
    assert set(again) == set(slot_files)
    for name, path in again.items():
        assert path.read_bytes() == slot_files[name].read_bytes(), name


def test_vm_report(vm_case, tmp_path):
    report, example = vm_case
    assert report.kind == "vms"
    (tmp_path / "makespan_vs_map_slots.png").write_bytes(b"left by a slot report")
    paths = write_report(report, tmp_path, example=example, title="VM night")
    assert set(paths) == {"markdown", "html", "json", "predicted_vs_simulated", "gantt"}
    assert not (tmp_path / "makespan_vs_map_slots.png").exists()
    text = paths["markdown"].read_text(encoding="utf-8")
    assert text.startswith("# VM night\n")
    assert "sequential (each job alone on all VMs)" in text and "plan (packing, backfill)" in text
    assert "## Makespan vs map slots" not in text and "phase barriers" in text
    placements = [(p, name, vms, role) for p, phase in enumerate(report.phases) for name, vms, role in phase]
    assert "## Phases (run one after another)" in text and len(placements) == 5
    for p, name, vms, role in placements:
        assert f"| {p} | {name} | {vms} | {role} |" in text
    html = paths["html"].read_text(encoding="utf-8")
    assert html.count("data:image/png;base64,") == 2
    with pytest.raises(InvalidInput, match="report"):
        plots.plot_makespan_curve(report, axes())
    with pytest.raises(InvalidInput, match="result"):
        plots.plot_fairness_over_time(example, axes())


def test_example_must_match_the_report(slot_case, vm_case):
    with pytest.raises(InvalidInput, match="example"):
        render_figures(slot_case[0], vm_case[1])
    with pytest.raises(InvalidInput, match="example"):
        render_figures(vm_case[0], slot_case[1])


def test_report_figures_are_labelled(slot_case, vm_case):
    report, example = slot_case
    check_labelled(plots.plot_makespan_curve(report, axes()))
    for case in (slot_case, vm_case):
        check_labelled(plots.plot_predicted_vs_simulated(case[0], axes()))
        check_labelled(plots.plot_gantt(case[1], axes()))
    ax = plots.plot_fairness_over_time(example, axes())
    check_labelled(ax)
    assert ax.get_ylim() == (0, 1.05)
    twin = next(other for other in ax.figure.axes if other is not ax)
    assert twin.get_ylabel() == "jobs in the system (count)"
    with pytest.raises(InvalidInput, match="result"):
        plots.plot_gantt(report, axes())


def test_makespan_curve_draws_the_model_and_the_points(slot_case):
    report, _ = slot_case
    ax = plots.plot_makespan_curve(report, axes())
    line = ax.get_lines()[0]
    assert list(line.get_xdata()) == list(range(1, len(report.curve) + 1))
    assert list(line.get_ydata()) == report.curve
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[0] == f"predicted ({report.plan['model']} fluid model)"
    plan = report.planned
    assert any(f"plan {plan['map_slots']}:{plan['reduce_slots']}" in label for label in labels)
    assert ax.get_yscale() == ("log" if max(report.curve) > 10 * min(report.curve) else "linear")


def test_plots_make_their_own_figure_without_an_axes(slot_case):
    import matplotlib.pyplot as plt

    report, example = slot_case
    for ax in (plots.plot_predicted_vs_simulated(report), plots.plot_fairness_over_time(example)):
        assert ax.get_title()
        plt.close(ax.figure)
