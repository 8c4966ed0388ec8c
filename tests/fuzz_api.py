"""A seeded fuzzing of the Python API: every public callable of `planner`, `models` and `solvers`.

Case ``i`` of seed ``s`` is one public name, called with valid arguments made from the
repository's real inputs (`tests.fuzz_api_calls`), one of which is replaced by a hostile
value (None, a dict, a path, the wrong object, 2**63, NaN, +-inf, 1e308, 10**100, 10**9,
an empty list, control characters...). The same whatever the count: the name comes from a
seeded cycle over the names, the parameter and the value from a generator seeded by (s, i).

The cases run in forked worker processes, one chunk at a time, each with an address-space
limit (4 GiB) and each case with a time limit (an alarm in the worker, and a wall deadline in
the parent that kills a worker stuck where the alarm cannot reach). Outcomes, by class:

- ``success``: the call returned, every number in the result finite;
- ``non-finite``: it returned NaN or inf somewhere (a number, an array, a record's field);
- ``named``: a `PlannerError` whose message names the parameter;
- ``unnamed``: a `PlannerError` whose message does not;
- ``generic``: a TypeError or ValueError that is not a `PlannerError`;
- ``unexpected``: any other exception (AttributeError, KeyError, OverflowError, ...);
- ``hang``: past the time limit; ``memory``: MemoryError, or the worker killed; ``crash``: the
  worker died another way.

The first three pass. Standalone:

    .venv/bin/python -m tests.fuzz_api --cases 3000 --seed 0 [--timeout 60] [--packages models,solvers]
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import inspect
import json
import math
import numbers
import os
import random
import resource
import select
import signal
import sys
import tempfile
import time
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tests.fuzz_api_calls import HOSTILE_KINDS, Inputs, builders, hostile_value
from tests.fuzz_run import CaseTimeout, alarm

PACKAGES = ("models", "solvers", "planner")
#: Outcome classes that pass.
PASSING = ("success", "named")
CLASSES = ("success", "named", "non-finite", "unnamed", "generic", "unexpected", "hang", "memory", "crash")
#: The worker's address-space limit.
MEMORY_LIMIT = 4 * 2**30
#: Seconds the parent waits past a case's time limit before it kills the worker.
GRACE_SECONDS = 20.0
#: Cases one worker runs before the next is forked (a fresh process, the inputs read again).
CHUNK = 100
#: Record fields whose docstring says they hold inf on purpose: (class name, field).
DOCUMENTED_INFINITIES = frozenset({("PairCost", "concurrent"), ("PairCost", "overcommit"),
                                   ("PairCosts", "concurrent"), ("PairCosts", "overcommit"), ("PsoOutcome", "cost")})
#: Parameters never broken: they take what the caller runs the call with, not data.
UNBROKEN = frozenset({"progress", "executor"})
#: The parameters broken where the signature has more: `SolveStatus` is an Enum, whose call
#: also takes Python's functional API (names, module, qualname, type, start, boundary).
ONLY_PARAMETERS = {("solvers", "SolveStatus"): ("value",)}


@dataclass(frozen=True)
class ApiCase:
    """One call of ``package.name`` with ``parameter`` replaced by a value of ``kind``."""

    index: int
    seed: int
    package: str
    name: str
    parameter: str
    kind: str

    def describe(self) -> str:
        return f"case {self.index} seed {self.seed}: {self.package}.{self.name}({self.parameter}=<{self.kind}>)"


@dataclass(frozen=True)
class ApiOutcome:
    case: ApiCase
    verdict: str  # one of CLASSES
    detail: str
    seconds: float

    def report(self) -> str:
        return f"{self.verdict.upper()} {self.case.describe()} -> {self.detail}"


def public_callables() -> list[tuple[str, str]]:
    """(package, name) of every public name that is called: not the exception and warning
    classes, not the Protocols, not the constants."""
    import importlib

    found = []
    for package in PACKAGES:
        module = importlib.import_module(package)
        for name in module.__all__:
            value = getattr(module, name)
            if not callable(value) or getattr(value, "_is_protocol", False):
                continue
            if inspect.isclass(value) and issubclass(value, (BaseException, Warning)):
                continue
            found.append((package, name))
    return found


def target(package: str, name: str) -> object:
    import importlib

    return getattr(importlib.import_module(package), name)


@cache
def parameters(package: str, name: str) -> tuple[str, ...]:
    """The parameters a case may break: the callable's named ones (a ``**options`` one is
    broken through the keys its builder passes)."""
    if (package, name) in ONLY_PARAMETERS:
        return ONLY_PARAMETERS[package, name]
    named = [p.name for p in inspect.signature(target(package, name)).parameters.values()
             if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name not in UNBROKEN]
    return tuple(named)


@cache
def _cycle(seed: int) -> tuple[tuple[str, str], ...]:
    names = sorted(public_callables())
    random.Random(f"api-names:{seed}").shuffle(names)
    return tuple(names)


def make_api_case(index: int, seed: int) -> ApiCase:
    """Case ``index`` of ``seed``: the same whatever the count."""
    names = _cycle(seed)
    package, name = names[index % len(names)]
    rng = random.Random(f"api-case:{seed}:{index}")
    choices = parameters(package, name)
    parameter = rng.choice(choices) if choices else ""
    return ApiCase(index, seed, package, name, parameter, rng.choice(HOSTILE_KINDS))


# ---------------------------------------------------------------------------- one call


def non_finite(value: object, where: str = "result", depth: int = 0, budget: list[int] | None = None) -> str | None:
    """Where in ``value`` a NaN or an infinity is (``result.jobs[2].finish``), or None."""
    budget = [20000] if budget is None else budget
    budget[0] -= 1
    if budget[0] < 0 or depth > 8 or value is None or isinstance(value, (bool, str, bytes)):
        return None
    if isinstance(value, numbers.Real):
        try:
            return None if math.isfinite(value) else where
        except OverflowError:
            return None
    module = type(value).__module__ or ""
    if module.startswith("numpy"):
        import numpy as np

        array = np.asarray(value)
        if array.dtype.kind in "fc" and not np.isfinite(array).all():
            return where
        if array.dtype.kind == "O":
            return _in_items(list(array.ravel()[:1000]), where, depth, budget)
        return None
    if module.startswith("pandas"):
        import numpy as np

        frame = value.to_frame() if hasattr(value, "to_frame") else value
        numeric = frame.select_dtypes("number") if hasattr(frame, "select_dtypes") else None
        if numeric is not None and not np.isfinite(numeric.to_numpy(dtype=float)).all():
            return where
        return None
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            if (type(value).__name__, field.name) in DOCUMENTED_INFINITIES:
                continue
            found = non_finite(getattr(value, field.name, None), f"{where}.{field.name}", depth + 1, budget)
            if found:
                return found
        return None
    if isinstance(value, dict):
        for key, item in list(value.items())[:1000]:
            found = non_finite(item, f"{where}[{key!r}]", depth + 1, budget)
            if found:
                return found
        return None
    if isinstance(value, (list, tuple)):
        return _in_items(value[:1000], where, depth, budget)
    from models import Workload

    if isinstance(value, Workload):
        return _in_items(list(value)[:1000], where, depth, budget)
    return None


def _in_items(items: Sequence, where: str, depth: int, budget: list[int]) -> str | None:
    for number, item in enumerate(items):
        found = non_finite(item, f"{where}[{number}]", depth + 1, budget)
        if found:
            return found
    return None


def names_parameter(error: BaseException, case: ApiCase, value: object) -> bool:
    """Whether the error's message names the broken parameter (or, for a path, the file)."""
    message = str(error)
    field = getattr(error, "field", None)
    if case.parameter and (case.parameter in message or (isinstance(field, str) and case.parameter in field)):
        return True
    return isinstance(value, str) and len(value) > 1 and value in message


def classify(error: BaseException, case: ApiCase, value: object) -> str:
    from models import PlannerError

    if isinstance(error, CaseTimeout):
        return "hang"
    if isinstance(error, MemoryError):
        return "memory"
    if isinstance(error, PlannerError):
        return "named" if names_parameter(error, case, value) else "unnamed"
    if isinstance(error, (TypeError, ValueError)) and not isinstance(error, RecursionError):
        return "generic"
    return "unexpected"


def call_case(case: ApiCase, inputs: Inputs, timeout: float, calls: dict) -> tuple[str, str]:
    """Run one case here and now: (class, detail)."""
    valid = calls[case.package][case.name](inputs)
    arguments = dict(valid)
    value = hostile_value(case.kind, valid.get(case.parameter), inputs)
    if case.parameter:
        arguments[case.parameter] = value
    function = target(case.package, case.name)
    try:
        with alarm(timeout), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = function(**arguments)
            where = non_finite(result)
    except BaseException as error:  # every exception is an outcome to classify
        if isinstance(error, (KeyboardInterrupt, SystemExit)) and not isinstance(error, CaseTimeout):
            return "unexpected", f"{type(error).__name__}: {_short(str(error))}"
        return classify(error, case, value), f"{type(error).__name__}: {_short(str(error))}"
    finally:
        _close_figures()
    if where:
        return "non-finite", f"returned a non-finite number at {where}"
    return "success", f"returned {type(result).__name__}"


def _short(text: str, limit: int = 240) -> str:
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _close_figures() -> None:
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close("all")


# ---------------------------------------------------------------------------- workers


def _worker(cases: list[ApiCase], timeout: float, folder: Path, inputs: Inputs, calls: dict, out: int) -> None:
    """The forked worker's life: limits, quiet output, the cases, one JSON line each."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.chdir(folder)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 3000))
    for case in cases:
        _send(out, {"start": case.index})
        clock = time.perf_counter()
        try:
            verdict, detail = call_case(case, inputs, timeout, calls)
        except MemoryError:
            verdict, detail = "memory", "MemoryError outside the call"
        except BaseException as error:  # a builder that fails is reported, not fatal
            verdict, detail = "crash", f"the harness failed: {type(error).__name__}: {_short(str(error))}"
        _send(out, {"done": case.index, "verdict": verdict, "detail": detail,
                    "seconds": time.perf_counter() - clock})


def _send(out: int, message: dict) -> None:
    data = (json.dumps(message) + "\n").encode()
    while data:
        data = data[os.write(out, data):]


def _run_chunk(cases: list[ApiCase], timeout: float, folder: Path, inputs: Inputs, calls: dict) -> list[ApiOutcome]:
    """Fork a worker for ``cases``; a worker that dies or hangs costs its current case, and
    the rest of the chunk goes to a new worker."""
    outcomes: list[ApiOutcome] = []
    remaining = list(cases)
    while remaining:
        read, write = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the worker
            status = 0
            try:
                os.close(read)
                _worker(remaining, timeout, folder, inputs, calls, write)
            except BaseException:  # the worker must never return into the caller
                status = 1
            finally:
                os._exit(status)
        os.close(write)
        done = _collect(pid, read, remaining, timeout)
        os.close(read)
        outcomes.extend(done)
        remaining = remaining[len(done):]
    return outcomes


def _collect(pid: int, read: int, cases: list[ApiCase], timeout: float) -> list[ApiOutcome]:
    by_index = {case.index: case for case in cases}
    outcomes: list[ApiOutcome] = []
    buffer = b""
    current: ApiCase | None = None
    started = time.perf_counter()
    while True:
        wait = timeout + GRACE_SECONDS - (time.perf_counter() - started) if current else timeout + GRACE_SECONDS
        ready, _, _ = select.select([read], [], [], max(wait, 0.0))
        if not ready:  # stuck beyond the alarm's reach
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            if current is not None:
                outcomes.append(ApiOutcome(current, "hang", "killed: no answer past the time limit", timeout))
            return outcomes
        data = os.read(read, 65536)
        if not data:
            _, status = os.waitpid(pid, 0)
            if current is not None:
                verdict = "memory" if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL else "crash"
                outcomes.append(ApiOutcome(current, verdict, f"the worker died (wait status {status})",
                                           time.perf_counter() - started))
            return outcomes
        buffer += data
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            message = json.loads(line)
            if "start" in message:
                current = by_index[message["start"]]
                started = time.perf_counter()
            else:
                outcomes.append(ApiOutcome(by_index[message["done"]], message["verdict"], message["detail"],
                                           message["seconds"]))
                current = None


def run_api_cases(cases: Sequence[ApiCase], timeout: float = 60.0, *, progress: bool = False) -> list[ApiOutcome]:
    """Run ``cases`` in forked workers (``CHUNK`` cases each), in a scratch folder removed after."""
    with tempfile.TemporaryDirectory(prefix="planner-api-fuzz-") as name:
        folder = Path(name)
        inputs = Inputs(folder)
        calls = builders()
        _warm(inputs, calls)
        outcomes: list[ApiOutcome] = []
        for first in range(0, len(cases), CHUNK):
            outcomes.extend(_run_chunk(list(cases[first:first + CHUNK]), timeout, folder, inputs, calls))
            if progress:
                failing = sum(o.verdict not in PASSING for o in outcomes)
                print(f"  {len(outcomes)} cases, {failing} failing", file=sys.stderr, flush=True)
        return outcomes


def _warm(inputs: Inputs, calls: dict) -> None:
    """Read the inputs and import the packages once, here: every worker inherits them."""
    with warnings.catch_warnings(), contextlib.redirect_stdout(sys.stderr):
        warnings.simplefilter("ignore")
        for package, name in public_callables():
            calls[package][name](inputs)


# ---------------------------------------------------------------------------- reporting


def api_summary(outcomes: Sequence[ApiOutcome]) -> str:
    """Counts by family (the name's package, then the hostile value's kind) and class."""
    rows: list[tuple[str, Counter]] = []
    for package in PACKAGES:
        rows.append((package, Counter(o.verdict for o in outcomes if o.case.package == package)))
    rows.append(("all", Counter(o.verdict for o in outcomes)))
    for kind in HOSTILE_KINDS:
        rows.append((f"value:{kind}", Counter(o.verdict for o in outcomes if o.case.kind == kind)))
    width = max(len(label) for label, _ in rows)
    header = f"{'family':<{width}} " + " ".join(f"{c:>10}" for c in CLASSES) + f" {'cases':>6}"
    lines = [header]
    for label, counts in rows:
        if sum(counts.values()):
            lines.append(f"{label:<{width}} " + " ".join(f"{counts[c]:>10}" for c in CLASSES)
                         + f" {sum(counts.values()):>6}")
    return "\n".join(lines)


def api_table_rows(outcomes: Sequence[ApiOutcome]) -> list[tuple[str, str, int]]:
    """(family, class, count) rows, the family being the name's package: the API campaign's block
    of `tests.fuzz_run.format_table`."""
    counts = Counter((o.case.package, o.verdict) for o in outcomes)
    return sorted(((package, verdict, n) for (package, verdict), n in counts.items()),
                  key=lambda row: (row[0], CLASSES.index(row[1]) if row[1] in CLASSES else len(CLASSES)))


def failing_by_name(outcomes: Sequence[ApiOutcome]) -> Counter:
    return Counter(f"{o.case.package}.{o.case.name}" for o in outcomes if o.verdict not in PASSING)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz_api", description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--first", type=int, default=0, help="index of the first case")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per case before it counts as a hang")
    parser.add_argument("--packages", default=",".join(PACKAGES), help="only the names of these packages")
    parser.add_argument("--name", default=None, help="only this public name")
    parser.add_argument("--show", type=int, default=1000, help="failing cases to print")
    parser.add_argument("--valid", action="store_true", help="call each name once, nothing broken")
    options = parser.parse_args(argv)
    wanted = set(options.packages.split(","))
    clock = time.perf_counter()
    cases = [make_api_case(i, options.seed) for i in range(options.first, options.first + options.cases)]
    if options.valid:
        cases = [ApiCase(i, options.seed, package, name, "", "valid") for i, (package, name) in
                 enumerate(sorted(public_callables()))]
    cases = [c for c in cases if c.package in wanted and options.name in (None, c.name)]
    outcomes = run_api_cases(cases, options.timeout, progress=True)
    failing = [o for o in outcomes if o.verdict not in PASSING]
    for outcome in failing[: options.show]:
        print(outcome.report())
    print(f"cases: {len(outcomes)} in {time.perf_counter() - clock:.0f} s, {len(failing)} failing")
    print(api_summary(outcomes))
    by_name = failing_by_name(outcomes)
    if by_name:
        print("failing by name: " + ", ".join(f"{name} {count}" for name, count in by_name.most_common()))
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
