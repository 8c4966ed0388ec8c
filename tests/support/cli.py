"""The `planner` command run in the test's own process, as the command-line tests call it."""

from __future__ import annotations

import contextlib
import io

from planner.cli.main import run


def planner(*args: object) -> tuple[int, str, str]:
    """The command in this process: (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = run([str(a) for a in args])
    return status, out.getvalue(), err.getvalue()


def error_line(*args: object) -> str:
    """The one line a refused command prints: status 2, nothing on stdout, no traceback."""
    status, stdout, stderr = planner(*args)
    lines = stderr.strip().splitlines()
    assert status == 2 and len(lines) == 1 and lines[0].startswith("error: "), (status, stderr)
    assert "Traceback" not in stderr and stdout == ""
    return lines[0]
