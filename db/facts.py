"""SQL for the facts of each report (`domain/reports/facts.py` reads them; ingestion
stores them)."""

from psycopg import AsyncConnection

from domain.reports.facts import EXTRACTOR_VERSION
from domain.reports.figures import Fact

_COLUMNS = (
    "corpus, document_id, document, content_hash, extractor_version, chunk_id, company,"
    " report_fiscal_year, fiscal_year, page, source, label, metric, value, raw, unit,"
    " decimals, restated, context, period_end, period_months, column_group"
)


async def current(conn: AsyncConnection, corpus: str, document_id: str, content_hash: str) -> bool:
    """Whether the document's stored facts were read from this content by this extractor."""
    row = await (
        await conn.execute(
            "SELECT content_hash, extractor_version FROM facts"
            " WHERE corpus = %s AND document_id = %s LIMIT 1",
            (corpus, document_id),
        )
    ).fetchone()
    return row is not None and (row[0], row[1]) == (content_hash, EXTRACTOR_VERSION)


async def replace(
    conn: AsyncConnection, corpus: str, document_id: str, content_hash: str, facts: list[Fact]
) -> int:
    """Store `facts` as the document's, in place of any stored before (run it inside the
    ingestion's transaction, so the chunks and the facts change together)."""
    await conn.execute(
        "DELETE FROM facts WHERE corpus = %s AND document_id = %s", (corpus, document_id)
    )
    rows = [_row(corpus, document_id, content_hash, f) for f in facts]
    if rows:
        async with conn.cursor() as cursor:
            await cursor.executemany(
                f"INSERT INTO facts ({_COLUMNS}) VALUES ({', '.join(['%s'] * 22)})", rows
            )
    return len(rows)


def _row(corpus: str, document_id: str, content_hash: str, f: Fact) -> tuple[object, ...]:
    """One fact's row, in the order of `_COLUMNS`."""
    return (
        corpus,
        document_id,
        f.document,
        content_hash,
        EXTRACTOR_VERSION,
        f.chunk_id,
        f.company,
        f.report_fiscal_year,
        f.fiscal_year,
        f.page,
        f.source,
        f.label,
        f.metric,
        f.value,
        f.raw,
        f.unit,
        f.decimals,
        f.restated,
        f.context,
        f.period_end,
        f.period_months,
        f.group,
    )


async def forget_unregistered(conn: AsyncConnection, corpus: str) -> None:
    """Remove the facts of documents no longer registered (re-tagged or replaced away)."""
    await conn.execute(
        "DELETE FROM facts f WHERE corpus = %s AND NOT EXISTS (SELECT 1 FROM documents d"
        " WHERE d.corpus = f.corpus AND d.document_id = f.document_id)",
        (corpus,),
    )


async def of_company(
    conn: AsyncConnection, corpus: str, company: str, years: list[int] | None = None
) -> list[Fact]:
    """A company's stored facts (of `years`, else all), in document and page order."""
    cursor = await conn.execute(
        "SELECT chunk_id, company, document, page, report_fiscal_year, fiscal_year,"
        " restated, label, metric, value, raw, unit, decimals, context, source,"
        " period_end::text, period_months, column_group FROM facts"
        " WHERE corpus = %s AND company = %s AND (%s::int[] IS NULL OR fiscal_year = ANY(%s))"
        " ORDER BY report_fiscal_year, page, fact_id",
        (corpus, company, years, years),
    )
    return [
        Fact(
            chunk_id=r[0],
            company=r[1],
            document=r[2],
            page=r[3],
            report_fiscal_year=r[4],
            fiscal_year=r[5],
            restated=r[6],
            label=r[7],
            metric=r[8],
            value=r[9],
            raw=r[10],
            unit=r[11],
            decimals=r[12],
            context=r[13],
            source=r[14],
            period_end=r[15],
            period_months=r[16],
            group=r[17],
        )
        for r in await cursor.fetchall()
    ]
