"""Read the tables of a report page (primary statements and notes) by where their numbers sit.

Why our own column reader over pdfplumber's words rather than a library's table finder:
measured on the five real ASX reports and the FinanceBench 10-Ks (docs/corpus.md, "How
PDF statements are read"), pdfplumber's `extract_tables` with text strategies cuts row
labels into several columns, and PyMuPDF's `find_tables` (also AGPL-licensed) loses the
spaces of its lines strategy and splits words with its text strategy; neither says which
period a column is. Statements are unruled: only where a number sits says which column,
so which period, it belongs to. What is done here:

- value lines are lines ending in numbers on the right of the page; runs of them, with the
  headings and wrapped labels between, are a table's rows;
- its columns are found from the numbers themselves (their right edges line up), and a
  column's header is what is printed above it: a year or a date ("2022", "June 30, 2022"),
  a phrase spanning several columns ("Year Ended December 31,", "Consolidated", "Three
  Months Ended"), a unit ("$'000", "Cents"); the caption above the table ("For the year
  ended 30 June 2022", "(in millions, except per share data)") fills what the columns do
  not say;
- a Note column's references are not values; a dash is nil; a label wrapped over two or
  three lines is one label (the values may sit on its first, last or middle line);
- a statement continued on the next page without its header keeps its columns.

Each table comes out as Markdown whose header cells say each column's period as
`[group ]FY2022 (30 Jun 2022)` (or `FY2024 (3 months to 29 Jul 2023)`), so a figure's
period is read from its column, never from its position; a column with no period keeps its
printed header, and its figures are bound to no year (domain/reports/figures.py says how cells are
read).
"""

import itertools
import re
import statistics
from dataclasses import dataclass, field, replace
from datetime import date

from domain.language.calendar import (
    fiscal_year_of,
    months_before,
    quarter_end,
    quarter_named,
    reportable,
)
from domain.language.units import CENTS, CODES, MARK, by_sign, currency_of
from domain.reports.figures import SHARE_HEADER
from domain.reports.periods import is_schedule, period_cell
from ingestion.layout import CURRENCY_MARK, DASH, NOTE_REF, Line, Word, is_number, phrases

MONTHS = {
    m: i
    for i, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for m in names
}
_MONTH = r"(?P<m>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY_MONTH = re.compile(r"\b(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH + r"(?![a-z])", re.I)
_MONTH_DAY = re.compile(r"\b" + _MONTH + r"\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?\b,?", re.I)
_YEAR = re.compile(
    r"(?<![\d.,$£€/])(?:FY\s?|F|fiscal\s+(?:year\s+)?)?((?:19|20)\d{2})(?![\d,.%])", re.I
)
_FY_SHORT = re.compile(r"^(?:FY|F)(\d{2})$", re.I)
_DURATIONS = (
    (
        re.compile(
            r"\b(?:three|3)[\s-]+months?\b|\bquarters?\b|\b1[34][\s-]+weeks\b|\bQ[1-4]\b", re.I
        ),
        3,
    ),
    (
        re.compile(
            r"\b(?:six|6)[\s-]+months?\b|\bhalf[\s-]+year\b|\b2[67][\s-]+weeks\b|\b[12]H\b|\bH[12]\b",
            re.I,
        ),
        6,
    ),
    (re.compile(r"\b(?:nine|9)[\s-]+months?\b|\b39[\s-]+weeks\b|\b40[\s-]+weeks\b", re.I), 9),
    (
        re.compile(
            r"\b(?:twelve|12)[\s-]+months?\b|\b5[23][\s-]+weeks\b|\byears?\s+end|"
            r"\bfor\s+the\s+(?:financial\s+|fiscal\s+)?year\b|\bfiscal\s+years?\b|\bfull[\s-]+year\b",
            re.I,
        ),
        12,
    ),
)
_AT_DATE = re.compile(r"\b(?:as\s+(?:at|of)|balances?\s+(?:at|as\s+of))\b", re.I)
_CAPTION_DATE = re.compile(
    r"\b(?:ended|ending|as\s+at|as\s+of|at|year|years)\s+(?:on\s+)?"
    r"(?:\d{1,2}(?:st|nd|rd|th)?\s+[A-Za-z]{3,9}\.?|[A-Za-z]{3,9}\.?\s+\d{1,2}\b,?)",
    re.I,
)
"""A caption's date of the period: "For the year ended 30 June 2022", "As at 30 June
2022", "Year Ended December 31," (not any date a sentence above mentions)."""
_GROUP_NOISE = re.compile(
    r"\b(?:note|notes|restated|re-presented|unaudited|audited|ended|ending|end|as|at|of|to|"
    r"for|the|year|years|months?|weeks|quarter|period|fiscal|financial|three|six|nine|"
    r"twelve|and|in|millions?|thousands?|billions?|cents?|dollars?|except|per|share|data|"
    r"amounts|fy)\b|[$£€¥%'’(),:]",
    re.I,
)
_SCALE_WORDS = (
    (re.compile(rf"\bin\s+billions\b|\bbillions\b|(?:{MARK})\s?['’]?bn\b|\bbn\b", re.I), 1e9),
    (re.compile(rf"\bin\s+millions\b|\bmillions?\b|(?:{MARK})\s?['’]?m\b|\bmn\b", re.I), 1e6),
    (
        re.compile(rf"\bin\s+thousands\b|\bthousands?\b|'000|’000|000’|000'|(?:{MARK})000\b", re.I),
        1e3,
    ),
)
_UNIT_TOKEN = re.compile(
    rf"^\(?(?:(?:{MARK})(?:\s?'?’?(?:000|m|mn|bn|b|million|billion|thousand)'?’?)?|"
    rf"'000|’000|000'|000’|cents?|c|%|(?:US|A|AU)?\s?cents|{CENTS}|{CODES})\)?$",
    re.I,
)
_CURRENCY = re.compile(rf"{MARK}|\b(?:{CODES})\b")
_CONNECTOR = re.compile(
    r"(?:\b(?:of|and|or|the|to|for|from|in|on|by|with|net|before|after|at|attributable|"
    r"less|plus|including|excluding|per|a|an)|[-–,/(])$",
    re.I,
)


@dataclass(frozen=True)
class ReadContext:
    """What the whole document says that a table may not: its currency for a bare "$",
    and its fiscal year's end ("06-30") for a column printed as a year alone."""

    currency: str = "US$"
    year_end: str | None = None
    fiscal_year: int | None = None
    """The report's own fiscal year, when known: a header's years lie near it."""
    interim_end: date | None = None
    """An interim report's own period end (a quarter's): a balance at it is no year's."""


@dataclass
class Column:
    right: float
    """Where its values end (they are printed right-aligned)."""
    left: float
    header: list[str] = field(default_factory=list)
    note: bool = False
    cell: str = ""
    """The Markdown header cell: its period (`FY2022 (30 Jun 2022)`) or its printed header."""
    unit: str = ""


@dataclass
class Row:
    label: str
    note: str = ""
    values: list[str] = field(default_factory=list)
    heading: bool = False
    unit: str = ""


@dataclass
class Table:
    lines: list[int]
    """Indices of the page's lines it was read from (no longer prose)."""
    title: str
    columns: list[Column]
    rows: list[Row]
    periods: bool
    """Whether any column is a period's: else its figures are bound to no year."""

    def of_parent(self) -> None:
        """Mark every column of periods the parent entity's (a note headed "Parent entity
        information" prints the parent's statements alone)."""
        for column in self.columns:
            if column.cell.startswith("FY"):
                column.cell = f"Parent {column.cell}"

    def markdown(self) -> list[str]:
        """The table as Markdown, one table per unit (a statement that turns to cents for
        its earnings per share is two tables); a heading goes with the rows under it."""
        values = [c for c in self.columns if not c.note]
        notes = any(c.note for c in self.columns)
        segments: list[tuple[str, list[Row]]] = []
        waiting: list[Row] = []
        for row in self.rows:
            if not any(row.values):
                waiting.append(row)
                continue
            if not segments or segments[-1][0] != row.unit:
                segments.append((row.unit, []))
            segments[-1][1].extend([*waiting, row])
            waiting = []
        if waiting and segments:
            segments[-1][1].extend(waiting)
        out: list[str] = []
        for unit, rows in segments:
            head = [unit, *(["Note"] if notes else []), *(c.cell for c in values)]
            lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
            for row in rows:
                cells = [row.label, *([row.note] if notes else []), *row.values]
                lines.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
            out.append("\n".join(lines))
        return out


def _year_of(word: Word) -> int | None:
    match = _YEAR.fullmatch(word.text.strip(",")) or _FY_SHORT.match(word.text)
    if match is None:
        return None
    year = int(match.group(1))
    return year + 2000 if year < 100 else year


def _is_period_line(line: Line, left: float, ctx: "ReadContext | None" = None) -> bool:
    """A header line of periods: its numbers are years (or the days of dates), at the
    right of the page, and nothing else on it is a figure; with the report's fiscal year
    known, years near it only (a postcode "2000" is no period)."""
    years = [w for w in line.words if _year_of(w) is not None and w.x0 >= left]
    if not years or any(w.unsure for w in line.words):
        return False
    if (
        ctx is not None
        and ctx.fiscal_year is not None
        and any(not reportable(_year_of(w) or 0, ctx.fiscal_year) for w in years)
    ):
        return False
    for w in line.words:
        if w in years or not any(ch.isdigit() for ch in w.text):
            continue
        if re.fullmatch(r"\d{1,2}(?:st|nd|rd|th)?,?", w.text):  # a day: "June 30, 2022"
            continue
        return False
    words_left = [w for w in line.words if w.x1 < left and not _year_of(w)]
    # Beside the years, over the labels, a short group or date, or the table's unit
    # ("(In millions, except per share data)  2021  2020  2019").
    return len(words_left) <= 4 or _has_unit(" ".join(w.text for w in words_left))


def _value_words(line: Line, left: float) -> tuple[list[Word], list[Word]]:
    """A line split into its label words and the numbers that end it at the right of
    `left` (currency signs standing alone dropped)."""
    words = list(line.words)
    values: list[Word] = []
    while words and words[-1].x0 >= left - 2:
        word = words[-1]
        if CURRENCY_MARK.match(word.text):
            words.pop()
            continue
        if not is_number(word.text) or _in_label(word.text, words[:-1]):
            break
        values.insert(0, words.pop())
    while len(words) >= 10 and values and values[0].x0 - words[-1].x1 < 0.8 * line.size:
        # A long label's own figures run up to the cells ("... depreciation: 2022,
        # $9,850; 2021, $8,602   5,215   4,988"): a cell is set apart by a column's gap.
        words.append(values.pop(0))
    if len(words) >= 3 and is_number(words[-1].text) and CURRENCY_MARK.match(words[-2].text):
        # "Sales to customers  $ 25,530  100.0  24,020": a number after a sign standing alone
        # opens the row's figures, though a year centred over two columns sets `left` past it.
        values.insert(0, words.pop())
        words.pop()
    return words, values


def _in_label(text: str, before: list[Word]) -> bool:
    """A number that is the label's own: it closes a bracket the label opened ("(includes
    restricted cash: 2022, $5; 2021, $11)") or runs on into a list ("2021,", "$5;")."""
    if text.endswith((",", ";")):
        return True
    if text.endswith(")") and "(" not in text:
        said = " ".join(w.text for w in before)
        return said.count("(") > said.count(")")
    return False


def _numeric(line: Line, left: float) -> bool:
    """A table row: numbers at its end, right of `left` (a sentence running up to the
    number that ends it is prose, not a row)."""
    label, values = _value_words(line, left)
    if not values:
        return False
    if len(label) >= 10 and values[0].x0 - label[-1].x1 < 0.8 * line.size:
        return False
    return any(not DASH.match(w.text) for w in values) or len(values) >= 2


@dataclass
class _Region:
    header: list[int]
    lines: list[int]


def _values_left(lines: list[Line], x0: float, x1: float) -> float:
    """Where a page's columns of figures may begin: the right 65% of its text, or further
    left where two or more rows end in two or more numbers set after a column's gap (a
    wide table with a narrow label column: "Reported Sales   $23,706   $24,804 ...")."""
    left = x0 + 0.35 * (x1 - x0)
    floor = x0 + 0.2 * (x1 - x0)
    starts: list[float] = []
    for line in lines:
        words = line.words
        n = len(words)
        while n > 0 and (is_number(words[n - 1].text) or CURRENCY_MARK.match(words[n - 1].text)):
            n -= 1
        run = [w for w in words[n:] if is_number(w.text)]
        if len(run) < 2 or n == 0 or run[0].x0 >= left:
            continue
        if run[0].x0 >= floor and run[0].x0 - words[n - 1].x1 >= 2 * line.size:
            starts.append(run[0].x0)
    return min(left, min(starts) - 2) if len(starts) >= 2 else left


def _text_left(lines: list[Line]) -> tuple[float, float]:
    if not lines:
        return 0.0, 1.0
    return min(ln.x0 for ln in lines), max(ln.x1 for ln in lines)


def find_tables(
    lines: list[Line], ctx: ReadContext, carry: Table | None = None, ocr: bool = False
) -> tuple[list[Table], Table | None]:
    """The tables among a page's lines, and the last table of periods, which a table at
    the top of the next page may go on under (`carry` is the previous page's: rows under
    no header of their own whose columns line up with it are read under its headers).

    A line in larger type than the page's text is a heading and ends a table, unless the
    page was read by OCR (`ocr`: its sizes are estimates)."""
    if not lines:
        return [], carry
    x0, x1 = _text_left(lines)
    left = _values_left(lines, x0, x1)
    tables: list[Table] = []
    last_periods = carry
    for region in _regions(lines, ctx, left, x1, ocr):
        _drop_text_after_rows(lines, region, left)
        if not _amounts(lines, region, left):
            continue
        region.header = [i for i in region.header if _aligned(lines, i, region, left)]
        table = _read_region(lines, region, ctx, last_periods, left)
        if table is not None:
            tables.append(table)
            if table.periods:
                last_periods = table
    return tables, last_periods


def _regions(
    lines: list[Line], ctx: ReadContext, left: float, x1: float, ocr: bool
) -> list[_Region]:
    """The page's runs of header and value lines, each a table's candidate region."""
    scan = _RegionScan(lines, left, values_from=x1, page_right=x1)
    body = statistics.median(w.size for ln in lines for w in ln.words)
    for i, line in enumerate(lines):
        period = _is_period_line(line, left, ctx)
        if not ocr and line.size >= 1.2 * body and (period or not _numeric(line, left)):
            scan.end()  # a heading ("Outlook for 2025"), not a row nor a header
        elif period:
            scan.period_line(i)
        elif _numeric(line, left):
            scan.value_line(i)
        else:
            scan.other_line(i)
    return scan.regions


@dataclass
class _RegionScan:
    """The state of one pass over a page's lines that finds its table regions."""

    lines: list[Line]
    left: float
    values_from: float
    """Where the current region's numbers start."""
    page_right: float
    regions: list[_Region] = field(default_factory=list)
    current: _Region | None = None
    last_value: int | None = None

    def end(self) -> None:
        """Close the current region: the lines after it are no table's."""
        self.current = None
        self.last_value = None

    def period_line(self, i: int) -> None:
        """A line of periods: a new region's header, or the second line of a date."""
        current = self.current
        if (
            current is not None
            and current.header
            and not current.lines
            and i - current.header[-1] <= 2
        ):
            current.header.append(i)  # a date over two lines
            return
        self.current = _Region([i], [])
        self.regions.append(self.current)
        self.last_value = None
        years = (w.x0 for w in self.lines[i].words if _year_of(w) is not None)
        self.values_from = min(years) - 30

    def value_line(self, i: int) -> None:
        """A line ending in numbers: a row of the current region, or the first of a new
        one after a wide gap."""
        line = self.lines[i]
        last = self.last_value
        gap_ok = last is None or line.top - self.lines[last].bottom < 6 * line.size
        current = self.current
        if current is None or not gap_ok:
            current = self.current = _Region([], [])
            self.regions.append(current)
            self.values_from = self.page_right
        current.lines.append(i)
        self.last_value = i
        _, found = _value_words(line, self.left)
        self.values_from = min(self.values_from, *(w.x0 for w in found))

    def other_line(self, i: int) -> None:
        """A line without figures inside a region: a unit line under its periods, a
        heading or a wrapped label among its rows, or running text that ends it."""
        current = self.current
        if current is None:
            return  # text outside any table
        line = self.lines[i]
        after = self.lines[i + 1] if i + 1 < len(self.lines) else None
        wrapped = after is not None and (_numeric(after, self.left) or _continues(after))
        last = self.last_value
        if (_prose(line, self.values_from) and not wrapped) or (
            last is not None and line.top - self.lines[last].bottom > 6 * line.size
        ):
            self.end()
            return
        header = current.header
        if header and last is None and len(header) < 4 and line.x0 >= self.values_from - 80:
            header.append(i)  # a unit line under the periods ("$'000 $'000")
            return
        current.lines.append(i)


def _drop_text_after_rows(lines: list[Line], region: _Region, left: float) -> None:
    """Drop the lines after a region's last row, unless they end a wrapped label."""
    while region.lines and not _numeric(lines[region.lines[-1]], left):
        tail = lines[region.lines[-1]]
        before = region.lines[-2] if len(region.lines) > 1 else None
        if before is not None and _continues(tail) and _numeric(lines[before], left):
            break
        region.lines.pop()


def _aligned(lines: list[Line], i: int, region: _Region, left: float) -> bool:
    """Whether a header line's years stand over the table's numbers: a caption that names
    a year ("For the year ended 30 June 2022") does not."""
    years = [w for w in lines[i].words if _year_of(w) is not None]
    if not years:
        return True
    found = [w for k in region.lines[:12] for w in _value_words(lines[k], left)[1]]
    if not found:
        return True

    def under(year: Word, value: Word) -> bool:
        # Centred over its numbers, or set to their right edge, a little off as it may be.
        return value.x0 - 30 <= year.middle <= value.x1 + 10 or abs(value.x1 - year.x1) <= 24

    # Over figures, not only over dashes (a dash is set in the middle of its cell, and a
    # caption's year may happen to stand over one).
    figures = [v for v in found if not DASH.match(v.text)]
    near = [y for y in years if any(under(y, v) for v in figures)]
    return bool(near) and (len(years) > 1 or len(near) == 1)


def _amounts(lines: list[Line], region: _Region, left: float) -> bool:
    """Whether a region's numbers are a table's: amounts (grouped thousands, decimals,
    brackets, dashes, short numbers) on at least two lines, not postcodes and phone
    numbers."""
    rows = 0
    plain = 0
    for i in region.lines:
        _, values = _value_words(lines[i], left)
        if not values:
            continue
        amount = [
            w for w in values if re.search(r"[,.()%]|^\D*\d{1,3}\D*$", w.text) or DASH.match(w.text)
        ]
        plain += len(values) - len(amount)
        rows += bool(amount)
    return rows >= (1 if region.header else 2) and plain <= rows


def _prose(line: Line, values_from: float) -> bool:
    """A line of running text into the columns: it ends a table."""
    return (
        len(line.words) >= 9 and line.x1 > values_from + 10 and not is_number(line.words[-1].text)
    )


def _continues(line: Line) -> bool:
    first = line.words[0].text
    return first[:1].islower() or first[:1] in "(&"


def _clusters(tokens: list[tuple[int, Word]]) -> list[list[tuple[int, Word]]]:
    """The value tokens in columns: right edges within a few points are one column,
    unless two of one line would share it."""
    ordered = sorted(tokens, key=lambda t: t[1].x1)
    groups: list[list[tuple[int, Word]]] = []
    for tok in ordered:
        if groups:
            last = groups[-1]
            near = tok[1].x1 - statistics.median(w.x1 for _, w in last) <= 7
            overlaps = tok[1].x0 <= max(w.x1 for _, w in last) and tok[1].x1 - last[-1][1].x1 < 12
            same_line = any(li == tok[0] for li, _ in last)
            if (near or overlaps) and not same_line:
                last.append(tok)
                continue
        groups.append([tok])
    # Numbers centred in their column end at different places: two groups that never
    # share a line and overlap across it are one column.
    merged: list[list[tuple[int, Word]]] = []
    for group in groups:
        if merged:
            prev = merged[-1]
            lines_a = {li for li, _ in prev}
            lines_b = {li for li, _ in group}
            overlap = min(w.x1 for _, w in group) - 1 <= max(w.x1 for _, w in prev) or (
                min(w.x0 for _, w in group) < max(w.x1 for _, w in prev) - 2
            )
            if not (lines_a & lines_b) and overlap:
                prev.extend(group)
                continue
        merged.append(group)
    return merged


def _read_region(
    lines: list[Line], region: _Region, ctx: ReadContext, carry: Table | None, left: float
) -> Table | None:
    """A region's table: its columns from its figures, their headers and periods (or those
    of the table it goes on from, `carry`), then its rows; None when no row has a value."""
    limit = _labels_end(lines, region, left)
    found = _value_columns(lines, region, limit)
    if found is None:
        return None
    columns, groups = found
    area = min(c.left for c in columns) - 12
    header = _above(lines, min(region.header or region.lines), area, columns) + region.header
    _header_columns(lines, region.header, header, columns)
    inherited = None
    if not region.header and carry is not None and _same_columns(columns, carry.columns):
        inherited = carry
        columns = [replace(c, header=list(c.header)) for c in carry.columns]
    top = min(header or region.lines)
    title_lines = _title_lines(lines, top)
    caption = " ".join(ln.text for ln in title_lines)
    beside = " ".join(w.text for i in header for w in lines[i].words if w.x1 < area - 20)
    caption = f"{caption} {beside}".strip()
    if inherited is None:
        _headers(columns, [lines[i] for i in header], area)
        _mark_notes(columns, groups)
        periods = _periods(columns, caption, ctx, _side_group(lines, header, area))
    else:
        periods = inherited.periods
    title = _title(title_lines) or (inherited.title if inherited is not None else "")
    stated = "" if region.header else _unit_line_above(lines, top, area, ctx.currency)
    _column_units(columns, _unit_of(caption, ctx.currency), stated)
    # A column's figures begin where its widest one does: a number there is a cell, though
    # a year centred over two columns set `limit` to its right ("Cost of products 8,212").
    limit = min(limit, min(c.left for c in columns) - 2)
    rows = _rows(lines, region, columns, limit)
    if not any(any(r.values) for r in rows):
        return None
    table_lines = sorted(set(header) | set(region.lines))
    return Table(table_lines, title=title, columns=columns, rows=rows, periods=periods)


def _labels_end(lines: list[Line], region: _Region, left: float) -> float:
    """Where a region's row labels end: where its headers begin (a year, or the Note
    column's head), else `left`. A number further left is part of its label ("net of
    amortization of $503")."""
    if not region.header:
        return left
    starts = (
        w.x0
        for i in region.header
        for w in lines[i].words
        if _year_of(w) is not None or re.fullmatch(r"notes?", w.text, re.I)
    )
    return min(starts, default=left + 25) - 25


def _value_columns(
    lines: list[Line], region: _Region, limit: float
) -> tuple[list[Column], list[list[tuple[int, Word]]]] | None:
    """A region's columns found from its figures (right edges lined up), and the figures
    of each; None when it has none."""
    tokens: list[tuple[int, Word]] = []
    for i in region.lines:
        _, values = _value_words(lines[i], limit)
        # A dash is centred in its cell, not set to its right edge: it finds its column
        # by where it sits, not the other way round.
        tokens.extend((i, w) for w in values if not DASH.match(w.text))
    if not tokens:
        return None
    groups = _clusters(tokens)
    columns = [
        Column(right=statistics.median(w.x1 for _, w in g), left=min(w.x0 for _, w in g))
        for g in groups
    ]
    _dash_columns(lines, region, limit, columns)
    return columns, groups


def _dash_columns(lines: list[Line], region: _Region, limit: float, columns: list[Column]) -> None:
    """Widen `columns` to the dashes that fall just outside them, and add a column for
    dashes under none (a parent entity's nil column is a column too)."""
    ends = sorted(c.right for c in columns)
    room = 0.4 * statistics.median([b - a for a, b in itertools.pairwise(ends)] or [40])
    stray: list[Word] = []
    for i in region.lines:
        for w in _value_words(lines[i], limit)[1]:
            if DASH.match(w.text) and not any(
                c.left - 10 <= w.middle <= c.right + room for c in columns
            ):
                stray.append(w)
    for w in sorted(stray, key=lambda w: w.middle):
        near = [c for c in columns if c.left - 10 <= w.middle <= c.right + 10]
        if near:
            near[0].left, near[0].right = min(near[0].left, w.x0), max(near[0].right, w.x1)
        else:
            columns.append(Column(right=w.x1, left=w.x0))


def _header_columns(
    lines: list[Line], own: list[int], header: list[int], columns: list[Column]
) -> None:
    """Add the columns a header places but no row fills: a year over a blank comparative
    (on the region's own header lines, `own`), a Note column's head (on any `header`
    line); `columns` end sorted left to right."""
    for i in own:
        for w in lines[i].words:
            if _year_of(w) is not None and not any(_near(c, w) for c in columns):
                columns.append(Column(right=w.x1, left=w.x0))
    columns.sort(key=lambda c: c.right)
    for i in header:
        for w in lines[i].words:
            if re.fullmatch(r"notes?", w.text, re.I) and not any(
                c.left - 6 <= w.middle <= c.right + 6 for c in columns
            ):
                columns.append(Column(right=w.x1, left=w.x0, header=[w.text]))
    columns.sort(key=lambda c: c.right)


def _column_units(columns: list[Column], table_unit: str, stated: str) -> None:
    """Give each column without a unit of its own the table's (from its caption); a line
    of units alone printed above a table with no header of its own (`stated`) sets the
    unit of every column of figures."""
    for column in columns:
        if not column.unit:
            column.unit = table_unit
    if stated:
        for column in columns:
            if not column.note:
                column.unit = stated


def _unit_line_above(lines: list[Line], top: int, area: float, currency: str) -> str:
    """The unit of a line of units alone printed over the columns a little above a
    table's first row ("Cents  Cents" over a statement's earnings per share)."""
    for i in range(top - 1, max(top - 8, -1), -1):
        line = lines[i]
        if _numeric(line, area):
            break
        if all(_UNIT_TOKEN.match(w.text) for w in line.words) and line.x0 >= area - 12:
            return _unit_of(line.text, currency)
    return ""


def _above(lines: list[Line], top: int, area: float, columns: list[Column]) -> list[int]:
    """The header lines above a table's first line: lines close above it printed over its
    columns ("Consolidated", "Year Ended December 31,", "Issued capital Reserves")."""
    found: list[int] = []
    below = lines[top]
    for i in range(top - 1, max(top - 5, -1), -1):
        line = lines[i]
        if below.top - line.bottom > 2.5 * line.size:
            break
        over = [w for w in line.words if w.x0 >= area - 10]
        if not over or (_numeric(line, area) and not _is_period_line(line, area)):
            break
        aside = [w for w in line.words if w.x0 < area - 10]
        if aside and (
            len(aside) > 3
            or not all(w.text[:1].isupper() for w in aside)
            or aside[-1].x1 > area - 20
        ):
            break  # a title or caption across the page, not a column header
        years = [w for w in over if _year_of(w) is not None]
        if years and not all(any(_near(c, w) for c in columns) for w in years):
            break  # a caption naming a year, not a column's
        span = max(c.right for c in columns) - min(c.left for c in columns)
        if len(over) > 4 and over[-1].x1 - over[0].x0 > 1.1 * span:
            break  # a title across the columns
        found.insert(0, i)
        below = line
    return found


def _near(column: Column, word: Word) -> bool:
    """Whether a header word stands over a column (a little off its numbers as it may be)."""
    return column.left - 24 <= word.x1 and word.x0 <= column.right + 24


def _same_columns(mine: list[Column], theirs: list[Column]) -> bool:
    ends = [c.right for c in theirs]
    return all(any(abs(c.right - e) <= 6 for e in ends) for c in mine)


def _title_lines(lines: list[Line], top: int) -> list[Line]:
    """The lines just above a table (its title and caption: "Consolidated statement of
    cash flows", "For the year ended 30 June 2022", "(in millions)")."""
    above: list[Line] = []
    for i in range(top - 1, max(top - 7, -1), -1):
        line = lines[i]
        nearer = above[-1] if above else lines[top]
        if nearer.top - line.bottom > 4 * line.size or len(line.words) > 16:
            break
        if _numeric(line, 0) and not _is_period_line(line, 0):
            break
        above.append(line)
    return list(reversed(above))


def _title(title_lines: list[Line]) -> str:
    """A table's title from the lines above it: one naming a statement or a note if any,
    else the last short line that is no sentence; "" when there is none."""
    texts = [
        " ".join(ln.text.split())
        for ln in title_lines
        if re.search(r"[A-Za-z]{3}", ln.text)
        and not ln.text.rstrip().endswith(".")
        and len(ln.words) <= 14
    ]
    named = [t for t in texts if re.search(r"statement|balance\s+sheet|\bnote\b|summary", t, re.I)]
    chosen = named[-1] if named else (texts[-1] if texts else "")
    return chosen[:120]


def _headers(columns: list[Column], header_lines: list[Line], area: float) -> None:
    """Each column's header phrases, top to bottom: a phrase over several columns (a group,
    a span of years) heads each of them; one over a column heads it."""
    # long: per header line, each phrase given its columns by one of three rules.
    if not columns:
        return
    rights = [c.right for c in columns]
    spacing = statistics.median([b - a for a, b in itertools.pairwise(rights)] or [60])
    lo, hi = min(c.left for c in columns), max(rights)
    for line in header_lines:
        cells = _header_cells(line, area)
        owner: dict[int, tuple[float, str]] = {}
        mids = [(c.left + c.right) / 2 for c in columns]
        # A line of fewer phrases than columns spans them ("Consolidated   Parent" over
        # four): each column takes the nearest phrase; otherwise a phrase heads the one
        # column nearest it (a year, a unit, a date), a little off its numbers as it may be.
        spans = len(cells) < sum(not c.note for c in columns) and len(cells) > 0
        for cell in cells:
            text = " ".join(w.text for w in cell)
            a, b = cell[0].x0, cell[-1].x1
            middle = (a + b) / 2
            has_year = any(_year_of(w) is not None for w in cell)
            if has_year or not spans or _CHANGE_MARK.search(text):
                k = min(range(len(columns)), key=lambda n: abs(mids[n] - middle))
                near = abs(mids[k] - middle) <= max(0.6 * spacing, 20)
                candidates = [(k, abs(mids[k] - middle))] if near else []
            elif len(cells) == 1 and 0.25 <= (middle - lo) / (hi - lo or 1) <= 0.75:
                # One phrase centred over the whole table ("Q2" over "2023  2022  %
                # Change", "Year ended December 31,"): it heads every column, though the
                # outer ones lie further than a column's spacing from it.
                candidates = [(k, abs(mids[k] - middle)) for k in range(len(columns))]
            else:
                reach = max(spacing, (b - a) / 2)
                candidates = [
                    (k, abs(mids[k] - middle))
                    for k in range(len(columns))
                    if a - reach <= mids[k] <= b + reach
                ]
            for k, distance in candidates:
                if k not in owner or distance < owner[k][0]:
                    owner[k] = (distance, text)
        for k, (_, text) in owner.items():
            columns[k].header.append(text)


def _header_cells(line: Line, area: float) -> list[list[Word]]:
    """A header line's phrases over the columns (right of `area`), each cut after a year:
    a year ends a column's header ("2022 2021" set close is two cells)."""
    cells: list[list[Word]] = []
    for run in phrases(Line([w for w in line.words if w.x0 >= area - 30])):
        piece: list[Word] = []
        for w in run:
            piece.append(w)
            if _year_of(w) is not None:
                cells.append(piece)
                piece = []
        if piece:
            cells.append(piece)
    return cells


_CHANGE_MARK = re.compile(
    r"%\s*(?:change|increase|decrease|variance|growth)\b|\b(?:change|variance)\s*%|"
    r"\b(?:19|20)?\d{2}\s+(?:vs\.?|versus|v\.?|over|compared\s+(?:with|to))\s+(?:19|20)?\d{2}\b",
    re.I,
)
"""A column of changes between periods ("% change", "22 vs. 21", "2022 vs 2021"): its
header heads it alone (never a group spanning the year columns beside it), and its
percentages are no period's figures."""


def _mark_notes(columns: list[Column], groups: list[list[tuple[int, Word]]]) -> None:
    """The Note column: headed "Note", or the leftmost column of references only, left of
    the columns of periods."""
    by_right = {statistics.median(w.x1 for _, w in g): g for g in groups}
    for column in columns:
        group = by_right.get(column.right, [])
        refs = bool(group) and all(
            NOTE_REF.match(w.text) and not DASH.match(w.text) for _, w in group
        )
        if any(re.fullmatch(r"notes?", h.strip(), re.I) for h in column.header) or (
            refs
            and not any(_YEAR.search(h) for h in column.header)
            and column is columns[0]
            and len(columns) > 1
        ):
            column.note = refs or not group


def _side_group(lines: list[Line], header: list[int], area: float) -> str:
    """A group printed beside the column headers, over the labels ("Parent   $000'
    $000' ..."): it heads every column."""
    for i in header:
        words = [w for w in lines[i].words if w.x1 < area - 20]
        over = [w for w in lines[i].words if w.x0 >= area - 20]
        if over and 0 < len(words) <= 3 and all(w.text[:1].isupper() for w in words):
            group = _group(" ".join(w.text for w in words))
            if group:
                return group
    return ""


def _periods(columns: list[Column], caption: str, ctx: ReadContext, side: str = "") -> bool:
    """Each column's Markdown cell from its header and the caption; whether any is a
    period's. `side` is a group printed beside the headers."""
    said = _Caption.of(caption)
    any_period = False
    beside: _Period | None = None
    texts = _paired_years([" ".join(c.header) for c in columns])
    if is_schedule(texts, ctx.fiscal_year):
        # "2024 | Thereafter | Total": when amounts fall due, no period's figures (a FY2023
        # 10-K's contractual obligations were read as FY2024's).
        for column, text in zip(columns, texts, strict=True):
            column.cell = "Note" if column.note else _plain(text)
        return False
    for column, text in zip(columns, texts, strict=True):
        if column.note:
            column.cell = "Note"
            continue
        column.unit = _unit_of(text, ctx.currency) if _has_unit(text) else ""
        if _CHANGE_MARK.search(text):
            column.cell = _plain(text)  # a change between periods is no period's figure
            beside = None
            continue
        years = _header_years(text)
        share = SHARE_HEADER.search(text)
        if not years and beside is not None and share:
            # "Amount | Percent to Sales" under one year: the share is of the amount's period.
            column.cell = period_cell(*beside[:3], _plain(share.group(0)), beside[3])
            continue
        if not years:
            plain = _plain(text)
            column.cell = f"{side}: {plain}" if side and plain else plain
            beside = None
            continue
        beside = _period(years[-1], text, said, ctx)
        group = _plain(share.group(0)) if share else _group(text) or side
        column.cell = period_cell(*beside[:3], group, beside[3])
        any_period = True
    return any_period


_Period = tuple[int, date | None, int | None, bool]
"""A column's period: its fiscal year, its end (None: a year alone, no date known), its
months (0: a balance at a date within the year; None: not said) and whether restated."""


@dataclass(frozen=True)
class _Caption:
    """What a table's caption says of the periods of its columns."""

    text: str
    month_day: tuple[int, int] | None
    """The date its period ends on, without the year ("For the year ended 30 June")."""
    months: int | None
    instant: bool
    """A balance at a date ("As at 30 June 2022"): its columns span no months."""

    @classmethod
    def of(cls, caption: str) -> "_Caption":
        said = _CAPTION_DATE.search(caption)
        month_day = _month_day(said.group(0)) if said else None
        return cls(caption, month_day, _months(caption), bool(_AT_DATE.search(caption)))


def _header_years(text: str) -> list[int]:
    """The years a column's header prints ("2022", "FY2022", "FY22")."""
    years = [int(y) for y in _YEAR.findall(text)]
    if not years:
        short = [m.group(1) for w in text.split() if (m := _FY_SHORT.match(w))]
        years = [2000 + int(y) for y in short]
    return years


def _period(year: int, text: str, caption: _Caption, ctx: ReadContext) -> _Period:
    """The period of a column headed `text`, which prints `year`: its own date, else the
    caption's, else the company's year end; a quarter or half with no date ends within
    the fiscal year."""
    own = _month_day(text)
    month_day = own or caption.month_day
    if month_day is None and ctx.year_end:
        month, day = (int(p) for p in ctx.year_end.split("-"))
        month_day = (month, day)
    months = _months(text) or (None if caption.instant else caption.months)
    end = _date(year, month_day) if month_day else None
    undated = own is None and caption.month_day is None
    if end is not None and undated and months in (3, 6, 9):
        # "Q2" or "Six Months" over "2023" with no date: the span ends within the
        # fiscal year, not at its end (J&J's second quarter was bound to 31 December).
        quarter = quarter_named(text) or quarter_named(caption.text)
        end = _interim_end(end, months, quarter, ctx)
    if months is None and end is not None and _within_year(end, ctx):
        months = 0  # a balance at a quarter's end is no year's
    if end is not None and undated and ctx.year_end:
        fy = year  # the year printed is the fiscal year
    elif end is not None:
        fy = fiscal_year_of(end, ctx.year_end)
    else:
        fy = year
    restated = bool(re.search(r"restated|re-presented", text, re.I))
    return fy, end, months, restated


def _interim_end(year_end: date, months: int, quarter: int | None, ctx: ReadContext) -> date:
    """Where a span of `months` printed with no date ends, in the fiscal year ending on
    `year_end`: a named quarter's end; a year to date of six or nine months counts from
    the year's start; an unnamed quarter is the interim report's own, when it says one."""
    if months == 3 and quarter:
        return quarter_end(year_end, quarter)
    if months in (6, 9):
        return months_before(year_end, 12 - months)
    if ctx.interim_end is not None and fiscal_year_of(ctx.interim_end, ctx.year_end) == (
        fiscal_year_of(year_end, ctx.year_end)
    ):
        return ctx.interim_end
    return year_end


def _paired_years(texts: list[str]) -> list[str]:
    """Headers with a year centred over an amount and its share column ("2023" over "Amount
    Percent to Sales") given to both: the one it fell nearer holds it, the other none."""
    out = list(texts)
    for k, (text, after) in enumerate(itertools.pairwise(texts)):
        if _YEAR.search(text) or SHARE_HEADER.search(text) or _CHANGE_MARK.search(text):
            continue
        if SHARE_HEADER.search(after) and (years := [m.group(0) for m in _YEAR.finditer(after)]):
            out[k] = f"{text} {' '.join(years)}"
    return out


def _within_year(day: date, ctx: ReadContext) -> bool:
    """Whether a date is no fiscal year's end: the interim report's own period end, or
    a date well away from the company's year end."""
    if ctx.interim_end is not None and day == ctx.interim_end:
        return True
    if ctx.year_end is None:
        return False
    month, dom = (int(p) for p in ctx.year_end.split("-"))
    for year in (day.year - 1, day.year, day.year + 1):
        nominal = _date(year, (month, dom))
        if nominal is not None and abs((day - nominal).days) <= 20:
            return False
    return True


def _has_unit(text: str) -> bool:
    return any(_UNIT_TOKEN.match(t) for t in text.split()) or bool(
        re.search(
            r"\bin\s+(?:millions|thousands|billions)\b"
            r"|\(\s*(?:US\$|\$)?\s*(?:millions|thousands|billions)\b",  # "(Millions, except ...)"
            text,
            re.I,
        )
    )


def _plain(text: str) -> str:
    words = [w for w in text.split() if not _UNIT_TOKEN.match(w)]
    return " ".join(words)


def _group(text: str) -> str:
    """What a column's header says besides its period and unit: "Consolidated",
    "Parent", "Company"."""
    rest = " ".join(w for w in text.split() if not _UNIT_TOKEN.match(w))
    rest = re.sub(_DAY_MONTH, " ", rest)
    rest = re.sub(_MONTH_DAY, " ", rest)
    rest = _YEAR.sub(" ", rest)
    rest = re.sub(r"\b\d+\b", " ", rest)
    rest = _GROUP_NOISE.sub(" ", rest)
    words = rest.split()
    return " ".join(words) if 0 < len(words) <= 3 else ""


def _month_day(text: str) -> tuple[int, int] | None:
    for pattern in (_DAY_MONTH, _MONTH_DAY):
        match = pattern.search(text)
        if match is not None:
            day = int(match.group("d"))
            if 1 <= day <= 31:
                return MONTHS[match.group("m").lower()], day
    return None


def _months(text: str) -> int | None:
    for pattern, months in _DURATIONS:
        if pattern.search(text):
            return months
    return None


def _date(year: int, month_day: tuple[int, int]) -> date | None:
    month, day = month_day
    try:
        return date(year, month, day)
    except ValueError:
        if month == 2 and day == 29:
            return date(year, 2, 28)
        return None


def _unit_of(text: str, currency: str) -> str:
    """The unit a header or caption names, as the tables write it: "A$'000", "US$M",
    "A$", "A cents", "%"; "" when it names none."""
    if re.search(r"\bcents?\b|\bpence\b", text, re.I) and not re.search(
        r"\bper\s+cent\b", text, re.I
    ):
        return _cents(currency)
    scale = next((s for pattern, s in _SCALE_WORDS if pattern.search(text)), None)
    found = _CURRENCY.search(text)
    if found is None and scale is None:
        return "%" if re.search(r"(?:^|\s)\(?%\)?(?:\s|$)", text) else ""
    named = currency_of(found.group(0)) if found is not None else None
    money = named.sign if named is not None else currency  # a bare "$" is the report's
    suffix = {None: "", 1e3: "'000", 1e6: "M", 1e9: "bn"}[scale]
    return f"{money}{suffix}"


def _cents(currency: str) -> str:
    """How a per-share column of `currency`'s minor unit is headed ("US cents", "pence")."""
    known = by_sign(currency)
    if known is not None and known.letters:
        return f"{known.letters[0]} cents"  # "US cents", "A cents", "NZ cents"
    if known is not None and known.minor:
        return known.minor
    return f"{currency.rstrip('$') or currency} cents"


def _distance(column: Column, word: Word, dash: bool) -> float:
    if dash:
        return abs((column.left + column.right) / 2 - word.middle) - 4
    return abs(column.right - word.x1)


def _assign(values: list[Word], columns: list[Column]) -> dict[int, Word] | None:
    """Each value of a row to its column: in order, to the column whose right edge is
    nearest; None when a value sits under no column."""
    slots: dict[int, Word] = {}
    start = 0
    for word in values:
        best = None
        dash = bool(DASH.match(word.text))
        for k in range(start, len(columns)):
            column = columns[k]
            distance = abs(column.right - word.x1)
            if dash:  # by where it sits: nearest the column's middle
                distance = abs((column.left + column.right) / 2 - word.middle) - 4
            inside = column.left - 3 <= word.middle <= column.right + (20 if dash else 6)
            if (distance <= 14 or inside) and (
                best is None or distance < _distance(columns[best], word, dash)
            ):
                best = k
        if best is None:
            return None
        slots[best] = word
        start = best + 1
    return slots


def _rows(lines: list[Line], region: _Region, columns: list[Column], limit: float) -> list[Row]:
    """The table's rows: labels (wrapped ones joined), note references and values by
    column; headings as rows without values."""
    # long: one pass over the region's lines; a wrapped label's parts share its state.
    rows: list[Row] = []
    pending: list[str] = []
    unit_override = ""
    order = region.lines
    skip: set[int] = set()
    for position, i in enumerate(order):
        if i in skip:
            continue
        line = lines[i]
        nxt = order[position + 1] if position + 1 < len(order) else None
        label_words, value_words = _value_words(line, limit)
        if not value_words and all(_UNIT_TOKEN.match(w.text) for w in line.words):
            unit_override = _unit_override(line, columns, unit_override)
            continue
        slots = _assign(value_words, columns) if value_words else {}
        if slots is None:
            slots = {}
            label_words = list(line.words)
        while label_words and CURRENCY_MARK.match(label_words[-1].text):
            label_words.pop()  # "Accounts payable  $  25,309": the sign is the figure's
        note = _take_note(label_words, slots, columns)
        label = " ".join(w.text for w in label_words).strip()
        if not slots:
            if label and nxt is not None and _label_goes_on(label, lines[nxt], limit):
                pending.append(label)
            elif label:
                rows.append(Row(" ".join([*pending, label]), heading=True))
                pending = []
            continue
        cells = _cells(slots, columns, any(w.unsure for w in label_words))
        parts = [*pending, label] if label else list(pending)
        pending = []
        if not label and nxt is not None:
            after = lines[nxt]
            if _continues(after) and not _numeric(after, limit):
                parts.append(after.text)
                skip.add(nxt)
        text = " ".join(p for p in parts if p).strip()
        if not text and all(c in ("", "-") for c in cells):
            continue  # a stray nil printed under another row's cell
        text = text or _total_label(rows)
        rows.append(Row(text, note, cells, unit=unit_override or _row_unit(columns)))
    if pending:
        rows.append(Row(" ".join(pending), heading=True))
    return rows


def _unit_override(line: Line, columns: list[Column], current: str) -> str:
    """The unit a line of units alone sets for the rows under it ("Cents" before the
    earnings per share), in the columns' currency; `current` when it names none."""
    unit = _unit_of(line.text, "") or current
    if unit.startswith(" cents") or unit.endswith(" cents"):
        unit = _unit_of(line.text, _currency_of(columns)).strip()
    return unit


def _take_note(label_words: list[Word], slots: dict[int, Word], columns: list[Column]) -> str:
    """A row's note reference, taken out of its values (`slots`) or, set just left of the
    Note column, off the end of its label (`label_words`); "" when it has none."""
    note_at = next((k for k, c in enumerate(columns) if c.note), None)
    if note_at is None:
        return ""
    if note_at in slots:
        return slots.pop(note_at).text
    column = columns[note_at]
    if (
        label_words
        and NOTE_REF.match(label_words[-1].text)
        and column.left - 8 <= label_words[-1].middle <= column.right + 14
    ):
        return label_words.pop().text
    return ""


def _label_goes_on(label: str, after: Line, limit: float) -> bool:
    """Whether a label without values is wrapped onto the next line (it ends in a
    connector, the next line goes on from it, or the next is a row of values alone)."""
    return bool(
        _CONNECTOR.search(label)
        or _continues(after)
        or (not _label_of(after, limit) and _numeric(after, limit))
    )


def _cells(slots: dict[int, Word], columns: list[Column], unsure: bool) -> list[str]:
    """A row's value cells, one per column of figures ("" where it has none, or where
    it or its label was read too unsure to take)."""
    values_at = [k for k, c in enumerate(columns) if not c.note]
    cells = ["" for _ in values_at]
    for k, word in slots.items():
        if k in values_at:
            cells[values_at.index(k)] = "" if word.unsure or unsure else _clean(word.text)
    return cells


def _total_label(rows: list[Row]) -> str:
    """The label of a row of values printed with none: the total of the heading above."""
    heading = next((r.label for r in reversed(rows) if r.heading), "")
    return f"Total {heading.rstrip(':')}".strip() if heading else "Total"


def _label_of(line: Line, limit: float) -> str:
    """A row's label words (a note reference alone is none)."""
    words, _ = _value_words(line, limit)
    if len(words) == 1 and NOTE_REF.match(words[0].text):
        return ""
    return " ".join(w.text for w in words)


def _row_unit(columns: list[Column]) -> str:
    units = [c.unit for c in columns if not c.note and c.unit]
    return statistics.mode(units) if units else ""


def _currency_of(columns: list[Column]) -> str:
    for column in columns:
        if column.unit and "cents" not in column.unit:
            return re.sub(r"(?:'000|M|bn)$", "", column.unit)
    return "A$"


def _clean(text: str) -> str:
    """A value cell as written, without a currency sign stuck to it: "$1,234" → "1,234",
    "($5)" → "(5)"; a dash is nil, written "-"."""
    if DASH.match(text):
        return "-"
    return re.sub(MARK, "", text)
