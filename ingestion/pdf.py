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
  ("(cid:12)") is reported, and not indexed as text; with OCR on (`ocr=True`,
  TURNSTILE_OCR) it is rendered and read by tesseract instead, its words going through
  the same rules, and reported as read by OCR.
"""

import itertools
import re
import statistics
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ingestion.glyphs import UNMAPPED, has_drawing, page_chars, render, words_of
from ingestion.identity import Identity, read_identity
from ingestion.layout import Line, Word, is_number, lines_of
from ingestion.statements import ReadContext, Table, find_tables

_BAND = 0.08
"""The share of a page's height at its top and bottom where headers and footers sit."""
# Either case: OCR reads a note's "C2" as "c2" (a note reference is only taken at the
# note column, where no label word sits).


class PdfError(ValueError):
    """The file is not a PDF this reader can use (the message says why)."""


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
    """Pages whose text layer could not be used, each with why and what became of it
    ("page 5: no text layer (a scanned or drawn page); not indexed", or "...; read by
    OCR")."""
    pages: int = 0
    identity: Identity | None = None
    """Who and when its first pages say it is of, when read (`read_pdf`'s `resolve`)."""


def _words(page: Any) -> list[Word]:
    """The page's words, each with its box and type size (`ingestion.glyphs`).

    Text set sideways (a stamp up the margin, "For personal use only") is no part of the
    page's lines. A footnote marker, set small and touching the word before it
    ("Other income¹"), is no part of a label or a value; small type standing alone (a page
    number, a source line) is kept."""
    upright = [ch for ch in page_chars(page) if ch.upright]
    if not upright:
        return []
    body = statistics.median(ch.size for ch in upright)
    return _without_markers(words_of(upright), body)


def _without_markers(words: list[Word], body: float) -> list[Word]:
    """`words` without footnote markers: small type touching the body-size word before it."""
    kept: list[Word] = []
    for word in words:
        before = kept[-1] if kept else None
        marker = (
            word.size < 0.7 * body
            and before is not None
            and before.size >= 0.7 * body
            and 0 <= word.x0 - before.x1 < 4.0
            and abs(word.bottom - before.bottom) < before.bottom - before.top
        )
        if not marker:
            kept.append(word)
    return kept


def _text_problem(page: Any, words: list[Word]) -> str | None:
    """Why a page's text cannot be used, or None."""
    if not words:
        return "no text layer (a scanned or drawn page)" if has_drawing(page) else None
    text = " ".join(w.text for w in words)
    # A glyph the font maps to no character (pdfminer wrote "(cid:12)").
    unmapped = text.count(UNMAPPED)
    odd = sum(1 for ch in text if not ch.isprintable() or "\ue000" <= ch <= "\uf8ff")
    if (unmapped + odd) * 4 > len(text):
        return "text in a font without a character map (garbled)"
    common, pairs = letter_pairs(text)
    if pairs >= _MIN_PAIRS and common < _WORDLIKE * pairs:
        share = round(100 * common / pairs)
        return f"text that reads as no words ({share}% of its letter pairs common; garbled)"
    return None


# The 120 commonest letter pairs of English: in the reports' running text three quarters or
# more of the pairs of adjacent letters within words are among these; in the nonsense a
# font with a wrong character map prints ("Wkh Jurxs uhsruwhg"), at most a third (a letter
# shift or a shuffle of the alphabet). Letter statistics, not a list of words: any English
# word, name or measure passes on its own letters.
_PAIRS = (
    "th he in er an re on at en nd ti es or te of ed is it al ar st to nt ng se ha as ou "
    "io le ve co me de hi ri ro ic ne ea ra ce li ch ll be ma si om ur ca el ta la ns di "
    "fo ho pe ec pr no ct us ac ot il tr ly nc et ut ss so rs un lo wa ge ie wh ee wi em "
    "ad ol rt po we na ul ni ts mo ow pa im mi ai sh ir su id os iv ia am fi ci vi pl ig "
    "tu ev ld ry"
)
_COMMON_PAIRS = frozenset(_PAIRS.split())
_MIN_PAIRS = 150
"""A page with fewer letter pairs (a table of figures, a cover) is not judged by them."""
_WORDLIKE = 0.45
"""Below this share of common pairs a page's text is not words (docs/corpus.md, "Pages
whose text is not words", gives the shares measured on real reports)."""


def letter_pairs(text: str) -> tuple[int, int]:
    """How many pairs of adjacent letters within the words of `text` are common ones in
    English, and how many there are."""
    common = total = 0
    for word in re.findall(r"[A-Za-z]{3,}", text):
        low = word.lower()
        for a, b in itertools.pairwise(low):
            total += 1
            common += a + b in _COMMON_PAIRS
    return common, total


OCR_READINGS = ((300, ""), (400, "--psm 6"))
"""How a page is read by OCR, twice: rendered at 300 dpi (tesseract reads 10-point type
well from there) with its own layout analysis, then at 400 dpi as one block of text (which
keeps a statement's far columns that the first can pass over). A figure is taken only
where both readings agree."""
_OCR_MIN_CONFIDENCE = 40
"""A word tesseract is less sure of than this (0-100) is dropped."""
_OCR_MIN_NUMBER_CONFIDENCE = 85
"""A number read with less confidence, or read differently at the second resolution, is
`unsure`, never a figure: a figure misread is worse than a cell left blank, and it would
pass the numeric check against its own evidence."""
_OCR_HEADING = 1.35
"""Tesseract's estimate of a line's text size is rough (a short table row can come out
40% above the body, a 15-point heading over 10-point text at 1.45): on a page read by
OCR, a line counts as larger than the body only from this ratio up (a table row with
values stays a row whatever its size)."""
_BBOX = re.compile(r"bbox (\d+) (\d+) (\d+) (\d+)")


class OcrUnavailable(RuntimeError):
    """OCR was asked for, but tesseract is not installed (the message says so)."""


@dataclass(frozen=True)
class _Read:
    """One word as tesseract read it, in PDF points."""

    text: str
    x0: float
    x1: float
    baseline: float
    size: float
    confidence: int


_HOCR_LINES = ("ocr_line", "ocr_header", "ocr_caption", "ocr_textfloat")
"""The hOCR classes of a line of text (a caption and a floating text are lines too)."""


def _hocr_words(
    page: Any, dpi: int, band: tuple[float, float] | None = None, config: str = ""
) -> list[_Read]:
    """The words of tesseract's hOCR of `page` rendered at `dpi` (only the strip between
    these shares of its height, with `band`).

    Each hOCR line has its baseline and text size (`x_size`): every word of a line is put
    on the line's baseline with the line's size, whatever its letters (a word's own box
    runs from its tallest to its lowest letter)."""
    # long: one pass over tesseract's hOCR; its cases share the line's state.
    import pytesseract

    image = render(page, dpi)
    above = 0
    if band is not None:
        above = int(band[0] * image.height)
        image = image.crop((0, above, image.width, int(band[1] * image.height)))
    try:
        hocr = pytesseract.image_to_pdf_or_hocr(image, extension="hocr", config=config)
    except pytesseract.TesseractNotFoundError as exc:
        raise OcrUnavailable("OCR is on but tesseract is not installed") from exc
    scale = 72 / dpi
    words: list[_Read] = []
    for line in ET.fromstring(hocr).iter():
        title = line.get("title", "")
        box = _BBOX.search(title)
        if box is None or line.get("class") not in _HOCR_LINES:
            continue
        fields = dict(p.strip().split(" ", 1) for p in title.split(";") if " " in p.strip())
        x0, top, _, y1 = (int(v) for v in box.groups())
        top, y1 = top + above, y1 + above
        slope, offset = (float(v) for v in fields.get("baseline", "0 0").split()[:2])
        size = float(fields.get("x_size", y1 - top)) * scale
        for span in line.iter():
            text = "".join(span.itertext()).strip()
            found = _BBOX.search(span.get("title", ""))
            if span.get("class") != "ocrx_word" or not text or found is None:
                continue
            # A closing bracket read as a brace: "(58}" is "(58)". Nothing else is mended.
            if is_number(mended := re.sub(r"\}$", ")", re.sub(r"^\{", "(", text))):
                text = mended
            confidence = re.search(r"x_wconf (\d+)", span.get("title", ""))
            wx0, _, wx1, _ = (int(v) for v in found.groups())
            baseline = (y1 + slope * (wx0 - x0) + offset) * scale
            sure = 0 if confidence is None else int(confidence.group(1))
            words.append(_Read(text, wx0 * scale, wx1 * scale, baseline, size, sure))
    return words


def _overlap(a: _Read, b: _Read) -> bool:
    """Whether two words read sit on the same line and overlap across it."""
    return abs(a.baseline - b.baseline) <= max(a.size, b.size) / 2 and a.x0 <= b.x1 and b.x0 <= a.x1


def _page_number(page: Any, read: list[_Read]) -> list[_Read]:
    """A page number standing alone in the header or footer band that the page's reading
    passed over (tesseract often does, in a margin), read from the band alone as one
    block of text; nothing else of that reading is kept (it cuts through what is there)."""
    found: list[_Read] = []
    for strip in ((0.0, _BAND), (1 - _BAND, 1.0)):
        words = _hocr_words(page, OCR_READINGS[0][0], strip, "--psm 6")
        for w in words:
            alone = all(abs(o.baseline - w.baseline) > w.size for o in words if o is not w)
            taken = any(_overlap(w, o) for o in read)
            if alone and not taken and re.fullmatch(r"\d{1,4}", w.text):
                found.append(w)
    return found


def ocr_words(page: Any) -> tuple[list[Word], int]:
    """The words tesseract reads on `page`, in PDF points, and how many it read too
    unsure to be taken as figures or kept at all.

    The page is read as OCR_READINGS says; the first reading gives the words, and a number
    in it is sure only when tesseract is confident of it and the other reading has the
    same text at the same place. Tesseract often reads a statement's labels and its
    number columns as separate lines of different sizes: every word's top is its baseline
    less the page's typical size, so a row's words meet on one line, and a size counts as
    larger than the body only from `_OCR_HEADING` times the typical size."""
    # long: render, read and rescale in order, each with its failure.
    first, *others = (_hocr_words(page, dpi, None, config) for dpi, config in OCR_READINGS)
    first += _page_number(page, first)
    # What only a later reading saw (a unit line under a header the first passed over)
    # is text too; a number in it agrees with no other reading, so it is unsure.
    only_later: list[_Read] = []
    for other in others:
        only_later += [w for w in other if not any(_overlap(w, o) for o in first + only_later)]
    first += only_later
    if not any(w.confidence >= _OCR_MIN_CONFIDENCE for w in first):
        return [], len(first)
    typical = statistics.median(w.size for w in first if w.confidence >= _OCR_MIN_CONFIDENCE)
    dropped = 0

    def agreed(word: _Read) -> bool:
        middle = (word.x0 + word.x1) / 2
        return all(
            any(
                o.text == word.text
                and o.x0 <= middle <= o.x1
                and abs(o.baseline - word.baseline) <= typical / 2
                for o in other
            )
            for other in others
        )

    out: list[Word] = []
    for w in first:
        faint = w.confidence < _OCR_MIN_CONFIDENCE
        unsure = faint or (
            is_number(w.text)
            and (w.confidence < _OCR_MIN_NUMBER_CONFIDENCE or w in only_later or not agreed(w))
        )
        dropped += unsure
        size = w.size if w.size >= _OCR_HEADING * typical else typical
        top = w.baseline - typical
        out.append(Word(w.text, w.x0, w.x1, top, w.baseline, size, unsure, faint))
    return out, dropped


def _template(text: str) -> str:
    return re.sub(r"\d+", "#", text)


def read_pdf(
    path: Path,
    currency: str = "US$",
    ocr: bool = False,
    year_end: str | None = None,
    fiscal_year: int | None = None,
    resolve: Callable[[Identity], ReadContext] | None = None,
) -> PdfRead:
    """The prose and tables of a PDF report, cited to their printed pages.

    `currency` is the reporting currency, read into a bare "$'m" column unit; `year_end`
    ("06-30") dates a column printed as a year alone and names the fiscal year of an
    interim column (None: read from the tables' own captions); `fiscal_year`, the report's
    own, keeps a number that is no period's ("NSW 2000") out of the headers. With `ocr`,
    a page without usable text is read by tesseract (`ocr_words`). With `resolve`, who
    and when the report is of is read from its first pages (`ingestion.identity`) before
    its tables, and `resolve` turns that into what the tables are read with (the three
    arguments above are then not used). Raises PdfError when the file is not a PDF, is
    encrypted, or cannot be parsed.
    """
    # long: the file checked, opened and read, each of its failures said in its own words.
    import pypdfium2 as pdfium

    head = path.read_bytes()[:1024]
    if not head.strip():
        raise PdfError("empty file")
    if b"%PDF-" not in head:
        kind = "an image" if head[:4] in (b"\x89PNG", b"\xff\xd8\xff\xe0", b"GIF8") else "text"
        raise PdfError(f"not a PDF (it holds {kind}; a renamed file?)")
    try:
        pdf = pdfium.PdfDocument(path)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise PdfError("encrypted (a password is needed to read it)") from exc
        raise PdfError(f"cannot be parsed ({str(exc)[:80]})") from exc
    try:
        # Filled form fields are drawn into a page rendered for OCR.
        pdf.init_forms()
        raw_pages = [(page, _words(page)) for page in pdf]
        identity = None
        if resolve is not None:
            identity = read_identity([_page_text(words) for _, words in raw_pages[:6]])
            ctx = resolve(identity)
        else:
            ctx = ReadContext(currency, year_end, fiscal_year)
        read = _read(raw_pages, ctx, ocr_words if ocr else None)
        read.identity = identity
        return read
    except pdfium.PdfiumError as exc:
        raise PdfError(f"cannot be parsed ({str(exc)[:80]})") from exc
    finally:
        pdf.close()


def _page_text(words: list[Word]) -> str:
    """A page's text, a line to a line (what its identity is read from)."""
    return "\n".join(line.text for line in lines_of(words))


def _banded(page: Any, words: list[Word]) -> tuple[list[Line], list[Line]]:
    """A page's lines in its header and footer bands, and the rest. A page number set
    alone as the lowest (or highest) line of the page is in the band wherever it sits (a
    10-K prints it under its text, well above the page's foot)."""
    lines = lines_of(words)
    height = float(page.get_height())
    band = [ln for ln in lines if ln.bottom < _BAND * height or ln.top > (1 - _BAND) * height]
    body = [ln for ln in lines if ln not in band]
    for edge in (body[-1:], body[:1]):
        if edge and _bare_number(edge[0]) and len(body) > 1:
            band.append(edge[0])
            body.remove(edge[0])
    return band, body


@dataclass
class _OcrPage:
    """A page without usable text, as OCR read it."""

    problem: str
    band: list[Line]
    body: list[Line]
    unsure: int
    failed: str | None = None  # why it was not read (tesseract missing)


def _read(
    raw_pages: list[tuple[Any, list[Word]]],
    ctx: ReadContext,
    ocr: Callable[[Any], tuple[list[Word], int]] | None = None,
) -> PdfRead:
    # long: one pass over the PDF's pages; each page's cases share its state.
    out = PdfRead(pages=len(raw_pages))
    if not raw_pages:
        raise PdfError("not a readable PDF (no pages)")
    banded = [_banded(page, words) for page, words in raw_pages]  # (band, body) per page
    # A band line on many pages (digits aside) is a running header or footer.
    seen = Counter(t for band, _ in banded for t in {_template(ln.text) for ln in band})
    running = {t for t, n in seen.items() if n >= max(3, len(raw_pages) // 4)}
    problems = _problem_pages(raw_pages, banded, running)
    read = {i: _ocr_page(raw_pages[i - 1][0], ocr, p) for i, p in problems.items()}
    # The running lines again with the pages read by OCR (a scanned report has them only
    # there).
    seen.update(t for r in read.values() if r for t in {_template(ln.text) for ln in r.band})
    running = {t for t, n in seen.items() if n >= max(3, len(raw_pages) // 4)}
    for band, body in [*banded, *((r.band, r.body) for r in read.values() if r)]:
        body += [ln for ln in band if _kept(ln, running)]
        body.sort(key=lambda ln: ln.top)
    offsets = _page_offsets(banded, read)
    section = ""
    carry: Table | None = None  # a table still open at the end of the last page
    for index, ((page, _), (band, body)) in enumerate(zip(raw_pages, banded, strict=True), 1):
        if index in problems:
            ocr_read = read[index]
            if ocr_read is None or ocr_read.failed:
                carry = None  # a table is not carried over a page not read
                why = f" ({ocr_read.failed})" if ocr_read and ocr_read.failed else ""
                out.problems.append(f"page {index}: {problems[index]}; not indexed{why}")
                continue
            # Columns are neither carried into nor out of a page read by OCR: a misread
            # header there would otherwise be read as a row of the last page's table.
            blocks, section, _ = _page_blocks(
                ocr_read.body, index + offsets, section, None, float(page.get_width()), ctx, True
            )
            carry = None
            out.problems.append(f"page {index}: {problems[index]}; {_ocr_note(ocr_read, blocks)}")
            out.blocks += [
                Block(b.page, f"{b.section} (page read by OCR)".lstrip(), b.text, b.is_table)
                for b in blocks
            ]
            continue
        blocks, section, carry = _page_blocks(
            body, _printed_number(band) or index, section, carry, float(page.get_width()), ctx
        )
        out.blocks.extend(blocks)
    return out


def _problem_pages(
    raw_pages: list[tuple[Any, list[Word]]],
    banded: list[tuple[list[Line], list[Line]]],
    running: set[str],
) -> dict[int, str]:
    """Why each page whose text cannot be used cannot, by its number (from 1). Judged on
    the page's own text: a scanned page still carries the running header."""
    problems: dict[int, str] = {}
    for index, ((page, _), (band, body)) in enumerate(zip(raw_pages, banded, strict=True), 1):
        own = [w for ln in body + band for w in ln.words if ln in body or _kept(ln, running)]
        if problem := _text_problem(page, own):
            problems[index] = problem
    return problems


def _kept(line: Line, running: set[str]) -> bool:
    """Whether a line of a page's header or footer band is text: not a running header or
    footer, not the page number."""
    return _template(line.text) not in running and not _bare_number(line)


def _ocr_page(
    page: Any, ocr: Callable[[Any], tuple[list[Word], int]] | None, problem: str
) -> _OcrPage | None:
    """The page as OCR reads it (None with OCR off)."""
    if ocr is None:
        return None
    import pytesseract

    try:
        words, unsure = ocr(page)
    except OcrUnavailable as exc:
        return _OcrPage(problem, [], [], 0, failed=str(exc))
    except (pytesseract.TesseractError, ET.ParseError, RuntimeError, ValueError) as exc:
        # Tesseract failed (its language data missing, a crash), its output did not
        # parse, or the page would not render: this page is not read, the file still is.
        why = f"OCR failed: {exc.__class__.__name__}: {str(exc)[:80]}"
        return _OcrPage(problem, [], [], 0, failed=why)
    band, body = _banded(page, words)
    return _OcrPage(problem, band, body, unsure)


def _page_offsets(
    banded: list[tuple[list[Line], list[Line]]], read: dict[int, "_OcrPage | None"]
) -> int:
    """The commonest offset of the printed page numbers from the PDF index: what a page
    read by OCR is cited as (index + offset), since OCR misreads or misses a small page
    number more often than a report skips one. Of a page read by OCR only a number
    standing alone in a band counts (a statement row running into the band ends in a
    number too)."""
    offsets: Counter[int] = Counter()
    for index, (band, _) in enumerate(banded, 1):
        if (ocr_read := read.get(index)) is not None:
            own = next((ln for ln in ocr_read.band if _bare_number(ln)), None)
            printed = int(re.sub(r"\D", "", own.text)) if own is not None else None
        else:
            printed = _printed_number(band)
        if printed is not None:
            offsets[printed - index] += 1
    return offsets.most_common(1)[0][0] if offsets else 0


def _ocr_note(page: _OcrPage, blocks: list[Block]) -> str:
    """What became of a page read by OCR, for the file's report."""
    if not blocks:
        return "OCR found no text; not indexed"
    words = sum(len(ln.words) for ln in page.body)
    doubt = f", {page.unsure} too unsure to take as read" if page.unsure else ""
    return f"read by OCR ({words} words{doubt})"


def _bare_number(line: Line) -> bool:
    return bool(re.fullmatch(r"(?:page\s+)?\d{1,4}", line.text.strip(), re.IGNORECASE))


def _printed_number(band: list[Line]) -> int | None:
    """The page number printed in the header or footer band: a number standing alone
    ("57", "Page 57") or at either end of a band line ("Annual Report 2024 | 57")."""
    for line in sorted(band, key=lambda ln: -ln.top):  # footers first
        if _bare_number(line):
            return int(re.sub(r"\D", "", line.text))
        for word in (line.words[-1], line.words[0]):
            if re.fullmatch(r"\d{1,3}", word.text):
                return int(word.text)
    return None


_GUTTER = 1.2
"""The narrowest gutter between two columns of prose, in the body's font size (a space
between words is about a quarter of it)."""


def _halves(line: Line, mid: float, least: int) -> tuple[Line, Line] | None:
    """A line's two columns' parts, split at the page's middle, or None when it is one
    column's: a word crosses the middle, fewer than `least` words sit either side, the
    right holds numbers (a table row), or the gap at the middle is a space between words,
    not a gutter (one line of full-width prose may have no word across the middle by
    chance: an earnings release's bullets were read as two columns and their figures
    lost their "Fourth-Quarter")."""
    left = [w for w in line.words if w.x1 <= mid]
    right = [w for w in line.words if w.x0 >= mid]
    if len(left) + len(right) != len(line.words):
        return None
    if len(left) < least or len(right) < least:
        return None
    if least and sum(not is_number(w.text) for w in right) < least:
        return None
    if left and right:
        size = statistics.median(w.size for w in line.words)
        if min(w.x0 for w in right) - max(w.x1 for w in left) < _GUTTER * size:
            return None
    return Line(left), Line(right)


def _two_column(lines: list[Line], width: float) -> list[Line]:
    """Lines of two-column prose split at the gutter, the left column first, in runs."""
    mid = width / 2

    out: list[Line] = []
    run: list[tuple[Line, Line]] = []

    def flush() -> None:
        out.extend(left for left, _ in run)
        out.extend(right for _, right in run if right.words)
        run.clear()

    for line in lines:
        # Three words each side open a run of two-column lines; within one, a line with
        # anything either side of the gutter (a column's short last line) stays in it.
        split = _halves(line, mid, 0 if run else 3)
        if split is not None:
            run.append(split)
        else:
            flush()
            out.append(line)
    flush()
    return [ln for ln in out if ln.words]


def _table_section(title: str, section: str) -> str:
    """A table's section: its own title, under the note it belongs to when that heading
    says more ("Note 36. Parent entity information · Statement of financial position")."""
    if not title:
        return section
    if section and section != title and re.match(r"(?:note\s+)?\d+[.:\s]", section, re.I):
        return f"{section} · {title}"
    return title


def _page_blocks(
    lines: list[Line],
    page: int,
    section: str,
    carry: Table | None,
    width: float,
    ctx: ReadContext,
    ocr: bool = False,
) -> tuple[list[Block], str, Table | None]:
    """A page's paragraphs and tables in reading order, the section it ends in, and a
    table that may go on over the page; `ocr` for a page read by OCR (its text sizes are
    estimates, and some of its words are faint)."""
    lines = [ln for ln in lines if not all(w.faint for w in ln.words)]
    if not lines:
        return [], section, carry
    # The body's size by words, not lines: a short page's heading is one line of two.
    body_size = statistics.median(w.size for ln in lines for w in ln.words)
    tables, open_table = find_tables(lines, ctx, None if ocr else carry, ocr)
    starts = {t.lines[0]: t for t in tables}
    taken = {i for t in tables for i in t.lines}
    out = _PageWriter(page, section, body_size, ocr)
    run: list[Line] = []
    for i, line in enumerate(lines):
        if i in starts:
            out.text(_two_column(run, width))
            run = []
            out.table(starts[i])
        if i not in taken:
            run.append(line)
    out.text(_two_column(run, width))
    out.end_paragraph()
    return out.blocks, out.section, open_table


@dataclass
class _PageWriter:
    """A page's blocks as they are written, in reading order, and the section its text
    has reached."""

    page: int
    section: str
    body_size: float
    ocr: bool
    blocks: list[Block] = field(default_factory=list)
    prose: list[str] = field(default_factory=list)
    """The paragraph being written, a line of text to an item."""

    def end_paragraph(self) -> None:
        if self.prose:
            self.blocks.append(Block(self.page, self.section, " ".join(self.prose), False))
            self.prose.clear()

    def text(self, ordered: list[Line]) -> None:
        """Lines of text in reading order: a heading opens a section, a gap wider than a
        line a paragraph."""
        for k, line in enumerate(ordered):
            text = line.reading
            if self._heading(line, ordered) and not text.endswith("."):
                self.end_paragraph()
                self.section = text
                continue
            before = ordered[k - 1] if k else None
            if self.prose and before is not None and line.top - before.bottom > 1.2 * line.size:
                self.end_paragraph()
            self.prose.append(text)

    def _heading(self, line: Line, ordered: list[Line]) -> bool:
        """A short line in larger type than the body's, or all in bold among lines that
        are not."""
        text = line.reading
        larger = line.size >= (1.35 if self.ocr else 1.2) * self.body_size
        heavy = all(w.bold for w in line.words) and not all(
            w.bold for ln in ordered for w in ln.words
        )
        return (
            (larger or heavy)
            and len(text.split()) <= 12
            and text[:1].isupper() | text[:1].isdigit()
        )

    def table(self, table: Table) -> None:
        """A table, a Markdown block per unit, under its own title and section."""
        self.end_paragraph()
        title = _table_section(table.title, self.section)
        if re.search(r"\bparent\b", title, re.IGNORECASE):
            table.of_parent()  # a note of the parent entity's figures alone
        for text in table.markdown():
            self.blocks.append(Block(self.page, title, text, True))
