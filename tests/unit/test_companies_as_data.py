"""Companies are data: the coverage in force decides every name, year and text.

Built here from companies no code lists (a new company, a March year end, a company with
one report, no report at all), so nothing can pass by knowing the sample.
"""

import asyncio
from pathlib import Path

import pytest

from domain.companies.replies import clarifying_question, direct_answer
from domain.companies.roster import (
    Company,
    aliases_for,
    calendars,
    check_year_end,
    companies,
    coverage,
    find_companies,
    fiscal_years,
    normalise_ticker,
    pinned,
    year_span,
)
from domain.memory.rules import read_preference
from domain.models import Slots
from domain.questions.answer_scope import answer_years
from domain.questions.years import coverage_notice
from ingestion.companies import CompaniesFileError, read_companies_file, sample_coverage
from ingestion.documents import DocumentError, parse_document
from workflows.rules.scope import refusal_text

OSPREY = Company(
    "OSP",
    "Osprey Lithium",
    aliases_for("OSP", "Osprey Lithium Limited", ["osprey"]),
    "03-31",
    "A$",
    (2021, 2022),
    ("lithium",),
)
HARBOUR = Company(
    "HBR", "Harbour Copper", aliases_for("HBR", "Harbour Copper plc"), "12-31", "US$", (2022,)
)


def test_a_new_company_resolves_by_its_names_and_its_texts_name_it() -> None:
    with pinned([OSPREY, HARBOUR]):
        assert find_companies("Did Osprey Lithium or harbour copper earn more?") == ["OSP", "HBR"]
        assert normalise_ticker("osprey lithium limited") == "OSP"
        assert normalise_ticker("Ospray Lithium") == "OSP"  # a close misspelling
        assert normalise_ticker("BHP") is None  # the sample is not in this coverage
        assert fiscal_years() == (2021, 2022) and year_span(" to ") == "FY2021 to FY2022"
        refusal = refusal_text()
        assert "Osprey Lithium" in refusal and "Harbour Copper" in refusal
        assert "two companies" in refusal and "BHP" not in refusal
        assert "Osprey Lithium" in direct_answer() and "31 March" in direct_answer()
        assert "Harbour Copper (HBR)" in clarifying_question()
        assert coverage_notice("revenue in FY2019") is not None
        assert coverage_notice("revenue in FY2021") is None


def test_fiscal_year_ends_are_any_day_and_said_in_words() -> None:
    assert OSPREY.period_end(2022).isoformat() == "2022-03-31"
    leap = Company("LPY", "Leap", ("lpy",), "02-29")
    assert leap.period_end(2023).isoformat() == "2023-02-28"
    assert leap.period_end(2024).isoformat() == "2024-02-29"
    assert check_year_end("6-30") == "06-30"
    for bad in ("13-01", "06-31", "June", ""):
        with pytest.raises(ValueError):
            check_year_end(bad)
    third = Company("SEP", "September Gold", ("sep gold",), "09-30", fiscal_years=(2022,))
    with pinned([OSPREY, HARBOUR, third]):
        said = calendars()
        assert "31 March" in said and "31 December" in said and "30 September" in said


def test_a_name_loses_its_legal_suffix_but_never_becomes_an_ordinary_word() -> None:
    assert aliases_for("XMP", "Example Mining Limited") == (
        "xmp",
        "example mining limited",
        "example mining",
        "exmi",
        "exami",
    )
    assert "star" not in aliases_for("SGL", "Star Group")  # "star" is ordinary text


def test_with_no_report_ingested_every_text_still_reads() -> None:
    with pinned([]):
        assert companies() == {} and fiscal_years() == ()
        assert "no company yet" in refusal_text()
        assert "turnstile ingest" in direct_answer()
        assert "no company yet" in clarifying_question()
        assert answer_years(Slots()) == []
        assert find_companies("What was BHP's revenue?") == []


async def test_each_task_keeps_the_coverage_it_pinned() -> None:
    """A worker runs many turns at once: one turn's pin must not leak into another's."""
    seen: dict[str, list[str]] = {}

    async def turn(name: str, held: list[Company]) -> None:
        with pinned(held):
            await asyncio.sleep(0)
            seen[name] = find_companies("Osprey Lithium and Harbour Copper")

    before = coverage()
    await asyncio.gather(turn("a", [OSPREY]), turn("b", [HARBOUR]))
    assert seen == {"a": ["OSP"], "b": ["HBR"]}
    assert coverage() is before


def test_a_commodity_names_the_companies_that_produce_it() -> None:
    with pinned([OSPREY, HARBOUR]):
        remembered = read_preference("I only follow lithium miners")
    assert remembered is not None and remembered.preference is not None
    assert remembered.preference.value == "OSP"
    with pinned([HARBOUR]):  # nobody here produces lithium
        remembered = read_preference("I only follow lithium miners")
    assert remembered is None or remembered.preference is None


def test_the_sample_is_a_file_of_companies_not_code() -> None:
    sample = sample_coverage(Path(__file__).parents[2] / "corpus" / "reports")
    assert [c.ticker for c in sample] == ["BHP", "RIO", "FMG", "S32", "NST"]
    assert all(c.fiscal_years == (2023, 2024, 2025) for c in sample)
    assert next(c for c in sample if c.ticker == "RIO").calendar_year


def test_a_companies_file_that_describes_a_company_badly_names_it(tmp_path: Path) -> None:
    path = tmp_path / "companies.toml"
    path.write_text('[[company]]\nticker = "AB C"\nname = "A"\n', encoding="utf-8")
    with pytest.raises(CompaniesFileError, match="company 1"):
        read_companies_file(path)
    path.write_text('[[company]]\nticker = "ABC"\n', encoding="utf-8")
    with pytest.raises(CompaniesFileError, match="name"):
        read_companies_file(path)


def test_a_report_describes_its_own_company_or_the_folder_does(tmp_path: Path) -> None:
    own = tmp_path / "own.md"
    own.write_text(
        "---\ncompany: QRX\ncompany_name: Quartz Ridge Ltd\nfiscal_year: 2019\n"
        "period_end: 2019-09-30\ncurrency: C$\n---\n\n# Review\n\nRevenue rose.\n",
        encoding="utf-8",
    )
    doc = parse_document(own)
    assert doc.described is not None
    assert (doc.company, doc.fiscal_year, doc.described.year_end) == ("QRX", 2019, "09-30")
    assert doc.described.currency == "C$" and "quartz ridge" in doc.described.aliases

    folder = tmp_path / "reports"
    folder.mkdir()
    (folder / "companies.toml").write_text(
        '[[company]]\nticker = "TLM"\nname = "Tallow Metals"\nyear_end = "12-31"\n',
        encoding="utf-8",
    )
    listed = folder / "tallow.md"
    listed.write_text(
        "---\ncompany: Tallow Metals\nfiscal_year: 2020\n---\n\n# Review\n\nText.\n",
        encoding="utf-8",
    )
    doc = parse_document(listed)
    assert doc.company == "TLM" and doc.described is not None and doc.described.calendar_year

    unknown = tmp_path / "unknown.md"
    unknown.write_text("---\ncompany: ZZQ\nfiscal_year: 2020\n---\n\nText.\n", encoding="utf-8")
    with pytest.raises(DocumentError, match="register it with its name"):
        parse_document(unknown)


def test_a_name_is_known_by_the_shorthands_people_write_it_in() -> None:
    from domain.companies.roster import find_companies

    made_up = [
        Company("CRX", "Carrow Express Company", aliases_for("CRX", "Carrow Express Company")),
        Company("MNM", "Mason & Mason", aliases_for("MNM", "Mason & Mason")),
        Company("PLW", "Plover & Wren Ltd", aliases_for("PLW", "Plover & Wren Ltd")),
    ]
    with pinned(made_up):
        assert find_companies("Did CAREX grow its card fees?") == ["CRX"]
        assert find_companies("What did MnM earn in 2022?") == ["MNM"]
        assert find_companies("And M&M's margin?") == ["MNM"]
        assert find_companies("P&W sales last year") == ["PLW"]
        # Quiet: a place's initials are no company's ("PNG" is not "P&W" nor "PnW").
        assert find_companies("Our mine in PNG and the PW project") == []
