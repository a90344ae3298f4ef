"""Frozen snapshots of the report index, on Qdrant Edge and on qdrant-client's local mode:
a copy named by the corpus version, read like the live index, unmoved by a re-ingest, and
dropped when asked (a snapshot that is gone is InvalidInput, never retried)."""

from collections.abc import Callable
from pathlib import Path

import pytest
from temporalio.exceptions import ApplicationError

from backends.reports import ReportIndex, SnapshotMissing, read_index
from tests.conftest import CORPUS_DIR

ORIGINAL, ALTERED = "55,658", "57,913"


@pytest.fixture(params=["edge", "local"])
def index_engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def revenue(index: ReportIndex) -> str:
    [hit] = index.search("BHP revenue FY2024", "BHP", [2024], limit=1)
    [chunk] = index.get_chunks([hit.chunk_id])
    return chunk.text


def test_a_snapshot_reads_as_the_index_read_when_it_was_frozen(
    make_report_index: Callable[[], ReportIndex], tmp_path: Path
) -> None:
    original = CORPUS_DIR / "BHP_FY2024.md"
    altered = tmp_path / original.name
    altered.write_text(original.read_text(encoding="utf-8").replace(ORIGINAL, ALTERED))
    index = make_report_index()
    index.ingest_file(original)
    version, created = index.freeze()
    assert created and index.freeze() == (version, False)  # made once per version

    index.ingest_file(altered)
    frozen = index.at(version)
    assert index.corpus_version() != version and frozen.corpus_version() == version
    assert frozen.chunk_count() == index.chunk_count()
    assert ALTERED in revenue(index) and ORIGINAL in revenue(frozen)
    assert frozen.corpus_id == index.corpus_id  # the same registry describes both
    assert index.at(None) is index and index.snapshot_versions() == [version]

    index.drop_snapshot(version)
    assert index.snapshot_versions() == []
    with pytest.raises(SnapshotMissing):
        index.at(version)
    with pytest.raises(ApplicationError) as gone:
        read_index(index, version)
    assert gone.value.type == "InvalidInput" and gone.value.non_retryable
