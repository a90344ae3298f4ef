"""The committed benchmark questions are well formed and answerable from the corpus."""

from pathlib import Path

from bench.retrieval import load_questions
from ingestion.documents import parse_document

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "reports"


def test_benchmark_covers_every_report_with_enough_synonym_questions() -> None:
    questions = load_questions()

    assert len(questions) >= 36
    assert len({q.id for q in questions}) == len(questions)
    assert {(q.company, q.fiscal_year) for q in questions} == {
        (t, y) for t in ("BHP", "RIO", "FMG", "S32", "NST") for y in (2023, 2024, 2025)
    }
    assert 3 * sum(q.synonym for q in questions) >= len(questions)


def test_every_benchmark_figure_is_printed_in_its_own_report() -> None:
    reports = {(d.company, d.fiscal_year): d for d in map(parse_document, CORPUS.glob("*.md"))}

    missing = [
        q.id
        for q in load_questions()
        if not any(q.figure in c.text for c in reports[(q.company, q.fiscal_year)].chunks)
    ]

    assert missing == []
