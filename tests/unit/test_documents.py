"""Markdown and PDF reports become chunks that keep company, year, page, section and unit."""

from pathlib import Path

import pytest
from fpdf import FPDF

from domain.companies.roster import pinned
from ingestion.documents import PROSE_WORDS, DocumentError, contents_table, parse_document

FRONT_MATTER = """---
company: BHP
company_name: BHP Group Limited
fiscal_year: 2024
title: BHP Annual Report 2024
period_end: 2024-06-30
---
"""

REPORT = (
    FRONT_MATTER
    + """
<!-- page: 1 -->
# Chair's letter

BHP generated revenue of US$55,658 million.

<!-- page: 4 -->
# Financial review

## Key financial measures

The table below summarises headline results.

| US$M | FY2024 |
|---|---|
| Revenue | 55,658 |
| Underlying EBITDA | 29,016 |

| US cents | FY2024 |
|---|---|
| Total dividends per share | 146 |

<!-- page: 5 -->
# Risk factors

Revenue may decline materially in a weak market.
"""
)


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _body(text: str) -> str:
    """A chunk's text without its context line (and without a table's unit note)."""
    lines = text.split("\n")[1:]
    return "\n".join(lines[1:] if lines and lines[0].startswith("Table (") else lines)


def test_front_matter_gives_company_fiscal_year_and_title(tmp_path: Path) -> None:
    doc = parse_document(_write(tmp_path, "BHP_FY2024.md", REPORT))

    assert (doc.company, doc.fiscal_year, doc.title) == ("BHP", 2024, "BHP Annual Report 2024")
    assert doc.document_id == "BHP-FY2024"
    assert {(c.company, c.fiscal_year, c.document) for c in doc.chunks} == {
        ("BHP", 2024, "BHP Annual Report 2024")
    }


def test_page_markers_set_each_chunks_page(tmp_path: Path) -> None:
    doc = parse_document(_write(tmp_path, "BHP_FY2024.md", REPORT))

    pages = {_body(c.text).split("\n")[0][:30]: c.page for c in doc.chunks}

    assert pages["BHP generated revenue of US$55"] == 1
    assert pages["The table below summarises hea"] == 4
    assert pages["| US$M | FY2024 |"] == 4
    assert pages["Revenue may decline materially"] == 5


def test_subheadings_are_joined_to_their_page_heading(tmp_path: Path) -> None:
    doc = parse_document(_write(tmp_path, "BHP_FY2024.md", REPORT))

    assert [c.section for c in doc.chunks] == [
        "Chair's letter",
        "Financial review — Key financial measures",
        "Financial review — Key financial measures",
        "Financial review — Key financial measures",
        "Risk factors",
    ]


def test_every_chunk_starts_with_a_context_line(tmp_path: Path) -> None:
    doc = parse_document(_write(tmp_path, "BHP_FY2024.md", REPORT))

    first = doc.chunks[0].text.split("\n")[0]

    assert first == "[BHP Group (BHP) · BHP Annual Report 2024 · FY2024 · Chair's letter · page 1]"


def test_table_chunk_carries_its_header_unit_and_states_it_in_words(tmp_path: Path) -> None:
    doc = parse_document(_write(tmp_path, "BHP_FY2024.md", REPORT))

    tables = [c for c in doc.chunks if c.is_table]

    assert [t.unit for t in tables] == ["us$m", "us cents"]
    assert "Table (all figures in US$ millions):" in tables[0].text
    assert "| Underlying EBITDA | 29,016 |" in tables[0].text
    assert "Table (all figures in US cents per share):" in tables[1].text
    assert all(c.unit is None for c in doc.chunks if not c.is_table)


def test_table_without_a_unit_header_says_units_are_as_stated(tmp_path: Path) -> None:
    text = FRONT_MATTER + "\n# Financial review\n\n| Metric | FY2024 |\n|---|---|\n| Staff | 80 |\n"

    (chunk,) = parse_document(_write(tmp_path, "BHP_FY2024.md", text)).chunks

    assert chunk.is_table and chunk.unit is None
    assert "Table (units as stated in the table):" in chunk.text


def test_short_paragraphs_merge_into_prose_chunks_of_at_most_the_word_limit(
    tmp_path: Path,
) -> None:
    paragraphs = [" ".join(f"word{p}x{w}" for w in range(30)) for p in range(10)]
    text = FRONT_MATTER + "\n# Operations review\n\n" + "\n\n".join(paragraphs) + "\n"

    chunks = parse_document(_write(tmp_path, "BHP_FY2024.md", text)).chunks

    sizes = [len(_body(c.text).split()) for c in chunks]
    assert sizes == [120, 120, 60]
    assert max(sizes) <= PROSE_WORDS


def test_prose_never_merges_across_pages_or_sections(tmp_path: Path) -> None:
    text = FRONT_MATTER + (
        "\n<!-- page: 1 -->\n# Chair's letter\n\nOne.\n\n<!-- page: 2 -->\n# Chair's letter\n\n"
        "Two.\n\n## Outlook\n\nThree.\n"
    )

    chunks = parse_document(_write(tmp_path, "BHP_FY2024.md", text)).chunks

    assert [(_body(c.text), c.page, c.section) for c in chunks] == [
        ("One.", 1, "Chair's letter"),
        ("Two.", 2, "Chair's letter"),
        ("Three.", 2, "Chair's letter — Outlook"),
    ]


def test_flags_override_front_matter(tmp_path: Path) -> None:
    doc = parse_document(
        _write(tmp_path, "report.md", REPORT), company="rio tinto", fiscal_year=2023
    )

    assert (doc.company, doc.fiscal_year) == ("RIO", 2023)
    assert doc.title == "BHP Annual Report 2024"
    assert doc.chunks[0].text.startswith("[Rio Tinto (RIO) · BHP Annual Report 2024 · FY2023 ·")


def test_chunk_ids_and_content_hash_are_deterministic(tmp_path: Path) -> None:
    path = _write(tmp_path, "BHP_FY2024.md", REPORT)

    first, second = parse_document(path), parse_document(path)

    assert [c.chunk_id for c in first.chunks] == [c.chunk_id for c in second.chunks]
    assert len({c.chunk_id for c in first.chunks}) == len(first.chunks)
    assert first.content_hash == second.content_hash


def test_every_sample_report_parses_with_tables_that_name_their_unit() -> None:
    corpus = Path(__file__).resolve().parents[2] / "corpus" / "reports"

    docs = [parse_document(p) for p in sorted(corpus.glob("*.md"))]

    assert len(docs) == 15
    assert {(d.company, d.fiscal_year) for d in docs} == {
        (t, y) for t in ("BHP", "RIO", "FMG", "S32", "NST") for y in (2023, 2024, 2025)
    }
    for doc in docs:
        tables = [c for c in doc.chunks if c.is_table]
        assert tables, doc.document_id
        assert all(t.unit is not None for t in tables), doc.document_id


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("# No front matter\n\nText.\n", "no front matter"),
        ("---\ncompany: BHP\nfiscal_year: 2024\n", "front matter is not closed"),
        ("---\ncompany: ACME\nfiscal_year: 2024\n---\nText.\n", "unknown company 'ACME'"),
        ("---\nfiscal_year: 2024\n---\nText.\n", "no company"),
        ("---\ncompany: BHP\nfiscal_year: 1850\n---\nText.\n", "fiscal year 1850 is not a year"),
        ("---\ncompany: BHP\nfiscal_year: 2024\n---\n\n# Empty\n", "no text found"),
    ],
)
def test_unusable_markdown_raises_document_error_naming_the_path(
    tmp_path: Path, text: str, message: str
) -> None:
    path = _write(tmp_path, "bad.md", text)

    with pytest.raises(DocumentError) as caught:
        parse_document(path)

    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)


def test_markdown_that_is_not_utf8_raises_document_error(tmp_path: Path) -> None:
    path = tmp_path / "latin1.md"
    path.write_bytes(FRONT_MATTER.encode() + "Caf\xe9".encode("latin-1"))

    with pytest.raises(DocumentError, match="cannot be read"):
        parse_document(path)


def test_unrecognised_suffix_raises_document_error_naming_the_path(tmp_path: Path) -> None:
    path = _write(tmp_path, "BHP_FY2024.txt", REPORT)

    with pytest.raises(DocumentError) as caught:
        parse_document(path)

    assert str(caught.value) == f"{path}: unrecognised file type .txt; use .md or .pdf"


def test_missing_file_raises_document_error_naming_the_path(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.md"

    with pytest.raises(DocumentError, match=f"^{path}: no such file$"):
        parse_document(path)


def _pdf(path: Path, pages: list[tuple[str, str, list[str]]]) -> Path:
    """Write a PDF whose pages each hold a heading, a paragraph and table lines, each
    line's last word set right-aligned in a column at the right, as a statement prints
    its figures under its period."""
    pdf = FPDF()
    for heading, prose, table in pages:
        pdf.add_page()
        pdf.set_font("Helvetica", style="B", size=14)
        pdf.cell(0, 10, heading, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", size=11)
        pdf.multi_cell(0, 6, prose)
        pdf.ln(4)
        for line in table:
            label, figure = line.rsplit(" ", 1)
            pdf.cell(130, 6, label)
            pdf.cell(40, 6, figure, align="R", new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(path))
    return path


@pytest.fixture
def report_pdf(tmp_path: Path) -> Path:
    return _pdf(
        tmp_path / "BHP results 2024.pdf",
        [
            (
                "Financial review",
                "Revenue rose on higher copper prices and stronger iron ore volumes, while "
                "costs were held flat across the operated assets during the year.",
                ["US$M FY2024", "Revenue 55,658", "Underlying EBITDA 29,016"],
            ),
            (
                "Dividends",
                "The Board determined total dividends of 146 US cents per share.",
                ["US cents FY2024", "Total dividends per share 146"],
            ),
        ],
    )


def test_pdf_table_becomes_a_table_chunk_with_its_unit_and_page(report_pdf: Path) -> None:
    doc = parse_document(report_pdf, company="BHP", fiscal_year=2024)

    tables = [c for c in doc.chunks if c.is_table]

    assert [(t.page, t.section, t.unit) for t in tables] == [
        (1, "Financial review", "us$m"),
        (2, "Dividends", "us cents"),
    ]
    assert "Table (all figures in US$ millions):" in tables[0].text
    assert "| US$M | FY2024 (30 Jun 2024) |" in tables[0].text
    assert "| Revenue | 55,658 |" in tables[0].text
    assert "| Underlying EBITDA | 29,016 |" in tables[0].text


def test_pdf_heading_and_prose_keep_their_page(report_pdf: Path) -> None:
    doc = parse_document(report_pdf, company="BHP", fiscal_year=2024)

    prose = [c for c in doc.chunks if not c.is_table]

    assert [(c.page, c.section) for c in prose] == [(1, "Financial review"), (2, "Dividends")]
    assert "stronger iron ore volumes, while costs were held flat" in prose[0].text
    assert prose[0].text.startswith("[BHP Group (BHP) · BHP Group Annual Report 2024 · FY2024 ·")
    assert doc.document_id == "BHP-FY2024"


def test_a_pdf_that_does_not_say_who_or_when_asks_for_the_flag_it_needs(
    report_pdf: Path,
) -> None:
    """This PDF prints neither its company's name nor the period it covers on its first
    pages (a real report does: tests/realdocs), so each is asked for in one line."""
    with pytest.raises(DocumentError, match=r"could not tell its company .* \(give --company"):
        parse_document(report_pdf)
    with pytest.raises(DocumentError, match=r"could not tell its fiscal year .*--fy 2024"):
        parse_document(report_pdf, company="BHP")
    assert parse_document(report_pdf, company="BHP", fiscal_year=2024).identified is None


@pytest.mark.parametrize(
    "content",
    [b"", b"not a pdf at all", b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\n"],
    ids=["empty", "garbage", "truncated"],
)
def test_corrupt_pdf_raises_document_error_naming_the_path(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "corrupt.pdf"
    path.write_bytes(content)

    with pytest.raises(DocumentError) as caught:
        parse_document(path, company="BHP", fiscal_year=2024)

    assert str(caught.value).startswith(f"{path}: not a readable PDF")


def test_pdf_without_text_raises_document_error(tmp_path: Path) -> None:
    pdf = FPDF()
    pdf.add_page()
    path = tmp_path / "blank.pdf"
    pdf.output(str(path))

    with pytest.raises(DocumentError, match="no text found"):
        parse_document(path, company="BHP", fiscal_year=2024)


def test_a_quarterly_report_of_a_new_company_does_not_set_its_year_end(tmp_path: Path) -> None:
    """A 10-Q's "quarterly period ended June 30, 2022" is the quarter's end, not the
    year's: the new company is registered on the calendar year, and the line says so."""
    cover = (
        "Form 10-Q",
        "Quarterly report for the quarterly period ended June 30, 2022. Kestrel Harbour "
        "Holdings Inc, trading symbol KHH, reports in U.S. dollars.",
        ["(in millions) June 30, 2022", "Total revenue 1,234"],
    )
    with pinned([]):
        doc = parse_document(_pdf(tmp_path / "kestrel-q2.pdf", [cover]))
    assert doc.described is not None and doc.described.year_end == "12-31"
    assert doc.identified is not None
    assert "its fiscal-year end" in doc.identified
    assert "(taken as 31 December; --year-end sets another)" in doc.identified
    # Quiet: an annual report's period end is its year end, and says nothing of it.
    annual = (
        "Annual Report",
        "Annual report for the year ended June 30, 2022. Kestrel Harbour Holdings Inc, "
        "trading symbol KHH, reports in U.S. dollars.",
        ["(in millions) June 30, 2022", "Total revenue 4,321"],
    )
    with pinned([]):
        doc = parse_document(_pdf(tmp_path / "kestrel-annual.pdf", [annual]))
    assert doc.described is not None and doc.described.year_end == "06-30"
    assert doc.identified is not None and "fiscal-year end" not in doc.identified


_KESTREL = (
    "Kestrel Harbour Holdings Inc (Trading Symbol: KHH) reports in U.S. dollars.",
    ["(in millions) 2022", "Total revenue 4,321"],
)
FILINGS = {
    "annual": ("Form 10-K", "Annual report for the fiscal year ended December 31, 2022. "),
    "interim": ("Form 10-Q", "Quarterly report for the quarterly period ended June 30, 2022. "),
    "current": (
        "FORM 8-K CURRENT REPORT",
        "Date of report (Date of earliest event reported): August 30, 2022. The fiscal year "
        "ended December 31, 2022 is unchanged. ",
    ),
    "release": (
        "Kestrel Harbour Announces Second Quarter 2022 Results",
        "Boston (July 21, 2022) - results for the fiscal year ended December 31, 2022 to date. ",
    ),
}


def test_filings_of_one_company_and_year_are_told_apart_by_their_kind_and_date(
    tmp_path: Path,
) -> None:
    """A company's year has its annual report and other filings (a quarter's report, a
    current report, a results release): each its own document, named by what its first
    page says it is and the date it is of; the annual report keeps the year's own id, and
    the same file is always the same document."""
    ids = {}
    for kind, (heading, prose) in FILINGS.items():
        path = _pdf(tmp_path / f"kestrel-{kind}.pdf", [(heading, prose + _KESTREL[0], _KESTREL[1])])
        with pinned([]):
            doc = parse_document(path, fiscal_year=2022)
            again = parse_document(path, fiscal_year=2022)
        assert doc.fiscal_year == 2022 and doc.document_id == again.document_id
        ids[kind] = (doc.document_id, doc.title)
    assert ids["annual"] == ("KHH-FY2022", "Kestrel Harbour Holdings Inc Annual Report 2022")
    assert ids["interim"][0] == "KHH-FY2022-interim-2022-06-30"
    assert ids["current"][0] == "KHH-FY2022-current-2022-08-30"
    assert ids["release"][0] == "KHH-FY2022-release-2022-07-21"
    assert ids["current"][1].endswith("Current Report 30 August 2022"), ids
    assert len({i for i, _ in ids.values()}) == 4


@pytest.mark.parametrize(
    ("rows", "contents"),
    [
        (
            [
                "| Report of Independent Registered Public Accounting Firm | 55 |",
                "| Consolidated Statements of Income for the three years ended May 31, 2021 | 57 |",
                "| 2019 |",
                "| Consolidated Balance Sheets at May 31, 2021 | 59 |",
            ],
            True,
        ),
        (
            [
                "| Directors' report | 3 |",
                "| Auditor's independence declaration | 17 |",
                "| Statement of financial position | 21 |",
            ],
            True,
        ),
        (["| Revenue | 1,234 |", "| Cost of sales | 567 |"], False),  # amounts, not pages
        (["| Stores opened | 12 |", "| Stores closed | 4 |"], False),  # not rising
        (["| Segment | 3 | 2021 |", "| Other | 9 | 2022 |"], False),  # two figures a row
        (["| Notes to the financial statements | 62 |"], False),  # one row says too little
    ],
)
def test_a_list_of_contents_is_no_table_of_figures(rows: list[str], contents: bool) -> None:
    """A table with no header whose rows each end in a page number, rising, is a list of
    contents (a 10-K's "Item 8" index, an annual report's contents page): read as text,
    so a search for a statement's tables does not take "Consolidated Balance Sheets | 59"
    for the balance sheet."""
    text = "\n".join(["Table (units as stated in the table):", "|  |  |", "|---|---|", *rows])
    assert contents_table(text) is contents
    headed = text.replace("|  |  |", "| US$M | 2022 |")
    assert not contents_table(headed)  # a header names periods or units: a statement's
