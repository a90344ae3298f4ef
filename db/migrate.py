"""Versioned plain-SQL migrations, applied in order and recorded in `schema_migrations`.

Idempotent and safe to run from several processes at once: an advisory lock serialises
them, and each file runs in its own transaction with its record row.
"""

from importlib import resources

import psycopg

_LOCK_KEY = 7_233_001


def migration_files() -> list[tuple[str, str]]:
    """Return (version, sql) for every migration, ordered by file name."""
    folder = resources.files("db") / "migrations"
    names = sorted(p.name for p in folder.iterdir() if p.name.endswith(".sql"))
    return [(name.removesuffix(".sql"), (folder / name).read_text("utf-8")) for name in names]


def migrate(database_url: str) -> list[str]:
    """Apply pending migrations; return the versions applied by this call."""
    applied: list[str] = []
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (_LOCK_KEY,))
        try:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
            )
            done = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
            for version, sql in migration_files():
                if version in done:
                    continue
                with conn.transaction():
                    conn.execute(sql.encode("utf-8"))
                    conn.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (version,))
                applied.append(version)
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_LOCK_KEY,))
    return applied
