"""Facts extracted at ingestion (`domain.reports.facts.report_facts`), measured on the sample
corpus.

Two oracles that do not use the extractor's code: every numeric cell of every markdown
table, read here with its column's year and its header's unit; and the prose figures of
`tests/answers/prose_figures.jsonl`, annotated by hand (file, page, figure, value, unit,
period and sentence). Tables must be covered completely, prose at 95% or more, each with
the right period and unit.
"""

import json
import re
from collections import defaultdict
from pathlib import Path

import pytest

from domain.companies.roster import Company, pinned
from domain.models import ChunkText
from domain.reports.facts import EXTRACTOR_VERSION, metric_prose_facts, report_facts
from domain.reports.figures import Fact, unit_spec
from ingestion.documents import parse_document

ROOT = Path(__file__).resolve().parents[2]
REPORTS = sorted((ROOT / "corpus" / "reports").glob("*.md"))
ANNOTATED = ROOT / "tests" / "answers" / "prose_figures.jsonl"

# The header units of the sample tables, as the annotation names them, and the unit
# key a fact of that column must carry.
HEADER_UNITS = {
    "us$m": "us$m",
    "us$ million": "us$m",
    "us$ millions": "us$m",
    "us$bn": "us$bn",
    "a$m": "a$m",
    "a$ million": "a$m",
    "a$ millions": "a$m",
    "us cents": "us cents",
    "a cents": "a cents",
    "australian cents": "a cents",
    "a$": "a$",
    "a$ per share": "a$",
    "%": "%",
    "mt": "mt",
    "kt": "kt",
    "koz": "koz",
    "moz": "moz",
}
PROSE_UNITS = {
    "US$ million": "us$m",
    "US$ billion": "us$bn",
    "A$ million": "a$m",
    "A$ billion": "a$bn",
    "US cents per share": "us cents",
    "Australian cents per share": "a cents",
    "A$ per share": "a$",
    "%": "%",
    "Mt": "mt",
    "kt": "kt",
    "koz": "koz",
    "Moz": "moz",
}
_CELL = re.compile(r"^\(?-?\d[\d,]*(?:\.\d+)?\)?$")
_YEAR = re.compile(r"(?:FY|CY)?\s?((?:19|20)\d{2})")


def _facts_by_file() -> dict[str, list[Fact]]:
    out: dict[str, list[Fact]] = {}
    for path in REPORTS:
        out[path.name] = [f for c in parse_document(path).chunks for f in report_facts(c)]
    return out


FACTS = _facts_by_file()


def _tables(text: str) -> list[list[list[str]]]:
    """The markdown tables of `text`, as rows of stripped cells (separator rows dropped)."""
    tables: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in [*text.splitlines(), ""]:
        if line.lstrip().startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-{3,}:?", c) for c in cells):
                current.append(cells)
        elif current:
            tables.append(current)
            current = []
    return tables


def _expected_cells() -> list[tuple[str, str, int, float, str]]:
    """(file, row label, column year, value, header unit) of every numeric cell."""
    out = []
    for path in REPORTS:
        report_year = int(re.search(r"FY(\d{4})", path.name).group(1))  # type: ignore[union-attr]
        for table in _tables(path.read_text(encoding="utf-8")):
            header, *rows = table
            unit = header[0].lower()
            years = [int(m.group(1)) if (m := _YEAR.search(h)) else report_year for h in header]
            for row in rows:
                for col, cell in enumerate(row[1:], start=1):
                    if not _CELL.match(cell.replace(" ", "")):
                        continue
                    value = float(cell.strip("()").replace(",", ""))
                    if cell.startswith("(") or cell.startswith("-"):
                        value = -abs(value)
                    out.append((path.name, row[0], years[col], value, unit))
    return out


def test_every_table_cell_is_a_fact_with_its_column_year_and_unit() -> None:
    cells = _expected_cells()
    assert len(cells) > 50  # the corpus has tables: the oracle read them
    problems = []
    for file, label, year, value, unit in cells:
        facts = [
            f
            for f in FACTS[file]
            if f.source == "table" and f.label == label and abs(f.value - value) < 1e-9
        ]
        if not facts:
            problems.append(f"{file}: {label} {value} is no fact")
            continue
        if not any(f.fiscal_year == year for f in facts):
            problems.append(
                f"{file}: {label} {value} dated {[f.fiscal_year for f in facts]}, expected {year}"
            )
        want = HEADER_UNITS.get(unit)
        if want is not None and not any(f.unit == want for f in facts):
            problems.append(f"{file}: {label} {value} unit {facts[0].unit}, expected {want}")
    assert not problems, "\n".join(problems)


def _unit_ok(expected: str, got: str) -> bool:
    if expected in PROSE_UNITS:
        return PROSE_UNITS[expected] == got
    squash = lambda u: re.sub(r"[\s-]", "", u.lower().lstrip("~"))  # noqa: E731
    return got.startswith("~") and squash(expected) == squash(got)


def test_prose_figures_are_facts_with_their_period_and_unit_at_95_percent() -> None:
    rows = [json.loads(line) for line in ANNOTATED.read_text().splitlines() if line.strip()]
    assert len(rows) >= 250
    by_page: dict[tuple[str, int], list[Fact]] = defaultdict(list)
    for file, facts in FACTS.items():
        for f in facts:
            if f.source == "prose":
                by_page[(file, f.page)].append(f)
    used: set[int] = set()
    right, wrong = 0, []
    for row in rows:
        near = [
            f
            for f in by_page[(row["file"], row["page"])]
            if abs(abs(f.value) - abs(row["value"])) < 1e-9 and id(f) not in used
        ]
        same = [f for f in near if f.context.strip() == row["sentence"].strip()]
        fact = (same or near or [None])[0]
        if fact is None:
            wrong.append(f"missing: {row['file']} p{row['page']} {row['figure']}")
            continue
        used.add(id(fact))
        period_ok = row["period"] is None or fact.fiscal_year == row["period"]
        if period_ok and _unit_ok(row["unit"], fact.unit):
            right += 1
        else:
            wrong.append(
                f"{row['file']} {row['figure']}: FY{fact.fiscal_year} {fact.unit}, "
                f"expected {row['period']} {row['unit']}"
            )
    assert right / len(rows) >= 0.95, "\n".join(wrong)
    # and nothing but figures: no fact of the prose the annotation does not hold
    extra = [f for facts in by_page.values() for f in facts if id(f) not in used]
    assert len(extra) <= 0.05 * len(rows), [(f.document, f.raw, f.label) for f in extra]


def _chunk(text: str, section: str = "Sustainability") -> ChunkText:
    return ChunkText(
        chunk_id="c1",
        company="ZZZ",
        fiscal_year=2026,
        document="ZZZ_FY2026.md",
        page=7,
        section=section,
        text=text,
        is_table="|" in text,
        unit=None,
    )


def test_a_new_measure_in_a_table_with_a_prior_year_column_and_a_row_unit() -> None:
    """Words no code names: a row's own unit, the comparative column's year, the sign."""
    text = (
        "| Environment | FY2026 | FY2025 |\n|---|---|---|\n"
        "| Water withdrawn (GL) | 412.5 | 398.1 |\n"
        "| Tailings storage facilities (number) | 17 | 19 |\n"
        "| Land rehabilitated (hectares) | (12) | 40 |\n"
    )
    facts = {(f.label, f.fiscal_year): f for f in report_facts(_chunk(text))}
    water = facts[("Water withdrawn (GL)", 2025)]
    assert (water.value, water.report_fiscal_year, water.unit) == (398.1, 2026, "~GL")
    assert facts[("Tailings storage facilities (number)", 2026)].value == 17
    assert facts[("Land rehabilitated (hectares)", 2026)].value == -12
    assert all(f.chunk_id == "c1" and f.page == 7 and f.source == "table" for f in facts.values())


def test_a_prose_figure_takes_the_period_its_sentence_names() -> None:
    text = (
        "Water withdrawn across our operations was 412.5 GL in FY2026, compared with "
        "398.1 GL in FY2025. We operated 17 tailings storage facilities at year end."
    )
    facts = report_facts(_chunk(text))
    by_value = {f.value: f for f in facts}
    assert by_value[412.5].fiscal_year == 2026 and by_value[398.1].fiscal_year == 2025
    assert by_value[412.5].unit == by_value[398.1].unit == "~GL"
    assert "water withdrawn" in by_value[412.5].label.lower()
    assert by_value[17].fiscal_year == 2026 and "tailings" in by_value[17].unit.lower()
    assert all(f.context and f.source == "prose" for f in facts)


@pytest.mark.parametrize(
    "sentence",
    [
        "BHP was added to the FTSE 100 in 2001.",
        "The results were released on 24 August 2023.",
        "See note 12 on page 44.",
        "Our 2030 goal is set out in Section 3.",
    ],
)
def test_names_dates_and_references_are_not_facts(sentence: str) -> None:
    assert report_facts(_chunk(sentence)) == []


def test_the_extractor_has_a_version_to_rebuild_stored_facts_by() -> None:
    assert isinstance(EXTRACTOR_VERSION, int) and EXTRACTOR_VERSION >= 1
    assert unit_spec("~GL").base == "~gl"


def test_a_figure_of_the_thing_a_sentence_compares_with_is_that_things() -> None:
    text = (
        "Our effective income tax rate differed from the U.S. statutory rate of 21% mainly "
        "because of foreign rates. The Group's TRIFR was 1.4, lower than the industry "
        "average of 3.1. The effective tax rate was 23.4% in FY2026."
    )
    by_value = {f.value: f for f in report_facts(_chunk(text))}
    assert by_value[21].label.lower().endswith("statutory rate")  # not the effective rate
    assert "industry average" in by_value[3.1].label.lower()
    # Quiet: the subject's own figure keeps the subject's label.
    assert "effective tax rate" in by_value[23.4].label.lower()
    assert "trifr" in by_value[1.4].label.lower()


def test_a_bare_dollar_amount_is_in_the_companys_reporting_currency() -> None:
    from domain.companies.roster import Company, aliases_for, pinned

    text = "A net benefit of $62 million due to tax credits lowered the rate."
    zzz = Company("ZZZ", "Zed Zed Zed Inc", aliases_for("ZZZ", "Zed Zed Zed Inc"), currency="A$")
    with pinned([zzz]):
        (fact,) = report_facts(_chunk(text))
    assert (fact.value, unit_spec(fact.unit).currency, unit_spec(fact.unit).kind) == (
        62,
        "A$",
        "money",
    )  # never a count of "due"
    # Quiet: a written currency is kept, whatever the company reports in.
    with pinned([zzz]):
        (fact,) = report_facts(_chunk("A net benefit of US$62 million due to tax credits."))
    assert unit_spec(fact.unit).currency == "US$"


def test_figures_listed_after_another_are_of_the_same_thing() -> None:
    """Words no code names: "A percent and B percent for 2026 and 2025, respectively", "X in
    2026 and Y in 2025", "X, Y and Z": each listed figure keeps the first one's label."""
    text = (
        "The royalty burden was 4.2 percent and 3.9 percent for 2026 and 2025, respectively. "
        "Tailings reprocessed were 12.5 Mt in FY2026 and 11.0 Mt in FY2025. "
        "Hedging reserves of $1.5 billion, $1.2 billion and $0.9 billion for 2026, 2025 and "
        "2024, respectively, are included."
    )
    facts = {(f.value, f.fiscal_year): f.label.lower() for f in report_facts(_chunk(text))}
    assert facts[(3.9, 2025)] == facts[(4.2, 2026)] == "royalty burden"
    assert "tailings reprocessed" in facts[(11.0, 2025)] == facts[(12.5, 2026)]
    assert facts[(0.9, 2024)] == facts[(1.2, 2025)] == facts[(1.5, 2026)]
    assert "hedging reserves" in facts[(0.9, 2024)]


def test_a_figure_with_words_of_its_own_keeps_its_own_label() -> None:
    text = "Revenue rose to $5.1 billion and operating costs to $3.2 billion in FY2026."
    labels = {f.value: f.label.lower() for f in report_facts(_chunk(text))}
    assert "revenue" in labels[5.1] and "costs" in labels[3.2] and "revenue" not in labels[3.2]


def test_a_percentage_is_no_amount_of_a_measure_the_vocabulary_names() -> None:
    """Ulta's "of net sales, SG&A expenses decreased to 23.6%" was a fact of revenue, so a
    share of sales gained the revenue metric's weight when "wages expense as a percent of
    net sales" was asked. Quiet: the amount in the same words keeps its metric."""
    text = (
        "As a percentage of net sales, SG&A expenses decreased to 23.6% in FY2026. "
        "Net sales increased to $10.2 billion in FY2026.\n\n"
        "| US$M | FY2026 | FY2025 |\n|---|---|---|\n"
        "| Net sales | 10,208 | 8,630 |\n| Operating income (as a percentage of net sales) | 16.1% "
        "| 15.0% |\n"
    )
    facts = report_facts(_chunk(text))
    by_value = {f.value: f for f in facts}
    assert by_value[23.6].metric is None and by_value[16.1].metric is None
    assert by_value[10.2].metric == "revenue" and by_value[10208].metric == "revenue"


def test_a_bulleted_list_run_into_one_line_is_read_item_by_item() -> None:
    """A PDF line ran an 8-K's bullets together ("... 12.5% • Company secured $13.2 billion
    in cash proceeds ..."): each figure's label came from the item before. And what a
    figure is "in" names it when its own words are only who did what."""
    text = (
        "• Company expects sales growth of 7.5% at the mid-point • Company secured $13.2 "
        "billion in cash proceeds from the offering • Company paid $2.1 billion in FY2026."
    )
    by_value = {f.value: f for f in report_facts(_chunk(text))}
    assert "cash proceeds" in by_value[13.2].label and "growth" not in by_value[13.2].label
    assert "sales growth" in by_value[7.5].label.lower()
    # Quiet: a time after "in" is the figure's period, not what it is.
    assert by_value[2.1].fiscal_year == 2026 and "FY2026" not in by_value[2.1].label


def test_numbers_of_an_address_are_not_figures() -> None:
    """Foot Locker's 8-K gave "New York, New York for FY2022 was 10,001" as the closest
    figure to a question about its CEO: a postcode and a street number are not figures.
    Quiet on counts and amounts written as reports write them."""
    text = (
        "Foot Locker, Inc., 330 West 34th Street, New York, New York 10001, announced the "
        "appointment. Our office at 240 St Georges Terrace, Perth WA 6000 employs 1,200 "
        "people, and the fleet has 737 aircraft."
    )
    values = {f.value for f in report_facts(_chunk(text))}
    assert not values & {330, 10001, 240, 6000}
    assert {1200, 737} <= values


def test_numbers_of_an_identifier_are_not_figures() -> None:
    """A Form 8-K's cover gave "New Jersey 1- | 3215" and "Including area code: | 732" as
    figures: a file number, a tax id and a telephone are identifiers. Quiet on a range of
    years and a range of counts."""
    text = (
        "Delaware 1-4471 36-2984512 (Commission File Number) (IRS Employer Identification "
        "No.) Telephone, including area code: 612-555-0190. Revenue rose to US$310 million, "
        "and we opened 15-20 stores in the 2023-2024 season."
    )
    values = {f.value for f in report_facts(_chunk(text))}
    assert not values & {1, 4471, 36, 2984512, 612, 555, 190}, values
    assert 310 in values


def test_a_schedule_of_years_to_come_is_no_years_figures() -> None:
    """Boeing's FY2022 10-K prints expected benefit payments for 2023 to "2028-2032": the
    columns were read as fiscal years, so the company was covered up to FY2032 and each
    cell was a fact of a year no report has given. Its first column, the year ahead, is
    part of the schedule too (two or more years to come: no guidance); the comparatives
    stay periods."""
    text = (
        "| US$M | FY2027 | FY2028 | FY2029 | FY2030 | 2031-2035 |\n|---|---|---|---|---|---|\n"
        "| Pensions | 5,348 | 4,473 | 4,404 | 4,325 | 19,560 |\n\n"
        "| US$M | FY2026 | FY2025 |\n|---|---|---|\n| Revenue | 1,200 | 1,100 |\n"
    )
    years = {f.fiscal_year for f in report_facts(_chunk(text))}
    assert years == {2025, 2026}


def test_a_figure_its_sentence_says_is_a_quarters_is_no_whole_years() -> None:
    """An earnings release's bullets: the quarter's figures name the year too, and are
    not that year's; the full year's, said after, are."""
    text = (
        "• 2026 Third-Quarter net bookings of US$1.46 billion rising 12.0% and adjusted "
        "margin of 31.5%\n"
        "• 2026 Full-Year net bookings of US$5.90 billion rising 8.2%\n"
        "• Revenue for the nine months ended 30 September 2026 was US$4.21 billion.\n"
        "• Over the quarter the plant ran 6,400 hours; for the year, it ran 25,100 hours."
    )
    by_value = {f.value: f for f in report_facts(_chunk(text, "Highlights"))}
    assert by_value[1.46].period_months == 3 and not by_value[1.46].annual
    assert by_value[31.5].period_months == 3
    assert by_value[4.21].period_months == 9
    assert by_value[5.9].annual and by_value[5.9].fiscal_year == 2026
    assert by_value[25100].annual and by_value[6400].period_months == 3


def test_a_balance_sheet_row_is_no_years_amount_of_a_flow_measure() -> None:
    """Ulta's "Deferred revenue" (a liability on its balance sheet) was read as revenue and
    shown as its revenue at high confidence. Quiet: the income statement's revenue, and
    net debt, a balance, on a balance sheet."""
    balances = (
        "| US$M | January 28, 2026 | January 29, 2025 |\n|---|---|---|\n"
        "| Deferred revenue | 41,098 | 38,500 |\n| Net debt | 1,200 | 1,450 |\n"
    )
    flows = "| US$M | FY2026 | FY2025 |\n|---|---|---|\n| Total revenue | 10,208 | 8,630 |\n"
    sheet = {f.label: f for f in report_facts(_chunk(balances, "Consolidated Balance Sheets"))}
    assert sheet["Deferred revenue"].metric is None
    assert sheet["Net debt"].metric == "net_debt"
    statement = report_facts(_chunk(flows, "Consolidated Statements of Income"))
    assert {f.metric for f in statement} == {"revenue"}


def test_a_sentences_figure_of_a_named_quarter_ends_where_that_quarter_ends() -> None:
    """A current report's "a charge of about $310 million in the second quarter of 2026"
    is that quarter's: bound to its end by the company's own year (a year to 30 September:
    Q2 of FY2026 ends 31 March 2026), so a question about the quarter finds it. Quiet: a
    figure of the year has no quarter's end, nor one of "six months ended"."""
    text = (
        "Following the sale of its rail division, the Group will record a charge of about "
        "$310 million in the second quarter of 2026. Revenue for the year was $4.2 billion. "
        "Revenue for the six months ended 31 March 2026 was $2.0 billion."
    )
    company = Company("ZZZ", "Zeta Rail", aliases=("zzz", "zeta rail"), year_end="09-30")
    with pinned([company]):
        by_value = {f.value: f for f in report_facts(_chunk(text, "Current report"))}
    assert by_value[310].period_months == 3
    assert by_value[310].period_end == "2026-03-31"
    assert by_value[4.2].annual and by_value[4.2].period_end is None
    assert by_value[2.0].period_months == 6 and by_value[2.0].period_end is None


def test_the_article_before_a_dollar_sign_is_no_currency() -> None:
    """A 10-K's "mainly due to a $10.5 billion decrease in ... and a $6.3 billion
    decrease in repayments of debt" had its figures read in Australian dollars ("a $" as
    "A$"). Quiet: a report that writes "A$" means them."""
    company = Company("ZZZ", "Zeta Rail", aliases=("zzz", "zeta rail"), currency="US$")
    text = (
        "Cash used in financing decreased $4.9 billion, mainly due to a $2.5 billion "
        "decrease in share buybacks and A$1.1 billion of notes repaid in Sydney."
    )
    with pinned([company]):
        units = {f.value: f.unit for f in report_facts(_chunk(text, "Cash flows"))}
    assert units[4.9] == units[2.5] == "us$bn", units
    assert units[1.1] == "a$bn", units


def _metric_prose(sentence: str) -> list[tuple[str | None, int, float, str]]:
    """The vocabulary's prose facts of one sentence under a chunk's first (header) line."""
    chunk = _chunk(f"[ZZZ FY2026 p.7 Operating and financial review]\n{sentence}")
    return [(f.metric, f.fiscal_year, f.value, f.label) for f in metric_prose_facts(chunk)]


def test_two_figures_written_alike_in_one_sentence_are_each_read_with_their_own_metric() -> None:
    assert _metric_prose(
        "Revenue was US$1,000 million and underlying EBITDA was US$1,000 million."
    ) == [
        ("revenue", 2026, 1000.0, "Revenue"),
        ("underlying_ebitda", 2026, 1000.0, "Underlying EBITDA"),
    ]
    assert _metric_prose(
        "Underlying EBITDA was US$500 million while revenue of US$500 million was flat."
    ) == [
        ("underlying_ebitda", 2026, 500.0, "Underlying EBITDA"),
        ("revenue", 2026, 500.0, "Revenue"),
    ]


def test_a_figure_of_the_chunks_year_is_kept_beside_another_years_and_labelled_by_its_metric() -> (
    None
):
    # The reader binds each figure to its own year: the prior year's is no fact of FY2026.
    assert _metric_prose(
        "Net debt was US$11.2 billion at 30 June 2026, compared with US$0.3 billion in FY2025."
    ) == [("net_debt", 2026, 11.2, "Net debt")]


def test_a_figure_whose_sentence_names_no_metric_before_it_is_no_metric_fact() -> None:
    assert (
        _metric_prose(
            "The Group forecasts include the scheduled repayment of US$1 million of debt."
        )
        == []
    )
    assert _metric_prose("The board met 11 times during the year.") == []
