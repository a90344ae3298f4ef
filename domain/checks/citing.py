"""Which lines of a cited passage carry the figures an answer cites to it.

Pure and deterministic. The page shows a citation's passage with the cited table row
highlighted; the answer says which figure it took from source [n] ("US$55,658 million
[1]", or "US$55.658 billion [1]" in a comparison), so the row is the one whose cells hold
that figure. Figures are compared by their significant digits, so a unit change
(millions to billions) still finds its row; years are never figures here (every header
row names one).
"""

import re

_MARKER = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?")
_YEAR = re.compile(r"(?:19|20)\d\d")
_CLAUSE_END = re.compile(r"(?:[.;:!?](?:\s|$)|\n|\|)")


def _digits(number: str) -> str:
    """A number's digits without separators: "55,658" and "55.658" are both "55658".

    Trailing zeros are kept: "29.0" must not match "2,900". A figure restated with
    fewer digits ("55.7 billion") therefore finds no row; no row is better than a
    wrong one.
    """
    return re.sub(r"\D", "", number).lstrip("0")


def _figures(text: str) -> set[str]:
    """The figures in `text`: not years, not percentages (those are worked out, not
    quoted), not single digits."""
    return {
        d
        for m in _NUMBER.finditer(text)
        if not _YEAR.fullmatch(m.group())
        and text[m.end() : m.end() + 1] != "%"
        and len(d := _digits(m.group())) >= 2
    }


def cited_figures(answer: str, n: int) -> set[str]:
    """The figures written just before each marker that names source `n`."""
    found: set[str] = set()
    start = 0
    clause = ""
    for marker in _MARKER.finditer(answer):
        numbers = {int(part) for part in marker.group(1).split(",")}
        # The clause the marker closes, from the last clause end before it; a full stop
        # just before the marker ("million.[1]") ends nothing, and a marker right after
        # another ("[1][2]") shares its clause.
        before = answer[start : marker.start()].rstrip().rstrip(".;:")
        if before.strip():
            ends = list(_CLAUSE_END.finditer(before))
            clause = before[ends[-1].end() :] if ends else before
        if n in numbers:
            found |= _figures(clause)
        start = marker.end()
    return found


def cited_lines(answer: str, n: int, passage: str) -> list[int]:
    """The indexes of `passage`'s lines that hold a figure the answer cites to source n.

    Only table rows (lines starting with "|") are candidates: prose is shown whole.
    """
    figures = cited_figures(answer, n)
    if not figures:
        return []
    return [
        i
        for i, line in enumerate(passage.splitlines())
        if line.lstrip().startswith("|") and figures & _figures(line)
    ]
