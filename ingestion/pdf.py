"""Read a PDF annual report into prose and tables, keeping each table's columns.

Why pdfplumber (over pypdf, used before): a statement in a real report is laid out in
unruled columns, and only the position of a number says which column, so which period,
it belongs to. pypdf returns a page as one run of text in which a row's label, its note
reference, this year's and last year's values and the next row's label follow one
another. pdfplumber (MIT, on pdfminer.six, maintained) gives every word with its box and
font size. Its own table finder needs ruling lines or regular text columns, which
statements rarely have; so the column reading here is our own few rules over its words:
a header line of periods ("2024  2023", "FY2024") fixes the columns, and each number of
the rows below goes to the column it sits under.

What is handled, each by a rule below:
- printed page numbers: the number in the page's header or footer band is the page cited,
  not the PDF page index (a cover and a contents page are not numbered);
- running headers and footers (the same line on many pages) are not text;
- footnote markers in small type after a label ("Other income¹") are dropped;
- note references ("C1(c)", "5") under a "Note" column are not values;
- a statement that runs over a page break keeps its columns on the next page;
- two-column prose is read column by column, not across;
- a page without a text layer (a scan) or with text in a font without a character map
  ("(cid:12)") is reported, and not indexed as text.
"""

import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_BAND = 0.08
"""The share of a page's height at its top and bottom where headers and footers sit."""
_PERIOD = re.compile(r"^(?:FY)?((?:19|20)\d{2})$")
_NUMBER = re.compile(r"^\(?-?\$?\d[\d,]*(?:\.\d+)?\)?%?$|^[–—-]$")
_NOTE_REF = re.compile(r"^[A-Z]?\d{1,2}(?:\.\d{1,2})?(?:\([a-z]{1,3}\))?$")
_UNIT = re.compile(
    r"^(?:\$'?m|\$'?000|US\$'?000|A\$'?000|\$\s?million|\$M|US\$'?m|US\$M|US\$\s?million|US\$bn|A\$'?m|A\$M|"
    r"A\$bn|Mt|kt|koz|Moz|%)$",
    re.IGNORECASE,
)
_RESTATED = re.compile(r"restated|re-presented", re.IGNORECASE)


class PdfError(ValueError):
    """The file is not a PDF this reader can use (the message says why)."""


@dataclass(frozen=True)
class _Word:
    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    size: float


@dataclass
class _Line:
    words: list[_Word]

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)

    @property
    def top(self) -> float:
        return min(w.top for w in self.words)

    @property
    def bottom(self) -> float:
        return max(w.bottom for w in self.words)

    @property
    def size(self) -> float:
        return statistics.median(w.size for w in self.words)


@dataclass
class Block:
    """A paragraph or a table (as a Markdown table) of one printed page."""

    page: int
    section: str
    text: str
    is_table: bool


@dataclass
class PdfRead:
    blocks: list[Block] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """Pages not indexed, each with why ("page 5: no text layer (a scanned image?)")."""
    pages: int = 0


@dataclass
class _Columns:
    """A table's header: where each period column ends, the note column, the unit."""

    periods: list[tuple[float, str]]  # (right edge, header cell such as "FY2024")
    note: float | None
    unit: str | None
    left: float  # where the first column starts: the labels end before it


def _words(page: Any) -> list[_Word]:
    chars = page.chars
    if not chars:
        return []
    body = statistics.median(c["size"] for c in chars)
    # A footnote marker is set small against its line; it is no part of a label or value.
    kept = page.filter(lambda o: o.get("object_type") != "char" or o["size"] >= 0.7 * body)
    return [
        _Word(w["text"], w["x0"], w["x1"], w["top"], w["bottom"], w["size"])
        for w in kept.extract_words(extra_attrs=["size"], keep_blank_chars=False)
    ]


def _lines(words: list[_Word]) -> list[_Line]:
    lines: list[_Line] = []
    for word in sorted(words, key=lambda w: (round(w.top), w.x0)):
        if lines and abs(lines[-1].top - word.top) <= 2.5:
            lines[-1].words.append(word)
        else:
            lines.append(_Line([word]))
    for line in lines:
        line.words.sort(key=lambda w: w.x0)
    return lines


def _text_problem(page: Any, words: list[_Word]) -> str | None:
    """Why a page's text cannot be used, or None."""
    if not words:
        drawn = page.images or page.rects or page.curves
        return "no text layer (a scanned or drawn page)" if drawn else None
    text = " ".join(w.text for w in words)
    # pdfminer writes a glyph it cannot map to a character as "(cid:12)".
    unmapped = sum(len(m) for m in re.findall(r"\(cid:\d+\)", text))
    odd = sum(1 for ch in text if not ch.isprintable() or "\ue000" <= ch <= "\uf8ff")
    if (unmapped + odd) * 4 > len(text):
        return "text in a font without a character map (garbled)"
    return None


def _template(text: str) -> str:
    return re.sub(r"\d+", "#", text)


def read_pdf(path: Path, currency: str = "US$") -> PdfRead:
    """The prose and tables of a PDF report, cited to their printed pages.

    `currency` is the reporting currency, read into a bare "$'m" column unit. Raises
    PdfError when the file is not a PDF, is encrypted, or cannot be parsed.
    """
    import pdfplumber
    from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect
    from pdfminer.pdfparser import PDFSyntaxError
    from pdfminer.psparser import PSException
    from pdfplumber.utils.exceptions import PdfminerException

    head = path.read_bytes()[:1024]
    if not head.strip():
        raise PdfError("empty file")
    if b"%PDF-" not in head:
        kind = "an image" if head[:4] in (b"\x89PNG", b"\xff\xd8\xff\xe0", b"GIF8") else "text"
        raise PdfError(f"not a PDF (it holds {kind}; a renamed file?)")
    try:
        with pdfplumber.open(path) as pdf:
            raw_pages = [(p, _words(p)) for p in pdf.pages]
            return _read(raw_pages, currency)
    except (PDFPasswordIncorrect, PDFEncryptionError) as exc:
        raise PdfError("encrypted (a password is needed to read it)") from exc
    except (PdfminerException, PDFSyntaxError, PSException, KeyError, TypeError, ValueError) as exc:
        inner = exc.args[0] if isinstance(exc, PdfminerException) and exc.args else exc
        if (
            isinstance(inner, (PDFPasswordIncorrect, PDFEncryptionError))
            or "password" in str(inner).lower()
        ):
            raise PdfError("encrypted (a password is needed to read it)") from exc
        raise PdfError(f"cannot be parsed ({inner.__class__.__name__}: {str(inner)[:80]})") from exc


def _read(raw_pages: list[tuple[Any, list[_Word]]], currency: str) -> PdfRead:
    out = PdfRead(pages=len(raw_pages))
    if not raw_pages:
        raise PdfError("not a readable PDF (no pages)")
    banded: list[tuple[list[_Line], list[_Line]]] = []  # (band lines, body lines) per page
    for page, words in raw_pages:
        lines = _lines(words)
        height = float(page.height)
        band = [ln for ln in lines if ln.bottom < _BAND * height or ln.top > (1 - _BAND) * height]
        banded.append((band, [ln for ln in lines if ln not in band]))
    # A band line on many pages (digits aside) is a running header or footer.
    seen = Counter(t for band, _ in banded for t in {_template(ln.text) for ln in band})
    running = {t for t, n in seen.items() if n >= max(3, len(raw_pages) // 4)}
    section = ""
    columns: _Columns | None = None  # a table still open at the end of the last page
    for index, ((page, _), (band, body)) in enumerate(zip(raw_pages, banded, strict=True), 1):
        body += [ln for ln in band if _template(ln.text) not in running and not _bare_number(ln)]
        # Judged on the page's own text: a scanned page still carries the running header.
        if problem := _text_problem(page, [w for ln in body for w in ln.words]):
            out.problems.append(f"page {index}: {problem}; not indexed")
            columns = None
            continue
        printed = _printed_number(band) or index
        body.sort(key=lambda ln: ln.top)
        blocks, section, columns = _page_blocks(
            body, printed, section, columns, float(page.width), currency
        )
        out.blocks.extend(blocks)
    return out


def _bare_number(line: _Line) -> bool:
    return bool(re.fullmatch(r"(?:page\s+)?\d{1,4}", line.text.strip(), re.IGNORECASE))


def _printed_number(band: list[_Line]) -> int | None:
    """The page number printed in the header or footer band: a number standing alone
    ("57", "Page 57") or at either end of a band line ("Annual Report 2024 | 57")."""
    for line in sorted(band, key=lambda ln: -ln.top):  # footers first
        if _bare_number(line):
            return int(re.sub(r"\D", "", line.text))
        for word in (line.words[-1], line.words[0]):
            if re.fullmatch(r"\d{1,3}", word.text):
                return int(word.text)
    return None


def _is_number(text: str) -> bool:
    return bool(_NUMBER.match(text))


def _header(
    line: _Line, before: _Line | None, after: _Line | None, currency: str
) -> _Columns | None:
    """The columns a header line of periods ("Note 2024 2023") sets, or None."""
    periods = [w for w in line.words if _PERIOD.match(w.text)]
    # Two periods, or one after the unit ("US$M FY2024"): a year alone is not a header.
    one = len(periods) == 1 and _unit_of(line) is not None
    if len(periods) < 2 and not one:
        return None
    if any(_is_number(w.text) and not _PERIOD.match(w.text) for w in line.words):
        return None
    if periods[0].x0 < 0.35 * (line.words[-1].x1 or 1):
        return None  # a sentence or a label that names years, not columns
    restated = _RESTATED.search(line.text) is not None
    cells = [
        (w.x1, f"FY{_PERIOD.match(w.text).group(1)}"  # type: ignore[union-attr]
         + (" (restated)" if restated and i > 0 else ""))
        for i, w in enumerate(periods)
    ]  # fmt: skip
    note = next((w.x1 for w in line.words if w.text.lower() == "note"), None)
    unit = None
    for other in (ln for ln in (line, after, before) if ln is not None):
        if (found := _unit_of(other)) is not None:
            unit = _unit_cell(found, currency)
            break
    return _Columns(cells, note, unit, min(w.x0 for w in periods))


_CENTS = re.compile(r"^(?:US|A)\s+cents$", re.IGNORECASE)


def _unit_of(line: _Line) -> str | None:
    """The unit a header line (or the line above or under it) names: a unit word
    ("$'m", "US$M") or "US cents" at its start."""
    first_two = " ".join(w.text for w in line.words[:2])
    if _CENTS.match(first_two):
        return first_two
    return next((w.text for w in line.words if _UNIT.match(w.text)), None)


def _unit_cell(text: str, currency: str) -> str:
    """A header's unit as the tables downstream write it ("$'m" of an A$ reporter → "A$M")."""
    bare = text.replace("'", "").replace(" ", "").lower()
    if bare in ("$m", "$million"):
        return f"{currency}M"
    if bare in ("$000", "$thousand"):
        return f"{currency}'000"
    if bare in ("us$000", "a$000"):
        return f"{bare[:-4].upper()}$'000"
    if bare in ("us$m", "us$million"):
        return "US$M"
    if bare == "a$m":
        return "A$M"
    return text


def _row(line: _Line, columns: _Columns) -> tuple[str, str, list[str]] | None:
    """(label, note, values by column) of a statement row under `columns`, or None when
    the line is not one (prose, or numbers that sit under no column).

    The numbers that end the line are its values: as many as there are columns, they
    fill them in order; fewer (a blank cell), each goes to the column it sits under."""
    words = list(line.words)
    values: list[str] = [""] * len(columns.periods)
    trailing: list[_Word] = []
    while words and _is_number(words[-1].text) and len(trailing) < len(columns.periods):
        trailing.insert(0, words.pop())
    note = ""
    if (
        words
        and columns.note is not None
        and _NOTE_REF.match(words[-1].text)
        and abs(words[-1].x1 - columns.note) <= 14
    ):
        note = words.pop().text
    label = " ".join(w.text for w in words)
    if any(_is_number(w.text) and w.x0 >= columns.left - 5 for w in words):
        return None  # numbers among the words under the columns: not this table's row
    aligned = all(
        abs(w.x1 - x1) <= 30 for w, (x1, _) in zip(trailing, columns.periods, strict=False)
    )
    if len(trailing) == len(columns.periods) and (aligned or len(trailing) == 1):
        values = [w.text for w in trailing]
    else:
        if (
            trailing
            and columns.note is not None
            and abs(trailing[0].x1 - columns.note) <= 14
            and _NOTE_REF.match(trailing[0].text)
            and not note
        ):  # a note reference before a row with a blank cell
            note = trailing.pop(0).text
        for word in trailing:
            nearest = min(
                range(len(columns.periods)), key=lambda i: abs(columns.periods[i][0] - word.x1)
            )
            if abs(columns.periods[nearest][0] - word.x1) > 30 or values[nearest]:
                return None
            values[nearest] = word.text
    if not label:
        return None
    if not trailing and (len(words) > 8 or line.words[-1].x1 > columns.left):
        return None  # prose running across the columns, or a line of another layout
    return label, note, values


def _markdown(columns: _Columns, rows: list[tuple[str, str, list[str]]]) -> str:
    head = [columns.unit or "", *(["Note"] if columns.note is not None else []),
            *(cell for _, cell in columns.periods)]  # fmt: skip
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for label, note, values in rows:
        cells = [label, *([note] if columns.note is not None else []), *values]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _two_column(lines: list[_Line], width: float) -> list[_Line]:
    """Lines of two-column prose split at the gutter, the left column first, in runs."""
    mid = width / 2

    def halves(line: _Line, least: int) -> tuple[_Line, _Line] | None:
        left = [w for w in line.words if w.x1 <= mid]
        right = [w for w in line.words if w.x0 >= mid]
        if len(left) + len(right) != len(line.words):
            return None  # a word crosses the gutter: one column
        if len(left) < least or len(right) < least:
            return None
        if least and sum(not _is_number(w.text) for w in right) < least:
            return None  # a table row: numbers on the right
        return _Line(left), _Line(right)

    out: list[_Line] = []
    run: list[tuple[_Line, _Line]] = []

    def flush() -> None:
        out.extend(left for left, _ in run)
        out.extend(right for _, right in run if right.words)
        run.clear()

    for line in lines:
        # Three words each side open a run of two-column lines; within one, a line with
        # anything either side of the gutter (a column's short last line) stays in it.
        split = halves(line, 0 if run else 3)
        if split is not None:
            run.append(split)
        else:
            flush()
            out.append(line)
    flush()
    return [ln for ln in out if ln.words]


def _page_blocks(
    lines: list[_Line],
    page: int,
    section: str,
    columns: _Columns | None,
    width: float,
    currency: str,
) -> tuple[list[Block], str, _Columns | None]:
    blocks: list[Block] = []
    if not lines:
        return blocks, section, columns
    body_size = statistics.median(ln.size for ln in lines)
    lines = _two_column(lines, width)
    prose: list[str] = []
    rows: list[tuple[str, str, list[str]]] = []
    last_bottom: float | None = None

    def flush_prose() -> None:
        if prose:
            blocks.append(Block(page, section, " ".join(prose), False))
            prose.clear()

    def flush_table() -> None:
        if rows and columns is not None:
            blocks.append(Block(page, section, _markdown(columns, rows), True))
        rows.clear()

    for i, line in enumerate(lines):
        before = lines[i - 1] if i else None
        after = lines[i + 1] if i + 1 < len(lines) else None
        header = _header(line, before, after, currency)
        if header is not None:
            flush_prose()
            flush_table()
            columns = header
            last_bottom = line.bottom
            continue
        heading = line.size >= 1.2 * body_size and len(line.text.split()) <= 12
        if columns is not None and not heading:
            if all(_UNIT.match(w.text) for w in line.words) or _CENTS.match(line.text):
                last_bottom = line.bottom
                continue  # the unit line under a header
            row = _row(line, columns)
            gap = last_bottom is not None and line.top - last_bottom > 3 * line.size
            if row is not None and not (gap and not any(row[2])):
                rows.append(row)
                last_bottom = line.bottom
                continue
        flush_table()
        columns = None
        last_bottom = line.bottom
        text = line.text
        if heading and not text.endswith("."):
            flush_prose()
            section = text
            continue
        if prose and before is not None and line.top - before.bottom > 1.2 * line.size:
            flush_prose()
        prose.append(text)
    flush_prose()
    flush_table()
    return blocks, section, columns
