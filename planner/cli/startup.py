"""Ctrl-C and SIGTERM while the `planner` command runs: exit 130 or 143 quietly, not with a traceback.

The command starts light (a fifth of a second: no NumPy, scikit-learn or pyomo until a command
runs), but a Ctrl-C during the imports would still print a KeyboardInterrupt traceback from
inside some import. `planner/__init__.py` imports this module first, which installs a handler
that exits with 130 when the process is the `planner` command (the console script or
``python -m planner``); once the command line is loaded `planner.cli.main` makes Ctrl-C a
KeyboardInterrupt again (during a command's own imports too), which `planner.cli.main.run` turns
into 130. SIGTERM is handled the same way, with status 143: during
the imports it exits at once; from then on it raises `Terminated`, which unwinds as Ctrl-C does (the
atomic writer removes its temporary file, a sweep stops its workers) up to `planner.cli.main.run`.
A program that merely imports `planner` keeps its handlers."""

from __future__ import annotations

# Only what the interpreter has loaded already, or nearly (signal): a Ctrl-C during this module's
# own imports (threading and pathlib took some 20 ms) would still be a traceback.
import os
import signal
import sys

#: Exit status of a command stopped by Ctrl-C (128 + SIGINT), as shells report it.
EXIT_INTERRUPTED = 130
#: Exit status of a command stopped by SIGTERM (128 + SIGTERM).
EXIT_TERMINATED = 143

_installed = False
#: The signal numbers the command's handlers have seen, in order. Signal handlers belong to the
#: process, so this record does too; only the command's handlers (never a library user's) add to it.
_received: list[int] = []


class Terminated(BaseException):
    """SIGTERM in the `planner` command. Like KeyboardInterrupt it is no `Exception`, so only
    cleanup (``finally``, ``except BaseException: ...; raise``) sees it on its way up; unlike it,
    click does not turn it into status 130."""


def _interrupted(signum: int, frame: object) -> None:
    """During the imports: end at once. Nothing is written yet and no worker started, and an
    exception raised here could come out as another one (below), so no exception is raised."""
    os._exit(EXIT_TERMINATED if signum == signal.SIGTERM else EXIT_INTERRUPTED)


def _keyboard_interrupt(signum: int, frame: object) -> None:
    _received.append(signum)
    raise KeyboardInterrupt


def _terminated(signum: int, frame: object) -> None:
    _received.append(signum)
    raise Terminated


def signal_behind() -> BaseException | None:
    """The exception of the first Ctrl-C or SIGTERM the command's handlers raised, if one did.

    CPython can lose that exception: when it lands while ``from package import name`` builds its
    "cannot import name" message (NumPy's optional ``_distributor_init_local``, imported by every
    command), the interpreter raises "TypeError: expected a message argument" in its place, with
    no link back to the signal. The command then ends as the signal asked all the same."""
    if not _received:
        return None
    return Terminated() if _received[0] == signal.SIGTERM else KeyboardInterrupt()


def is_the_command(argv: list[str] | None = None) -> bool:
    """True when this process is ``planner ...`` or ``python -m planner ...``."""
    args = list(getattr(sys, "orig_argv", sys.argv) if argv is None else argv)
    for position, arg in enumerate(args[1:], start=1):  # args[0] is the interpreter
        if arg == "-m":
            return position + 1 < len(args) and args[position + 1] == "planner"
        if arg.startswith("-m"):
            return arg[2:] == "planner"
        if not arg.startswith("-"):  # the script: the console script is called planner
            return os.path.basename(arg) in ("planner", "planner.exe")
    return False


def begin_startup() -> None:
    """Exit with 130 on Ctrl-C and 143 on SIGTERM until `end_startup` (only in the command's main
    thread, and only where the default handlers are in place: a shell may start us with Ctrl-C
    ignored, a supervisor with SIGTERM ignored)."""
    global _installed
    if not is_the_command():
        return
    try:  # signal.signal raises ValueError off the main thread: nothing to do there
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _interrupted)
            _installed = True
        if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _interrupted)
    except ValueError:
        pass


def end_startup() -> None:
    """Make Ctrl-C a KeyboardInterrupt (as Python's own handler does) and SIGTERM a `Terminated`,
    both remembered for `signal_behind`: from here on both are exceptions the command handles."""
    global _installed
    try:  # ValueError off the main thread
        if _installed:
            signal.signal(signal.SIGINT, _keyboard_interrupt)
            _installed = False
        if signal.getsignal(signal.SIGTERM) is _interrupted:
            signal.signal(signal.SIGTERM, _terminated)
    except ValueError:
        pass


def end_command() -> None:
    """Ignore Ctrl-C and SIGTERM from here to the process's end, in the `planner` command only.

    Called as `planner.cli.main.main` returns, once the command's work is done and its status
    known: Python's exit (flushing, running atexit, finalizing) puts the default handlers back,
    and a signal arriving then killed the process by the signal (a status of -2 or -15 rather
    than the command's own) although its outputs were complete. The status is what the command
    did."""
    if not is_the_command():
        return
    try:  # ValueError off the main thread
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    except ValueError:
        pass


def forget_unhandled_interrupt() -> None:
    """Let a Ctrl-C the command handled end it with its own status (130), not by the signal.

    CPython marks a KeyboardInterrupt raised inside ``exec`` or ``eval`` of a string as unhandled
    even once it is caught, and ``python -m`` then ends the process by SIGINT after the command
    returns; dataclasses and namedtuples build their methods so, so a Ctrl-C during a command's
    imports could land there. Running a string clears the mark as it starts (in every version
    that has it, wherever it is kept), and this one raises nothing."""
    exec("None")  # noqa: S102  # a constant: the point is that a string runs


begin_startup()
