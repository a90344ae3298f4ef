"""The relevance control (`domain.relevance.check_relevance`), on the sample corpus: it
fires on answers about something else and is quiet on answers to the question."""

from domain.relevance import check_relevance
from tests.unit.corpus_chunks import report
from workflows.rules.relevance import OFF_POINT_LEAD, relevance_verdict

BHP_2024 = report("BHP", 2024)
REVENUE = "BHP Group's revenue for FY2024 was US$55,658 million [1]."
NET_DEBT_GAP = "BHP FY2024 net debt: data not found in provided documents"


def test_an_answer_with_the_asked_figure_is_addressed() -> None:
    relevance = check_relevance("What was BHP's revenue in FY2024?", REVENUE, BHP_2024)
    assert relevance.addressed and not relevance.off_point
    assert [i.status for i in relevance.items] == ["answered"]


def test_an_answer_about_another_measure_is_off_point() -> None:
    relevance = check_relevance("What was BHP's net debt in FY2024?", REVENUE, BHP_2024)
    assert relevance.off_point and not relevance.addressed
    assert relevance.missing() == ["net debt"]


def test_a_measure_with_its_not_found_line_is_covered_but_not_answered() -> None:
    answer = f"{REVENUE}\n\n{NET_DEBT_GAP}"
    relevance = check_relevance("What were BHP's revenue and net debt in FY2024?", answer,
                                BHP_2024)  # fmt: skip
    assert relevance.addressed
    assert sorted(i.status for i in relevance.items) == ["answered", "not_found"]


def test_a_measure_in_no_vocabulary_is_matched_by_the_report_sentence() -> None:
    answer = ("BHP Group's FY2024 report says: \"Finally, thank you to the more than 80,000 "
              "employees and contractors who make BHP what it is\" [1]")  # fmt: skip
    relevance = check_relevance("How many employees and contractors does BHP have in FY2024?",
                                answer, BHP_2024)  # fmt: skip
    assert relevance.addressed, relevance


def test_the_verdict_leads_an_off_point_answer_and_caps_its_confidence() -> None:
    relevance = check_relevance("What was BHP's net debt in FY2024?", REVENUE, BHP_2024)
    verdict = relevance_verdict(relevance, ["BHP"], [2024])
    assert verdict.lead == OFF_POINT_LEAD and verdict.low
    assert [g.line() for g in verdict.gaps] == [NET_DEBT_GAP]
    quiet = relevance_verdict(
        check_relevance("What was BHP's revenue in FY2024?", REVENUE, BHP_2024), ["BHP"], [2024]
    )
    assert quiet.lead is None and not quiet.low and quiet.gaps == ()


def test_an_unchecked_answer_is_low_and_says_so() -> None:
    verdict = relevance_verdict(None, ["BHP"], [2024], checked=False)
    assert verdict.low and verdict.warning


# The operations review first: the answers below cite it as [1].
FMG_2025 = sorted(report("FMG", 2025), key=lambda c: "We paused the Arizona" not in c.text)


def _quote(sentence: str, section: str = "Operations review", page: int = 3) -> str:
    return f'Fortescue\'s FY2025 report ({section}, page {page}): "{sentence}" [1]'


def test_a_quote_sharing_only_the_common_words_of_a_topic_does_not_answer_it() -> None:
    question = "Which of its green energy projects did Fortescue halt in FY2025?"
    loose = _quote(
        "We have been clear that we will not invest in green energy projects that "
        "cannot deliver acceptable returns.",
        section="Chair's letter",
        page=1,
    )
    relevance = check_relevance(question, loose, FMG_2025)
    assert not relevance.addressed, relevance
    on_point = _quote("We paused the Arizona hydrogen project and the PEM50 electrolyser facility "
                      "in Gladstone, and focused on projects where there is a clear route to "
                      "commercial returns, as well as on the technology required to decarbonise "
                      "our own fleet.")  # fmt: skip
    assert check_relevance(question, on_point, FMG_2025).addressed


def test_the_section_an_answer_names_before_its_quote_is_not_what_it_says() -> None:
    question = "What does Fortescue say about cyber security in its FY2025 risk factors?"
    other = _quote("Fortescue Energy concentrated on a smaller set of projects and technologies.",
                   section="Risk factors", page=11)  # fmt: skip
    assert not check_relevance(question, other, FMG_2025).addressed


def test_a_comparison_that_never_names_a_company_misses_that_companys_part() -> None:
    question = "Compare BHP and Rio Tinto revenue in FY2024"
    one_sided = check_relevance(question, REVENUE, BHP_2024)
    assert not one_sided.addressed and one_sided.missing() == ["RIO revenue"]
    verdict = relevance_verdict(one_sided, ["BHP", "RIO"], [2024])
    assert [g.line() for g in verdict.gaps] == [
        "RIO FY2024 revenue: data not found in provided documents"
    ]
    said = f"{REVENUE}\n\nRIO FY2024 revenue: data not found in provided documents"
    assert check_relevance(question, said, BHP_2024).addressed


BHP_2025_BOARD = sorted(report("BHP", 2025), key=lambda c: "industrial automation" not in c.text)


def test_one_rare_word_alone_does_not_make_a_quote_about_the_part() -> None:
    question = "According to the FY2025 report, what is the background of BHP's Chair?"

    def quote(sentence: str) -> str:
        return f'BHP Group\'s FY2025 report (Board of directors, page 8): "{sentence}" [1]'

    # Firing: another director's "background", never the Chair.
    other = quote("Technology executive with a background in industrial automation and data; "
                  "member of the Risk and Audit Committee.")  # fmt: skip
    assert not check_relevance(question, other, BHP_2025_BOARD).addressed
    # Quiet: a quote holding the rare word and another of the part's words.
    both = quote("Technology executive with a background in industrial automation; Chair of "
                 "the Sustainability Committee.")  # fmt: skip
    assert check_relevance(question, both, BHP_2025_BOARD).addressed
