"""ReportIndex on real Qdrant local mode: idempotent ingestion and filtered hybrid search."""

import dataclasses
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from backends.embeddings import Embedder
from backends.reports import FACET_HITS, LATER_REPORT_HITS, ReportIndex
from domain.models import PREVIEW_CHARS
from ingestion.documents import parse_document
from testkit.reportgen import write_report
from tests.conftest import CORPUS_DIR

BHP_FY2024 = CORPUS_DIR / "BHP_FY2024.md"


def _texts_of(index: ReportIndex, document_id: str) -> list[str]:
    records, _ = index.client.scroll(index.collection, limit=1000, with_payload=True)
    return [
        str(r.payload["text"])
        for r in records
        if r.payload and r.payload["document_id"] == document_id
    ]


def test_reingesting_the_same_file_creates_no_duplicates(
    make_report_index: Callable[[], ReportIndex],
) -> None:
    index = make_report_index()
    first = index.ingest_file(BHP_FY2024)
    count = index.chunk_count()
    version = index.corpus_version()

    second = index.ingest_file(BHP_FY2024)

    assert first.status == "ingested"
    assert first.chunks == count > 0
    assert second.status == "unchanged"
    assert second.chunks == count
    assert index.chunk_count() == count
    assert index.corpus_version() == version


def test_an_ingestion_cut_short_is_redone_on_the_rerun_without_duplicates(
    make_report_index: Callable[[], ReportIndex], tmp_path: Path
) -> None:
    """A long report whose write was cut short (a worker killed mid-upsert) left some of
    its chunks, with the report's own hash: the re-run stores it whole, once."""
    report = write_report(tmp_path / "long.pdf", "Northern Star Resources", 2024, pages=40)
    doc = parse_document(report.path, "NST", 2024)
    index = make_report_index()
    cut = dataclasses.replace(doc, chunks=doc.chunks[: len(doc.chunks) // 3])
    assert index.store(cut, str(report.path)).status == "ingested"
    assert 0 < index.chunk_count() < len(doc.chunks)

    rerun = index.ingest_file(report.path, "NST", 2024)

    assert rerun.status == "ingested", "a part of the report is not the report"
    assert index.chunk_count() == len(doc.chunks) == rerun.chunks
    assert index.ingest_file(report.path, "NST", 2024).status == "unchanged"
    assert index.chunk_count() == len(doc.chunks)


def test_a_changed_file_replaces_all_its_old_chunks(
    make_report_index: Callable[[], ReportIndex], tmp_path: Path
) -> None:
    index = make_report_index()
    path = tmp_path / BHP_FY2024.name
    shutil.copy(BHP_FY2024, path)
    index.ingest_file(path)
    before_version = index.corpus_version()
    original = path.read_text(encoding="utf-8")
    shortened = original[: original.index("<!-- page: 7 -->")].replace(
        "higher than in the prior year", "well above the prior year"
    )
    path.write_text(shortened, encoding="utf-8")

    result = index.ingest_file(path)

    texts = _texts_of(index, "BHP-FY2024")
    assert result.status == "ingested"
    assert len(texts) == result.chunks == len(parse_document(path).chunks)
    assert index.chunk_count() == result.chunks
    assert not any("higher than in the prior year" in t for t in texts)
    assert not any("Independent auditor" in t for t in texts)
    assert any("well above the prior year" in t for t in texts)
    assert index.corpus_version() != before_version


def test_an_unusable_file_is_reported_with_its_path_and_the_rest_ingests(
    make_report_index: Callable[[], ReportIndex], tmp_path: Path
) -> None:
    index = make_report_index()
    notes = tmp_path / "notes.txt"
    notes.write_text("not a report", encoding="utf-8")
    corrupt = tmp_path / "corrupt.pdf"
    corrupt.write_bytes(b"%PDF-1.4 broken")
    missing = tmp_path / "missing.md"
    files = [notes, BHP_FY2024, corrupt, missing, CORPUS_DIR / "RIO_FY2024.md"]

    results = [index.ingest_file(p, *(("BHP", 2024) if p == corrupt else ())) for p in files]

    assert [r.status for r in results] == ["failed", "ingested", "failed", "failed", "ingested"]
    for path, result in zip(files, results, strict=True):
        assert result.path == str(path)
        if result.status == "failed":
            assert result.error is not None
            assert result.error.startswith(str(path))
            assert result.chunks == 0
    assert index.chunk_count() == results[1].chunks + results[4].chunks


def test_an_empty_index_reports_the_empty_corpus_version(
    make_report_index: Callable[[], ReportIndex],
) -> None:
    index = make_report_index()

    assert index.corpus_version() == "empty"
    assert index.search("revenue", None, (), 5) == []


@pytest.mark.parametrize(("company", "fiscal_year"), [("RIO", 2023), ("NST", 2025), ("S32", 2024)])
def test_search_filtered_by_company_and_year_returns_only_passages_of_that_year(
    report_index: ReportIndex, company: str, fiscal_year: int
) -> None:
    """A search for a year finds that year's report first, then a few passages of another
    report only where they print the year's figures (S32's FY2025 report restates
    FY2024)."""
    hits = report_index.search("revenue and underlying EBITDA", company, [fiscal_year], 10)

    own = [h for h in hits if h.fiscal_year == fiscal_year]
    assert len(own) == 10 and hits[:10] == own
    assert {h.company for h in hits} == {company}
    printed = hits[10:]
    assert len(printed) <= LATER_REPORT_HITS
    texts = report_index.get_chunks([h.chunk_id for h in printed])
    assert all(t.is_table and f"FY{fiscal_year}" in t.text for t in texts)
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))


def test_later_reports_add_a_few_hits_after_the_years_asked_about(
    report_index: ReportIndex,
) -> None:
    main = report_index.search("South32 revenue FY2024", "S32", [2024], 8)
    hits = report_index.search("South32 revenue FY2024", "S32", [2024], 8, later_years=[2025])

    assert hits[: len(main)] == main  # the years asked about keep every place they had
    assert {h.fiscal_year for h in main[:8]} == {2024}
    later = hits[len(main) :]
    assert 1 <= len(later) <= LATER_REPORT_HITS and {h.fiscal_year for h in later} == {2025}
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    # The FY2025 report's table that prints FY2024 restated is found by the FY2024 search
    # itself (a passage is found for every year it prints), after the FY2024 report's own
    # hits; the later hits add its prose.
    texts = report_index.get_chunks([h.chunk_id for h in main[8:]])
    assert any("4,923" in t.text and t.fiscal_year == 2025 for t in texts)


def test_each_facet_of_a_search_adds_its_own_few_tables_after_the_main_hits(
    report_index: ReportIndex,
) -> None:
    main = report_index.search("BHP revenue FY2024", "BHP", [2024], 4)
    hits = report_index.search(
        "BHP revenue FY2024", "BHP", [2024], 4, facets=["BHP net debt FY2024"]
    )

    assert hits[: len(main)] == main  # the main query keeps every place it had
    added = hits[len(main) :]
    main_ids = {h.chunk_id for h in main}
    assert 1 <= len(added) <= FACET_HITS and not {h.chunk_id for h in added} & main_ids
    assert {h.company for h in added} == {"BHP"}
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    texts = report_index.get_chunks([h.chunk_id for h in added])
    # A line item is printed in a table: the facet's prose is not among what it adds.
    assert all(t.is_table for t in texts)
    facet_tables = [
        h.chunk_id
        for h in report_index.search("BHP net debt FY2024", "BHP", [2024], 40)
        if h.is_table
    ]
    assert {h.chunk_id for h in added} <= set(facet_tables)
    # Quiet: a search without facets is the main query's alone.
    assert report_index.search("BHP revenue FY2024", "BHP", [2024], 4, facets=[]) == main


def test_search_filtered_by_company_only_spans_that_companys_years(
    report_index: ReportIndex,
) -> None:
    hits = report_index.search("net debt", "FMG", (), 20)

    assert {h.company for h in hits} == {"FMG"}
    assert {h.fiscal_year for h in hits} == {2023, 2024, 2025}


def test_figure_question_finds_the_revenue_table_in_the_top_five(
    report_index: ReportIndex,
) -> None:
    hits = report_index.search("What was BHP's revenue in FY2024?", "BHP", (), 5)

    texts = report_index.get_chunks([h.chunk_id for h in hits])

    assert any("55,658" in t.text and t.fiscal_year == 2024 for t in texts)


def test_search_hits_carry_a_short_preview_without_the_context_line(
    report_index: ReportIndex,
) -> None:
    hits = report_index.search("chair's letter copper growth", "BHP", [2024], 5)

    for hit in hits:
        assert len(hit.preview) <= PREVIEW_CHARS
        assert not hit.preview.startswith("[BHP Group")


def test_get_chunks_returns_full_text_in_the_order_asked_and_skips_unknown_ids(
    report_index: ReportIndex,
) -> None:
    hits = report_index.search("total dividends per share", "BHP", [2024], 3)
    ids = [h.chunk_id for h in reversed(hits)]

    chunks = report_index.get_chunks([*ids, "00000000-0000-0000-0000-000000000000"])

    assert [c.chunk_id for c in chunks] == ids
    for chunk, hit in zip(chunks, reversed(hits), strict=True):
        assert chunk.text.startswith("[BHP Group (BHP) · BHP Annual Report 2024 · FY2024 · ")
        assert (chunk.company, chunk.fiscal_year, chunk.page) == ("BHP", 2024, hit.page)
        assert " ".join(chunk.text.split()).find(hit.preview.rstrip("…")[:60]) > 0
    assert report_index.get_chunks([]) == []


def test_table_chunks_come_back_with_their_unit(report_index: ReportIndex) -> None:
    hits = report_index.search("Revenue Underlying EBITDA table", "BHP", [2024], 10)

    tables = [c for c in report_index.get_chunks([h.chunk_id for h in hits]) if c.is_table]

    assert tables
    assert {"us$m", "us$bn"} & {t.unit for t in tables}
    assert all(t.unit is not None for t in tables)


def test_reingesting_a_file_under_corrected_metadata_retags_its_chunks(
    make_report_index: Callable[[], ReportIndex], tmp_path: Path
) -> None:
    index = make_report_index()
    path = tmp_path / "results.md"
    path.write_text(
        "---\ntitle: Results\n---\n\n# Financial review\n\nRevenue was US$55,658 million.\n",
        encoding="utf-8",
    )
    index.ingest_file(path, company="BHP", fiscal_year=2023)

    result = index.ingest_file(path, company="BHP", fiscal_year=2024)

    assert result.status == "ingested"
    assert [h.fiscal_year for h in index.search("revenue", "BHP", (), 5)] == [2024]


def test_the_companies_naming_a_name_are_read_from_the_reports_text(
    report_index: ReportIndex,
) -> None:
    assert report_index.companies_naming("Oyu Tolgoi") == {"RIO"}
    assert report_index.companies_naming("Hemi") == {"NST"}
    assert report_index.companies_naming("Quokka Ridge") == set()


def test_a_full_length_pdf_is_stored_with_its_tables_and_its_unreadable_pages_named(
    make_report_index: Callable[[], ReportIndex], tmp_path: Path
) -> None:
    index = make_report_index()
    written = write_report(tmp_path / "nst-2024.pdf", "Northern Star Resources", 2024, pages=40)

    result = index.ingest_file(written.path, "NST", 2024)
    again = index.ingest_file(written.path, "NST", 2024)

    assert result.status == "ingested" and again.status == "unchanged"
    assert index.chunk_count() == result.chunks
    assert [p.split(":")[0] for p in result.problems] == [
        f"page {n}" for n in (*written.blank_pdf_pages, *written.garbled_pdf_pages)
    ]
    texts = _texts_of(index, "NST-FY2024")
    assert any(
        "| A$M | Note | FY2024 (30 Jun 2024) | FY2023 (30 Jun 2023) |\n" in t
        and "| Revenue | C1(a) |" in t
        for t in texts
    )
    hits = index.search("consolidated statement of profit or loss revenue", "NST", [2024], 5)
    page = next(f.printed_page for f in written.figures if f.label == "Revenue")
    assert any(h.is_table and h.page == page for h in hits)


@pytest.fixture(params=["edge", "local"])
def index_engine(request: pytest.FixtureRequest) -> str:
    """Every test of this module on both embedded adapters: Qdrant Edge and local mode."""
    return str(request.param)


def _tables_report(folder: Path, year: int, tables: int) -> Path:
    """A BHP report of `year` with `tables` tables of net debt, each on a page of its own."""
    pages = []
    for n in range(1, tables + 1):
        pages.append(
            f"<!-- page: {n} -->\n## Net debt by region {n}\n\n"
            f"| US$M | FY{year} |\n|---|---|\n| Net debt of region {n} | {1000 + n} |\n"
            f"| Interest bearing liabilities of region {n} | {2000 + n} |\n"
        )
    path = folder / f"BHP_FY{year}.md"
    path.write_text(
        f"---\ncompany: BHP\ncompany_name: BHP Group Limited\nfiscal_year: {year}\n"
        f"title: BHP Annual Report {year}\nperiod_end: {year}-06-30\ncurrency: US$\n---\n\n"
        + "\n".join(pages)
    )
    return path


def test_a_facet_over_two_years_adds_a_table_of_each_years_reports(
    make_report_index: Callable[[], ReportIndex], tmp_path: Path
) -> None:
    """Two years asked: each year's reports give the facet's best table, though the other
    year's report has more tables as near the words, which took every place (a FY2021
    10-K's tax tables crowded out the FY2022 income statement)."""
    index = make_report_index()
    for year, tables in ((2024, 1), (2025, 8)):
        assert index.ingest_file(_tables_report(tmp_path, year, tables)).status == "ingested"
    facet = "BHP net debt interest bearing liabilities"
    hits = index.search("BHP net debt", "BHP", [2024, 2025], 1, facets=[facet])
    years = {t.fiscal_year for t in index.get_chunks([h.chunk_id for h in hits])}
    assert years == {2024, 2025}, hits
    # Quiet: one year asked is searched for that year alone.
    one = index.search("BHP net debt", "BHP", [2025], 1, facets=[facet])
    assert {t.fiscal_year for t in index.get_chunks([h.chunk_id for h in one])} == {2025}


def test_a_company_whose_only_filings_are_not_annual_reports_is_covered_for_their_years(
    make_report_index: Callable[[], ReportIndex], tmp_path: Path
) -> None:
    """A quarter's report and a current report (no annual report of their years) give
    their company those years: FinanceBench's JPMorgan (10-Qs only), Foot Locker (8-Ks)
    and Ulta (a results release) had dropped out of the companies covered."""
    from tests.unit.test_documents import _KESTREL, FILINGS, _pdf

    index = make_report_index()
    for kind, year in (("interim", 2022), ("current", 2023)):
        heading, prose = FILINGS[kind]
        path = _pdf(tmp_path / f"{kind}.pdf", [(heading, prose + _KESTREL[0], _KESTREL[1])])
        result = index.ingest_file(path, company="BHP", fiscal_year=year)
        assert result.status == "ingested" and result.document_id.startswith(f"BHP-FY{year}-")

    assert index.reports() == {"BHP": (2022, 2023)}


class _Counting:
    """The index's own embedder, with the texts it was asked to embed written down."""

    def __init__(self, inner: Embedder) -> None:
        self.inner, self.name, self.dimension = inner, inner.name, inner.dimension
        self.texts: list[str] = []

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.texts += texts
        return self.inner.embed(texts)


def test_a_search_embeds_its_query_and_each_facet_once_however_many_ways_it_looks(
    report_index: ReportIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    query, facet = "BHP revenue FY2024", "BHP net debt FY2024"
    expected = report_index.search(query, "BHP", [2024], 4, later_years=[2025], facets=[facet])
    counting = _Counting(report_index.embedder)
    monkeypatch.setattr(report_index, "embedder", counting)

    hits = report_index.search(query, "BHP", [2024], 4, later_years=[2025], facets=[facet])

    # The years' own reports, others that print them, the later report, and the facet
    # twice: six queries of the index from two vectors.
    assert sorted(counting.texts) == sorted([query, facet])
    assert hits == expected
