"""Which text PostgreSQL can store: the one rule the API, the workflow and the save share.

PostgreSQL `text`/`jsonb` reject NUL, and UTF-8 cannot encode a lone surrogate (JSON
`"\\ud800"` decodes to one). Nothing else in valid Unicode is refused, so the rule is
these two classes; no library states exactly "storable by PostgreSQL", hence our own.
Also: taking a sentence out of a text whatever its spacing (the refuted-figure and
injected-instruction removals share it).
"""

import re

REPLACEMENT = "\ufffd"


def unstorable(text: str) -> str | None:
    """Name the first character class PostgreSQL cannot store, or None when all is fine."""
    for ch in text:
        code = ord(ch)
        if code == 0:
            return "a NUL character (\\u0000)"
        if 0xD800 <= code <= 0xDFFF:
            return f"a lone surrogate (\\u{code:04x})"
    return None


def storable(text: str) -> str:
    """Replace every character PostgreSQL cannot store with U+FFFD."""
    if unstorable(text) is None:
        return text
    return "".join(
        REPLACEMENT if ord(ch) == 0 or 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in text
    )


def blank(text: str, start: int, end: int) -> str:
    """`text` with `start:end` replaced by spaces: the same length, so positions hold."""
    return text[:start] + " " * (end - start) + text[end:]


def without_sentence(text: str, sentence: str) -> tuple[str, bool]:
    """`text` with `sentence` taken out, found word for word whatever the spaces and line
    breaks between its words (`split_sentences` joins them with one space); and whether
    it was there."""
    words = sentence.split()
    if not words:
        return text, False
    pattern = r"\s+".join(re.escape(word) for word in words)
    out, n = re.subn(pattern, " ", text, count=1)
    return out, bool(n)
