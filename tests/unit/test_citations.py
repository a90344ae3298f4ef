"""Citation binding: range check, renumbering, grouping, dedupe, pruning, company post-check."""

from domain.models import Source
from workflows.rules.citations import bind_citations


def source(company: str, fiscal_year: int, page: int, chunk_id: str | None = None) -> Source:
    return Source(
        chunk_id=chunk_id or f"{company}-{fiscal_year}-{page}",
        company=company,
        fiscal_year=fiscal_year,
        page=page,
        document=f"{company} annual report {fiscal_year}",
        preview=f"{company} FY{fiscal_year} page {page} excerpt",
    )


BHP_P10 = source("BHP", 2024, 10)
FMG_P5 = source("FMG", 2024, 5)
BHP_P12 = source("BHP", 2024, 12)
BHP_P10_AGAIN = source("BHP", 2024, 10, chunk_id="BHP-2024-10-second-chunk")
SOURCES = [BHP_P10, FMG_P5, BHP_P12, BHP_P10_AGAIN]


def numbered(bound_cited: list[tuple[int, Source]]) -> list[tuple[int, str]]:
    return [(n, s.chunk_id) for n, s in bound_cited]


def test_good_answer_keeps_every_marker_and_source() -> None:
    answer = "BHP revenue was US$55,658 million [1]. Fortescue revenue was US$18,220 million [2]."
    bound = bind_citations(answer, SOURCES)
    assert bound.answer == answer
    assert numbered(bound.cited) == [(1, "BHP-2024-10"), (2, "FMG-2024-5")]
    assert bound.dropped == []
    assert bound.warnings == []


def test_out_of_range_marker_is_dropped() -> None:
    bound = bind_citations("BHP revenue was US$55,658 million [7].", SOURCES)
    assert bound.answer == "BHP revenue was US$55,658 million."
    assert bound.cited == []
    assert bound.dropped == ["[7] out of range"]


def test_zero_marker_is_out_of_range_and_dropped() -> None:
    bound = bind_citations("BHP revenue was US$55,658 million [0].", SOURCES)
    assert "[" not in bound.answer
    assert bound.dropped == ["[0] out of range"]


def test_out_of_range_number_inside_a_group_is_dropped_and_the_rest_kept() -> None:
    bound = bind_citations("BHP revenue was US$55,658 million [1, 7].", SOURCES)
    assert bound.answer == "BHP revenue was US$55,658 million [1]."
    assert bound.dropped == ["[7] out of range"]


def test_markers_are_renumbered_in_order_of_first_appearance() -> None:
    bound = bind_citations("BHP revenue was X [3]. BHP EBITDA was Y [1].", SOURCES)
    assert bound.answer == "BHP revenue was X [1]. BHP EBITDA was Y [2]."
    assert numbered(bound.cited) == [(1, "BHP-2024-12"), (2, "BHP-2024-10")]


def test_grouped_marker_is_kept_as_one_group() -> None:
    bound = bind_citations("BHP revenue was X [1,3].", SOURCES)
    assert bound.answer == "BHP revenue was X [1,2]."
    assert numbered(bound.cited) == [(1, "BHP-2024-10"), (2, "BHP-2024-12")]


def test_grouped_marker_with_spaces_is_normalised_and_sorted() -> None:
    bound = bind_citations("BHP revenue was X [3, 1].", SOURCES)
    assert bound.answer == "BHP revenue was X [1,2]."


def test_duplicate_company_year_page_sources_collapse_to_one_number() -> None:
    bound = bind_citations("BHP revenue was X [1]. BHP EBITDA was Y [4].", SOURCES)
    assert bound.answer == "BHP revenue was X [1]. BHP EBITDA was Y [1]."
    assert numbered(bound.cited) == [(1, "BHP-2024-10")]


def test_duplicate_sources_in_one_group_give_one_number() -> None:
    bound = bind_citations("BHP revenue was X [1,4].", SOURCES)
    assert bound.answer == "BHP revenue was X [1]."


def test_uncited_sources_are_pruned_from_the_reference_list() -> None:
    bound = bind_citations("Fortescue revenue was US$18,220 million [2].", SOURCES)
    assert numbered(bound.cited) == [(1, "FMG-2024-5")]
    assert bound.answer == "Fortescue revenue was US$18,220 million [1]."


def test_marker_citing_another_company_than_its_sentence_is_dropped_with_a_warning() -> None:
    bound = bind_citations("BHP revenue was US$55,658 million [2].", SOURCES)
    assert bound.answer == "BHP revenue was US$55,658 million."
    assert bound.cited == []
    assert bound.dropped == ["[2] cites FMG"]
    assert bound.warnings == ["A citation to a FMG source was removed from a sentence about BHP."]


def test_company_check_keeps_the_matching_source_in_a_mixed_group() -> None:
    bound = bind_citations("BHP revenue was US$55,658 million [1,2].", SOURCES)
    assert bound.answer == "BHP revenue was US$55,658 million [1]."
    assert bound.dropped == ["[2] cites FMG"]
    assert len(bound.warnings) == 1


def test_sentence_naming_both_companies_keeps_both_markers() -> None:
    answer = "Fortescue revenue was below BHP revenue [1,2]."
    bound = bind_citations(answer, SOURCES)
    assert bound.answer == answer
    assert bound.warnings == []


def test_sentence_naming_no_company_keeps_its_markers() -> None:
    bound = bind_citations("Revenue rose 5% year on year [2].", SOURCES)
    assert bound.answer == "Revenue rose 5% year on year [1]."
    assert numbered(bound.cited) == [(1, "FMG-2024-5")]
    assert bound.warnings == []


def test_company_named_by_alias_is_recognised_by_the_post_check() -> None:
    bound = bind_citations("Fortescue Metals reported net debt of US$1,400 million [1].", SOURCES)
    assert bound.dropped == ["[1] cites BHP"]


def test_answer_without_markers_is_unchanged_and_cites_nothing() -> None:
    bound = bind_citations("BHP reported revenue growth.", SOURCES)
    assert bound.answer == "BHP reported revenue growth."
    assert bound.cited == []


def test_wrong_company_marker_after_a_decimal_figure_is_dropped() -> None:
    bound = bind_citations("BHP revenue was US$55.7 billion [2].", SOURCES)
    assert bound.answer == "BHP revenue was US$55.7 billion."
    assert bound.dropped == ["[2] cites FMG"]
