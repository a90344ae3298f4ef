"""A real report whose text layer is nonsense on some pages, as a font with a wrong
character map prints it.

A PDF's fonts carry a ToUnicode map from the glyphs drawn to the characters they are;
when the map is wrong (a broken subsetting tool, a font with no map and a custom
encoding), the page looks right and its text layer reads "Wkh Jurxs uhsruwhg". `garble`
makes that failure on chosen pages of a real report: the fonts of those pages get a copy
of their map with every letter shifted along the alphabet, so the same glyphs now read as
other letters. pikepdf (qpdf) edits the file; nothing of ours reads it.
"""

import re
import string
from pathlib import Path

import pikepdf

_SHIFT = 3
_LOW = string.ascii_lowercase
_UP = string.ascii_uppercase


def _shifted(code: str) -> str:
    """A Unicode hex code (4 digits) with its letter moved `_SHIFT` along."""
    ch = chr(int(code, 16))
    for alphabet in (_LOW, _UP):
        if ch in alphabet:
            ch = alphabet[(alphabet.index(ch) + _SHIFT) % 26]
    return f"{ord(ch):04X}"


def _garbled_map(data: bytes) -> bytes:
    """A ToUnicode CMap with each character it maps to shifted (single characters of
    bfchar entries and the starts of bfrange entries)."""
    text = data.decode("latin-1")

    def char(match: re.Match[str]) -> str:
        return f"{match.group(1)}<{_shifted(match.group(2))}>"

    # "<0041> <0044>" in bfchar blocks, "<0041> <005A> <0044>" in bfrange blocks: the last
    # code of each entry is the character.
    text = re.sub(r"(<[0-9A-Fa-f]+>\s*(?:<[0-9A-Fa-f]+>\s*)?)<([0-9A-Fa-f]{4})>", char, text)
    return text.encode("latin-1")


def _new_map() -> bytes:
    """A ToUnicode CMap for a simple font (one-byte codes read as Latin text) that reads
    each letter as the one `_SHIFT` along."""
    entries = "\n".join(f"<{c:02X}> <{_shifted(f'{c:04X}')}>" for c in range(0x20, 0x7F))
    return (
        "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n"
        "/CMapName /Garbled def /CMapType 2 def\n"
        "1 begincodespacerange <00> <FF> endcodespacerange\n"
        f"95 beginbfchar\n{entries}\nendbfchar\n"
        "endcmap CMapName currentdict /CMap defineresource pop end end\n"
    ).encode("latin-1")


def garble(source: Path, target: Path, pages: set[int]) -> None:
    """Write `source` to `target` with the text layer of `pages` (1-based PDF pages)
    turned to nonsense; the other pages read as before."""
    with pikepdf.open(source) as pdf:
        copies: dict[tuple[int, int], pikepdf.Object] = {}
        for number in sorted(pages):
            page = pdf.pages[number - 1]
            fonts = page.obj.get("/Resources", {}).get("/Font", {})
            for name in list(fonts.keys()):
                font = fonts[name]
                key = font.objgen
                if key not in copies:
                    clone = pikepdf.Dictionary(font)
                    if "/ToUnicode" in font:
                        data = _garbled_map(font["/ToUnicode"].read_bytes())
                    else:  # a simple font read through its encoding: give it a wrong map
                        data = _new_map()
                    clone["/ToUnicode"] = pikepdf.Stream(pdf, data)
                    copies[key] = pdf.make_indirect(clone)
                fonts[name] = copies[key]
        pdf.save(target)
