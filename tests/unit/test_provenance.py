"""The rules a self-sufficient decision record rests on: text fingerprints, chunk ids
that follow the text, and how a recorded passage compares with the index today."""

import hashlib
from pathlib import Path

from domain.provenance import (
    PassageVersion,
    RecordedPassage,
    check_passage,
    chunk_id_for,
    chunk_ids_for,
    final_kind,
    shown_text,
    text_sha256,
)
from ingestion.documents import parse_document

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "reports"
TABLE_ROW, EDITED_ROW = "| Revenue | 55,658 |", "| Revenue | 57,913 |"


def test_a_text_fingerprint_is_the_sha256_of_its_utf8() -> None:
    text = "Revenue was US$55,658 million — up on FY2023."
    assert text_sha256(text) == hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert text_sha256(text) != text_sha256(text + " ")
    shown = shown_text("answer", text)
    assert (shown.kind, shown.text, shown.sha256) == ("answer", text, text_sha256(text))


def test_a_chunk_id_follows_its_document_and_its_text() -> None:
    base = chunk_id_for("BHP-FY2024", "Revenue 55,658")
    assert chunk_id_for("BHP-FY2024", "Revenue 55,658") == base
    assert chunk_id_for("BHP-FY2024", "Revenue 57,913") != base
    assert chunk_id_for("BHP-FY2023", "Revenue 55,658") != base
    assert chunk_id_for("BHP-FY2024", "Revenue 55,658", occurrence=1) != base


def test_a_passage_repeated_word_for_word_gets_one_id_per_occurrence() -> None:
    ids = chunk_ids_for("X-FY2024", ["a", "b", "a", "a"])
    assert len(set(ids)) == 4
    assert ids[0] == chunk_id_for("X-FY2024", "a", 0) and ids[3] == chunk_id_for("X-FY2024", "a", 2)


def test_a_passage_added_above_leaves_the_others_ids_alone() -> None:
    before = chunk_ids_for("X-FY2024", ["a", "b", "c"])
    after = chunk_ids_for("X-FY2024", ["new", "a", "b", "c"])
    assert after[1:] == before


def test_an_edited_report_changes_the_id_of_the_edited_passage_only(tmp_path: Path) -> None:
    original = CORPUS / "BHP_FY2024.md"
    text = original.read_text(encoding="utf-8")
    assert text.count(TABLE_ROW) == 1
    edited = tmp_path / original.name
    edited.write_text(text.replace(TABLE_ROW, EDITED_ROW), encoding="utf-8")

    old, new = parse_document(original), parse_document(edited)

    assert len(old.chunks) == len(new.chunks)
    differing = [
        (a, b) for a, b in zip(old.chunks, new.chunks, strict=True) if a.chunk_id != b.chunk_id
    ]
    assert len(differing) == 1, [a.text[:80] for a, _ in differing]
    was, now = differing[0]
    assert TABLE_ROW in was.text and EDITED_ROW in now.text
    assert old.content_hash != new.content_hash
    # Re-reading the same file gives the same ids: re-ingesting it changes nothing.
    assert [c.chunk_id for c in parse_document(original).chunks] == [c.chunk_id for c in old.chunks]


def _version(
    chunk_id: str, text: str, page: int = 4, position: int = 0, doc: str = "v1"
) -> PassageVersion:
    return PassageVersion(
        chunk_id=chunk_id,
        corpus="local:/x#reports",
        document_id="BHP-FY2024",
        document_version=doc,
        page=page,
        position=position,
        text_sha256=text_sha256(text),
    )


def _recorded(text: str) -> RecordedPassage:
    return RecordedPassage(chunk_id="c1", cited_as=[1], version=_version("c1", text))


def test_a_passage_still_held_is_unchanged() -> None:
    now = [_version("c0", "intro", 1, 0), _version("c1", "revenue 55,658", 4, 1)]
    check = check_passage(1, "c1", _recorded("revenue 55,658"), now)
    assert (check.status, check.detail, check.now) == ("unchanged", "same text", [])


def test_a_passage_whose_text_is_held_under_another_id_is_unchanged() -> None:
    now = [_version("new-id", "revenue 55,658", 4, 1, doc="v2")]
    check = check_passage(1, "c1", _recorded("revenue 55,658"), now)
    assert check.status == "unchanged" and "now as new-id" in check.detail


def test_a_passage_edited_in_a_reingested_report_is_changed_and_names_its_page_today() -> None:
    now = [
        _version("c0", "intro", 1, 0, doc="v2"),
        _version("c9", "revenue 57,913", 4, 1, doc="v2"),
        _version("c8", "more on page four", 4, 2, doc="v2"),
    ]
    check = check_passage(2, "c1", _recorded("revenue 55,658"), now)
    assert check.status == "changed" and check.n == 2
    assert "BHP-FY2024 was re-ingested (v1 → v2)" in check.detail
    assert "page 4 holds other text now" in check.detail
    assert check.now == ["c9", "c8"]


def test_a_passage_whose_report_left_the_index_is_gone() -> None:
    check = check_passage(1, "c1", _recorded("revenue 55,658"), [])
    assert check.status == "gone" and "BHP-FY2024 is no longer in the index" in check.detail


def test_a_passage_recorded_without_a_hash_is_unknown_not_guessed() -> None:
    now = [_version("c1", "revenue 57,913")]
    old_record = check_passage(1, "c1", None, now)
    assert old_record.status == "unknown" and "before decision records kept" in old_record.detail
    unregistered = check_passage(1, "c1", RecordedPassage(chunk_id="c1", cited_as=[1]), now)
    assert (
        unregistered.status == "unknown" and "not in the document registry" in unregistered.detail
    )


def test_the_last_text_shown_is_named_by_the_turns_status() -> None:
    assert [final_kind(s) for s in ("answered", "refused", "fallback", "expired")] == [
        "answer",
        "refusal",
        "fallback",
        "expired",
    ]
