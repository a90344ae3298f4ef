"""The document registry's rule: one annual report per company and fiscal year (and one
document per other filing of that year: `ingestion.documents.document_key`).

Pure code. The ingest activity reads the registered entry of a parsed document's id
from PostgreSQL, asks `admit`, and writes Qdrant and the registry only when admitted.
"""

from typing import Literal

from pydantic import BaseModel, ConfigDict

Admission = Literal["new", "same", "update", "replace", "refused"]
"""`new`: nothing registered yet. `same`: the registered file again. `update`: the same
path with new content, or the same content under a new path. `replace`: a different file,
accepted because replacement was requested. `refused`: a different file, not requested."""


class Registered(BaseModel):
    """A document's registry entry: where its file came from and what it held."""

    model_config = ConfigDict(frozen=True)

    document_id: str
    source_path: str
    file_sha256: str


def admit(
    registered: Registered | None, source_path: str, file_sha256: str, replace: bool
) -> Admission:
    """Decide whether a file may become (or stay) the registered document.

    Re-ingesting the registered file, an edited file at the registered path, or identical
    content under another path is always admitted. A different file at a different path
    is a replacement: admitted only with `replace`, so a stray or planted file that
    shares a report's company and year cannot silently stand in for it.
    """
    if registered is None:
        return "new"
    same_path = registered.source_path == source_path
    same_content = registered.file_sha256 == file_sha256
    if same_path and same_content:
        return "same"
    if same_path or same_content:
        return "update"
    return "replace" if replace else "refused"


def refusal(registered: Registered, path: str) -> str:
    """The error of a refused file: it names the file already registered."""
    return (
        f"{path}: {registered.document_id} is already registered from"
        f" {registered.source_path} (different content); ingest with replace"
        " (turnstile ingest --replace) to replace it"
    )
