"""A PDF page's words with their boxes and type sizes, read by PDFium.

Why PDFium (pypdfium2, already installed as pdfplumber's renderer) rather than
pdfplumber's words, used before: pdfplumber reads a page through pdfminer.six, whose
content-stream parser is pure Python; on a 190-page 10-K it took 20 of the 22 seconds of
parsing (docs/benchmarks.md, "Reading a PDF's words"). PDFium parses in C and gives each
character's box, font size, font and matrix, which is all the readers here use. Grouping
characters into words is done here, with pdfplumber's rules (a new word at a space, at a
gap wider than `_X_TOLERANCE`, or where the font or size changes; a line is the
characters whose tops lie within `_Y_TOLERANCE`), so the boxes and words are those
pdfplumber gave (checked page by page on the real reports: tests/realdocs).

Coordinates are pdfplumber's: points from the page's top-left corner as the page is
shown (its /Rotate applied), a character's top its bottom less its type size.
"""

import ctypes
import itertools
import re
from dataclasses import dataclass
from typing import Any

from ingestion.layout import Word

_X_TOLERANCE = 3.0
_Y_TOLERANCE = 3.0
_SEPARATORS = frozenset(" \xa0\r\n\t")
_SOFT_HYPHEN = {"\x02": "-", "\xad": "-", "\ufffe": "-"}
"""What PDFium reads a hyphen at a line's end as (it marks one it takes as a soft
hyphen)."""
_BOLD = re.compile(r"bold|black|heavy|semibold|demi", re.IGNORECASE)
"""A font name of heavy type: a line set all in it is a heading ("Note 36. Parent entity")."""
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
"""A control character (a NUL of a broken font) is no text a person reads, and PostgreSQL
cannot store it."""
UNMAPPED = "\ufffd"
"""A glyph the font gives no character for (pdfminer wrote "(cid:12)")."""


@dataclass(slots=True)
class Char:
    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    size: float
    font: str
    upright: bool
    spaced: bool
    """A space (or PDFium's generated one) comes before it in the content stream."""
    order: int


def _ctm(rotation: int, box: tuple[float, float, float, float]) -> tuple[float, ...]:
    """The matrix from user space to the page as shown (pdfminer's, per /Rotate)."""
    x0, y0, x1, y1 = box
    return {
        90: (0.0, -1.0, 1.0, 0.0, -y0, x1),
        180: (-1.0, 0.0, 0.0, -1.0, x1, y1),
        270: (0.0, 1.0, -1.0, 0.0, y1, -x0),
    }.get(rotation, (1.0, 0.0, 0.0, 1.0, -x0, -y0))


def page_chars(page: Any) -> list[Char]:
    """The characters of a pypdfium2 page, in content-stream order."""
    text_page = _TextPage(page)
    chars: list[Char] = []
    spaced = False
    try:
        for i in range(text_page.count()):
            text = text_page.text(i)
            # PDFium's own characters (a space between words, a line's end) are all
            # separators.
            if text in _SEPARATORS:
                spaced = True
                continue
            char = text_page.char(i, text, spaced)
            if char is not None:
                chars.append(char)
                spaced = False
    finally:
        text_page.close()
    return chars


class _TextPage:
    """A pypdfium2 page's text read character by character through PDFium's C API, its
    out-parameters made once and reused (a page has tens of thousands of characters)."""

    def __init__(self, page: Any) -> None:
        import pypdfium2.raw as pdfium_c

        # PDFium reads a /MediaBox only from the page itself (crbug.com/pdfium/1786); one
        # inherited from the page tree is in the page's bounding box.
        box = tuple(float(v) for v in (page.get_mediabox(fallback_ok=False) or page.get_bbox()))
        rotation = page.get_rotation() % 360
        self.ctm = _ctm(rotation, box)  # type: ignore[arg-type]
        self.shown_height = (box[2] - box[0]) if rotation in (90, 270) else (box[3] - box[1])
        self.api = pdfium_c
        self.textpage = page.get_textpage()
        self.raw = self.textpage.raw
        self.rect = pdfium_c.FS_RECTF()
        self.matrix = pdfium_c.FS_MATRIX()
        self.rect_ref, self.matrix_ref = ctypes.byref(self.rect), ctypes.byref(self.matrix)
        self.name = ctypes.create_string_buffer(256)
        self.flags = ctypes.byref(ctypes.c_int())
        # What every character of one text object shares (its font, its size and the turn
        # of its matrix), read once per object: a page has a few hundred objects.
        self.shared: dict[int, tuple[str, float, float, float, float, float]] = {}

    def count(self) -> int:
        return int(self.api.FPDFText_CountChars(self.raw))

    def close(self) -> None:
        self.textpage.close()

    def text(self, i: int) -> str:
        """Character `i`'s text: UNMAPPED for a glyph without one, a soft hyphen as "-"."""
        code = self.api.FPDFText_GetUnicode(self.raw, i)
        text = chr(code) if code else UNMAPPED
        if text in _SEPARATORS:
            return text
        if self.api.FPDFText_HasUnicodeMapError(self.raw, i) == 1:
            text = UNMAPPED
        return _SOFT_HYPHEN.get(text, text)

    def char(self, i: int, text: str, spaced: bool) -> Char | None:
        """Character `i` with its box as the page is shown; None when it has no box."""
        if not self.api.FPDFText_GetLooseCharBox(self.raw, i, self.rect_ref):
            return None
        font, size, a, b, c, d = self._style(i)
        ca, cb, cc, cd, ce, cf = self.ctm
        rect = self.rect
        xa, xb = rect.left * ca + rect.bottom * cc + ce, rect.right * ca + rect.top * cc + ce
        ya = self.shown_height - (rect.left * cb + rect.bottom * cd + cf)
        yb = self.shown_height - (rect.right * cb + rect.top * cd + cf)
        # pdfminer's test (a*d > 0, b*c <= 0), and the matrix's: a glyph turned a
        # quarter with a signed zero passes the first.
        upright = a * d > 0 and b * c <= 0 and abs(a) >= abs(b) and abs(d) >= abs(c)
        bottom = max(ya, yb)
        x0, x1 = min(xa, xb), max(xa, xb)
        return Char(text, x0, x1, bottom - size, bottom, size, font, upright, spaced, i)

    def _style(self, i: int) -> tuple[str, float, float, float, float, float]:
        """Character `i`'s font, size and matrix as shown (its own, then the page's
        rotation), read once for its text object."""
        # A character of no text object (NULL: PDFium's own) is read on its own.
        owner = self.api.FPDFText_GetTextObject(self.raw, i)
        key = ctypes.addressof(owner.contents) if owner else -1 - i
        if (known := self.shared.get(key)) is not None:
            return known
        matrix = self.matrix
        self.api.FPDFText_GetMatrix(self.raw, i, self.matrix_ref)
        ca, cb, cc, cd, _, _ = self.ctm
        a = matrix.a * ca + matrix.b * cc
        b = matrix.a * cb + matrix.b * cd
        c = matrix.c * ca + matrix.d * cc
        d = matrix.c * cb + matrix.d * cd
        n = self.api.FPDFText_GetFontInfo(self.raw, i, self.name, len(self.name), self.flags)
        font = self.name.raw[: max(0, n - 1)].decode("utf-8", "replace")
        size = self.api.FPDFText_GetFontSize(self.raw, i) * (c * c + d * d) ** 0.5
        known = self.shared[key] = (font, size, a, b, c, d)
        return known


def _lines(run: list[Char]) -> list[list[Char]]:
    """A run's characters in lines: tops sorted, a line going on while each top is
    within `_Y_TOLERANCE` of the one before; each line left to right."""
    tops = sorted({ch.top for ch in run})
    line_of = {tops[0]: 0} if tops else {}
    for before, top in itertools.pairwise(tops):
        line_of[top] = line_of[before] + (top > before + _Y_TOLERANCE)
    lines: dict[int, list[Char]] = {}
    for ch in run:
        lines.setdefault(line_of[ch.top], []).append(ch)
    return [sorted(lines[k], key=lambda ch: (ch.x0, ch.x1)) for k in sorted(lines)]


def words_of(chars: list[Char]) -> list[Word]:
    """The characters as words, by pdfplumber's rules (see the module docstring): runs of
    one font and size in content-stream order, each run in lines, a line cut into words
    where a space comes between two characters, where the next begins left of the one
    before or more than `_X_TOLERANCE` after its end, or sits on another line. A word in
    a heavy font is bold; control characters are dropped (a word of only those with
    them)."""
    words: list[list[Char]] = []
    for _, run in itertools.groupby(chars, key=lambda ch: (ch.upright, ch.size, ch.font)):
        for line in _lines(list(run)):
            current: list[Char] = []
            for char in line:
                prev = current[-1] if current else None
                if prev is not None and (
                    (char.spaced and prev.order < char.order)
                    or char.x0 < prev.x0
                    or char.x0 > prev.x1 + _X_TOLERANCE
                    or abs(char.top - prev.top) > _Y_TOLERANCE
                ):
                    words.append(current)
                    current = []
                current.append(char)
            if current:
                words.append(current)
    return [
        Word(
            text,
            w[0].x0,
            w[-1].x1,
            min(ch.top for ch in w),
            max(ch.bottom for ch in w),
            w[0].size,
            bold=_BOLD.search(w[0].font) is not None,
        )
        for w in words
        if (text := _CONTROL.sub("", "".join(ch.text for ch in w)))
    ]


def has_drawing(page: Any) -> bool:
    """Whether a page draws anything besides text (an image, a path): a scan or a drawn
    page, when it has no text."""
    import pypdfium2.raw as pdfium_c

    kinds = (pdfium_c.FPDF_PAGEOBJ_IMAGE, pdfium_c.FPDF_PAGEOBJ_PATH, pdfium_c.FPDF_PAGEOBJ_FORM)
    return any(obj.type in kinds for obj in page.get_objects(max_depth=2))


def render(page: Any, dpi: int) -> Any:
    """The page as an RGB image at `dpi`, as pdfplumber rendered it (no smoothing)."""
    return (
        page.render(
            scale=dpi / 72,
            no_smoothtext=True,
            no_smoothpath=True,
            no_smoothimage=True,
            prefer_bgrx=True,
        )
        .to_pil()
        .convert("RGB")
    )
