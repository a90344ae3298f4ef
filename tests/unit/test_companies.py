"""Company aliases resolve in any casing; mentions are found in order of first mention.

Also: tickers with their exchange, the companies' Chinese names, close misspellings (and
never ordinary words), and fragments that are ambiguous between two companies.
"""

import re

import pytest

from domain.companies.roster import (
    AliasIndex,
    Company,
    NameResolution,
    companies,
    find_companies,
    fiscal_years,
    normalise_ticker,
    resolve_name,
)


@pytest.mark.parametrize(
    ("value", "ticker"),
    [
        ("BHP", "BHP"),
        ("bhp group", "BHP"),
        ("  BHP   Group  Limited ", "BHP"),
        ("Rio Tinto", "RIO"),
        ("RIO TINTO PLC", "RIO"),
        ("fortescue", "FMG"),
        ("Fortescue Metals Group", "FMG"),
        ("south 32", "S32"),
        ("South32", "S32"),
        ("Northern Star Resources", "NST"),
        ("nst", "NST"),
    ],
)
def test_ticker_or_alias_in_any_casing_resolves_to_the_ticker(value: str, ticker: str) -> None:
    assert normalise_ticker(value) == ticker


@pytest.mark.parametrize("value", ["", "ACME", "Newmont", "rio tinto zinc", "BHPX"])
def test_unknown_company_resolves_to_none(value: str) -> None:
    assert normalise_ticker(value) is None


def test_find_companies_lists_tickers_in_order_of_first_mention_without_repeats() -> None:
    text = "Compare FORTESCUE with bhp, then Rio Tinto, then BHP Group again and fortescue."

    assert find_companies(text) == ["FMG", "BHP", "RIO"]


def test_find_companies_prefers_the_longest_alias() -> None:
    assert find_companies("Northern Star Resources Ltd and South32 Limited") == ["NST", "S32"]


def test_find_companies_ignores_aliases_inside_other_words() -> None:
    assert find_companies("For the period, the instance of a ribhp lot") == []


def test_find_companies_finds_nothing_in_a_question_without_a_company() -> None:
    assert find_companies("What was revenue in FY2024?") == []


def test_rio_tinto_alone_reports_calendar_years() -> None:
    assert companies()["RIO"].period_end(2024).isoformat() == "2024-12-31"
    assert companies()["BHP"].period_end(2024).isoformat() == "2024-06-30"
    assert fiscal_years() == (2023, 2024, 2025)


# --- name resolution: exchange suffixes, Chinese names, misspellings, ambiguity ---------


@pytest.mark.parametrize(
    ("value", "ticker"),
    [
        ("BHP.AX", "BHP"),
        ("bhp.ax", "BHP"),
        ("BHP:ASX", "BHP"),
        ("ASX:BHP", "BHP"),
        ("ASX: FMG", "FMG"),
        ("asx : fmg", "FMG"),
        ("FMG.AX", "FMG"),
        ("RIO.AX", "RIO"),
        ("S32.AX", "S32"),
        ("s32.ax", "S32"),
        ("NST.AX", "NST"),
        ("NST.ASX", "NST"),
        ("ASX：BHP", "BHP"),  # full-width colon, as a Chinese keyboard types it
    ],
)
def test_a_ticker_with_its_exchange_resolves(value: str, ticker: str) -> None:
    assert normalise_ticker(value) == ticker
    assert find_companies(f"How did {value} do in FY2024?") == [ticker]


@pytest.mark.parametrize("value", ["ACME.AX", "ASX:ACME", "ASX", "BHPX.AX", "ASX:BHP Group"])
def test_an_exchange_around_something_else_resolves_to_nothing(value: str) -> None:
    assert normalise_ticker(value) is None


def test_exchange_tickers_are_found_in_order_in_one_sentence() -> None:
    assert find_companies("Compare NST.AX with ASX:RIO, S32.AX and BHP:ASX") == [
        "NST",
        "RIO",
        "S32",
        "BHP",
    ]


@pytest.mark.parametrize(
    ("name", "ticker"),
    [
        ("必和必拓", "BHP"),
        ("力拓", "RIO"),
        ("福蒂斯丘", "FMG"),
        ("福特斯克", "FMG"),
        ("南32", "S32"),
        ("南三十二", "S32"),
        ("北方之星", "NST"),
    ],
)
def test_the_common_chinese_names_resolve(name: str, ticker: str) -> None:
    assert normalise_ticker(name) == ticker
    assert ticker in companies() and name in companies()[ticker].aliases
    # no spaces in Chinese: the name sits between other characters
    assert find_companies(f"{name}在2024年的收入是多少？") == [ticker]
    assert find_companies(f"请问{name}的净利润") == [ticker]


@pytest.mark.parametrize(
    ("text", "tickers"),
    [
        ("必和必拓2024年的收入是多少", ["BHP"]),
        ("力拓2023年的净利润", ["RIO"]),
        ("北方之星FY2025的黄金产量", ["NST"]),
        ("力拓和必和必拓哪个收入更高？", ["RIO", "BHP"]),
        ("比较北方之星与南32的黄金产量", ["NST", "S32"]),
        ("福蒂斯丘（FMG.AX）的股息", ["FMG"]),
        ("我们努力拓展业务", []),  # 力拓 inside 努力拓展 ("strive to expand")
        ("拓宽渠道，致力拓展市场", []),
        ("2024年的收入是多少", []),
    ],
)
def test_chinese_names_are_found_inside_chinese_sentences(text: str, tickers: list[str]) -> None:
    assert find_companies(text) == tickers


@pytest.mark.parametrize(
    ("value", "ticker"),
    [
        ("ＢＨＰ", "BHP"),  # full-width letters
        ("Río Tinto", "RIO"),
        ("South-32", "S32"),
        ("northern  star", "NST"),
    ],
)
def test_width_accents_and_separators_are_folded(value: str, ticker: str) -> None:
    assert normalise_ticker(value) == ticker
    assert find_companies(f"What did {value} earn?") == [ticker]


def test_an_alias_broken_across_lines_is_found() -> None:
    assert find_companies("revenue at Northern\nStar rose") == ["NST"]


@pytest.mark.parametrize(
    ("value", "ticker"),
    [
        ("Fortscue", "FMG"),
        ("Fortesque", "FMG"),
        ("Fortescues", "FMG"),
        ("fortscue metals", "FMG"),
        ("Northen Star", "NST"),
        ("Nothern Star", "NST"),
        ("Nothern Star Resources", "NST"),
        ("Soth32", "S32"),
        ("Soth 32", "S32"),
        ("Rio Tinot", "RIO"),
        ("BPH", "BHP"),
        ("HBP", "BHP"),
    ],
)
def test_close_misspellings_resolve(value: str, ticker: str) -> None:
    assert normalise_ticker(value) == ticker
    assert find_companies(f"What was {value}'s revenue in FY2024?") == [ticker]
    assert resolve_name(f"What was {value}'s revenue in FY2024?") == NameResolution([ticker], [])


def test_misspellings_and_exact_names_are_listed_in_order_of_mention() -> None:
    text = "Did Nothern Star beat BHP, Fortscue and RIO.AX, or did BPH beat Soth32?"

    assert find_companies(text) == ["NST", "BHP", "FMG", "RIO", "S32"]


def test_an_exact_alias_is_never_fuzzy_matched() -> None:
    # "Rio" is an exact alias, so "Rio Tinot" is Rio Tinto by its first word alone, and
    # "South32" next to its misspelling does not turn into a second mention
    assert resolve_name("Rio Tinot and South32 vs Soth32") == NameResolution(["RIO", "S32"], [])
    assert find_companies("BHP Group") == ["BHP"]


@pytest.mark.parametrize(
    "value",
    ["bph", "Bph", "hbp", "BPHX", "Fortress", "Fortuna", "Southern", "Nordstar", "Northern Stars"],
)
def test_near_misses_outside_the_rules_resolve_to_nothing(value: str) -> None:
    # lower-case three-letter tokens are words, not tickers; "Northern Stars" is two
    # ordinary words, so it is not taken for a misspelling either
    assert normalise_ticker(value) is None
    assert find_companies(f"What about {value}?") == []


@pytest.mark.parametrize(
    "acronym",
    [
        "EPS",
        "CEO",
        "CFO",
        "ASX",
        "USD",
        "AUD",
        "NPAT",
        "FY",
        "EBIT",
        "EBITDA",
        "ROE",
        "ESG",
        "LNG",
        "NSW",
        "WA",
        "CEO's",
        "ROI",
        "MFG",
        "NTS",
        "IRO",
        "GFM",
        "STN",
        "TSN",
        "ROCE",
        "TSR",
        "KPI",
        "HSE",
        "CO2",
        "LTI",
        "TRIF",
        "AGM",
        "IFRS",
        "GAAP",
    ],
)
def test_ordinary_acronyms_are_not_tickers(acronym: str) -> None:
    assert normalise_ticker(acronym) is None
    assert find_companies(f"What was the {acronym} in FY2024?") == []


# Ordinary question text must name no company, or only the one really named. This runs on
# every question and every answer sentence, so a false company here drops citations.
_ORDINARY_TEXT: list[tuple[str, list[str]]] = [
    ("What was the revenue in FY2024?", []),
    ("net debt", []),
    ("dividends", []),
    ("underlying EBITDA", []),
    ("Which company had the most debt?", []),
    ("Which miner had the highest margin in FY2023?", []),
    ("How did iron ore prices affect earnings?", []),
    ("north", []),
    ("star", []),
    ("stars", []),
    ("the northern stars of the sky", []),
    ("north star", []),
    ("fortune", []),
    ("fortunes", []),
    ("south", []),
    ("southern hemisphere", []),
    ("south 30 June", []),
    ("rio", ["RIO"]),
    ("tint", []),
    ("border", []),
    ("short", []),
    ("report", []),
    ("profit", []),
    ("growth", []),
    ("iron ore", []),
    ("copper", []),
    ("gold", []),
    ("shares", []),
    ("capital", []),
    ("expenditure", []),
    ("capital expenditure", []),
    ("production", []),
    ("guidance", []),
    ("outlook", []),
    ("safety", []),
    ("chair", []),
    ("chief executive", []),
    ("cash flow", []),
    ("operating", []),
    ("costs", []),
    ("margin", []),
    ("employees", []),
    ("acquired", []),
    ("sold", []),
    ("interim", []),
    ("final", []),
    ("restated", []),
    ("Bank", []),
    ("BHP Group", ["BHP"]),
    ("the", []),
    ("and", []),
    ("for", []),
    ("Fortescue's net debt", ["FMG"]),
    ("Did the group's metals business grow?", []),
    ("billion", []),
    ("What was the free cash flow in the northern region?", []),
    ("How many employees worked at the Northparkes mine?", []),
    ("Report the statutory profit after tax attributable to shareholders.", []),
    ("Which segment sold the most metal, and at what price?", []),
    ("What were total shareholder returns and the share buy-back?", []),
    ("Summarise the sustainability, safety and decarbonisation targets.", []),
    ("Was the final dividend franked, and what was the payout ratio?", []),
    ("Compare the start and end of the year for net debt.", []),
    ("How much did South Australia's copper operations produce?", []),
    ("What was Rio's underlying EBITDA?", ["RIO"]),
    ("What did Newmont, Newcrest and Santos report?", []),
    ("Sorry, I meant the other one.", []),
    ("Soft commodity prices and soaring costs hit margins.", []),
    ("Forecast FY2026 production: the forward outlook please.", []),
]


@pytest.mark.parametrize(("text", "tickers"), _ORDINARY_TEXT)
def test_ordinary_text_names_no_company_it_does_not_name(text: str, tickers: list[str]) -> None:
    assert resolve_name(text) == NameResolution(tickers, [])
    assert find_companies(text) == tickers


def test_the_negative_list_is_long_enough() -> None:
    assert len(_ORDINARY_TEXT) >= 40


def test_no_report_chunk_names_a_company_no_alias_names() -> None:
    """The sample reports (real prose and tables) produce no fuzzy mention: every company
    found in a chunk is named there by one of its aliases."""
    from tests.unit.corpus_chunks import corpus

    for chunk in corpus():
        lower = chunk.text.lower()
        exact = {
            c.ticker
            for c in companies().values()
            for a in c.aliases
            if re.search(rf"(?<![a-z0-9]){re.escape(a)}(?![a-z0-9])", lower)
        }
        found = resolve_name(chunk.text)
        assert set(found.tickers) <= exact, chunk.text[:200]
        assert found.ambiguous == []


def test_every_company_resolves_from_its_ticker_and_its_name() -> None:
    for company in companies().values():
        assert normalise_ticker(company.ticker) == company.ticker
        assert normalise_ticker(company.name) == company.ticker
        assert find_companies(f"About {company.name}.") == [company.ticker]


def test_find_companies_is_resolve_name_tickers() -> None:
    text = "Compare Fortscue, 力拓 and ASX:NST"

    assert find_companies(text) == resolve_name(text).tickers == ["FMG", "RIO", "NST"]


def _kestrels() -> AliasIndex:
    """Two made-up companies whose names are one letter apart."""
    return AliasIndex(
        [
            Company("KES", "Kestrel Mining", ("kes", "kestrel", "kestrel mining")),
            Company("KSL", "Kestral Gold", ("ksl", "kestral", "kestral gold")),
        ]
    )


def test_a_misspelling_close_to_two_companies_is_ambiguous() -> None:
    index = _kestrels()

    assert index.resolve("How did Kestrl do?") == NameResolution([], ["Kestrl"])
    assert index.value("Kestrl") is None


def test_exact_names_resolve_and_win_next_to_an_ambiguous_fragment() -> None:
    index = _kestrels()

    assert index.resolve("Kestrel vs Kestral") == NameResolution(["KES", "KSL"], [])
    assert index.resolve("Kestral, Kestrl") == NameResolution(["KSL"], ["Kestrl"])
    assert index.resolve("Kestrell Mining") == NameResolution(["KES"], [])


def test_resolution_is_frozen_and_results_are_not_shared() -> None:
    first = resolve_name("BHP and Rio Tinto")
    first.tickers.append("NST")

    assert resolve_name("BHP and Rio Tinto").tickers == ["BHP", "RIO"]
    with pytest.raises(AttributeError):
        first.tickers = []  # type: ignore[misc]


def test_an_alias_table_that_names_two_companies_is_refused() -> None:
    with pytest.raises(ValueError, match="names two companies"):
        AliasIndex([Company("AAA", "A", ("aaa", "same")), Company("BBB", "B", ("bbb", "same"))])
    with pytest.raises(ValueError, match="not normalised"):
        AliasIndex([Company("AAA", "A", ("aaa", "Capital Letters"))])
