"""A PDF page as words with their boxes, grouped into lines and phrases.

The statement reader (`ingestion.statements`) and the prose reader (`ingestion.pdf`)
both work on these: a word's box says which column it sits in, a gap wider than a few
spaces between two words of a line says they belong to different cells.
"""

import re
import statistics
from dataclasses import dataclass, replace

from domain.language.units import MARK

NUMBER = re.compile(
    rf"^(?:[-–—−]?\(?[-–—−]?(?:{MARK})?\d(?:[\d,]*\d)?(?:\.\d+)?%?\)?%?|[-–—−]{{1,2}}|nil)$",
    re.IGNORECASE,
)
"""A table cell's number as printed: "1,234", "(1,234)", "-1,234", "$1,234", "12.5%",
a dash (nil) or "nil"."""
DASH = re.compile(r"^(?:[-–—−]{1,2}|nil)$", re.IGNORECASE)
CURRENCY_MARK = re.compile(rf"^(?:{MARK})$")
"""A currency sign standing alone before a number ("$  79,268" in a 10-K)."""
NOTE_REF = re.compile(
    r"^(?:[A-Z]?\d{1,2}(?:\.\d{1,2})?(?:\s?\([a-z]{1,3}\))?[a-z]?|[ivx]{1,4})$", re.I
)
"""A note reference in a statement's Note column: "5", "20(a)", "C1(c)", "3.2", "iv"."""


@dataclass(frozen=True)
class Word:
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
    bold: bool = False
    """Set in heavy type (a heading's, in many reports' notes)."""

    @property
    def middle(self) -> float:
        return (self.x0 + self.x1) / 2


@dataclass
class Line:
    words: list[Word]

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)

    @property
    def reading(self) -> str:
        """The line as prose: an unsure number is not passed on as a figure, and a faint
        word not at all."""
        return " ".join(
            "[illegible]" if w.unsure and is_number(w.text) else w.text
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
    def x0(self) -> float:
        return min(w.x0 for w in self.words)

    @property
    def x1(self) -> float:
        return max(w.x1 for w in self.words)

    @property
    def size(self) -> float:
        return statistics.median(w.size for w in self.words)


def is_number(text: str) -> bool:
    return bool(NUMBER.match(text))


def lines_of(words: list[Word]) -> list[Line]:
    """Words grouped into lines by their tops, each line's words left to right.

    A word joins the line above when its top is within a third of its height of the
    line's first word: a bracketed figure sits a point lower than its label, a footnote
    raised a little stays on its line, the next line down does not."""
    lines: list[Line] = []
    for word in sorted(words, key=lambda w: (round(w.top, 1), w.x0)):
        reach = max(2.5, 0.35 * (word.bottom - word.top))
        if lines and abs(lines[-1].words[0].top - word.top) <= reach:
            lines[-1].words.append(word)
        else:
            lines.append(Line([word]))
    for line in lines:
        line.words.sort(key=lambda w: w.x0)
        line.words = _cell_ends_joined(line.words)
    return lines


_CELL_END = re.compile(r"^(?:%\)?|\))$")


def _cell_ends_joined(words: list[Word]) -> list[Word]:
    """A "%" or a closing bracket set a space after its number ("(0.6) %", "(7.0 %)" in
    Boeing's 10-K, "(411 )" in Corning's) joined to it, so the cell reads "(0.6)%" or
    "(411)" and the row's figures are not taken for its label."""
    out: list[Word] = []
    for word in words:
        last = out[-1] if out else None
        if (
            last is not None
            and _CELL_END.match(word.text)
            and NUMBER.match(last.text + word.text)
            and word.x0 - last.x1 <= 0.9 * max(last.size, 1.0)  # within one cell (`phrases`)
        ):
            out[-1] = replace(last, text=last.text + word.text, x1=word.x1)
            continue
        out.append(word)
    return out


def phrases(line: Line, gap: float | None = None) -> list[list[Word]]:
    """A line's words in runs separated by more than `gap` points (a few spaces, by the
    line's type size when not given): the cells of a table row or header."""
    if not line.words:
        return []
    space = gap if gap is not None else 0.9 * line.size
    out: list[list[Word]] = [[line.words[0]]]
    for word in line.words[1:]:
        if word.x0 - out[-1][-1].x1 > space:
            out.append([word])
        else:
            out[-1].append(word)
    return out
