"""Refuted figures are never shown: what the final gate does with a claim the checks still
refute after the redraft that named it.

Deterministic and dependency-free. Every sentence that carries a refuted claim (as the
numeric check found them in the draft: a figure said twice is in two) is taken out of the
answer, and the answer says, in an exact line, which figure could not be verified. A
sentence that cannot be found to take out rejects the draft: a refuted figure is never
shown. What is left must still answer something; otherwise the turn falls back
(`gate.UNVERIFIED`). `remove_refuted` is the rule before the `refuted-every-sentence-v1`
patch (one sentence per claim), kept for turns begun before it.
"""

from dataclasses import dataclass, field

from domain.language.text import without_sentence
from domain.models import UnsupportedClaim

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


@dataclass
class Removal:
    """The answer without its refuted sentences, the labels taken out, and the labels of
    which some sentence could not be found (the draft is then not shown at all)."""

    answer: str
    removed: list[str] = field(default_factory=list)
    not_found: list[str] = field(default_factory=list)


def remove_every_refuted(
    answer: str, claims: list[UnsupportedClaim], every: dict[str, list[str]]
) -> Removal:
    """`answer` without every sentence of each of `claims` (`every`, label → its sentences
    in answer order), each claim replaced by its exact removal line at the end. A sentence
    taken out for an earlier claim is gone for a later one too; one not in the answer at
    all is listed in `not_found`."""
    text = answer
    taken: list[str] = []
    removed: list[str] = []
    not_found: list[str] = []
    for claim in claims:
        sentences = every.get(claim.label, [])
        for sentence in sentences:
            text, found = without_sentence(text, sentence)
            if found:
                taken.append(sentence)
            elif sentence not in taken and claim.label not in not_found:
                not_found.append(claim.label)
        if sentences and claim.label not in removed:
            removed.append(claim.label)
    if not removed:
        return Removal(answer)
    lines = [REMOVED_LINE.format(label=label) for label in removed]
    kept = "\n".join(line.rstrip() for line in text.splitlines()).strip()
    return Removal((f"{kept}\n\n" if kept else "") + "\n".join(lines), removed, not_found)


def substance_left(answer: str, removed: list[str]) -> bool:
    """Whether anything but removal and not-found lines is left to show."""
    lines = {REMOVED_LINE.format(label=label) for label in removed}
    return any(
        line.strip() and line.strip() not in lines and "data not found" not in line
        for line in answer.splitlines()
    )
