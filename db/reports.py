"""Where a registered report's file is (the document registry, migration 0004): what the
API's report view reads a cited page from."""

from psycopg import AsyncConnection


async def source_path(conn: AsyncConnection, company: str, fiscal_year: int) -> str | None:
    """The file last registered for the company's report of `fiscal_year`, or None."""
    row = await (
        await conn.execute(
            "SELECT source_path FROM documents WHERE company = %s AND fiscal_year = %s"
            " ORDER BY updated_at DESC LIMIT 1",
            (company, fiscal_year),
        )
    ).fetchone()
    return None if row is None else str(row[0])
