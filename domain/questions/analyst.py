"""Questions as analysts ask them: a measure, how to state it, and how to work it out.

Pure. An analyst's question carries more than its measure: how to state the figure ("in
USD millions", "in units of percents", "round to two decimal places"), where to read it
("using the cash flow statement", "primarily in the balance sheet"), and often how to
compute it ("DPO is defined as: 365 * (average accounts payable between FY2016 and
FY2017) / (FY2017 COGS + change in inventory between FY2016 and FY2017)"). `read_analyst`
takes these apart; nothing here knows a measure in advance. A definition the question
gives is parsed as arithmetic over line items (`Expr`); a question with none that asks
for a change, a growth rate, a compound growth rate, an average over years, a margin or a
share of another measure is given the arithmetic of what it asks; a ratio named without
its definition takes the textbook one (`TEXTBOOK`, a vocabulary like the synonyms': the
question's own definition always wins).
"""

import math
import re
from dataclasses import dataclass, field, replace

from domain.questions.choices import read_choice
from domain.questions.intent import asks_change, asks_comparison, asks_narrative

# How a question asks a figure to be stated.
_SCALE = re.compile(
    r"\bin\s+(?:units\s+of\s+)?(?:(?:usd|us\$|\$|dollars?)\s+)?(?P<s>millions|billions|thousands)\b"
    r"|\b(?:usd|us\$|\$)\s*(?P<t>millions|billions|thousands)\b",
    re.I,
)
_UNITS_OF = re.compile(r"\bin\s+units\s+of\b|\banswer\s+in\s+(?:usd|us\$|\$)", re.I)
_PERCENT = re.compile(
    r"\bin\s+(?:units\s+of\s+)?percents?\b|\(\s*as\s+an?\s+%\s*\)|\bas\s+a\s+%", re.I
)
_DECIMALS = re.compile(
    r"\bround(?:ed)?\b[^.?]*?\bto\s+(?:the\s+)?(?P<n>one|two|three|four|zero|no|\d)\s+decimal", re.I
)
_NUMBER_WORDS = {"zero": 0, "no": 0, "one": 1, "two": 2, "three": 3, "four": 4}
_STATEMENTS = (
    (
        "balance sheet",
        re.compile(r"\bbalance\s+sheets?\b|\bstatements?\s+of\s+financial\s+position\b", re.I),
    ),
    (
        "income statement",
        re.compile(
            r"\bincome\s+statements?\b|\bstatements?\s+of\s+(?:income|operations|earnings|profit\s+or\s+loss)"
            r"|\bp\s*&\s*l\b|\bprofit\s+and\s+loss\s+statement",
            re.I,
        ),
    ),
    (
        "cash flow statement",
        re.compile(r"\bcash\s+flows?\s+statements?\b|\bstatements?\s+of\s+cash\s+flows?\b", re.I),
    ),
)
_TOPIC = re.compile(
    r"\b(?:about|regarding|concerning|(?:say|said|says|comment\w*|remark\w*|wr[io]te)\s+on)"
    r"\s+(?:(?:the|its|their|our|[\w.&-]+'s?)\s+){0,2}$",
    re.I,
)
"""Words that make a statement the topic of a question, not where to read its figure
("What did they say about the balance sheet?")."""
_YEAR = r"(?:FY\s?|fiscal\s+(?:year\s+)?)?((?:19|20)\d{2})"


def _statements_to_read(question: str) -> tuple[str, ...]:
    """The statements a question names as where to read its figure."""
    return tuple(
        name
        for name, pattern in _STATEMENTS
        if any(not _TOPIC.search(question[: m.start()]) for m in pattern.finditer(question))
    )


_DEFINITION = re.compile(
    r"(?:^|[.?!:]\s+)(?:define\s+(?P<a>[^.?!]{2,80}?)\s+as\s*:?\s+(?P<ea>[^?!]+?)"
    r"(?=\.\s|\.$|[?!]|$)"
    r"|(?P<b>[A-Za-z][^.?!:]{0,80}?)\s+(?:is|here\s+is|are)\s+defined\s+as\s*:?\s*"
    r"(?P<eb>[^?!]+?)(?=\.\s|\.$|[?!]|$))"
    # "what was X, defined as A less B?": the definition inside the ask
    r"|(?P<c>[A-Za-z][^.?!:,]{2,120}?),\s*(?:which\s+is\s+|here\s+)?defined\s+as\s*:?\s*"
    r"(?P<ec>[^?!]+?)(?=[?!]|\.\s|\.$|$)",
    re.I,
)
_JUDGEMENT = re.compile(
    r"^\s*(?:is|are|does|do|did|has|have|was|were|can|could|should|would)\b|"
    r"\b(?:improving|deteriorating|consistent|healthy|high[\s-]growth|sustainable|"
    r"historically|profile)\b",
    re.I,
)
_WH = re.compile(r"\b(?:what|how\s+much|how\s+many|which|who)\b[^?]*\?", re.I)
_TREND = re.compile(
    r"\b(?:improv\w*|deteriorat\w*|declin\w*|consistent\w*|historical\w*|trend\w*|"
    r"stable|stabili\w+|fluctuat\w*|volatil\w*)\b",
    re.I,
)
"""Words of a judgement on how a measure moves over the years, not its level in one."""
_OFFERED = re.compile(
    r"\bif\s+(?:the\s+)?(?P<what>[^.;?!]{3,60}?)\s+(?:"
    r"(?:(?:is|are)\s+not|isn['’]t|aren['’]t)\s+(?:an?\s+)?(?:\w+\s+)?"
    r"(?:useful|relevant|meaningful|applicable|appropriate|suitable)\b|"
    r"(?:is|are)\s+(?:irrelevant|meaningless|inapplicable)\b|"
    r"(?:does|do)\s+not\s+apply\b|(?:doesn['’]t|don['’]t)\s+apply\b)",
    re.I,
)
"""A question that allows its measure may not suit the company ("If gross margin is not a
useful metric for a company like this, then please state that and explain why")."""
_IMPERATIVE = re.compile(
    r"(?:^|[.;?!]\s*)(?:please\s+)?(?:calculate|compute|work\s+out)\s+(?P<what>[^.;?!]+)",
    re.I,
)
"""A sentence that tells what to work out ("Calculate inventory turnover ratio for FY2022")."""


# ---- expressions ------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    """A line item at a year: "FY2017 COGS", "accounts payable" (the question's year)."""

    phrase: str
    year: int | None = None


@dataclass(frozen=True)
class Num:
    value: float


@dataclass(frozen=True)
class Mean:
    """The average of line items ("average inventory between FY2018 and FY2019")."""

    items: tuple["Expr", ...]


@dataclass(frozen=True)
class Op:
    op: str  # "+" "-" "*" "/" "^"
    left: "Expr"
    right: "Expr"


Expr = Item | Num | Mean | Op


class Unparsed(ValueError):
    """A definition that is not arithmetic over line items."""


_OPS = {
    "divided by": "/",
    "over": "/",
    "÷": "/",
    "times": "*",
    "multiplied by": "*",
    "×": "*",
    "x": "*",
    "less": "-",
    "minus": "-",
    "plus": "+",
    "−": "-",
    "–": "-",
    "—": "-",
}
_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d[\d,]*(?:\.\d+)?)(?![\w])|(?P<op>divided\s+by|multiplied\s+by|times|"
    r"less|minus|plus|over|[-+*/÷×−–—^()])|(?P<word>[^\s()+*/÷×−–—^]+))",
    re.I,
)


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for m in _TOKEN.finditer(text):
        if m.group("num") is not None:
            out.append(("num", m.group("num").replace(",", "")))
        elif m.group("op") is not None:
            op = " ".join(m.group("op").lower().split())
            out.append(("op", _OPS.get(op, op)))
        elif m.group("word"):
            word = m.group("word")
            if word.lower() == "x" and out and out[-1][0] in ("num", "close"):
                out.append(("op", "*"))
            else:
                out.append(("word", word))
    # A hyphen between words is part of a name ("year-end"), a spaced one an operator.
    return out


def _phrase_expr(words: list[str], default_year: int | None, named: dict[str, "Expr"]) -> Expr:
    """A run of words as a line item: "average X between FY2016 and FY2017" is their
    mean, "change in X between FY2016 and FY2017" the later less the earlier, "FY2017 X"
    X at 2017; a name the question defines elsewhere ("DIO") is that definition."""
    text = " ".join(words).strip(" ,:;")
    key = _key(text)
    if key in named:
        return named[key]
    between = re.search(rf"\b(?:between|from)\s+{_YEAR}\s+(?:and|to|-|–)\s+{_YEAR}", text, re.I)
    years = (int(between.group(1)), int(between.group(2))) if between else None
    bare = re.sub(
        rf"\b(?:between|from)\s+{_YEAR}\s+(?:and|to|-|–)\s+{_YEAR}", " ", text, flags=re.I
    )
    own = re.search(rf"\b{_YEAR}\b", bare, re.I)
    year = int(own.group(1)) if own else default_year
    bare = re.sub(rf"\b{_YEAR}\b", " ", bare, flags=re.I)
    bare = re.sub(
        r"\b(?:the|year[\s-]end|ending)\b|\bat\s+(?:the\s+)?end\s+of\b", " ", bare, flags=re.I
    )
    if re.match(r"\s*(?:average|mean)\b", bare, re.I):
        phrase = _tidy(re.sub(r"^\s*(?:average|mean)\s+", "", bare, flags=re.I))
        if years is None and year is not None:
            years = (year - 1, year)  # a year's average balance: its opening and its close
        if years is None:
            raise Unparsed(f"an average of {phrase} with no years")
        return Mean((Item(phrase, years[0]), Item(phrase, years[1])))
    if re.match(r"\s*(?:change|increase|decrease|movement)\b", bare, re.I):
        phrase = _tidy(
            re.sub(r"^\s*(?:change|increase|decrease|movement)\s+(?:in\s+)?", "", bare, flags=re.I)
        )
        if years is None:
            raise Unparsed(f"a change in {phrase} with no years")
        early, late = sorted(years)
        return Op("-", Item(phrase, late), Item(phrase, early))
    phrase = _tidy(bare)
    if not phrase:
        raise Unparsed(f"no line item in {text!r}")
    return Item(phrase, year)


def _tidy(text: str) -> str:
    text = " ".join(text.replace("(", " ").replace(")", " ").split()).strip(" ,:;.")
    return re.sub(r"^(?:of|the|in|for)\s+", "", text, flags=re.I)


def _key(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9 ]+", " ", text.lower()).split())


class _Parser:
    """A definition's tokens read as arithmetic: sums of products of powers of atoms."""

    def __init__(self, tokens: list[tuple[str, str]], year: int | None, named: dict[str, Expr]):
        self.tokens, self.year, self.named = tokens, year, named
        self.pos = 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        self.pos += 1
        return self.tokens[self.pos - 1]

    def additive(self) -> Expr:
        node = self.term()
        while (t := self.peek()) is not None and t[0] == "op" and t[1] in ("+", "-"):
            self.take()
            node = Op(t[1], node, self.term())
        return node

    def term(self) -> Expr:
        node = self.power()
        while (t := self.peek()) is not None and t[0] == "op" and t[1] in ("*", "/"):
            self.take()
            node = Op(t[1], node, self.power())
        return node

    def power(self) -> Expr:
        base = self.atom()
        if self.peek() == ("op", "^"):
            self.take()
            return Op("^", base, self.power())
        return base

    def atom(self) -> Expr:
        token = self.peek()
        if token is None:
            raise Unparsed("a definition that ends early")
        if token == ("op", "("):
            self.take()
            inner = self.additive()
            if self.peek() == ("op", ")"):
                self.take()
            return inner
        if token[0] == "num":
            self.take()
            return Num(float(token[1]))
        if token == ("op", "-"):
            self.take()
            return Op("-", Num(0.0), self.atom())
        words = self.phrase()
        if not words:
            raise Unparsed(f"an operator where a line item was expected ({token[1]!r})")
        return _phrase_expr(words, self.year, self.named)

    def phrase(self) -> list[str]:
        """A line item's words; a year inside them is theirs ("between FY2016 and
        FY2017"), as is a "-" between two years (a span, not a subtraction)."""
        words: list[str] = []
        while (t := self.peek()) is not None and (t[0] == "word" or (t[0] == "num" and words)):
            self.take()
            words.append(t[1])
        while (
            self.peek() == ("op", "-")
            and self.pos + 1 < len(self.tokens)
            and self.tokens[self.pos + 1][0] == "word"
            and re.fullmatch(_YEAR, self.tokens[self.pos + 1][1], re.I)
            and words
            and re.fullmatch(_YEAR, words[-1], re.I)
        ):
            self.take()
            words += ["to", self.take()[1]]
        return words


def parse_expression(
    text: str, default_year: int | None = None, named: dict[str, Expr] | None = None
) -> Expr:
    """A definition as arithmetic over line items and numbers (`Unparsed` otherwise)."""
    parser = _Parser(_tokens(text), default_year, named or {})
    result = parser.additive()
    if parser.pos < len(parser.tokens):
        raise Unparsed(f"left over: {' '.join(t[1] for t in parser.tokens[parser.pos :])!r}")
    return result


def items(expr: Expr) -> list[Item]:
    """The line items an expression reads, in order, without repeats."""
    found: list[Item] = []

    def walk(e: Expr) -> None:
        if isinstance(e, Item):
            if e not in found:
                found.append(e)
        elif isinstance(e, Mean):
            for i in e.items:
                walk(i)
        elif isinstance(e, Op):
            walk(e.left)
            walk(e.right)

    walk(expr)
    return found


def evaluate(expr: Expr, value: "dict[Item, float]") -> float:
    """The expression's value with each line item's figure (ZeroDivisionError, KeyError)."""
    if isinstance(expr, Num):
        return expr.value
    if isinstance(expr, Item):
        return value[expr]
    if isinstance(expr, Mean):
        return sum(evaluate(i, value) for i in expr.items) / len(expr.items)
    a, b = evaluate(expr.left, value), evaluate(expr.right, value)
    if expr.op == "+":
        return a + b
    if expr.op == "-":
        return a - b
    if expr.op == "*":
        return a * b
    if expr.op == "/":
        return a / b
    return math.copysign(abs(a) ** b, a)


def written(expr: Expr, shown: "dict[Item, str]", top: bool = True) -> str:
    """The expression with each line item's figure as the answer states it: the working
    a reader and the numeric check can follow ("365 × ((25,309 + 34,616) ÷ 2) ÷ ...")."""
    if isinstance(expr, Num):
        return f"{expr.value:g}"
    if isinstance(expr, Item):
        return shown[expr]
    if isinstance(expr, Mean):
        inner = " + ".join(written(i, shown, False) for i in expr.items)
        return f"(({inner}) ÷ {len(expr.items)})"
    symbol = {"+": "+", "-": "−", "*": "×", "/": "÷", "^": "^"}[expr.op]
    text = f"{written(expr.left, shown, False)} {symbol} {written(expr.right, shown, False)}"
    return text if top else f"({text})"


# ---- textbook definitions ---------------------------------------------------

TEXTBOOK: tuple[tuple[str, str], ...] = (
    # A vocabulary of standard definitions, read with the same parser as a question's
    # own: used only for a ratio the question names without defining it.
    ("working capital", "total current assets - total current liabilities"),
    ("working capital ratio", "total current assets / total current liabilities"),
    ("current ratio", "total current assets / total current liabilities"),
    ("quick ratio", "(total current assets - inventories) / total current liabilities"),
    ("inventory turnover", "cost of goods sold / average inventories"),
    ("inventory turnover ratio", "cost of goods sold / average inventories"),
    ("asset turnover", "revenue / average total assets"),
    ("asset turnover ratio", "revenue / average total assets"),
    ("free cash flow", "cash from operations - capital expenditure"),
    ("retention ratio", "(net income - dividends paid) / net income"),
    ("payout ratio", "dividends paid / net income"),
    ("dividend payout ratio", "dividends paid / net income"),
    ("debt to equity ratio", "total debt / total equity"),
    ("return on equity", "net income / average total equity"),
    ("return on assets", "net income / average total assets"),
    ("effective tax rate", "income tax expense / income before income taxes"),
    ("interest coverage ratio", "operating income / interest expense"),
    ("gross margin", "gross profit / revenue"),
    ("operating margin", "operating income / revenue"),
    ("net profit margin", "net income / revenue"),
    ("days sales outstanding", "365 * average accounts receivable / revenue"),
    ("days inventory outstanding", "365 * average inventories / cost of goods sold"),
    ("days payable outstanding", "365 * average accounts payable / cost of goods sold"),
)

WORKED_LINES: tuple[tuple[str, str], ...] = (
    # Accounting's identities for a line a statement may leave to its reader.
    ("gross profit", "revenue - cost of goods sold"),
)
"""A line item a statement may not print but gives all the same, by the lines it is
worked out of: a statement that prints these is not one that lacks it."""


# ---- the question -----------------------------------------------------------


@dataclass(frozen=True)
class Calculation:
    """How the measure asked is worked out, and how its result is stated."""

    name: str
    expr: Expr
    percent: bool
    """The result is a share, stated in percent (× 100)."""
    defined: str = ""
    """The definition as the question gives it ("" for one read from what it asks)."""
    over_years: tuple[int, ...] = ()
    """An average of the calculation over these years ("3 year average net margin")."""


@dataclass(frozen=True)
class AnalystQuestion:
    """What an analyst's question asks, taken apart (see the module docstring)."""

    measure: str
    """The measure asked, in the question's words, instructions and definitions taken out."""
    years: tuple[int, ...]
    calculation: Calculation | None
    statements: tuple[str, ...] = ()
    scale: str | None = None
    """"m", "bn" or "k": the money scale the answer is asked in."""
    percent: bool = False
    decimals: int | None = None
    judgement: bool = False
    """It asks for a judgement ("Is X a high growth company?"): the figures that bear on
    it are given, and the judgement is the reader's."""
    trend: bool = False
    """The judgement is on how the measure moved ("an improving gross margin profile",
    "historically consistent"): it is worked out for each year the reports print."""
    among: tuple[str, tuple[str, ...]] | None = None
    """("highest" or "lowest", the line items) when the question asks which of the line
    items it names is the highest or lowest ("Among operating, investing and financing
    activities, which brought in the most cash?"): each read, the one asked named."""
    ranked: tuple[str, str] | None = None
    """("highest" or "lowest", the kind of line) when the question asks for the largest or
    smallest line of a kind in a statement it names ("the largest liability in the balance
    sheet"): the statement's lines of that kind ranked."""
    sign: str = ""
    """"positive" or "negative" when the judgement asks whether the figure is ("Does X
    have positive working capital?"): read off the figure, not left to the reader."""
    named: bool = False
    """The calculation is a standard ratio the question names to be worked out or judged
    ("Does X have positive working capital?", "Calculate inventory turnover")."""
    compared: bool = False
    """A named ratio asked of how it moved between two or more years the question names:
    it is worked out for each of them."""
    offered: bool = False
    """The question allows that its named ratio may not suit the company and asks that
    said, and why: a statement that prints none of a line it needs says so."""
    why: bool = False
    """It asks what made the measure move ("What drove gross margin change?"): the reasons
    are the reports' words, not a calculation's."""
    instructions: tuple[str, ...] = field(default_factory=tuple)
    """The question's sentences that say how to answer, not what."""

    @property
    def asks_calculation(self) -> bool:
        return self.calculation is not None


def _years(text: str) -> list[int]:
    return [int(y) for y in re.findall(rf"\b{_YEAR}\b", text, re.I)]


def _span(text: str) -> tuple[int, int] | None:
    """A span of years a question names: "FY2015 - FY2017", "from FY2016 to FY2018",
    "between FY2019 and FY2020"."""
    m = re.search(rf"{_YEAR}\s*(?:-|–|to|and|through)\s*{_YEAR}", text, re.I)
    if m is None:
        return None
    a, b = int(m.group(1)), int(m.group(2))
    return (a, b) if a < b else None


def _measure_clause(question: str) -> str:
    """The clause that asks ("what is X?"), else the question's first sentence."""
    asks = list(_WH.finditer(question))
    if asks:
        return asks[-1].group(0) if len(asks) > 1 and not asks[0].group(0) else asks[0].group(0)
    return re.split(r"(?<=[.?!])\s", question.strip(), maxsplit=1)[0]


_ASK = re.compile(
    r"^\s*(?:what|how\s+much|how\s+many|which|who)\s+(?:is|was|are|were|did|does|do|has|had)?\s*",
    re.I,
)
_LEADING = re.compile(
    r"^\s*(?:the|a|an|year[\s-]end|total\s+amount\s+of|amount\s+of|level\s+of|value\s+of)\s+",
    re.I,
)
_TRAILING = re.compile(
    r"\s+(?:did|does|do|has|have|had|at\s+the\s+end|as\s+of|in\s+units|answer|round|"
    r"rounded)\b.*$",
    re.I,
)
_LAST_WORD = re.compile(r"\s+(?:for|of|in|at|from|to|by|the|and|between|on|during|over)\s*$", re.I)


def _measure(clause: str, company_words: str) -> str:
    """The measure a clause asks about: its words without the asking, the company, the
    years and the instructions after it."""
    text = re.sub(r"\(.*?\)", " ", clause).replace("?", " ")
    for name in sorted(filter(None, company_words.split("|")), key=len, reverse=True):
        text = re.sub(rf"\b{re.escape(name)}(?:'s|’s)?(?=\W|$)", " ", text, flags=re.I)
    text = re.sub(
        rf"\b(?:from|between)?\s*\b{_YEAR}\b(?:\s*(?:-|–|to|and|through)\s*\b{_YEAR}\b)?",
        " ",
        text,
        flags=re.I,
    )
    text = " ".join(text.split())
    text = _ASK.sub("", text)
    while (shorter := _LEADING.sub("", text)) != text:
        text = shorter
    text = _TRAILING.sub("", text)
    # A name the question gives its company that the coverage does not know ("for
    # Block"): a capitalised word that is no acronym, at either end of the measure.
    text = re.sub(r"\s+(?:for|of|at|by)\s+(?:[A-Z][a-z]+(?:\s+|$))+$", "", text)
    text = re.sub(r"^(?:[A-Z][a-z]+\s+)+(?=[a-z])", "", text)
    while (shorter := _LAST_WORD.sub("", text)) != text:
        text = shorter
    return text.replace("'s", "").strip(" ,:;.-")


_GROWTH = re.compile(
    r"\b(?:growth(?:\s+rate)?|year[\s-]over[\s-]year\s+change|(?:%|percent(?:age)?)\s+change|change)\b",
    re.I,
)
_CAGR = re.compile(r"\bcagr\b|\bcompound(?:ed)?\s+annual\s+growth", re.I)
_AVERAGE = re.compile(r"\b(?:\d+|two|three|four|five)[\s-]+years?\s+average\b|\baverage\b", re.I)
_SHARE = re.compile(
    r"^(?P<num>.+?)\s+as\s+an?\s+%\s+of\s+(?P<den>.+)$|^(?P<num2>.+?)\s+%\s+of\s+(?P<den2>.+)$",
    re.I,
)
_MARGIN = re.compile(r"^(?P<num>.*?)\s*(?:%\s*)?margins?$", re.I)


def _asked_arithmetic(
    measure: str, years: list[int], span: tuple[int, int] | None, percent: bool
) -> Calculation | None:
    """The arithmetic of a measure asked without a definition: a change, a growth rate,
    a compound growth rate, an average over years, a margin, a share; or a ratio's
    textbook definition."""
    # long: one case per kind of arithmetic a measure's words ask for, tried in order.
    text = measure
    if _CAGR.search(text) and span:
        inner = _tidy(_CAGR.sub(" ", re.sub(r"\b\d+\s+years?\b", " ", text, flags=re.I)))
        a, b = span
        growth = Op("^", Op("/", Item(inner, b), Item(inner, a)), Op("/", Num(1), Num(b - a)))
        expr = Op("-", growth, Num(1))
        return Calculation(f"{inner} compound annual growth rate", expr, True)
    if _AVERAGE.search(text) and span:
        inner_text = _tidy(_AVERAGE.sub(" ", text))
        each = _asked_arithmetic(inner_text, [], None, percent)
        a, b = span
        over = tuple(range(a, b + 1))
        if each is not None:
            return Calculation(f"average {each.name}", each.expr, each.percent, over_years=over)
        return Calculation(
            f"average {inner_text}", Mean(tuple(Item(inner_text, y) for y in over)), percent
        )
    if _GROWTH.search(text) and span:
        inner = _tidy(re.sub(r"\b(?:in|of)\b", " ", _GROWTH.sub(" ", text)))
        a, b = span
        if percent or re.search(r"growth|%|percent", text, re.I):
            return Calculation(
                f"change in {inner}", Op("-", Op("/", Item(inner, b), Item(inner, a)), Num(1)), True
            )
        return Calculation(f"change in {inner}", Op("-", Item(inner, b), Item(inner, a)), False)
    if m := _SHARE.match(text):
        num = _tidy(m.group("num") or m.group("num2"))
        den = _tidy(m.group("den") or m.group("den2"))
        return Calculation(f"{num} as a share of {den}", Op("/", Item(num), Item(den)), True)
    textbook = dict(TEXTBOOK)
    key = _key(re.sub(r"\b(?:unadjusted|reported)\b", " ", text))
    if key in textbook:
        try:
            standard = parse_expression(textbook[key], max(years) if years else None)
        except Unparsed:
            return None  # an average balance with no year to end it
        return Calculation(key, standard, "margin" in key or "rate" in key or "return" in key)
    if m := _MARGIN.match(text):
        num = _tidy(re.sub(r"\b(?:unadjusted|reported)\b", " ", m.group("num"), flags=re.I))
        if num:
            return Calculation(f"{num} margin", Op("/", Item(num), Item("revenue")), True)
    return None


_GROWTH_COMPANY = re.compile(r"\bgrowth\s+(?:company|business|firm|stock)\b", re.I)
"""A company judged as a growth company: its revenue's growth is what bears on it."""
TOP_LINE_GROWTH = "revenue growth"


_RANKED_LINE = re.compile(
    r"\b(?:(?P<high>largest|biggest|highest|greatest)|(?P<low>smallest|lowest))\s+"
    r"(?:single\s+)?(?P<kind>[a-z]+(?:\s+[a-z]+)?)\s+(?:item\s+|line\s+)?(?:in|on|of)\b",
    re.IGNORECASE,
)


def _ranked_line(clause: str, statements: tuple[str, ...]) -> tuple[str, str] | None:
    """The end and kind of line a question ranks within a statement it names ("What was
    the largest liability in X's balance sheet?": highest, "liability"), else None."""
    m = _RANKED_LINE.search(clause)
    if m is None or not statements:
        return None
    return ("highest" if m.group("high") else "lowest"), m.group("kind").lower()


def _among(question: str) -> tuple[str, tuple[str, ...]] | None:
    """The end asked and the line items a question chooses among (`domain.questions.choices`:
    "Among operations, investing, and financing activities, which brought in the most
    cash?": highest, ("operations activities", "investing activities", "financing
    activities")), the head noun the last carries given to each. None for no choice, or
    a choice by how the items moved ("which grew the most")."""
    choice = read_choice(question)
    ask = re.split(r"\b(?:which|what)\b", question, maxsplit=1, flags=re.I)[-1]
    if choice is None or asks_change(ask):
        return None
    head = choice.head
    items = tuple(o if not head or o.endswith(head) else f"{o} {head}" for o in choice.options)
    return choice.end, items


def _sign_asked(question: str) -> str:
    """ "positive" or "negative" when the question's first sentence asks whether a figure
    is; "" otherwise."""
    first = re.split(r"(?<=[.?!])\s", question.strip())[0]
    m = re.search(r"\b(positive|negative)\b", first, re.I)
    return m.group(1).lower() if m else ""


def _named_ratio(text: str, year: int | None) -> Calculation | None:
    """The standard ratio (`TEXTBOOK`) a question names to be judged or worked out,
    wherever in its words ("Does Corning have positive working capital based on FY2022
    data?"): the longest named, singular or plural ("gross margins")."""
    if _GROWTH_COMPANY.search(text) or text == TOP_LINE_GROWTH:
        # "a high growth company": growth of the top line over the year asked.
        if year is None:
            return None
        growth = Op("-", Op("/", Item("revenue", year), Item("revenue", year - 1)), Num(1))
        return Calculation(TOP_LINE_GROWTH, growth, True)
    key = f" {_key(text)} "
    named = [name for name, _ in TEXTBOOK if re.search(rf" {re.escape(name)}s? ", key)]
    if not named:
        return None
    name = max(named, key=len)
    definition = dict(TEXTBOOK)[name]
    ratio = any(w in name for w in ("margin", "rate", "return"))
    try:
        expr = _with_year(parse_expression(definition, year), year)
    except Unparsed:
        return None  # an average with no year to end it
    return Calculation(name, expr, ratio)


def _without_offer(question: str, offer: "re.Match[str] | None") -> str:
    """The question without the sentence that allows its measure may not suit the company
    (whose "explain why" asks why not, not what moved it)."""
    if offer is None:
        return question
    sentences = re.split(r"(?<=[.?!])\s+", question)
    return " ".join(s for s in sentences if offer.group(0) not in s)


def read_analyst(question: str, company_words: str = "") -> AnalystQuestion:
    """An analyst's question taken apart. `company_words` are the names of the companies
    it names, "|"-separated, so they are not read as part of its measure."""
    # long: the parts read in turn, then the reading with each of its seventeen fields named.
    percent = bool(_PERCENT.search(question))
    statements = _statements_to_read(question)
    clause = _measure_clause(question)
    measure = _measure(clause, company_words)
    years = _years(question)
    span = _span(clause) or _span(question)
    main_year = max(_years(clause) or years) if (years or _years(clause)) else None
    calculation = _defined(measure, clause, _definitions(question), main_year, percent)
    if calculation is None and measure:
        calculation = _worded(measure, years, span, percent, main_year)
    judgement = bool(_JUDGEMENT.search(question)) and not _WH.search(question)
    told = _IMPERATIVE.search(question)
    compared = (
        (asks_change(question) or asks_comparison(question))
        and len(set(years)) >= 2
        and not asks_narrative(question)
    )
    offer = _OFFERED.search(question)
    where = told.group("what") if told else re.split(r"(?<=[.?!])\s", question)[0]
    ratio = _ratio_named(
        calculation, where if (judgement or told or compared) else None, offer, main_year
    )
    calculation = ratio if ratio is not None else calculation
    instructions = tuple(
        s
        for s in re.split(r"(?<=[.?!])\s+", question)
        if s and s not in clause and not _DEFINITION.search(s)
    )
    return AnalystQuestion(
        measure=measure,
        years=tuple(sorted(set(years))),
        calculation=calculation,
        statements=statements,
        scale=_scale_asked(question),
        percent=percent,
        decimals=_decimals_asked(question),
        judgement=judgement,
        trend=judgement and bool(_TREND.search(_measure_clause(question))),
        named=ratio is not None,
        compared=compared and ratio is not None,
        offered=offer is not None and ratio is not None,
        why=asks_narrative(_without_offer(question, offer)),
        sign=_sign_asked(question) if judgement and calculation is not None else "",
        ranked=_ranked_line(clause, statements),
        among=_among(question) if years else None,
        instructions=instructions,
    )


def _scale_asked(question: str) -> str | None:
    """The scale the question asks its figure in ("in USD millions" → "m")."""
    scale_m = _SCALE.search(question)
    if scale_m is None:
        return None
    word = (scale_m.group("s") or scale_m.group("t") or "").lower()
    return {"millions": "m", "billions": "bn", "thousands": "k"}[word]


def _decimals_asked(question: str) -> int | None:
    """The decimal places the question asks for ("round to two decimal places" → 2)."""
    dec = _DECIMALS.search(question)
    if dec is None:
        return None
    n = dec.group("n").lower()
    return int(n) if n.isdigit() else _NUMBER_WORDS[n]


def _definitions(question: str) -> dict[str, str]:
    """What the question defines ("Here, working capital is defined as ..."), by name and
    by the acronym it gives."""
    definitions: dict[str, str] = {}
    for m in _DEFINITION.finditer(question):
        name = (m.group("a") or m.group("b") or m.group("c") or "").strip()
        body = (m.group("ea") or m.group("eb") or m.group("ec") or "").strip()
        name = re.sub(r"^(?:here\s*,?\s*)|\b(?:here)\b", "", name, flags=re.I).strip()
        if name and body:
            definitions[_key(re.sub(r"\(.*?\)", "", name))] = body
            acronym = re.search(r"\(([A-Z]{2,6})\)", name)
            if acronym:
                definitions[_key(acronym.group(1))] = body
    return definitions


def _defined(
    measure: str,
    clause: str,
    definitions: dict[str, str],
    main_year: int | None,
    percent: bool,
) -> Calculation | None:
    """The calculation the question defines for the measure it asks, or its only one."""
    named: dict[str, Expr] = {}
    # Definitions may refer to each other ("CCC is defined as: DIO + DSO - DPO").
    for _ in range(3):
        for key, body in definitions.items():
            try:
                named[key] = parse_expression(body, main_year, named)
            except Unparsed:
                continue
    asked = {_key(measure)}
    asked.update(_key(a) for a in re.findall(r"\(([A-Z]{2,6})\)", clause))
    for key in sorted(named, key=len, reverse=True):
        if key and any(a and (key in a or a in key) for a in asked):
            shares = bool(re.search(r"%|percent|margin|rate", measure + key, re.I)) and percent
            return Calculation(measure or key, named[key], shares, defined=definitions[key])
    if named and len(named) == 1:
        key, expr = next(iter(named.items()))
        return Calculation(measure or key, expr, percent, defined=definitions[key])
    return None


def _worded(
    measure: str,
    years: list[int],
    span: tuple[int, int] | None,
    percent: bool,
    main_year: int | None,
) -> Calculation | None:
    """The arithmetic the measure's own words ask ("the change in X between ...")."""
    calculation = _asked_arithmetic(measure, years, span, percent)
    if (
        calculation is not None
        and calculation.over_years == ()
        and isinstance(calculation.expr, Op)
    ):
        return Calculation(
            calculation.name, _with_year(calculation.expr, main_year), calculation.percent
        )
    return calculation


def _ratio_named(
    calculation: Calculation | None,
    where: str | None,
    offer: "re.Match[str] | None",
    main_year: int | None,
) -> Calculation | None:
    """A standard ratio named to be judged or worked out, though not defined (`where`:
    the first sentence's words for a judgement, the instruction's for a calculation), or
    offered ("What drove gross margin change? If gross margin is not a useful metric
    ..."): the ratio it names, to be worked out or said not given."""
    found = None
    if where is not None and (calculation is None or not calculation.defined):
        found = _named_ratio(where, main_year)
    current = found if found is not None else calculation
    if offer is not None and (current is None or not current.defined):
        offered = _named_ratio(offer.group("what"), main_year)
        found = offered if offered is not None else found
    return found


TREND_YEARS = 3
"""How many years a judgement on a trend is shown over: the years a 10-K's income
statement prints (its balance sheet prints two; a year it does not print is left out)."""


def asked_at(asked: AnalystQuestion, year: int) -> AnalystQuestion:
    """A named ratio asked with no year ("Are X's gross margins historically
    consistent?"), asked of `year`: the latest its company reports."""
    calc = asked.calculation
    if asked.years or not asked.named or calc is None:
        return asked
    ratio = _named_ratio(calc.name, year)
    return asked if ratio is None else replace(asked, years=(year,), calculation=ratio)


def trend_years(asked: AnalystQuestion) -> list[AnalystQuestion]:
    """A judgement on how a named ratio moved, as one question a year, earliest first,
    ending at the year asked (or each year a comparison names); the question alone for
    any other."""
    calc = asked.calculation
    if not ((asked.trend or asked.compared) and asked.named and calc is not None and asked.years):
        return [asked]
    last = max(asked.years)
    over = asked.years if asked.compared else range(last - TREND_YEARS + 1, last + 1)
    out: list[AnalystQuestion] = []
    for year in over:
        ratio = _named_ratio(calc.name, year)
        if ratio is not None:
            out.append(replace(asked, years=(year,), calculation=ratio))
    return out or [asked]


def _with_year(expr: Expr, year: int | None) -> Expr:
    """The expression with each line item that names no year at `year`."""
    if isinstance(expr, Item):
        return expr if expr.year is not None else Item(expr.phrase, year)
    if isinstance(expr, Mean):
        return Mean(tuple(_with_year(i, year) for i in expr.items))
    if isinstance(expr, Op):
        return Op(expr.op, _with_year(expr.left, year), _with_year(expr.right, year))
    return expr


def at_year(expr: Expr, year: int) -> Expr:
    """The expression with every line item at `year` (one year of an average over years)."""
    if isinstance(expr, Item):
        return Item(expr.phrase, year)
    if isinstance(expr, Mean):
        return Mean(tuple(at_year(i, year) for i in expr.items))
    if isinstance(expr, Op):
        return Op(expr.op, at_year(expr.left, year), at_year(expr.right, year))
    return expr


def analyst_path(question: str, company_words: str = "") -> AnalystQuestion | None:
    """The question taken apart, when it is asked as an analyst asks: it defines what it
    asks, names the statement to read, says how to state the figure, or asks for an
    average over years or a compound growth rate. None for a question asked plainly,
    which the engines read their own way."""
    asked = read_analyst(question, company_words)
    calc = asked.calculation
    if calc is not None and (
        calc.defined or calc.over_years or "compound" in calc.name or asked.named
    ):
        return asked
    # How to state a figure alone ("in billions") is how anyone asks; a statement to read,
    # a rounding to so many places, or units of percents is how an analyst does.
    if asked.among is not None:
        return asked
    if asked.statements or asked.decimals is not None or _UNITS_OF.search(question):
        return asked
    return None


def asked_part(question: str) -> str:
    """The question without the sentences that only say how to answer it or define its
    terms: what a check of relevance judges the answer against."""
    sentences = re.split(r"(?<=[.?!])\s+", question.strip())
    kept = [s for s in sentences if _WH.search(s) or not (_DEFINITION.search(s) or _instruction(s))]
    text = " ".join(kept) if kept else question
    # An instruction before the ask in one sentence ("Using the balance sheet, what is
    # X?"); a condition before it ("Excluding one-off items, what ...") is part of it.
    ask = _WH.search(text)
    if ask is not None and _instruction(text[: ask.start()]):
        return text[ask.start() :]
    return text


def _instruction(sentence: str) -> bool:
    """A sentence that says how to answer, not what: where to read, how to state."""
    return bool(
        _SCALE.search(sentence)
        or _PERCENT.search(sentence)
        or _DECIMALS.search(sentence)
        or any(p.search(sentence) for _, p in _STATEMENTS)
    )
