"""The numeric grounding check (docs/controls.md, groundedness): flags wrong figures, years and
companies; stays quiet on figures the cited sources support within the tolerances."""

import asyncio
import re

import pytest

from backends.engines.offline.engine import OfflineEngine
from domain.checks.numeric import check_numbers, cited_sources
from domain.language.amounts import find_amounts
from domain.models import CheckedFigure, ChunkText, Slots
from domain.questions.metrics import METRICS
from tests.unit.corpus_chunks import corpus, report, tables

BHP24 = tables("BHP", 2024)[0]  # US$M: Revenue 55,658 / Underlying EBITDA 29,016 / ...
BHP23 = tables("BHP", 2023)[0]  # US$bn: Revenue 53.82 / ...
S32_24 = tables("S32", 2024)[0]  # US$M with FY2023 (restated): (203) / (173)


def prose(text: str, *, company: str = "BHP", year: int = 2024) -> ChunkText:
    return ChunkText(
        chunk_id="p1",
        company=company,
        fiscal_year=year,
        page=5,
        section="Financial review",
        document=f"{company} Annual Report {year}",
        is_table=False,
        unit=None,
        text=f"[{company} · FY{year} · Financial review · page 5]\n{text}",
    )


def unsupported(answer: str, sources: list[ChunkText]) -> list[tuple[str, str]]:
    return [(c.label, c.reason) for c in check_numbers(answer, sources).unsupported]


def test_a_correct_figure_with_its_citation_is_supported() -> None:
    report_ = check_numbers(
        "BHP's revenue for FY2024 (year ended 30 June 2024) was US$55,658 million [1].", [BHP24]
    )
    assert report_.unsupported == [] and report_.checked_numbers == 1


def test_one_altered_digit_is_flagged() -> None:
    claims = unsupported("BHP's revenue for FY2024 was US$55,668 million [1].", [BHP24])
    assert claims == [("BHP FY2024 revenue", "general_knowledge")]


def test_a_figure_cited_from_another_years_report_is_flagged() -> None:
    claims = unsupported("BHP's revenue for FY2023 was US$55,658 million [1].", [BHP24])
    assert claims == [("BHP FY2023 revenue", "general_knowledge")]


def test_a_figure_cited_from_another_companys_report_is_flagged() -> None:
    claims = unsupported("Rio Tinto's revenue for FY2024 was US$55,658 million [1].", [BHP24])
    assert claims == [("RIO FY2024 revenue", "general_knowledge")]


def test_a_figure_from_another_row_of_the_cited_table_is_flagged() -> None:
    claims = unsupported("BHP's revenue for FY2024 was US$29,016 million [1].", [BHP24])
    assert claims == [("BHP FY2024 revenue", "general_knowledge")]


def test_figures_swapped_between_their_own_markers_are_flagged() -> None:
    rio = tables("RIO", 2024)[1]
    right = (
        "In FY2024 BHP's revenue was US$55,658 million [1] and Rio Tinto's US$53,658 million [2]."
    )
    assert unsupported(right, [BHP24, rio]) == []
    swapped = (
        "In FY2024 BHP's revenue was US$53,658 million [1] and Rio Tinto's US$55,658 million [2]."
    )
    assert unsupported(swapped, [BHP24, rio]) == [
        ("BHP FY2024 revenue", "general_knowledge"),
        ("RIO FY2024 revenue", "general_knowledge"),
    ]


# Each figure binds to its own company, year and metric, so a sentence citing both sources
# cannot pass by swapping two figures between them.

RIO24 = tables("RIO", 2024)[1]  # US$M: Consolidated sales revenue 53,658 / ... / Net debt 5,491
FMG24 = tables("FMG", 2024)[1]  # US$bn: Revenue 18.22 / ... / Net debt 0.5


@pytest.mark.parametrize("markers", ["[1,2]", "[1][2]"])
def test_two_years_swapped_in_one_sentence_citing_both_are_both_flagged(markers: str) -> None:
    sources = [BHP23, BHP24]  # FY2023 revenue US$53.82bn; FY2024 US$55,658M
    right = (
        f"BHP's revenue was US$53.82 billion in FY2023 and US$55,658 million in FY2024 {markers}."
    )
    result = check_numbers(right, sources)
    assert result.unsupported == [] and result.checked_numbers == 2
    swapped = (
        f"BHP's revenue was US$55,658 million in FY2023 and US$53.82 billion in FY2024 {markers}."
    )
    assert unsupported(swapped, sources) == [
        ("BHP FY2023 revenue", "general_knowledge"),
        ("BHP FY2024 revenue", "general_knowledge"),
    ]


def test_years_swapped_between_clauses_that_open_with_the_year_are_both_flagged() -> None:
    sources = [BHP23, BHP24]
    right = (
        "In FY2023 BHP's revenue was US$53.82 billion, and in FY2024 it was "
        "US$55,658 million [1,2]."
    )
    assert unsupported(right, sources) == []
    swapped = (
        "In FY2023 BHP's revenue was US$55,658 million, and in FY2024 it was "
        "US$53.82 billion [1,2]."
    )
    assert [label for label, _ in unsupported(swapped, sources)] == [
        "BHP FY2023 revenue",
        "BHP FY2024 revenue",
    ]


def test_two_companies_swapped_in_one_sentence_citing_both_are_both_flagged() -> None:
    sources = [BHP24, RIO24]
    right = (
        "In FY2024, BHP's revenue was US$55,658 million and Rio Tinto's was "
        "US$53,658 million [1,2]."
    )
    result = check_numbers(right, sources)
    assert result.unsupported == [] and result.checked_numbers == 2
    swapped = (
        "In FY2024, BHP's revenue was US$53,658 million and Rio Tinto's was "
        "US$55,658 million [1,2]."
    )
    assert unsupported(swapped, sources) == [
        ("BHP FY2024 revenue", "general_knowledge"),
        ("RIO FY2024 revenue", "general_knowledge"),
    ]


def test_the_year_and_metric_carry_to_a_second_company_in_the_next_clause() -> None:
    sources = [FMG24, RIO24]
    right = (
        "Fortescue's net debt was US$0.5 billion in FY2024, while Rio Tinto's was "
        "US$5,491 million [1,2]."
    )
    assert unsupported(right, sources) == []
    swapped = (
        "Fortescue's net debt was US$5,491 million in FY2024, while Rio Tinto's was US$0.5 billion "
        "[1,2]."
    )
    assert unsupported(swapped, sources) == [
        ("FMG FY2024 net debt", "general_knowledge"),
        ("RIO FY2024 net debt", "general_knowledge"),
    ]


def test_two_metrics_swapped_for_one_company_and_year_are_both_flagged() -> None:
    right = (
        "BHP's revenue for FY2024 was US$55,658 million and its underlying EBITDA was "
        "US$29,016 million [1]."
    )
    result = check_numbers(right, [BHP24])
    assert result.unsupported == [] and result.checked_numbers == 2
    swapped = (
        "BHP's revenue for FY2024 was US$29,016 million and its underlying EBITDA was "
        "US$55,658 million [1]."
    )
    assert unsupported(swapped, [BHP24]) == [
        ("BHP FY2024 revenue", "general_knowledge"),
        ("BHP FY2024 underlying EBITDA", "general_knowledge"),
    ]


def test_respectively_pairs_the_listed_metrics_or_years_with_the_figures_in_order() -> None:
    right = (
        "BHP's revenue and underlying EBITDA for FY2024 were US$55,658 million and "
        "US$29,016 million respectively [1]."
    )
    assert unsupported(right, [BHP24]) == []
    swapped = (
        "BHP's revenue and underlying EBITDA for FY2024 were US$29,016 million and "
        "US$55,658 million respectively [1]."
    )
    assert unsupported(swapped, [BHP24]) == [
        ("BHP FY2024 revenue", "general_knowledge"),
        ("BHP FY2024 underlying EBITDA", "general_knowledge"),
    ]
    years = (
        "BHP's revenue was US$53.82 billion and US$55,658 million in FY2023 and FY2024, "
        "respectively [1,2]."
    )
    assert unsupported(years, [BHP23, BHP24]) == []


def test_a_cell_of_an_answer_table_binds_to_its_row_and_column() -> None:
    right = (
        "| FY2024 | BHP | Rio Tinto |\n|---|---|---|\n"
        "| Revenue | US$55,658m [1] | US$53,658m [2] |\n"
        "| Underlying EBITDA | US$29,016m [1] | US$23,314m [2] |"
    )
    result = check_numbers(right, [BHP24, RIO24])
    assert result.unsupported == [] and result.checked_numbers == 4
    swapped = (
        "| Company | FY2023 | FY2024 |\n|---|---|---|\n"
        "| BHP revenue | US$55,658 million [1] | US$53.82 billion [2] |"
    )
    assert unsupported(swapped, [BHP23, BHP24]) == [
        ("BHP FY2023 revenue", "general_knowledge"),
        ("BHP FY2024 revenue", "general_knowledge"),
    ]


def test_a_prose_figure_belongs_to_the_year_its_own_clause_names() -> None:
    # "Revenue from continuing operations was US$5,780 million, compared with the restated
    # US$4,923 million for FY2024." in the FY2025 report.
    s32 = next(c for c in report("S32", 2025) if "restated US$4,923" in c.text)
    assert unsupported("South32's revenue for FY2025 was US$5,780 million [1].", [s32]) == []
    restated = "South32's FY2024 revenue was restated to US$4,923 million [1]."
    assert unsupported(restated, [s32]) == []
    assert unsupported("South32's revenue for FY2025 was US$4,923 million [1].", [s32]) == [
        ("S32 FY2025 revenue", "general_knowledge")
    ]


def test_a_semicolon_does_not_separate_a_figure_from_its_marker() -> None:
    answer = "BHP (FY2024): revenue US$55,658m; underlying EBITDA US$29,016m [1]"
    assert unsupported(answer, [BHP24]) == []


@pytest.mark.parametrize(
    "sentence",
    [
        "BHP's underlying EBITDA for FY2024 was US$29,016 million [1].",
        "BHP's underlying EBITDA for FY2024 was about US$29 billion [1].",
        "BHP's underlying EBITDA for FY2024 was US$29.0 billion [1].",
        "BHP's EBITDA for FY2024 was US$29.02bn [1].",
        "BHP's EBITDA for the year ended 30 June 2024 was US$29,016m [1].",
        "BHP's revenue was US$55.7 billion in FY2024 [1].",
    ],
)
def test_header_units_and_rounding_are_tolerated(sentence: str) -> None:
    assert unsupported(sentence, [BHP24]) == []


def test_rounding_beyond_the_precision_shown_is_not_tolerated() -> None:
    claims = unsupported("BHP's underlying EBITDA for FY2024 was US$29.1 billion [1].", [BHP24])
    assert claims == [("BHP FY2024 underlying EBITDA", "general_knowledge")]


def test_accounting_parentheses_support_a_loss_and_not_a_profit() -> None:
    loss = "South32's profit after tax for FY2024 was a loss of US$203 million [1]."
    assert unsupported(loss, [S32_24]) == []
    profit = "South32's net profit after tax for FY2024 was US$203 million [1]."
    assert unsupported(profit, [S32_24]) == [
        ("S32 FY2024 net profit after tax", "general_knowledge")
    ]


def test_a_profit_after_a_loss_is_read_as_a_profit() -> None:
    s32 = tables("S32", 2025)[2]  # US$M FY2025: ... Profit/(loss) after tax 213
    sentence = (
        "South32 moved from a loss in FY2024 to a profit after tax of US$213 million in FY2025 [1]."
    )
    assert unsupported(sentence, [s32]) == []


def test_restated_comparative_column_supports_its_own_year() -> None:
    sentence = "South32's NPAT for FY2023 was a loss of US$173 million [1]."
    assert unsupported(sentence, [S32_24]) == []


def test_npat_means_net_profit_after_tax() -> None:
    fmg = [tables("FMG", 2024)[1]]  # US$bn
    sentence = "Fortescue's net profit after tax for FY2024 was US$5.7 billion [1]."
    assert unsupported(sentence, fmg) == []
    assert unsupported("Fortescue's NPAT for FY2024 was US$5.7 billion [1].", fmg) == []
    underlying = "Fortescue's NPAT for FY2024 was US$5.66 billion [1]."
    assert unsupported(underlying, fmg) == [
        ("FMG FY2024 net profit after tax", "general_knowledge")
    ]


def test_a_ratio_supports_the_same_figure_as_a_percentage() -> None:
    source = prose("The gearing ratio was 0.042 at 30 June 2024.")
    assert unsupported("BHP's gearing was 4.2% at the end of FY2024 [1].", [source]) == []
    assert unsupported("BHP's gearing was 4.8% at the end of FY2024 [1].", [source]) != []


def test_per_share_units_convert_between_dollars_and_cents() -> None:
    fmg = [tables("FMG", 2024)[2]]  # A$ per share
    assert unsupported("Fortescue paid dividends of A$1.97 per share for FY2024 [1].", fmg) == []
    assert (
        unsupported("Fortescue paid dividends of 197 Australian cents for FY2024 [1].", fmg) == []
    )
    assert unsupported("Fortescue paid dividends of 197 US cents for FY2024 [1].", fmg) != []


def test_growth_recomputed_from_cited_figures_is_derived_with_its_formula() -> None:
    answer = (
        "BHP's revenue rose 3.4% from FY2023 to FY2024, from US$53.82 billion [1] "
        "to US$55,658 million [2]."
    )
    result = check_numbers(answer, [BHP23, BHP24])
    assert result.unsupported == []
    [derived] = result.derived
    assert derived.label == "BHP Group revenue change FY2023–FY2024"
    assert derived.formula == "(55,658 − 53,820) / 53,820 = +3.4%"


def test_a_difference_recomputed_from_cited_figures_is_derived() -> None:
    rio = tables("RIO", 2024)[1]
    answer = "In FY2024, BHP's revenue was US$2,000 million higher than Rio Tinto's [1,2]."
    result = check_numbers(answer, [BHP24, rio])
    assert result.unsupported == []
    # Companies by name; each figure with its unit, the way round people write it.
    assert [(d.label, d.formula) for d in result.derived] == [
        (
            "BHP Group vs Rio Tinto revenue difference FY2024",
            "US$55,658 million − US$53,658 million = US$2,000 million",
        )
    ]


def test_a_wrong_growth_figure_is_flagged_as_calculation() -> None:
    answer = "BHP's revenue rose 5.0% from FY2023 to FY2024 [1,2]."
    claims = unsupported(answer, [BHP23, BHP24])
    assert claims == [("BHP FY2023–FY2024 revenue calculation", "calculation")]


def test_a_growth_with_the_wrong_direction_is_flagged() -> None:
    answer = "BHP's revenue fell 3.4% from FY2023 to FY2024 [1,2]."
    assert [r for _, r in unsupported(answer, [BHP23, BHP24])] == ["calculation"]


def test_an_uncited_figure_is_general_knowledge_and_an_estimate_is_interpolation() -> None:
    assert unsupported("BHP's revenue was US$55,658 million in FY2024.", [BHP24]) == [
        ("BHP FY2024 revenue", "general_knowledge")
    ]
    estimate = "BHP's revenue is expected to reach US$60 billion in FY2025 [1]."
    assert unsupported(estimate, [BHP24]) == [("BHP FY2025 revenue estimate", "interpolation")]


def test_a_marker_out_of_range_cites_nothing() -> None:
    claims = unsupported("BHP's revenue for FY2024 was US$55,658 million [7].", [BHP24])
    assert claims == [("BHP FY2024 revenue", "general_knowledge")]


def test_labels_name_the_metric_and_context_never_the_number() -> None:
    answer = (
        "BHP's revenue for FY2024 was US$55,668 million [1]. "
        "BHP's net debt was US$19.12 billion in FY2024 [1]. "
        "Its revenue grew 12.5% [1]."
    )
    claims = check_numbers(answer, [BHP24, tables("BHP", 2024)[1]]).unsupported
    assert len(claims) == 3
    for claim in claims:
        assert len(claim.label.split()) <= 8
        assert not re.search(r"55|668|19\.12|12\.5", claim.label)


def test_not_found_lines_years_dates_and_pages_are_not_claims() -> None:
    answer = (
        "FMG FY2024 revenue: data not found in provided documents\n"
        "See BHP's FY2024 report for the year ended 30 June 2024, page 4 [1]."
    )
    result = check_numbers(answer, [BHP24])
    assert result.unsupported == [] and result.checked_numbers == 0


def test_markers_in_lists_ranges_and_after_the_full_stop_are_read() -> None:
    assert cited_sources("x [1,3] y", 3) == [0, 2]
    assert cited_sources("x [1][2]", 3) == [0, 1]
    assert cited_sources("x [1-3]", 3) == [0, 1, 2]
    answer = "BHP's revenue for FY2024 was US$55,658 million. [1]"
    assert unsupported(answer, [BHP24]) == []


def test_amounts_are_read_with_currency_scale_sign_and_kind() -> None:
    [loss, cents, dollars, volume, pct] = find_amounts(
        "a loss of US$173 million; 146 US cents; A$1.97 per share; 1,621 koz; 4.2%"
    )
    assert (loss.value, loss.kind, loss.currency, loss.factor, loss.negative) == (
        173.0,
        "money",
        "US$",
        1.0,
        True,
    )
    assert (cents.kind, cents.currency) == ("per_share", "US$")
    assert (dollars.kind, dollars.currency, dollars.factor) == ("per_share", "A$", 100.0)
    assert (volume.kind, volume.value) == ("gold", 1621.0)
    assert (pct.kind, pct.value) == ("percent", 4.2)


def answer_and_sources(question: str, pool: list[ChunkText]) -> tuple[str, list[ChunkText]]:
    """Route, grade and synthesise with the offline engine, as the workflow does."""

    async def run() -> tuple[str, list[ChunkText]]:
        engine = OfflineEngine()
        decision = await engine.route(question)
        grades = await engine.grade_documents(question, decision.slots, pool)
        kept = [pool[i] for i in grades.keep]
        draft = await engine.synthesize(question, decision.slots, kept)
        return draft.answer, kept

    return asyncio.run(run())


@pytest.mark.parametrize("ticker", ["BHP", "RIO", "FMG", "S32", "NST"])
def test_quiet_on_every_figure_the_offline_engine_answers_from_the_corpus(ticker: str) -> None:
    engine = OfflineEngine()
    sources = [c for year in (2023, 2024, 2025) for c in report(ticker, year)]
    answered = 0
    for metric in METRICS:
        for year in (2023, 2024, 2025):
            slots = Slots(companies=[ticker], fiscal_years=[year], metrics=[metric])
            draft = asyncio.run(engine.synthesize("q", slots, sources))
            result = check_numbers(draft.answer, sources)
            assert result.unsupported == [], (metric, year, draft.answer)
            answered += result.checked_numbers > 0
    assert answered >= 15


@pytest.mark.parametrize(
    "question",
    [
        "How did BHP revenue change from FY2023 to FY2025?",
        "How did South32 revenue change from FY2024 to FY2025?",
        "South32 net profit trend over the three years",
        "Northern Star gold sold growth",
        "Compare BHP and Rio revenue in FY2024",
        "Compare dividends per share in FY2024 for BHP, FMG and NST",
        "Which had higher net debt in FY2025, Fortescue or BHP?",
        "What was the revenue in FY2024?",
        "Tell me about Rio Tinto",
        "S32 net debt change",
    ],
)
def test_quiet_on_the_offline_engines_derived_and_comparison_answers(question: str) -> None:
    answer, kept = answer_and_sources(question, corpus())
    result = check_numbers(answer, kept)
    assert result.unsupported == [], answer
    assert result.checked_numbers > 0


def test_cross_company_change_label_names_the_compared_company_first() -> None:
    bhp = next(c for c in tables("BHP", 2024) if "55,658" in c.text)
    rio = next(c for c in tables("RIO", 2024) if "53,658" in c.text)
    answer = "In FY2024, BHP Group's revenue was 3.7% higher than Rio Tinto's [1,2]."
    report = check_numbers(answer, [bhp, rio])
    assert report.unsupported == []
    assert [d.label for d in report.derived] == ["BHP Group vs Rio Tinto revenue change FY2024"]


def test_the_numeric_check_agrees_with_every_labelled_calibration_pair() -> None:
    """evals/judge.jsonl in-process: the check fires on each deliberately wrong pair
    (altered digits, swapped years, wrong company, unit slips, wrong percentages and
    differences) and stays quiet on each correct one ("lifted … by 37.5%", a ratio stated
    as a share, a figure "as restated in the FY2024 report")."""
    from pathlib import Path

    from activities.contracts import ChunkLocator
    from domain.models import ChunkText
    from evals.judge import load_pairs
    from ingestion.documents import parse_document

    corpus = Path(__file__).resolve().parents[2] / "corpus" / "reports"
    chunks = {
        (d.company, d.fiscal_year): [c.as_text() for c in d.chunks]
        for d in map(parse_document, corpus.glob("*.md"))
    }

    def cited(ref: ChunkLocator) -> ChunkText:
        on_page = chunks[(ref.company, ref.fiscal_year)]
        [chunk] = [c for c in on_page if c.page == ref.page and ref.contains in c.text]
        return chunk

    wrong = []
    for pair in load_pairs():
        report = check_numbers(pair.answer, [cited(r) for r in pair.evidence])
        called = "unsupported" if report.unsupported else "supported"
        if called != pair.expected:
            wrong.append(f"{pair.id}: labelled {pair.expected}, called {called}")

    assert wrong == []


BHP25 = tables("BHP", 2025)[1]  # US$bn, FY2025 only: Revenue 51.26 / Net debt 12.92


@pytest.mark.parametrize(
    ("question", "answer", "sources"),
    [
        # the FY2025 figure for an FY2024 question, in a sentence that names no year
        (
            "What was BHP's revenue in FY2024?",
            "BHP's revenue was US$51.26 billion [2].",
            [BHP24, BHP25],
        ),
        # another metric's value, in a sentence that names no metric
        (
            "What was BHP's net debt in FY2025?",
            "BHP's figure for FY2025 was US$51.26 billion [1].",
            [BHP25],
        ),
        # another company's figure, in a sentence that names no company
        (
            "What was Rio Tinto's revenue in FY2025?",
            "Revenue for FY2025 was US$51.26 billion [1].",
            [BHP25],
        ),
    ],
)
def test_a_figure_that_names_nothing_is_bound_to_what_the_question_asked(
    question: str, answer: str, sources: list[ChunkText]
) -> None:
    assert check_numbers(answer, sources).unsupported == []  # alone, the sentence binds nothing
    assert check_numbers(answer, sources, question).unsupported != []


@pytest.mark.parametrize(
    ("question", "answer", "sources"),
    [
        (
            "What was BHP's revenue in FY2024?",
            "BHP's revenue was US$55,658 million [1].",
            [BHP24, BHP25],
        ),
        ("What was BHP's net debt in FY2025?", "BHP's figure was US$12.92 billion [1].", [BHP25]),
        ("What was BHP's revenue in FY2025?", "It was US$51.26 billion [1].", [BHP25]),
        # a sentence naming its own year and metric keeps them
        (
            "What was BHP's revenue in FY2024?",
            "BHP's FY2025 revenue was US$51.26 billion [2].",
            [BHP24, BHP25],
        ),
    ],
)
def test_a_figure_of_what_the_question_asked_stays_supported(
    question: str, answer: str, sources: list[ChunkText]
) -> None:
    assert check_numbers(answer, sources, question).unsupported == []


def test_a_target_date_or_baseline_year_is_not_the_figures_period() -> None:
    rio23 = [c for c in report("RIO", 2023) if "15% by 2025" in c.text]
    target = (
        "Rio Tinto's FY2023 report (Sustainability, page 10): \"Our targets are to reduce "
        "Scope 1 and 2 emissions by 15% by 2025 and by 50% by 2030, relative to our 2018 "
        'baseline." [1]'
    )
    assert (
        check_numbers(target, rio23, "Rio Tinto's climate targets in its 2023 report").unsupported
        == []
    )
    stated_for = "Rio Tinto cut Scope 1 and 2 emissions by 15% in FY2025 [1]."
    assert check_numbers(stated_for, rio23).unsupported != []  # a period, not a target


def test_the_check_names_each_backed_figure_by_its_sources_company_year_and_metric() -> None:
    report_ = check_numbers("BHP's revenue for FY2024 was US$55,658 million [1].", [BHP24])
    assert report_.unsupported == []
    assert report_.verified == [CheckedFigure(company="BHP", fiscal_year=2024, metric="revenue")]
    wrong = check_numbers("BHP's revenue for FY2024 was US$55,685 million [1].", [BHP24])
    assert wrong.verified == [] and wrong.unsupported  # quiet: nothing refuted is backed


# ---- figures written in words are checked as figures in digits are ---------------------


@pytest.mark.parametrize(
    "written",
    [
        "fifty-five point seven billion US dollars",
        "about fifty-six billion dollars",
        "fifty-five thousand six hundred and fifty-eight million US dollars",
        "US$ fifty-five point six six billion",
    ],
)
def test_a_right_figure_in_words_is_supported(written: str) -> None:
    report_ = check_numbers(f"BHP's revenue for FY2024 was {written} [1].", [BHP24])
    assert report_.unsupported == [] and report_.checked_numbers == 1
    assert report_.verified == [CheckedFigure(company="BHP", fiscal_year=2024, metric="revenue")]


@pytest.mark.parametrize(
    "written",
    [
        "fifty-three point eight billion US dollars",  # FY2023's, stated for FY2024
        "about forty billion dollars",
        "half a billion US dollars",
        "one and a half billion dollars",
        "twenty-nine billion dollars",  # underlying EBITDA's
    ],
)
def test_a_wrong_figure_in_words_is_refuted_as_in_digits(written: str) -> None:
    report_ = check_numbers(f"BHP's revenue for FY2024 was {written} [1].", [BHP24])
    assert [(c.label, c.reason) for c in report_.unsupported] == [
        ("BHP FY2024 revenue", "general_knowledge")
    ]
    assert report_.sentences["BHP FY2024 revenue"].startswith("BHP's revenue for FY2024 was")


def test_a_figure_in_words_without_a_citation_is_unsupported() -> None:
    answer = "BHP's revenue for FY2024 was fifty-five point seven billion US dollars."
    assert check_numbers(answer, [BHP24]).unsupported != []


def test_a_percentage_in_words_is_recomputed_or_refuted() -> None:
    right = "BHP's revenue rose three point four per cent from FY2023 to FY2024 [1][2]."
    report_ = check_numbers(right, [BHP23, BHP24])
    [derived] = report_.derived
    assert report_.unsupported == [] and "revenue change FY2023–FY2024" in derived.label
    wrong = "BHP's revenue rose nineteen per cent from FY2023 to FY2024 [1][2]."
    assert unsupported(wrong, [BHP23, BHP24]) == [
        ("BHP FY2023–FY2024 revenue calculation", "calculation")
    ]


def test_a_share_in_words_holds_within_a_twentieth_of_its_value() -> None:
    source = [prose("Iron ore accounted for 66% of Group revenue in FY2024.")]
    right = "Iron ore made up about two-thirds of BHP's revenue in FY2024 [1]."
    assert check_numbers(right, source).unsupported == []
    wrong = "Iron ore made up half of BHP's revenue in FY2024 [1]."
    assert check_numbers(wrong, source).unsupported != []


@pytest.mark.parametrize(
    "answer",
    [
        "In the first half of FY2024, BHP's revenue was US$55,658 million [1].",
        "BHP, one of the largest miners, had revenue of US$55,658 million in FY2024 [1].",
        "In twenty twenty-four BHP's revenue was US$55,658 million [1].",
        "For the second quarter in a row, BHP's FY2024 revenue was US$55,658 million [1].",
    ],
)
def test_ordinals_years_and_ordinary_words_are_not_read_as_figures(answer: str) -> None:
    report_ = check_numbers(answer, [BHP24])
    assert report_.unsupported == [] and report_.checked_numbers == 1


# ---- a change is read the way round and in the direction it is stated ------------------


@pytest.mark.parametrize(
    "answer",
    [
        "BHP's revenue fell 3.3% from FY2023 to FY2024 [1,2].",
        "BHP's revenue in FY2024 was 3.3% lower than in FY2023 [1,2].",
        "BHP's revenue changed by -3.3% from FY2023 to FY2024 [1,2].",
        "BHP's revenue changed by −3.4% from FY2023 to FY2024 [1,2].",
    ],
)
def test_a_change_stated_the_wrong_way_round_is_refuted(answer: str) -> None:
    """FY2023 53.82 → FY2024 55,658 is +3.4%; read from FY2024 back it is −3.3%, which
    these state for a change from FY2023 (or for FY2024 against FY2023)."""
    assert [r for _, r in unsupported(answer, [BHP23, BHP24])] == ["calculation"]


@pytest.mark.parametrize(
    ("answer", "formula"),
    [
        ("BHP's revenue rose 3.4% from FY2023 to FY2024 [1,2].", "= +3.4%"),
        ("BHP's revenue changed by +3.4% from FY2023 to FY2024 [1,2].", "= +3.4%"),
        ("BHP's revenue in FY2024 was 3.4% higher than in FY2023 [1,2].", "= +3.4%"),
        ("BHP's revenue in FY2023 was 3.3% lower than in FY2024 [1,2].", "= -3.3%"),
    ],
)
def test_a_change_stated_the_right_way_round_recomputes(answer: str, formula: str) -> None:
    report_ = check_numbers(answer, [BHP23, BHP24])
    assert report_.unsupported == []
    assert [d.formula.endswith(formula) for d in report_.derived] == [True]


def test_a_comparison_between_companies_is_measured_from_the_one_after_than() -> None:
    bhp = next(c for c in tables("BHP", 2024) if "55,658" in c.text)
    rio = next(c for c in tables("RIO", 2024) if "53,658" in c.text)
    right = "In FY2024, Rio Tinto's revenue was 3.6% lower than BHP Group's [1,2]."
    assert unsupported(right, [bhp, rio]) == []
    # (53,658 − 55,658) / 55,658 is −3.6%: BHP's measured from Rio Tinto's is +3.7%.
    swapped = "In FY2024, BHP Group's revenue was 3.6% lower than Rio Tinto's [1,2]."
    assert [r for _, r in unsupported(swapped, [bhp, rio])] == ["calculation"]


# ---- a one-sided qualifier is checked on its side only ----------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        "BHP's revenue for FY2024 was more than US$60 billion [1].",
        "BHP's revenue for FY2024 was over US$56 billion [1].",
        "BHP's revenue for FY2024 was almost US$55 billion [1].",
        "BHP's revenue for FY2024 was nearly US$60 billion [1].",
        "BHP's revenue for FY2024 was under US$55 billion [1].",
        "BHP's revenue for FY2024 was less than US$55.6 billion [1].",
        "BHP's revenue for FY2024 topped US$56 billion [1].",
        "BHP's revenue for FY2024 exceeded US$56 billion [1].",
        "BHP's revenue for FY2024 fell just short of US$55 billion [1].",
    ],
)
def test_a_one_sided_qualifier_on_the_wrong_side_is_refuted(answer: str) -> None:
    """Revenue was US$55,658 million: not more than 56 or 60, not under 55 or 55.6."""
    assert unsupported(answer, [BHP24]) != []


@pytest.mark.parametrize(
    "answer",
    [
        "BHP's revenue for FY2024 was more than US$55 billion [1].",
        "BHP's revenue for FY2024 was over US$55.6 billion [1].",
        "BHP's revenue for FY2024 was almost US$56 billion [1].",
        "BHP's revenue for FY2024 was nearly US$56 billion [1].",
        "BHP's revenue for FY2024 was under US$56 billion [1].",
        "BHP's revenue for FY2024 was about US$56 billion [1].",
        "BHP's revenue for FY2024 topped US$55 billion [1].",
        "BHP's revenue for FY2024 fell just short of US$56 billion [1].",
    ],
)
def test_a_one_sided_qualifier_on_the_right_side_is_supported(answer: str) -> None:
    assert unsupported(answer, [BHP24]) == []


def test_a_one_sided_qualifier_bounds_a_recomputed_change_too() -> None:
    assert (
        unsupported("BHP's revenue rose more than 3% from FY2023 to FY2024 [1,2].", [BHP23, BHP24])
        == []
    )
    assert (
        unsupported("BHP's revenue rose more than 4% from FY2023 to FY2024 [1,2].", [BHP23, BHP24])
        != []
    )


# ---- a decimal comma is a decimal point; a comma before three digits groups thousands ---


def test_a_decimal_comma_is_read_and_checked() -> None:
    assert [(a.value, a.decimals) for a in find_amounts("US$53,8 billion and 4,25%")] == [
        (53.8, 1),
        (4.25, 2),
    ]
    assert [(a.value, a.decimals) for a in find_amounts("US$53,800 million")] == [(53800.0, 0)]
    assert unsupported("BHP's revenue for FY2024 was US$55,7 billion [1].", [BHP24]) == []
    # FY2023's figure, written with a decimal comma, for FY2024: refuted as in digits.
    assert unsupported("BHP's revenue for FY2024 was US$53,8 billion [1].", [BHP24]) == [
        ("BHP FY2024 revenue", "general_knowledge")
    ]


@pytest.mark.parametrize("text", ["in 2023,2024", "1,234,56", "FY2024,25"])
def test_a_comma_that_is_neither_rule_or_a_list_of_years_is_no_figure(text: str) -> None:
    assert find_amounts(text) == []


# ---- every sentence of a refuted claim is named, not the first only ---------------------


def test_a_refuted_figure_said_twice_names_both_its_sentences() -> None:
    first = "BHP's revenue for FY2024 was US$53.82 billion [1]."
    again = "In short, BHP's FY2024 revenue came to US$53.82 billion [1]."
    right = "BHP's underlying EBITDA for FY2024 was US$29,016 million [1]."
    report_ = check_numbers(f"{first} {right} {again}", [BHP24])
    assert report_.every_sentence == {"BHP FY2024 revenue": [first, again]}
    assert report_.sentences == {"BHP FY2024 revenue": first}
    quiet = check_numbers(f"{right} {right}", [BHP24])
    assert quiet.every_sentence == {} and quiet.unsupported == []


def _rates(rows: str) -> ChunkText:
    """A BHP FY2024 notes table of these Markdown rows, FY2024 and FY2023 columns."""
    text = (
        f"[header]\n| US$M | FY2024 (30 Jun 2024) | FY2023 (30 Jun 2023) |\n|---|---|---|\n{rows}"
    )
    return ChunkText(
        chunk_id="t1",
        company="BHP",
        fiscal_year=2024,
        document="BHP_FY2024.md",
        page=77,
        section="Income taxes",
        text=text,
        is_table=True,
        unit="US$M",
    )


def test_a_negative_rate_in_brackets_before_its_sign_backs_minus_and_not_plus() -> None:
    """Boeing's 10-K prints its effective tax rate "(0.6)%": the cell was read as a bare
    number, and the answer's "minus 0.6%" as plus, so the figure was withheld as
    unverifiable. Quiet: "0.6%" without its sign is not backed."""
    rate = _rates("| Effective income tax rate | (0.6)% | 14.8% |\n")
    said = "BHP's effective income tax rate for FY2024 was minus 0.6% [1]."
    assert unsupported(said, [rate]) == []
    assert unsupported(said.replace("minus ", ""), [rate]) != []


def test_a_workings_result_is_read_with_its_plus_sign_and_checked_against_its_working() -> None:
    """Corning's change of effective tax rate, "22.9% − 20.2% = +2.7 percentage points",
    was withheld: the "+" before the result hid it from the working. And a wrong result
    ("= +3.7") was backed because a 3.7 is printed elsewhere in the same table: a result
    of written working is checked against its working, whatever else the source prints."""
    rate = _rates(
        "| Audit settlements & change in reserve | 3.7 | 1.6 |\n"
        "| Effective tax rate | 22.9% | 20.2% |\n"
    )
    right = (
        "BHP's effective tax rate rose from FY2023 to FY2024: 22.9% [1] − 20.2% [1] = +2.7 "
        "percentage points."
    )
    report_ = check_numbers(right, [rate])
    assert report_.unsupported == [] and report_.derived
    wrong = right.replace("+2.7", "+3.7")
    assert [c.reason for c in check_numbers(wrong, [rate]).unsupported] == ["calculation"]


QUOTED_SOURCE = (
    "For the full year, as a percentage of revenue, operating costs decreased to 23.5%\n"
    "compared to 23.9% in FY2023, primarily due to lower freight costs and leverage of\n"
    "fixed costs due to higher volumes."
)


def test_a_sentence_quoted_word_for_word_backs_its_own_percentages() -> None:
    """A share the report states in a sentence quoted whole (its basis and period are the
    report's words) is backed by the quote found in the cited source, across its line
    breaks, though no figure of the sources recomputes it."""
    answer = (
        "BHP's FY2024 report (Financial review, page 5): \"As a percentage of revenue, "
        "operating costs decreased to 23.5% compared to 23.9% in FY2023, primarily due to "
        'lower freight costs and leverage of fixed costs due to higher volumes." [1]'
    )
    report_ = check_numbers(answer, [prose(QUOTED_SOURCE)], "Why did BHP's costs fall?")
    assert report_.unsupported == [] and report_.checked_numbers == 2


@pytest.mark.parametrize(
    "quote",
    [
        # one figure changed inside the quote
        "As a percentage of revenue, operating costs decreased to 22.5% compared to 23.9% in "
        "FY2023, primarily due to lower freight costs",
        # words changed around the figures: not the report's sentence
        "As a percentage of revenue, operating costs fell sharply to 23.5% against 23.9% in FY2023",
    ],
)
def test_a_quote_that_is_not_the_reports_words_is_checked_as_any_sentence(quote: str) -> None:
    answer = f'BHP\'s FY2024 report (Financial review, page 5): "{quote}." [1]'
    report_ = check_numbers(answer, [prose(QUOTED_SOURCE)], "Why did BHP's costs fall?")
    assert report_.unsupported, quote


def test_a_quote_of_another_source_than_the_one_cited_backs_nothing() -> None:
    answer = (
        "BHP's FY2024 report: \"as a percentage of revenue, operating costs decreased to "
        '23.5% compared to 23.9% in FY2023" [1]'
    )
    report_ = check_numbers(answer, [BHP24, prose(QUOTED_SOURCE)], "Why did BHP's costs fall?")
    assert report_.unsupported


TWO_SENTENCES = (
    "Trade receivables at the end of the year totalled $412 million compared to $380\n"
    "million a year earlier. The $32 million increase was primarily due to longer payment\n"
    "terms agreed with two steelmaking customers in Asia."
)


def test_a_quotation_of_two_sentences_cited_once_at_its_end_is_one_claim() -> None:
    """A passage of two sentences quoted whole and cited after its closing quote: its first
    sentence's figures are backed by the same citation. Quiet: a figure changed in it."""
    quote = " ".join(TWO_SENTENCES.split())
    answer = f'BHP\'s FY2024 report (Working capital, page 5): "{quote}" [1]'
    report_ = check_numbers(answer, [prose(TWO_SENTENCES)], "Why did receivables rise?")
    assert report_.unsupported == [] and report_.checked_numbers == 3
    altered = answer.replace("$412 million", "$421 million")
    assert check_numbers(altered, [prose(TWO_SENTENCES)], "Why did receivables rise?").unsupported


def test_a_total_over_several_companies_is_backed_by_each_ones_cited_figure() -> None:
    """A share of a total over several companies writes each one's figure in one working;
    each was bound to the company named nearest it (the last), so a right total was
    withheld. A figure of written working is backed by any company its sentence names.
    Still fires: a figure no cited source prints, and a result its working does not give."""
    sources = [
        prose("Revenue was US$5,200 million.", company="BHP"),
        prose("Revenue was US$4,100 million.", company="RIO"),
        prose("Revenue was US$700 million.", company="S32"),
    ]
    said = (
        "Together, BHP Group, Rio Tinto and South32 had revenue in FY2024 of "
        "US$5,200 million + US$4,100 million + US$700 million = US$10,000 million [1,2,3]."
    )
    report_ = check_numbers(said, sources)
    assert report_.unsupported == [] and len(report_.derived) == 1, report_
    share = (
        "BHP Group's share of the combined revenue of BHP Group, Rio Tinto and South32 in "
        "FY2024 was US$5,200 million ÷ (US$5,200 million + US$4,100 million + US$700 million)"
        " × 100 = 52.0% [1,2,3]."
    )
    assert unsupported(share, sources) == []
    assert unsupported(share.replace("52.0%", "55.0%"), sources) != []
    assert (
        unsupported(
            said.replace("US$700 million +", "US$900 million +").replace("10,000", "10,200"),
            sources,
        )
        != []
    )
    # Only the companies it names: South32's figure does not back a sentence naming two.
    two = said.replace(" and South32", "")
    two = two.replace("Together, BHP Group,", "Together, BHP Group and")
    assert unsupported(two, sources) != []


@pytest.mark.parametrize(
    ("label", "shown"),
    [
        ("RIO FY2025 revenue of US$55.7 billion", "RIO FY2025 revenue"),
        ("FMG FY2024 net debt was US$0.5bn", "FMG FY2024 net debt"),
        ("NST gold sold 1,630 koz in FY2025", "NST gold sold in FY2025"),
        ("BHP revenue of fifty-five point seven billion dollars", "BHP revenue"),
        # quiet: a year, a kind's number and a place named like a unit are no figures
        ("S32 FY2025 Scope 3 emissions", "S32 FY2025 Scope 3 emissions"),
        ("BHP FY2025 Mt Arthur coal production", "BHP FY2025 Mt Arthur coal production"),
        ("RIO FY2025 revenue", "RIO FY2025 revenue"),
    ],
)
def test_a_claim_label_is_shown_without_the_figures_it_states(label: str, shown: str) -> None:
    from domain.language.amounts import label_without_figures

    assert label_without_figures(label) == shown
