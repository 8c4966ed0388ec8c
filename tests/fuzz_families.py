"""The hostile-input families of issue 39 as fuzz cases (`tests.fuzz_inputs` draws them).

Each family breaks one thing the outside campaign broke: a symlink loop as an input path, a
file name over 255 bytes, an allocation file nested thousands deep, ``-o`` into a read-only
folder, ``-o`` onto a symlink or a special file, SIGINT and SIGTERM at a random moment, runs
too big to finish, control characters from inputs, ``--solver pso`` writing into the current
folder, the same run three times, and ``simulate --plan`` of a VM plan with ``-o``. A builder
returns a `Draft`: the command (argv naming files of the case folder as ``{case}/NAME``), the
files that differ from the originals, and how the case is run.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from tests.fuzz_mutations import (
    CHARDEV,
    FIFO,
    HERE,
    JOBS,
    LINK,
    LOOP,
    OUTSIDE_LINK,
    READONLY,
    deep_allocation,
    deep_capacity,
)

#: How a case runs: in the harness's process, as ``python -m planner`` (cwd: the case folder),
#: interrupted by a signal, or three times over to compare the outputs.
PROCESS, SUBPROCESS, SIGNAL, DETERMINISM = "process", "subprocess", "signal", "determinism"

#: The Hadoop files of a case folder (copies of tests/data/hadoop-conf; the nodes file's last
#: node gets its name).
CONF = ("conf/yarn-fair-scheduler.xml", "conf/yarn-fair-scheduler-allocation.xml", "conf/capacity-scheduler.xml")
NODES = "conf/sls-nodes.json"


@dataclass(frozen=True)
class Draft:
    """A case before its files are filled in: ``files`` maps a name to its content, or to None
    for the original of that name (`tests.fuzz_inputs.originals`)."""

    family: str
    command: str
    argv: list[str]
    mutation: str
    files: dict[str, str | bytes | None] = field(default_factory=dict)
    mode: str = PROCESS
    limit: float | None = None  # seconds; None: the run's --timeout
    signal: str = ""  # SIGINT or SIGTERM, sent ``delay`` seconds after the start
    delay: float = 0.0


def _f(name: str) -> str:
    return f"{HERE}/{name}"


def _originals(*names: str) -> dict[str, str | bytes | None]:
    return dict.fromkeys(names)


def _queue_map(rng: random.Random) -> list[str]:
    return ["--queue-map", rng.choice(["*=sls_queue_1", "production=sls_queue_3,*=sls_queue_1"])]


def _target_plan(rng: random.Random, conf: str) -> tuple[str, list[str]]:
    target = rng.choice(["yarn-fair", "yarn-capacity"])
    return f"plan --target {target}", ["plan", _f("w.yaml"), "-c", _f("c.yaml"), "--target", target,
                                       "--hadoop-conf", _f(conf), *_queue_map(rng), "--runs", "2",
                                       "--executor", "serial"]


# Writers: (label, argv, the output's name in the case folder) for commands that write one file.
def _writers(rng: random.Random) -> tuple[str, list[str], str]:
    inputs = [_f("w.yaml"), "-c", _f("c.yaml")]
    return rng.choice([
        ("plan", ["plan", *inputs, "-o", _f("out/plan.json")], "out/plan.json"),
        ("simulate", ["simulate", *inputs, "-o", _f("out/result.json")], "out/result.json"),
        ("import swim", ["import", "swim", _f("swim.tsv"), "--limit", "10", "-o", _f("out/w.yaml")], "out/w.yaml"),
        ("import rumen --tasks-csv", ["import", "rumen", _f("rumen.json"), "--tasks-csv", _f("out/tasks.csv")],
         "out/tasks.csv"),
        ("fit", ["fit", _f("runtimes.csv"), "-o", _f("out/fit.yaml")], "out/fit.yaml"),
        ("sweep", ["sweep", *inputs, "-s", "fifo", "--runs", "1", "--executor", "serial", "-o", _f("out/runs.csv")],
         "out/runs.csv"),
    ])


def _inputs_of(argv: list[str]) -> dict[str, str | bytes | None]:
    names = [arg.split(f"{HERE}/", 1)[1] for arg in argv if HERE in arg]
    return _originals(*(name for name in names if not name.startswith("out/")))


def symlink_loop(rng: random.Random) -> Draft:
    which = rng.choice(["conf", "nodes", "workload", "cluster", "plan", "export conf"])
    if which == "conf":
        label, argv = _target_plan(rng, "conf")
        return Draft("symlink loop", label, argv, "--hadoop-conf conf is a symlink loop",
                     {**_originals("w.yaml", "c.yaml"), "conf": LOOP})
    if which == "nodes":
        argv = ["simulate", _f("w.yaml"), "-c", _f("c.yaml"), "--hadoop-conf", _f(CONF[0]), "--hadoop-conf",
                _f(NODES), *_queue_map(rng)]
        return Draft("symlink loop", "simulate --hadoop-conf", argv, "the SLS nodes file is a symlink loop",
                     {**_originals("w.yaml", "c.yaml", CONF[0]), NODES: LOOP})
    if which == "export conf":
        argv = ["export", _f("tplan.json"), "-c", _f("c.yaml"), "--to", "yarn-fair", "--hadoop-conf", _f("conf"),
                "-o", _f("out/exp")]
        return Draft("symlink loop", "export", argv, "--hadoop-conf conf is a symlink loop",
                     {**_originals("tplan.json", "c.yaml"), "conf": LOOP})
    name = {"workload": "w.yaml", "cluster": "c.yaml", "plan": "plan.json"}[which]
    if which == "plan":
        argv = ["validate", _f("w.yaml"), "-c", _f("c.yaml"), "-p", _f("plan.json"), "--runs", "2", "--executor",
                "serial"]
    else:
        argv = ["simulate" if rng.random() < 0.5 else "plan", _f("w.yaml"), "-c", _f("c.yaml")]
    return Draft("symlink loop", argv[0], argv, f"{name} is a symlink loop", {**_inputs_of(argv), name: LOOP})


def long_name(rng: random.Random) -> Draft:
    long = "n" * rng.choice([256, 300, 4000])
    which = rng.choice(["workload", "conf", "output", "cluster"])
    if which == "conf":
        label, argv = _target_plan(rng, f"{long}.xml")
    elif which == "output":
        label, argv, _ = _writers(rng)
        argv = [arg.replace("out/", f"out/{long}") if HERE in arg else arg for arg in argv]
    else:
        argv = ["plan", _f("w.yaml"), "-c", _f("c.yaml")]
        argv[1 if which == "workload" else 3] = _f(f"{long}.yaml")
        label = "plan"
    files = {name: content for name, content in _inputs_of(argv).items() if long not in name}
    return Draft("name over 255 bytes", label, argv, f"{which}: a {len(long) + 5}-byte file name", files)


def deep_nesting(rng: random.Random) -> Draft:
    depth = rng.choice([3000, 100_000])
    if rng.random() < 0.6:
        name, content = CONF[1], deep_allocation(depth)
        queue = "root." + ".".join(["q"] * min(depth, 5))
    else:
        depth = 1000 if depth > 3000 else depth  # its names grow with the depth: 3,000 deep is 18 MB
        name, content = CONF[2], deep_capacity(depth)
        queue = "q"
    how = rng.choice(["simulate", "plan", "validate"])
    if how == "simulate":
        argv, label = ["simulate", _f("w.yaml"), "-c", _f("c.yaml"), "--hadoop-conf", _f(name), "--queue-map",
                       f"*={queue}"], "simulate --hadoop-conf"
    elif how == "plan":
        target = "yarn-fair" if name == CONF[1] else "yarn-capacity"
        argv, label = ["plan", _f("w.yaml"), "-c", _f("c.yaml"), "--target", target, "--hadoop-conf", _f(name),
                       "--queue-map", f"*={queue}", "--runs", "2", "--executor", "serial"], f"plan --target {target}"
    else:
        argv, label = ["validate", _f("w.yaml"), "-c", _f("c.yaml"), "-p", _f("plan.json"), "--hadoop-conf", _f(name),
                       "--runs", "2", "--executor", "serial"], "validate --hadoop-conf"
    return Draft("allocation nested deep", label, argv, f"{name}: queues nested {depth} deep",
                 {**_inputs_of(argv), name: content}, mode=SUBPROCESS)


def read_only_output(rng: random.Random) -> Draft:
    if rng.random() < 0.6:
        label, argv, _ = _writers(rng)
    else:
        label, argv = rng.choice([
            ("export", ["export", _f("plan.json"), "-c", _f("c.yaml"), "--to", "mrv1", "-o", _f("out/exp")]),
            ("validate", ["validate", _f("w.yaml"), "-c", _f("c.yaml"), "-p", _f("plan.json"), "--runs", "2",
                          "--executor", "serial", "-o", _f("out/report")]),
            ("replay", ["replay", "rumen", _f("rumen-jh.json"), "-o", _f("out/replay")]),
        ])
    return Draft("-o into a read-only folder", label, argv, "out/ is read-only", {**_inputs_of(argv), "out": READONLY},
                 mode=SUBPROCESS)


def output_symlink(rng: random.Random) -> Draft:
    label, argv, output = _writers(rng)
    kind = rng.choice(["existing", "dangling", "outside"])
    link = {"existing": f"{LINK}kept.txt", "dangling": f"{LINK}nowhere.txt", "outside": OUTSIDE_LINK}[kind]
    files = {**_inputs_of(argv), output: link}
    if kind == "existing":
        files["kept.txt"] = "a file the link leads to\n"
    return Draft("-o onto a symlink", label, argv, f"{output} is a symlink ({kind})", files)


def output_special(rng: random.Random) -> Draft:
    label, argv, output = _writers(rng)
    kind = rng.choice([FIFO, CHARDEV])
    return Draft("-o onto a FIFO or device", label, argv, f"{output} is {kind}", {**_inputs_of(argv), output: kind},
                 limit=20.0 if kind == FIFO else None)


def interrupted(rng: random.Random) -> Draft:
    inputs = [_f("w.yaml"), "-c", _f("c.yaml")]
    label, argv = rng.choice([
        ("plan --robust", ["plan", *inputs, "--robust", "--runs", "4", "-o", _f("out/plan.json")]),
        ("plan packing", ["plan", *inputs, "--strategy", "packing", "--time-limit", "5", "-o", _f("out/plan.json")]),
        ("plan --target", ["plan", *inputs, "--target", "yarn-fair", "--hadoop-conf", _f("conf"), "--queue-map",
                           "*=sls_queue_1", "--runs", "2", "-o", _f("out/plan.json")]),
        ("validate", ["validate", *inputs, "-p", _f("plan.json"), "--runs", "8", "-o", _f("out/report")]),
        ("sweep", ["sweep", *inputs, "-s", "fifo", "-s", "fair", "--runs", "3", "-o", _f("out/runs.csv")]),
        ("simulate", ["simulate", *inputs, "-s", "fair", "--task-time-cv", "0.3", "-o", _f("out/result.json")]),
        ("simulate 40,020 tasks", ["simulate", _f("big.json"), "-c", _f("c.yaml"), "-o", _f("out/result.json")]),
    ])
    files = _inputs_of(argv)
    if "big.json" in files:  # a 7 MB result file: a wider window for the signal to land while it is written
        files["big.json"] = f"{JOBS}20x2000"
    if "conf" in files:
        del files["conf"]
        files.update(_originals(*CONF))
    sent, delay = rng.choice(["SIGINT", "SIGTERM"]), round(rng.uniform(0.1, 3.0), 2)
    return Draft("SIGINT/SIGTERM", label, argv, f"{sent} after {delay} s", files, mode=SIGNAL, signal=sent,
                 delay=delay)


def oversized(rng: random.Random) -> Draft:
    if rng.random() < 0.6:
        extra = rng.choice([[], ["--scheduler", "natjam"], ["--network"]])
        argv = ["simulate", _f("big.json"), "-c", _f("c.yaml"), *extra]
        return Draft("oversized run", "simulate " + (" ".join(extra) or "plain"), argv, "10 jobs x 999,999 maps",
                     {"big.json": f"{JOBS}10x999999", "c.yaml": None}, mode=SUBPROCESS, limit=60.0)
    strategy = rng.choice(["packing", "pairs"])
    argv = ["plan", _f("big.json"), "-c", _f("c.yaml"), "--strategy", strategy]
    return Draft("oversized run", f"plan {strategy}", argv, "100,000 one-task jobs",
                 {"big.json": f"{JOBS}100000x1", "c.yaml": None}, mode=SUBPROCESS, limit=60.0)


ESCAPE = "\x1b[31m"


def control_characters(rng: random.Random) -> Draft:
    which = rng.choice(["yaml key", "job name", "csv header", "environ", "file name", "option"])
    if which == "yaml key":
        workload = ('name: n\njobs:\n  - name: j\n    map_tasks: 4\n    reduce_tasks: 1\n    map_time: 10\n'
                    '    reduce_time: 10\n    "\\e[31mred\\a": 1\n')
        argv = ["plan", _f("w.yaml"), "-c", _f("c.yaml")]
        return Draft("control characters", "plan", argv, "a YAML key holds ESC[31m and BEL",
                     {"w.yaml": workload, "c.yaml": None})
    if which == "job name":
        argv = ["simulate", _f("w.json"), "-c", _f("c.yaml")]
        workload = ('{"name": "n", "jobs": [{"name": "\\u001b[31mjob\\u0007", "map_tasks": -1, "reduce_tasks": 1, '
                    '"map_time": 1, "reduce_time": 1}]}\n')
        return Draft("control characters", "simulate", argv, "a job named ESC[31m with a bad count",
                     {"w.json": workload, "c.yaml": None})
    if which == "csv header":
        argv = ["fit", _f("runtimes.csv")]
        return Draft("control characters", "fit runtimes", argv, "the CSV header holds ESC, BEL and NUL",
                     {"runtimes.csv": f"job{ESCAPE}\x07,no\x00des,runtime\nj,4,100\n"})
    if which == "environ":
        label, argv = rng.choice([("fit", ["fit", "/proc/self/environ"]),
                                  ("import swim", ["import", "swim", "/proc/self/environ"]),
                                  ("plan", ["plan", "/proc/self/environ", "-c", _f("c.yaml")])])
        return Draft("control characters", label, argv, "/proc/self/environ as the input", _inputs_of(argv))
    if which == "file name":
        name = f"w{ESCAPE}\x07.yaml"
        argv = ["plan", _f(name), "-c", _f("c.yaml")]
        return Draft("control characters", "plan", argv, "a missing file named w ESC[31m BEL .yaml",
                     _originals("c.yaml"))
    label, argv, _ = _writers(rng)
    argv = [*argv, "--queue-map" if argv[0] in ("plan", "simulate") else "--seed", f"{ESCAPE}x=\x07y"]
    return Draft("control characters", label, argv, "an option value holds ESC[31m and BEL", _inputs_of(argv))


def pso_current_folder(rng: random.Random) -> Draft:
    argv = ["plan", _f("w.yaml"), "-c", _f("c.yaml"), "--strategy", "packing", "--solver", "pso", "--time-limit",
            str(rng.choice([1, 2])), *(["--json"] if rng.random() < 0.5 else [])]
    return Draft("--solver pso in the current folder", "plan packing pso", argv, "cwd is the case folder",
                 _inputs_of(argv), mode=SUBPROCESS)


def same_run_thrice(rng: random.Random) -> Draft:
    inputs = [_f("w.yaml"), "-c", _f("c.yaml")]
    label, argv = rng.choice([
        ("plan slots+johnson", ["plan", *inputs, "-o", _f("out/plan.json"), "--json"]),
        ("plan packing", ["plan", *inputs, "--strategy", "packing", "--solver", "greedy", "-o", _f("out/plan.json"),
                          "--json"]),
        ("plan pairs", ["plan", *inputs, "--strategy", "pairs", "--solver", "matching", "-o", _f("out/plan.json")]),
        ("plan --target", ["plan", *inputs, "--target", "mrv1", "--runs", "2", "--executor", "serial", "-o",
                           _f("out/plan.json"), "--json"]),
        ("simulate", ["simulate", *inputs, "-s", "fair", "--task-time-cv", "0.3", "-o", _f("out/result.json"),
                      "--json"]),
        ("validate", ["validate", *inputs, "-p", _f("plan.json"), "--runs", "2", "--executor", "serial", "--json"]),
        ("sweep", ["sweep", *inputs, "-s", "fifo", "-s", "fair", "--runs", "2", "--executor", "serial", "-o",
                   _f("out/runs.json")]),
        ("import swim", ["import", "swim", _f("swim.tsv"), "-o", _f("out/w.yaml"), "--json"]),
        ("fit", ["fit", _f("runtimes.csv"), "-o", _f("out/fit.yaml")]),
        ("replay", ["replay", "rumen", _f("rumen-jh.json"), "-o", _f("out/replay"), "--json"]),
        ("export", ["export", _f("plan.json"), "-c", _f("c.yaml"), "--to", "yarn-fair", "-o", _f("out/exp")]),
    ])
    return Draft("same run three times", label, argv, "3 runs: PYTHONHASHSEED 0, 0, 1", _inputs_of(argv),
                 mode=DETERMINISM)


def vm_plan_output(rng: random.Random) -> Draft:
    argv = ["simulate", _f("w.yaml"), "-c", _f("c.yaml"), "--plan", _f("vmplan.json"), "-o", _f("out/result.json")]
    return Draft("simulate --plan VM_PLAN -o", "simulate --plan", argv, "a VM plan, result to a file",
                 _inputs_of(argv))


def demo(rng: random.Random) -> Draft:
    argv = ["demo", "-o", _f("out/demo"), "--runs", "2", "--executor", "serial", *(["--json"] if rng.random() < 0.5
                                                                                    else [])]
    return Draft("demo", "demo", argv, "as shipped", {}, mode=SUBPROCESS, limit=300.0)  # it plans twice, validates


#: The families and their share of a campaign's cases (the rest: one broken input each).
FAMILIES: tuple[tuple[Callable[[random.Random], Draft], float], ...] = (
    (symlink_loop, 0.02), (long_name, 0.015), (deep_nesting, 0.01), (read_only_output, 0.01),
    (output_symlink, 0.02), (output_special, 0.02), (interrupted, 0.035), (oversized, 0.003),
    (control_characters, 0.02), (pso_current_folder, 0.006), (same_run_thrice, 0.008), (vm_plan_output, 0.004),
    (demo, 0.002),
)


#: The families' labels, as the table shows them.
LABELS = ("symlink loop", "name over 255 bytes", "allocation nested deep", "-o into a read-only folder",
          "-o onto a symlink", "-o onto a FIFO or device", "SIGINT/SIGTERM", "oversized run", "control characters",
          "--solver pso in the current folder", "same run three times", "simulate --plan VM_PLAN -o", "demo")


def draw(rng: random.Random) -> Draft | None:
    """A case of one of the families, or None (with the odds left over) for a broken input."""
    point = rng.random()
    for build, share in FAMILIES:
        if point < share:
            return build(rng)
        point -= share
    return None
