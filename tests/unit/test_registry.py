"""One report per company and year: what the registry admits, refuses and replaces."""

from pathlib import Path

import pytest

from ingestion.documents import parse_document
from ingestion.registry import Registered, admit, refusal

REAL = Registered(document_id="BHP-FY2024", source_path="/corpus/BHP_FY2024.md", file_sha256="a1")


def test_a_document_never_registered_is_new() -> None:
    assert admit(None, "/inbox/BHP_FY2024.md", "b2", replace=False) == "new"


def test_the_registered_file_again_is_the_same() -> None:
    assert admit(REAL, REAL.source_path, REAL.file_sha256, replace=False) == "same"


def test_an_edited_file_at_the_registered_path_is_an_update() -> None:
    assert admit(REAL, REAL.source_path, "edited", replace=False) == "update"


def test_identical_content_under_another_path_is_an_update() -> None:
    assert admit(REAL, "/moved/BHP_FY2024.md", REAL.file_sha256, replace=False) == "update"


@pytest.mark.parametrize("path", ["/tmp/BHP_FY2024.md", "/corpus/other.md"])
def test_a_different_file_elsewhere_is_refused_without_replace(path: str) -> None:
    assert admit(REAL, path, "planted", replace=False) == "refused"


def test_a_different_file_elsewhere_is_a_replacement_when_asked() -> None:
    assert admit(REAL, "/tmp/BHP_FY2024.md", "planted", replace=True) == "replace"


def test_the_refusal_names_the_file_already_registered_and_how_to_replace_it() -> None:
    message = refusal(REAL, "/tmp/BHP_FY2024.md")

    assert message.startswith("/tmp/BHP_FY2024.md: BHP-FY2024 is already registered from ")
    assert "/corpus/BHP_FY2024.md" in message
    assert "--replace" in message


REPORT = "---\ncompany: BHP\nfiscal_year: 2024\n---\n\n# Financial review\n\nRevenue rose.\n"


def test_the_document_id_is_company_and_year_whatever_the_file_is_called(tmp_path: Path) -> None:
    (tmp_path / "inbox").mkdir()
    path = tmp_path / "inbox" / "results final v2.md"
    path.write_text(REPORT, encoding="utf-8")
    link = tmp_path / "BHP_FY2023.md"
    link.symlink_to(path)

    doc = parse_document(tmp_path / "inbox" / ".." / link.name)

    assert doc.document_id == "BHP-FY2024"
    assert doc.source_path == str(path.resolve())
    assert {c.source_path for c in doc.chunks} == {doc.source_path}


def test_identical_bytes_have_one_file_hash_under_any_name_or_flags(tmp_path: Path) -> None:
    first, second = tmp_path / "a.md", tmp_path / "b.md"
    first.write_text(REPORT, encoding="utf-8")
    second.write_text(REPORT, encoding="utf-8")

    retagged = parse_document(first, fiscal_year=2023)

    assert parse_document(first).file_sha256 == parse_document(second).file_sha256
    assert retagged.file_sha256 == parse_document(first).file_sha256
    assert retagged.content_hash != parse_document(first).content_hash
