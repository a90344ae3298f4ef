"""The words PDFium reads (`ingestion.glyphs`) are the words pdfplumber read, on real reports.

The statement reader's rules were developed on pdfplumber's words and boxes; the words now
come from PDFium, grouped by pdfplumber's rules. Judged against pdfplumber itself (the
reference, still installed) on a real report nobody here wrote, word by word: its text
and its box to the nearest point. Where they differ, PDFium is the one that is right in
what was looked at (it splits "belief,during" where the PDF draws a space, and reads a
letter overprinted to look bold once, "RECTIFIER" for "RRECTIFIERR").
"""

from collections import Counter
from pathlib import Path
from typing import Any

import pdfplumber
import pikepdf
import pypdfium2 as pdfium
import pytest

from ingestion.glyphs import page_chars, words_of

HERE = Path(__file__).resolve().parent / "asx"
REPORT = HERE / "ASX-BHD_BenjaminHornigold_AnnualReport_FY2022.pdf"


def _plumber_words(page: Any) -> Counter[tuple[str, int, int, int]]:
    upright = page.filter(lambda o: o.get("object_type") != "char" or o.get("upright", True))
    return Counter(
        (w["text"], round(w["x0"]), round(w["top"]), round(w["bottom"]))
        for w in upright.extract_words(extra_attrs=["size", "fontname"])
    )


def _pdfium_words(page: Any) -> Counter[tuple[str, int, int, int]]:
    return Counter(
        (w.text, round(w.x0), round(w.top), round(w.bottom))
        for w in words_of([ch for ch in page_chars(page) if ch.upright])
    )


def test_a_real_reports_words_and_boxes_are_pdfplumbers() -> None:
    doc = pdfium.PdfDocument(REPORT)
    same = total = 0
    with pdfplumber.open(REPORT) as reference:
        for index, page in enumerate(reference.pages):
            theirs, ours = _plumber_words(page), _pdfium_words(doc[index])
            same += sum((theirs & ours).values())
            total += sum(theirs.values())
    assert total > 10_000
    # Measured 99.1% (the rest: spaces PDFium sees that pdfminer did not).
    assert same / total >= 0.985


@pytest.mark.parametrize("rotation", [90, 270])
def test_a_page_turned_by_rotate_is_read_as_shown(tmp_path: Path, rotation: int) -> None:
    """/Rotate turns a page as shown, its text with it: an upright page turned a quarter
    shows its text sideways, as pdfplumber read it (no upright word), inside the turned
    page's box; turned back (a landscape statement set sideways, /Rotate making it
    upright) is the other half of the same rule."""
    turned = tmp_path / "turned.pdf"
    with pikepdf.open(REPORT) as pdf:
        keep = pdf.pages[30]
        del pdf.pages[:]
        pdf.pages.append(keep)
        pdf.pages[0].Rotate = rotation
        pdf.save(turned)
    with pdfplumber.open(turned) as reference:
        assert not _plumber_words(reference.pages[0])
    page = pdfium.PdfDocument(turned)[0]
    chars = page_chars(page)
    assert len(chars) > 100 and not any(ch.upright for ch in chars)
    assert page.get_width() == pdfium.PdfDocument(REPORT)[30].get_height()
    assert all(0 <= ch.x0 <= ch.x1 <= page.get_width() + 1 for ch in chars)
    assert all(-1 <= ch.bottom <= page.get_height() + 1 for ch in chars)


def test_a_glyph_without_a_character_is_marked_unmapped(tmp_path: Path) -> None:
    """A font with no character map: its glyphs are marked, not read as letters
    (`ingestion.pdf` reports such a page as garbled)."""
    from testkit.reportgen import write_report

    path = tmp_path / "r.pdf"
    written = write_report(path, "Quoll Creek Gold", 2022, pages=8, unit="$'000")
    (garbled,) = written.garbled_pdf_pages
    doc = pdfium.PdfDocument(path)
    text = "".join(ch.text for ch in page_chars(doc[garbled - 1]))
    clean = "".join(ch.text for ch in page_chars(doc[garbled]))
    assert "Fixed pay" not in text and "\ufffd" in text
    assert "\ufffd" not in clean
