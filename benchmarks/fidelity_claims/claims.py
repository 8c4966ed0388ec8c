"""What a claim is, how one is judged, and the registry of claim groups.

A claim group is a function ``group(settings) -> list[Claim]`` registered with `claim_group`; a
group measures once (a set of simulations or solves) and judges every claim that measurement
answers. Adding a claim is adding a `Claim` to a group's list, or a new registered function.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

#: The papers, in the order of the design's table (DESIGN.md) and of the claims table.
SOURCES = ("FRESH", "Packing", "Zaharia", "HFS design", "Natjam")


@dataclass(frozen=True)
class Settings:
    """How much to run: ``seeds`` are the simulation seeds of the FRESH set-ups (the Natjam
    set-ups always run the paper's five; the Packing and Fair-design set-ups are deterministic)."""

    seeds: tuple[int, ...] = (0, 1, 2)

    @classmethod
    def for_suite(cls, suite: str) -> Settings:
        """``quick``: seeds 0-2 (the table of docs/fidelity-claims.md); ``full``: seeds 0-4."""
        if suite == "quick":
            return cls((0, 1, 2))
        if suite == "full":
            return cls((0, 1, 2, 3, 4))
        raise ValueError(f"unknown suite {suite!r}")


@dataclass(frozen=True)
class Claim:
    """One published claim, set up from the paper's text and measured.

    ``paper`` and ``ours`` are the numbers compared (None for an ordering: ``paper_text`` and
    ``ours_text`` then say what was compared); ``tolerance`` says how the claim is judged and
    ``holds`` is the verdict; ``setup`` summarises the set-up and its assumptions.
    """

    id: str
    source: str
    text: str
    paper: float | None
    ours: float | None
    tolerance: str
    holds: bool
    setup: str = ""
    paper_text: str = ""
    ours_text: str = ""

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise ValueError(f"claim {self.id}: unknown source {self.source!r}")
        for name in ("paper", "ours"):
            value = getattr(self, name)
            if value is not None and not math.isfinite(value):
                raise ValueError(f"claim {self.id}: {name} must be finite, got {value!r}")
        if (self.paper is None and not self.paper_text) or (self.ours is None and not self.ours_text):
            raise ValueError(f"claim {self.id}: needs a paper value and ours (a number or a text)")
        if "|" in self.detail + self.text + self.id:
            raise ValueError(f"claim {self.id}: '|' would break a Markdown table")

    @property
    def paper_shown(self) -> str:
        return self.paper_text or shown(self.paper)

    @property
    def ours_shown(self) -> str:
        return self.ours_text or shown(self.ours)

    @property
    def status(self) -> str:
        return "holds" if self.holds else "does not hold"

    @property
    def gap(self) -> float | None:
        """|ours - paper| / |paper| where both are numbers (and the paper's is not 0)."""
        if self.paper is None or self.ours is None or self.paper == 0:
            return None
        return abs(self.ours - self.paper) / abs(self.paper)

    @property
    def detail(self) -> str:
        return f"paper {self.paper_shown}; ours {self.ours_shown}; tolerance: {self.tolerance}; {self.setup}"

    def markdown_row(self) -> str:
        """The claim's row of the table in docs/fidelity-claims.md (`MARKDOWN_HEADER`)."""
        verdict = "yes" if self.holds else "**no**"
        return (f"| {self.id} | {self.text} | {self.paper_shown} | {self.ours_shown} | {self.tolerance} "
                f"| {verdict} |")


#: The head of a table of `Claim.markdown_row` rows.
MARKDOWN_HEADER = "| id | claim | paper | ours | tolerance | holds |\n|---|---|---|---|---|---|"


def shown(value: float | None) -> str:
    """A number as the tables show it: up to four significant digits, no exponent below 1e6."""
    if value is None:
        return "-"
    if value != 0 and (abs(value) >= 1e6 or abs(value) < 1e-3):
        return f"{value:.4g}"
    return f"{value:.4g}" if abs(value) < 1000 else f"{value:.1f}".rstrip("0").rstrip(".")


# -- judging -----------------------------------------------------------------------------------------
def within_relative(ours: float, paper: float, tolerance: float) -> bool:
    """|ours - paper| <= tolerance x |paper|."""
    return abs(ours - paper) <= tolerance * abs(paper) + 1e-12


def within_absolute(ours: float, paper: float, tolerance: float) -> bool:
    """|ours - paper| <= tolerance."""
    return abs(ours - paper) <= tolerance + 1e-12


def saving(value: float, baseline: float) -> float:
    """How much shorter ``value`` is than ``baseline``, in percent of the baseline."""
    return 100.0 * (1.0 - value / baseline)


# -- the registry ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ClaimGroup:
    name: str
    source: str
    run: Callable[[Settings], list[Claim]]


CLAIM_GROUPS: list[ClaimGroup] = []


def claim_group(name: str, source: str) -> Callable[[Callable[[Settings], list[Claim]]],
                                                   Callable[[Settings], list[Claim]]]:
    """Register ``group(settings) -> claims`` under ``name``; its claims come from ``source`` (one
    of `SOURCES`). Groups run, and the table lists them, by source in the order of `SOURCES`, then
    in registration order."""
    if source not in SOURCES:
        raise ValueError(f"claim group {name!r}: unknown source {source!r}")

    def decorate(run: Callable[[Settings], list[Claim]]) -> Callable[[Settings], list[Claim]]:
        if any(group.name == name for group in CLAIM_GROUPS):
            raise ValueError(f"claim group {name!r} is registered twice")
        CLAIM_GROUPS.append(ClaimGroup(name, source, run))
        CLAIM_GROUPS.sort(key=lambda group: SOURCES.index(group.source))  # stable: registration order within
        return run

    return decorate


@dataclass(frozen=True)
class GroupResult:
    group: str
    claims: list[Claim]
    seconds: float


def run_claims(settings: Settings, only: Callable[[str], bool] | None = None) -> list[GroupResult]:
    """Run every registered group (or those whose name ``only`` accepts), timing each; claim ids
    must be unique."""
    results = []
    seen: set[str] = set()
    for group in CLAIM_GROUPS:
        if only is not None and not only(group.name):
            continue
        start = time.perf_counter()
        claims = group.run(settings)
        seconds = time.perf_counter() - start
        for claim in claims:
            if claim.source != group.source:
                raise ValueError(f"claim {claim.id}: source {claim.source!r} in a {group.source!r} group")
            if claim.id in seen:
                raise ValueError(f"claim id {claim.id!r} is used twice")
            seen.add(claim.id)
        results.append(GroupResult(group.name, claims, seconds))
    return results
