"""The published claims of `benchmarks.fidelity_claims`: enough of them, each complete, the verdicts
pinned (a claim that starts or stops holding fails here until the pins and the docs say so), and
docs/fidelity-claims.md and benchmarks/results/fidelity.csv showing what the claims produce.

Every claim runs once, at the quick suite's settings (about 20 s: FRESH on seeds 0-2, Natjam on
0-4, the Packing MILPs and the Fair-design runs).
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from benchmarks.fidelity_claims import CLAIM_GROUPS, Claim, Settings, run_claims
from benchmarks.fidelity_claims.claims import MARKDOWN_HEADER, SOURCES, claim_group, shown

ROOT = Path(__file__).resolve().parents[1]

#: Claims that hold (the set-up and tolerance of each are in its module and in the docs).
HOLDS = {
    "FR-F3-fair-k1", "FR-F3-dynamic", "FR-F3-dynamic-best", "FR-F4-fair-22", "FR-F4-superior", "FR-F4-fresh-fairness",
    "FR-F5-DE-FIFO", "FR-F5-Fair", "FR-F5-Capacity", "FR-F5-Fair-worst", "FR-F6-FIFO-lowest", "FR-T2-Fair",
    "FR-T2-order", "FR-T2-makespan-FIFO", "FR-T2-makespan-FRESH-half", "FR-T2-makespan-FRESH-all",
    "FR-T2-fairness-Fair", "FR-T2-fairness-FRESH-1", "FR-T2-fairness-FRESH-half", "FR-T2-fairness-FRESH-all",
    "PK-W1-saving", "PK-W1-order", "PK-W2-saving", "PK-W2-order", "PK-W3-saving", "PK-W3-order", "PK-W4-pairs",
    "PK-W4-saving", "PK-W5-pairs", "PK-W5-saving", "PK-W6-pairs", "PK-W6-saving", "PK-best-saving", "HFS-weights",
    "HFS-priority", "HFS-fifo-pool", "HFS-min-share-first", "HFS-inactive-min-share", "HFS-min-shares-scaled",
    "HFS-fair-share-search", "HFS-fair-share-example", "HFS-min-share-preemption", "HFS-fair-share-below-half",
    "HFS-fair-share-above-half", "HFS-kill-newest", "HFS-job-limit", "HFS-job-limit-order", "HFS-small-jobs",
    "HFS-no-starving", "NJ-F5-S-order", "NJ-F5-S-SRT", "NJ-F5-S-random", "NJ-F5-S-LRT", "NJ-F5-L-order",
    "NJ-F5-L-SRT", "NJ-F5-L-random", "NJ-F5-L-LRT", "NJ-F5-SRT-larger", "NJ-F5-production", "NJ-F4-kill-later",
    "NJ-F6-S-order", "NJ-F6-MR-spares-S", "NJ-F6-S-MR", "NJ-F6-S-PR", "NJ-F6-S-LR", "NJ-F6-M-LR-worst",
    "NJ-F6-M-PR-MR", "NJR-F10-MLF-misses", "NJR-F10-MLF-end", "NJR-F10-MLF-longer",
    "ZA-F3-fair-shares", "ZA-5.3-batch-times", "ZA-5.3-fifo-better", "ZA-6.3-split-faster", "ZA-T3-3-standard",
    "ZA-T3-3-delay", "ZA-T3-10-delay", "ZA-T3-100-delay", "ZA-F12-100-gain",
}
#: Claims that do not hold; docs/fidelity-claims.md explains each with a number.
DOES_NOT_HOLD = {
    "FR-F3-static", "FR-F3-fairness", "FR-F4-k5", "FR-F4-fair-fairness", "FR-F5-B-FIFO", "FR-F5-C-FIFO",
    "FR-F6-FRESH-above-Fair", "FR-F6-FRESH-095", "FR-T2-makespan-FRESH-1", "FR-T2-fairness-FIFO",
    "NJ-F4-research-overhead", "NJ-F4-production-overhead", "NJ-F4-kill", "NJ-F6-L-PR", "NJ-F6-M-PR-spread",
    "NJR-F10-MDF-meets", "NJR-F10-MDF-end",
    "ZA-6.3-split-gain", "ZA-F12-3-gain", "ZA-T3-10-standard", "ZA-F12-10-gain", "ZA-T3-100-standard",
    "ZA-6.2.3-lone-job",
}
#: The three claims the fidelity issue named as contradicted before: (claim, holds now).
NAMED = {"PK-W4-pairs": True, "PK-W5-pairs": True, "PK-W6-pairs": True,  # Packing W4-W6: pairs = multi-job
         "FR-F5-B-FIFO": False, "FR-F5-C-FIFO": False,  # FRESH's FIFO comparison on Sets B and C
         "ZA-6.2.3-lone-job": False}  # the lone small job's response time under delay scheduling


@pytest.fixture(scope="module")
def claims() -> list[Claim]:
    return [claim for group in run_claims(Settings.for_suite("quick")) for claim in group.claims]


def test_there_are_enough_claims_from_the_five_sources(claims):
    assert len(claims) >= 30
    assert len({claim.id for claim in claims}) == len(claims)
    by_source = {source: sum(claim.source == source for claim in claims) for source in SOURCES}
    assert all(by_source[source] >= 5 for source in SOURCES), by_source


def test_every_claim_has_a_paper_value_ours_a_tolerance_and_a_verdict(claims):
    for claim in claims:
        assert claim.paper_shown not in ("", "-") and claim.ours_shown not in ("", "-"), claim.id
        assert claim.tolerance and claim.text and claim.setup, claim.id
        assert isinstance(claim.holds, bool)
        assert claim.status == ("holds" if claim.holds else "does not hold")


def test_the_verdicts_are_pinned(claims):
    """Every claim is pinned; the ones that hold hold, and the ones that do not stay reported."""
    assert not HOLDS & DOES_NOT_HOLD
    assert {claim.id for claim in claims} == HOLDS | DOES_NOT_HOLD
    assert sorted(claim.id for claim in claims if claim.holds) == sorted(HOLDS)
    for claim_id, holds in NAMED.items():
        assert (claim_id in HOLDS) == holds


def test_the_docs_show_what_the_claims_produce(claims):
    """Each claim's row of docs/fidelity-claims.md is exactly `Claim.markdown_row` (values,
    tolerance, verdict), the page has no other claim rows, and every claim that does not hold has
    its paragraph."""
    page = (ROOT / "docs" / "fidelity-claims.md").read_text(encoding="utf-8")
    rows = {line for line in page.splitlines() if line.startswith("| ") and not line.startswith("| id |")}
    expected = {claim.markdown_row() for claim in claims}
    assert rows == expected, (sorted(rows - expected), sorted(expected - rows))
    assert page.count(MARKDOWN_HEADER.split("\n")[0]) >= 1
    explained = page.split("## Why the claims that do not hold do not", 1)[1]
    for claim in claims:
        if not claim.holds:
            assert f"**{claim.id}" in explained or f", {claim.id}" in explained, claim.id
    assert f"{sum(c.holds for c in claims)} of {len(claims)} claims hold" in page


def test_the_benchmark_results_match(claims):
    """benchmarks/results/fidelity.csv (python -m benchmarks --only fidelity --suite quick) has one
    row per claim with its verdict and values."""
    with (ROOT / "benchmarks" / "results" / "fidelity.csv").open() as handle:
        rows = {row["instance"].split(":", 1)[0]: row for row in csv.DictReader(handle)}
    assert set(rows) == {claim.id for claim in claims}
    for claim in claims:
        row = rows[claim.id]
        assert row["status"] == claim.status and row["method"] == claim.source, claim.id
        for column, value in (("objective", claim.ours), ("bound", claim.paper)):
            assert (row[column] == "") if value is None else float(row[column]) == pytest.approx(value), claim.id


def test_the_benchmark_is_registered_and_makes_one_row_per_claim(claims):
    from benchmarks.__main__ import load_all
    from benchmarks.bench_fidelity import fidelity
    from benchmarks.registry import BENCHMARKS

    load_all()
    assert set(BENCHMARKS["fidelity"].suites) == {"quick", "full"}
    rows = fidelity("quick")  # the runs are cached by the fixture's: this only rebuilds the rows
    assert [row.instance.split(":", 1)[0] for row in rows] == [claim.id for claim in claims]
    assert all(row.meets_floor and row.status in ("holds", "does not hold") for row in rows)


def test_suites_and_registry_rules():
    assert Settings.for_suite("quick").seeds == (0, 1, 2)
    assert Settings.for_suite("full").seeds == (0, 1, 2, 3, 4)
    with pytest.raises(ValueError, match="unknown suite"):
        Settings.for_suite("huge")
    with pytest.raises(ValueError, match="registered twice"):
        claim_group(CLAIM_GROUPS[0].name, CLAIM_GROUPS[0].source)(lambda settings: [])
    with pytest.raises(ValueError, match="unknown source"):
        claim_group("new", "Nature")
    assert [group.source for group in CLAIM_GROUPS] == sorted((g.source for g in CLAIM_GROUPS), key=SOURCES.index)


@pytest.mark.parametrize(("changes", "message"), [
    ({"source": "Nature"}, "unknown source"),
    ({"paper": None}, "needs a paper value"),
    ({"ours": float("nan")}, "must be finite"),
    ({"text": "a | b"}, "Markdown table"),
])
def test_a_claim_is_checked(changes, message):
    fields = {"id": "X-1", "source": "FRESH", "text": "t", "paper": 1.0, "ours": 1.0, "tolerance": "exact",
              "holds": True, "setup": "s"}
    Claim(**fields)
    with pytest.raises(ValueError, match=message):
        Claim(**{**fields, **changes})


def test_numbers_are_shown_short():
    assert [shown(v) for v in (None, 0.0, 0.9055462, 38.733, 2339.6, 1.0e-6, 2.0)] == [
        "-", "0", "0.9055", "38.73", "2339.6", "1e-06", "2"]
