"""The relevance control (`domain.checks.relevance.check_relevance`), on the sample corpus: it
fires on answers about something else and is quiet on answers to the question."""

import pytest

from backends.embeddings import LocalEmbedder, similarity_of
from domain.checks.relevance import check_relevance
from domain.models import ChunkText
from tests.unit.corpus_chunks import report
from workflows.rules.relevance import OFF_POINT_LEAD, WHY_LEAD, relevance_verdict

BHP_2024 = report("BHP", 2024)
REVENUE = "BHP Group's revenue for FY2024 was US$55,658 million [1]."
NET_DEBT_GAP = "BHP FY2024 net debt: data not found in provided documents"


def test_an_answer_with_the_asked_figure_is_addressed() -> None:
    relevance = check_relevance("What was BHP's revenue in FY2024?", REVENUE, BHP_2024)
    assert relevance.addressed and not relevance.off_point
    assert [i.status for i in relevance.items] == ["answered"]


def test_an_answer_with_the_asked_figure_in_words_is_addressed() -> None:
    answer = "BHP Group's revenue for FY2024 was fifty-five point seven billion US dollars [1]."
    relevance = check_relevance("What was BHP's revenue in FY2024?", answer, BHP_2024)
    assert relevance.addressed and [i.status for i in relevance.items] == ["answered"]


def test_an_answer_about_another_measure_is_off_point() -> None:
    relevance = check_relevance("What was BHP's net debt in FY2024?", REVENUE, BHP_2024)
    assert relevance.off_point and not relevance.addressed
    assert relevance.missing() == ["net debt"]


def test_a_measure_with_its_not_found_line_is_covered_but_not_answered() -> None:
    answer = f"{REVENUE}\n\n{NET_DEBT_GAP}"
    relevance = check_relevance("What were BHP's revenue and net debt in FY2024?", answer, BHP_2024)
    assert relevance.addressed
    assert sorted(i.status for i in relevance.items) == ["answered", "not_found"]


def test_a_measure_in_no_vocabulary_is_matched_by_the_report_sentence() -> None:
    answer = (
        "BHP Group's FY2024 report says: \"Finally, thank you to the more than 80,000 "
        'employees and contractors who make BHP what it is" [1]'
    )
    relevance = check_relevance(
        "How many employees and contractors does BHP have in FY2024?", answer, BHP_2024
    )
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
    on_point = _quote(
        "We paused the Arizona hydrogen project and the PEM50 electrolyser facility "
        "in Gladstone, and focused on projects where there is a clear route to "
        "commercial returns, as well as on the technology required to decarbonise "
        "our own fleet."
    )
    assert check_relevance(question, on_point, FMG_2025).addressed


def test_the_section_an_answer_names_before_its_quote_is_not_what_it_says() -> None:
    question = "What does Fortescue say about cyber security in its FY2025 risk factors?"
    other = _quote(
        "Fortescue Energy concentrated on a smaller set of projects and technologies.",
        section="Risk factors",
        page=11,
    )
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
    other = quote(
        "Technology executive with a background in industrial automation and data; "
        "member of the Risk and Audit Committee."
    )
    assert not check_relevance(question, other, BHP_2025_BOARD).addressed
    # Quiet: a quote holding the rare word and another of the part's words.
    both = quote(
        "Technology executive with a background in industrial automation; Chair of "
        "the Sustainability Committee."
    )
    assert check_relevance(question, both, BHP_2025_BOARD).addressed


# A condition narrows the measure; the figure it does not narrow to is not the answer.
FMG_2023 = report("FMG", 2023)


def test_a_figure_the_questions_condition_rules_out_does_not_answer_it() -> None:
    question = (
        "Excluding one-off and non-cash items, what were Fortescue's bottom-line "
        "earnings in the 2023 financial year?"
    )
    statutory = (
        "Fortescue's net profit after tax (reported as Net profit after tax (NPAT)) "
        "for FY2023 (year ended 30 June 2023) was US$4.80 billion [1]."
    )
    sources = sorted(FMG_2023, key=lambda c: "US$4.80 billion" not in c.text)
    relevance = check_relevance(question, statutory, sources)
    assert relevance.off_point, relevance
    assert [i.focus for i in relevance.items] == [
        "Excluding one-off non-cash items bottom-line earnings"
    ]  # one ask: the condition is not an ask of its own, its "and" joins nothing
    underlying = next(c for c in FMG_2023 if "5.52" in c.text)
    answer = "Fortescue's underlying NPAT for FY2023 was US$5.52 billion [1]."
    assert check_relevance(question, answer, [underlying]).addressed


def test_a_topic_is_not_answered_by_a_figure_sharing_one_of_its_words() -> None:
    rio = report("RIO", 2024)
    production = sorted(rio, key=lambda c: "328" not in c.text)
    question = "What's Rio's ambition for its big Mongolian copper mine, per the FY24 report?"
    figure = (
        "Rio Tinto's production (reported as Pilbara iron ore production (100%)) for FY2024 "
        "was 328 Mt [1]."
    )
    assert check_relevance(question, figure, production).off_point
    board = sorted(BHP_2024, key=lambda c: "Board seats" not in c.text)
    women = "What did BHP report about women's Board seats in FY2024?"
    held = "In FY2024, women held 45% of BHP's Board seats [1]."
    assert check_relevance(women, held, board).addressed  # its label holds the words


def test_a_when_question_is_answered_by_a_quote_that_says_a_time() -> None:
    rio = report("RIO", 2023) + report("RIO", 2024)
    sources = sorted(rio, key=lambda c: "began sustainable production" not in c.text)
    question = "When did the Oyu Tolgoi underground mine start producing?"
    timeless = (
        "Rio Tinto's FY2024 report (Chair's letter, page 1): \"Construction at Simandou "
        "in Guinea advanced rapidly toward first shipments, and the Oyu Tolgoi "
        'underground mine continued its ramp-up." [1]'
    )
    assert check_relevance(question, timeless, sources).off_point
    dated = (
        "Rio Tinto's FY2023 report (Operations review, page 3): \"At Oyu Tolgoi, the "
        'underground mine began sustainable production in March 2023." [1]'
    )
    assert check_relevance(question, dated, sources).addressed


def test_a_word_spelt_the_other_way_is_still_the_questions_point() -> None:
    nst = report("NST", 2023) + report("NST", 2024)
    sources = sorted(nst, key=lambda c: "centrepiece" not in c.text)
    question = "What's the centerpiece of Northern Star's five-year growth plan?"
    around = (
        "Northern Star's FY2023 report (Chair's letter, page 1): \"We are in the middle "
        'of a five-year plan to grow production, lower costs and lift margins." [1]'
    )
    assert not check_relevance(question, around, sources).addressed
    point = (
        "Northern Star's FY2024 report (Chair's letter, page 1): \"The Board approved the "
        "expansion of the Fimiston mill at KCGM, the centrepiece of our plan to lift "
        'production." [1]'
    )
    assert check_relevance(question, point, sources).addressed


def test_a_figure_of_a_year_the_question_does_not_ask_for_does_not_answer_it() -> None:
    s32 = report("S32", 2025)
    sources = sorted(s32, key=lambda c: "US$666 million exclude" not in c.text)
    quote = (
        "South32's FY2025 report (Financial review, page 5) says: \"Underlying earnings of "
        'US$666 million exclude items such as impairment charges." [1]'
    )
    asked_2024 = "What was South32's profit excluding one-off items for the year to 30 June 2024?"
    assert not check_relevance(asked_2024, quote, sources).addressed
    asked_2025 = "What was South32's profit excluding one-off items for the year to 30 June 2025?"
    assert check_relevance(asked_2025, quote, sources).addressed


def test_a_quantity_of_another_kind_does_not_answer_a_question_that_asks_for_money() -> None:
    fmg = report("FMG", 2025)
    asked = "How much did Fortescue bring in from selling its product in FY2025?"
    shipments = "Fortescue's iron ore shipments for FY2025 were 198.4 Mt [1]."
    sources = sorted(fmg, key=lambda c: "| Iron ore shipments | 198.4 |" not in c.text)
    assert not check_relevance(asked, shipments, sources).addressed
    revenue = "Fortescue's revenue for FY2025 was US$15.54 billion [1]."
    sources = sorted(fmg, key=lambda c: "Revenue of US$15.54 billion was lower" not in c.text)
    assert check_relevance(asked, revenue, sources).addressed


def test_a_question_naming_its_quantity_is_answered_by_a_figure_in_it() -> None:
    asked = "How much iron ore did Fortescue ship in FY2025?"
    shipments = "Fortescue's iron ore shipments for FY2025 were 198.4 Mt [1]."
    sources = sorted(
        report("FMG", 2025), key=lambda c: "| Iron ore shipments | 198.4 |" not in c.text
    )
    assert check_relevance(asked, shipments, sources).addressed


def test_a_quote_of_the_parts_common_words_does_not_answer_what_the_evidence_never_says() -> None:
    # Half the question's words ("prone", "cyclicality") are nowhere in the evidence: a
    # quote holding only the others ("rail", "systems") is not about its point.
    fmg = sorted(FMG_2025, key=lambda c: "exposed to cyber" not in c.text)
    said = _quote(
        "The autonomous haulage and rail systems are exposed to cyber threats.",
        section="Risk factors",
        page=11,
    )
    question = "Are Fortescue's rail systems prone to cyclicality?"
    assert not check_relevance(question, said, fmg).addressed
    # Quiet: a question whose words the evidence uses is answered by the same quote.
    question = "Are Fortescue's rail systems exposed to cyber threats?"
    assert check_relevance(question, said, fmg).addressed


def _note(text: str) -> list[ChunkText]:
    return [
        ChunkText(
            chunk_id="n1",
            company="BHP",
            fiscal_year=2024,
            document="BHP_FY2024.md",
            page=26,
            section="Provision for Income Taxes",
            text=f"[header]\n{text}",
            is_table=False,
            unit=None,
        )
    ]


def test_a_figure_of_the_thing_a_sentence_compares_with_does_not_answer_its_subject(
    embedder: LocalEmbedder,
) -> None:
    """A 10-K's "the effective tax rate differed from the U.S. statutory rate of 21%": the
    21% is the statutory rate's; read by its whole sentence it answered "effective tax
    rate" and was shown at high confidence. Quiet on a sentence that gives the rate."""
    question = "What was BHP's effective tax rate in FY2024?"
    compared = _note(
        "For the year ended June 30, 2024, the effective tax rate differed from the U.S. "
        "statutory rate of 21% primarily due to tax credits."
    )
    answer = "BHP Group's U.S. statutory rate for FY2024 was 21% [1]."
    similarity = similarity_of(embedder)  # the sentence's meaning is the effective rate's
    assert not check_relevance(question, answer, compared, similarity=similarity).addressed
    stated = _note("For the year ended June 30, 2024, the effective tax rate was 23%.")
    answer = "BHP Group's effective tax rate for FY2024 was 23% [1]."
    assert check_relevance(question, answer, stated, similarity=similarity).addressed


_YEARS = "| US$M | FY2024 (30 Jun 2024) | FY2023 (30 Jun 2023) |"


def _table(rows: str, section: str, header: str = _YEARS) -> list[ChunkText]:
    """A BHP FY2024 table chunk of these Markdown rows under `header`."""
    text = f"[header]\n{header}\n|---|---|---|\n{rows}"
    return [
        ChunkText(
            chunk_id="t1",
            company="BHP",
            fiscal_year=2024,
            document="BHP_FY2024.md",
            page=80,
            section=section,
            text=text,
            is_table=True,
            unit="US$M",
        )
    ]


def _receivables() -> list[ChunkText]:
    return _table(
        "| Card Member receivables | 57,613 | 53,575 |\n| Card Member loans | 104,997 | 88,215 |\n",
        "Balance sheet",
    )


def test_a_figure_sharing_words_of_a_part_the_evidence_never_speaks_of_does_not_answer(
    embedder: LocalEmbedder,
) -> None:
    """ "Was American Express able to retain card members?" was answered at high confidence
    by its Card Member receivables: "retain" is nowhere in the evidence, and a figure of
    the part's other words is another measure. Quiet when the part is the label's."""
    similarity = similarity_of(embedder)
    answer = "BHP Group's card Member receivables for FY2024 were US$57,613 million [1]."
    retain = "Was BHP able to retain card members in FY2024?"
    assert not check_relevance(retain, answer, _receivables(), similarity=similarity).addressed
    asked = "What were BHP's card member receivables in FY2024?"
    assert check_relevance(asked, answer, _receivables(), similarity=similarity).addressed


def test_an_amount_of_money_does_not_answer_a_rate() -> None:
    """Corning's "The calculation of the effective tax rate excludes net income ... of $70
    million" answered "effective tax rate" at high confidence. Quiet on the rate itself."""
    question = "What was BHP's effective tax rate in FY2024?"
    money = _note(
        "The calculation of the effective tax rate excludes net income attributable to "
        "non-controlling interest of US$70 million."
    )
    answer = (
        "BHP Group's FY2024 report says: \"The calculation of the effective tax rate excludes "
        'net income attributable to non-controlling interest of US$70 million." [1]'
    )
    assert not check_relevance(question, answer, money).addressed
    stated = _note("For the year ended June 30, 2024, the effective tax rate was 23%.")
    answer = "BHP Group's effective tax rate for FY2024 was 23% [1]."
    assert check_relevance(question, answer, stated).addressed


def test_a_share_of_a_measure_the_evidence_never_speaks_of_is_not_answered_by_another() -> None:
    """Ulta's "wages expense as a percent of net sales" was answered at high confidence by
    its SG&A share: no figure of the evidence is wages. Quiet on a share it does print."""
    sources = _note("Selling, general and administrative expenses were 23.6% of net sales.")
    answer = "BHP Group's SG&A expenses as a share of net sales for FY2024 were 23.6% [1]."
    wages = "Did BHP's wages expense as a percent of net sales increase in FY2024?"
    assert not check_relevance(wages, answer, sources).addressed
    sga = (
        "What were BHP's selling, general and administrative expenses as a percent of net "
        "sales in FY2024?"
    )
    assert check_relevance(sga, answer, sources).addressed


def test_a_share_the_evidence_never_speaks_of_is_not_answered_by_a_close_meaning(
    embedder: LocalEmbedder,
) -> None:
    """The same with the embedder's meaning, as the turn runs it: "SG&A expenses" is close
    in meaning to "wages expense", and the SG&A share (then bound to revenue as if a
    percentage were an amount of sales) was taken for the wages share at high confidence."""
    similarity = similarity_of(embedder)
    sources = _note(
        "As a percentage of net sales, SG&A expenses decreased to 23.6% compared to 23.8% in "
        "the fourth quarter of fiscal 2023."
    )
    answer = "BHP Group's of net sales, SG&A expenses for FY2024 were 23.6% [1]."
    wages = "Did BHP's wages expense as a percent of net sales increase or decrease in FY2024?"
    assert not check_relevance(wages, answer, sources, similarity=similarity).addressed


def _sales(rows: str) -> list[ChunkText]:
    return _table(rows, "Sales by region")


def test_a_word_narrowing_a_measure_is_asked_of_its_figure(embedder: LocalEmbedder) -> None:
    """J&J's "US sales growth compared to international sales growth" was answered at high
    confidence with total sales: "international" narrows the measure the vocabulary names
    (revenue), and no figure of the evidence is international. Quiet when the evidence
    prints it, and on a plain "total revenue"."""
    similarity = similarity_of(embedder)
    question = "How did BHP's international sales compare with the year before in FY2024?"
    total = _sales("| Sales to customers | 94,943 | 93,775 |\n")
    answer = (
        "BHP Group's revenue (reported as Sales to customers) for FY2024 was US$94,943 million [1]."
    )
    assert not check_relevance(question, answer, total, similarity=similarity).addressed
    split = _sales(
        "| Sales to customers | 94,943 | 93,775 |\n| International sales | 46,600 | 47,300 |\n"
    )
    said = "BHP Group's international sales for FY2024 were US$46,600 million [1]."
    assert check_relevance(question, said, split, similarity=similarity).addressed
    plain = "What was BHP's total revenue in FY2024?"
    assert check_relevance(plain, answer, total, similarity=similarity).addressed


def _quarter_and_year() -> list[ChunkText]:
    return _table(
        "| Net earnings as a percent of sales | 20.1 | 17.9 |\n",
        "Statement of earnings",
        "| US$M | Q2 FY2024 (3 months to 31 Dec 2023) | FY2023 (30 Jun 2023) |",
    )


def test_a_whole_years_figure_does_not_answer_a_quarter() -> None:
    """J&J's "net earnings as a percent of sales in Q2 of FY2023" was answered with a
    figure said as the fiscal year's, at medium confidence. A quarter's figure answers it;
    a whole year's does not. Quiet on a question of the year."""
    sources = _quarter_and_year()
    year_answer = "BHP Group's net earnings as a percent of sales for FY2023 were 17.9% [1]."
    quarter = "What were BHP's net earnings as a percent of sales in the second quarter of FY2023?"
    assert not check_relevance(quarter, year_answer, sources).addressed
    quarter_answer = "BHP Group's net earnings as a percent of sales for Q2 FY2024 were 20.1% [1]."
    q2 = "What were BHP's net earnings as a percent of sales in Q2 FY2024?"
    assert check_relevance(q2, quarter_answer, sources).addressed
    year = "What were BHP's net earnings as a percent of sales in FY2023?"
    assert check_relevance(year, year_answer, sources).addressed


def test_a_rate_of_growth_asked_is_not_answered_by_levels_alone() -> None:
    """J&J's "Is growth in adjusted EPS expected to accelerate?" was answered at high
    confidence with two EPS levels: the rate it asks about was nowhere. Quiet: the same
    levels with the growth worked out answer it; a growth plan asked about is a topic."""
    text = (
        "[BHP Group · Annual Report 2025 · FY2025 · Operations · page 12]\n"
        "| kt | FY2025 (30 Jun 2025) | FY2024 (30 Jun 2024) |\n|---|---|---|\n"
        "| Copper cathode shipped | 1,840 | 1,720 |\n"
    )
    sources = [
        ChunkText(
            chunk_id="cu",
            company="BHP",
            fiscal_year=2025,
            document="BHP_FY2025.md",
            page=12,
            section="Operations",
            text=text,
            is_table=True,
            unit=None,
        )
    ]
    question = "Is growth in BHP's copper cathode shipped picking up in FY2025?"
    levels = (
        "BHP Group's copper cathode shipped for FY2024 was 1,720 kt [1]. BHP Group's copper "
        "cathode shipped for FY2025 was 1,840 kt [1]."
    )
    assert not check_relevance(question, levels, sources).addressed
    rate = f"{levels} It rose 7.0% from FY2024 to FY2025, from 1,720 kt [1] to 1,840 kt [1]."
    assert check_relevance(question, rate, sources, ["BHP copper cathode shipped change"]).addressed
    plain = "What was BHP's copper cathode shipped in FY2025?"
    assert check_relevance(plain, levels, sources).addressed


_PROCEEDS = (
    "The Group generated $4.1 billion in cash proceeds from the initial public offering of "
    "Ridgeline Resources, following the demerger of its coal business."
)
_OTHER_PROCEEDS = (
    "The Group received $2.3 billion in cash proceeds from the sale of its aluminium smelter."
)


@pytest.mark.parametrize(
    "question",
    [
        "What is the amount of the cash proceeds that the Group realised from the spin-off of "
        "Ridgeline Resources, as of June 30, 2024?",
        "How much were the cash proceeds which the Group collected on the demerger of Ridgeline?",
        "What were the cash proceeds accruing to the Group as a result of the Ridgeline listing?",
    ],
)
def test_a_figure_said_with_other_words_of_how_it_came_about_answers(question: str) -> None:
    """The measure is the cash proceeds; the clause after it ("that it realised from the
    spin-off of ...") says how they came about, which the report says in its own words
    ("generated ... from the initial public offering of ..."): one of its words heard in
    the sentence is enough, and its verb is no word of the measure."""
    answer = f'BHP\'s FY2024 report says: "{_PROCEEDS}" [1]'
    assert check_relevance(question, answer, _note(_PROCEEDS)).addressed, question


@pytest.mark.parametrize(
    "question",
    [
        "What is the amount of the cash proceeds that the Group realised from the spin-off of "
        "Ridgeline Resources?",
        "What were the cash proceeds that the Group realised from Ridgeline?",
    ],
)
def test_the_same_measure_of_another_occasion_does_not_answer(question: str) -> None:
    """Quiet: proceeds from the sale of a smelter share the measure's words and none of
    how the proceeds asked came about (with one word of it, the measure's words alone
    would pass: none of it heard in the sentence, it is another occasion's figure)."""
    answer = f'BHP\'s FY2024 report says: "{_OTHER_PROCEEDS}" [1]'
    both = _note(f"{_PROCEEDS} {_OTHER_PROCEEDS}")
    assert not check_relevance(question, answer, both).addressed


S32_2024 = report("S32", 2024)
SOLD = (
    "South32's FY2024 report (Chair's letter, page 1): \"We agreed to sell Illawarra "
    'Metallurgical Coal and approved the development of the Taylor deposit." [1]'
)


def test_a_why_answered_by_a_sentence_giving_no_cause_says_the_reports_give_no_reason() -> None:
    """A reason asked, a nearby line quoted: the answer says first that the reports give
    no reason, at low confidence (it quoted the line as the closest they say)."""
    relevance = check_relevance("Why did South32 sell Illawarra?", SOLD, S32_2024)
    assert relevance.unexplained, relevance
    verdict = relevance_verdict(relevance, ["S32"], [2024])
    assert verdict.lead == WHY_LEAD and verdict.low


def test_a_why_answered_by_a_cause_or_a_what_is_quiet() -> None:
    because = SOLD.replace(
        'Taylor deposit." [1]', 'Taylor deposit, because coal no longer fits." [1]'
    )
    assert not check_relevance("Why did South32 sell Illawarra?", because, S32_2024).unexplained
    assert not check_relevance("What did South32 sell in FY2024?", SOLD, S32_2024).unexplained


def test_an_answer_that_cites_nothing_is_not_led_as_the_closest_the_reports_say() -> None:
    """ "I found nothing in Rio Tinto's reports that addresses this question." was led by
    "this is the closest they say:", with nothing below it."""
    nothing = (
        "I found nothing in Rio Tinto's reports for FY2023–FY2025 that addresses this question."
    )
    relevance = check_relevance("Why did Rio Tinto's chief executive step down?", nothing, [])
    verdict = relevance_verdict(relevance, ["RIO"], [2024])
    assert verdict.lead is None and verdict.low and not relevance.unexplained
