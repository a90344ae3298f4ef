"""Versioned SQL migrations apply once, in order, and record themselves."""

from collections.abc import Iterator
from urllib.parse import quote

import psycopg
import pytest

from db.migrate import migrate, migration_files
from tests.conftest import unique


@pytest.fixture
def empty_schema_url(postgres_url: str) -> Iterator[str]:
    """A URL whose search_path is a brand-new schema, so migrations start from nothing."""
    schema = unique("migrate").replace("-", "_")
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    separator = "&" if "?" in postgres_url else "?"
    yield f"{postgres_url}{separator}options={quote(f'-csearch_path={schema}')}"
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA {schema} CASCADE")


def test_migrations_apply_every_file_in_order_on_an_empty_database(empty_schema_url: str) -> None:
    applied = migrate(empty_schema_url)

    assert applied == [version for version, _ in migration_files()]
    assert applied[0] == "0001_stack"
    with psycopg.connect(empty_schema_url) as conn:
        recorded = [r[0] for r in conn.execute("SELECT version FROM schema_migrations ORDER BY 1")]
        conn.execute("SELECT worker_id, qdrant_ok, corpus_version FROM worker_heartbeats")
    assert recorded == applied


def test_running_migrations_twice_applies_nothing_the_second_time(empty_schema_url: str) -> None:
    migrate(empty_schema_url)

    assert migrate(empty_schema_url) == []
    with psycopg.connect(empty_schema_url) as conn:
        (count,) = conn.execute("SELECT count(*) FROM schema_migrations").fetchone() or (0,)
    assert count == len(migration_files())
