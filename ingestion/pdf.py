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

import re
import statistics
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_BAND = 0.08
"""The share of a page's height at its top and bottom where headers and footers sit."""
_PERIOD = re.compile(r"^(?:FY)?((?:19|20)\d{2})$")
_NUMBER = re.compile(r"^\(?-?\$?\d[\d,]*(?:\.\d+)?\)?%?$|^[–—-]$")
# Either case: OCR reads a note's "C2" as "c2" (a note reference is only taken at the
# note column, where no label word sits).
_NOTE_REF = re.compile(r"^[A-Z]?\d{1,2}(?:\.\d{1,2})?(?:\([a-z]{1,3}\))?$", re.IGNORECASE)
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
    unsure: bool = False
    """Read by OCR with too little confidence to be taken as a figure: a value cell it
    sits in is left blank, a row whose label holds it loses its values, a header with it
    sets no columns, and prose shows it as "[illegible]"."""
    faint: bool = False
    """Read by OCR with too little confidence to be text at all (also `unsure`): left out
    of prose, but kept in its line, so a row it was part of loses its values rather than
    keeping them under a shorter label ("Segment revenue" for "Segment 14 revenue")."""


@dataclass
class _Line:
    words: list[_Word]

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)

    @property
    def reading(self) -> str:
        """The line as prose: an unsure number is not passed on as a figure, and a faint
        word not at all."""
        return " ".join(
            "[illegible]" if w.unsure and _is_number(w.text) else w.text
            for w in self.words
            if not w.faint
        )

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
    """Pages whose text layer could not be used, each with why and what became of it
    ("page 5: no text layer (a scanned or drawn page); not indexed", or "...; read by
    OCR")."""
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

    image = page.to_image(resolution=dpi).original
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
        if box is None or line.get("class") not in (
            "ocr_line", "ocr_header", "ocr_caption", "ocr_textfloat"
        ):  # fmt: skip
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
            if _is_number(mended := re.sub(r"\}$", ")", re.sub(r"^\{", "(", text))):
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


def ocr_words(page: Any) -> tuple[list[_Word], int]:
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
                o.text == word.text and o.x0 <= middle <= o.x1
                and abs(o.baseline - word.baseline) <= typical / 2
                for o in other
            )
            for other in others
        )  # fmt: skip

    out: list[_Word] = []
    for w in first:
        faint = w.confidence < _OCR_MIN_CONFIDENCE
        unsure = faint or (
            _is_number(w.text)
            and (w.confidence < _OCR_MIN_NUMBER_CONFIDENCE or w in only_later or not agreed(w))
        )
        dropped += unsure
        size = w.size if w.size >= _OCR_HEADING * typical else typical
        top = w.baseline - typical
        out.append(_Word(w.text, w.x0, w.x1, top, w.baseline, size, unsure, faint))
    return out, dropped


def _template(text: str) -> str:
    return re.sub(r"\d+", "#", text)


def read_pdf(path: Path, currency: str = "US$", ocr: bool = False) -> PdfRead:
    """The prose and tables of a PDF report, cited to their printed pages.

    `currency` is the reporting currency, read into a bare "$'m" column unit. With `ocr`,
    a page without usable text is read by tesseract (`ocr_words`). Raises PdfError when
    the file is not a PDF, is encrypted, or cannot be parsed.
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
            return _read(raw_pages, currency, ocr_words if ocr else None)
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


def _banded(page: Any, words: list[_Word]) -> tuple[list[_Line], list[_Line]]:
    """A page's lines in its header and footer bands, and the rest."""
    lines = _lines(words)
    height = float(page.height)
    band = [ln for ln in lines if ln.bottom < _BAND * height or ln.top > (1 - _BAND) * height]
    return band, [ln for ln in lines if ln not in band]


@dataclass
class _OcrPage:
    """A page without usable text, as OCR read it."""

    problem: str
    band: list[_Line]
    body: list[_Line]
    unsure: int
    failed: str | None = None  # why it was not read (tesseract missing)


def _read(
    raw_pages: list[tuple[Any, list[_Word]]],
    currency: str,
    ocr: Callable[[Any], tuple[list[_Word], int]] | None = None,
) -> PdfRead:
    # long: one pass over the PDF's pages; each page's cases share its state.
    out = PdfRead(pages=len(raw_pages))
    if not raw_pages:
        raise PdfError("not a readable PDF (no pages)")
    banded = [_banded(page, words) for page, words in raw_pages]  # (band, body) per page
    # A band line on many pages (digits aside) is a running header or footer.
    seen = Counter(t for band, _ in banded for t in {_template(ln.text) for ln in band})
    running = {t for t, n in seen.items() if n >= max(3, len(raw_pages) // 4)}
    problems = {
        index: problem
        for index, ((page, _), (band, body)) in enumerate(zip(raw_pages, banded, strict=True), 1)
        # Judged on the page's own text: a scanned page still carries the running header.
        if (problem := _text_problem(page, [w for ln in body + band for w in ln.words
                                            if ln in body or _kept(ln, running)]))
    }  # fmt: skip
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
    columns: _Columns | None = None  # a table still open at the end of the last page
    for index, ((page, _), (band, body)) in enumerate(zip(raw_pages, banded, strict=True), 1):
        if index in problems:
            ocr_read = read[index]
            if ocr_read is None or ocr_read.failed:
                columns = None  # a table is not carried over a page not read
                why = f" ({ocr_read.failed})" if ocr_read and ocr_read.failed else ""
                out.problems.append(f"page {index}: {problems[index]}; not indexed{why}")
                continue
            # Columns are neither carried into nor out of a page read by OCR: a misread
            # header there would otherwise be read as a row of the last page's table.
            blocks, section, _ = _page_blocks(
                ocr_read.body, index + offsets, section, None, float(page.width), currency, True
            )
            columns = None
            out.problems.append(f"page {index}: {problems[index]}; {_ocr_note(ocr_read, blocks)}")
            out.blocks += [
                Block(b.page, f"{b.section} (page read by OCR)".lstrip(), b.text, b.is_table)
                for b in blocks
            ]  # fmt: skip
            continue
        blocks, section, columns = _page_blocks(
            body, _printed_number(band) or index, section, columns, float(page.width), currency
        )
        out.blocks.extend(blocks)
    return out


def _kept(line: _Line, running: set[str]) -> bool:
    """Whether a line of a page's header or footer band is text: not a running header or
    footer, not the page number."""
    return _template(line.text) not in running and not _bare_number(line)


def _ocr_page(
    page: Any, ocr: Callable[[Any], tuple[list[_Word], int]] | None, problem: str
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
    banded: list[tuple[list[_Line], list[_Line]]], read: dict[int, "_OcrPage | None"]
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
    if any(w.unsure for w in line.words):
        return None  # a period or a unit OCR is unsure of would file figures under it
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
    # long: one statement row's cells read column by column.
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
        values = ["" if w.unsure else w.text for w in trailing]
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
            values[nearest] = "" if word.unsure else word.text
    if not label:
        return None
    if not trailing and (len(words) > 8 or line.words[-1].x1 > columns.left):
        return None  # prose running across the columns, or a line of another layout
    if any(w.unsure for w in words):  # OCR unsure of a number in the label ("item 1")
        values = [""] * len(values)  # which line item the figures are is in doubt
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
    ocr: bool = False,
) -> tuple[list[Block], str, _Columns | None]:
    """A page's paragraphs and tables; `ocr` for a page read by OCR (its text sizes are
    estimates, and some of its words are faint)."""
    # long: one pass over a page's lines; paragraphs and tables share the line state.
    blocks: list[Block] = []
    if not lines:
        return blocks, section, columns
    # The body's size by words, not lines: a short page's heading is one line of two.
    body_size = statistics.median(w.size for ln in lines for w in ln.words)
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
        if all(w.faint for w in line.words):
            continue  # nothing OCR could read with any confidence: neither text nor a row
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
        if columns is not None:
            if not heading and (
                all(_UNIT.match(w.text) for w in line.words) or _CENTS.match(line.text)
            ):
                last_bottom = line.bottom
                continue  # the unit line under a header
            row = _row(line, columns)
            gap = last_bottom is not None and line.top - last_bottom > 3 * line.size
            # On a page read by OCR, a larger line is a heading unless it holds values
            # under the columns (a row whose size OCR overestimated).
            ends_in_numbers = ocr and _is_number(line.words[-1].text)  # sure or not
            kept_row = row is not None and not (gap and not any(row[2]))
            if row is not None and kept_row and (not heading or ends_in_numbers):
                rows.append(row)
                last_bottom = line.bottom
                continue
        flush_table()
        columns = None
        last_bottom = line.bottom
        text = line.reading
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
