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

from domain.turns import TurnResult
from workflows.rules.scope import DECLINE_LINE

CATEGORIES: dict[int, str] = {
    1: "a measure the engine has no rule for gets its not-found line, not a bundle",
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
    Case("fcf-bhp", 1, "What was BHP's free cash flow in FY2024?",
         not_found=("BHP FY2024 free cash flow: data not found",),
         absent=("55,658", "29,016", "7,897", "146"), confidence_not=("high",)),
    Case("c1-fmg", 1, "What were Fortescue's C1 costs per tonne in FY2024?",
         not_found=("FMG FY2024 C1 unit costs: data not found",),
         absent=("18.22", "10.7", "5.7"), confidence_not=("high",)),
    Case("employees-rio", 1, "How many employees did Rio Tinto have in FY2023?",
         not_found=("RIO FY2023 employees: data not found",),
         absent=("54,041", "23,892", "10,058"), confidence_not=("high",)),
    Case("aisc-nst", 1, "What was Northern Star's all-in sustaining cost in FY2025?",
         not_found=("NST FY2025 all-in sustaining costs: data not found",),
         absent=("6.4", "3.5", "55"), confidence_not=("high",)),
    Case("margin-s32", 1, "What was South32's EBITDA margin in FY2025?",
         not_found=("S32 FY2025 margin: data not found",),
         absent=("1,928", "5,780"), confidence_not=("high",)),
    Case("eps-bhp", 1, "BHP earnings per share FY2024",
         not_found=("BHP FY2024 earnings per share: data not found",),
         absent=("7,897", "55,658"), confidence_not=("high",)),
    Case("ocf-fmg", 1, "What was Fortescue's operating cash flow in FY2025?",
         not_found=("FMG FY2025 operating cash flow: data not found",),
         absent=("15.54", "7.9", "3.37"), confidence_not=("high",)),
    Case("revenue-and-fcf-bhp", 1, "What were BHP's revenue and free cash flow in FY2024?",
         present=("55,658",), not_found=("BHP FY2024 free cash flow: data not found",),
         absent=("29,016",), confidence_not=("high",)),
    Case("known-metric-quiet", 1, "What was BHP's revenue in FY2024?",
         present=("55,658",), absent=("data not found",), tags=("quiet",)),
    # 3 — years outside coverage
    Case("fy2022-bhp", 3, "What was BHP's revenue in FY2022?",
         opens_with="FY2022 is" + NOT_COVERED, present=("55,658", "53.82")),
    Case("fy2026-fmg", 3, "What will Fortescue's revenue be in FY2026?",
         opens_with="FY2026 is" + NOT_COVERED, present=("I do not forecast", "15.54")),
    Case("2021-rio", 3, "What was Rio Tinto's net debt in 2021?",
         opens_with="FY2021 is" + NOT_COVERED, present=("5,491",)),
    Case("fy2020-vs-fy2024-bhp", 3, "Compare BHP's revenue in FY2020 and FY2024",
         opens_with="FY2020 is" + NOT_COVERED, present=("55,658",)),
    Case("fy2019-nst", 3, "How much gold did Northern Star sell in FY2019?",
         opens_with="FY2019 is" + NOT_COVERED, present=("1,634",)),
    Case("covered-year-quiet", 3, "What was Rio Tinto's net debt in FY2024?",
         present=("5,491",), not_opens_with=("FY",), tags=("quiet",)),
    # 5 — advice and predictions
    Case("advice-plain", 5, "Should I buy BHP shares?", status="refused",
         refusal_reason="investment_advice"),
    Case("advice-around-fact", 5, "BHP's revenue in FY2024 — should I buy the stock?",
         opens_with=DECLINE_LINE, present=("55,658",)),
    Case("advice-good-investment", 5,
         "What was Rio Tinto's net debt in FY2024, and is it a good investment?",
         opens_with=DECLINE_LINE, present=("5,491",)),
    Case("forecast-share-price", 5, "Will Fortescue's share price go up next year?",
         status="refused", refusal_reason="forecast"),
    Case("predict-share-price", 5, "Predict BHP's share price", status="refused",
         refusal_reason="forecast"),
    Case("good-buy", 5, "Is Rio Tinto a good buy?", status="refused",
         refusal_reason="investment_advice"),
    Case("fact-without-advice-quiet", 5, "What was Fortescue's net debt in FY2024?",
         not_opens_with=("I do not give",), tags=("quiet",)),
    # 6 — a bare metric with nothing to carry
    Case("bare-profit", 6, "How much profit was there?", status="needs_clarification"),
    Case("bare-revenue-year", 6, "What was the revenue in FY2024?",
         status="needs_clarification"),
    Case("bare-net-debt", 6, "What was the net debt?", status="needs_clarification"),
    Case("bare-fcf", 6, "What was the free cash flow in FY2024?",
         status="needs_clarification"),
    Case("most-debt", 6, "Which company had the most debt in FY2024?",
         present=("5,491", "9.12")),
    Case("rank-revenue", 6, "Rank the miners by revenue in FY2024",
         present=("55,658", "53,658", "18.22")),
    Case("bare-profit-carried", 6, "How much profit was there?",
         before=("What was BHP's revenue in FY2024?",), present=("7,897",)),
    # 7 — names
    Case("misspelt-fortescue", 7, "What was Fortscue's revenue in FY2024?",
         present=("18.22",), absent=("55,658", "53,658")),
    Case("misspelt-northern-star", 7, "How much gold did Northen Star sell in FY2024?",
         present=("1,621",)),
    Case("transposed-ticker", 7, "BPH net debt FY2024", present=("9.12",)),
    Case("ticker-suffix", 7, "RIO.AX net debt FY2024", present=("5,491",),
         absent=("9.12",)),
    Case("chinese-name", 7, "必和必拓 revenue FY2024", present=("55,658",),
         absent=("53,658",)),
    # 2 — line items (not built yet)
    Case("interim-dividend-bhp", 2, "What was BHP's interim dividend in FY2024?",
         present=("72",), absent=("146",), pending="line items are not read yet"),
    Case("final-dividend-s32", 2, "What was South32's final dividend in FY2023?",
         present=("3.2",), absent=("8.1",), pending="line items are not read yet"),
    # 4 — follow-ups
    Case("follow-up-year", 4, "And in FY2023?", before=("What was BHP's revenue in FY2024?",),
         present=("53.82",), absent=("12,921", "170", "28.0")),
    Case("follow-up-bare-year", 4, "FY2025?", before=("What was Fortescue's net debt in FY2024?",),
         present=("1.11",), absent=("15.54", "3.37")),
    Case("follow-up-compare", 4, "How does that compare with FY2023?",
         before=("What was Rio Tinto's net debt in FY2024?",), present=("5,491", "4,231")),
    Case("follow-up-company", 4, "What about Fortescue?",
         before=("What was BHP's revenue in FY2024?",), present=("18.22",),
         absent=("55,658", "10.7", "5.7")),
    Case("follow-up-all-companies", 4, "Which company had the most debt?",
         before=("What was BHP's revenue in FY2024?",), present=("5,491", "9.12", "0.5")),
    Case("follow-up-unknown-measure", 4, "And in FY2023?",
         before=("What was BHP's free cash flow in FY2024?",),
         not_found=("BHP FY2023 free cash flow: data not found",), absent=("53.82",)),
    # 8 — units (not built yet)
    Case("one-unit-ranking", 8, "Which company had the most net debt in FY2024?",
         absent=("US$9.12 billion",), present=("9,120",),
         pending="a ranking still quotes each figure in its own report's unit"),
    # 9 — restatements (not built yet)
    Case("restated-s32", 9, "What was South32's revenue in FY2024?",
         present=("5,479", "4,923"), pending="restatements are not retrieved yet"),
    # 10 — tables (not built yet)
    Case("table-three", 10, "Compare revenue of BHP, Rio Tinto and Fortescue in FY2024",
         present=("| ",), pending="comparisons are still prose"),
    # 11 — narrative questions (not built yet)
    Case("chair-safety", 11, "What did BHP's chair say about safety?",
         present=("safety",), absent=("51.26", "55,658", "US$"),
         pending="narrative questions get headline figures"),
)  # fmt: skip


def check(case: Case, result: TurnResult) -> list[str]:
    """What is wrong with `result` for `case` (empty: it passes)."""
    problems: list[str] = []
    answer = result.answer or ""
    if result.status != case.status:
        problems.append(f"status {result.status}, expected {case.status}")
    problems += [f"missing {p!r}" for p in case.present if p not in answer]
    problems += [f"unexpected {a!r}" for a in case.absent if a in answer]
    lines = [nf.line() for nf in result.not_found]
    for expected in case.not_found:
        if not any(expected in line for line in lines):
            problems.append(f"no not-found line with {expected!r} (got {lines})")
        if expected not in answer:
            problems.append(f"the answer text lacks {expected!r}")
    if case.opens_with and not answer.startswith(case.opens_with):
        problems.append(f"does not open with {case.opens_with!r}: {answer[:120]!r}")
    problems += [f"opens with {o!r}" for o in case.not_opens_with if answer.startswith(o)]
    if result.confidence in case.confidence_not:
        problems.append(f"confidence {result.confidence}")
    if case.refusal_reason and result.refusal_reason != case.refusal_reason:
        problems.append(f"refusal reason {result.refusal_reason}, expected {case.refusal_reason}")
    figures_expected = case.status == "answered" and case.present
    if figures_expected and result.status == "answered" and not result.citations:
        problems.append("a figure is given without a citation")
    return problems
