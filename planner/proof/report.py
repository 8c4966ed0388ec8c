"""A validation report as files: Markdown, self-contained HTML and PNG figures.

`render_markdown` and `render_html` are pure (report and figures in, text
out); `write_report` draws the figures and writes everything atomically. The
same report gives the same bytes: no wall times, no dates, and PNGs saved
without the metadata that would differ between runs.
"""

from __future__ import annotations

import base64
import html
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import planner.plots as plots
from models import InvalidInput, InvalidType
from models.checks import as_instance, as_path, shown
from models.fileio import write_atomic
from planner.defaults import LARGE_BATCH_TASKS
from planner.proof.formats import percent
from planner.proof.paired import verdict_text
from planner.proof.setups import FAIR_RATIOS
from planner.proof.validate import CURVE_RUNS, ValidationReport
from planner.simulator import SimResult, VmResult

#: Figure names in the order the report shows them; each is written as NAME.png.
FIGURES = ("makespan_vs_map_slots", "predicted_vs_simulated", "gantt", "fairness_over_time")
#: Resolution of the PNGs (dots per inch).
DPI = 110
#: Columns of the setups table: (record key, header, kind of number).
COLUMNS = (
    ("setup", "setup", "text"), ("scheduler", "scheduler", "text"), ("map_slots", "map slots", "count"),
    ("reduce_slots", "reduce slots", "count"), ("predicted", "predicted (s)", "seconds"),
    ("mean", "mean (s)", "seconds"), ("p5", "p5 (s)", "seconds"), ("p50", "p50 (s)", "seconds"),
    ("p95", "p95 (s)", "seconds"), ("error", "error", "error"), ("fairness", "fairness", "ratio"),
    ("node_local", "node-local", "share"),
)
#: Added when the plan has a window or a job a deadline: misses per run, runs done by the window.
DEADLINE_COLUMNS = (("deadline_misses", "deadline misses per run", "ratio"), ("by_window", "runs by the window",
                                                                                 "share"))
PHASE_COLUMNS = (("phase", "phase", "count"), ("job", "job", "text"), ("vms", "VMs", "count"),
                 ("role", "role", "text"))
PAIRED_COLUMNS = (
    ("baseline", "baseline", "text"), ("runs", "runs", "count"), ("plan_wins", "plan faster in", "count"),
    ("win_rate", "win rate", "share"), ("median_difference", "median difference (s)", "seconds"),
    ("ci_low", "95% interval from (s)", "seconds"), ("ci_high", "to (s)", "seconds"), ("verdict", "verdict", "text"),
)
#: Columns of a target plan's setups: its objective's measure, the makespan and deadline figures.
TARGET_COLUMNS = (
    ("setup", "setup", "text"), ("role", "role", "text"), ("scheduler", "scheduler", "text"),
    ("predicted", "planned", "ratio"), ("mean", "mean", "ratio"), ("p5", "p5", "ratio"), ("p95", "p95", "ratio"),
    ("makespan", "makespan (s)", "seconds"), ("mean_response", "mean response (s)", "seconds"),
    ("late_jobs", "late jobs per run", "ratio"), ("p_window", "runs by the window", "share"),
)
JOB_COLUMNS = (("job", "job", "text"), ("arrival", "arrival (s)", "seconds"), ("finish", "mean finish (s)", "seconds"),
               ("due", "due (s)", "seconds"), ("lateness", "mean lateness (s)", "seconds"),
               ("p_late", "runs late", "share"))
#: Which jobs delayed the end over the plan's runs (`planner.proof.critical.chain_counts`).
CRITICAL_COLUMNS = (("job", "job", "text"), ("on_chain", "on the critical chain (runs)", "count"),
                    ("on_chain_share", "share of runs", "share"), ("binding_last", "held the last job (runs)", "count"),
                    ("last", "finished last (runs)", "count"))
#: Jobs the report's table of `CRITICAL_COLUMNS` shows (validation.json has them all).
CRITICAL_SHOWN = 10
CURVE_COLUMNS = (
    ("map_slots", "map slots", "count"), ("reduce_slots", "reduce slots", "count"),
    ("predicted", "predicted (s)", "seconds"), ("mean", "mean (s)", "seconds"), ("p5", "p5 (s)", "seconds"),
    ("p95", "p95 (s)", "seconds"), ("error", "error", "error"), ("runs", "runs", "count"),
)


def seconds(value: float | None) -> str:
    """A makespan: whole seconds with thousands separators."""
    return "-" if value is None else f"{value:,.0f}"


def cell(value: Any, kind: str) -> str:
    if value is None:
        return "-"
    if kind == "seconds":
        return seconds(value)
    if kind == "error":
        return percent(value)
    if kind == "share":
        return percent(value, signed=False)
    if kind == "ratio":
        return f"{value:.3f}"
    if kind == "count":
        return f"{value:,}"
    return str(value)


@dataclass(frozen=True)
class Table:
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numeric: tuple[bool, ...]


def table(records: list[dict[str, Any]], columns: tuple[tuple[str, str, str], ...]) -> Table:
    return Table(tuple(header for _, header, _ in columns),
                 tuple(tuple(cell(r.get(key), kind) for key, _, kind in columns) for r in records),
                 tuple(kind != "text" for _, _, kind in columns))


def default_title(report: ValidationReport) -> str:
    workload = f" for {report.workload}" if report.workload else ""
    return f"Validation of the {report.plan['strategy']} plan{workload}"


def summary_text(report: ValidationReport) -> str:
    """One paragraph in plain words: the prediction, what the simulator measured and the baselines."""
    if report.kind == "target":
        return target_summary_text(report)
    s = report.summary()
    plan = report.planned
    if s["predicted"] is None:
        prediction = "had no prediction"
    else:
        error = s["error"] or 0.0
        leaning = "pessimistic" if error > 0 else "optimistic" if error < 0 else "exact"
        model = f"{report.plan['strategy']} model" if report.kind == "vms" else f"{report.plan['model']} fluid model"
        prediction = (f"was predicted by the {model} to take {seconds(s['predicted'])} s; the simulator measured "
                      f"{seconds(s['simulated_mean'])} s on average (between {seconds(s['p5'])} s at p5 and "
                      f"{seconds(s['p95'])} s at p95), an error of {percent(s['error'])}")
        prediction += f" ({leaning})" if leaning != "exact" else ""
    gain = s["gain"]
    versus = (f"{percent(gain, signed=False)} shorter than" if gain > 0 else
              f"{percent(-gain, signed=False)} longer than" if gain < 0 else "as long as")
    verdict = verdict_text(report.paired)
    # Setup names of plans read "plan (FRESH-static k=5, 48:32)": "The plan (...) was predicted ..."
    name = plan["setup"][len("plan "):] if plan["setup"].startswith("plan (") else f", {plan['setup']},"
    return (f"The plan {name} {prediction}. The best baseline, {s['best_baseline']}, took "
            f"{seconds(s['baseline_mean'])} s on average, so the plan's mean makespan is {versus} it. {verdict} "
            f"Each setup ran {s['runs']} times{stopping_text(report)}, every job's times biased by up to "
            f"\u00b1{s['noise']:.0%} (seed {s['seed']}).")


def stopping_text(report: ValidationReport) -> str:
    """``--runs auto``: the rounds and why the runs stopped, as a parenthesis; empty for fixed runs."""
    stopping = report.stopping
    if stopping is None:
        return ""
    rounds = ", ".join(str(n) for n in stopping["rounds"])
    return f" (--runs auto, rounds of {rounds} runs: {stopping['reason']})"


def target_summary_text(report: ValidationReport) -> str:
    """A target plan's paragraph: what it changes, what planning measured and what this validation did."""
    s, p = report.summary(), report.plan
    measure = p["objective"]
    keep = "keeps the configuration as it is" if p.get("keep") else "changes the configuration"
    planned = "" if s["predicted"] is None else f" (planning measured {s['predicted']:,.2f})"
    return (f"The plan for {p['target']} {keep}. Its {measure} as exported averaged {s['simulated_mean']:,.2f} in "
            f"this validation{planned}, between {s['p5']:,.2f} at p5 and {s['p95']:,.2f} at p95; the best "
            f"baseline, {s['best_baseline']}, averaged {s['baseline_mean']:,.2f}. {verdict_text(report.paired)} "
            f"Each setup ran {s['runs']} times{stopping_text(report)}, every job's times biased by up to "
            f"\u00b1{s['noise']:.0%} (seed {s['seed']}).")


def order_blocks(report: ValidationReport) -> list[tuple[str, Any]]:
    """The whole admission order (slot plans) or the phase table (VM plans)."""
    if report.phases:
        records = [{"phase": p, "job": name, "vms": vms, "role": role}
                   for p, phase in enumerate(report.phases) for name, vms, role in phase]
        return [("h2", "Phases (run one after another)"), ("table", table(records, PHASE_COLUMNS))]
    if report.order:
        return [("h2", "Admission order"),
                ("p", ", ".join(f"{position}. {name}" for position, name in enumerate(report.order, start=1)))]
    return []


def plan_facts(report: ValidationReport) -> list[str]:
    p = report.plan
    if report.kind == "target":
        return [f"made for {p['target']}, objective {p['objective']}: {'keep your configuration' if p['keep'] else 'apply'}",
                f"chosen by: {p['selection']}", f"the plan's order: {p['order']}"]
    facts = [f"strategy: {p['strategy']}, solver {p['solver']} ({p['status']})"]
    if p.get("selection"):
        facts.append(f"chosen by: {p['selection']}")
    if report.kind == "vms":
        facts.append(f"{p['phases']} phases; order: {p['order']}")
    else:
        facts.append(f"fluid model: {p['model']}; split {p['map_slots']}:{p['reduce_slots']} (map:reduce slots); "
                     f"admission limit k = {p['k']}")
        facts.append(f"admission order: {p['order']}")
    against = ("every job alone on all VMs, one after another" if report.kind == "vms" else
               "the cluster's own split, jobs in submission order")
    facts.append(f"predicted {seconds(p['predicted_makespan'])} s against {seconds(p['baseline_makespan'])} s for "
                 f"{against} (predicted gain {percent(p['predicted_gain'], signed=False)})")
    if p["strategy"] == "johnson":
        facts.append(f"validated under FIFO, which admits every job: predicted for it with k = 1, "
                     f"{seconds(report.planned['predicted'])} s")
    return facts


def method_facts(report: ValidationReport) -> list[str]:
    """The "How this was measured" bullets, for the report's kind of plan."""
    noise = f"{report.noise:.0%}"
    if report.kind == "target":
        return [f"Each of the {report.runs} runs biases every job's map, reduce and profile times by an independent "
                f"factor 1 + U[-{noise}, +{noise}]; in run r the plan and every baseline see the same biased batch "
                "and the same simulation seed.",
                "The plan runs as exported: its levers written into the configuration it was made from and read "
                "back as `planner simulate --hadoop-conf` reads a folder. Baselines: the configuration as it is, "
                "FIFO and Fair on the same resources, every job submitted as it arrives into its queue.",
                f"The measure is the plan's objective ({report.metric}); responses count from each job's arrival, "
                "makespans from the first arrival. The paired difference is the baseline's minus the plan's "
                "(positive: the plan was better).",
                f"The same seed ({report.seed}) gives the same report; with the plan's own runs and seed, the "
                "plan's mean is the figure `planner plan` printed."]
    facts = [
        f"Each of the {report.runs} runs biases every job's map, reduce and profile times by an independent factor "
        f"1 + U[-{noise}, +{noise}]; in run r the plan and every baseline see the same biased batch and the same "
        "simulation seed, so their differences are their own.",
        "The batch is ready at time 0, as the fluid models assume; submit times only set the baselines' order.",
    ]
    if report.kind == "vms":
        facts.append("The plan runs at VM level with phase barriers (a phase starts when the previous one has "
                     "finished), and with backfill as a variant. Baseline: sequential execution, each job alone on "
                     "all VMs in submission order.")
    else:
        plan = report.planned
        if plan["scheduler"] == "fifo":
            facts.append(f"The plan runs under FIFO in the plan's order on the cluster's split "
                         f"{plan['map_slots']}:{plan['reduce_slots']}.")
        else:
            facts.append(f"The plan runs under FRESH-static with the plan's split "
                         f"{plan['map_slots']}:{plan['reduce_slots']}, admission order and k = {report.plan['k']}.")
        ratios = ", ".join(f"{m}:{r}" for m, r in FAIR_RATIOS)
        facts.append(f"Baselines: Fair with static map:reduce ratios {ratios} of the same slots, and FIFO in "
                     "submission order on the cluster's split; their predictions are the same fluid model in "
                     "submission order, every job admitted at once for Fair and one at a time for FIFO.")
        if report.setup("curve"):
            facts.append(f"Curve points run the plan's scheduler on other splits, at most {CURVE_RUNS} runs each.")
        else:
            facts.append("No other split was simulated" + (": the figure's line is the fluid model's alone" if
                         report.curve else ", and the fluid model's curve over every split was not computed (the "
                         "plan was made without it, a batch too large for it): no figure of the curve") +
                         f" (by default a batch of more than {LARGE_BATCH_TASKS:,} tasks a run simulates none; "
                         "--curve-splits N asks for N).")
    facts.append("Error = (predicted - simulated mean) / simulated mean: positive when the model is pessimistic.")
    facts.append(f"The same seed ({report.seed}) gives the same report.")
    return facts


def caption(name: str, report: ValidationReport) -> str:
    if name == "makespan_vs_map_slots":
        return (f"Makespan against map slots: the {report.plan['model']} fluid model's prediction (line) and "
                "simulated means with p5-p95 (points; the star is the plan's split).")
    if name == "predicted_vs_simulated":
        return "Predicted and simulated makespan of the plan, its variants and the baselines (whiskers: p5-p95)."
    if name == "gantt":
        what = ("jobs on their VMs" if report.kind == "vms" else
                "each job's wait for a slot and its run, each dependency an arrow from the predecessor's finish to "
                "the job's ready time, the simulated critical chain in red" if report.critical_jobs else
                "task attempts by slot, coloured by job")
        return f"The plan simulated once without bias: {what}."
    if name == "fairness_over_time":
        return ("That run's overall fairness (Jain's index of the jobs' slot shares, 1 = equal) at each job "
                "completion, and the jobs still in the system.")
    raise InvalidInput("figures", f"unknown figure {name!r}; known: {', '.join(FIGURES)}")


def deadline_columns(report: ValidationReport) -> tuple[tuple[str, str, str], ...]:
    """The deadline columns when deadlines mean something for this report (a window, or a miss)."""
    due = report.plan.get("window") is not None or any(r.get("deadline_misses") for r in report.setups)
    return DEADLINE_COLUMNS if due else ()


def sections(report: ValidationReport, figures: dict[str, str]) -> list[tuple[str, Any]]:
    """The report's content as blocks ("h2" text, "p" text, "ul" items, "table" Table, "figure"
    (name, source, caption)), shared by the Markdown and HTML renderers."""
    columns = TARGET_COLUMNS if report.kind == "target" else COLUMNS + deadline_columns(report)
    blocks: list[tuple[str, Any]] = [("p", summary_text(report)), ("h2", "The plan"), ("ul", plan_facts(report)),
                                     *order_blocks(report),
                                     ("h2", "Plan, variants and baselines"),
                                     ("table", table(report.table(), columns)),
                                     ("h2", "The plan against each baseline, run for run"),
                                     ("p", "In each run the plan and the baseline see the same biased batch and seed; "
                                           f"the difference is the baseline's {report.metric} minus the plan's "
                                           "(positive: the plan was better), with a bootstrap interval of its "
                                           "median."),
                                     ("table", table(report.paired, PAIRED_COLUMNS))]
    if report.jobs_outcome:
        blocks += [("h2", "Each job under the plan"), ("table", table(report.jobs_outcome, JOB_COLUMNS))]
    blocks += critical_blocks(report)
    if report.kind == "slots":
        points = sorted([*report.setup("plan"), *report.setup("curve")], key=lambda r: r["map_slots"])
        blocks += [("h2", "Makespan vs map slots"),
                   ("p", "The plan's scheduler on other splits of the same slots (the plan's own split included)."),
                   ("table", table(points, CURVE_COLUMNS))]
    shown = [name for name in FIGURES if name in figures]
    unknown = sorted(set(figures) - set(FIGURES))
    if unknown:
        raise InvalidInput("figures", f"unknown figure {unknown[0]!r}; known: {', '.join(FIGURES)}")
    if shown:
        blocks.append(("h2", "Figures"))
        blocks += [("figure", (name, figures[name], caption(name, report))) for name in shown]
    blocks += [("h2", "How this was measured"), ("ul", method_facts(report))]
    return blocks


def critical_blocks(report: ValidationReport) -> list[tuple[str, Any]]:
    """Which jobs delayed the end (a workload with dependencies): the `CRITICAL_SHOWN` jobs most
    often on the plan's simulated critical chain, with counts over its runs."""
    if not report.critical_jobs:
        return []
    top = report.critical_jobs[0]
    more = "" if len(report.critical_jobs) <= CRITICAL_SHOWN else (
        f" The {CRITICAL_SHOWN} most often on it of {len(report.critical_jobs):,} (validation.json has them all).")
    return [("h2", "Which jobs delay the end"),
            ("p", f"In each of the plan's {report.runs} runs, the simulated critical chain is the last job to finish and, "
                  "back from it, the job that held each one last (its predecessor that finished last). "
                  f"{top['job']} was on it in {top['on_chain']} runs ({percent(top['on_chain_share'], signed=False)})."
                  + more),
            ("table", table(report.critical_jobs[:CRITICAL_SHOWN], CRITICAL_COLUMNS))]


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def render_markdown(report: ValidationReport, figures: dict[str, str], *, title: str | None = None) -> str:
    """The report as Markdown; ``figures`` maps figure names (`FIGURES`) to links, e.g. "gantt.png"."""
    lines = [f"# {title or default_title(report)}", ""]
    for kind, content in sections(report, figures):
        if kind == "h2":
            lines += [f"## {content}", ""]
        elif kind == "p":
            lines += [content, ""]
        elif kind == "ul":
            lines += [f"- {item}" for item in content] + [""]
        elif kind == "table":
            lines.append("| " + " | ".join(content.headers) + " |")
            lines.append("|" + "|".join("---:" if n else "---" for n in content.numeric) + "|")
            lines += ["| " + " | ".join(_md_escape(c) for c in row) + " |" for row in content.rows]
            lines.append("")
        else:
            name, source, text = content
            lines += [f"![{name}]({source})", "", f"*{text}*", ""]
    return "\n".join(lines)


STYLE = """
body { font-family: sans-serif; max-width: 70em; margin: 2em auto; padding: 0 1em; color: #222; line-height: 1.45; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; }
th { background: #f2f2f2; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 1.5em 0; }
img { max-width: 100%; }
figcaption { font-style: italic; color: #555; }
""".strip()


def render_html(report: ValidationReport, images: dict[str, bytes], *, title: str | None = None) -> str:
    """The report as one self-contained HTML page: ``images`` (figure name to PNG bytes) are embedded
    as data URIs; no external resources."""
    sources = {name: "data:image/png;base64," + base64.b64encode(data).decode("ascii") for name, data in images.items()}
    heading = html.escape(title or default_title(report))
    parts = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">', f"<title>{heading}</title>",
             f"<style>\n{STYLE}\n</style>", "</head>", "<body>", f"<h1>{heading}</h1>"]
    for kind, content in sections(report, sources):
        if kind == "h2":
            parts.append(f"<h2>{html.escape(content)}</h2>")
        elif kind == "p":
            parts.append(f"<p>{html.escape(content)}</p>")
        elif kind == "ul":
            parts.append("<ul>" + "".join(f"<li>{html.escape(item)}</li>" for item in content) + "</ul>")
        elif kind == "table":
            parts.append("<table>")
            parts.append("<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in content.headers) + "</tr>")
            for row in content.rows:
                parts.append("<tr>" + "".join(f'<td class="n">{html.escape(c)}</td>' if n else
                                              f"<td>{html.escape(c)}</td>"
                                              for c, n in zip(row, content.numeric, strict=True)) + "</tr>")
            parts.append("</table>")
        else:
            name, source, text = content
            parts.append(f'<figure id="{name}"><img src="{source}" alt="{html.escape(text)}">'
                         f"<figcaption>{html.escape(text)}</figcaption></figure>")
    parts += ["</body>", "</html>", ""]
    return "\n".join(parts)


def png(figure: Any) -> bytes:
    """The figure as PNG bytes through the Agg canvas, without the metadata (matplotlib's version)
    that would make equal figures differ between installations."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()


def render_figures(report: ValidationReport, example: SimResult | VmResult | None = None) -> dict[str, bytes]:
    """The report's figures as PNG bytes, by name (`FIGURES` order): the curve for slot reports, the
    Gantt chart with ``example`` and fairness over time when it is a task-level run."""
    from matplotlib.figure import Figure

    expected = VmResult if report.kind == "vms" else SimResult
    if example is not None and not isinstance(example, expected):
        raise InvalidInput("example", f"a {report.kind} report's example run must be a {expected.__name__} "
                           f"(planner.proof.validate.example_run), got {type(example).__name__}")
    draw: list[tuple[str, tuple[float, float], Any]] = []
    if report.kind == "slots" and report.curve:
        draw.append(("makespan_vs_map_slots", (8.5, 5.0), lambda ax: plots.plot_makespan_curve(report, ax)))
    if report.kind != "target":  # a target plan's figures are its objective's, not a model's prediction
        draw.append(("predicted_vs_simulated", (9.5, 1.4 + 0.65 * len(report.table())),
                     lambda ax: plots.plot_predicted_vs_simulated(report, ax)))
    if example is not None:
        if isinstance(example, SimResult) and example.dependencies:  # jobs as rows, at most 60
            size = (11.0, min(max(4.5, 1.5 + 0.3 * min(len(example.jobs), 60)), 14.0))
        else:
            rows = example.slots if isinstance(example, SimResult) else example.vms + example.extra_vms
            size = (10.0, min(max(4.5, 2.0 + 0.08 * rows), 12.0))
        draw.append(("gantt", size, lambda ax: plots.plot_gantt(example, ax)))
        if isinstance(example, SimResult):
            draw.append(("fairness_over_time", (9.5, 4.5), lambda ax: plots.plot_fairness_over_time(example, ax)))
    images = {}
    for name, size, plot in draw:
        # A bare Figure (no pyplot): nothing global to register or close, whatever backend pyplot uses.
        figure = Figure(figsize=size, layout="constrained")
        plot(figure.add_subplot())
        images[name] = png(figure)
    return images


def write_report(
    report: ValidationReport,
    directory: str | Path,
    *,
    example: SimResult | VmResult | None = None,
    title: str | None = None,
) -> dict[str, Path]:
    """Write the report into ``directory`` (created if needed): report.md, report.html and the
    figures as PNGs (`render_figures`) and the report's data (validation.json), each atomically;
    figures of an earlier report that this one has not are removed. Returns the written paths by
    artefact name: "markdown", "html", "json" and the figure names."""
    as_instance(report, ValidationReport, "report")
    directory = Path(as_path(directory, "directory"))
    if example is not None:
        as_instance(example, (SimResult, VmResult), "example")
    if title is not None and not isinstance(title, str):
        raise InvalidType("title", f"must be a string, got {shown(title)} ({type(title).__name__})")
    images = render_figures(report, example)
    paths: dict[str, Path] = {}
    # Figures first, so that the Markdown never links to a file not yet there.
    for name, data in images.items():
        paths[name] = directory / f"{name}.png"
        write_atomic(paths[name], data)
    markdown = directory / "report.md"
    write_atomic(markdown, render_markdown(report, {name: f"{name}.png" for name in images}, title=title))
    page = directory / "report.html"
    write_atomic(page, render_html(report, images, title=title))
    data = directory / "validation.json"
    write_atomic(data, report.to_json() + "\n")
    for name in FIGURES:
        if name not in images:  # a figure of an earlier report in this folder would now mislead
            (directory / f"{name}.png").unlink(missing_ok=True)
    return {"markdown": markdown, "html": page, "json": data, **paths}
