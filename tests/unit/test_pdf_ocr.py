"""OCR behind TURNSTILE_OCR: pages without a usable text layer read by Debian's tesseract
(installed by `.ci/run`), their words through the same column reader, and a figure taken
only where tesseract is confident and two readings agree.

The reports are generated (`testkit/reportgen.py`); a "scan" is each page rendered to an
image and written back as a PDF with no text layer, as a scanner writes one."""

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from temporalio.testing import ActivityEnvironment

from activities.contracts import CompanyDetails, IngestFileRequest
from backends.report_activities import ReportActivities
from backends.reports import ReportIndex
from domain.companies.roster import Company
from domain.reports.facts import metric_facts
from ingestion.documents import ParsedDocument, parse_document
from ingestion.layout import Line, Word
from ingestion.pdf import _page_blocks
from ingestion.statements import ReadContext, _is_period_line, find_tables
from testkit.reportgen import Written, write_report, write_scan

WOMBAT = Company("WTN", "Wombat Tin", ("wtn", "wombat tin"), "06-30", "A$")
"""A company named nowhere in the product."""


def test_tesseract_is_installed() -> None:
    """The OCR tests need Debian's tesseract-ocr (`.ci/run` installs it): they fail, not
    skip, without it."""
    assert shutil.which("tesseract"), "apt-get install tesseract-ocr"


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Written:
    path = tmp_path_factory.mktemp("ocr") / "Wombat Tin annual report 2022.pdf"
    return write_report(path, "Wombat Tin", 2022, pages=12, seed=11)


def test_with_ocr_a_garbled_page_is_read_cited_to_its_printed_page_and_said_to_be(
    written: Written,
) -> None:
    doc = parse_document(written.path, WOMBAT, 2022, ocr=True)

    (blank,) = written.blank_pdf_pages
    (garbled,) = written.garbled_pdf_pages
    assert doc.problems[0] == (
        f"page {blank}: no text layer (a scanned or drawn page); OCR found no text; not indexed"
    )
    assert doc.problems[1].startswith(
        f"page {garbled}: text in a font without a character map (garbled); read by OCR ("
    )
    (chunk,) = [c for c in doc.chunks if "Fixed pay rose" in c.text]
    assert "short-term incentives paid 61 per cent" in chunk.text
    assert chunk.section == "Remuneration report (page read by OCR)"
    income = next(f for f in written.figures if f.statement == "income")
    assert chunk.page == garbled - (income.pdf_page - income.printed_page)
    # The rest of the report reads as it does without OCR.
    plain = parse_document(written.path, WOMBAT, 2022)
    assert [c.text for c in doc.chunks if c.page != chunk.page] == [
        c.text for c in plain.chunks if c.page != chunk.page
    ]


def test_without_tesseract_ocr_says_so_per_page_and_indexes_nothing_of_them(
    written: Written, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no tesseract on it

    doc = parse_document(written.path, WOMBAT, 2022, ocr=True)

    assert [p.split(";", 1)[1] for p in doc.problems] == [
        " not indexed (OCR is on but tesseract is not installed)"
    ] * 2
    assert not any("Fixed pay" in c.text for c in doc.chunks)


def _facts(doc: ParsedDocument) -> set[tuple[str, int, float, int]]:
    return {
        (f.label, f.fiscal_year, f.value, f.page)
        for c in doc.chunks
        for f in metric_facts(c.as_text())
    }


def test_a_scanned_statement_gives_only_figures_both_readings_agree_on(
    written: Written, tmp_path: Path
) -> None:
    """A scan of the statements and the first note (four pages, the balance sheet over
    two): every figure read is the one printed, in its column's year, at its printed
    page; a number tesseract is unsure of is left out (the page's report counts them),
    never guessed."""
    income = [f for f in written.figures if f.statement == "income"]
    note = [f for f in written.figures if f.statement == "notes"][:16]  # the first note page
    scanned = list(range(income[0].pdf_page, note[0].pdf_page + 1))
    printed = {f.printed_page for f in written.figures if f.pdf_page in scanned}
    shown = [f for f in written.figures if f.pdf_page in scanned]
    scan = tmp_path / "scan.pdf"
    write_scan(written.path, scan, scanned, dpi=300)

    doc = parse_document(scan, WOMBAT, 2022, ocr=True)

    truth = {(f.label, f.fiscal_year): (f.value, f.printed_page) for f in shown}
    found = _facts(doc)
    # Wrong figures, wrong years, wrong labels or wrong pages: none.
    assert {(label, fy): (v, page) for label, fy, v, page in found} == {
        (label, fy): truth[(label, fy)] for label, fy, *_ in found
    }
    assert all((label, fy) in truth for label, fy, *_ in found)
    # Most are read, and the comparative column is the prior year.
    assert len(found) >= len(truth) / 3
    assert ("Revenue", 2021, 3900.0) in {f[:3] for f in found}
    assert all(p.split(";")[1].startswith(" read by OCR (") for p in doc.problems)
    # Pages cited are the report's printed ones, not the scan's own indices.
    assert {f[3] for f in found} <= printed
    assert len(doc.problems) == len(scanned)


def _line(
    *words: tuple[str, float, bool], top: float = 100, size: float = 9, faint: str = ""
) -> Line:
    """A line of words (text, right edge, unsure); the word `faint` is faint as well."""
    return Line(
        [
            Word(t, x1 - 20, x1, top, top + size, size, unsure, faint=bool(faint) and t == faint)
            for t, x1, unsure in words
        ]
    )


HEADER = _line(("Note", 394, False), ("2022", 479, False), ("2021", 564, False), top=80)
OTHER = _line(("Cost", 80, False), ("(96)", 479, False), ("(90)", 564, False), top=140)


def _rows(line: Line) -> list[tuple[str, list[str]]]:
    """The rows the statement reader reads from a header, `line` and one more row."""
    tables, _ = find_tables([HEADER, line, OTHER], ReadContext("A$", "06-30"))
    return [(r.label, r.values) for t in tables for r in t.rows if r.values]


def test_an_unsure_value_leaves_its_cell_blank_and_an_unsure_label_number_its_row() -> None:
    sure = _line(("Revenue", 80, False), ("4,200", 479, False), ("3,900", 564, False))
    unsure_value = _line(("Revenue", 80, False), ("4,200", 479, True), ("3,900", 564, False))
    unsure_label = _line(
        ("Segment", 80, False), ("14", 110, True), ("73", 479, False), ("600", 564, False)
    )

    assert _rows(sure)[0] == ("Revenue", ["4,200", "3,900"])
    assert _rows(unsure_value)[0] == ("Revenue", ["", "3,900"])
    assert _rows(unsure_label)[0] == ("Segment 14", ["", ""])
    assert unsure_label.reading == "Segment [illegible] 73 600"


async def test_the_ingest_step_reads_by_ocr_when_the_worker_is_told_to(
    written: Written, make_report_index: Callable[[], ReportIndex]
) -> None:
    request = IngestFileRequest(
        path=str(written.path),
        company="WTN",
        fiscal_year=2022,
        details=CompanyDetails(name="Wombat Tin", currency="A$"),
    )
    with_ocr = ReportActivities(make_report_index(), None, ocr=True)
    without = ReportActivities(make_report_index(), None)

    read = await ActivityEnvironment().run(with_ocr.ingest_file, request)
    left = await ActivityEnvironment().run(without.ingest_file, request)

    assert read.status == left.status == "ingested"
    assert "read by OCR" in read.problems[1] and "not indexed" in left.problems[1]
    assert read.chunks == left.chunks + 1
    hits = with_ocr.index.search("short-term incentives fixed pay", "WTN", [2022], 3)
    texts = [c.text for c in with_ocr.index.get_chunks([h.chunk_id for h in hits])]
    assert any("incentives paid 61 per cent" in t for t in texts)


def test_a_faint_label_word_blanks_its_row_and_an_unsure_period_sets_no_columns() -> None:
    """A word OCR could barely read ("14" of "Segment 14") leaves the row without figures
    rather than filing them under a shorter label; a header whose year OCR is unsure of
    is no header (its figures would go to a wrong year)."""
    faint_label = _line(
        ("Segment", 80, False),
        ("14", 110, True),
        ("73", 479, False),
        ("600", 564, False),
        faint="14",
    )
    unsure_header = _line(("Note", 394, False), ("2022", 479, True), ("2021", 564, False))

    assert _rows(faint_label)[0] == ("Segment 14", ["", ""])
    assert faint_label.reading == "Segment 73 600"
    assert _is_period_line(HEADER, 300)
    assert not _is_period_line(unsure_header, 300)


def test_a_larger_line_ending_in_a_year_is_a_heading_on_a_text_page() -> None:
    """Only on a page read by OCR (whose sizes are estimates) does a larger line that ends
    in a number stay a row of the open table."""
    header = _line(("2025", 479, False), ("A$M", 520, False), top=100)
    row = _line(("Revenue", 80, False), ("4,200", 479, False), top=120)
    heading = _line(
        ("Outlook", 80, False), ("for", 110, False), ("2025", 479, False), top=150, size=14
    )
    rows = [_line(("Cost", 80, False), ("(96)", 479, False), top=180 + 15 * i) for i in range(6)]
    ctx = ReadContext("A$", "06-30")

    text_page, _, _ = _page_blocks([header, row, heading, *rows], 5, "", None, 595, ctx)
    ocr_page, _, _ = _page_blocks([header, row, heading, *rows], 5, "", None, 595, ctx, True)

    assert "Outlook for 2025" in [b.section for b in text_page]
    assert all("Outlook" not in b.section for b in ocr_page)
