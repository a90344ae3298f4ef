"""SQL for the company registry: who each report's company is, in each report index."""

from psycopg import AsyncConnection

from domain.companies.roster import Company


async def register(conn: AsyncConnection, corpus: str, companies: list[Company]) -> None:
    """Register companies (in this order, after those already registered); a company
    registered before takes the new description, keeping its place."""
    for c in companies:
        await conn.execute(
            "INSERT INTO companies (corpus, ticker, name, aliases, year_end, currency,"
            " commodities) VALUES (%s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (corpus, ticker) DO UPDATE SET name = excluded.name,"
            " aliases = excluded.aliases, year_end = excluded.year_end,"
            " currency = excluded.currency, commodities = excluded.commodities,"
            " updated_at = now() WHERE (companies.name, companies.aliases, companies.year_end,"
            " companies.currency, companies.commodities) IS DISTINCT FROM (excluded.name,"
            " excluded.aliases, excluded.year_end, excluded.currency, excluded.commodities)",
            (
                corpus,
                c.ticker,
                c.name,
                list(c.aliases),
                c.year_end,
                c.currency,
                list(c.commodities),
            ),
        )


async def registered(conn: AsyncConnection, corpus: str) -> list[Company]:
    """Every registered company, in registration order, with its reports' fiscal years
    (none for a company whose reports were all removed)."""
    rows = await (
        await conn.execute(
            "SELECT c.ticker, c.name, c.aliases, c.year_end, c.currency, c.commodities,"
            " coalesce(array_agg(d.fiscal_year ORDER BY d.fiscal_year)"
            " FILTER (WHERE d.fiscal_year IS NOT NULL), '{}')"
            " FROM companies c LEFT JOIN documents d"
            " ON d.corpus = c.corpus AND d.company = c.ticker"
            " WHERE c.corpus = %s GROUP BY c.ticker, c.name, c.aliases, c.year_end,"
            " c.currency, c.commodities, c.position ORDER BY c.position",
            (corpus,),
        )
    ).fetchall()
    return [
        Company(ticker, name, tuple(aliases), year_end, currency, tuple(years), tuple(goods))
        for ticker, name, aliases, year_end, currency, goods, years in rows
    ]


async def covered_anywhere(conn: AsyncConnection) -> list[Company]:
    """The companies with reports in any report index of this database (the API's
    coverage: it validates names and years, the worker's turns pin their index's own).
    One entry per ticker, the first registered; an alias another entry took is dropped."""
    rows = await (
        await conn.execute(
            "SELECT c.ticker, c.name, c.aliases, c.year_end, c.currency, c.commodities,"
            " array_agg(DISTINCT d.fiscal_year ORDER BY d.fiscal_year)"
            " FROM companies c JOIN documents d ON d.corpus = c.corpus AND d.company = c.ticker"
            " GROUP BY c.corpus, c.ticker, c.name, c.aliases, c.year_end, c.currency,"
            " c.commodities, c.position ORDER BY c.position"
        )
    ).fetchall()
    found: dict[str, Company] = {}
    taken: set[str] = set()
    for ticker, name, aliases, year_end, currency, goods, years in rows:
        if ticker in found:
            continue
        own = tuple(a for a in aliases if a not in taken)
        taken.update(own)
        found[ticker] = Company(ticker, name, own, year_end, currency, tuple(years), tuple(goods))
    return list(found.values())
