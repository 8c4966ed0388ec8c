"""Seeded fuzz cases for the `planner` command line, made from the real inputs.

Most cases are one command (import swim/rumen/sls, fit, plan with each strategy and each
--target with --hadoop-conf and --queue-map, export, simulate with --config, --hadoop-conf
or --plan, validate, compare, sweep, replay) on copies of the repository's own inputs
(examples/, tests/data/ with its Hadoop files, plans made from them), with exactly one thing
broken: a value in a file (huge, negative, NaN, the wrong type, deleted, nested ten thousand
deep), an element of a Hadoop XML file, the file's text (truncated, binary, an alias bomb,
a 200 KiB cell, entity attacks), the path (a directory, a FIFO, /dev/zero, missing) or an
option (1e400, --runs 1000000000, --slots 1000000000,1). The others are the families of
issue 39 (`tests.fuzz_families`: symlink loops, long names, deep nesting, read-only and
special outputs, signals, oversized runs, control characters, pso's stray file, determinism,
demo). Case ``i`` of seed ``s`` is the same whatever the count. `tests.fuzz_run` runs them;
standalone:

    .venv/bin/python -m tests.fuzz_inputs --cases 1000 --seed 0 [--jobs 2]
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from tests.fuzz_families import CONF, NODES, PROCESS, Draft, draw
from tests.fuzz_mutations import (
    DIRECTORY,
    FIFO,
    HERE,
    MISSING,
    SPECIALS,
    ZERO,
    entity_attack,
    mutate_option,
    mutate_structured,
    mutate_table,
    mutate_text,
    mutate_xml,
    short,
)

__all__ = ["DIRECTORY", "FIFO", "HERE", "MISSING", "ROOT", "ZERO", "Case", "make_case", "originals"]

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
EXAMPLES = ROOT / "examples"


SETTINGS = {
    "fair.yaml": "scheduler: fair\npools:\n  - {name: production, weight: 2, min_map: 10, min_reduce: 4}\n"
                 "  - {name: research, mode: fifo, max_running: 2}\ndelay: {node_wait: 15, rack_wait: 15}\n"
                 "preemption: {min_share_timeout: 30, fair_share_timeout: null}\n"
                 "options: {reduce_slowstart: 0.8, copy_compute: [4, 2]}\n",
    "capacity.yaml": "scheduler: capacity\nqueues:\n  - {name: production, capacity: 0.6}\n"
                     "  - {name: research, capacity: 0.4, max_capacity: 0.5}\ndelay: [15, 15]\n",
    "fresh.json": '{"scheduler": "fresh", "k": 3, "tau1": 0.8, "options": {"task_time_cv": 0.3}}\n',
}


@dataclass(frozen=True)
class Case:
    """One command on one folder of files; ``mutation`` says what was broken."""

    index: int
    command: str
    argv: tuple[str, ...]
    files: tuple[tuple[str, str | bytes], ...]
    mutation: str
    subprocess: bool = False
    family: str = "broken value"
    mode: str = PROCESS  # see tests.fuzz_families: process, subprocess, signal, determinism
    limit: float | None = None
    signal: str = ""
    delay: float = 0.0

    def describe(self) -> str:
        return (f"case {self.index} <{self.family}> [{self.command}] {self.mutation}: "
                f"planner {' '.join(short(repr(a)[1:-1]) for a in self.argv)}")


@cache
def originals() -> dict[str, str]:
    """The inputs every case starts from, by file name in the case folder."""
    from models import Cluster, Workload
    from planner.planning.make import make_plan

    files = {
        "w.yaml": (EXAMPLES / "nightly.yaml").read_text(),
        "c.yaml": (EXAMPLES / "cluster.yaml").read_text(),
        "runtimes.csv": (EXAMPLES / "runtimes.csv").read_text(),
        "sample-runtimes.csv": (DATA / "sample-runtimes.csv").read_text(),
        "tasks.csv": (EXAMPLES / "tasks.csv").read_text(),
        "sample-tasks.csv": (DATA / "sample-tasks.csv").read_text(),
        "swim.tsv": (DATA / "FB-2009_samples_24_times_1hr_0_first50jobs.tsv").read_text(),
        "rumen.json": (DATA / "wordcount.json").read_text(),
        "sls.json": (DATA / "inputsls.json").read_text(),
        **SETTINGS,
    }
    files["w.json"] = json.dumps(yaml.safe_load(files["w.yaml"]), indent=1)
    files["c.json"] = json.dumps(yaml.safe_load(files["c.yaml"]))
    workload, cluster = Workload.from_file(EXAMPLES / "nightly.yaml"), Cluster.from_file(EXAMPLES / "cluster.yaml")
    files["plan.json"] = _plan_text(make_plan(workload, cluster, "slots+johnson"))
    files["vmplan.json"] = _plan_text(make_plan(workload, cluster, "packing", solver="greedy"))
    files["rumen-jh.json"] = (DATA / "2jobs2min-rumen-jh.json").read_text()
    for name in CONF:
        files[name] = (DATA / "hadoop-conf" / Path(name).name).read_text()
    nodes = (DATA / "hadoop-conf" / "sls-nodes.json").read_text()  # its last node has no name: give it one
    files[NODES] = nodes[: nodes.rindex("{")] + '{"node": "node20"}\n  ]\n}\n'
    files["tplan.json"] = _target_plan_text(files)
    return files


def _target_plan_text(files: dict[str, str]) -> str:
    """A plan made with --target yarn-fair from the Hadoop files (through the command line)."""
    import contextlib
    import io
    import tempfile

    from planner.cli.main import run

    with tempfile.TemporaryDirectory() as folder:
        for name in ("w.yaml", "c.yaml", *CONF):
            (Path(folder) / name).parent.mkdir(parents=True, exist_ok=True)
            (Path(folder) / name).write_text(files[name])
        argv = ["plan", f"{folder}/w.yaml", "-c", f"{folder}/c.yaml", "--target", "yarn-fair", "--hadoop-conf",
                f"{folder}/conf", "--queue-map", "*=sls_queue_1", "--runs", "2", "--executor", "serial", "-o",
                f"{folder}/plan.json"]
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            run(argv)
        return (Path(folder) / "plan.json").read_text()


def _plan_text(plan: Any) -> str:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "plan.json"
        plan.to_file(path)
        return path.read_text()


# The commands: each returns (label, argv); an argument naming a file of the case is "{case}/NAME".
def _f(name: str) -> str:
    return f"{HERE}/{name}"


def _maybe(rng: random.Random, odds: float, *args: str) -> list[str]:
    return list(args) if rng.random() < odds else []


def _inputs(rng: random.Random) -> list[str]:
    return [_f(rng.choice(["w.yaml", "w.yaml", "w.json"])), "-c", _f(rng.choice(["c.yaml", "c.yaml", "c.json"]))]


def _import(rng: random.Random) -> tuple[str, list[str]]:
    kind = rng.choice(["swim", "swim", "rumen", "rumen", "sls"])
    argv = ["import", kind, _f({"swim": "swim.tsv", "rumen": "rumen.json", "sls": "sls.json"}[kind])]
    if kind == "swim":
        argv += _maybe(rng, 0.3, "--limit", "10") + _maybe(rng, 0.3, "--set", "block_size=67108864")
    if kind == "rumen":
        argv += _maybe(rng, 0.4, "--keep-failed") + _maybe(rng, 0.4, "--tasks-csv", _f("out/tasks.csv"))
    return f"import {kind}", argv + _maybe(rng, 0.3, "-o", _f("out/w.yaml")) + _maybe(rng, 0.3, "--json")


def _fit(rng: random.Random) -> tuple[str, list[str]]:
    if rng.random() < 0.5:
        workload = _maybe(rng, 0.3, "--workload", _f("w.yaml"))
        argv = ["fit", _f(rng.choice(["runtimes.csv", "sample-runtimes.csv"])), *workload]
        label = "fit runtimes"
    else:
        argv, label = ["fit", _f(rng.choice(["tasks.csv", "sample-tasks.csv"]))], "fit tasks"
    return label, argv + _maybe(rng, 0.3, "-o", _f("out/fit.yaml")) + _maybe(rng, 0.2, "--kind", "tasks")


def _plan(rng: random.Random) -> tuple[str, list[str]]:
    strategy = rng.choice(["slots", "johnson", "slots+johnson", "pairs", "packing", "packing"])
    argv = ["plan", *_inputs(rng), "--strategy", strategy]
    if strategy == "pairs":
        argv += ["--solver", rng.choice(["matching", "milp", "exhaustive"]), "--time-limit", "2"]
    elif strategy == "packing":
        argv += ["--solver", rng.choice(["greedy", "greedy", "milp", "pso"]), "--time-limit", "2"]
    else:
        argv += _maybe(rng, 0.15, "--robust", "--runs", "2", "--executor", "serial") or _maybe(rng, 0.3, "-k", "3")
    return f"plan {strategy}", argv + _maybe(rng, 0.3, "-o", _f("out/plan.json")) + _maybe(rng, 0.3, "--json")


def _simulate(rng: random.Random) -> tuple[str, list[str]]:
    scheduler = rng.choice(["fifo", "fair", "capacity", "fresh", "natjam"])
    argv = ["simulate", *_inputs(rng), "--scheduler", scheduler]
    config = {"fair": "fair.yaml", "capacity": "capacity.yaml", "fresh": "fresh.json"}.get(scheduler)
    if config and (scheduler == "capacity" or rng.random() < 0.5):
        argv += ["--config", _f(config)]
    for option in (("--delay", "15,15"), ("--slots", "30,10"), ("--task-time-cv", "0.3"), ("--heartbeat", "1"),
                   ("--slowstart", "0.8"), ("--seed", "3")):
        argv += _maybe(rng, 0.15, *option)
    return f"simulate {scheduler}", argv + _maybe(rng, 0.2, "-o", _f("out/result.json")) + _maybe(rng, 0.3, "--json")


def _validate(rng: random.Random) -> tuple[str, list[str]]:
    plan = rng.choice(["plan.json", "plan.json", "vmplan.json", "tplan.json"])
    argv = ["validate", _f("w.yaml"), "-c", _f("c.yaml"), "-p", _f(plan), "--runs", "2", "--executor", "serial"]
    if plan == "tplan.json" or rng.random() < 0.2:
        argv += ["--hadoop-conf", _f(rng.choice(["conf", CONF[1], CONF[2]]))]
    if plan == "plan.json":
        argv += _maybe(rng, 0.3, "--target", rng.choice(["mrv1", "yarn-fair", "yarn-capacity"]))
    return f"validate {plan}", argv + _maybe(rng, 0.05, "-o", _f("out/report")) + _maybe(rng, 0.3, "--json")


def _queue_map(rng: random.Random) -> list[str]:
    return ["--queue-map", rng.choice(["*=sls_queue_1", "production=sls_queue_3,*=sls_queue_1",
                                       "production=sls_queue_1", "etl-clicks=sls_queue_2,*=sls_queue_3"])]


def _conf(rng: random.Random, target: str) -> list[str]:
    """--hadoop-conf: the folder, or some of its files one by one."""
    if rng.random() < 0.4:
        return ["--hadoop-conf", _f("conf")]
    names = {"yarn-fair": [CONF[0], CONF[1]], "yarn-capacity": [CONF[2]], "mrv1": [CONF[0]]}[target]
    names += [NODES] if rng.random() < 0.3 else []
    return [arg for name in names for arg in ("--hadoop-conf", _f(name))]


def _plan_target(rng: random.Random) -> tuple[str, list[str]]:
    target = rng.choice(["mrv1", "yarn-fair", "yarn-fair", "yarn-capacity"])
    argv = ["plan", *_inputs(rng), "--target", target, "--runs", "2", "--executor", "serial"]
    if target != "mrv1" or rng.random() < 0.3:
        argv += _conf(rng, target) + _queue_map(rng)
    argv += _maybe(rng, 0.3, "--objective", rng.choice(["mean_response", "weighted_response", "makespan", "window"]))
    if "window" in argv:
        argv += ["--window", "3600"]
    return f"plan --target {target}", argv + _maybe(rng, 0.3, "-o", _f("out/plan.json")) + _maybe(rng, 0.3, "--json")


def _export(rng: random.Random) -> tuple[str, list[str]]:
    plan = rng.choice(["plan.json", "tplan.json"])
    to = "yarn-fair" if plan == "tplan.json" else rng.choice(["mrv1", "yarn-fair", "yarn-capacity"])
    argv = ["export", _f(plan), "-c", _f("c.yaml"), "--to", to, "-o", _f("out/exp")]
    argv += _maybe(rng, 0.5, "-w", _f("w.yaml")) + _maybe(rng, 0.2, "--ready-now")
    if plan == "tplan.json" or rng.random() < 0.3:
        argv += _conf(rng, to)
    return f"export --to {to}", argv + _maybe(rng, 0.3, "--json")


def _simulate_conf(rng: random.Random) -> tuple[str, list[str]]:
    if rng.random() < 0.3:
        plan = rng.choice(["plan.json", "tplan.json"])
        argv = ["simulate", *_inputs(rng), "--plan", _f(plan), "--target",
                "yarn-fair" if plan == "tplan.json" else rng.choice(["mrv1", "yarn-fair", "yarn-capacity"])]
        label = f"simulate --plan {plan}"
    else:
        target = rng.choice(["yarn-fair", "yarn-capacity", "mrv1"])
        argv = ["simulate", *_inputs(rng), *_conf(rng, target), *_queue_map(rng)]
        label = "simulate --hadoop-conf"
    argv += _maybe(rng, 0.2, "--seed", "3") + _maybe(rng, 0.2, "--summary-only", "-o", _f("out/result.json"))
    return label, argv + _maybe(rng, 0.3, "--json")


def _replay(rng: random.Random) -> tuple[str, list[str]]:
    argv = ["replay", "rumen", _f(rng.choice(["rumen-jh.json", "rumen.json"]))]
    argv += _maybe(rng, 0.3, "-c", _f("c.yaml")) + _maybe(rng, 0.3, "-s", rng.choice(["fair", "capacity", "natjam"]))
    return "replay rumen", argv + _maybe(rng, 0.3, "-o", _f("out/replay")) + _maybe(rng, 0.3, "--json")


def _compare(rng: random.Random) -> tuple[str, list[str]]:
    verb = rng.choice(["compare", "sweep"])
    argv = [verb, *_inputs(rng), "-s", "fifo", "-s", rng.choice(["fair", f"fair:{_f('fair.yaml')}", "fresh"]),
            "--runs", "2" if verb == "sweep" else "1", "--executor", "serial"]
    argv += _maybe(rng, 0.3, "--slots", "30,10") + _maybe(rng, 0.3, "--json")
    if verb == "sweep":
        argv += _maybe(rng, 0.3, "-o", _f(rng.choice(["out/runs.csv", "out/runs.json"])))
    return verb, argv


COMMANDS: list[Callable[[random.Random], tuple[str, list[str]]]] = [
    _import, _import, _fit, _plan, _plan, _simulate, _simulate, _validate, _compare,
    _plan_target, _plan_target, _export, _simulate_conf, _simulate_conf, _replay,
]


def make_case(index: int, seed: int, *, subprocess_every: int = 0) -> Case:
    """Case ``index`` of the run seeded ``seed`` (independent of how many cases there are)."""
    rng = random.Random(f"{seed}:{index}")
    draft = draw(rng)
    if draft is not None:
        return _from_draft(index, draft)
    command, argv = rng.choice(COMMANDS)(rng)
    files = dict(originals())
    named = [arg.split(f"{HERE}/", 1)[1] for arg in argv if HERE in arg]
    used = [name for name in named if not name.startswith("out/")]
    if "conf" in used:
        used = [name for name in used if name != "conf"] + list(CONF)
    outputs = [name for name in named if name.startswith("out/")]
    target = rng.random()
    if target < 0.15 or not used:
        argv, mutation = mutate_option(argv, rng)
        family = "broken option"
    elif target < 0.2 and outputs:  # where the command writes: a folder there, or a file where its folder goes
        if rng.random() < 0.5:
            name = rng.choice(outputs)
            files[name], mutation = DIRECTORY, f"output {name} is a folder"
        else:
            name = "out"
            files[name], mutation = "not a folder\n", "the output folder out/ is a file"
        used.append(name)
        family = "output is a folder or file"
    elif target < 0.25:
        name = rng.choice(used)
        files[name] = rng.choice(SPECIALS)
        mutation, family = f"{name} is {files[name]}", "special input path"
    else:
        name = rng.choice(used)
        text, suffix = files[name], Path(name).suffix
        family = "broken text"
        if suffix == ".xml" and rng.random() < 0.15:
            files[name] = entity_attack(rng.choice(["laughs", "xxe", "parameter", "xinclude"]), CANARY)
            mutation, family = "entity attack", "XML entity attack"
        elif rng.random() < 0.35:
            files[name], mutation = mutate_text(text, rng)
        elif suffix in (".csv", ".tsv"):
            files[name], mutation = mutate_table(text, "\t" if suffix == ".tsv" else ",", rng)
            family = "broken table cell"
        elif suffix == ".xml":
            files[name], mutation = mutate_xml(text, rng)
            family = "broken Hadoop XML"
        elif name in ("rumen.json", "sls.json", "rumen-jh.json", NODES):
            files[name], mutation = _mutate_stream(text, rng)
            family = "broken value"
        else:
            files[name], mutation = mutate_structured(text, "json" if suffix == ".json" else "yaml", rng)
            family = "broken value"
        mutation = f"{name}: {mutation}"
    subprocess = bool(subprocess_every) and index % subprocess_every == subprocess_every - 1
    return Case(index, command, tuple(argv), tuple((n, files[n]) for n in sorted(set(used))), mutation, subprocess,
                family)


def family_of(index: int, seed: int) -> str | None:
    """The family of issue 39 case ``index`` belongs to (None: a broken input), without making its files."""
    draft = draw(random.Random(f"{seed}:{index}"))
    return None if draft is None else draft.family


#: The file an XXE or XInclude points at; a case that prints its text has read it.
CANARY = "/tmp/planner-fuzz-canary.txt"
CANARY_TEXT = "CANARY-7d1f0c-the-entity-was-read"


def _from_draft(index: int, draft: Draft) -> Case:
    files = {name: originals()[name] if content is None else content for name, content in draft.files.items()}
    return Case(index, draft.command, tuple(draft.argv), tuple(sorted(files.items())), draft.mutation,
                draft.mode != PROCESS, draft.family, draft.mode, draft.limit, draft.signal, draft.delay)


def _mutate_stream(text: str, rng: random.Random) -> tuple[str, str]:
    """Rumen and SLS files are streams of JSON objects: mutate one of them."""
    decoder, position, objects = json.JSONDecoder(), 0, []
    while position < len(text.rstrip()):
        while text[position].isspace():
            position += 1
        value, position = decoder.raw_decode(text, position)
        objects.append(value)
    which = rng.randrange(len(objects))
    changed, mutation = mutate_structured(json.dumps(objects[which]), "json", rng)
    parts = [json.dumps(o) for o in objects]
    parts[which] = changed
    if rng.random() < 0.2:  # a failed job that carries counts where its task list belongs
        parts.append(json.dumps({**objects[0], "jobID": "job_failed", "outcome": "FAILED", "mapTasks": 5,
                                 "reduceTasks": 2, "totalMaps": 5, "totalReduces": 2}))
        mutation += ", plus a failed job with task counts"
    return "\n".join(parts) + "\n", f"object {which}: {mutation}"


if __name__ == "__main__":
    from tests.fuzz_run import main

    raise SystemExit(main())
