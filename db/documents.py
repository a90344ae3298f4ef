"""SQL for the document registry: one report per company and year in each report index."""

from psycopg import AsyncConnection

from db import chunks as chunk_registry
from ingestion.documents import ParsedDocument
from ingestion.registry import Registered


async def lock(conn: AsyncConnection, corpus: str, document_id: str) -> None:
    """Serialise ingestions of one document until the caller's transaction ends.

    Two files for the same company and year ingested at once must not both see an empty
    registry and both be admitted: the second waits here for the first's decision.
    """
    await conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended(%s, 7234))",
        (f"{corpus} {document_id}",),
    )


async def registered(conn: AsyncConnection, corpus: str, document_id: str) -> Registered | None:
    """The registry entry of a document, None when it was never ingested."""
    row = await (
        await conn.execute(
            "SELECT source_path, file_sha256 FROM documents WHERE corpus = %s AND document_id = %s",
            (corpus, document_id),
        )
    ).fetchone()
    if row is None:
        return None
    return Registered(document_id=document_id, source_path=row[0], file_sha256=row[1])


async def record(
    conn: AsyncConnection,
    corpus: str,
    doc: ParsedDocument,
    chunks: int,
    previous: Registered | None,
    forced: bool,
) -> None:
    """Register `doc` as stored; log any change of its file; forget re-tagged entries.

    Idempotent: recording the registered file again changes nothing and logs nothing.
    Another document read from the same file (ingested earlier under other company or
    year flags) is removed, as its chunks were, with a log row whose new file is NULL.
    The document's chunks (`document_chunks`) are written anew with it.
    """
    # The caller's transaction: these statements commit (or roll back) together.
    await _upsert(conn, corpus, doc, chunks)
    await _log_replacement(conn, corpus, doc, previous, forced)
    await _forget_retagged(conn, corpus, doc)
    await chunk_registry.replace(
        conn, corpus, doc.document_id, [(c.chunk_id, c.page, c.text) for c in doc.chunks]
    )


async def _upsert(conn: AsyncConnection, corpus: str, doc: ParsedDocument, chunks: int) -> None:
    """The document's row, inserted or brought up to date with this file."""
    await conn.execute(
        "INSERT INTO documents (corpus, document_id, company, fiscal_year, source_path,"
        " file_sha256, content_hash, chunks) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
        " ON CONFLICT (corpus, document_id) DO UPDATE SET source_path = excluded.source_path,"
        " file_sha256 = excluded.file_sha256, content_hash = excluded.content_hash,"
        " chunks = excluded.chunks, updated_at = now()",
        (
            corpus,
            doc.document_id,
            doc.company,
            doc.fiscal_year,
            doc.source_path,
            doc.file_sha256,
            doc.content_hash,
            chunks,
        ),
    )


async def _log_replacement(
    conn: AsyncConnection,
    corpus: str,
    doc: ParsedDocument,
    previous: Registered | None,
    forced: bool,
) -> None:
    """A log row when the registered file changed (none when it is the same file)."""
    if previous is not None and (previous.source_path, previous.file_sha256) != (
        doc.source_path,
        doc.file_sha256,
    ):
        await conn.execute(
            "INSERT INTO document_replacements (corpus, document_id, previous_path,"
            " previous_sha256, new_path, new_sha256, forced) VALUES (%s, %s, %s, %s, %s, %s, %s)",
            (
                corpus,
                doc.document_id,
                previous.source_path,
                previous.file_sha256,
                doc.source_path,
                doc.file_sha256,
                forced,
            ),
        )


async def _forget_retagged(conn: AsyncConnection, corpus: str, doc: ParsedDocument) -> None:
    """Remove another document read from the same file, with a log row whose new file is
    NULL."""
    await conn.execute(
        "WITH gone AS (DELETE FROM documents WHERE corpus = %s AND source_path = %s"
        " AND document_id <> %s RETURNING document_id, source_path, file_sha256)"
        " INSERT INTO document_replacements (corpus, document_id, previous_path,"
        " previous_sha256, forced) SELECT %s, document_id, source_path, file_sha256, false"
        " FROM gone",
        (corpus, doc.source_path, doc.document_id, corpus),
    )
