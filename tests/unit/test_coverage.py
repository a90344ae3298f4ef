"""Coverage post-check: every gap has its exact line (or its table row); found-flags come
from survivors."""

from domain.checks.tables import NOT_FOUND_CELL, said_in_table
from domain.models import NotFound
from workflows.rules.coverage import company_status, ensure_gap_lines

FMG_REVENUE = NotFound(company="FMG", fiscal_year=2024, metric="revenue")
BHP_NET_DEBT = NotFound(company="BHP", fiscal_year=2023, metric="net debt")


def test_gap_line_has_the_exact_format() -> None:
    assert FMG_REVENUE.line() == "FMG FY2024 revenue: data not found in provided documents"


def test_missing_gap_line_is_appended() -> None:
    answer = "BHP revenue was US$55,658 million [1]."
    fixed, added = ensure_gap_lines(answer, [FMG_REVENUE])
    assert added == ["FMG FY2024 revenue: data not found in provided documents"]
    assert fixed == answer + "\nFMG FY2024 revenue: data not found in provided documents"


def test_only_the_missing_gap_lines_are_appended() -> None:
    answer = "BHP revenue was US$55,658 million [1].\n" + FMG_REVENUE.line()
    fixed, added = ensure_gap_lines(answer, [FMG_REVENUE, BHP_NET_DEBT])
    assert added == [BHP_NET_DEBT.line()]
    assert fixed.count(FMG_REVENUE.line()) == 1
    assert fixed.endswith("\n" + BHP_NET_DEBT.line())


def test_answer_with_every_gap_line_is_unchanged() -> None:
    answer = f"BHP revenue was US$55,658 million [1].\n{FMG_REVENUE.line()}"
    assert ensure_gap_lines(answer, [FMG_REVENUE]) == (answer, [])


def test_no_gaps_adds_nothing() -> None:
    answer = "BHP revenue was US$55,658 million [1].\n"
    assert ensure_gap_lines(answer, []) == (answer, [])


def test_gap_line_on_an_empty_answer_becomes_the_answer() -> None:
    fixed, added = ensure_gap_lines("", [FMG_REVENUE])
    assert fixed == FMG_REVENUE.line()
    assert added == [FMG_REVENUE.line()]


TABLE = f"""| Revenue | FY2023 | FY2024 |
|---|---|---|
| BHP Group | US$53.82 billion [1] | US$55.658 billion [2] |
| Fortescue | US$16.87 billion [3] | {NOT_FOUND_CELL} |"""


def test_a_gap_its_table_row_says_gets_no_line_of_its_own() -> None:
    # Quiet: Fortescue's row says FY2024 is not found; the answer is left as it is.
    assert said_in_table(FMG_REVENUE, TABLE)
    assert ensure_gap_lines(TABLE, [FMG_REVENUE]) == (TABLE, [])


def test_a_row_for_another_year_measure_or_company_does_not_say_the_gap() -> None:
    # Firing: each of these leaves the gap unsaid, so its line is added.
    for gap in (
        FMG_REVENUE.model_copy(update={"fiscal_year": 2023}),  # that cell has a figure
        FMG_REVENUE.model_copy(update={"metric": "net debt"}),  # another measure's table
        FMG_REVENUE.model_copy(update={"company": "NST"}),  # no row of its own
    ):
        assert not said_in_table(gap, TABLE), gap
        assert ensure_gap_lines(TABLE, [gap]) == (TABLE + "\n" + gap.line(), [gap.line()])


def test_company_status_is_rebuilt_from_surviving_documents() -> None:
    assert company_status(["BHP", "FMG", "RIO"], {"BHP", "RIO"}) == {
        "BHP": True,
        "FMG": False,
        "RIO": True,
    }


def test_company_status_marks_a_company_not_found_when_nothing_survived_grading() -> None:
    assert company_status(["BHP", "FMG"], set()) == {"BHP": False, "FMG": False}


def test_company_status_ignores_survivors_from_companies_not_requested() -> None:
    assert company_status(["FMG"], {"BHP", "FMG"}) == {"FMG": True}


# ---- coverage from what was asked and what the numeric check backed ------------------

from domain.models import CheckedFigure, Derived, Slots  # noqa: E402
from workflows.rules.coverage import unanswered  # noqa: E402

ASKED = Slots(companies=["BHP", "RIO"], fiscal_years=[2023, 2024], metrics=["net_debt"])


def test_an_asked_item_no_backed_figure_gives_gets_its_line() -> None:
    verified = [
        CheckedFigure(company="BHP", fiscal_year=2024, metric="net_debt"),
        CheckedFigure(company="RIO", fiscal_year=2023, metric="net_debt"),
        CheckedFigure(company="RIO", fiscal_year=2024, metric="revenue"),
    ]
    missed = unanswered(["BHP", "RIO"], ASKED, verified, [])
    assert [g.line() for g in missed] == [
        "BHP FY2023 net debt: data not found in provided documents",
        "RIO FY2024 net debt: data not found in provided documents",
    ]


def test_every_asked_item_given_or_nothing_named_adds_no_line() -> None:
    verified = [
        CheckedFigure(company=c, fiscal_year=y, metric="net_debt")
        for c in ("BHP", "RIO")
        for y in (2023, 2024)
    ]
    assert unanswered(["BHP", "RIO"], ASKED, verified, []) == []
    # A question naming no year, or asking what the reports say, is left alone.
    assert unanswered(["BHP"], Slots(companies=["BHP"], metrics=["revenue"]), [], []) == []
    narrative = Slots(
        companies=["BHP"], fiscal_years=[2024], metrics=["revenue"], intent="narrative"
    )
    assert unanswered(["BHP"], narrative, [], []) == []
    # A figure outside the vocabulary, or a recomputed one, for that company and year.
    outside = [CheckedFigure(company="BHP", fiscal_year=2023, metric=None)]
    one = Slots(companies=["BHP"], fiscal_years=[2023], metrics=["net_debt"])
    assert unanswered(["BHP"], one, outside, []) == []
    change = [Derived(label="BHP net debt change FY2022–FY2023", formula="a − b")]
    assert unanswered(["BHP"], one, [], change) == []


def test_a_change_a_superlative_or_a_loose_figure_adds_no_false_line() -> None:
    change = Slots(
        companies=["BHP"], fiscal_years=[2023, 2024, 2025], metrics=["revenue"], intent="change"
    )
    assert unanswered(["BHP"], change, [], []) == []
    highest = Slots(fiscal_years=[2024], metrics=["revenue"])
    one = [CheckedFigure(company="BHP", fiscal_year=2024, metric="revenue")]
    companies = ["BHP", "RIO", "FMG", "S32", "NST"]
    assert (
        unanswered(companies, highest, one, [], "Which company had the highest revenue in FY2024?")
        == []
    )
    # Firing: with two metrics asked, a figure outside the vocabulary answers neither.
    two = Slots(companies=["BHP"], fiscal_years=[2024], metrics=["revenue", "net_debt"])
    outside = [
        CheckedFigure(company="BHP", fiscal_year=2024, metric="revenue"),
        CheckedFigure(company="BHP", fiscal_year=2024, metric=None),
    ]
    assert [g.line() for g in unanswered(["BHP"], two, outside, [])] == [
        "BHP FY2024 net debt: data not found in provided documents"
    ]
