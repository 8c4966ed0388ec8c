"""Two checkouts of batchplan, side by side in one run: the simulator's CPU time and results.

For a change that must not touch the simulator's results nor slow its compiled hot path (a
restructuring, issue 37), this runs the scale benchmark's cases (`benchmarks.bench_scale.CASES`:
nine schedulers at 1,000 and 5,000 jobs) and the simulator benchmark's (its three throughput cases
and the FB-2009 day under fair sharing with delay, with the network on, without delay and FIFO)
in both checkouts, alternately (base, new, base, new, ...), each checkout in a process of its own
started with its own interpreter (its own build). Each case's CPU seconds are the least of
``--repeats`` runs (a disturbance only adds time) and its digest is a SHA-256 of every attempt
column and every job's record: equal digests mean the same simulation, attempt for attempt.

    python -m benchmarks.compare_builds --base ../base [--new .] [--repeats 3] [--only scale|simulator]
        [--match TEXT] [--write]

Each checkout's cases come from its own benchmark modules, so a checkout that moved or renamed the
simulator's modules still runs the same workloads. The table goes to stdout (Markdown) and to
``benchmarks/results/compare-builds.md`` of the new checkout with ``--write``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve()
#: The tolerance: a case's least CPU seconds in the new checkout at most this many times the base's.
TOLERANCE = 1.03

WORKER = r"""
import gc, hashlib, json, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np


def digest(result):
    h = hashlib.sha256()
    columns = result.columns()
    for name in sorted(columns):
        h.update(name.encode())
        h.update(np.ascontiguousarray(columns[name]).tobytes())
    h.update(json.dumps(result.jobs, sort_keys=True, default=str).encode())
    return h.hexdigest()[:12]


def cases():
    from benchmarks import bench_scale, bench_simulator
    from planner.io.swim import read_swim
    from planner.simulator import Fair, Fifo, simulate

    found = {}
    for method, (make_jobs, make_scheduler, options) in bench_scale.CASES.items():
        for count in (1_000, 5_000):
            found[f"scale: {method}, {count:,} jobs"] = (
                lambda make_jobs=make_jobs, count=count: make_jobs(count),
                lambda make_scheduler=make_scheduler, options=options: (make_scheduler(), options, bench_scale.CLUSTER))
    throughput = bench_simulator.throughput_batch(1000, maps=300)
    for case, options in bench_simulator.THROUGHPUT_CASES.items():
        found[f"simulator: throughput, {case}"] = (
            lambda: throughput,
            lambda options=options: (Fifo(), options, bench_simulator.THROUGHPUT_CLUSTER))
    day = []
    def fb_day():
        if not day:
            day.append(read_swim(bench_simulator.FB_DAY))
        return day[0]
    delay = bench_simulator.DELAY
    for name, make, options in (("fair, delay", lambda: Fair(delay=delay), None),
                                ("fair, delay, network on", lambda: Fair(delay=delay), bench_simulator.NETWORK),
                                ("fair, no delay", Fair, None), ("fifo, no delay", Fifo, None)):
        found[f"simulator: FB-2009 day, {name}"] = (
            fb_day, lambda make=make, options=options: (make(), options, bench_simulator.SCALE_CLUSTER))
    return found, simulate


found, simulate = cases()
for line in sys.stdin:
    name = line.strip()
    if name == "?":  # the case names, one JSON line
        print(json.dumps(list(found)), flush=True)
        continue
    make_jobs, make_run = found[name]
    jobs = make_jobs()
    scheduler, options, cluster = make_run()
    gc.collect()
    start = time.process_time()
    result = simulate(jobs, cluster, scheduler, options=options)
    seconds = time.process_time() - start
    print(json.dumps({"case": name, "seconds": seconds, "digest": digest(result),
                      "makespan": result.makespan}), flush=True)
    del result
"""

class Worker:
    """One checkout's process: reads case names on stdin, answers one JSON line each."""

    def __init__(self, root: Path) -> None:
        self.root = root
        python = root / ".venv" / "bin" / "python"
        self.process = subprocess.Popen([str(python), "-c", WORKER, str(root)], cwd=root, text=True,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def names(self) -> list[str]:
        """The cases this checkout's benchmark modules define."""
        return list(self.run("?"))

    def run(self, case: str) -> dict | list:
        if self.process.stdin is None or self.process.stdout is None:
            raise RuntimeError(f"{self.root}: the worker has no pipes")
        self.process.stdin.write(case + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.root}: the worker stopped at {case!r}")
        return json.loads(line)

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=60)


def compare(base: Path, new: Path, repeats: int, only: str | None, matching: str | None = None) -> list[dict]:
    workers = {"base": Worker(base), "new": Worker(new)}
    rows = []
    try:
        names = [n for n in workers["new"].names() if (only is None or n.startswith(only + ":"))
                 and (matching is None or matching in n)]
        missing = set(names) - set(workers["base"].names())
        if missing:
            raise SystemExit(f"cases the base does not have: {sorted(missing)}")
        for name in names:
            seen: dict[str, list[dict]] = {"base": [], "new": []}
            for _ in range(repeats):
                for side in ("base", "new"):
                    seen[side].append(workers[side].run(name))
            least = {side: min(r["seconds"] for r in runs) for side, runs in seen.items()}
            digests = {side: {r["digest"] for r in runs} for side, runs in seen.items()}
            row = {"case": name, "base_seconds": least["base"], "new_seconds": least["new"],
                   "ratio": least["new"] / least["base"], "base_digest": "/".join(sorted(digests["base"])),
                   "new_digest": "/".join(sorted(digests["new"]))}
            row["same_result"] = digests["base"] == digests["new"] and len(digests["new"]) == 1
            row["within"] = row["ratio"] <= TOLERANCE
            rows.append(row)
            print(_line(row), file=sys.stderr, flush=True)
    finally:
        for worker in workers.values():
            worker.close()
    return rows


def _line(row: dict) -> str:
    return (f"| {row['case']} | {row['base_seconds']:.3f} | {row['new_seconds']:.3f} | {row['ratio']:.3f} | "
            f"{row['base_digest']} | {row['new_digest']} | {'yes' if row['same_result'] else 'NO'} | "
            f"{'yes' if row['within'] else 'NO'} |")


def table(rows: list[dict], base: Path, new: Path, repeats: int) -> str:
    def commit(root: Path) -> str:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, text=True, capture_output=True,
                              check=False).stdout.strip() or "?"

    head = ["# compare-builds\n",
            f"Base {commit(base)} against new {commit(new)}, alternately in one run; CPU seconds of "
            f"`simulate` are the least of {repeats} runs; digest: SHA-256 of the attempt columns and job "
            f"records. Tolerance: new <= {TOLERANCE:g} x base.\n",
            "| case | base s | new s | new / base | base digest | new digest | same result | within |",
            "|---|---|---|---|---|---|---|---|"]
    within = sum(r["within"] for r in rows)
    same = sum(r["same_result"] for r in rows)
    tail = [f"\n{same} of {len(rows)} cases give the same result; {within} of {len(rows)} within "
            f"{TOLERANCE:g}x; total CPU base {sum(r['base_seconds'] for r in rows):.1f} s, new "
            f"{sum(r['new_seconds'] for r in rows):.1f} s."]
    return "\n".join(head + [_line(r) for r in rows] + tail) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=True)
    parser.add_argument("--new", type=Path, default=HERE.parent.parent)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", choices=("scale", "simulator"))
    parser.add_argument("--match", help="only the cases whose name holds this text")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    base, new = args.base.resolve(), args.new.resolve()
    rows = compare(base, new, args.repeats, args.only, args.match)
    text = table(rows, base, new, args.repeats)
    print(text)
    if args.write:
        from models.fileio import write_atomic

        write_atomic(new / "benchmarks" / "results" / "compare-builds.md", text)
    return 0 if all(r["same_result"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

