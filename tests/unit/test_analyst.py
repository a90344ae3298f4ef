"""Questions asked as analysts ask them: taken apart into the measure, how to state it,
where to read it and the arithmetic that works it out (`domain.questions.analyst`), and the
working an answer writes recomputed by the numeric check (`domain.checks.arithmetic`).

The questions are written here, in several wordings, about measures no rule names."""

import pytest

from domain.checks.arithmetic import agrees, worked_results
from domain.checks.numeric import check_numbers
from domain.language.amounts import claimed_amounts
from domain.models import ChunkText
from domain.questions.analyst import (
    Item,
    Mean,
    Num,
    Op,
    analyst_path,
    asked_part,
    evaluate,
    items,
    parse_expression,
    read_analyst,
    trend_years,
)
from domain.reports.figures import Fact
from domain.reports.line_items import item_score


def test_a_definition_the_question_gives_is_read_as_arithmetic_over_line_items() -> None:
    asked = read_analyst(
        "What is Wombat Tin's FY2022 quick ratio? Define quick ratio as (total current "
        "assets less inventories) divided by total current liabilities. Round your answer to "
        "two decimal places. Use the statement of financial position.",
        "Wombat Tin",
    )
    assert asked.calculation is not None
    assert asked.calculation.expr == Op(
        "/",
        Op("-", Item("total current assets", 2022), Item("inventories", 2022)),
        Item("total current liabilities", 2022),
    )
    assert (asked.decimals, asked.statements, asked.years) == (2, ("balance sheet",), (2022,))
    assert asked.measure == "quick ratio"


def test_averages_changes_and_named_years_inside_a_definition() -> None:
    expr = parse_expression(
        "365 x (average trade receivables between FY2020 and FY2021) / FY2021 sales", 2021
    )
    average = Mean((Item("trade receivables", 2020), Item("trade receivables", 2021)))
    assert expr == Op("/", Op("*", Num(365.0), average), Item("sales", 2021))
    change = parse_expression("change in inventories between FY2020 and FY2021")
    assert change == Op("-", Item("inventories", 2021), Item("inventories", 2020))
    value = {
        Item("trade receivables", 2020): 80.0,
        Item("trade receivables", 2021): 120.0,
        Item("sales", 2021): 1000.0,
    }
    assert evaluate(expr, value) == pytest.approx(36.5)


def test_definitions_may_use_each_other_by_their_short_names() -> None:
    asked = read_analyst(
        "What was the FY2021 operating cycle (OC) for Wombat Tin? OC is defined as: DIH + "
        "DRO. DIH is defined as: 365 * (average stock between FY2020 and FY2021) / (FY2021 "
        "cost of sales). DRO is defined as: 365 * (average debtors between FY2020 and "
        "FY2021) / (FY2021 turnover). Round to one decimal place.",
        "Wombat Tin",
    )
    assert asked.calculation is not None
    phrases = {i.phrase for i in items(asked.calculation.expr)}
    assert phrases == {"stock", "cost of sales", "debtors", "turnover"}
    assert asked.decimals == 1


@pytest.mark.parametrize(
    ("question", "name", "percent", "years"),
    [
        (
            "What is the FY2019 - FY2021 3 year average gross margin for Emu Co? Answer in units "
            "of percents.",
            "average gross margin",
            True,
            (2019, 2020, 2021),
        ),
        (
            "What is Emu Co's 3 year CAGR of total net sales from FY2018 to FY2021 (in units of "
            "percents)?",
            "total net sales compound annual growth rate",
            True,
            (),
        ),
        (
            "What is the FY2020 to FY2021 growth rate of operating cash flow for Emu Co? Round "
            "to one decimal place.",
            "change in operating cash flow",
            True,
            (),
        ),
        (
            "What is Emu Co's FY2021 selling expense as a % of net sales? Answer in units of "
            "percents.",
            "selling expense as a share of net sales",
            True,
            (),
        ),
    ],
)
def test_what_a_measure_asks_without_a_definition(
    question: str, name: str, percent: bool, years: tuple[int, ...]
) -> None:
    asked = read_analyst(question, "Emu Co")
    assert asked.calculation is not None, asked
    assert asked.calculation.name == name
    assert asked.calculation.percent is percent
    assert asked.calculation.over_years == years


def test_only_an_analysts_question_takes_the_analysts_path() -> None:
    assert analyst_path("What was BHP's revenue in FY2024?") is None
    assert analyst_path("What was BHP's revenue in FY2024 in billions?") is None
    assert analyst_path("How did Fortescue's revenue change from FY2023 to FY2025?") is None
    assert (
        analyst_path("Using the cash flow statement, what were BHP's dividends paid in FY2024?")
        is not None
    )
    assert analyst_path("What was BHP's ROE in FY2024? Round to two decimal places.") is not None


def test_the_part_a_relevance_check_judges_is_the_ask_not_its_instructions() -> None:
    question = (
        "Using the statement of cash flows, answer the following: how much did Emu Co "
        "spend on dividends in FY2021? Answer in USD millions."
    )
    assert asked_part(question) == "how much did Emu Co spend on dividends in FY2021?"
    condition = "Excluding one-off items, what was Emu Co's profit in FY2021?"
    assert asked_part(condition) == condition


@pytest.mark.parametrize(
    ("phrase", "label", "matches"),
    [
        ("COGS", "Cost of revenues", True),
        ("cost of goods sold", "Cost of sales", True),
        ("cash from operations", "Net cash provided by (used in) operating activities", True),
        ("cash from operations", "Net cash used in investing activities", False),
        ("capex", "Payments for property, plant and equipment", True),
        ("total current assets", "Total assets", False),
        ("total assets", "Total current assets", False),
        ("inventories", "Current assets: Inventories", True),
        ("net income", "Total comprehensive income", False),
        ("net income", "Net earnings attributable to Emu Co", True),
    ],
)
def test_a_line_item_phrase_meets_the_labels_statements_print(
    phrase: str, label: str, matches: bool
) -> None:
    assert (item_score(phrase, label) > 0) is matches


TABLE = ChunkText(
    chunk_id="c1",
    company="EMU",
    fiscal_year=2021,
    page=40,
    document="Emu Co Annual Report 2021",
    section="Consolidated balance sheets",
    is_table=True,
    unit=None,
    text="[Emu Co (EMU) · FY2021 · page 40]\n"
    "| US$M | FY2020 (31 Dec 2020) | FY2021 (31 Dec 2021) |\n|---|---|---|\n"
    "| Total current assets | 45,781 | 60,197 |\n| Total current liabilities | 43,816 | 57,883 |",
)
QUESTION = "What is Emu Co's FY2021 current ratio? Round to two decimal places."


def test_written_working_is_recomputed_and_backs_its_result() -> None:
    good = "Emu Co's FY2021 current ratio: US$60,197 million ÷ US$57,883 million = 1.04 [1]."
    text_claims = claimed_amounts(good)
    (result,) = worked_results(good, text_claims).items()
    assert agrees(result[1], text_claims[result[0]])
    report = check_numbers(good, [TABLE], QUESTION)
    assert report.unsupported == []
    assert [d.formula for d in report.derived] == ["US$60,197 million ÷ US$57,883 million = 1.04"]


@pytest.mark.parametrize(
    "answer",
    [
        # the arithmetic does not give the result
        "Emu Co's FY2021 current ratio: US$60,197 million ÷ US$57,883 million = 1.14 [1].",
        # a figure of the other year in a sentence about FY2021
        "Emu Co's FY2021 current ratio: US$60,197 million ÷ US$43,816 million = 1.37 [1].",
        # a constant the question never gave, hiding a made-up figure
        "Emu Co's FY2021 current ratio: US$60,197 million ÷ 45,000 = 1.34 [1].",
    ],
)
def test_working_that_does_not_hold_leaves_its_result_unsupported(answer: str) -> None:
    assert check_numbers(answer, [TABLE], QUESTION).unsupported != []


@pytest.mark.parametrize(
    ("question", "statements"),
    [
        ("What did Acme say about its balance sheet in FY2024?", ()),
        ("What did the chair comment on the cash flow statement?", ()),
        ("How much cash sits on the balance sheet of Acme at FY2023?", ("balance sheet",)),
        ("Per its statement of operations, what was Acme's FY2022 revenue?", ("income statement",)),
    ],
)
def test_a_statement_named_as_the_topic_is_no_place_to_read_a_figure(
    question: str, statements: tuple[str, ...]
) -> None:
    assert read_analyst(question).statements == statements


def _cell(label: str, value: float, unit: str, chunk: str = "c1") -> Fact:
    return Fact(
        chunk_id=chunk,
        company="ACME",
        document="d",
        page=1,
        report_fiscal_year=2022,
        fiscal_year=2022,
        restated=False,
        label=label,
        metric=None,
        value=value,
        raw=str(value),
        unit=unit,
        decimals=0,
        period_months=12,
    )


def test_an_amount_asked_for_is_read_from_a_line_of_money_not_of_years() -> None:
    from domain.reports.line_items import find_item

    useful_life = _cell("Property, plant and equipment", 44, "count", "lives")
    balance = _cell("Property, plant and equipment, net", 12645, "us$m", "sheet")
    found = find_item("net property, plant, and equipment", 2022, [useful_life, balance])
    assert found is not None and found.fact is balance
    # Quiet: a count asked for is read from the line of counts.
    shares = _cell("Number of shares on issue", 500, "count")
    found = find_item("number of shares on issue", 2022, [shares, balance])
    assert found is not None and found.fact is shares


def test_a_line_of_the_statement_named_is_preferred_to_the_same_line_in_a_note() -> None:
    from domain.reports.line_items import find_item

    pro_forma = _cell("Net sales", 187890, "us$m", "note")
    statement = _cell("Total net sales", 177866, "us$m", "ops")
    titles = {
        "note": "Note 4 Acquisitions · Pro forma",
        "ops": "Consolidated Statements of Operations",
    }
    found = find_item("revenue", 2022, [pro_forma, statement], ("income statement",), titles)
    assert found is not None and found.fact is statement


@pytest.mark.parametrize(
    ("phrase", "wrong", "right"),
    [
        # a line of the opposite flow or side
        ("dividends paid", "Dividends received", "Cash dividends paid"),
        ("accounts payable", "Accounts receivable", "Trade accounts payable"),
        # a line that measures the item in days or as a ratio
        ("accounts payable", "Days payable outstanding", "Accounts payable"),
        # the item's movement, not the item
        ("inventory", "Changes in operating assets and liabilities: Inventories", "Inventories"),
        # another line joined to the item's word by "and"
        ("total revenue", "Sales and marketing", "Total net revenue"),
        # a line the phrase's last words name, though the phrase is a line of its own
        ("income before income taxes", "Income tax provision", "Pretax income"),
        # a discontinued operations' line, beside the whole company's
        (
            "income before income taxes",
            "Loss before income tax benefit from discontinued operations",
            "Profit before income tax expense from continuing operations",
        ),
    ],
)
def test_a_line_that_only_shares_the_items_words_loses_to_the_items_own_line(
    phrase: str, wrong: str, right: str
) -> None:
    from domain.reports.line_items import find_item

    assert item_score(phrase, wrong) < 0.5 <= item_score(phrase, right)
    decoy = _cell(wrong, 9_999_999, "us$m", "decoy")  # the larger: it would win a tie
    own = _cell(right, 1_234, "us$m", "own")
    found = find_item(phrase, 2022, [decoy, own])
    assert found is not None and found.fact is own


@pytest.mark.parametrize(
    ("phrase", "label"),
    [
        ("cash", "Cash and cash equivalents"),
        ("property plant and equipment", "Property, plant and equipment, net"),
        ("research and development", "Research and development"),
        ("change in inventory", "Changes in operating assets and liabilities: Inventories"),
        ("days payable outstanding", "Days payable outstanding"),
    ],
)
def test_the_items_own_line_is_not_taken_for_another(phrase: str, label: str) -> None:
    assert item_score(phrase, label) >= 0.45


def test_a_change_over_years_reads_one_printed_line_not_a_segments_for_one_year() -> None:
    from domain.reports.line_items import find_items

    def at(label: str, value: float, year: int, chunk: str) -> Fact:
        return _cell(label, value, "us$m", chunk).model_copy(update={"fiscal_year": year})

    # A segment note prints "Net sales" for both years; the income statement "Total net
    # sales". One year's best alone could be either (equal words); a change reads one line.
    facts = [
        at("Net sales", 79_785, 2016, "segments"),
        at("Net sales", 106_110, 2017, "segments"),
        at("Total net sales", 135_987, 2016, "ops"),
        at("Total net sales", 177_866, 2017, "ops"),
    ]
    found = find_items("revenue", [2016, 2017], facts)
    assert {f.fact.chunk_id for f in found.values()} == {"ops"}
    # Quiet: with one year asked, that year's best line is read as before.
    assert set(find_items("revenue", [2017], facts)) == {2017}


def test_a_label_that_says_much_else_is_no_line_item_and_the_item_is_not_found() -> None:
    from domain.reports.line_items import find_item

    grain = _cell("Net mark-to-market revaluation of certain grain inventories", 6.5, "us$m")
    assert find_item("inventory", 2022, [grain]) is None
    # Quiet: the item's own line with a word more is still the item.
    payable = _cell("Accounts payable and accrued liabilities", 2_746, "us$m")
    found = find_item("accounts payable", 2022, [grain, payable])
    assert found is not None and found.fact is payable


@pytest.mark.parametrize(
    ("phrase", "named", "home"),
    [
        ("total assets", (), ("balance sheet",)),
        ("cash from operations", (), ("cash flow statement",)),
        ("cost of goods sold", ("balance sheet", "income statement"), ("income statement",)),
        # a statement the question names that does not print the item: the named ones
        ("capex", ("balance sheet",), ("balance sheet",)),
        # an item no statement's words name: where the question says
        ("working capital", ("balance sheet",), ("balance sheet",)),
    ],
)
def test_a_line_item_is_looked_for_first_in_the_statement_that_prints_it(
    phrase: str, named: tuple[str, ...], home: tuple[str, ...]
) -> None:
    from domain.reports.line_items import find_items, home_statements

    assert home_statements(phrase, named) == home
    if phrase == "total assets":
        titles = {"note": "Note 9 Segment information", "bs": "Consolidated Balance Sheets"}
        segment = _cell("Total assets", 99_999, "us$m", "note")
        sheet = _cell("Total assets", 50_710, "us$m", "bs")
        found = find_items(phrase, [2022], [segment, sheet], home, titles)
        assert found[2022].fact is sheet


@pytest.mark.parametrize(
    ("question", "name", "trend", "sign"),
    [
        (
            "Roughly how often did Emu Co turn over its stock in FY2021? Calculate inventory "
            "turnover for FY2021.",
            "inventory turnover",
            False,
            "",
        ),
        (
            "Please compute the quick ratio of Emu Co for FY2021; say if it is not meaningful.",
            "quick ratio",
            False,
            "",
        ),
        (
            "Does Emu Co run a negative working capital at FY2021?",
            "working capital",
            False,
            "negative",
        ),
        (
            "Have Emu Co's operating margins been deteriorating through FY2021?",
            "operating margin",
            True,
            "",
        ),
        (
            "Would you call Emu Co a high-growth business on its FY2021 numbers?",
            "revenue growth",
            False,
            "",
        ),
    ],
)
def test_a_standard_ratio_named_to_be_worked_out_or_judged_takes_the_analysts_path(
    question: str, name: str, trend: bool, sign: str
) -> None:
    """Named, not defined: its textbook definition, an average balance over the year's
    opening and close, the trend or the sign the question asks about."""
    asked = analyst_path(question, "Emu Co")
    assert asked is not None and asked.calculation is not None, question
    assert asked.named and asked.calculation.name == name
    assert (asked.trend, asked.sign) == (trend, sign)
    assert all(i.year in (2020, 2021) for i in items(asked.calculation.expr))
    if name == "inventory turnover":
        assert {i.year for i in items(asked.calculation.expr)} == {2020, 2021}
    years = [max(one.years) for one in trend_years(asked)]
    assert years == ([2019, 2020, 2021] if trend else [2021])


@pytest.mark.parametrize(
    ("question", "name"),
    [
        (
            "By how much did Emu Co's effective tax rate move from FY2020 to FY2021?",
            "effective tax rate",
        ),
        ("Compare Emu Co's current ratio in 2020 versus 2021.", "current ratio"),
        ("How different was the quick ratio of Emu Co in FY2021 from FY2020?", "quick ratio"),
        (
            "What was the change in Emu Co's operating margin between FY2020 and FY2021?",
            "operating margin",
        ),
    ],
)
def test_a_standard_ratio_compared_between_years_is_worked_out_for_each(
    question: str, name: str
) -> None:
    """A WH question on how a named ratio moved between the years it names: the ratio,
    once for each of them. Quiet below: one year, or a question of what made it move."""
    asked = analyst_path(question, "Emu Co")
    assert asked is not None and asked.calculation is not None, question
    assert asked.named and asked.compared and asked.calculation.name == name
    assert [max(one.years) for one in trend_years(asked)] == [2020, 2021]


def test_a_ratio_named_in_passing_is_no_calculation_asked() -> None:
    """A plain question, or one that asks what a ratio is, stays on the usual path."""
    assert analyst_path("What was Emu Co's working capital in FY2021?") is None
    assert analyst_path("What drove Emu Co's gross margin change in FY2021?") is None
    assert analyst_path("Why did Emu Co's gross margin change between FY2020 and FY2021?") is None
    assert analyst_path("What was Emu Co's current ratio in FY2021?") is None


@pytest.mark.parametrize(
    ("question", "name", "why"),
    [
        (
            "Is Emu Co's operating margin improving in FY2021? If operating margin isn't a "
            "meaningful measure for a business like this, say so and why.",
            "operating margin",
            False,
        ),
        (
            "What explains the change in Emu Co's gross margin for FY2021? If gross margin does "
            "not apply to such a company, explain why.",
            "gross margin",
            True,
        ),
        (
            "How healthy is Emu Co's quick ratio as of 2021? If the quick ratio is irrelevant "
            "here, tell me why.",
            "quick ratio",
            False,
        ),
        (
            "Why did Emu Co's net profit margin fall in FY2021? If net profit margin is not an "
            "appropriate metric for this company, please state that and explain why.",
            "net profit margin",
            True,
        ),
    ],
)
def test_a_question_that_allows_its_ratio_may_not_suit_the_company_names_it(
    question: str, name: str, why: bool
) -> None:
    """A question that says "If X is not a useful metric for a company like this, state that":
    the ratio it names is read (to be worked out, or said not given), and whether it asks
    what moved it is read without that sentence's "explain why"."""
    asked = analyst_path(question, "Emu Co")
    assert asked is not None and asked.calculation is not None, question
    assert asked.named and asked.offered and asked.calculation.name == name
    assert asked.why is why


def test_a_ratio_named_without_the_offer_is_not_offered() -> None:
    """Quiet: a named ratio judged with no such sentence, or a condition on something
    else ("if the dividend is not paid"), allows nothing."""
    judged = analyst_path("Is Emu Co's gross margin improving as of FY2021?", "Emu Co")
    assert judged is not None and not judged.offered
    other = analyst_path(
        "Does Emu Co have positive working capital in FY2021? If the dividend is not paid, say so.",
        "Emu Co",
    )
    assert other is not None and not other.offered
    assert analyst_path("What drove Emu Co's gross margin change in FY2021?") is None


def test_a_phrases_initials_are_no_more_words_to_share() -> None:
    """ "largest liability in the balance sheet" is read with the initials its words may be
    written as ("LBS"): those counted as words of their own, no sentence could share half
    of the phrase, and a ranked answer saying "liability ... balance sheet" was off the
    point. Quiet: a sentence sharing one word of three is still not about it; the
    initials written out are."""
    from domain.questions.measures import Focus, terms
    from domain.reports.open_answers import shares_most

    name = "largest liability in the balance sheet"
    part = Focus(phrase=name, text=name, terms=terms(name))
    assert shares_most(part, "Of the liability lines of the balance sheet, the largest was X.")
    assert not shares_most(part, "Its liability for taxes was settled.")
    flow = Focus(
        phrase="lost time injury frequency", text="", terms=terms("lost time injury frequency")
    )
    assert shares_most(flow, "Our LTIF was 0.5 this year.")


def _line(label: str, year: int, value: float, unit: str = "us$m") -> Fact:
    return Fact(
        chunk_id="income",
        company="ACME",
        document="d",
        page=1,
        report_fiscal_year=2022,
        fiscal_year=year,
        restated=False,
        label=label,
        metric=None,
        value=value,
        raw=str(value),
        unit=unit,
        decimals=1 if unit == "%" else 0,
        period_months=12,
    )


def _rates(tax_label: str, tax: dict[int, float], pretax: dict[int, float], *extra: Fact) -> list:
    """Each year's effective tax rate (its result, in percent) and the answer's lines."""
    from domain.reports.calculations import Sourced, answer_calculation

    asked = analyst_path("How did Emu Co's effective tax rate change from FY2021 to FY2022?")
    assert asked is not None
    facts = [_line(tax_label, y, v) for y, v in tax.items()]
    facts += [_line("Income (loss) before income taxes", y, v) for y, v in pretax.items()]
    sourced = [Sourced(f, 1) for f in [*facts, *extra]]
    titles = {"income": "Consolidated statements of operations"}
    out = []
    for one in trend_years(asked):
        said = answer_calculation(one, "ACME", "Acme", sourced, titles)
        assert said is not None and said.result is not None, said
        out.append((round(said.result * 100, 2), "\n".join(said.lines)))
    return out


def test_an_expense_is_read_the_way_its_statement_prints_it() -> None:
    """In brackets as a deduction: its amount. Under a label that names it a benefit
    ("Income tax benefit", "Income tax (expense)/benefit"): a figure without brackets is a
    benefit (a negative expense), one in brackets the expense. Each said in the answer."""
    deducted = _rates(
        "Provision for income taxes", {2021: -491, 2022: -411}, {2021: 2426, 2022: 1797}
    )
    assert [r for r, _ in deducted] == [20.24, 22.87]
    assert "printed as a deduction; its amount is used above" in deducted[0][1]
    bracketed = _rates(
        "Income tax (expense)/benefit", {2021: 743, 2022: -31}, {2021: -5033, 2022: -5022}
    )
    assert [r for r, _ in bracketed] == [14.76, -0.62]
    assert "a benefit, by its label" in bracketed[0][1]
    assert "an expense, by its label" in bracketed[1][1]
    benefit = _rates("Income tax benefit", {2021: 3481, 2022: 7054}, {2021: -20940, 2022: -96288})
    assert [r for r, _ in benefit] == [16.62, 7.33]
    # Quiet: an expense printed without brackets under its own name is used as printed.
    plain = _rates("Income tax expense", {2021: 2629, 2022: 2071}, {2021: 10689, 2022: 9585})
    assert [r for r, _ in plain] == [24.6, 21.61]
    assert all("by its label" not in lines and "deduction" not in lines for _, lines in plain)


def test_a_standard_ratio_the_report_prints_is_read_not_worked_out() -> None:
    """The company's own line of the ratio named, when one line of it says it; worked out
    from the statements when none does, or when its lines disagree (one per segment)."""
    printed = [
        _line("Effective income tax rate", 2021, 14.8, "%"),
        _line("Effective income tax rate", 2022, -0.6, "%"),
    ]
    rates = _rates(
        "Income tax (expense)/benefit", {2021: 743, 2022: -31}, {2021: -5033, 2022: -5022}, *printed
    )
    assert [r for r, _ in rates] == [14.8, -0.6]
    assert "as the report prints it (Effective income tax rate)" in rates[0][1]
    segments = [
        _line("Effective tax rate", 2021, 30.0, "%"),
        _line("Effective tax rate", 2021, 12.0, "%"),
        _line("Effective tax rate", 2022, 21.0, "%"),
    ]
    rates = _rates(
        "Income tax expense", {2021: 2629, 2022: 2071}, {2021: 10689, 2022: 9585}, *segments
    )
    assert [r for r, _ in rates] == [24.6, 21.0]
    assert "÷" in rates[0][1] and "as the report prints it" in rates[1][1]


def test_a_standard_ratio_read_off_the_report_answers_the_question() -> None:
    """A named ratio the report prints, read off it (no working, nothing derived), answers
    the question when its sentence names the ratio and cites the figure; a sentence of one
    of its line items alone does not."""
    from domain.checks.relevance import check_relevance

    question = "How did Emu Co's effective tax rate change from FY2021 to FY2022?"
    table = ChunkText(
        chunk_id="tax",
        company="EMU",
        fiscal_year=2022,
        document="d",
        page=41,
        section="Income taxes",
        is_table=True,
        unit=None,
        text="| | FY2022 | FY2021 |\n|---|---|---|\n| Effective tax rate | 21.6% | 24.6% |\n"
        "| Income tax expense | 2,071 | 2,629 |\n",
    )
    read = (
        "Emu Co's FY2021 effective tax rate, as the report prints it (Effective tax rate): "
        "24.6% [1].\n\nEmu Co's FY2022 effective tax rate, as the report prints it "
        "(Effective tax rate): 21.6% [1]."
    )
    assert check_relevance(question, read, [table], []).addressed
    items_only = "Emu Co's FY2022 income tax expense was US$2,071 million [1]."
    assert check_relevance(question, items_only, [table], []).off_point


@pytest.mark.parametrize(
    ("question", "end", "choices"),
    [
        (
            "Of capital expenditure, dividends paid and share buybacks, which was the largest "
            "for Emu Co in FY2021?",
            "highest",
            ("capital expenditure", "dividends paid", "share buybacks"),
        ),
        (
            "Between net income and free cash flow, which was lower for Emu Co in 2021?",
            "lowest",
            ("net income", "free cash flow"),
        ),
        (
            "Among operating, investing or financing activities, what lost the least cash at "
            "Emu Co in FY2021?",
            "lowest",
            ("operating activities", "investing activities", "financing activities"),
        ),
    ],
)
def test_a_choice_among_line_items_the_question_names_takes_the_analysts_path(
    question: str, end: str, choices: tuple[str, ...]
) -> None:
    """The items named, a noun the last shares given to each that lacks it, and the end
    asked (the first superlative or comparative said)."""
    asked = analyst_path(question, "Emu Co")
    assert asked is not None and asked.among == (end, choices), asked


@pytest.mark.parametrize(
    "question",
    [
        "Of revenue, EBITDA and net income, which grew the most for Emu Co in FY2021?",
        "Which of Emu Co's segments had the lowest revenue in FY2021?",
        "Among operating, investing and financing activities, what did Emu Co report in FY2021?",
        "Among operating, investing and financing activities, which was the largest for Emu Co?",
    ],
)
def test_a_movement_a_list_without_a_superlative_or_no_year_is_no_choice_among_items(
    question: str,
) -> None:
    """Quiet: which grew most is no choice among levels; segments not named one by one,
    no highest or lowest asked, or no year, are not this reading."""
    asked = analyst_path(question, "Emu Co")
    assert asked is None or asked.among is None, asked


def test_a_standard_ratio_of_one_line_item_is_searched_for_that_line() -> None:
    """ "A high growth company" reads one line item in two years' columns: its line is
    searched for apart, under its statement's titles (J&J's revenue lines were never
    searched, and the judgement went unanswered). Quiet: a plain line item asked is not."""
    from backends.engines.offline.analyst import search_facets

    asked = analyst_path("Are Emu Co's FY2021 financials those of a high growth company?")
    assert asked is not None and asked.named
    (facet,) = search_facets(asked)
    assert "revenue" in facet and "income statement" in facet
    plain = analyst_path("What was Emu Co's revenue in FY2021? Answer in USD millions.")
    assert plain is not None and search_facets(plain) == []


@pytest.mark.parametrize(
    ("question", "years"),
    [
        ("What was the return on equity of Emu Co in 2021?", {2020, 2021}),
        ("What is Emu Co's return on assets for FY2021? Answer in percent.", {2020, 2021}),
        ("What is Emu Co's inventory turnover? Round to two decimal places.", None),
    ],
)
def test_a_standard_ratio_over_an_average_balance_is_read_without_raising(
    question: str, years: set[int] | None
) -> None:
    """ "What was the return on equity of American Express in 2022?" raised out of the
    engine (an average balance parsed with no year to end it): the year asked ends it,
    and with no year the question is no calculation."""
    asked = read_analyst(question, "Emu Co")
    if years is None:
        assert asked.calculation is None or not items(asked.calculation.expr), asked
    else:
        assert asked.calculation is not None, asked
        assert {i.year for i in items(asked.calculation.expr)} == years


def test_years_compared_are_given_on_one_basis() -> None:
    """Corning's FY2021 rate was read off its FY2021 10-K's line (20.5%) and its FY2022 rate
    worked out from the FY2022 statement: both are now worked out, as the statement gives
    both years' lines. Quiet: with every year's rate printed, each is read off its line."""
    from backends.engines.offline.analyst import compose
    from domain.companies.roster import Company, pinned

    def chunk(cid: str, year: int, section: str, text: str) -> ChunkText:
        return ChunkText(
            chunk_id=cid,
            company="ACME",
            fiscal_year=year,
            document=f"d{year}",
            page=1,
            section=section,
            text=text,
            is_table=True,
            unit="US$M",
        )

    statement = chunk(
        "is",
        2022,
        "Consolidated statements of income",
        "| US$M | FY2022 (31 Dec 2022) | FY2021 (31 Dec 2021) |\n|---|---|---|\n"
        "| Income before income taxes | 1,797 | 2,426 |\n"
        "| Provision for income taxes | (411) | (491) |\n",
    )
    note = chunk(
        "tax21",
        2021,
        "Provision for income taxes",
        "| | FY2021 (31 Dec 2021) | FY2020 (31 Dec 2020) |\n|---|---|---|\n"
        "| Effective tax rate | 20.5% | 17.5% |\n",
    )
    asked = analyst_path("How did Acme's effective tax rate change between FY2021 and FY2022?")
    assert asked is not None and asked.compared
    acme = Company("ACME", "Acme", aliases=("acme",), year_end="12-31")
    with pinned([acme]):
        mixed = compose(asked, ["ACME"], [note, statement])
        both = chunk(
            "tax22",
            2022,
            "Provision for income taxes",
            "| | FY2022 (31 Dec 2022) | FY2021 (31 Dec 2021) |\n|---|---|---|\n"
            "| Effective tax rate | 22.9% | 20.2% |\n",
        )
        printed = compose(asked, ["ACME"], [both, statement])
    assert mixed is not None and printed is not None
    assert "= 20.2%" in mixed.answer and "= 22.9%" in mixed.answer, mixed.answer
    assert "as the report prints it" not in mixed.answer, mixed.answer
    assert printed.answer.count("as the report prints it") == 2, printed.answer
    assert "percentage points" in printed.answer


def test_a_ranked_lines_own_figures_are_not_quoted_as_claims() -> None:
    """American Express prints "Long-term debt (includes debt issued by consolidated
    variable interest entities: 2022, $12,662; 2021, $13,803)": quoted whole in the ranked
    answer, its 2021 figure was a claim no cited figure backed and the line was removed.
    The aside is left out of the quote; the line's own figure is still cited."""
    from backends.engines.offline.analyst import compose
    from domain.companies.roster import Company, pinned

    sheet = ChunkText(
        chunk_id="bs",
        company="ACME",
        fiscal_year=2022,
        document="d",
        page=93,
        section="Consolidated balance sheets",
        is_table=True,
        unit="US$M",
        text="| US$M | FY2022 (31 Dec 2022) | FY2021 (31 Dec 2021) |\n"
        "|---|---|---|\n| Liabilities |\n| Customer deposits | 110,239 | 84,382 |\n"
        "| Long-term debt (includes debt of trusts: 2022, $12,662; 2021, $13,803) | "
        "42,573 | 38,675 |\n| Accounts payable | 12,133 | 10,574 |\n",
    )
    question = "What was the largest liability in Acme's balance sheet in 2022?"
    asked = analyst_path(question, "Acme")
    assert asked is not None and asked.ranked is not None
    with pinned([Company("ACME", "Acme", aliases=("acme",), year_end="12-31")]):
        draft = compose(asked, ["ACME"], [sheet])
    assert draft is not None and "Long-term debt US$42,573 million" in draft.answer, draft
    assert "13,803" not in draft.answer
    assert check_numbers(draft.answer, [sheet], question).unsupported == [], draft.answer
