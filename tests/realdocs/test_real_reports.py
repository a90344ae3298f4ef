"""Real annual reports nobody here wrote, read as ingestion reads them.

Five FY2022 reports of ASX-listed companies (public filings, `asx/`): whole-dollar and
$'000 statements, Note columns, consolidated and parent columns side by side, statements
over two pages, a page stamp set sideways. Each is parsed with no flags, as
`turnstile ingest report.pdf` does: who and when come from its first pages. Its facts
are judged on statement and note cells checked by hand on the printed page
(`asx_cells.jsonl`: label, period, value, unit, printed page; `asx_suite.py` says how a
fact matches a cell).
"""

import re
from collections import defaultdict
from pathlib import Path

import pytest

from domain.companies.roster import pinned
from domain.reports.facts import report_facts
from domain.reports.figures import Fact, unit_spec
from ingestion.documents import ParsedDocument, parse_document
from testkit.asx_suite import REPORTS, Expected, expected_cells
from tests.realdocs.garble import garble

WHO = {
    "ASX-BET_BetMakersTechnologyGroup_AnnualReport_FY2022.pdf": (
        "BET",
        "BetMakers Technology Group Ltd",
    ),
    "ASX-BHD_BenjaminHornigold_AnnualReport_FY2022.pdf": ("BHD", "Benjamin Hornigold Ltd"),
    "ASX-KPG_KellyPartnersGroup_AnnualReport_FY2022.pdf": (
        "KPG",
        "Kelly Partners Group Holdings Limited",
    ),
    "ASX-RFT_RectifierTechnologies_AnnualReport_FY2022.pdf": ("RFT", "Rectifier Technologies Ltd"),
    "ASX-SMN_StructuralMonitoringSystems_AnnualReport_FY2022.pdf": (
        "SMN",
        "Structural Monitoring Systems Plc",
    ),
}
"""What each report's first pages say (its corporate directory and cover)."""


@pytest.fixture(scope="module")
def parsed() -> dict[str, ParsedDocument]:
    """Each report parsed with no company, year or currency given."""
    with pinned([]):  # no company registered: each is read from its own pages
        return {name: parse_document(REPORTS / name) for name in WHO}


@pytest.fixture(scope="module")
def facts(parsed: dict[str, ParsedDocument]) -> dict[str, list[Fact]]:
    return {
        name: [f for chunk in doc.chunks for f in report_facts(chunk.as_text())]
        for name, doc in parsed.items()
    }


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9%]+", " ", text.lower().replace("’", "'")).split())


def _same(want: Expected, fact: Fact) -> bool:
    """Whether a stored fact is the hand-checked cell: its label, printed page, period
    end, column group, value and unit."""
    if fact.source != "table" or fact.page != want.page or fact.period_end != want.period_end:
        return False
    label = _norm(fact.label)
    if label != _norm(want.label) and not label.endswith(" " + _norm(want.label)):
        return False
    if want.column and _norm(want.column) not in _norm(fact.context):
        return False
    if fact.parent_only != (want.group.lower() in ("parent", "company")):
        return False
    spec = unit_spec(fact.unit)
    if spec.kind == "money":
        value, unit = fact.value * spec.factor * 1e6, "A$"
    elif spec.kind == "per_share":
        value, unit = fact.value * (spec.factor if spec.base.endswith("cents") else 1), "A cents"
    else:
        return False
    return unit == want.unit and abs(value - want.amount) <= 1e-6 * max(1.0, abs(want.amount))


def test_the_hand_checked_cells_are_read_with_their_period_value_and_unit(
    facts: dict[str, list[Fact]],
) -> None:
    """At least 98% of the hand-checked cells (over 150, all five reports) are facts with
    the right label, period, value, unit and printed page; every miss is named."""
    wanted = expected_cells()
    by_report: dict[str, list[Expected]] = defaultdict(list)
    for cell in wanted:
        by_report[cell.file].append(cell)
    misses = [
        f"{c.report} p{c.page} {c.label!r} {c.column or c.group} {c.period_end} {c.value}"
        for name, cells in by_report.items()
        for c in cells
        if not any(_same(c, f) for f in facts[name])
    ]
    assert len(wanted) >= 150 and len(by_report) == 5
    assert len(misses) <= 0.02 * len(wanted), misses


def test_no_figure_is_of_a_period_its_table_does_not_print(
    parsed: dict[str, ParsedDocument], facts: dict[str, list[Fact]]
) -> None:
    """Every table figure is of a year its table prints over its column, or of the year
    its own row names ("Balance at 1 July 2020"), or, for a balance at the beginning of a
    year, of the year before its column's; never of one its position suggests. Each
    period ends on 30 June, the reports' year end."""
    chunks = {c.chunk_id: c for doc in parsed.values() for c in doc.chunks}
    for name, found in facts.items():
        for fact in (f for f in found if f.source == "table"):
            text = chunks[fact.chunk_id].text
            printed = {int(y) for y in re.findall(r"\b((?:19|20)\d{2})\b", text)}
            opening = re.search(r"beginning|opening|start", fact.label, re.I)
            allowed = printed | ({y - 1 for y in printed} if opening else set())
            assert fact.fiscal_year in allowed, (name, fact.label, fact.fiscal_year, fact.raw)
            assert fact.period_end is not None and fact.period_end.endswith("-06-30"), fact
    years = {f.fiscal_year for found in facts.values() for f in found if f.source == "table"}
    # BET prints five years' earnings and KPG six years of its strategy's measures.
    assert {2017, 2018, 2019, 2020, 2021, 2022} <= years


def test_each_report_says_who_and_when_on_its_first_pages(
    parsed: dict[str, ParsedDocument],
) -> None:
    for name, (ticker, company) in WHO.items():
        doc = parsed[name]
        assert doc.described is not None
        assert (doc.described.ticker, doc.described.name) == (ticker, company)
        assert (doc.fiscal_year, doc.described.year_end, doc.described.currency) == (
            2022,
            "06-30",
            "A$",
        )
        assert doc.document_id == f"{ticker}-FY2022"
        assert doc.identified == (
            f"read from its first pages: {company} ({ticker}), in A$; FY2022,"
            " year ended 30 June 2022"
        )


def test_the_real_reports_have_no_page_reported_unreadable(
    parsed: dict[str, ParsedDocument],
) -> None:
    """The quiet side of the garbled-page check: every page of text of the five reports
    is read (SMN's back cover has no text at all, and says so)."""
    problems = [p for doc in parsed.values() for p in doc.problems]
    assert problems == ["page 78: no text layer (a scanned or drawn page); not indexed"]


def test_a_page_whose_text_layer_is_not_words_is_reported_and_not_indexed(
    tmp_path: Path, parsed: dict[str, ParsedDocument]
) -> None:
    """Two pages of a real report with a wrong character map (they look right, their text
    reads "Wkh Jurxs uhsruwhg"): each is reported by number and none of its text is
    indexed; the report's other pages read as before."""
    source = REPORTS / "ASX-KPG_KellyPartnersGroup_AnnualReport_FY2022.pdf"
    garbled = tmp_path / "kpg.pdf"
    garble(source, garbled, {10, 11})
    with pinned([]):
        doc = parse_document(garbled, None, 2022)

    assert len(doc.problems) == 2
    for problem, page in zip(doc.problems, (10, 11), strict=True):
        assert problem.startswith(f"page {page}: text that reads as no words ("), problem
        assert problem.endswith("; not indexed"), problem
    plain = parsed["ASX-KPG_KellyPartnersGroup_AnnualReport_FY2022.pdf"]
    # PDF pages 10 and 11 are printed as 9 and 10: nothing of them is indexed, and every
    # other page reads as it did.
    assert {c.page for c in plain.chunks} - {c.page for c in doc.chunks} == {9, 10}
    assert [c.text for c in doc.chunks] == [c.text for c in plain.chunks if c.page not in (9, 10)]
    assert not any(re.search(r"\bwkh\b|Jurxs", c.text) for c in doc.chunks)


def _cell(report: str, label: str, end: str, group: str = "Consolidated") -> float:
    """A hand-checked cell's value in dollars (the cells file, read as a person checked it)."""
    key = (report, label, end, group)
    found = [
        c
        for c in expected_cells()
        if (c.report, c.label, c.period_end, c.group or "Consolidated") == key
    ]
    return found[0].amount


def _ask(doc: ParsedDocument, question: str) -> tuple[str, object, object]:
    """A question through the offline engine's steps over the report's own chunks (its
    index search aside), with the numeric and relevance checks of the turn."""
    import asyncio

    from backends.engines.offline.engine import OfflineEngine
    from domain.checks.numeric import check_numbers
    from domain.checks.relevance import check_relevance

    assert doc.described is not None
    company = doc.described.with_years(sorted({y for c in doc.chunks for y in c.years}))

    async def run() -> tuple[str, object, object]:
        engine = OfflineEngine()
        with pinned([company]):
            decision = await engine.route(question)
            pool = [c.as_text() for c in doc.chunks]
            kept = [
                pool[i] for i in (await engine.grade_documents(question, decision.slots, pool)).keep
            ]
            draft = await engine.synthesize(question, decision.slots, kept[:24])
            numbers = check_numbers(draft.answer, kept[:24], question)
            relevance = check_relevance(
                question, draft.answer, kept[:24], [d.label for d in numbers.derived]
            )
        return draft.answer, numbers, relevance

    return asyncio.run(run())


RATIO = (
    "Based on the statement of financial position, what is {name}'s FY{year} current "
    "ratio? Define current ratio as total current assets divided by total current "
    "liabilities. Round your answer to two decimal places."
)
CAPITAL = (
    "What was {name}'s net working capital at the end of FY{year}, defined as total "
    "current assets less total current liabilities? Use the balance sheet."
)


def _flow_lines(report: str, end: str) -> dict[str, tuple[str, float]]:
    """The hand-checked net cash line of each activity: label and value."""
    lines: dict[str, tuple[str, float]] = {}
    for c in expected_cells():
        m = re.match(r"Net cash .*\b(operating|investing|financing) activities$", c.label)
        own = (c.group or "") in ("", "Consolidated")
        if c.report == report and c.period_end == end and m and own:
            lines[m.group(1)] = (c.label, c.amount)
    return lines


@pytest.mark.parametrize("report", [t for t, _ in WHO.values()])
@pytest.mark.parametrize(
    ("question", "end"),
    [
        (
            "Among operating, investing and financing activities, which brought in the most "
            "cash for {name} in FY2022?",
            max,
        ),
        (
            "Between operating, investing, and financing activities, which had the lowest net "
            "cash flow for {name} in FY2022?",
            min,
        ),
    ],
)
def test_a_choice_among_line_items_reads_each_and_names_the_one_asked(
    parsed: dict[str, ParsedDocument], report: str, question: str, end: object
) -> None:
    """Each line item the question names, read from the consolidated statement and cited,
    and the highest or lowest named by the values as printed (an outflow below an inflow;
    BHD's investing and financing lines tie at nil); judged against the hand cells."""
    name = next(n for t, n in WHO.values() if t == report)
    doc = parsed[next(f for f, (t, _) in WHO.items() if t == report)]
    lines = _flow_lines(report, "2022-06-30")
    assert len(lines) == 3, lines
    answer, numbers, relevance = _ask(doc, question.format(name=name))
    for label, _ in lines.values():
        assert f"({label}): " in answer, (label, answer)
    best = end(v for _, v in lines.values())  # type: ignore[operator]
    chosen = [label for label, v in lines.values() if v == best]
    verdict = answer.rsplit("\n", 1)[-1]
    assert all(label in verdict for label in chosen), (chosen, verdict)
    assert not any(label in verdict for label, v in lines.values() if v != best), verdict
    assert numbers.unsupported == [], (answer, numbers)  # type: ignore[attr-defined]
    assert relevance.addressed and not relevance.off_point, relevance  # type: ignore[attr-defined]


TAX_LINES = {
    # report: (the tax line, the sign that makes it an expense, the pre-tax line)
    "KPG": (
        "Income tax expense",
        -1,
        "Profit before income tax expense from continuing operations",
    ),
    "RFT": ("Income tax expense", -1, "Profit before income tax expense"),
    "BET": ("Income tax benefit", -1, "Loss before income tax benefit"),
}


@pytest.mark.parametrize("report", sorted(TAX_LINES))
def test_a_standard_ratio_compared_between_two_years_is_worked_out_for_each(
    parsed: dict[str, ParsedDocument], report: str
) -> None:
    """The effective tax rate, named not defined, for each year the question compares:
    the tax line as its statement prints it (an expense in brackets, a benefit on a loss),
    over the pre-tax line (KPG prints a discontinued operations' pre-tax line beside it)."""
    name = next(n for t, n in WHO.values() if t == report)
    doc = parsed[next(f for f, (t, _) in WHO.items() if t == report)]
    tax, sign, pretax = TAX_LINES[report]
    answer, numbers, relevance = _ask(
        doc, f"How did {name}'s effective tax rate change between FY2021 and FY2022?"
    )
    for year in (2021, 2022):
        end = f"{year}-06-30"
        rate = 100 * sign * _cell(report, tax, end) / _cell(report, pretax, end)
        assert f"FY{year} effective tax rate: (" in answer, answer
        assert f"= {rate:.1f}%" in answer, (year, answer)
    assert numbers.unsupported == [], (answer, numbers)  # type: ignore[attr-defined]
    assert relevance.addressed and not relevance.off_point, relevance  # type: ignore[attr-defined]


def test_a_ratio_whose_lines_the_statement_does_not_print_is_not_worked_out(
    parsed: dict[str, ParsedDocument],
) -> None:
    """Quiet: SMN's statement goes from its tax line to the loss after tax, with no pre-tax
    line: no rate is worked out of another line."""
    doc = parsed["ASX-SMN_StructuralMonitoringSystems_AnnualReport_FY2022.pdf"]
    answer, _, _ = _ask(
        doc,
        "How did Structural Monitoring Systems Plc's effective tax rate change between "
        "FY2021 and FY2022?",
    )
    assert "effective tax rate: (" not in answer, answer


@pytest.mark.parametrize(
    ("report", "year"), [("KPG", 2022), ("BET", 2021), ("RFT", 2022), ("SMN", 2022)]
)
def test_an_analysts_ratio_is_worked_out_from_the_consolidated_statement_and_checked(
    parsed: dict[str, ParsedDocument], report: str, year: int
) -> None:
    """A ratio the question defines, read from the balance sheet's consolidated columns
    (SMN prints its parent's beside them), worked out with its working, every figure
    cited and recomputed by the numeric check; the question's instructions ask nothing."""
    name = next(n for t, n in WHO.values() if t == report)
    doc = parsed[next(f for f, (t, _) in WHO.items() if t == report)]
    end = f"{year}-06-30"
    assets = _cell(report, "Total current assets", end)
    liabilities = _cell(report, "Total current liabilities", end)

    answer, numbers, relevance = _ask(doc, RATIO.format(name=name, year=year))

    assert f"= {assets / liabilities:.2f}" in answer, answer
    assert numbers.unsupported == [], (answer, numbers)  # type: ignore[attr-defined]
    assert relevance.addressed and not relevance.off_point, relevance  # type: ignore[attr-defined]


def test_a_difference_in_whole_dollars_is_stated_in_its_units() -> None:
    """In words a question might use instead ("less", "at the end of"), on a report whose
    statements are in whole dollars."""
    with pinned([]):
        doc = parse_document(REPORTS / "ASX-RFT_RectifierTechnologies_AnnualReport_FY2022.pdf")
    assets = _cell("RFT", "Total current assets", "2022-06-30")
    liabilities = _cell("RFT", "Total current liabilities", "2022-06-30")

    answer, numbers, _ = _ask(doc, CAPITAL.format(name="Rectifier Technologies", year=2022))

    assert f"= A${assets - liabilities:,.0f}" in answer, answer
    assert numbers.unsupported == []  # type: ignore[attr-defined]


def test_a_line_item_a_report_does_not_print_gets_its_not_found_line(
    parsed: dict[str, ParsedDocument],
) -> None:
    """An investment company's balance sheet has no current assets subtotal: the ratio
    is not found, said exactly, and no figure is made up for it."""
    doc = parsed["ASX-BHD_BenjaminHornigold_AnnualReport_FY2022.pdf"]

    answer, numbers, relevance = _ask(doc, RATIO.format(name="Benjamin Hornigold", year=2022))

    assert "data not found in provided documents" in answer, answer
    assert "=" not in answer and numbers.unsupported == []  # type: ignore[attr-defined]
    assert not relevance.off_point  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("report", "question"),
    [
        ("KPG", "Does {name} have positive working capital going by its FY{year} accounts?"),
        ("RFT", "Is {name}'s working capital negative as of FY{year}?"),
    ],
)
def test_a_standard_ratio_named_in_a_yes_no_question_is_worked_out_and_its_sign_said(
    parsed: dict[str, ParsedDocument], report: str, question: str
) -> None:
    """No definition given: the ratio's textbook one is worked out from the statement, and
    whether it is positive is read off the figure, not left to the reader."""
    name = next(n for t, n in WHO.values() if t == report)
    doc = parsed[next(f for f, (t, _) in WHO.items() if t == report)]
    capital = _cell(report, "Total current assets", "2022-06-30") - _cell(
        report, "Total current liabilities", "2022-06-30"
    )
    asked_sign = "positive" if "positive" in question else "negative"
    sign = "positive" if capital > 0 else "negative"

    answer, numbers, relevance = _ask(doc, question.format(name=name, year=2022))

    assert "working capital" in answer and "=" in answer, answer
    verdict = "Yes" if sign == asked_sign else "No"
    assert f"{verdict}: {name}'s FY2022 working capital, worked out above, is {sign}." in answer
    assert "a loss of" not in answer  # a working capital is no profit
    assert "judgement the reports leave" not in answer
    assert numbers.unsupported == [], (answer, numbers)  # type: ignore[attr-defined]
    assert relevance.addressed and not relevance.off_point, relevance  # type: ignore[attr-defined]


def test_a_trend_judged_on_a_named_ratio_shows_each_year_printed(
    parsed: dict[str, ParsedDocument],
) -> None:
    """Asked "Has X's current ratio been stable?": the ratio for each year the balance sheet
    prints (two; the year before them is not said missing), the judgement the reader's."""
    doc = parsed["ASX-BET_BetMakersTechnologyGroup_AnnualReport_FY2022.pdf"]

    answer, numbers, relevance = _ask(
        doc, "Has BetMakers Technology Group's current ratio been stable up to FY2022?"
    )

    for end, year in (("2021-06-30", 2021), ("2022-06-30", 2022)):
        ratio = _cell("BET", "Total current assets", end) / _cell(
            "BET", "Total current liabilities", end
        )
        assert f"FY{year} current ratio" in answer and f"= {ratio:.2f}" in answer, answer
    assert "FY2020" not in answer and "not found" not in answer, answer
    assert "judgement the reports leave to the reader" in answer
    assert numbers.unsupported == [], (answer, numbers)  # type: ignore[attr-defined]
    assert not relevance.off_point, relevance  # type: ignore[attr-defined]


def _hand_checked(report: str, section_word: str, end: str) -> list[float]:
    """The hand-checked consolidated cells of a balance sheet section (its lines, not its
    totals), in dollars, as `asx_cells.jsonl` holds them."""
    import json

    from testkit.asx_suite import CELLS

    rows = [json.loads(line) for line in CELLS.read_text(encoding="utf-8").splitlines()]
    return [
        float(r["value"]) * float(r["scale"])
        for r in rows
        if r["report"] == report
        and r["period_end"] == end
        and section_word in r.get("section", "").lower()
        and re.search(r"financial position|balance sheet", r["statement"], re.I)
        and (r.get("group") or "Consolidated") == "Consolidated"
        and not r["label"].lower().startswith(("total", "net assets"))
    ]


@pytest.mark.parametrize("report", ["KPG", "RFT", "SMN", "BET"])
@pytest.mark.parametrize(
    ("question", "section", "end"),
    [
        (
            "What was the largest liability in {name}'s balance sheet in FY2022?",
            "liabilit",
            "highest",
        ),
        (
            "Which was the smallest asset on {name}'s statement of financial position for FY2022?",
            "assets",
            "lowest",
        ),
    ],
)
def test_the_largest_or_smallest_line_of_a_kind_in_a_statement_is_ranked_from_its_lines(
    parsed: dict[str, ParsedDocument], report: str, question: str, section: str, end: str
) -> None:
    """The lines under the statement's headings of that kind, totals and net lines left
    out, ranked and each cited; the one named first is at least as large (or small) as
    every hand-checked line of the kind, and every figure is the statement's."""
    name = next(n for t, n in WHO.values() if t == report)
    doc = parsed[next(f for f, (t, _) in WHO.items() if t == report)]

    answer, numbers, relevance = _ask(doc, question.format(name=name))

    first = re.search(r"the (?:largest|smallest) was (.+?): (A\$[\d,]+(?: thousand)?) \[", answer)
    assert first is not None, answer
    assert not first.group(1).lower().startswith(("total", "net assets")), answer
    value = float(re.sub(r"[^\d]", "", first.group(2))) * (
        1e3 if "thousand" in first.group(2) else 1
    )
    checked = _hand_checked(report, section, "2022-06-30")
    assert checked, report  # the suite holds lines of that kind to judge by
    if end == "highest":
        assert all(value >= v for v in checked), (answer, checked)
    else:
        assert all(value <= v for v in checked if v > 0), (answer, checked)
    assert numbers.unsupported == [], (answer, numbers)  # type: ignore[attr-defined]
    assert relevance.addressed and not relevance.off_point, relevance  # type: ignore[attr-defined]


OFFERED = (
    "Is {name}'s gross margin improving as of FY2022? If gross margin is not a meaningful "
    "measure for a business like this, say so and explain why.",
    "What explains the change in {name}'s gross margin in FY2022? If gross margin doesn't "
    "apply to such a company, tell me why.",
)


def _statement_cells(report: str, statement: str, end: str) -> list[tuple[str, float]]:
    """The hand-checked consolidated cells of a statement: label and value in dollars."""
    import json

    from testkit.asx_suite import CELLS

    rows = [json.loads(line) for line in CELLS.read_text(encoding="utf-8").splitlines()]
    return [
        (r["label"], float(r["value"]) * float(r["scale"]))
        for r in rows
        if r["report"] == report
        and r["period_end"] == end
        and re.search(statement, r["statement"], re.I)
        and (r.get("group") or "Consolidated") == "Consolidated"
    ]


@pytest.mark.parametrize("report", ["BHD", "KPG"])
@pytest.mark.parametrize("question", OFFERED)
def test_a_ratio_the_question_allows_may_not_suit_the_company_is_said_not_given(
    parsed: dict[str, ParsedDocument], report: str, question: str
) -> None:
    """An investment company's and an accounting firm's income statements print no gross
    profit and no cost of sales (the hand-checked cells say so): asked about gross margin
    by a question that allows it may not suit the company, the answer names the line the
    statement lacks and the statement, and shows the subtotals it prints instead, each a
    figure of that statement."""
    name = next(n for t, n in WHO.values() if t == report)
    doc = parsed[next(f for f, (t, _) in WHO.items() if t == report)]
    cells = _statement_cells(report, "profit or loss", "2022-06-30")
    assert cells and not any(re.search(r"gross|cost of", label, re.I) for label, _ in cells)

    answer, numbers, relevance = _ask(doc, question.format(name=name))

    assert "There is no gross profit line in" in answer, answer
    assert re.search(r"FY2022 (?:consolidated )?statement of profit or loss", answer), answer
    assert "gross margin is not a measure" in answer, answer
    shown = [float(a.replace(",", "")) for a in re.findall(r"A\$([\d,]+)", answer)]
    assert shown and any(abs(value) in shown for _, value in cells), (answer, cells)
    assert numbers.unsupported == [], (answer, numbers)  # type: ignore[attr-defined]
    assert relevance.addressed and not relevance.off_point, relevance  # type: ignore[attr-defined]


def test_a_ratio_the_question_allows_is_worked_out_when_the_statement_gives_it(
    parsed: dict[str, ParsedDocument],
) -> None:
    """Quiet: SMN's statement prints its sales and cost of sales, so its gross margin is
    worked out, not said missing."""
    doc = parsed["ASX-SMN_StructuralMonitoringSystems_AnnualReport_FY2022.pdf"]
    answer, numbers, _ = _ask(doc, OFFERED[0].format(name="Structural Monitoring Systems Plc"))
    assert "FY2022 gross margin: (" in answer and "There is no" not in answer, answer
    assert numbers.unsupported == [], (answer, numbers)  # type: ignore[attr-defined]


def test_a_reports_contents_page_is_text_and_its_statements_tables(
    parsed: dict[str, ParsedDocument],
) -> None:
    """KPG's, RFT's and SMN's contents pages ("Corporate directory | 2", "Strategic report
    | 4") are lists of pages, read as text with no figure in them; every page a
    hand-checked cell is printed on still has its table."""
    seen = set()
    for name, doc in parsed.items():
        for chunk in doc.chunks:
            entry = r"(?:Corporate directory|Strategic report)"
            assert not re.search(rf"\| {entry} \| \d \|", chunk.text), chunk.text
            if re.search(rf"{entry} \(page \d\)", chunk.text):
                assert not chunk.is_table and not report_facts(chunk.as_text()), chunk.text
                seen.add(WHO[name][0])
        report = WHO[name][0]
        pages = {c.page for c in expected_cells() if c.report == report}
        tables = {c.page for c in doc.chunks if c.is_table}
        assert pages <= tables, (report, sorted(pages - tables))
    assert seen == {"KPG", "RFT", "SMN"}, seen
