"""Sentences and quotations in an answer or a passage: where one ends, and which
spans quote a cited passage word for word. Pure."""

import re

_QUOTED = re.compile(r'"([^"\n]+)"|\u201c([^\u201d\n]+)\u201d')

_ELLIPSIS = re.compile(r"\.\.\.|\u2026")

_QUOTE_MIN = 24

"""The shortest quoted piece that is taken as quoting a passage (characters): a short
one ("the "record" year") could be found verbatim anywhere."""


def _plain(text: str) -> str:
    """Text as compared for a verbatim quote: lower case, words and numbers only (a PDF's
    line breaks, curly quotes and dashes are not what a quote changes)."""
    return " ".join(re.sub(r"[^0-9a-z%.$]+", " ", text.lower().replace("-\n", "")).split())


def quoted_spans(text: str, cited: list[str]) -> list[tuple[int, int]]:
    """Where a sentence quotes a cited source word for word: the spans (start, end) of its
    quoted pieces found verbatim in one of the `cited` texts. A number inside such a span
    is the report's own, printed in the sentence quoted with the period and basis the
    report gives it ("SG&A expenses decreased to 23.5% compared to 23.9% in fiscal 2021");
    a quote that changes a word or a figure is no such span, and its numbers are checked
    as any other. Pieces either side of an ellipsis are each to be found verbatim."""
    plain = [_plain(c) for c in cited]
    spans: list[tuple[int, int]] = []
    for match in _QUOTED.finditer(text):
        group = 1 if match.group(1) is not None else 2
        start, inner = match.start(group), match.group(group)
        pieces, at = [], 0
        for gap in [*_ELLIPSIS.finditer(inner), None]:
            end = gap.start() if gap else len(inner)
            pieces.append((start + at, start + end, inner[at:end]))
            at = gap.end() if gap else len(inner)
        for lo, hi, piece in pieces:
            said = _plain(piece)
            if len(said) >= _QUOTE_MIN and any(said in source for source in plain):
                spans.append((lo, hi))
    return spans


def _open_quote(text: str) -> bool:
    """Whether `text` leaves a quotation open (straight or curly double quotes)."""
    return text.count('"') % 2 == 1 or text.count("\u201c") > text.count("\u201d")


def _within_quotes(pieces: list[str]) -> list[str]:
    """The pieces of one line with the sentences of one quotation kept together: a passage
    of two sentences quoted is one claim, cited once at its end. Joined only when the
    quotation closes on the same line."""
    out: list[str] = []
    at = 0
    while at < len(pieces):
        piece, end = pieces[at], at + 1
        if _open_quote(piece):
            joined = piece
            for later in range(at + 1, len(pieces)):
                joined = f"{joined} {pieces[later]}"
                if not _open_quote(joined):
                    piece, end = joined, later + 1
                    break
        out.append(piece)
        at = end
    return out


def split_sentences(text: str) -> list[str]:
    """Split text into sentences and lines; a marker after a full stop stays with its
    sentence. A bullet ("•") starts an item of its own, though a PDF's line ran the items
    of a list into one ("... EPS • Company secured $13.2 billion ...")."""
    sentences: list[str] = []
    for line in text.splitlines():
        pieces = _within_quotes(
            re.split(r"(?<=[.!?])\s+(?=[A-Z\[(\"'*•-])|\s+(?=•\s)", line.strip())
        )
        for piece in pieces:
            piece = re.sub(r"^•\s+", "", piece)
            lead = re.match(r"^(?:\[[\d,;\s–-]+\]\s*)+", piece)
            if lead and sentences:
                sentences[-1] = f"{sentences[-1]} {lead.group(0).strip()}"
                piece = piece[lead.end() :]
            if piece.strip():
                sentences.append(piece.strip())
    return sentences
