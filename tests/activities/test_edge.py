"""The Qdrant Edge adapter (`backends/edge.py`) on real Edge shards: what it keeps over
a restart, and that a call it does not translate fails loudly instead of differing."""

from collections.abc import Callable
from pathlib import Path

import pytest
from qdrant_client import models

from backends.edge import EdgeClient
from backends.embeddings import LocalEmbedder
from backends.reports import ReportIndex
from tests.conftest import CORPUS_DIR, cached


def test_a_reopened_shard_holds_what_was_stored(tmp_path: Path, embedder: LocalEmbedder) -> None:
    client = EdgeClient(tmp_path / "edge")
    index = ReportIndex(client, cached(embedder))
    index.ensure_collection()
    stored = index.ingest_file(CORPUS_DIR / "BHP_FY2024.md")
    client.close()

    reopened = ReportIndex(EdgeClient(tmp_path / "edge"), cached(embedder))
    assert reopened.chunk_count() == stored.chunks > 0
    assert reopened.ingest_file(CORPUS_DIR / "BHP_FY2024.md").status == "unchanged"
    hits = reopened.search("BHP revenue FY2024", "BHP", [2024], 5)
    assert hits and {h.company for h in hits} == {"BHP"}


def test_a_filter_the_adapter_does_not_translate_raises(
    make_report_index: Callable[[], ReportIndex],
) -> None:
    index = make_report_index()
    assert isinstance(index.client, EdgeClient)
    geo = models.Filter(
        must=[
            models.FieldCondition(
                key="where",
                geo_radius=models.GeoRadius(
                    center=models.GeoPoint(lon=115.86, lat=-31.95), radius=1000.0
                ),
            )
        ]
    )
    with pytest.raises(NotImplementedError, match="without match or range"):
        index.client.count(index.collection, count_filter=geo)
    # The filters the product uses are translated (quiet).
    company = models.Filter(
        must=[models.FieldCondition(key="company", match=models.MatchValue(value="BHP"))]
    )
    assert index.client.count(index.collection, count_filter=company).count == 0
