"""Sweeps: many independent simulations or solves, on local processes or a Dask cluster.

A sweep is a list of `Spec` (a module-level function and its arguments). Every
run is independent and seeded by its own arguments, so where it runs does not
change what it returns: the results come back in the order of the specs,
identical on a local process pool, in this process, or on a Dask cluster.

Executors (`sweep(..., executor=...)`):

- None (default): a local process pool with one worker per core (a single spec,
  or a machine with one core, runs in this process);
- "serial": this process, one spec after another;
- "dask://HOST:PORT" (or "tcp://HOST:PORT"): the Dask scheduler at that address
  (needs ``batchplan[distributed]``, and batchplan on the scheduler and every worker); the
  client is closed afterwards. Arguments several specs share are sent to the workers once
  (`shared_arguments`), not inside every run's task;
- a `distributed.Client`: that client (left open);
- any `concurrent.futures.Executor`: that executor (left open).

The local pool's workers end with the sweep: when the parent is killed (SIGTERM, SIGKILL) they
are told by the kernel (Linux) or notice within a second (elsewhere) and exit, and Ctrl-C
reaches the parent only, which cancels the runs not yet started.

On Dask a sweep never waits forever: when the scheduler stops answering for
`DASK_CONNECT_SECONDS`, or has had no worker for `DASK_NO_WORKERS_SECONDS` (none started yet, or
all gone: a worker that cannot import batchplan dies at its first run), it fails with
`InvalidInput` naming the executor, and the runs not yet done are cancelled.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

from models import InvalidInput, InvalidType
from models.checks import as_list, shown

#: How long to keep trying to reach a Dask scheduler given by address, or one lost during a sweep.
DASK_CONNECT_SECONDS = 10.0
#: How long a Dask sweep waits for a worker when the scheduler has none (workers may join late).
DASK_NO_WORKERS_SECONDS = 60.0
#: How often a Dask sweep that sees no run finish checks on the scheduler and its workers.
DASK_CHECK_SECONDS = 1.0
#: How often a local worker checks that its parent still lives (where the kernel cannot tell it).
PARENT_CHECK_SECONDS = 1.0
#: Arguments of these types travel inside each Dask task even when specs share them (`shared_arguments`).
INLINE_TYPES = (bool, int, float, complex, str, bytes, type(None))

if TYPE_CHECKING:
    from distributed import Client

#: ``progress``: False, True (a bar on stderr when it is a terminal) or a callable(done, total).
ProgressOption: TypeAlias = "bool | Callable[[int, int], None]"
#: ``executor`` (module docstring): None, "serial", a Dask scheduler's address, a
#: `distributed.Client` or any `concurrent.futures.Executor`.
ExecutorChoice: TypeAlias = "str | Client | Executor | None"


@dataclass(frozen=True)
class Spec:
    """One unit of work: ``function(*args, **kwargs)``. The function must be importable by
    name (defined at module level) so that worker processes and Dask workers can run it;
    ``label`` names the run in progress bars and errors."""

    function: Callable[..., Any]
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    label: str = ""

    def __post_init__(self) -> None:
        if not callable(self.function):
            raise InvalidType("function", f"must be callable, got {shown(self.function)} ({type(self.function).__name__})")
        if not isinstance(self.args, tuple):
            raise InvalidType("args", f"must be a tuple, got {shown(self.args)} ({type(self.args).__name__})")
        if not isinstance(self.kwargs, Mapping):
            raise InvalidType("kwargs", f"must be a mapping, got {shown(self.kwargs)} ({type(self.kwargs).__name__})")
        if not isinstance(self.label, str):
            raise InvalidType("label", f"must be a string, got {shown(self.label)} ({type(self.label).__name__})")

    def __call__(self) -> Any:
        return self.function(*self.args, **self.kwargs)


def _run(spec: Spec) -> Any:
    return spec()


def sweep(
    specs: Iterable[Spec],
    executor: ExecutorChoice = None,
    *,
    workers: int | None = None,
    progress: ProgressOption = False,
    description: str = "runs",
) -> list[Any]:
    """Run every spec and return their results in the order of ``specs`` (module docstring).

    ``workers`` caps the local process pool (default: every core). The first spec that
    raises makes the sweep raise that error, after the runs already started have ended.
    """
    specs = as_list(specs, "specs", what="a list of Spec")
    for position, spec in enumerate(specs):
        if not isinstance(spec, Spec):
            raise InvalidType(f"specs[{position}]", f"must be a Spec, got {shown(spec)} ({type(spec).__name__})")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        wrong = InvalidInput if isinstance(workers, int) and not isinstance(workers, bool) else InvalidType
        raise wrong("workers", f"must be an integer >= 1, got {shown(workers)} ({type(workers).__name__})")
    if not isinstance(description, str):
        raise InvalidType("description", f"must be a string, got {shown(description)} ({type(description).__name__})")
    report = step_reporter(progress, len(specs), description)
    try:
        if not specs:
            return []
        if executor == "serial" or (executor is None and _local_workers(workers, len(specs)) == 1):
            return _serial(specs, report)
        if executor is None:
            pool = ProcessPoolExecutor(
                max_workers=_local_workers(workers, len(specs)), initializer=_worker_started, initargs=(os.getpid(),)
            )
            try:
                with _signals_held():  # a worker forked before it set its own handlers would run ours
                    futures = _submit(pool, specs)
                return _collect(futures, report)
            except BaseException as error:
                if not isinstance(error, Exception):  # Ctrl-C, SystemExit: stop the runs under way too
                    _stop_workers(pool)
                raise
            finally:  # on any error queued runs never start
                pool.shutdown(wait=True, cancel_futures=True)
        if isinstance(executor, str):
            client = _dask_client(executor)
            try:
                return _on_dask(client, specs, report, executor)
            finally:  # bounded: a lost scheduler must not hold the sweep's own error back
                with contextlib.suppress(Exception):
                    client.close(timeout=DASK_CONNECT_SECONDS)
        if isinstance(executor, Executor):
            return _on_executor(executor, specs, report)
        if _is_dask_client(executor):
            return _on_dask(executor, specs, report, str(getattr(executor.scheduler, "address", executor)))
        raise InvalidInput(
            "executor",
            f"must be None, 'serial', 'dask://HOST:PORT', a distributed.Client or an Executor; got {shown(executor)}",
        )
    finally:
        report(None)


def _worker_started(parent: int) -> None:
    """In each local worker, first: die with the parent, and leave Ctrl-C to it.

    A terminal's Ctrl-C goes to the whole process group; the parent cancels the sweep, so a
    worker ignores it (else each would print its own KeyboardInterrupt). SIGTERM gets its
    default action back (a forked worker inherits the parent's handlers). On Linux the kernel
    sends SIGTERM when the parent dies; elsewhere a thread polls for the parent.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):  # held back by the parent while it forked us (`_signals_held`)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):  # no prctl: the watcher below does it
            pass
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), name="parent-watch", daemon=True).start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_SECONDS)
    os._exit(1)  # orphaned: nobody waits for our results


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """Terminate the pool's workers (their runs would otherwise finish first, for nothing).
    The pool keeps its processes in a private mapping; without it they finish their runs."""
    processes = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        with contextlib.suppress(OSError, ValueError):  # already gone, or closed
            process.terminate()


def _local_workers(workers: int | None, count: int) -> int:
    return max(1, min(workers or os.cpu_count() or 1, count))


def _serial(specs: Sequence[Spec], report: Callable[[int | None], None]) -> list[Any]:
    results = []
    for spec in specs:
        results.append(spec())
        report(1)
    return results


def _on_executor(pool: Executor, specs: Sequence[Spec], report: Callable[[int | None], None]) -> list[Any]:
    return _collect(_submit(pool, specs), report)


def _submit(pool: Executor, specs: Sequence[Spec]) -> dict[Future, int]:
    """Each spec submitted: its future -> its position."""
    return {pool.submit(_run, spec): position for position, spec in enumerate(specs)}


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM held back (delivered on leaving) while a local pool forks its workers:
    they inherit the mask, and `_worker_started` lets the signals in once it has set the worker's
    own handlers. Off the main thread, or without signal masks, nothing is held."""
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    held = {signal.SIGINT, signal.SIGTERM}
    before = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _collect(futures: dict[Future, int], report: Callable[[int | None], None]) -> list[Any]:
    """The futures' results in the order of their positions (`run_all`'s rules on errors)."""
    results: list[Any] = [None] * len(futures)
    failures: dict[int, BaseException] = {}
    try:
        for future in as_completed(futures):
            position = futures[future]
            if future.cancelled():
                continue
            error = future.exception()
            if error is not None:
                failures[position] = error
                for other in futures:  # nothing new starts; runs under way finish
                    other.cancel()
            else:
                results[position] = future.result()
            report(1)
    except BaseException:  # KeyboardInterrupt: runs not yet started never start
        for other in futures:
            other.cancel()
        raise
    if failures:
        raise failures[min(failures)]
    return results


def _dask_client(address: str) -> Any:
    for scheme in ("dask://", "tcp://"):
        if address.startswith(scheme):
            target = "tcp://" + address[len(scheme) :]
            break
    else:
        raise InvalidInput("executor", f"must be 'serial' or a Dask address 'dask://HOST:PORT', got {shown(address)}")
    try:
        from distributed import Client
    except ImportError:
        raise InvalidInput("executor", "Dask is not installed: pip install 'batchplan[distributed]'") from None
    try:
        # set_as_default=False: a sweep does not become the default scheduler of dask.compute.
        return Client(target, timeout=f"{DASK_CONNECT_SECONDS}s", set_as_default=False)
    except (OSError, ValueError) as error:  # ValueError: 'dask://host' without a port
        raise InvalidInput("executor", f"cannot reach the Dask scheduler at {address}: {error}") from None


def _is_dask_client(value: Any) -> bool:
    module = sys.modules.get("distributed")
    return module is not None and isinstance(value, module.Client)


def shared_arguments(specs: Sequence[Spec]) -> list[Any]:
    """The arguments (positional or keyword, the same object) that more than one spec takes, in
    order of first use: a validation's setup (its run's batch inside) across its runs. Scalars and
    strings are not counted: they travel inside a task for less than a reference costs."""
    seen: set[int] = set()
    shared: dict[int, Any] = {}
    for spec in specs:
        for value in (*spec.args, *spec.kwargs.values()):
            if isinstance(value, INLINE_TYPES):
                continue
            if id(value) in seen:  # ids are stable: every value is held by its spec meanwhile
                shared.setdefault(id(value), value)
            seen.add(id(value))
    return list(shared.values())


def _call(function: Callable[..., Any], args: list[Any], kwargs: dict[str, Any]) -> Any:
    return function(*args, **kwargs)


def _dask_tasks(client: Any, specs: Sequence[Spec], where: str) -> list[Any]:
    """Each spec submitted as a task, the arguments specs share sent to the workers once.

    Inside every task they would be pickled once per run and held by the scheduler until it runs:
    the FB-2010 day's batch is 4.6 MB pickled, so a 150-run validation's 1,260 runs would be 5.8 GB
    on the client and the scheduler. Scattered (`broadcast`: every worker runs with them, and a
    worker lost leaves copies), a task carries a reference (Dask puts the data in place of the
    future on the worker: the same object for every run there, as in one process)."""
    shared = shared_arguments(specs)
    held: dict[int, Any] = {}
    if shared:
        try:
            futures = client.scatter(shared, hash=False, broadcast=True, timeout=DASK_NO_WORKERS_SECONDS)
        except TimeoutError:  # the scheduler had no worker to hold them
            raise InvalidInput("executor", _no_workers(where)) from None
        held = {id(value): future for value, future in zip(shared, futures, strict=True)}
    # pure=False: equal specs are still separate runs (a sweep may repeat one on purpose).
    return [client.submit(_call, spec.function, [held.get(id(value), value) for value in spec.args],
                          {name: held.get(id(value), value) for name, value in spec.kwargs.items()}, pure=False)
            for spec in specs]


def _no_workers(where: str) -> str:
    return (f"the Dask scheduler at {where} has had no worker for {DASK_NO_WORKERS_SECONDS:g} s; start workers "
            f"where batchplan is installed (one that cannot import it dies at its first run)")


def _on_dask(client: Any, specs: Sequence[Spec], report: Callable[[int | None], None], where: str) -> list[Any]:
    futures = _dask_tasks(client, specs, where)
    finished: queue.SimpleQueue[Any] = queue.SimpleQueue()
    try:
        for future in futures:
            future.add_done_callback(finished.put)  # called in a thread of the client's
        watch = _DaskWatch(client, where)
        for _ in futures:
            while True:
                try:
                    future = finished.get(timeout=DASK_CHECK_SECONDS)
                    break
                except queue.Empty:  # nothing finished lately: is anyone still there?
                    watch.check()
            if future.status == "cancelled":  # the client lost the scheduler and dropped its runs
                raise InvalidInput("executor", f"lost the Dask scheduler at {where}: its runs were cancelled")
            report(1)
        # gather raises the first failed run's own error, in spec order.
        return list(client.gather(futures))
    except BaseException:  # our error, a lost scheduler or Ctrl-C: runs not yet done never start
        if client.status == "running":
            with contextlib.suppress(Exception):
                client.cancel(futures)
        raise


class _DaskWatch:
    """What a Dask sweep checks while no run finishes: the scheduler still answers (Dask's own
    client can wait forever for a scheduler that died), and it has a worker to run on."""

    def __init__(self, client: Any, where: str) -> None:
        self.client, self.where = client, where
        self.silent_since: float | None = None
        self.idle_since: float | None = None

    def check(self) -> None:
        now = time.monotonic()
        workers = self._workers()
        if workers is None:
            self.silent_since = now if self.silent_since is None else self.silent_since
            if now - self.silent_since >= DASK_CONNECT_SECONDS:
                raise InvalidInput(
                    "executor", f"lost the Dask scheduler at {self.where}: no answer for {DASK_CONNECT_SECONDS:g} s"
                )
            return
        self.silent_since = None
        if workers:
            self.idle_since = None
            return
        self.idle_since = now if self.idle_since is None else self.idle_since
        if now - self.idle_since >= DASK_NO_WORKERS_SECONDS:
            raise InvalidInput("executor", _no_workers(self.where))

    def _workers(self) -> int | None:
        """The scheduler's workers, or None when it does not answer."""
        if self.client.status != "running":  # reconnecting, or closed
            return None
        try:
            return len(self.client.nthreads())
        except Exception:  # CommClosedError, OSError, a time-out: silence all the same
            return None


def check_progress(progress: object) -> None:
    """``progress`` is True, False or a function (`ProgressOption`); else `InvalidType`."""
    if not (isinstance(progress, bool) or callable(progress)):
        raise InvalidType("progress", f"must be True, False or a function of (done, total), got {shown(progress)} "
                                      f"({type(progress).__name__})")


def step_reporter(progress: ProgressOption, total: int, description: str) -> Callable[[int | None], None]:
    """A function called with the steps just done (runs, splits) and None at the end: it
    passes the count so far to a ``progress`` function, or (True) shows a bar on a terminal."""
    check_progress(progress)
    if callable(progress):
        done = 0

        def call(step: int | None) -> None:
            nonlocal done
            if step:
                done += step
                progress(done, total)

        return call
    if not progress or total == 0:
        return lambda step: None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    if not console.is_terminal:
        return lambda step: None
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )
    task = bar.add_task(description, total=total)
    bar.start()

    def show(step: int | None) -> None:
        if step is None:
            bar.stop()
        else:
            bar.advance(task, step)

    return show
