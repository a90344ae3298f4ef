"""Answer-quality cases: questions phrased the way people ask them, on the sample corpus.

Each case names the category of the answer-quality issue it covers (see `CATEGORIES`)
and says what a person must see: the status, figures that must be in the answer,
figures that must not be (a figure not asked for, presented as the answer), the
"data not found" lines, how the answer must open, and what confidence it may not have.
Figures come from the sample reports (corpus/reports), so changing a report changes
what these cases expect — they are not answers keyed by question.

`tests/answers/test_answer_quality.py` runs every case as whole turns through the
workflow; `bench/answers.py` runs them against a running stack and reports per category.
"""

from dataclasses import dataclass, field
from typing import Literal

from domain.evaluation.scoring import TurnExpected, score_turn
from domain.turns import TurnResult
from workflows.rules.scope import DECLINE_LINE

CATEGORIES: dict[int, str] = {
    1: "a measure the reports do not print gets its not-found line, not a bundle",
    2: "a line item (interim/final, underlying/statutory) is answered, not the total",
    3: "a year outside coverage is said first, in the answer text",
    4: "follow-ups keep the metric and the comparison intent",
    5: "advice and share-price predictions are declined, never silently",
    6: "a bare metric with no company asks which company",
    7: "misspelt names, tickers with exchange suffixes and Chinese names resolve",
    8: "one unit scale per sentence; the report's currency, never an unstated rate",
    9: "a restated figure mentions the restatement",
    10: "comparisons of three or more companies read as a table",
    11: "questions that are not about a figure are answered from the text",
    12: "a measure the reports print outside the headline tables is answered, cited",
    13: "a margin, share or ratio is worked out from its two cited figures",
    14: "the closest available, said as such, when the reports lack the exact measure",
}

Status = Literal["answered", "needs_clarification", "refused", "fallback"]


@dataclass(frozen=True)
class Case:
    id: str
    category: int
    question: str
    status: Status = "answered"
    before: tuple[str, ...] = ()
    """Earlier questions of the same conversation (asked first, in order)."""
    present: tuple[str, ...] = ()
    absent: tuple[str, ...] = ()
    not_found: tuple[str, ...] = ()
    """Text each expected "data not found" line contains ("FMG FY2024 free cash flow")."""
    opens_with: str | None = None
    not_opens_with: tuple[str, ...] = ()
    confidence_not: tuple[str, ...] = ()
    refusal_reason: str | None = None
    pending: str | None = None
    """Not built yet: the case documents the gap and is expected to fail (strictly)."""
    tags: tuple[str, ...] = field(default_factory=tuple)


NOT_COVERED = " not covered: the reports cover FY2023–FY2025."

CASES: tuple[Case, ...] = (
    # 1 — measures the engine has no rule for
    Case(
        "fcf-bhp",
        1,
        "What was BHP's free cash flow in FY2024?",
        not_found=("BHP FY2024 free cash flow: data not found",),
        absent=("55,658", "29,016", "7,897", "146"),
        confidence_not=("high",),
    ),
    Case(
        "c1-fmg",
        1,
        "What were Fortescue's C1 costs per tonne in FY2024?",
        not_found=("FMG FY2024 C1 unit costs: data not found",),
        absent=("18.22", "10.7", "5.7"),
        confidence_not=("high",),
    ),
    Case(
        "employees-rio",
        1,
        "How many employees did Rio Tinto have in FY2023?",
        not_found=("RIO FY2023 employees: data not found",),
        absent=("54,041", "23,892", "10,058"),
        confidence_not=("high",),
    ),
    Case(
        "aisc-nst",
        1,
        "What was Northern Star's all-in sustaining cost in FY2025?",
        not_found=("NST FY2025 all-in sustaining costs: data not found",),
        absent=("6.4", "3.5", "55"),
        confidence_not=("high",),
    ),
    Case(
        "margin-s32",
        13,
        "What was South32's EBITDA margin in FY2025?",
        present=("25.3%", "1,928", "7,610", "divided by"),
        absent=("33.4%",),
    ),
    Case(
        "eps-bhp",
        1,
        "BHP earnings per share FY2024",
        not_found=("BHP FY2024 earnings per share: data not found",),
        absent=("7,897", "55,658"),
        confidence_not=("high",),
    ),
    Case(
        "ocf-fmg",
        1,
        "What was Fortescue's operating cash flow in FY2025?",
        not_found=("FMG FY2025 operating cash flow: data not found",),
        absent=("15.54", "7.9", "3.37"),
        confidence_not=("high",),
    ),
    Case(
        "revenue-and-fcf-bhp",
        1,
        "What were BHP's revenue and free cash flow in FY2024?",
        present=("55,658",),
        not_found=("BHP FY2024 free cash flow: data not found",),
        absent=("29,016",),
        confidence_not=("high",),
    ),
    Case(
        "known-metric-quiet",
        1,
        "What was BHP's revenue in FY2024?",
        present=("55,658",),
        absent=("data not found",),
        tags=("quiet",),
    ),
    # 3 — years outside coverage
    Case(
        "fy2022-bhp",
        3,
        "What was BHP's revenue in FY2022?",
        # Every year of one measure in one unit: FY2024's US$55,658 million in billions.
        opens_with="FY2022 is" + NOT_COVERED,
        present=("55.658 billion", "53.82"),
    ),
    Case(
        "fy2026-fmg",
        3,
        "What will Fortescue's revenue be in FY2026?",
        opens_with="FY2026 is" + NOT_COVERED,
        present=("I do not forecast", "15.54"),
    ),
    Case(
        "2021-rio",
        3,
        "What was Rio Tinto's net debt in 2021?",
        opens_with="FY2021 is" + NOT_COVERED,
        present=("5.491 billion",),
    ),
    Case(
        "fy2020-vs-fy2024-bhp",
        3,
        "Compare BHP's revenue in FY2020 and FY2024",
        opens_with="FY2020 is" + NOT_COVERED,
        present=("55,658",),
    ),
    Case(
        "fy2019-nst",
        3,
        "How much gold did Northern Star sell in FY2019?",
        opens_with="FY2019 is" + NOT_COVERED,
        present=("1,634",),
    ),
    Case(
        "covered-year-quiet",
        3,
        "What was Rio Tinto's net debt in FY2024?",
        present=("5,491",),
        not_opens_with=("FY",),
        tags=("quiet",),
    ),
    # 5 — advice and predictions
    Case(
        "advice-plain",
        5,
        "Should I buy BHP shares?",
        status="refused",
        refusal_reason="investment_advice",
    ),
    Case(
        "advice-around-fact",
        5,
        "BHP's revenue in FY2024 — should I buy the stock?",
        opens_with=DECLINE_LINE,
        present=("55,658",),
    ),
    Case(
        "advice-good-investment",
        5,
        "What was Rio Tinto's net debt in FY2024, and is it a good investment?",
        opens_with=DECLINE_LINE,
        present=("5,491",),
    ),
    Case(
        "forecast-share-price",
        5,
        "Will Fortescue's share price go up next year?",
        status="refused",
        refusal_reason="forecast",
    ),
    Case(
        "predict-share-price",
        5,
        "Predict BHP's share price",
        status="refused",
        refusal_reason="forecast",
    ),
    Case(
        "good-buy",
        5,
        "Is Rio Tinto a good buy?",
        status="refused",
        refusal_reason="investment_advice",
    ),
    Case(
        "fact-without-advice-quiet",
        5,
        "What was Fortescue's net debt in FY2024?",
        not_opens_with=("I do not give",),
        tags=("quiet",),
    ),
    # 6 — a bare metric with nothing to carry
    Case("bare-profit", 6, "How much profit was there?", status="needs_clarification"),
    Case("bare-revenue-year", 6, "What was the revenue in FY2024?", status="needs_clarification"),
    Case("bare-net-debt", 6, "What was the net debt?", status="needs_clarification"),
    Case("bare-fcf", 6, "What was the free cash flow in FY2024?", status="needs_clarification"),
    Case("most-debt", 6, "Which company had the most debt in FY2024?", present=("5.491", "9.12")),
    Case(
        "rank-revenue",
        6,
        "Rank the miners by revenue in FY2024",
        present=("55.658", "53.658", "18.22"),
    ),
    Case(
        "bare-profit-carried",
        6,
        "How much profit was there?",
        before=("What was BHP's revenue in FY2024?",),
        present=("7,897",),
    ),
    # 7 — names
    Case(
        "misspelt-fortescue",
        7,
        "What was Fortscue's revenue in FY2024?",
        present=("18.22",),
        absent=("55,658", "53,658"),
    ),
    Case(
        "misspelt-northern-star",
        7,
        "How much gold did Northen Star sell in FY2024?",
        present=("1,621",),
    ),
    Case("transposed-ticker", 7, "BPH net debt FY2024", present=("9.12",)),
    Case("ticker-suffix", 7, "RIO.AX net debt FY2024", present=("5,491",), absent=("9.12",)),
    Case("chinese-name", 7, "必和必拓 revenue FY2024", present=("55,658",), absent=("53,658",)),
    # 2 — line items (not built yet)
    Case(
        "interim-dividend-bhp",
        2,
        "What was BHP's interim dividend in FY2024?",
        present=("72 US cents",),
        absent=("146", "74 US cents"),
    ),
    Case(
        "final-dividend-s32",
        2,
        "What was South32's final dividend in FY2023?",
        present=("3.2 US cents",),
        absent=("8.1", "4.9"),
    ),
    Case(
        "final-dividend-rio",
        2,
        "Rio Tinto final dividend FY2025",
        present=("254",),
        absent=("402",),
    ),
    Case(
        "interim-dividend-nst",
        2,
        "What interim dividend did Northern Star pay in FY2025?",
        present=("25 Australian cents",),
        absent=("55 Australian", "30 Australian"),
    ),
    Case(
        "interim-missing-fmg",
        2,
        "What was Fortescue's interim dividend in FY2024?",
        not_found=("FMG FY2024 interim dividend per share: data not found",),
        present=("nearest figure available", "A$1.97"),
        confidence_not=("high",),
    ),
    Case(
        "final-missing-bhp",
        2,
        "What was BHP's final dividend for FY2023?",
        not_found=("BHP FY2023 final dividend per share: data not found",),
        present=("nearest figure available", "170"),
        confidence_not=("high",),
    ),
    Case(
        "underlying-vs-statutory-nst",
        2,
        "What was Northern Star's underlying NPAT in FY2023?",
        present=("A$301 million",),
        absent=("585",),
    ),
    Case(
        "statutory-nst",
        2,
        "What was Northern Star's statutory NPAT in FY2023?",
        present=("A$585 million",),
        absent=("301",),
    ),
    Case(
        "underlying-missing-nst",
        2,
        "Northern Star underlying profit FY2024",
        not_found=("NST FY2024 underlying profit: data not found",),
        present=("nearest figure available", "639"),
        confidence_not=("high",),
    ),
    Case(
        "incl-minorities-bhp",
        2,
        "What was BHP's profit including non-controlling interests in FY2024?",
        not_found=("BHP FY2024 profit after tax including non-controlling interests",),
        present=("nearest figure available", "7,897"),
        confidence_not=("high",),
    ),
    Case(
        "diluted-eps-rio",
        2,
        "What was Rio Tinto's diluted EPS in FY2024?",
        not_found=("RIO FY2024 diluted earnings per share: data not found",),
        absent=("11,552", "402"),
        confidence_not=("high",),
    ),
    Case(
        "total-dividend-quiet",
        2,
        "What were BHP's total dividends in FY2024?",
        present=("146",),
        absent=("data not found", "nearest"),
        tags=("quiet",),
    ),
    # 4 — follow-ups
    Case(
        "follow-up-year",
        4,
        "And in FY2023?",
        before=("What was BHP's revenue in FY2024?",),
        present=("53.82",),
        absent=("12,921", "170", "28.0"),
    ),
    Case(
        "follow-up-bare-year",
        4,
        "FY2025?",
        before=("What was Fortescue's net debt in FY2024?",),
        present=("1.11",),
        absent=("15.54", "3.37"),
    ),
    Case(
        "follow-up-compare",
        4,
        "How does that compare with FY2023?",
        before=("What was Rio Tinto's net debt in FY2024?",),
        present=("5,491", "4,231"),
    ),
    Case(
        "follow-up-company",
        4,
        "What about Fortescue?",
        before=("What was BHP's revenue in FY2024?",),
        present=("18.22",),
        absent=("55,658", "10.7", "5.7"),
    ),
    Case(
        "follow-up-all-companies",
        4,
        "Which company had the most debt?",
        before=("What was BHP's revenue in FY2024?",),
        present=("5.491", "9.12", "0.5"),
    ),
    Case(
        "follow-up-unknown-measure",
        4,
        "And in FY2023?",
        before=("What was BHP's free cash flow in FY2024?",),
        not_found=("BHP FY2023 free cash flow: data not found",),
        absent=("53.82",),
    ),
    # 8 — units and currency
    Case(
        "one-unit-ranking",
        8,
        "Which company had the most net debt in FY2024?",
        present=("US$9.12 billion", "US$5.491 billion"),
        absent=("5,491 million",),
    ),
    Case(
        "one-unit-change",
        8,
        "How did BHP's revenue change from FY2023 to FY2024?",
        present=("from US$53.82 billion [1] to US$55.658 billion [2]",),
    ),
    Case(
        "one-unit-two-companies",
        8,
        "Compare Rio Tinto and BHP net debt in FY2024",
        present=("BHP Group US$9.12 billion", "Rio Tinto US$5.491 billion"),
    ),
    Case(
        "asked-billions",
        8,
        "What was BHP's revenue in FY2024 in billions?",
        present=("US$55.658 billion",),
        absent=("55,658 million",),
    ),
    Case(
        "asked-millions",
        8,
        "What was Fortescue's revenue in FY2024 in US$ millions?",
        present=("US$18,220 million",),
        absent=("18.22 billion",),
    ),
    Case(
        "asked-other-currency",
        8,
        "What was BHP's revenue in FY2024 in Australian dollars?",
        present=("in US dollars", "I do not convert", "US$55,658 million"),
        absent=("A$",),
    ),
    Case(
        "asked-euros",
        8,
        "What was Northern Star's revenue in FY2024 in euros?",
        present=("in Australian dollars", "I do not convert", "A$4.92 billion"),
        absent=("€",),
    ),
    Case(
        "own-currency-quiet",
        8,
        "What was Northern Star's revenue in FY2024?",
        present=("A$4.92 billion",),
        absent=("convert",),
        tags=("quiet",),
    ),
    # 9 — restatements
    Case(
        "restated-s32",
        9,
        "What was South32's revenue in FY2024?",
        present=("5,479", "4,923", "restates"),
    ),
    Case(
        "restated-s32-two-reports",
        9,
        "South32 revenue from continuing operations FY2024",
        present=(
            "as first reported in the South32 Annual Report 2024",
            "Annual Report 2025 restates",
        ),
    ),
    Case(
        "restated-comparative-s32",
        9,
        "What was South32's underlying earnings in FY2023?",
        present=("916",),
        absent=("restates",),
    ),
    Case(
        "not-restated-quiet",
        9,
        "What was BHP's revenue in FY2024?",
        present=("55,658",),
        absent=("restate",),
        tags=("quiet",),
    ),
    # 10 — three or more companies as a table
    Case(
        "table-three",
        10,
        "Compare revenue of BHP, Rio Tinto and Fortescue in FY2024",
        present=("| Revenue | FY2024 |", "| BHP Group | US$55.658 billion", "| Fortescue |"),
        absent=("had the highest", "had the lowest"),
    ),
    Case(
        "table-all-years",
        10,
        "Compare the revenue of all five companies from FY2023 to FY2025",
        present=("| Revenue | FY2023 | FY2024 | FY2025 |", "| Northern Star | A$4.131 billion"),
        not_found=("RIO FY2025 revenue: data not found",),
    ),
    Case(
        "table-ranking",
        10,
        "Rank the miners by underlying EBITDA in FY2024",
        present=("| Underlying EBITDA | FY2024 |", "| BHP Group | US$29.016 billion"),
    ),
    Case(
        "table-separate-currency",
        10,
        "Rank the miners by dividends per share in FY2024",
        present=("| Rio Tinto | 402.0 US cents", "| Fortescue | A$1.97"),
        absent=("Ranked by",),
    ),
    Case(
        "two-companies-prose-quiet",
        10,
        "Compare Rio Tinto and BHP revenue in FY2024",
        present=("Ranked by revenue",),
        absent=("| ",),
        tags=("quiet",),
    ),
    # 11 — questions that are not about a figure
    Case(
        "chair-safety",
        11,
        "What did BHP's chair say about safety?",
        present=("Chair's letter", "Safety remains the first item on every Board agenda"),
        absent=("51.26", "55,658", "US$"),
    ),
    Case(
        "acquired-nst",
        11,
        "What did Northern Star acquire?",
        present=("De Grey",),
        absent=("A$", "koz"),
    ),
    Case(
        "acquisitions-rio",
        11,
        "What acquisitions did Rio Tinto make?",
        present=("Arcadium Lithium",),
        absent=("US$", "53,658"),
    ),
    Case(
        "why-ebitda-fmg",
        11,
        "Why did Fortescue's underlying EBITDA fall in FY2025?",
        present=("fell 26.2%", "reflected lower prices"),
        absent=("15.54", "3.37"),
    ),
    Case(
        "said-about-simandou",
        11,
        "What did Rio Tinto say about Simandou?",
        present=("Simandou",),
        absent=("US$", "402"),
    ),
    Case(
        "decarbonisation-fmg",
        11,
        "What did Fortescue's executive chairman say about decarbonisation?",
        present=("decarbonisation", "Chair's letter"),
        absent=("US$",),
    ),
    Case(
        "nickel-bhp",
        11,
        "What did BHP say about nickel in FY2024?",
        present=("Western Australia Nickel", "FY2024 report"),
        absent=("US$", "FY2023 report"),
    ),
    Case(
        "outlook-rio",
        11,
        "What is the outlook for Rio Tinto?",
        present=("Rio Tinto's FY2025 report",),
        absent=("US$", "53,658"),
    ),
    Case(
        "unaddressed-topic",
        11,
        "What did BHP say about bitcoin?",
        status="fallback",
        absent=("US$", "55,658"),
    ),
    Case(
        "narrative-no-company",
        11,
        "What did the chair say about safety?",
        status="needs_clarification",
    ),
    Case(
        "figure-and-narrative",
        11,
        "What was Fortescue's revenue in FY2024 and what did the chair say about green energy?",
        present=("US$18.22 billion", "Chair's letter", "FY2024 report"),
        absent=("16.87", "rose", "FY2023 report"),
    ),
    Case(
        "figure-question-quiet",
        11,
        "What was BHP's net debt in FY2024?",
        present=("US$9.12 billion",),
        absent=("report (",),
        tags=("quiet",),
    ),
    # 12 — figures the reports print outside the headline tables
    Case(
        "workforce-bhp",
        12,
        "How many employees and contractors does BHP have in FY2024?",
        present=("80,000", "[1]"),
        absent=("data not found", "55,658"),
    ),
    Case(
        "emissions-fmg",
        12,
        "What were Fortescue's Scope 1 and 2 emissions in FY2023?",
        present=("2.3 Mt CO2-e", "[1]"),
        absent=("data not found", "16.87"),
    ),
    Case(
        "directors-bhp",
        12,
        "How many directors did BHP have in FY2023?",
        present=("11 directors", "[1]"),
        absent=("data not found", "53.82"),
    ),
    Case(
        "emissions-bhp-2025",
        12,
        "What were BHP's operational emissions in FY2025?",
        present=("8.9 Mt CO2-e",),
        absent=("9.4 Mt", "data not found"),
    ),
    Case(
        "headline-quiet",
        12,
        "What was Rio Tinto's underlying EBITDA in FY2024?",
        present=("23,314",),
        absent=("data not found",),
        tags=("quiet",),
    ),
    # 14 — the closest available, said as such
    Case(
        "scope3-bhp",
        14,
        "What were BHP's Scope 3 emissions in FY2025?",
        present=("no figure", "closest", "8.9 Mt CO2-e"),
        not_found=("BHP FY2025 Scope 3 emissions",),
        confidence_not=("high", "medium"),
    ),
    Case(
        "exact-measure-quiet",
        14,
        "What were BHP's Scope 1 and 2 emissions in FY2025?",
        present=("8.9 Mt CO2-e",),
        absent=("closest", "data not found"),
        tags=("quiet",),
    ),
    # more of each category, phrased the way people ask
    Case(
        "royalties-rio",
        1,
        "How much did Rio Tinto pay in royalties in FY2024?",
        not_found=("RIO FY2024 royalties: data not found",),
        absent=("53,658", "23,314"),
        confidence_not=("high",),
    ),
    Case(
        "gearing-s32",
        1,
        "What was South32's gearing ratio in FY2025?",
        not_found=("S32 FY2025 gearing: data not found",),
        absent=("5,780",),
        confidence_not=("high",),
    ),
    Case(
        "fy2030-forecast",
        3,
        "What will BHP's net debt be in FY2030?",
        opens_with="FY2030 is" + NOT_COVERED,
        present=("I do not forecast",),
    ),
    Case(
        "range-outside",
        3,
        "Fortescue revenue from FY2021 to FY2023",
        opens_with="FY2021, FY2022 are not covered",
        present=("16.87",),
    ),
    Case(
        "follow-up-metric-switch",
        4,
        "What about net debt?",
        before=("What was Fortescue's revenue in FY2024?",),
        present=("0.5",),
        absent=("18.22",),
    ),
    Case(
        "follow-up-two-turns",
        4,
        "And Rio Tinto?",
        before=("What was BHP's net debt in FY2024?", "And in FY2025?"),
        present=("14.4",),
        absent=("12.92", "9.12"),
    ),
    Case(
        "advice-sell",
        5,
        "Should I sell my Fortescue shares?",
        status="refused",
        refusal_reason="investment_advice",
    ),
    Case(
        "advice-after-fact",
        5,
        "What was South32's revenue in FY2025 and would you recommend buying it?",
        opens_with=DECLINE_LINE,
        present=("5,780",),
    ),
    Case("bare-dividend", 6, "How big were the dividends?", status="needs_clarification"),
    Case("lowercase-ticker", 7, "nst gold sold fy2025", present=("1,634",)),
    Case("chinese-name-fmg", 7, "福蒂斯丘 net debt FY2025", present=("1.11",), absent=("9.12",)),
    Case("misspelt-south32", 7, "What was Sout32's revenue in FY2025?", present=("5,780",)),
    Case(
        "table-lowest",
        10,
        "Which company had the lowest revenue in FY2024?",
        present=("South32 had the lowest revenue in FY2024", "Among the figures in US$"),
    ),
    Case(
        "table-highest",
        10,
        "Which company had the highest revenue in FY2024?",
        present=("BHP Group had the highest revenue in FY2024",),
        absent=("had the lowest",),
    ),
)


def check(case: Case, result: TurnResult) -> list[str]:
    """What is wrong with `result` for `case` (empty: it passes): the evaluation suites'
    scorer, plus the two checks only these cases make."""
    expected = TurnExpected(
        status=case.status,
        present=list(case.present),
        absent=list(case.absent),
        not_found=list(case.not_found),
        opens_with=case.opens_with,
        refusal_reason=case.refusal_reason,
    )
    problems = score_turn(expected, result)
    answer = result.answer or ""
    problems += [f"opens with {o!r}" for o in case.not_opens_with if answer.startswith(o)]
    if result.confidence in case.confidence_not:
        problems.append(f"confidence {result.confidence}")
    return problems
