"""SQL for the chunk registry: each registered document's chunks as the report index
holds them (`document_chunks`), by id, page and text hash.

Ingestion writes a document's rows in the document registry's transaction; the final
save of a turn reads the versions of the chunks it cited and kept into the decision
record, and the audit route compares a recorded passage with the rows held today.
"""

from collections.abc import Sequence

from psycopg import AsyncConnection

from domain.provenance import PassageVersion, text_sha256


async def replace(
    conn: AsyncConnection, corpus: str, document_id: str, chunks: Sequence[tuple[str, int, str]]
) -> None:
    """Record a document's chunks — (chunk id, page, text) in reading order — in place of
    its rows before; rows of documents no longer registered (re-tagged away) go too."""
    await conn.execute(
        "DELETE FROM document_chunks c WHERE c.corpus = %s AND (c.document_id = %s"
        " OR NOT EXISTS (SELECT 1 FROM documents d WHERE d.corpus = c.corpus"
        " AND d.document_id = c.document_id))",
        (corpus, document_id),
    )
    rows = [
        (corpus, document_id, chunk_id, n, page, text_sha256(text))
        for n, (chunk_id, page, text) in enumerate(chunks)
    ]
    async with conn.cursor() as cursor:
        await cursor.executemany(
            "INSERT INTO document_chunks (corpus, document_id, chunk_id, position, page,"
            " text_sha256) VALUES (%s, %s, %s, %s, %s, %s)",
            rows,
        )


_VERSION = (
    "SELECT c.chunk_id, c.corpus, c.document_id, d.content_hash, c.page, c.position,"
    " c.text_sha256 FROM document_chunks c JOIN documents d USING (corpus, document_id)"
)
_KEYS = ("chunk_id", "corpus", "document_id", "document_version", "page", "position", "text_sha256")


def _version(row: Sequence[object]) -> PassageVersion:
    return PassageVersion.model_validate(dict(zip(_KEYS, row, strict=True)))


async def versions(conn: AsyncConnection, chunk_ids: Sequence[str]) -> dict[str, PassageVersion]:
    """The registry's version of each chunk id it holds (ids it lacks are left out).

    One id in several indexes (tests build many; the id follows the text, so it is the
    same text in each) resolves to the index whose document was recorded last.
    """
    if not chunk_ids:
        return {}
    rows = await (
        await conn.execute(
            f"{_VERSION} WHERE c.chunk_id = ANY(%s) ORDER BY d.updated_at, c.corpus",
            (list(chunk_ids),),
        )
    ).fetchall()
    return {str(row[0]): _version(row) for row in rows}  # the last recorded wins


async def now(conn: AsyncConnection, corpus: str, document_id: str) -> list[PassageVersion]:
    """A registered document's chunks today, in reading order ([] when not registered)."""
    rows = await (
        await conn.execute(
            f"{_VERSION} WHERE c.corpus = %s AND c.document_id = %s ORDER BY c.position",
            (corpus, document_id),
        )
    ).fetchall()
    return [_version(row) for row in rows]
