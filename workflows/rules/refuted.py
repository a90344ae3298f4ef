"""Refuted figures are never shown: what the final gate does with a claim the checks still
refute after the redraft that named it.

Deterministic and dependency-free. Each refuted claim's sentence (as the numeric check
found it in the draft) is taken out of the answer, and the answer says, in an exact line,
which figure could not be verified. What is left must still answer something; otherwise
the turn falls back (`gate.UNVERIFIED`).
"""

from domain.models import UnsupportedClaim
from domain.text import without_sentence

REMOVED_LINE = (
    "{label}: a figure the draft gave could not be verified against the cited report and "
    "was removed."
)


def remove_refuted(
    answer: str, claims: list[UnsupportedClaim], sentences: dict[str, str]
) -> tuple[str, list[str]]:
    """`answer` without the sentences of `claims` (found by `sentences`, label → sentence),
    each replaced by its exact removal line at the end; and the labels removed."""
    removed: list[str] = []
    text = answer
    for claim in claims:
        sentence = sentences.get(claim.label)
        if sentence:
            text, found = without_sentence(text, sentence)
            if found:
                removed.append(claim.label)
    if not removed:
        return answer, []
    lines = [REMOVED_LINE.format(label=label) for label in removed]
    kept = "\n".join(line.rstrip() for line in text.splitlines()).strip()
    return (f"{kept}\n\n" if kept else "") + "\n".join(lines), removed


def substance_left(answer: str, removed: list[str]) -> bool:
    """Whether anything but removal and not-found lines is left to show."""
    lines = {REMOVED_LINE.format(label=label) for label in removed}
    return any(
        line.strip() and line.strip() not in lines and "data not found" not in line
        for line in answer.splitlines()
    )
