"""The retrieval suite is well formed and answerable from the corpus."""

from pathlib import Path

from domain.evaluation.scoring import RetrievalExpected
from evals.cases import load_suites
from ingestion.documents import parse_document

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "reports"


def test_the_retrieval_suite_covers_every_report() -> None:
    cases = load_suites(["retrieval"])["retrieval"]
    expected = [c.expected for c in cases if isinstance(c.expected, RetrievalExpected)]

    assert len(expected) == len(cases) >= 150
    assert {(e.company, e.fiscal_year) for e in expected} == {
        (t, y) for t in ("BHP", "RIO", "FMG", "S32", "NST") for y in (2023, 2024, 2025)
    }


def test_every_retrieval_figure_is_printed_in_its_own_report() -> None:
    reports = {(d.company, d.fiscal_year): d for d in map(parse_document, CORPUS.glob("*.md"))}

    missing = [
        (case.id, figure)
        for case in load_suites(["retrieval"])["retrieval"]
        if isinstance(e := case.expected, RetrievalExpected)
        for figure in e.figures
        if not any(figure in c.text for c in reports[(e.company, e.fiscal_year)].chunks)
    ]

    assert missing == []
