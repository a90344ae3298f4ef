"""What a decision record keeps of the text shown and the evidence behind it, and how a
recorded passage compares with the index today.

Pure. A reviewer months later must be able to tell what the person was told and whether
the passages it cited still read the same, without trusting anything that can change:
text is fingerprinted with SHA-256, and a chunk's id is derived from its document and its
text, so re-ingesting a report never gives an old id new text (a changed passage gets a
new id; an unchanged one keeps its id, wherever the edits elsewhere moved it).
"""

import hashlib
import uuid
from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import Field

from domain.models import Frozen

CHUNK_NAMESPACE = uuid.UUID("5b0f4f0e-8c8e-4c65-9d0b-6a1f3e0c2b7d")
"""The uuid5 namespace of chunk ids (unchanged since ids were `document_id:number`)."""


def text_sha256(text: str) -> str:
    """The SHA-256 of `text` as UTF-8, in hex: the fingerprint records keep."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def chunk_id_for(document_id: str, text: str, occurrence: int = 0) -> str:
    """A chunk's id: its document, the hash of its exact text, and which occurrence of
    that text in the document it is (0 unless the document repeats the passage word for
    word). The same text in the same document always gets the same id; other text never
    does. Its position in the document is left out on purpose: a paragraph added above it
    must not give an unchanged passage a new id."""
    return str(uuid.uuid5(CHUNK_NAMESPACE, f"{document_id}:{text_sha256(text)}:{occurrence}"))


def chunk_ids_for(document_id: str, texts: Iterable[str]) -> list[str]:
    """The ids of a document's chunks in order, repeated passages numbered apart."""
    seen: dict[str, int] = {}
    ids = []
    for text in texts:
        occurrence = seen.get(text, 0)
        seen[text] = occurrence + 1
        ids.append(chunk_id_for(document_id, text, occurrence))
    return ids


ShownKind = Literal[
    "answer", "clarifying_question", "refusal", "fallback", "expired", "cancelled", "failed"
]


class Shown(Frozen):
    """One text the person was shown, exactly as stored (personal values as tokens)."""

    kind: ShownKind
    text: str
    sha256: str
    round: int | None = None
    """For a clarifying question: which round asked it."""


def shown_text(kind: ShownKind, text: str, round_: int | None = None) -> Shown:
    return Shown(kind=kind, text=text, sha256=text_sha256(text), round=round_)


_FINAL_KIND: dict[str, ShownKind] = {
    "answered": "answer",
    "refused": "refusal",
    "fallback": "fallback",
    "expired": "expired",
    "cancelled": "cancelled",
    "failed": "failed",
}


def final_kind(status: str) -> ShownKind:
    """What a settled turn's last text was, by its status (an answer, a refusal...)."""
    return _FINAL_KIND.get(status, "answer")


class PassageVersion(Frozen):
    """A chunk as the document registry knows it: its text's hash and its document's
    version (the document's content hash), in one report index (`corpus`)."""

    chunk_id: str
    corpus: str
    document_id: str
    document_version: str
    page: int
    position: int
    """Its number in the document, in reading order (0 first)."""
    text_sha256: str


class RecordedPassage(Frozen):
    """A cited or kept chunk as a decision record keeps it. Without a version (the chunk
    was not in the registry when the turn settled) only its id is known."""

    chunk_id: str
    cited_as: list[int] = Field(default_factory=list)
    """The citation markers `[n]` that cite it (empty for a chunk kept but not cited)."""
    kept: bool = False
    """Whether relevance grading kept it as evidence."""
    version: PassageVersion | None = None


PassageStatus = Literal["unchanged", "changed", "gone", "unknown"]


class PassageCheck(Frozen):
    """A cited passage compared with the index today."""

    n: int = Field(description="The citation's marker in the answer: `[n]`.", examples=[1])
    chunk_id: str = Field(
        description="The passage's id when the turn cited it.",
        examples=["d968bb18-5c1e-54f8-8ac1-3034722a1e0b"],
    )
    status: PassageStatus = Field(
        description="`unchanged` (the index holds the same text), `changed` (its report was"
        " re-ingested without this text), `gone` (its report is no longer in the index) or"
        " `unknown` (the record kept no hash of the passage's text to compare).",
        examples=["unchanged"],
    )
    detail: str = Field(
        description="Why, in words.",
        examples=[
            "BHP-FY2024 was re-ingested (94c1e7a0b2d3f4e5 → 1a2b3c4d5e6f7081); this"
            " passage's text is not in it: page 4 holds other text now"
        ],
    )
    now: list[str] = Field(
        default_factory=list,
        description="When it changed: the ids of the chunks on the same page of the report today.",
    )


def check_passage(
    n: int,
    chunk_id: str,
    recorded: RecordedPassage | None,
    document_now: Sequence[PassageVersion],
) -> PassageCheck:
    """Whether the index still holds the text the turn cited as `[n]`.

    `document_now` is every chunk the registry holds today of the recorded passage's
    document in the recorded index. Unchanged: the same text, under its id or (for an id
    from before ids followed the text) another. Changed: the document is there but not
    this text (the report was re-ingested with the passage edited or removed). Gone: the
    document is not in the index any more. Unknown: the record kept no text hash (written
    before records did, or the chunk was not registered when the turn settled)."""
    was = recorded.version if recorded is not None else None
    if was is None:
        why = (
            "recorded before decision records kept passage hashes"
            if recorded is None
            else "the passage was not in the document registry when the turn was recorded"
        )
        return PassageCheck(n=n, chunk_id=chunk_id, status="unknown", detail=why)
    if not document_now:
        return PassageCheck(
            n=n,
            chunk_id=chunk_id,
            status="gone",
            detail=f"{was.document_id} is no longer in the index",
        )
    same = [c for c in document_now if c.text_sha256 == was.text_sha256]
    if same:
        moved = "" if any(c.chunk_id == chunk_id for c in same) else f", now as {same[0].chunk_id}"
        return PassageCheck(n=n, chunk_id=chunk_id, status="unchanged", detail=f"same text{moved}")
    return _changed(n, chunk_id, was, document_now)


def _changed(
    n: int, chunk_id: str, was: PassageVersion, document_now: Sequence[PassageVersion]
) -> PassageCheck:
    """A passage whose document is in the index without its text: what holds its page now."""
    version = document_now[0].document_version
    reingested = (
        f"{was.document_id} was re-ingested ({was.document_version} → {version})"
        if version != was.document_version
        else f"{was.document_id} holds other text now"
    )
    ordered = sorted(document_now, key=lambda c: c.position)
    page = [c.chunk_id for c in ordered if c.page == was.page]
    where = f"page {was.page} holds {'other text' if page else 'nothing'} now"
    return PassageCheck(
        n=n,
        chunk_id=chunk_id,
        status="changed",
        detail=f"{reingested}; this passage's text is not in it: {where}",
        now=page,
    )
