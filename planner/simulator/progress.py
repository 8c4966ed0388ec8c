"""How far a long run has got: simulated time, the share of tasks done, and an ETA.

`simulate(..., progress=report)` calls ``report(Progress(...))`` each time another
``progress_every`` ended attempts are in the attempt log (`attempt_log.AttemptLog.add` says
when), so reporting costs the run's hot path one comparison an attempt. The command line shows it on stderr (`cli.console`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Progress:
    """A run so far: ``now`` simulated seconds, ``done`` of ``total`` tasks completed,
    ``elapsed`` seconds of wall time since the run started."""

    now: float
    done: int
    total: int
    elapsed: float

    @property
    def share(self) -> float:
        """The fraction of tasks done (0 to 1)."""
        return min(self.done / self.total, 1.0) if self.total else 1.0

    @property
    def eta(self) -> float:
        """Seconds of wall time left, extrapolated from the pace so far (inf before any task)."""
        if self.done <= 0:
            return math.inf
        return self.elapsed * (1.0 - self.share) / self.share

    def describe(self) -> str:
        """One line, e.g. ``t = 43,210 s, 41.7% of tasks done, ETA 1 min 05 s``."""
        return f"t = {self.now:,.0f} s, {100 * self.share:.1f}% of tasks done, ETA {duration_text(self.eta)}"


def duration_text(seconds: float) -> str:
    """Seconds as people read them: ``45 s``, ``3 min 05 s``, ``2 h 10 min``, ``unknown`` (inf)."""
    if not math.isfinite(seconds):
        return "unknown"
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"
