"""The covered companies: who they are, what they are called, which years they report.

Companies are data. A company is registered with its reports (ticker, name, aliases,
fiscal-year end, reporting currency: `Company`), and the coverage is whatever has been
ingested: the registry's companies with the fiscal years of their reports. The five
miners of the sample corpus are one such registry (`corpus/companies.toml`), not a
constant here. Every list of companies or years a user reads (refusals, clarifying
questions, help texts, validation errors) is built from the coverage in force.

The coverage in force (`coverage()`): a turn pins the coverage it read when it started
(`pin`), so a turn replays with the companies it began with whatever has been ingested
since; elsewhere (the API, activities, the CLI) it is the process's, loaded from the
registry and refreshed by its owner (`use_coverage`).

Company names are resolved from one alias table, `Company.aliases`, in three tiers:

1. **Exact aliases** (any casing, any run of spaces or a hyphen between words, accents and
   full-width characters folded): "bhp group", "South-32", "ＢＨＰ", "必和必拓". A ticker
   may carry its exchange: "BHP.AX", "BHP:ASX", "ASX:BHP", "ASX: FMG".
2. **Transposed tickers**: a three-letter, all-caps token with exactly a ticker's letters
   ("BPH" is BHP).
3. **Close misspellings** of the longer aliases: "Fortscue", "Northen Star", "Soth32".

Exact matches always win: a fragment that is an alias is never fuzzy-matched, and fuzzy
matching only looks at the text the exact aliases left over. See `resolve_name` for the
rules of tiers 2 and 3 and why they are as strict as they are.
"""

import calendar
import re
import unicodedata
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import date
from difflib import SequenceMatcher
from functools import lru_cache

from domain.language.calendar import year_closes
from domain.language.words import FUNCTION_WORDS, legal_form_pattern

# The fiscal years a report may be registered for: any year a listed company could have
# published an annual report in, without knowing the covered ones in advance.
FIRST_REPORT_YEAR = 1900
LAST_REPORT_YEAR = 2100

_YEAR_END = re.compile(r"(?P<month>\d{1,2})-(?P<day>\d{1,2})")
# "Holdings" and "Group" are no legal forms, but a name ends with them the same way
# ("Example Holdings Limited" is known as "Example").
_LEGAL_SUFFIX = re.compile(
    rf"\s+(?:{legal_form_pattern()}|holdings|group)\.?$",
    re.IGNORECASE,
)
_TICKER = re.compile(r"[A-Z0-9][A-Z0-9.]{0,9}")


@dataclass(frozen=True)
class Company:
    """A registered company.

    `aliases` are the names it resolves from, lower case with single spaces: the ticker,
    its names and any others it is known by (the sample's Chinese names). They are the one
    alias table; every matcher in this module (exact, exchange-suffixed, transposed,
    misspelled) is built from them. `year_end` is the month and day its fiscal year ends
    ("06-30"; "12-31" for a company that reports calendar years), and FY2024 is the year
    that ends in 2024. `fiscal_years` are the years whose reports have been ingested (empty
    in a registration that has none yet).
    """

    ticker: str
    name: str
    aliases: tuple[str, ...]
    year_end: str = "06-30"
    currency: str = "US$"
    """The reporting currency: what a bare "$'m" column of its statements means."""
    fiscal_years: tuple[int, ...] = ()
    commodities: tuple[str, ...] = ()
    """What it mines or produces, lower case ("iron ore", "gold"): "gold miners" are the
    companies that list "gold"."""

    def __post_init__(self) -> None:
        check_year_end(self.year_end)

    @property
    def _month_day(self) -> tuple[int, int]:
        month, day = self.year_end.split("-")
        return int(month), int(day)

    def period_end(self, fiscal_year: int) -> date:
        """Return the last day of the fiscal year (29 February becomes the 28th in a year
        that has none)."""
        return year_closes(fiscal_year, self.year_end)

    @property
    def calendar_year(self) -> bool:
        """Whether its fiscal year is the calendar year."""
        return self._month_day == (12, 31)

    @property
    def year_ends(self) -> str:
        """When its fiscal year ends, in words ("30 June")."""
        month, day = self._month_day
        return f"{day} {calendar.month_name[month]}"

    def with_years(self, fiscal_years: Iterable[int]) -> "Company":
        """The same company with these reports' years."""
        return Company(
            self.ticker,
            self.name,
            self.aliases,
            self.year_end,
            self.currency,
            tuple(sorted(set(fiscal_years))),
            self.commodities,
        )


def check_year_end(value: str) -> str:
    """A fiscal-year end as month-day ("06-30", "12-31", "3-31"), normalised; ValueError
    for anything else."""
    m = _YEAR_END.fullmatch(value.strip())
    if m is None:
        raise ValueError(f"fiscal-year end {value!r} is not a month-day such as 06-30")
    month, day = int(m["month"]), int(m["day"])
    if not 1 <= month <= 12 or not 1 <= day <= calendar.monthrange(2024, month)[1]:
        raise ValueError(f"fiscal-year end {value!r} is not a day of the year")
    return f"{month:02d}-{day:02d}"


def check_ticker(value: str) -> str:
    """A ticker as registered: upper case, letters, digits and dots, up to ten; ValueError
    otherwise."""
    ticker = value.strip().upper()
    if not _TICKER.fullmatch(ticker):
        raise ValueError(f"ticker {value!r} is not 1-10 letters, digits or dots")
    return ticker


def aliases_for(ticker: str, name: str, others: Iterable[str] = ()) -> tuple[str, ...]:
    """The alias table's entries for a company: its ticker, its name, the name without a
    legal suffix ("Example Mining Limited" is also "example mining"), and `others`."""
    found: list[str] = []
    stripped = name
    while (shorter := _LEGAL_SUFFIX.sub("", stripped).rstrip(" ,")) != stripped and shorter:
        stripped = shorter
    stripped = re.sub(r"^the\s+", "", stripped, flags=re.IGNORECASE)  # "The Boeing Company"
    # A short name left by the suffix ("Star" of "Star Group") would match ordinary text.
    if len(stripped) < _MIN_WORD_CHARS or _key(stripped) in _ORDINARY_WORDS:
        stripped = name
    # "Amazon.com" is also "Amazon": a web address's ending is no part of how it is named.
    bare = re.sub(r"\.(?:com|net|org|io)$", "", stripped, flags=re.IGNORECASE)
    for value in (ticker, name, stripped, bare, *_shorthands(stripped), *others):
        key = _key(value)
        if key and key not in found:
            found.append(key)
    return tuple(found)


def _shorthands(name: str) -> list[str]:
    """How people shorten a name in writing: "A & B" as "A&B" ("P&G"; a doubled name
    also with an "n": "JnJ"), and a name of two long words as their first letters run
    together ("Amex", "FedEx" for American Express, Federal Express). Built from the
    name's letters, so any company's are known; none is an ordinary word."""
    words = re.findall(r"[A-Za-z]+|&", name)
    found: list[str] = []
    if len(words) == 3 and words[1] in ("&", "and") and words[0][0].isupper():
        found.append(f"{words[0][0]}&{words[2][0]}")
        if words[0] == words[2]:  # a doubled name is typed with an "n" ("JnJ")
            found.append(f"{words[0][0]}n{words[2][0]}")
    if len(words) == 2 and all(len(w) >= 5 and w[0].isupper() for w in words):
        found += [words[0][:2] + words[1][:2], words[0][:3] + words[1][:2]]
    return [f for f in found if len(f) >= 3 and _key(f) not in _ORDINARY_WORDS]


@dataclass(frozen=True)
class NameResolution:
    """The covered companies a text names.

    `tickers`: the companies resolved, in order of first mention, without repeats.
    `ambiguous`: the raw fragments (as written, in order) that were close misspellings
    of two or more companies' aliases about equally well; they resolve to none of them,
    so a caller can ask rather than guess.
    """

    tickers: list[str]
    ambiguous: list[str]


# The fuzzy tier's thresholds (difflib.SequenceMatcher ratios). A fragment resolves when
# it is within _FRAGMENT_RATIO of an alias as a whole and every word that differs is
# within _WORD_RATIO of the alias's word; two companies within _TIE are a tie.
_FRAGMENT_RATIO = 0.85
_WORD_RATIO = 0.8
_MAX_LENGTH_GAP = 2
_MIN_WORD_CHARS = 4
_MIN_WORD_LETTERS = 3
_TIE = 0.02

# Ordinary English and finance words are never misspellings: the fuzzy tier skips a
# fragment whose differing words are ordinary. Whatever is closest to an alias's words
# (stars, start, northerly, tint, groups, metal, billion, ...) must be here; the function
# words and the rest guard the words every question uses.
_ORDINARY_TEXT = """
    acquired acquisition amount annual asset assets aud average balance bank billing
    billion board bond border borrowing capex capital cash chair chief company companies
    compare copper cost costs coal current date debt decline dividend dividends earnings
    ebit ebitda employees eps equity executive expenditure expense expenses final finance
    financial first fiscal flow forte fortune fortunes forward fund fy gold gross group
    groups grout growth guidance half impairment income increase interim iron last less
    liabilities liability limit limited limits lithium margin margins metal metals medal
    medals mine mines mining net nickel north norther northerly northerner northerners
    northern northward npat operating ore outlook production profit profits quarter rate
    ratio report reported reports resource resourced resources restated return revenue
    revenues rio safety sales second segment share shares short sold sooth sough sought
    south souths southern southward star stare stark starr stars starry start started
    starts stair statement states stay steel stock stocks tax tin tint tinted tints total
    underlying usd year years yield
"""
_ORDINARY_WORDS = FUNCTION_WORDS | frozenset(_ORDINARY_TEXT.split())

# Three-letter all-caps tokens are where a misspelling and an ordinary acronym look
# alike (EPS, CEO, ROE, ESG, LNG are one letter from something), so a three-letter token
# resolves only as an anagram of a ticker, and these real acronyms among the anagrams
# never do: return on investment, investor relations officer, improved oil recovery,
# manufacturing, GitHub-flavoured Markdown, moment-generating function, not to scale,
# station, and two other listed companies' tickers.
_NOT_TICKERS = frozenset(
    {"ROI", "IRO", "IOR", "MFG", "FGM", "GFM", "MGF", "NTS", "STN", "TSN", "TNS"}
)

# A Chinese alias has no spaces around it, so it is found anywhere in a sentence; these
# guard the short ones against the compounds they sit inside ("努力拓展", strive to expand,
# holds "力拓": 拓展 expand, 拓宽 widen, 拓扑 topology).
_CJK_NOT_FOLLOWED_BY: dict[str, str] = {"力拓": "展宽扑"}

_ASCII_WORD = re.compile(r"[A-Za-z0-9]+")
_SEPARATOR = re.compile(r"[\s\-]+")
_RUN = re.compile(r"[A-Za-z0-9]+(?:[\s\-]+[A-Za-z0-9]+)*")
_EXCHANGE_KEY = re.compile(r"(?:asx ?: ?)?(?P<ticker>[a-z0-9]+)(?:\.ax|\.asx| ?: ?asx)?")


def _fold(text: str) -> str:
    """Full-width to ASCII, and accents dropped from Latin letters ("Río" is "Rio")."""
    if text.isascii():
        return text
    out: list[str] = []
    for ch in unicodedata.normalize("NFKD", text):
        if unicodedata.combining(ch) and out and out[-1].isascii():
            continue
        out.append(ch)
    return unicodedata.normalize("NFC", "".join(out))


def _key(value: str) -> str:
    """The alias-table key of a name: folded, case-folded, words joined by one space."""
    return " ".join(w for w in _SEPARATOR.split(_fold(value).casefold()) if w)


@lru_cache(maxsize=4096)
def _ratio(candidate: str, alias: str) -> float:
    """difflib's similarity of a candidate and an alias (or alias word), 0 to 1; cached,
    since the same words come back in every turn of a conversation."""
    return SequenceMatcher(None, candidate, alias).ratio()


def _digits(word: str) -> str:
    return "".join(ch for ch in word if ch.isdigit())


def _is_ascii_alnum(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


@dataclass(frozen=True)
class _Target:
    """An alias the fuzzy tier may resolve a misspelling to."""

    alias: str
    words: tuple[str, ...]
    ticker: str


@dataclass(frozen=True)
class _Hit:
    """A fuzzy match: where it starts in the folded text, as written, and to whom."""

    start: int
    fragment: str
    tickers: tuple[str, ...]  # one: resolved; two or more: ambiguous


class AliasIndex:
    """Every matcher built once from a table of companies' aliases.

    `Coverage` builds one for its companies (`resolve_name`, `find_companies` and
    `normalise_ticker` use the coverage in force); tests build their own to exercise ties.
    """

    def __init__(self, companies: Iterable[Company]) -> None:
        self._alias_ticker: dict[str, str] = {}
        self._ticker_keys: dict[str, str] = {}
        self._anagrams: dict[str, str] = {}
        self._targets: dict[tuple[int, str], list[_Target]] = {}
        alternatives: list[tuple[str, str]] = []
        for company in companies:
            ticker_key = _key(company.ticker)
            self._ticker_keys[ticker_key] = company.ticker
            if company.ticker.isascii() and company.ticker.isalpha():
                self._anagrams["".join(sorted(company.ticker.upper()))] = company.ticker
            for alias in company.aliases:
                if alias != _key(alias):
                    raise ValueError(f"alias {alias!r} of {company.ticker} is not normalised")
                if self._alias_ticker.setdefault(alias, company.ticker) != company.ticker:
                    raise ValueError(f"alias {alias!r} names two companies")
                alternatives.append((alias, self._alternative(alias, alias == ticker_key)))
                words = tuple(alias.split())
                if alias.isascii() and any(self._misspellable(w) for w in words):
                    target = _Target(alias, words, company.ticker)
                    self._targets.setdefault((len(words), alias[0]), []).append(target)
        # the n-gram sizes worth trying at a word, by its first letter, longest first
        self._sizes: dict[str, list[int]] = {}
        for n, first in sorted(self._targets, reverse=True):
            self._sizes.setdefault(first, []).append(n)
        self._pattern = self._compile(alternatives)

    @staticmethod
    def _alternative(alias: str, is_ticker: bool) -> str:
        """The regex for one alias: any run of spaces or a hyphen between words, the
        exchange around a ticker ("ASX:BHP", "BHP.AX"), and an ASCII word boundary after
        an ASCII letter or digit only (a Chinese name sits inside its sentence,
        "必和必拓2024年的收入"); `_compile` adds the boundary before."""
        body = r"[\s\-]+".join(re.escape(w) for w in alias.split())
        if is_ticker:
            body = rf"(?:ASX\s*:\s*)?{body}(?:\.AX|\.ASX|\s*:\s*ASX)?"
        after = r"(?![A-Za-z0-9])" if _is_ascii_alnum(alias[-1]) else ""
        if alias in _CJK_NOT_FOLLOWED_BY:
            after += f"(?![{re.escape(_CJK_NOT_FOLLOWED_BY[alias])}])"
        return body + after

    @staticmethod
    def _compile(alternatives: list[tuple[str, str]]) -> re.Pattern[str]:
        """One regex for every alias, longest first (so "BHP Group" beats "BHP").

        A lookahead on the aliases' first characters lets the regex engine skip most
        positions cheaply, and the ASCII aliases share one boundary before them; both
        matter because this runs several times a turn (about 20 times faster than one
        alternation with a boundary per alias).
        """
        ordered = sorted(alternatives, key=lambda a: -len(a[0]))
        ascii_start = [a for alias, a in ordered if _is_ascii_alnum(alias[0])]
        other_start = [a for alias, a in ordered if not _is_ascii_alnum(alias[0])]
        first = {alias[0] for alias, _ in alternatives} | {"a"}  # "a": the "ASX:" prefix
        branches = [r"(?<![A-Za-z0-9])(?:" + "|".join(ascii_start) + ")"] if ascii_start else []
        branches += other_start
        lead = "[" + re.escape("".join(sorted(first))) + "]"
        return re.compile(rf"(?={lead})(?:{'|'.join(branches)})", re.IGNORECASE)

    @staticmethod
    def _misspellable(word: str) -> bool:
        """Whether a word is long enough to tell a misspelling of it from another word."""
        letters = sum(ch.isalpha() for ch in word)
        return len(word) >= _MIN_WORD_CHARS and letters >= _MIN_WORD_LETTERS

    def exact(self, value: str) -> str | None:
        """The ticker a whole value names exactly (an alias, or a ticker with its
        exchange: "BHP.AX", "ASX: FMG"), else None."""
        key = _key(value)
        ticker = self._alias_ticker.get(key)
        if ticker is None and (m := _EXCHANGE_KEY.fullmatch(key)):
            ticker = self._ticker_keys.get(m["ticker"])
        return ticker

    def value(self, value: str) -> str | None:
        """The ticker a whole value names: exactly, else as one close misspelling."""
        ticker = self.exact(value)
        if ticker is not None:
            return ticker
        folded = _fold(value).strip()
        if not folded:
            return None
        tokens = list(_ASCII_WORD.finditer(folded))
        if not tokens or _SEPARATOR.sub("", folded) != "".join(t[0] for t in tokens):
            return None
        if len(tokens) == 1 and (ticker := self._anagram(tokens[0][0])):
            return ticker
        words = [t[0].casefold() for t in tokens]
        hit = self._misspelling(tokens, words, 0, len(tokens), folded)
        return hit.tickers[0] if hit is not None and len(hit.tickers) == 1 else None

    def resolve(self, text: str) -> NameResolution:
        """The companies `text` names; see `resolve_name`."""
        folded = _fold(text)
        mentions: list[tuple[int, str]] = []
        spans: list[tuple[int, int]] = []
        for m in self._pattern.finditer(folded):
            ticker = self.exact(m[0])
            if ticker is not None:
                mentions.append((m.start(), ticker))
                spans.append(m.span())
        ambiguous: list[tuple[int, str]] = []
        for hit in self._fuzzy_hits(folded, spans):
            if len(hit.tickers) == 1:
                mentions.append((hit.start, hit.tickers[0]))
            else:
                ambiguous.append((hit.start, hit.fragment))
        mentions.sort(key=lambda m: m[0])
        ambiguous.sort(key=lambda m: m[0])
        return NameResolution(
            tickers=list(dict.fromkeys(t for _, t in mentions)),
            ambiguous=list(dict.fromkeys(f for _, f in ambiguous)),
        )

    def mention_spans(self, text: str) -> list[tuple[int, int]]:
        """Where `text` (folded) names a company, exactly or as a close misspelling."""
        folded = _fold(text)
        spans = [m.span() for m in self._pattern.finditer(folded) if self.exact(m[0])]
        spans += [(h.start, h.start + len(h.fragment)) for h in self._fuzzy_hits(folded, spans)]
        return sorted(spans)

    def _fuzzy_hits(self, text: str, spans: list[tuple[int, int]]) -> list[_Hit]:
        """Close misspellings among the words the exact aliases left: the exact matches
        are blanked out (offsets kept), then each run of ASCII words separated only by
        spaces or hyphens is tried as n-grams."""
        if spans:
            parts: list[str] = []
            last = 0
            for start, end in spans:
                parts += [text[last:start], "\0" * (end - start)]
                last = end
            parts.append(text[last:])
            text = "".join(parts)
        hits: list[_Hit] = []
        for run in _RUN.finditer(text):
            hits += self._run_hits(list(_ASCII_WORD.finditer(text, *run.span())), text)
        return hits

    def _run_hits(self, run: list[re.Match[str]], text: str) -> list[_Hit]:
        """The misspellings in one run of words, left to right, the longest n-gram first
        at each word. Only a word with the first letter of a fuzzy alias, or three
        letters, gets past the first check, which keeps ordinary text cheap."""
        words = [t[0].casefold() for t in run]
        found: list[_Hit] = []
        i = 0
        while i < len(run):
            step = 1
            for n in self._sizes.get(words[i][0], ()):
                if i + n <= len(run) and (hit := self._misspelling(run, words, i, i + n, text)):
                    found.append(hit)
                    step = n
                    break
            else:
                if len(words[i]) == 3 and (ticker := self._anagram(run[i][0])):
                    found.append(_Hit(run[i].start(), run[i][0], (ticker,)))
            i += step
        return found

    def _anagram(self, token: str) -> str | None:
        """A transposed ticker: three ASCII capitals with exactly a ticker's letters
        ("BPH"), and not a real acronym (`_NOT_TICKERS`).

        All caps, because people type tickers in capitals, while a lower-case
        three-letter token is a word or a unit. An anagram, because a substituted letter
        turns a ticker into an everyday acronym (NST and NSW, BHP and BHD, FMG and FMC)
        and a ratio cannot tell them apart at three letters, while a transposition of
        the same letters is rarely anything else."""
        if len(token) != 3 or not (token.isascii() and token.isalpha() and token.isupper()):
            return None
        if token in _NOT_TICKERS:
            return None
        return self._anagrams.get("".join(sorted(token)))

    def _misspelling(
        self, run: list[re.Match[str]], words: list[str], i: int, j: int, text: str
    ) -> _Hit | None:
        """The company the tokens run[i:j] (case-folded: words[i:j]) misspell, a tie of
        companies within _TIE of the best, or None."""
        targets = self._targets.get((j - i, words[i][0]))
        if not targets:
            return None
        gram = words[i:j]
        fragment = " ".join(gram)
        best: dict[str, float] = {}
        for target in targets:
            score = self._score(gram, fragment, target)
            if score is not None and score > best.get(target.ticker, 0.0):
                best[target.ticker] = score
        if not best:
            return None
        top = max(best.values())
        tied = tuple(t for t, s in best.items() if s >= top - _TIE)
        return _Hit(run[i].start(), text[run[i].start() : run[j - 1].end()], tied)

    def _score(self, words: list[str], fragment: str, target: _Target) -> float | None:
        """How well `words` misspell `target` (a SequenceMatcher ratio), or None.

        Every word either equals the alias's word or is a plausible misspelling of it:
        long enough, not an ordinary word, the same first letter and the same digits, at
        most two characters longer or shorter, and close. The fragment as a whole must
        be close to the alias as well.
        """
        if abs(len(fragment) - len(target.alias)) > _MAX_LENGTH_GAP:
            return None
        for word, want in zip(words, target.words, strict=True):
            if word == want:
                continue
            if (
                word[0] != want[0]
                or abs(len(word) - len(want)) > _MAX_LENGTH_GAP
                or not self._misspellable(word)
                or word in _ORDINARY_WORDS
                or _digits(word) != _digits(want)
                or _ratio(word, want) < _WORD_RATIO
            ):
                return None
        ratio = _ratio(fragment, target.alias)
        return ratio if ratio >= _FRAGMENT_RATIO else None


class Coverage:
    """The companies whose reports are held, and everything built from them once: the
    alias index and a cache of resolved texts. Build it with `coverage_of`, which keeps
    the few in use (a worker's turns pin the same one)."""

    def __init__(self, companies: Iterable[Company]) -> None:
        self.companies: dict[str, Company] = {c.ticker: c for c in companies}
        self.fiscal_years: tuple[int, ...] = tuple(
            sorted({y for c in self.companies.values() for y in c.fiscal_years})
        )
        self.index = AliasIndex(self.companies.values())
        self.resolve = lru_cache(maxsize=256)(self._resolve)
        """`resolve_name`, cached: a turn resolves the same question and answer sentences
        several times (slots, grounding, citations, summaries)."""
        self.alias_words: frozenset[str] = frozenset(
            w for c in self.companies.values() for a in c.aliases for w in a.split()
        )
        """Every word of every alias: what a text's own words are checked against."""
        self.commodities: frozenset[str] = frozenset(
            k for c in self.companies.values() for k in c.commodities
        )

    def _resolve(self, text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        found = self.index.resolve(text)
        return tuple(found.tickers), tuple(found.ambiguous)

    @property
    def latest_fiscal_year(self) -> int | None:
        return self.fiscal_years[-1] if self.fiscal_years else None


@lru_cache(maxsize=8)
def coverage_of(companies: tuple[Company, ...]) -> Coverage:
    """The coverage of these companies, built once while it is in use."""
    return Coverage(companies)


_PINNED: ContextVar[Coverage | None] = ContextVar("turnstile_coverage", default=None)
_PROCESS: list[Coverage] = [coverage_of(())]


def coverage() -> Coverage:
    """The coverage in force: the one pinned in this context (a turn's), else the
    process's (empty until its owner loads the registry)."""
    return _PINNED.get() or _PROCESS[0]


def use_coverage(companies: Iterable[Company]) -> Coverage:
    """Make these companies the process's coverage (the API and the worker reload it from
    the registry; tests use the sample's)."""
    _PROCESS[0] = coverage_of(tuple(companies))
    return _PROCESS[0]


def pin(companies: Iterable[Company]) -> Coverage:
    """Pin the coverage for the rest of this context (a workflow run: asyncio gives each
    task a context of its own, copied into the tasks it starts)."""
    pinned_ = coverage_of(tuple(companies))
    _PINNED.set(pinned_)
    return pinned_


@contextmanager
def pinned(companies: Iterable[Company]) -> Iterator[Coverage]:
    """The coverage of `companies` in force inside the block."""
    token = _PINNED.set(coverage_of(tuple(companies)))
    try:
        yield coverage()
    finally:
        _PINNED.reset(token)


def companies() -> dict[str, Company]:
    """The covered companies by ticker, in registration order."""
    return coverage().companies


def fiscal_years() -> tuple[int, ...]:
    """Every fiscal year some covered company has a report for, in order."""
    return coverage().fiscal_years


def latest_fiscal_year() -> int | None:
    """The latest fiscal year any covered company has a report for (None: no reports)."""
    return coverage().latest_fiscal_year


def display_name(ticker: str) -> str:
    """The company's name as people read it, or the ticker if it is not covered."""
    company = coverage().companies.get(ticker)
    return company.name if company else ticker


def resolve_name(text: str) -> NameResolution:
    """The covered companies `text` names, and the fragments that name two equally well.

    Tiers, strongest first (a fragment an earlier tier matched is never looked at again):

    1. Exact aliases from `Company.aliases`, tickers with their exchange ("BHP.AX",
       "ASX: FMG") and Chinese names anywhere in a sentence ("必和必拓2024年的收入").
    2. A transposed ticker: three capitals with exactly a ticker's letters ("BPH").
       Three-letter capitals are mostly acronyms (EPS, CEO, ROE, ESG, LNG, NSW), and
       most of them are one letter away from something; only a pure transposition of a
       ticker, in capitals, is taken for it, and the real acronyms among those (ROI,
       MFG, NTS, ...) are excluded.
    3. A close misspelling of a longer alias ("Fortscue", "Northen Star", "Soth32"),
       by difflib's SequenceMatcher over single words and runs of words.

    The fuzzy tier is deliberately conservative, because this runs on every question
    and on every sentence of every answer (citations are dropped from sentences that
    name another company): a false company is worse than a missed misspelling. So a
    word only counts as a misspelling when it is not an ordinary English or finance
    word ("star", "north", "fortune", "tint"), has four characters or more, starts with
    the alias word's letter, keeps its digits, and is close both on its own and as part
    of the whole alias. A fragment about equally close to two companies resolves to
    neither and is reported in `ambiguous`.
    """
    tickers_, ambiguous = coverage().resolve(text)
    return NameResolution(tickers=list(tickers_), ambiguous=list(ambiguous))


def without_companies(text: str) -> str:
    """`text` (folded: full-width to ASCII, accents dropped) with every company it names
    blanked out: what is left is what the text says about them."""
    folded = _fold(text)
    parts, last = [], 0
    for start, end in coverage().index.mention_spans(text):
        parts += [folded[last:start], " "]
        last = max(last, end)
    parts.append(folded[last:])
    return "".join(parts)


def normalise_ticker(value: str) -> str | None:
    """Return the ticker for a ticker or company name in any casing, else None.

    Accepts what `resolve_name` accepts, but the whole value must be the one name:
    "BHP.AX", "ASX: FMG", "力拓", "BPH", "Fortscue" and "Northen Star" resolve;
    "rio tinto zinc" and anything naming two companies equally well do not.
    """
    return coverage().index.value(value)


def find_companies(text: str) -> list[str]:
    """Return the tickers mentioned in `text`, in order of first mention, without repeats
    (`resolve_name(text).tickers`)."""
    return resolve_name(text).tickers


def year_span(separator: str = "–") -> str:
    """The covered fiscal years as people write them: "FY2023–FY2025" ("FY2022" for one
    year, "no years yet" before any report)."""
    years = fiscal_years()
    if not years:
        return "no years yet"
    if len(years) == 1:
        return f"FY{years[0]}"
    return f"FY{years[0]}{separator}FY{years[-1]}"


def year_range() -> str:
    """The covered fiscal years as a plain range for help texts: "2023-2025"."""
    years = fiscal_years()
    if not years:
        return "any year (none ingested yet)"
    return str(years[0]) if len(years) == 1 else f"{years[0]}-{years[-1]}"


def company_names(with_tickers: bool = False) -> str:
    """The covered companies in prose: "BHP Group, Rio Tinto, … and Northern Star"."""
    names = [f"{c.name} ({c.ticker})" if with_tickers else c.name for c in companies().values()]
    return _and(names) if names else "no company yet (no report has been ingested)"


def tickers() -> str:
    """The covered tickers for help texts and errors: "BHP, RIO, FMG, S32, NST"."""
    return ", ".join(companies()) or "none yet"


def check_company(value: str | None) -> str | None:
    """Normalise a ticker or company name; reject companies the coverage does not hold."""
    if value is None:
        return None
    ticker = normalise_ticker(value)
    if ticker is None:
        raise ValueError(f"unknown company {value!r}; use one of {tickers()}")
    return ticker


def check_fiscal_year(value: int | None) -> int | None:
    """Reject a fiscal year no covered company has a report for."""
    if value is not None and value not in fiscal_years():
        raise ValueError(f"fiscal year {value} is outside {year_range()}")
    return value


def check_report_year(value: int | None) -> int | None:
    """Reject a fiscal year no report could be for (a request need not know the covered
    ones: a year with no report finds nothing, and says so)."""
    if value is not None and not FIRST_REPORT_YEAR <= value <= LAST_REPORT_YEAR:
        raise ValueError(
            f"fiscal year {value} is not a year ({FIRST_REPORT_YEAR}-{LAST_REPORT_YEAR})"
        )
    return value


def company_key(value: str | None) -> str | None:
    """A company as a request names it: the covered ticker its name resolves to, else the
    value as a ticker (a company not covered finds nothing, and says so)."""
    if value is None:
        return None
    return normalise_ticker(value) or check_ticker(value)


_COUNTS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def how_many() -> str:
    """The number of covered companies in words ("five")."""
    n = len(companies())
    return _COUNTS[n] if n < len(_COUNTS) else str(n)


def calendar_note(tickers_: Iterable[str]) -> str | None:
    """The note a comparison needs when these companies' fiscal years end on different
    dates (so "FY2024" spans different months for them); None when they all agree."""
    held = companies()
    involved = [held[t] for t in dict.fromkeys(tickers_) if t in held]
    ends = {c.year_end for c in involved}
    if len(ends) < 2:
        return None
    by_end: dict[str, list[str]] = {}
    for c in involved:
        by_end.setdefault(c.year_ends, []).append(c.name)
    parts = [f"{_and(names)} on {end}" for end, names in by_end.items()]
    calendar_ = [c.name for c in involved if c.calendar_year]
    if calendar_ and len(by_end) == 2:
        one = len(calendar_) == 1
        ends_ = next(c.year_ends for c in involved if not c.calendar_year)
        return (
            f"Note: {_and(calendar_)} report{'s' if one else ''} calendar years "
            f"({'its' if one else 'their'} FY is the year ended 31 December), "
            f"while the other companies' fiscal years end on {ends_}."
        )
    return f"Note: these companies' fiscal years end on different dates: {'; '.join(parts)}."


def calendars() -> str:
    """How the covered companies' fiscal years end, in one sentence."""
    held = list(companies().values())
    if not held:
        return "No company's report has been ingested yet."
    by_end: dict[str, list[Company]] = {}
    for c in held:
        by_end.setdefault(c.year_end, []).append(c)
    if len(by_end) == 1:
        return f"Every company's fiscal year ends on {held[0].year_ends}."
    calendar_ = [c.name for c in held if c.calendar_year]
    others = [c for c in held if not c.calendar_year]
    if calendar_ and len(by_end) == 2:
        verb = "reports" if len(calendar_) == 1 else "report"
        count = _COUNTS[len(others)] if len(others) < len(_COUNTS) else str(len(others))
        return (
            f"{_and(calendar_)} {verb} calendar years; the other {count} "
            f"companies' years end on {others[0].year_ends}."
        )
    return (
        "Fiscal years end on different dates: "
        + "; ".join(
            f"{_and([c.name for c in group])} on {group[0].year_ends}" for group in by_end.values()
        )
        + "."
    )


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


_NAME_RUN = re.compile(r"(?<![\w'’])[A-Z][\w&’'.\-]*(?:\s+(?:of\s+|de\s+)?[A-Z][\w&’'.\-]*)*")


def proper_names(text: str) -> list[str]:
    """Runs of capitalised words in `text` that name no covered company ("Oyu Tolgoi",
    "Samarco", "Iron Bridge"): the names a question may ask about without its owner. A
    question's first word is dropped (it is capitalised as a sentence's start); a
    possessive's "'s" is dropped; acronyms of two letters and FY tokens are not names."""
    names: list[str] = []
    for match in _NAME_RUN.finditer(text):
        words = match.group(0).split()
        if match.start() == 0 or text[: match.start()].rstrip().endswith((".", "?", "!", "-")):
            words = words[1:]
        words = [w.removesuffix("'s").removesuffix("’s").rstrip(".'’") for w in words]
        name = " ".join(w for w in words if w)
        if len(name) < 3 or re.fullmatch(r"(?:FY|CY)\d*", name) or find_companies(name):
            continue
        if name not in names:
            names.append(name)
    return names
