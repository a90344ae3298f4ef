"""Which rows of a cited passage the page marks, and the plain-English progress events."""

import re
from pathlib import Path

from domain.checks.citing import cited_figures, cited_lines
from domain.turns import TurnResult
from workflows import progress
from workflows.turn import steps as turn_steps

BHP_TABLE = (
    "Table (all figures in US$ millions):\n| US$M | FY2024 |\n|---|---|\n"
    "| Revenue | 55,658 |\n| Underlying EBITDA | 29,016 |\n| Attributable profit | 7,897 |"
)


def test_the_row_holding_the_cited_figure_is_marked() -> None:
    answer = "BHP Group's revenue for FY2024 (year ended 30 June 2024) was US$55,658 million [1]."
    assert cited_lines(answer, 1, BHP_TABLE) == [3]


def test_a_figure_restated_in_billions_still_finds_its_row() -> None:
    answer = "| Revenue | FY2024 |\n|---|---|\n| BHP Group | US$55.658 billion [1] |"
    assert cited_lines(answer, 1, BHP_TABLE) == [3]


def test_a_marker_naming_two_sources_cites_the_figures_of_its_clause_to_both() -> None:
    answer = "EBITDA was US$29,016 million for BHP and 23,314 for Rio Tinto [1, 2]."
    assert cited_lines(answer, 1, BHP_TABLE) == [4]
    assert cited_figures(answer, 2) == {"29016", "23314"}


def test_a_full_stop_before_the_marker_and_a_second_marker_keep_their_clause() -> None:
    assert cited_lines("Revenue was US$55,658 million.[1]", 1, BHP_TABLE) == [3]
    assert cited_lines("EBITDA was US$29,016 million [1][2].", 2, BHP_TABLE) == [4]


def test_a_rounded_figure_marks_no_row_rather_than_a_wrong_one() -> None:
    table = BHP_TABLE + "\n| Capital expenditure | 2,900 |"
    assert cited_lines("EBITDA was about US$29.0 billion [1].", 1, table) == []


def test_years_percentages_and_other_sources_figures_mark_nothing() -> None:
    # Quiet: the header names the year, the percentage is worked out, [2]'s figure is
    # not [1]'s, and prose lines are never marked.
    answer = "In FY2024 revenue rose 3.7% [1]. Rio Tinto's was 7,897 [2]."
    assert cited_lines(answer, 1, BHP_TABLE) == []
    assert cited_lines("No figures here [1].", 1, BHP_TABLE) == []
    assert cited_lines("Revenue was 55,658 [1].", 1, "Revenue was 55,658 in the year.") == []


def test_progress_events_are_plain_english() -> None:
    assert progress.step_started("llm_route_question").text == "Reading the question"
    search = progress.search_started("S32", [2024, 2023])
    assert search.text == "Searching South32's reports for FY2023 and FY2024"
    assert progress.covered({"BHP": True, "S32": False}) == "found BHP; nothing for S32"
    assert progress.covered_said({"BHP": True, "S32": False}) == (
        "Found relevant passages for BHP Group; none for South32"
    )
    assert progress.degraded_said("llm_grade_answer") == (
        "Went on without one step (checking that the answer answers the question): it"
        " failed, and this was recorded"
    )
    decided = progress.decision("route: needs_retrieval (x)", "The question needs the reports")
    assert (decided.text, decided.detail) == (
        "The question needs the reports",
        "route: needs_retrieval (x)",
    )
    waiting = TurnResult(
        turn_id="t", conversation_id="c", status="needs_clarification", question="q"
    )
    assert progress.settled(waiting).text == "Finished: needs one more detail"
    assert progress.settled(waiting).status == "needs_clarification"
    # Every step a turn runs has its own words.
    source = Path(turn_steps.__file__).read_text(encoding="utf-8")
    used = set(re.findall(r"\bsteps\.([a-z_]+)", source))
    assert used and used <= set(progress.STEP_TEXT), used - set(progress.STEP_TEXT)
