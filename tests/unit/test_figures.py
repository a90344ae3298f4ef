"""Reading report tables into facts, writing figures in words, and comparing units."""

import pytest

from domain.models import ChunkText
from domain.reports.facts import metric_facts
from domain.reports.figures import (
    UNITS,
    IncompatibleUnits,
    Quantity,
    common_unit,
    difference,
    format_value,
    growth_percent,
    parse_number,
    rescale,
    to_base,
    unit_in_scale,
)
from tests.unit.corpus_chunks import corpus, tables


def table_chunk(table: str, *, company: str = "BHP", year: int = 2024) -> ChunkText:
    return ChunkText(
        chunk_id="c1",
        company=company,
        fiscal_year=year,
        page=4,
        section="Financial review",
        document=f"{company} Annual Report {year}",
        is_table=True,
        unit=None,
        text=f"[{company} · FY{year} · Financial review · page 4]\nTable:\n{table}",
    )


def test_bhp_fy2024_table_yields_revenue_with_its_header_unit() -> None:
    facts = [f for c in tables("BHP", 2024) for f in metric_facts(c)]
    revenue = next(f for f in facts if f.metric == "revenue")
    assert (revenue.value, revenue.unit, revenue.raw) == (55658.0, "us$m", "55,658")
    assert (revenue.fiscal_year, revenue.report_fiscal_year, revenue.restated) == (
        2024,
        2024,
        False,
    )
    assert revenue.page == 4 and revenue.document == "BHP Annual Report 2024"
    net_debt = next(f for f in facts if f.metric == "net_debt")
    assert (net_debt.value, net_debt.unit, net_debt.decimals) == (9.12, "us$bn", 2)


def test_restated_comparative_column_keeps_its_own_year_and_is_marked_restated() -> None:
    facts = [f for c in tables("S32", 2025) for f in metric_facts(c) if f.metric == "revenue"]
    by_year = {f.fiscal_year: f for f in facts}
    assert by_year[2025].value == 5780 and not by_year[2025].restated
    assert by_year[2024].value == 4923 and by_year[2024].restated
    assert by_year[2024].report_fiscal_year == 2025


def test_accounting_parentheses_are_negative() -> None:
    facts = [f for c in tables("S32", 2024) for f in metric_facts(c) if f.metric == "net_profit"]
    assert {f.fiscal_year: f.value for f in facts} == {2024: -203.0, 2023: -173.0}
    assert next(f for f in facts if f.fiscal_year == 2024).raw == "(203)"


def test_every_corpus_table_has_a_known_unit_and_classified_rows() -> None:
    facts = [f for c in corpus() if c.is_table for f in metric_facts(c)]
    assert facts
    assert {f.unit for f in facts} <= set(UNITS)
    assert all(f.metric is not None for f in facts)
    units = {(f.company, f.metric): f.unit for f in facts if f.metric == "dividends_per_share"}
    assert units[("FMG", "dividends_per_share")] == "a$"
    assert units[("NST", "dividends_per_share")] == "a cents"
    assert units[("BHP", "dividends_per_share")] == "us cents"


def test_renamed_row_still_classifies_and_unknown_unit_table_is_skipped() -> None:
    chunk = table_chunk("| US$M | FY2024 |\n|---|---|\n| Total sales revenue | 61,234 |")
    [fact] = metric_facts(chunk)
    assert (fact.metric, fact.value) == ("revenue", 61234.0)
    assert metric_facts(table_chunk("| Widgets | FY2024 |\n|---|---|\n| Revenue | 5 |")) == []


def test_a_metric_in_the_wrong_kind_of_unit_is_not_classified() -> None:
    chunk = table_chunk("| Mt | FY2024 |\n|---|---|\n| Revenue | 12 |")
    assert [f.metric for f in metric_facts(chunk)] == [None]


@pytest.mark.parametrize(
    ("cell", "parsed"),
    [
        ("55,658", (55658.0, "55,658", 0)),
        ("(173)", (-173.0, "(173)", 0)),
        ("-4.9", (-4.9, "-4.9", 1)),
        ("435.0", (435.0, "435.0", 1)),
        ("—", None),
        ("n/a", None),
        ("", None),
        ("(12", None),
    ],
)
def test_table_cells_parse_with_sign_and_precision(
    cell: str, parsed: tuple[float, str, int] | None
) -> None:
    assert parse_number(cell) == parsed


@pytest.mark.parametrize(
    ("value", "unit", "decimals", "metric", "text"),
    [
        (55658, "us$m", 0, None, "US$55,658 million"),
        (53.82, "us$bn", 2, None, "US$53.82 billion"),
        (26, "us$bn", 0, None, "US$26 billion"),
        (146, "us cents", 0, None, "146 US cents per share"),
        (6.0, "us cents", 1, None, "6.0 US cents per share"),
        (1.97, "a$", 2, None, "A$1.97 per share"),
        (26.5, "a cents", 1, None, "26.5 Australian cents per share"),
        (4131, "a$m", 0, None, "A$4,131 million"),
        (4.92, "a$bn", 2, None, "A$4.92 billion"),
        (263, "mt", 0, None, "263 Mt"),
        (1621, "koz", 0, None, "1,621 koz"),
        (1211, "kt", 0, None, "1,211 kt"),
        (-173, "us$m", 0, "net_profit", "a loss of US$173 million"),
        (-123, "us$m", 0, "net_debt", "net cash of US$123 million"),
        (53.82, "us$bn", None, None, "US$53.82 billion"),
    ],
)
def test_values_are_written_in_words_with_currency_and_unit(
    value: float, unit: str, decimals: int | None, metric: str | None, text: str
) -> None:
    assert format_value(value, unit, decimals, metric) == text


def test_billions_and_millions_share_a_base_so_growth_works_across_them() -> None:
    old, new = to_base(53.82, "us$bn"), to_base(55658, "us$m")
    assert old == Quantity(53820.0, "us$m")
    assert round(growth_percent(old, new), 1) == 3.4
    assert difference(new, old) == Quantity(1838.0, "us$m")
    assert to_base(1.97, "a$") == Quantity(197.0, "a cents")
    assert to_base(1211, "kt") == Quantity(1.211, "mt")


def test_different_currencies_or_kinds_are_never_combined() -> None:
    with pytest.raises(IncompatibleUnits):
        growth_percent(to_base(4131, "a$m"), to_base(5646, "us$m"))
    with pytest.raises(IncompatibleUnits):
        difference(to_base(146, "us cents"), to_base(1.97, "a$"))
    with pytest.raises(IncompatibleUnits):
        difference(to_base(263, "mt"), to_base(1621, "koz"))


def test_figures_side_by_side_share_the_coarsest_unit_of_their_base() -> None:
    assert common_unit(["us$m", "us$bn"]) == "us$bn"
    assert common_unit(["a cents", "a$"]) == "a$"
    assert common_unit(["kt", "mt"]) == "mt"
    assert common_unit(["us$m", "a$m"]) is None


def test_rescaling_keeps_the_reported_precision() -> None:
    assert rescale(5491, "us$m", 0, "us$bn") == (5.491, 3)
    assert rescale(9.12, "us$bn", 2, "us$m") == (9120.0, 0)
    assert rescale(40, "a cents", 0, "a$") == (0.4, 2)
    assert unit_in_scale("a$m", "bn") == "a$bn" and unit_in_scale("us cents", "bn") is None
    with pytest.raises(IncompatibleUnits):
        rescale(1, "us$m", 0, "a$m")
