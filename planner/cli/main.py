"""The `planner` command: the app, its --version, and `main`, which runs it.

Every verb is a thin shell over a library function, in the module of its concern: `inputs`
(import, fit), `planning` (plan), `proofs` (simulate, validate, compare, sweep, demo).
`main` runs it: bad input of any kind (a file, a value, an option click cannot parse) exits
with status 2 and one line on stderr; Ctrl-C exits with 130 without a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Annotated

import typer
from typer._click import exceptions as click_errors  # typer's own click; the names below are not re-exported

# Only light modules here: `planner --help` must not import NumPy, scikit-learn, pyomo or the
# simulator (tests/test_layout.py); each command imports what it runs.
from planner.cli import inputs, planning, proofs, replay, sizing
from planner.cli.choices import version
from planner.cli.console import EXIT_BAD_INPUT, exits_cleanly, interrupt_behind, one_line
from planner.cli.startup import (
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    Terminated,
    end_command,
    end_startup,
    forget_unhandled_interrupt,
)

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",  # paragraphs of the docstrings re-flow to the terminal width
    help="Plan nightly batches of MapReduce-style jobs and prove the plans in a simulator.",
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"planner (batchplan) {version()}")
        raise typer.Exit()


@app.callback()
def _options(
    show_version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True,
                                               help="Print the version and exit.")] = False,
) -> None:
    """Plan nightly batches of MapReduce-style jobs and prove the plans in a simulator."""


for _name, _function in (("import", inputs.import_trace), ("fit", inputs.fit), ("plan", planning.plan),
                         ("export", planning.export), ("replay", replay.replay_command), ("size", sizing.size)):
    app.command(_name)(exits_cleanly(_function))
proofs.register(app)


def run(argv: Sequence[str] | None = None) -> int:
    """Run the command line on ``argv`` (default: the process's) and return the exit status,
    printing click's own usage errors (a missing argument, a value that is not a number) as one
    line like every other error."""
    command = typer.main.get_command(app)
    try:
        status = command.main(args=None if argv is None else list(argv), prog_name="planner",
                              standalone_mode=False)
    except click_errors.NoArgsIsHelpError as error:  # `planner` alone: the help, as --help
        typer.echo(error.ctx.get_help() if error.ctx is not None else error.format_message())
        return 0
    except typer.TyperException as error:  # click's usage errors, e.g. "No such option: --x"
        print(one_line(f"error: {_usage_problem(error)}"), file=sys.stderr)
        return EXIT_BAD_INPUT
    except (typer.Abort, KeyboardInterrupt):
        return EXIT_INTERRUPTED
    except Terminated:
        return EXIT_TERMINATED
    return status if isinstance(status, int) else 0


def _usage_problem(error: typer.TyperException) -> str:
    """``--runs: 'x' is not a valid integer`` from click's ``Invalid value for '--runs': ...``."""
    param = getattr(error, "param", None)
    if isinstance(error, typer.BadParameter) and not isinstance(error, click_errors.MissingParameter) and param:
        options = [name for name in getattr(param, "opts", ()) if name.startswith("-")]
        name = max(options, key=len) if options else str(getattr(param, "name", "argument")).upper()
        return f"{name}: {error.message.removeprefix('Value error, ')}"
    return error.format_message()


def main(argv: Sequence[str] | None = None) -> int:
    """The `planner` console script: `run`, with Ctrl-C (130) and SIGTERM (143) handled from here
    on (the import-time guard of `planner.cli.startup` covers the seconds before)."""
    end_startup()
    try:
        status = run(argv)
    except KeyboardInterrupt:  # between click's own handling and the return
        status = EXIT_INTERRUPTED
    except Terminated:
        status = EXIT_TERMINATED
    except Exception as error:  # outside every command's own handling (`exits_cleanly`)
        signalled = interrupt_behind(error)
        if signalled is None:
            raise
        status = EXIT_TERMINATED if isinstance(signalled, Terminated) else EXIT_INTERRUPTED
    if status in (EXIT_INTERRUPTED, EXIT_TERMINATED):
        forget_unhandled_interrupt()
    end_command()
    return status
