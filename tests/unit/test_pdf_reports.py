"""Full-length generated PDF reports (`testkit/reportgen.py`) read with their tables'
columns: every statement figure becomes a fact of its column's period, cited to its
printed page, and a question answered from them depends on picking the right column."""

import asyncio
from pathlib import Path

import pytest
from fpdf import FPDF

from backends.engines.offline.engine import OfflineEngine
from domain.companies.roster import Company
from domain.reports.facts import metric_facts
from ingestion.documents import DocumentError, ParsedDocument, parse_document
from testkit.reportgen import Written, write_report


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Written:
    path = tmp_path_factory.mktemp("reports") / "Northern Star annual report 2024.pdf"
    return write_report(path, "Northern Star Resources", 2024, pages=110)


@pytest.fixture(scope="module")
def doc(written: Written) -> ParsedDocument:
    return parse_document(written.path, company="NST", fiscal_year=2024)


def test_every_statement_figure_is_a_fact_of_its_columns_period_and_printed_page(
    written: Written, doc: ParsedDocument
) -> None:
    facts = {
        (f.label, f.fiscal_year, f.value, f.page, f.unit)
        for chunk in doc.chunks
        for f in metric_facts(chunk.as_text())
    }
    assert len(written.figures) > 1500  # 110 pages of statements and notes
    missing = [
        fig
        for fig in written.figures
        if (fig.label, fig.fiscal_year, fig.value, fig.printed_page, "a$m") not in facts
    ]
    assert missing == []


def test_the_comparative_column_is_the_prior_year(doc: ParsedDocument) -> None:
    revenue = [f for c in doc.chunks for f in metric_facts(c.as_text()) if f.label == "Revenue"]
    assert {(f.fiscal_year, f.value, f.report_fiscal_year) for f in revenue} == {
        (2024, 4200.0, 2024),
        (2023, 3900.0, 2024),
    }


def test_the_printed_page_is_cited_not_the_pdf_index(written: Written) -> None:
    income = next(f for f in written.figures if f.statement == "income")
    # A cover and a contents page come before page 1.
    assert income.pdf_page - income.printed_page == 2


def test_running_headers_footers_and_note_references_are_not_text(
    written: Written, doc: ParsedDocument
) -> None:
    bodies = [c.text.split("\n", 1)[1] for c in doc.chunks]
    assert not any(written.running_header in body for body in bodies)
    facts = [f for c in doc.chunks for f in metric_facts(c.as_text())]
    assert not any("C1" in f.raw or f.label.endswith("C1(a)") for f in facts)
    statement = next(c for c in doc.chunks if c.is_table and "| Revenue |" in c.text)
    assert "| A$M | Note | FY2024 (30 Jun 2024) | FY2023 (30 Jun 2023) |" in statement.text
    assert "| Revenue | C1(a) | 4,200 | 3,900 |" in statement.text
    # The footnote marker after "Other income" is set small: not part of the label.
    assert "| Other income | C1(b) | 35 | 48 |" in statement.text


def test_a_statement_over_a_page_break_keeps_its_columns(
    written: Written, doc: ParsedDocument
) -> None:
    balance = [f for f in written.figures if f.statement == "balance"]
    pages = sorted({f.printed_page for f in balance})
    assert len(pages) == 2
    continued = next(c for c in doc.chunks if c.is_table and "| Provisions |" in c.text)
    assert continued.page == pages[1]
    assert "| A$M | Note | FY2024 (30 Jun 2024) | FY2023 (30 Jun 2023) |" in continued.text


def test_two_column_prose_is_read_column_by_column(written: Written, doc: ParsedDocument) -> None:
    prose = " ".join(c.text for c in doc.chunks if not c.is_table)
    for sentence in [*written.two_column_sentences, *written.sentences]:
        assert sentence in prose


def test_pages_without_usable_text_are_reported_and_not_indexed(
    written: Written, doc: ParsedDocument
) -> None:
    (blank,) = written.blank_pdf_pages
    (garbled,) = written.garbled_pdf_pages
    assert doc.problems == [
        f"page {blank}: no text layer (a scanned or drawn page); not indexed",
        f"page {garbled}: text in a font without a character map (garbled); not indexed",
    ]
    assert not any("(cid:" in c.text or "Remuneration" in c.section for c in doc.chunks)


def _asked(doc: ParsedDocument, question: str) -> str:
    engine = OfflineEngine()
    pool = [c.as_text() for c in doc.chunks]

    async def go() -> str:
        decision = await engine.route(question)
        grades = await engine.grade_documents(question, decision.slots, pool)
        kept = [pool[i] for i in grades.keep]
        return (await engine.synthesize(question, decision.slots, kept)).answer

    return asyncio.run(go())


def test_a_question_about_the_prior_year_is_answered_from_the_comparative_column(
    doc: ParsedDocument,
) -> None:
    prior = _asked(doc, "What was Northern Star's revenue in FY2023?")
    assert "3,900" in prior and "4,200" not in prior
    current = _asked(doc, "What was Northern Star's revenue in FY2024?")
    assert "4,200" in current and "3,900" not in current


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"", "empty file"),
        (b"\x89PNG\r\n\x1a\n" + b"\0" * 64, "not a PDF (it holds an image; a renamed file?)"),
        (b"Annual report\nRevenue 4,200\n", "not a PDF (it holds text; a renamed file?)"),
    ],
    ids=["empty", "renamed-image", "text"],
)
def test_a_file_that_is_not_a_pdf_gets_a_clear_error(
    tmp_path: Path, content: bytes, why: str
) -> None:
    path = tmp_path / "report.pdf"
    path.write_bytes(content)
    with pytest.raises(DocumentError) as caught:
        parse_document(path, company="NST", fiscal_year=2024)
    assert str(caught.value) == f"{path}: not a readable PDF: {why}"


def test_an_encrypted_pdf_gets_a_clear_error(tmp_path: Path) -> None:
    pdf = FPDF()
    pdf.set_encryption(owner_password="owner", user_password="secret")
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.cell(0, 6, "Revenue 4,200")
    path = tmp_path / "locked.pdf"
    pdf.output(str(path))
    with pytest.raises(DocumentError) as caught:
        parse_document(path, company="NST", fiscal_year=2024)
    assert str(caught.value) == (
        f"{path}: not a readable PDF: encrypted (a password is needed to read it)"
    )


def test_a_statement_in_thousands_keeps_its_unit_and_reads_in_millions(tmp_path: Path) -> None:
    """A "$'000" column (smaller reporters print thousands) is A$ thousands, not skipped:
    its facts carry the unit, and on the money base a figure is a thousandth of a million."""
    from domain.reports.figures import format_value, rescale

    written = write_report(tmp_path / "small.pdf", "Quoll Creek Gold", 2022, pages=12, unit="$'000")
    company = Company("QCG", "Quoll Creek Gold", ("Quoll Creek",), currency="A$")
    doc = parse_document(written.path, company=company, fiscal_year=2022)
    facts = [f for c in doc.chunks for f in metric_facts(c.as_text())]
    revenue = {(f.fiscal_year, f.value, f.unit) for f in facts if f.label == "Revenue"}
    assert revenue and {unit for _, _, unit in revenue} == {"a$k"}, revenue
    year, value, _ = max(revenue)
    assert year == 2022
    assert format_value(value, "a$k").endswith(" thousand")
    assert rescale(value, "a$k", 0, "a$m") == (round(value / 1000, 9), 3)
