"""Statement layouts the five committed ASX reports do not print, laid out word by word
as a PDF places them: a wide table whose label column is narrow, and quarter and
full-year column groups side by side (an earnings release's first page)."""

from ingestion.layout import Line, Word, lines_of
from ingestion.statements import ReadContext, find_tables


def _line(top: float, *cells: tuple[str, float]) -> list[Word]:
    """Words of one line: each cell's words from its left edge, 5.5 points a letter."""
    words = []
    for text, x0 in cells:
        x = x0
        for part in text.split():
            words.append(Word(part, x, x + 5.5 * len(part), top, top + 9, 9.0))
            x += 5.5 * len(part) + 3
    return words


def _page(*rows: list[Word]) -> list[Line]:
    return lines_of([w for row in rows for w in row])


def _release_page() -> list[Line]:
    return _page(
        _line(40, ("OVERALL FINANCIAL RESULTS", 41)),
        _line(60, ("Q4", 285), ("Full Year", 463)),
        _line(
            75,
            ("($ in Millions, except EPS)", 47),
            ("2022", 221),
            ("2021", 277),
            ("% Change", 325),
            ("2022", 412),
            ("2021", 468),
            ("% Change", 516),
        ),
        _line(
            90,
            ("Reported Sales", 47),
            ("$23,706", 214),
            ("$24,804", 271),
            ("(4.4)%", 334),
            ("$94,943", 406),
            ("$93,775", 462),
            ("1.3%", 528),
        ),
        _line(
            105,
            ("Net Earnings", 47),
            ("$3,520", 217),
            ("$4,736", 273),
            ("(25.7)%", 331),
            ("$17,941", 406),
            ("$20,878", 462),
            ("(14.1)%", 523),
        ),
        _line(
            120,
            (
                "The release continues with a sentence of prose that runs across "
                "the page and ends here.",
                41,
            ),
        ),
    )


def test_a_narrow_label_column_keeps_its_first_column_of_figures() -> None:
    tables, _ = find_tables(_release_page(), ReadContext(year_end="12-31", fiscal_year=2022))

    assert len(tables) == 1
    sales = next(r for r in tables[0].rows if r.label == "Reported Sales")
    assert sales.values[:2] == ["23,706", "24,804"]
    assert sales.values[3:5] == ["94,943", "93,775"]


def test_a_quarters_columns_are_three_months_and_the_full_years_are_annual() -> None:
    tables, _ = find_tables(_release_page(), ReadContext(year_end="12-31", fiscal_year=2022))

    cells = [c.cell for c in tables[0].columns]
    assert cells[0].startswith("Q4 FY2022 (3 months to 31 Dec 2022)")
    assert "3 months" not in cells[3] and "FY2022" in cells[3]


def test_a_number_after_words_in_a_sentence_is_no_column() -> None:
    """Quiet: prose whose last word is a figure, set with a word space, is no table."""
    page = _page(
        _line(40, ("Operating cash flow for the year rose by a fifth to $2,310 and 1,020", 41)),
        _line(55, ("and net debt fell over the same twelve months to $1,020 from 1,310", 41)),
    )
    tables, _ = find_tables(page, ReadContext(year_end="12-31", fiscal_year=2022))
    assert tables == []


def _results_page() -> list[Line]:
    """A 10-K's results table: two year columns and a change column whose header, "%
    change", sits on the line above the years beside a caption over them."""
    return _page(
        _line(40, ("The following table presents selected highlights (in millions):", 41)),
        _line(60, ("Year ended December 31,", 300), ("% change", 480)),
        _line(75, ("2022", 300), ("2021", 390), ("22 vs. 21", 480)),
        _line(
            90,
            ("Income before income taxes", 41),
            ("$", 280),
            ("1,797", 300),
            ("$", 370),
            ("2,426", 390),
            ("(26%)", 490),
        ),
        _line(
            105, ("Provision for income taxes", 41), ("(411)", 298), ("(491)", 388), ("16%", 495)
        ),
        _line(120, ("Effective tax rate", 41), ("23%", 306), ("20%", 396)),
    )


def test_a_change_column_heads_itself_and_its_percentages_are_no_periods() -> None:
    """A "% change" header spanned the year column beside it ("change FY2021", the whole
    table in %), and a percentage cell ("23%", "(26%)") was no number at all, so a 10-K's
    effective tax rate was never a fact."""
    tables, _ = find_tables(_results_page(), ReadContext(year_end="12-31", fiscal_year=2022))

    assert len(tables) == 1
    columns = tables[0].columns
    assert [c.cell for c in columns[:2]] == ["FY2022 (31 Dec 2022)", "FY2021 (31 Dec 2021)"]
    assert "FY" not in columns[2].cell and "%" not in columns[0].unit + columns[1].unit
    rate = next(r for r in tables[0].rows if r.label == "Effective tax rate")
    assert rate.values[:2] == ["23%", "20%"]
    income = next(r for r in tables[0].rows if r.label == "Income before income taxes")
    assert income.values == ["1,797", "2,426", "(26%)"]


def test_percentage_cells_are_read_with_their_unit() -> None:
    """Quiet on a plain number; "22.9%" and "(26%)" are percentages, not text."""
    from domain.reports.figures import cell_unit, parse_number

    assert parse_number("22.9%") == (22.9, "22.9%", 1)
    assert parse_number("(26%)") == (-26.0, "(26%)", 0)
    assert parse_number("1,797") == (1797.0, "1,797", 0)
    assert cell_unit("US$M", "Effective tax rate", "22.9%") == "%"
    assert cell_unit("US$M", "Income before income taxes", "1,797") == "US$M"


def _common_size_page() -> list[Line]:
    """An income statement with a share column beside each amount ("Amount  Percent to
    Sales" under one year, centred over the pair), the first figure of a row set after a
    "$" standing alone, and an increase column."""
    return _page(
        _line(40, ("Condensed Consolidated Statement of Earnings", 41)),
        _line(55, ("(in Millions)", 41), ("SECOND QUARTER", 330)),
        _line(70, ("2023", 262), ("2022", 392), ("Percent", 470)),
        _line(85, ("Percent", 282), ("Percent", 412), ("Increase", 470)),
        _line(
            100,
            ("Amount", 220),
            ("to Sales", 282),
            ("Amount", 350),
            ("to Sales", 412),
            ("(Decrease)", 470),
        ),
        _line(
            115,
            ("Sales to customers", 41),
            ("$", 205),
            ("25,530", 221),
            ("100.0", 290),
            ("$", 335),
            ("24,020", 351),
            ("100.0", 420),
            ("6.3", 487),
        ),
        _line(
            130,
            ("Cost of products sold", 41),
            ("8,212", 226),
            ("32.2", 295),
            ("7,919", 356),
            ("33.0", 425),
            ("3.7", 487),
        ),
        _line(
            145,
            ("Other (income) expense, net", 41),
            ("(60)", 231),
            ("(0.2)", 290),
            ("273", 361),
            ("1.1", 425),
        ),
        _line(
            160,
            ("Net earnings", 41),
            ("$", 205),
            ("5,144", 226),
            ("20.1", 295),
            ("$", 335),
            ("4,814", 356),
            ("20.0", 425),
            ("6.9", 487),
        ),
    )


def test_a_share_column_beside_an_amount_is_a_percentage_of_its_period() -> None:
    """The year centred over "Amount  Percent to Sales" set the labels' end past the amount
    column, so "Cost of products sold 8,212" was a label and the share column no period's;
    J&J's quarter share of net earnings (20.1%) could not be read."""
    from domain.models import ChunkText
    from domain.reports.facts import report_facts

    tables, _ = find_tables(_common_size_page(), ReadContext(year_end="12-31", fiscal_year=2023))
    assert len(tables) == 1
    rows = {r.label: r.values for r in tables[0].rows}
    assert rows["Cost of products sold"][:4] == ["8,212", "32.2", "7,919", "33.0"]
    assert rows["Sales to customers"][0] == "25,530" and rows["Net earnings"][1] == "20.1"
    chunk = ChunkText(
        chunk_id="c",
        company="ZZZ",
        fiscal_year=2023,
        page=10,
        document="d",
        section="",
        is_table=True,
        unit="US$M",
        text="\n\n".join(tables[0].markdown()),
    )
    facts = {(f.label, f.fiscal_year, f.unit): f for f in report_facts(chunk)}
    share = facts[("Net earnings as a percent of sales", 2023, "%")]
    assert share.value == 20.1 and share.metric is None
    assert facts[("Net earnings as a percent of sales", 2022, "%")].value == 20.0
    # Quiet: the amounts keep their label, unit and metric.
    earnings = facts[("Net earnings", 2023, "us$m")]
    assert earnings.value == 5144 and earnings.metric == "net_profit"
    assert not any(f.value == 6.9 for f in facts.values())  # the increase is no period's


def test_one_phrase_centred_over_the_table_heads_every_column() -> None:
    """J&J's release set "Q2" centred over "2023  2022  % Change": further than a column's
    spacing from the 2023 column, which was then read as the fiscal year's (its net
    earnings of the quarter said as FY2023's). Quiet: "Q4" and "Full Year" over their own
    columns each head theirs only (the test of a quarter's columns above)."""
    page = _page(
        _line(40, ("Q2", 338)),
        _line(
            55, ("($ in Millions, except EPS)", 47), ("2023", 261), ("2022", 327), ("% Change", 388)
        ),
        _line(70, ("Reported Sales", 47), ("$25,530", 255), ("$24,020", 321), ("6.3%", 399)),
        _line(85, ("Net Earnings/(Loss)", 47), ("$5,144", 258), ("$4,814", 324), ("6.9%", 399)),
    )
    tables, _ = find_tables(page, ReadContext(year_end="12-31", fiscal_year=2023))
    cells = [c.cell for c in tables[0].columns]
    assert cells[0].startswith("Q2 FY2023 (3 months") and cells[1].startswith("Q2 FY2022 (3 m")


def test_a_percent_sign_set_apart_from_its_number_is_part_of_the_cell() -> None:
    """Boeing's 10-K sets "(0.6)%" but "14.8  %", and "(7.0%)" in brackets: the row was
    read as a label ("Effective income tax rate (0.6)% 14.8 % 17.5 %") with no figures."""
    from domain.reports.figures import cell_unit

    page = _page(
        _line(40, ("(Dollars in millions)", 19), ("2022", 395), ("2021", 484), ("2020", 568)),
        _line(55, ("Revenues", 19), ("66,608", 380), ("62,286", 469), ("58,158", 553)),
        _line(
            70,
            ("Effective income tax rate", 19),
            ("(0.6)%", 384.4),
            ("14.8", 471.8),
            ("%", 494.8),
            ("17.5", 561.1),
            ("%", 584.1),
        ),
        _line(
            85,
            ("Core operating margins", 19),
            ("(7.0%)", 384.9),
            ("(6.5%)", 473.8),
            ("(24.3%)", 558.1),
        ),
    )
    tables, _ = find_tables(page, ReadContext(year_end="12-31", fiscal_year=2022))
    rows = {r.label: r.values for r in tables[0].rows}
    assert rows["Effective income tax rate"] == ["(0.6)%", "14.8%", "17.5%"]
    assert rows["Core operating margins"][0] == "(7.0%)"
    assert cell_unit("US$M", "Core operating margins", "(7.0%)") == "%"
    # Quiet: a number standing alone keeps its own cell.
    assert rows["Revenues"] == ["66,608", "62,286", "58,158"]


def test_a_closing_bracket_set_apart_from_its_number_is_part_of_the_cell() -> None:
    """Corning's 10-K sets "(411 )" in its income statement: the row read as the label
    "Provision for income taxes (Note 7) (411 )" and the year's figure went to the year
    beside it. Quiet: a bracket that closes the label's own words stays the label's."""
    page = _page(
        _line(40, ("(In millions)", 19), ("2022", 395), ("2021", 484), ("2020", 568)),
        _line(55, ("Income before income taxes", 19), ("1,797", 384), ("2,426", 473), ("634", 563)),
        _line(
            70,
            ("Provision for income taxes (Note 7)", 19),
            ("(411", 380),
            (")", 403.5),
            ("(491)", 469),
            ("(111)", 553),
        ),
    )
    tables, _ = find_tables(page, ReadContext(year_end="12-31", fiscal_year=2022))
    rows = {r.label: r.values for r in tables[0].rows}
    assert rows["Provision for income taxes (Note 7)"] == ["(411)", "(491)", "(111)"]
    assert rows["Income before income taxes"] == ["1,797", "2,426", "634"]


def test_a_schedule_of_amounts_falling_due_prints_no_periods_figures() -> None:
    """Microsoft's FY2023 10-K heads its contractual obligations "2024  Thereafter  Total":
    the reader bound the first column to FY2024 (a year the report does not cover) and a
    total of obligations became "long-term debt" of FY2024. Its headers stay as printed,
    and no cell is a figure of a year. Quiet: a table of two years still has both."""
    from domain.models import ChunkText
    from domain.reports.facts import table_facts

    def facts_of(*rows: list[Word]) -> tuple[list[str], list[int]]:
        tables, _ = find_tables(_page(*rows), ReadContext(year_end="06-30", fiscal_year=2023))
        text = "\n".join(tables[0].markdown())
        chunk = ChunkText(
            chunk_id="c",
            company="MSFT",
            fiscal_year=2023,
            document="d",
            page=51,
            section="Contractual Obligations",
            text=text,
            is_table=True,
            unit="US$M",
        )
        return [c.cell for c in tables[0].columns], [f.fiscal_year for f in table_facts(chunk)]

    headers, years = facts_of(
        _line(40, ("(In millions)", 19), ("2024", 395), ("Thereafter", 460), ("Total", 560)),
        _line(55, ("Principal payments", 19), ("5,250", 390), ("47,616", 470), ("52,866", 555)),
        _line(70, ("Purchase commitments", 19), ("64,703", 385), ("3,115", 475), ("67,818", 555)),
    )
    assert headers == ["2024", "Thereafter", "Total"] and years == []
    # Benefit payments expected in each year to come (Boeing's FY2022 10-K): no figure of
    # 2024 or 2027, though no column says "thereafter".
    headers, years = facts_of(
        _line(
            40,
            ("(In millions)", 19),
            ("2024", 300),
            ("2025", 360),
            ("2026", 420),
            ("2027", 480),
            ("Total", 540),
        ),
        _line(
            55,
            ("Pensions", 19),
            ("5,348", 295),
            ("4,473", 355),
            ("4,404", 415),
            ("4,325", 475),
            ("23,550", 535),
        ),
        _line(
            70,
            ("Gross benefits paid", 19),
            ("381", 300),
            ("371", 360),
            ("353", 420),
            ("334", 480),
            ("1,439", 537),
        ),
    )
    assert years == [], headers
    # Quiet: one column of the year ahead is its guidance, beside the year's own.
    headers, years = facts_of(
        _line(40, ("(In millions)", 19), ("2024", 395), ("2023", 484)),
        _line(55, ("Capital expenditure", 19), ("3,500", 390), ("2,893", 479)),
        _line(70, ("Exploration", 19), ("400", 395), ("388", 484)),
    )
    assert sorted(years) == [2023, 2023, 2024, 2024]
    headers, years = facts_of(
        _line(40, ("(In millions)", 19), ("2023", 395), ("2022", 484)),
        _line(55, ("Long-term debt", 19), ("41,990", 385), ("47,032", 474)),
    )
    assert sorted(years) == [2022, 2023]


def test_a_quarter_or_year_to_date_printed_with_no_date_ends_within_its_year() -> None:
    """A release's "SECOND QUARTER" or "Q3" over bare years, and "SIX MONTHS" beside it: each
    span ends where it ends in the fiscal year (J&J's second quarter was bound to
    31 December). Quiet: the fourth quarter and the full year end at the year's end."""
    for year_end, phrase, x, end in (
        ("12-31", "SECOND QUARTER", 330, "30 Jun 2023"),
        ("06-30", "Q3", 338, "31 Mar 2023"),
        ("12-31", "SIX MONTHS", 330, "30 Jun 2023"),
        ("09-30", "NINE MONTHS ENDED", 320, "30 Jun 2023"),
        ("12-31", "FOURTH QUARTER", 330, "31 Dec 2023"),
    ):
        page = _page(
            _line(40, (phrase, x)),
            _line(55, ("($ in Millions)", 47), ("2023", 261), ("2022", 327)),
            _line(70, ("Reported Sales", 47), ("$25,530", 255), ("$24,020", 321)),
        )
        tables, _ = find_tables(page, ReadContext(year_end=year_end, fiscal_year=2023))
        cells = [c.cell for c in tables[0].columns]
        assert f"months to {end})" in cells[0], (phrase, cells)
        assert f"months to {end.replace('2023', '2022')})" in cells[1], (phrase, cells)
    tables, _ = find_tables(_release_page(), ReadContext(year_end="12-31", fiscal_year=2022))
    assert tables[0].columns[3].cell.endswith("FY2022 (31 Dec 2022)")


def test_prose_with_no_word_across_the_middle_is_one_column_and_a_gutter_two() -> None:
    """Full-width bullets whose words happen to leave the page's middle free were read as
    two columns ("... earnings per share (EPS) of increasing by 10.3%*" then "$1.33
    decreasing 24.9% and adjusted EPS of $2.35", the figures cut from their quarter). A
    space between words is no gutter; a gutter of a two-column page still splits."""
    from ingestion.pdf import _two_column

    def ending_at(text: str, x1: float) -> tuple[str, float]:
        """A cell placed so its last word ends at `x1` (`_line` sets 5.5 points a letter)."""
        return text, x1 - 5.5 * len(text.replace(" ", "")) - 3 * text.count(" ")

    full = _page(
        _line(
            40,
            ending_at("• 2026 Third-Quarter orders per plant and per shift of", 302),
            ("$4.10 falling 3.0% and adjusted orders of $5.20", 307),
        ),
        _line(
            55,
            ending_at("rising by 1.2% as the new line came into service", 301),
            ("after the works on the site finished", 306),
        ),
    )
    read = [ln.text for ln in _two_column(full, 612)]
    assert read[0].endswith("per shift of $4.10 falling 3.0% and adjusted orders of $5.20"), read
    assert len(read) == 2
    columns = _page(
        _line(40, ("The left column speaks of water use", 41), ("The right column speaks of", 330)),
        _line(55, ("across the sites this year and the", 41), ("the people who work at the", 330)),
    )
    read = [ln.text for ln in _two_column(columns, 612)]
    assert read == [
        "The left column speaks of water use",
        "across the sites this year and the",
        "The right column speaks of",
        "the people who work at the",
    ], read


def test_figures_inside_a_long_label_are_the_labels_and_a_bracketed_unit_heads_the_years() -> None:
    """American Express's balance sheet: "December 31 (Millions, except share data)  2022
    2021" was no header (its unit in brackets was not read), and rows whose labels carry
    their own figures ("(includes restricted cash ...: 2022, $5; 2021, $11)   $ 5,510
    $ 1,292") were prose: the statement's first rows were lost and the rest had no
    periods."""
    page = _page(
        _line(40, ("CONSOLIDATED BALANCE SHEETS", 228)),
        _line(55, ("December 31 (Millions, except share data)", 20), ("2022", 575), ("2021", 635)),
        _line(70, ("Assets", 20)),
        _line(
            85,
            (
                "Cash held with agents (includes restricted cash of consolidated trusts: "
                "2022, $5; 2021, $11)",
                30,
            ),
            ("$", 557),
            ("5,510", 569),
            ("$", 617),
            ("1,292", 629),
        ),
        _line(
            100,
            (
                "Plant and equipment, less accumulated depreciation and amortization: "
                "2022, $9,850; 2021, $8,602",
                26,
            ),
            ("5,215", 569),
            ("4,988", 629),
        ),
        _line(115, ("Total assets", 20), ("$", 557), ("10,725", 563), ("$", 617), ("6,280", 629)),
    )
    tables, _ = find_tables(page, ReadContext(year_end="12-31", fiscal_year=2022))
    assert len(tables) == 1
    assert [c.cell for c in tables[0].columns] == ["FY2022 (31 Dec 2022)", "FY2021 (31 Dec 2021)"]
    rows = {r.label.split(" (")[0].split(",")[0]: r.values for r in tables[0].rows}
    assert rows["Cash held with agents"] == ["5,510", "1,292"]
    assert rows["Plant and equipment"] == ["5,215", "4,988"]
    assert rows["Total assets"] == ["10,725", "6,280"]
