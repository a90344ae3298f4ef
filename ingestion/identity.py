"""Who a report is of and when: read from its first pages, as a person would.

Every annual report prints its company's name, the period it covers and, usually, its
listing code on its first pages: "Kelly Partners Group Holdings Limited ... ASX code: KPG
... for the year ended 30 June 2022"; a 10-K's cover has "(Exact name of registrant as
specified in its charter)" under the name, "For the fiscal year ended December 31, 2017"
and the "Trading Symbol(s)". `read_identity` finds those, or says what it could not tell;
the ingest command's flags override whatever it read. No company, exchange or year is
known here in advance: the patterns are how reports print these things.
"""

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import date

from domain.language.calendar import fiscal_year_of
from domain.language.words import legal_form_pattern

_MONTHS = {
    name: i
    for i, names in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1
    )
    for name in (names,)
}
_MONTH = r"(?P<m>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_DATES = (
    re.compile(r"(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH + r",?\s+(?P<y>(?:19|20)\d{2})", re.I),
    re.compile(_MONTH + r"\s+(?P<d>\d{1,2}),?\s+(?P<y>(?:19|20)\d{2})", re.I),
)
_PERIOD = re.compile(
    r"\b(?P<kind>(?:financial\s+|fiscal\s+)?year|quarterly\s+period|quarter|half[-\s]year|"
    r"(?:three|six|nine|twelve)\s+months|52\s+weeks|53\s+weeks)\s+ended\s*"
    r"(?:on\s+)?(?P<date>[^\n;]{6,30})",
    re.I,
)
_INTERIM_REPORT = re.compile(
    r"\bquarterly\s+report\b|\bform\s+10-Q\b|\bhalf[-\s]year\s+report\b", re.I
)
_ANNUAL_FORM = re.compile(r"\bform\s+(?:10-K|20-F|40-F)\b|\bannual\s+report\b", re.I)
_CURRENT_REPORT = re.compile(r"\bform\s+(?:8-K|6-K)\b|\bcurrent\s+report\b", re.I)
_REPORT_DATE = re.compile(r"\bdate\s+of\s+report\b[^:\n]{0,60}:\s*", re.I)
_RELEASE = re.compile(
    r"\bfor\s+immediate\s+release\b|\b(?:announces?|reports?)\b[^.\n]{0,60}\bresults\b", re.I
)
"""A results announcement ("FOR IMMEDIATE RELEASE", "Ulta Beauty Announces Fourth Quarter
Fiscal 2022 Results"): a company's release, not its report of the year."""
_TITLE_YEAR = re.compile(
    r"\b(?:annual\s+report|financial\s+report|form\s+10-k)\s+(?:for\s+)?(?:FY\s?)?((?:19|20)\d{2})\b",
    re.I,
)
_REGISTRANT = re.compile(
    r"\(?exact\s+name\s+of\s+registrant\s+as\s+specified\s+in\s+its\s+charter\)?", re.I
)
# A name is told by its capitals, so its legal form is too; "plc" is also written in
# lower case after a capitalised name ("Antofagasta plc").
_LEGAL = re.compile(
    r"\b((?:[A-Z][\w&'.,-]*\s+){0,6}?[A-Z][\w&'.,-]*\s+"
    rf"(?:{legal_form_pattern(cased=True)}|plc))(?![\w])"
)
# Another company's name right before a listing code in brackets; not "the Company
# (ASX: …)", which is how a report names its own.
_OTHER_COMPANY = re.compile(
    rf"\b{legal_form_pattern(frozenset({'company', 'co'}))}\W*\($", re.IGNORECASE
)
_CODE = re.compile(
    r"\b(?:ASX|NZX|LSE|AIM|TSX|SGX|NYSE|NASDAQ|Nasdaq)\s*(?i:code|ticker|symbol|listing\s+code)?"
    r"\s*[:\-–]?\s*\(?(?P<a>[A-Z][A-Z0-9.]{1,5})\b|"
    r"\b(?i:(?:securities|stock)\s+exchange\s+)?(?i:code|ticker|trading\s+symbol\(?s?\)?)"
    r"\s*[:\-–]\s*(?P<b>[A-Z][A-Z0-9.]{1,5})\b"
)
_SYMBOL_ROW = re.compile(
    r"\b(?P<s>[A-Z]{1,5})\s+(?:The\s+)?(?:Nasdaq|NASDAQ|New\s+York\s+Stock\s+Exchange|NYSE)\b"
)
_CURRENCIES = (
    (
        "A$",
        re.compile(r"\bAustralian\s+dollars?\b|\bABN\s*\d|\bASX\b|\bCorporations\s+Act\b", re.I),
    ),
    ("NZ$", re.compile(r"\bNew\s+Zealand\s+dollars?\b|\bNZX\b", re.I)),
    ("£", re.compile(r"\bpounds?\s+sterling\b|£\s?\d", re.I)),
    ("€", re.compile(r"\beuros?\b|€\s?\d", re.I)),
    ("C$", re.compile(r"\bCanadian\s+dollars?\b|\bTSX\b", re.I)),
    (
        "US$",
        re.compile(
            r"\bSecurities\s+and\s+Exchange\s+Commission\b|\bForm\s+10-[KQ]\b|\bForm\s+8-K\b|"
            r"\bU\.?S\.?\s+dollars?\b",
            re.I,
        ),
    ),
)
_NOT_NAMES = re.compile(
    r"\b(?:auditor|audit|chartered|accountants?|lawyers?|solicitors?|registry|registries|"
    r"bank|banking|pty|share\s+registry|computershare|link\s+market|boardroom|ernst|deloitte|"
    r"kpmg|pricewaterhouse|bdo|grant\s+thornton|william\s+buck|nexia|pitcher|rsm|hall\s+chadwick)\b",
    re.I,
)


@dataclass(frozen=True)
class Identity:
    """What a report's first pages say of who and when; None where they do not say."""

    name: str | None = None
    ticker: str | None = None
    period_end: date | None = None
    currency: str | None = None
    interim: bool = False
    """The period is shorter than a year (a quarterly or half-year report)."""
    kind: str = "annual"
    """What the document is, as its first page says: "annual" (a year's report, also
    when the page does not say), "interim" (a quarter's or a half's), "current" (a
    current report, Form 8-K) or "release" (a results announcement)."""
    dated: date | None = None
    """The date a current report or a release is of ("Date of report ...: August 30, 2023")."""
    unknown: list[str] = field(default_factory=list)
    """What could not be told, in words ("its listing code")."""

    @property
    def year_end(self) -> str | None:
        """The month-day its fiscal year ends, from an annual report's period end."""
        if self.period_end is None or self.interim:
            return None
        end = self.period_end
        if (end.month, end.day) <= (1, 20):
            return "12-31"  # a 52/53-week year closing in the first days of January
        return f"{end.month:02d}-{end.day:02d}"

    def fiscal_year(self, year_end: str | None = None) -> int | None:
        """The fiscal year of the period it covers (`year_end`: the company's, if known)."""
        if self.period_end is None:
            return None
        return fiscal_year_of(self.period_end, year_end or self.year_end)


def _date(text: str) -> date | None:
    for pattern in _DATES:
        match = pattern.search(text)
        if match is not None:
            try:
                return date(int(match["y"]), _MONTHS[match["m"].lower()[:3]], int(match["d"]))
            except ValueError:
                return None
    return None


def _period(text: str) -> tuple[date | None, bool]:
    """The period end the pages name most often ("year ended 30 June 2022"), and whether
    it is an interim period's."""
    years: Counter[date] = Counter()
    interim: Counter[date] = Counter()
    for match in _PERIOD.finditer(text):
        day = _date(match["date"])
        if day is None:
            continue
        kind = match["kind"].lower()
        if re.search(r"quarter|half|three|six|nine", kind):
            interim[day] += 1
        else:
            years[day] += 1
    if interim and _INTERIM_REPORT.search(text):
        return max(interim.items(), key=lambda kv: (kv[1], kv[0]))[0], True
    if years:
        best = max(years.items(), key=lambda kv: (kv[1], kv[0]))[0]
        if not interim or years[best] >= max(interim.values()):
            return best, False
    if interim:
        return max(interim.items(), key=lambda kv: (kv[1], kv[0]))[0], True
    title = Counter(int(m.group(1)) for m in _TITLE_YEAR.finditer(text))
    if title:
        return date(title.most_common(1)[0][0], 12, 31), False
    return None, False


def _name(lines: list[str]) -> str | None:
    """The registrant's name above the 10-K's "(Exact name of registrant ...)", else the
    company name with a legal form printed most often on the first pages."""
    for i, line in enumerate(lines):
        if _REGISTRANT.search(line):
            before = _REGISTRANT.split(line)[0].strip(" ,")
            if len(before) > 2:
                return _tidy(before)
            for previous in reversed(lines[max(0, i - 3) : i]):
                if previous.strip() and not re.search(r"commission|file number", previous, re.I):
                    return _tidy(previous)
    names: Counter[str] = Counter()
    shown: dict[str, str] = {}
    for line in lines:
        for match in _LEGAL.finditer(line):
            name = _tidy(match.group(1))
            if _NOT_NAMES.search(name) or len(name.split()) < 2:
                continue
            key = name.lower()
            names[key] += 1
            shown.setdefault(key, name)
    if not names:
        return None
    return shown[names.most_common(1)[0][0]]


def _tidy(name: str) -> str:
    name = " ".join(name.split()).strip(" ,.:;")
    name = re.sub(
        r"^(?:the\s+)?(?:directors\s+of|members\s+of|shareholders\s+of)\s+", "", name, flags=re.I
    )
    if sum(ch.isupper() for ch in name) > 0.6 * sum(ch.isalpha() for ch in name):
        # "AMAZON.COM, INC." → "Amazon.com, Inc.": the name as a person would write it.
        name = " ".join(w if w.isupper() and len(w) <= 2 else w.capitalize() for w in name.split())
    return name


def _ticker(text: str, lines: list[str], name: str | None) -> str | None:
    """The listing code printed most often, leaving out one in brackets after another
    company's name ("a director of Small Companies Ltd (ASX code: GC1)")."""
    own = (name or "").split()[0].lower() if name else ""
    codes: Counter[str] = Counter()
    for match in _CODE.finditer(text):
        code = match["a"] or match["b"]
        before = text[max(0, match.start() - 60) : match.start()]
        other = _OTHER_COMPANY.search(before)
        if other and own and own not in before.lower():
            continue
        if code and code not in ("ABN", "ACN", "ASX", "THE", "CODE"):
            codes[code] += 1
    for line in lines:
        for match in _SYMBOL_ROW.finditer(line):
            if match["s"] not in ("LLC", "INC", "THE", "AND"):
                codes[match["s"]] += 1
    return codes.most_common(1)[0][0] if codes else None


def _currency(text: str) -> str | None:
    found = [(len(p.findall(text)), money) for money, p in _CURRENCIES]
    best = max(found)
    return best[1] if best[0] else None


def _kind(first: str, interim: bool) -> tuple[str, date | None]:
    """What a document is by its first page, and the date a current report or a release
    is of. A page that says a year's report (Form 10-K, "Annual Report"), or says
    nothing of it, is a year's report."""
    flat = " ".join(first.split())
    if interim:
        return "interim", None
    if _ANNUAL_FORM.search(flat):
        return "annual", None
    if _CURRENT_REPORT.search(flat):
        said = _REPORT_DATE.search(flat)
        return "current", _date(flat[said.end() : said.end() + 40]) if said else _date(flat)
    if _RELEASE.search(flat):
        return "release", _date(flat)
    return "annual", None


def read_identity(pages: list[str]) -> Identity:
    """Who and when, from the text of a report's first pages (in order)."""
    text = "\n".join(pages)
    lines = [ln for page in pages for ln in page.splitlines()]
    period_end, interim = _period(" ".join(text.split()))
    name = _name(lines)
    ticker = _ticker(text, lines, name)
    currency = _currency(text)
    unknown = [
        what
        for what, value in (
            ("the company's name", name),
            ("its listing code", ticker),
            ("the period it covers", period_end),
            ("its reporting currency", currency),
            # A quarter's or a half's end is no year's: the year end is not printed.
            ("its fiscal-year end", None if interim else True),
        )
        if value is None
    ]
    kind, dated = _kind(pages[0] if pages else "", interim)
    return Identity(
        name, ticker, period_end, currency, interim, kind=kind, dated=dated, unknown=unknown
    )


def ticker_from_name(name: str) -> str:
    """A listing code for a company whose report prints none: its name's first word, in
    capitals ("Amazon.com, Inc." → "AMAZON"), up to ten letters and digits."""
    first = re.split(r"[^A-Za-z0-9]+", re.sub(r"^the\s+", "", name.strip(), flags=re.I))
    word = next((w for w in first if w), "COMPANY")
    return word.upper()[:10]
