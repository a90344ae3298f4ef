"""Short forms people type, read as the words they stand for ("fortescue rev fy24 pls"
is "fortescue revenue fy24").

The short forms are data (`short_forms.tsv`, one small table beside the synonyms), not
branches of code: a word added there is read everywhere a question is. Only whole words
are read, in any case; a courtesy ("pls", "thx") is dropped, since a reader looking for
a measure in what is left would take it for one.
"""

import re
from functools import lru_cache
from pathlib import Path

_TABLE = Path(__file__).with_name("short_forms.tsv")


@lru_cache(maxsize=1)
def short_forms() -> dict[str, str]:
    """Each short form (lower case) and the words it stands for ("" for a courtesy)."""
    table: dict[str, str] = {}
    for line in _TABLE.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        short, _, words = line.partition("\t")
        table[short.strip().lower()] = words.strip()
    return table


@lru_cache(maxsize=1)
def _pattern() -> re.Pattern[str]:
    forms = sorted(short_forms(), key=len, reverse=True)
    alternatives = "|".join(re.escape(f) for f in forms)
    return re.compile(rf"(?<![\w/'’-])(?:{alternatives})(?![\w/'’-])", re.IGNORECASE)


def has_short_forms(text: str) -> bool:
    return _pattern().search(text) is not None


def expand_short_forms(text: str) -> str:
    """`text` with each short form written out and each courtesy dropped (unchanged when
    it holds none); spacing and punctuation around them kept tidy."""
    if not has_short_forms(text):
        return text
    out = _pattern().sub(lambda m: short_forms()[m.group(0).lower()], text)
    out = re.sub(r"[ \t]{2,}", " ", out)
    out = re.sub(r"\s+([?.!,])", r"\1", out)
    out = re.sub(r"^[\s?.!,;:]+", "", out).strip(" ,")
    # A question that was only a courtesy is left as written (a greeting, not a blank).
    return out if re.search(r"\w", out) else text
