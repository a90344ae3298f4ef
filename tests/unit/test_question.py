"""Reading questions into slots: companies, fiscal years, metrics and intent."""

import pytest

from domain.language.units import requested_currency, requested_scale
from domain.questions.metrics import (
    DIVIDEND_COMPONENT,
    HEADLINE_METRICS,
    LINE_ITEM_OF,
    METRICS,
    find_metrics,
    metric_display,
    metric_of_row_label,
)
from domain.questions.question import extract_slots
from domain.questions.years import find_fiscal_years, mentioned_years_outside


@pytest.mark.parametrize(
    ("text", "companies"),
    [
        ("What was Rio's revenue?", ["RIO"]),
        ("rio tinto net debt", ["RIO"]),
        ("Fortescue Metals dividends", ["FMG"]),
        ("fmg capex", ["FMG"]),
        ("FORTESCUE revenue", ["FMG"]),
        ("South 32 EBITDA", ["S32"]),
        ("s32 underlying earnings", ["S32"]),
        ("Northern Star Resources gold sold", ["NST"]),
        ("BHP Billiton revenue", ["BHP"]),
        ("Compare NST, bhp and Rio Tinto", ["NST", "BHP", "RIO"]),
        ("What was the revenue?", []),
    ],
)
def test_companies_are_found_by_name_ticker_or_alias_in_any_casing(
    text: str, companies: list[str]
) -> None:
    assert extract_slots(text).companies == companies


@pytest.mark.parametrize(
    ("text", "years"),
    [
        ("BHP revenue FY2024", [2024]),
        ("BHP revenue FY24", [2024]),
        ("BHP revenue fy 2024", [2024]),
        ("BHP revenue in 2024", [2024]),
        ("BHP revenue 2023-24", [2024]),
        ("BHP revenue 2023/24", [2024]),
        ("BHP revenue for the year ended 30 June 2024", [2024]),
        ("Rio revenue for the year ended 31 December 2024", [2024]),
        ("latest BHP dividend", [2025]),
        ("most recent Rio net debt", [2025]),
        ("BHP revenue this year", [2025]),
        ("BHP revenue FY2023 to FY2025", [2023, 2024, 2025]),
        ("BHP revenue from FY23 to FY24", [2023, 2024]),
        ("BHP revenue between 2023 and 2025", [2023, 2024, 2025]),
        ("BHP revenue over the three years", [2023, 2024, 2025]),
        ("BHP revenue for all years", [2023, 2024, 2025]),
        ("BHP revenue in FY2023 and FY2025", [2023, 2025]),
        ("BHP revenue", []),
        ("BHP revenue of US$55,658 million", []),
        ("BHP revenue for the year ended 30 June 2024, in US$ millions", [2024]),
        ("BHP revenue in 2024. And in 2025?", [2024, 2025]),
        ("BHP revenue of 2024,5 million", []),
    ],
)
def test_fiscal_year_forms_are_understood(text: str, years: list[int]) -> None:
    assert extract_slots(text).fiscal_years == years


def test_years_outside_coverage_are_reported_not_kept() -> None:
    assert find_fiscal_years("BHP revenue FY2021") == []
    assert mentioned_years_outside("BHP revenue FY2021") == [2021]
    assert find_fiscal_years("BHP revenue FY2021 to FY2023") == [2023]
    assert mentioned_years_outside("BHP revenue FY2021 to FY2023") == [2021, 2022]
    assert mentioned_years_outside("BHP revenue FY2024") == []


@pytest.mark.parametrize(
    ("text", "metrics"),
    [
        ("BHP revenue", ["revenue"]),
        ("BHP sales", ["revenue"]),
        ("BHP turnover", ["revenue"]),
        ("BHP top line", ["revenue"]),
        ("South32 underlying revenue", ["underlying_revenue"]),
        ("BHP EBITDA", ["underlying_ebitda"]),
        ("BHP underlying EBITDA", ["underlying_ebitda"]),
        ("BHP net profit", ["net_profit"]),
        ("Fortescue NPAT", ["net_profit"]),
        ("BHP profit after tax", ["net_profit"]),
        ("BHP attributable profit", ["net_profit"]),
        ("Rio net earnings", ["net_profit"]),
        ("NST statutory profit", ["net_profit"]),
        ("BHP bottom line", ["net_profit"]),
        ("BHP net income", ["net_profit"]),
        ("BHP earnings", ["net_profit"]),
        ("BHP underlying attributable profit", ["underlying_profit"]),
        ("Rio underlying earnings", ["underlying_profit"]),
        ("FMG underlying NPAT", ["underlying_profit"]),
        ("BHP underlying profit", ["underlying_profit"]),
        ("BHP dividend", ["dividends_per_share"]),
        ("BHP payout", ["dividends_per_share"]),
        ("BHP distribution per share", ["dividends_per_share"]),
        ("BHP net debt", ["net_debt"]),
        ("NST net cash", ["net_debt"]),
        ("BHP debt", ["net_debt"]),
        ("BHP capital expenditure", ["capex"]),
        ("BHP capex", ["capex"]),
        ("BHP capital and exploration expenditure", ["capex"]),
        ("Rio purchases of property, plant and equipment", ["capex"]),
        ("BHP investment spend", ["capex"]),
        ("BHP production", ["production"]),
        ("Rio output", ["production"]),
        ("FMG shipments", ["production"]),
        ("NST gold sold", ["production"]),
        ("S32 aluminium production", ["production"]),
        ("How much iron ore did Fortescue ship?", ["production"]),
        ("BHP revenue and net debt", ["revenue", "net_debt"]),
        ("Tell me about BHP", []),
    ],
)
def test_metric_synonyms_map_to_canonical_keys(text: str, metrics: list[str]) -> None:
    assert find_metrics(text) == metrics


@pytest.mark.parametrize(
    ("label", "metric"),
    [
        ("Revenue", "revenue"),
        ("Consolidated sales revenue", "revenue"),
        ("Revenue from continuing operations", "revenue"),
        ("Total sales revenue", "revenue"),
        ("Underlying revenue", "underlying_revenue"),
        ("Underlying EBITDA", "underlying_ebitda"),
        ("Attributable profit", "net_profit"),
        ("Profit/(loss) after tax attributable to members", "net_profit"),
        ("Net earnings", "net_profit"),
        ("Statutory NPAT", "net_profit"),
        ("Net profit after tax (NPAT)", "net_profit"),
        ("Underlying attributable profit", "underlying_profit"),
        ("Underlying earnings", "underlying_profit"),
        ("Underlying NPAT", "underlying_profit"),
        ("Total dividends per share", "dividends_per_share"),
        ("Ordinary dividend per share", "dividends_per_share"),
        ("Ordinary dividends per share", "dividends_per_share"),
        ("Interim dividend", "dividends_per_share_interim"),
        ("Half-year dividend", "dividends_per_share_interim"),
        ("Final dividend", "dividends_per_share_final"),
        ("Final ordinary dividend per share", "dividends_per_share_final"),
        ("Special dividend", DIVIDEND_COMPONENT),
        ("Net debt", "net_debt"),
        ("Net cash", "net_debt"),
        ("Net debt / (net cash)", "net_debt"),
        ("Capital and exploration expenditure", "capex"),
        ("Capital expenditure", "capex"),
        ("Purchases of property, plant and equipment and intangible assets", "capex"),
        ("Pilbara iron ore production (100%)", "production"),
        ("Iron ore production (BHP share)", "production"),
        ("Iron ore shipments", "production"),
        ("Gold sold", "production"),
        ("Aluminium production", "production"),
        ("Earnings per share", None),
        ("Profit before tax", None),
        ("Underlying EBITDA margin", None),
        ("Iron ore revenue", None),
        ("Number of employees", None),
    ],
)
def test_report_row_labels_classify_by_words_not_exact_labels(
    label: str, metric: str | None
) -> None:
    assert metric_of_row_label(label) == metric


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("How did BHP revenue grow?", "change"),
        ("BHP revenue growth FY2023 to FY2025", "change"),
        ("Did Rio's net debt increase?", "change"),
        ("Why did Fortescue's profit fall?", "narrative"),
        ("What did BHP's chair say about safety?", "narrative"),
        ("What did Northern Star acquire?", "narrative"),
        ("What is the outlook for Rio Tinto?", "narrative"),
        ("Rio revenue trend", "change"),
        ("Compare BHP and Rio revenue", "compare"),
        ("BHP vs Rio EBITDA", "compare"),
        ("BHP versus Fortescue dividends", "compare"),
        ("Which had higher revenue, BHP or Rio?", "compare"),
        ("Difference between BHP and Rio net debt", "compare"),
        ("BHP and Rio revenue FY2024", "compare"),
        ("Tell me about BHP", "overview"),
        ("How did Rio do?", "overview"),
        ("What was BHP's revenue in FY2024?", "lookup"),
        ("What was the revenue in FY2024?", "lookup"),
    ],
)
def test_intent_follows_the_question_words(text: str, intent: str) -> None:
    assert extract_slots(text).intent == intent


def test_every_metric_has_a_display_name_and_report_terms() -> None:
    for metric in METRICS.values():
        assert metric.display and metric.report_terms
    assert metric_display("net_profit") == "net profit after tax"
    assert metric_display("underlying_ebitda") == "underlying EBITDA"
    assert set(HEADLINE_METRICS) <= set(METRICS)


@pytest.mark.parametrize(
    ("text", "metrics"),
    [
        ("What was BHP's interim dividend in FY2024?", ["dividends_per_share_interim"]),
        ("South32 final dividend FY2023", ["dividends_per_share_final"]),
        ("BHP profit including non-controlling interests", ["net_profit_total"]),
        ("Northern Star statutory NPAT", ["net_profit"]),
        ("Northern Star underlying NPAT", ["underlying_profit"]),
        ("BHP total dividends", ["dividends_per_share"]),
        ("What is BHP's strategy for copper?", []),
        ("How much copper did BHP produce?", ["production"]),
    ],
)
def test_line_items_are_their_own_metrics(text: str, metrics: list[str]) -> None:
    assert extract_slots(text).metrics == metrics


def test_every_line_item_names_a_total_the_reports_carry() -> None:
    for item, total in LINE_ITEM_OF.items():
        assert item in METRICS and total in METRICS and item != total


@pytest.mark.parametrize(
    ("text", "scale", "currency"),
    [
        ("BHP revenue in billions FY2024", "bn", None),
        ("Rio net debt in US$m", "m", None),
        ("Fortescue revenue in A$ million", "m", "A$"),
        ("BHP revenue in Australian dollars", None, "A$"),
        ("Northern Star revenue in euros", None, "euros"),
        ("BHP revenue in AUD terms", None, "A$"),
        ("What was BHP's revenue in FY2024?", None, None),
        ("Was BHP's revenue above US$50 billion?", None, None),
        ("BHP in M&A news", None, None),
    ],
)
def test_the_scale_and_currency_a_question_asks_for(
    text: str, scale: str | None, currency: str | None
) -> None:
    assert (requested_scale(text), requested_currency(text)) == (scale, currency)


def test_the_next_years_report_is_searched_for_a_named_year_and_few_companies() -> None:
    from domain.questions.years import later_report_years

    named = extract_slots("What was BHP's revenue in FY2024?")
    assert later_report_years(named, [2024], 1) == [2025]
    assert later_report_years(named, [2025], 1) == []  # no FY2026 report
    assert later_report_years(named, [2024], 3) == []  # a wide comparison stays in its year
    unnamed = extract_slots("What was BHP's revenue?")
    assert later_report_years(unnamed, [2023, 2024, 2025], 1) == []
