"""The ingest activity with the document registry: real PostgreSQL and Qdrant local mode."""

import shutil
import uuid
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest
from psycopg_pool import AsyncConnectionPool
from temporalio.testing import ActivityEnvironment

from activities.contracts import IngestFileRequest, IngestFileResult
from backends.report_activities import ReportActivities
from backends.reports import ReportIndex
from db import chunks, facts
from domain.provenance import CHUNK_NAMESPACE, text_sha256
from domain.reports.figures import Fact
from ingestion.documents import parse_document
from tests.conftest import CORPUS_DIR

BHP_FY2024 = CORPUS_DIR / "BHP_FY2024.md"
REAL_REVENUE = "55,658"
PLANTED_REVENUE = "955,658"


def planted_copy(folder: Path) -> Path:
    """A file named like the real report, claiming a far larger revenue."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / BHP_FY2024.name
    path.write_text(
        BHP_FY2024.read_text(encoding="utf-8").replace(REAL_REVENUE, PLANTED_REVENUE),
        encoding="utf-8",
    )
    return path


class Registry:
    """The ingest activity over one fresh index, and what the registry holds for it."""

    def __init__(self, index: ReportIndex, pool: AsyncConnectionPool) -> None:
        self.index = index
        self.pool = pool
        self.activities = ReportActivities(index, pool)
        self.heartbeats = 0

    async def ingest(self, path: Path, replace: bool = False, **flags: object) -> IngestFileResult:
        env = ActivityEnvironment()

        def beat(*_: object) -> None:
            self.heartbeats += 1

        env.on_heartbeat = beat
        request = IngestFileRequest.model_validate({"path": str(path), "replace": replace, **flags})
        return await env.run(self.activities.ingest_file, request)

    async def entries(self) -> dict[str, str]:
        async with self.pool.connection() as conn:
            cursor = await conn.execute(
                "SELECT document_id, source_path FROM documents WHERE corpus = %s",
                (self.index.corpus_id,),
            )
            return {row[0]: row[1] for row in await cursor.fetchall()}

    async def replacements(self) -> list[tuple[str, str, str | None, bool]]:
        async with self.pool.connection() as conn:
            cursor = await conn.execute(
                "SELECT document_id, previous_path, new_path, forced FROM document_replacements"
                " WHERE corpus = %s ORDER BY replacement_id",
                (self.index.corpus_id,),
            )
            return [(r[0], r[1], r[2], r[3]) for r in await cursor.fetchall()]

    async def chunk_rows(self, document_id: str) -> list[tuple[str, int, str]]:
        """(chunk id, page, text hash) of each chunk the chunk registry holds of a document."""
        async with self.pool.connection() as conn:
            held = await chunks.now(conn, self.index.corpus_id, document_id)
        return [(c.chunk_id, c.page, c.text_sha256) for c in held]

    def stored_rows(self, document_id: str) -> list[tuple[str, int, str]]:
        """The same, read from the index itself, in reading order."""
        records, _ = self.index.client.scroll(
            self.index.collection, limit=10_000, with_payload=True
        )
        found = sorted(
            (r.payload for r in records if r.payload and r.payload["document_id"] == document_id),
            key=lambda p: (p["page"], p["text"]),
        )
        return [(str(p["chunk_id"]), int(p["page"]), text_sha256(str(p["text"]))) for p in found]

    def revenue_texts(self) -> list[str]:
        hits = self.index.search("BHP revenue FY2024", "BHP", [2024], 5)
        return [c.text for c in self.index.get_chunks([h.chunk_id for h in hits])]


@pytest.fixture
def registry(make_report_index: Callable[[], ReportIndex], pool: AsyncConnectionPool) -> Registry:
    return Registry(make_report_index(), pool)


async def test_reingesting_the_registered_report_is_unchanged_and_records_no_replacement(
    registry: Registry,
) -> None:
    first = await registry.ingest(BHP_FY2024)
    second = await registry.ingest(BHP_FY2024)

    assert (first.status, second.status) == ("ingested", "unchanged")
    assert first.document_id == second.document_id == "BHP-FY2024"
    assert await registry.entries() == {"BHP-FY2024": str(BHP_FY2024.resolve())}
    assert await registry.replacements() == []


async def test_a_different_file_for_a_registered_company_and_year_is_refused(
    registry: Registry, tmp_path: Path
) -> None:
    await registry.ingest(BHP_FY2024)
    planted = planted_copy(tmp_path / "inbox")

    result = await registry.ingest(planted)

    assert result.status == "refused"
    assert result.chunks == 0
    assert result.error is not None
    assert result.error.startswith(f"{planted}: BHP-FY2024 is already registered from ")
    assert str(BHP_FY2024.resolve()) in result.error
    assert await registry.entries() == {"BHP-FY2024": str(BHP_FY2024.resolve())}
    assert await registry.replacements() == []
    texts = registry.revenue_texts()
    assert any(REAL_REVENUE in t for t in texts)
    assert not any(PLANTED_REVENUE in t for t in texts)


async def test_replace_accepts_the_different_file_and_records_the_replacement(
    registry: Registry, tmp_path: Path
) -> None:
    await registry.ingest(BHP_FY2024)
    planted = planted_copy(tmp_path / "inbox")

    result = await registry.ingest(planted, replace=True)

    assert result.status == "ingested"
    assert await registry.entries() == {"BHP-FY2024": str(planted.resolve())}
    assert await registry.replacements() == [
        ("BHP-FY2024", str(BHP_FY2024.resolve()), str(planted.resolve()), True)
    ]
    assert any(PLANTED_REVENUE in t for t in registry.revenue_texts())


async def test_identical_content_under_a_new_path_moves_the_registration(
    registry: Registry, tmp_path: Path
) -> None:
    await registry.ingest(BHP_FY2024)
    moved = tmp_path / "archive" / "bhp-2024.md"
    moved.parent.mkdir()
    shutil.copy(BHP_FY2024, moved)

    result = await registry.ingest(moved)

    assert result.status == "unchanged"
    assert await registry.entries() == {"BHP-FY2024": str(moved.resolve())}
    assert await registry.replacements() == [
        ("BHP-FY2024", str(BHP_FY2024.resolve()), str(moved.resolve()), False)
    ]


async def test_reingesting_a_file_under_a_corrected_year_moves_its_registration(
    registry: Registry, tmp_path: Path
) -> None:
    path = tmp_path / "results.md"
    path.write_text(
        "---\ntitle: Results\n---\n\n# Financial review\n\nRevenue was US$55,658 million.\n",
        encoding="utf-8",
    )
    await registry.ingest(path, company="BHP", fiscal_year=2023)

    result = await registry.ingest(path, company="BHP", fiscal_year=2024)

    assert (result.status, result.document_id) == ("ingested", "BHP-FY2024")
    assert await registry.entries() == {"BHP-FY2024": str(path.resolve())}
    assert await registry.replacements() == [("BHP-FY2023", str(path.resolve()), None, False)]
    assert [h.fiscal_year for h in registry.index.search("revenue", "BHP", (), 5)] == [2024]
    assert await registry.chunk_rows("BHP-FY2023") == []  # its chunks left with it
    assert len(await registry.chunk_rows("BHP-FY2024")) == result.chunks


async def test_an_unusable_file_fails_without_touching_the_registry(
    registry: Registry, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("not a report", encoding="utf-8")

    result = await registry.ingest(notes)

    assert result.status == "failed"
    assert await registry.entries() == {}


async def test_ingesting_heartbeats_while_it_works(registry: Registry) -> None:
    await registry.ingest(BHP_FY2024)

    assert registry.heartbeats >= 1


async def test_the_replacement_log_is_append_only(
    registry: Registry, tmp_path: Path, postgres_url: str
) -> None:
    await registry.ingest(BHP_FY2024)
    await registry.ingest(planted_copy(tmp_path / "inbox"), replace=True)

    with psycopg.connect(postgres_url, autocommit=True) as conn:
        for statement in (
            "UPDATE document_replacements SET forced = false",
            "DELETE FROM document_replacements",
        ):
            with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
                conn.execute(statement + " WHERE corpus = %s", (registry.index.corpus_id,))


async def test_ingestion_stores_the_reports_facts_and_rebuilds_them_on_replacement(
    registry: Registry, tmp_path: Path
) -> None:
    """Every figure becomes a fact row in PostgreSQL, in the ingestion's transaction; a
    replacement's facts replace the old ones, and an unchanged re-ingest stores none."""
    first = await registry.ingest(BHP_FY2024)
    corpus = registry.index.corpus_id
    async with registry.pool.connection() as conn:
        stored = await facts.of_company(conn, corpus, "BHP", [2024])
    assert first.facts == len(await _all_facts(registry)) > 20
    revenue = [f for f in stored if f.value == 55658 and f.source == "table"]
    assert revenue and revenue[0].fiscal_year == 2024 and revenue[0].unit == "us$m"
    assert {f.source for f in stored} == {"table", "prose"}
    assert all(f.page >= 1 and f.chunk_id and f.context for f in stored)

    again = await registry.ingest(BHP_FY2024)
    assert again.status == "unchanged" and not again.facts  # nothing rewritten

    await registry.ingest(planted_copy(tmp_path / "inbox"), replace=True)
    values = {f.value for f in await _all_facts(registry)}
    assert 955658 in values and 55658 not in values


async def _all_facts(registry: Registry) -> list[Fact]:
    async with registry.pool.connection() as conn:
        return await facts.of_company(conn, registry.index.corpus_id, "BHP")


async def test_the_chunk_registry_holds_what_the_index_holds_and_follows_a_replacement(
    registry: Registry, tmp_path: Path
) -> None:
    """Each stored chunk's id, page and text hash are registered with the document; a
    revision replaces them, and the passages it did not touch keep their ids."""
    await registry.ingest(BHP_FY2024)
    first = await registry.chunk_rows("BHP-FY2024")
    assert sorted(first, key=lambda r: (r[1], r[0])) == sorted(
        registry.stored_rows("BHP-FY2024"), key=lambda r: (r[1], r[0])
    )
    await registry.ingest(BHP_FY2024)  # unchanged: the same rows again
    assert await registry.chunk_rows("BHP-FY2024") == first

    await registry.ingest(planted_copy(tmp_path / "inbox"), replace=True)
    second = await registry.chunk_rows("BHP-FY2024")
    assert sorted(second, key=lambda r: (r[1], r[0])) == sorted(
        registry.stored_rows("BHP-FY2024"), key=lambda r: (r[1], r[0])
    )
    kept, gone = set(first) & set(second), set(first) - set(second)
    assert kept and gone and len(second) == len(first)
    # Only the passages that held the planted figure changed.
    texts = {c.chunk_id: c.text for c in parse_document(BHP_FY2024).chunks}
    assert all(REAL_REVENUE in texts[chunk_id] for chunk_id, _, _ in gone)
    assert not any(REAL_REVENUE in texts[chunk_id] for chunk_id, _, _ in kept)


async def test_a_report_stored_under_numbered_ids_is_stored_again_under_ids_of_its_text(
    registry: Registry,
) -> None:
    """A report stored before ids followed the text (`document_id:n`) has the same hash,
    so it would count as unchanged; it is stored again, and its facts cite the new ids."""
    doc = parse_document(BHP_FY2024)
    numbered = [
        c.model_copy(update={"chunk_id": str(uuid.uuid5(CHUNK_NAMESPACE, f"BHP-FY2024:{n}"))})
        for n, c in enumerate(doc.chunks)
    ]
    doc.chunks = numbered
    assert registry.index.store(doc, str(BHP_FY2024)).status == "ingested"

    again = await registry.ingest(BHP_FY2024)

    assert again.status == "ingested"
    ids = {c.chunk_id for c in parse_document(BHP_FY2024).chunks}
    assert {row[0] for row in registry.stored_rows("BHP-FY2024")} == ids
    assert {f.chunk_id for f in await _all_facts(registry)} <= ids
