"""Whether a model-written clarifying question may be shown to a person as it is.

Pure and deterministic. A clarifying question is shown with no citation, no numeric
check and no confidence, so it may carry nothing that would need them: no figure (in
digits or in words), no
claim about the answer's quality, no instruction to the reader or about the assistant's
instructions, no link. It asks; it does not tell. A question failing any of these is
replaced by the fixed clarification text, and the reason is recorded. Also: how many a
conversation may still ask (`clarifications_left`).
"""

import re

from domain.checks.injection import speaks_to_the_reader
from domain.language.amounts import claimed_amounts

MIN_CHARS, MAX_CHARS = 10, 400

# Words about instructions or verification: a clarifying question has no business with
# either, so its test is broader than an answer's (`domain/checks/injection.py`), which may
# quote a report's "audited" or "rules".
_INSTRUCTIONS = re.compile(
    r"\b(?:ignore|disregard|forget|override|bypass)\b.{0,40}\b(?:instructions?|rules?|prompts?|"
    r"guidelines|above|previous|prior|context)\b"
    r"|\b(?:fully|independently|officially)?\s*(?:verified|guaranteed|certified|audited)\b",
    re.IGNORECASE,
)
_LINK = re.compile(r"https?://|www\.|\]\(|<\s*a\s", re.IGNORECASE)
# A number that is not a year, a fiscal-year label ("FY2024", "2023") or part of a name
# ("South32") is a figure.
_NOT_FIGURES = re.compile(
    r"\b(?:FY|CY)\s?'?\d{2,4}\b|\b(?:19|20)\d{2}\b|\b[A-Za-z]+\d+[A-Za-z]*\b", re.IGNORECASE
)


def unshowable(text: str) -> str | None:
    """Why `text` may not be shown as a clarifying question, or None when it may."""
    stripped = text.strip()
    if not MIN_CHARS <= len(stripped) <= MAX_CHARS:
        return f"its length ({len(stripped)} characters) is outside {MIN_CHARS}-{MAX_CHARS}"
    if "?" not in stripped:
        return "it asks nothing"
    if _LINK.search(stripped):
        return "it carries a link"
    if speaks_to_the_reader(stripped) or _INSTRUCTIONS.search(stripped):
        return "it speaks of instructions or verification"
    rest = _NOT_FIGURES.sub(" ", stripped)
    if claimed_amounts(rest) or re.search(r"\d", rest):
        return "it carries a figure"
    return None


def clarifications_left(cap: int, asked_before: int) -> int | None:
    """What a turn may still ask under a conversation's cap of clarifying questions, when
    the conversation's earlier turns asked `asked_before` (a cap of 0: no cap, None)."""
    return None if cap == 0 else max(0, cap - asked_before)
