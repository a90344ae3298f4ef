"""Embeddings through an OpenAI-compatible endpoint and Cohere rerank, with the real
client libraries against the protocol-faithful fakes of testkit/fake_servers.py."""

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from qdrant_client import QdrantClient
from temporalio.exceptions import ApplicationError

from activities.errors import ErrorType
from backends.embeddings import LocalEmbedder, OpenAIEmbedder, collection_name
from backends.reports import ReportIndex
from backends.rerank import RERANK_POOL, CohereReranker, RerankUnavailable
from testkit.fake_servers import FakeCohere, FakeOpenAI

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "reports"


@pytest.fixture(scope="module")
def openai_fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI().running() as server:
        yield server


@pytest.fixture(scope="module")
def cohere_fake() -> Iterator[FakeCohere]:
    with FakeCohere().running() as server:
        yield server


@pytest.fixture(autouse=True)
def _clean(openai_fake: FakeOpenAI, cohere_fake: FakeCohere) -> None:
    for fake in (openai_fake, cohere_fake):
        fake.queue.clear()
        fake.requests.clear()
        fake.retry_after = "1"


def embedder(fake: FakeOpenAI) -> OpenAIEmbedder:
    return OpenAIEmbedder(fake.base_url, fake.api_key, "text-embedding-fake", timeout_seconds=5)


# ---- embeddings ----------------------------------------------------------------------


def test_the_dimension_comes_from_the_endpoint_and_names_the_collection(
    openai_fake: FakeOpenAI,
) -> None:
    model = embedder(openai_fake)
    assert model.dimension == openai_fake.embedding_dimension
    assert collection_name("reports", model.name, model.dimension) == (
        "reports__text-embedding-fake-64d"
    )
    vectors = model.embed(["BHP revenue", "Rio Tinto net debt", "BHP revenue"])
    assert vectors[0] == vectors[2] and vectors[0] != vectors[1]
    assert vectors[0] == pytest.approx(openai_fake.vector("BHP revenue"), abs=1e-6)


def test_vectors_of_different_models_never_share_a_collection(
    openai_fake: FakeOpenAI, embedder_local: LocalEmbedder, tmp_path: Path
) -> None:
    client = QdrantClient(path=str(tmp_path / "q"))
    try:
        remote = ReportIndex(client, embedder(openai_fake))
        local = ReportIndex(client, embedder_local)
        assert remote.collection != local.collection
        remote.ensure_collection()
        assert remote.ingest_file(CORPUS / "BHP_FY2024.md").status == "ingested"
        hits = remote.search("BHP revenue FY2024", "BHP", [2024], 5)
        assert hits and {h.company for h in hits} == {"BHP"}
        assert local.chunk_count() == 0  # the other model's collection holds nothing
    finally:
        client.close()


@pytest.fixture(scope="module")
def embedder_local() -> LocalEmbedder:
    return LocalEmbedder()


def test_an_embeddings_outage_is_a_classified_error(openai_fake: FakeOpenAI) -> None:
    model = embedder(openai_fake)
    openai_fake.fail_next("429")
    with pytest.raises(ApplicationError) as caught:
        model.embed(["x"])
    assert caught.value.type == ErrorType.UPSTREAM_UNAVAILABLE
    assert caught.value.next_retry_delay == timedelta(seconds=1)


def test_a_wrong_embeddings_key_stops_the_start(openai_fake: FakeOpenAI) -> None:
    with pytest.raises(ApplicationError) as caught:
        OpenAIEmbedder(openai_fake.base_url, "sk-wrong", "text-embedding-fake")
    assert caught.value.type == ErrorType.UPSTREAM_REJECTED and caught.value.non_retryable


# ---- rerank ----------------------------------------------------------------------------


def reranker(fake: FakeCohere) -> CohereReranker:
    return CohereReranker(api_key=fake.api_key, model="rerank-fake", base_url=fake.base_url)


def test_rerank_orders_the_candidates_best_first(cohere_fake: FakeCohere) -> None:
    order = reranker(cohere_fake).order(
        "net debt", ["revenue rose", "net debt fell to US$9.12 billion", "debt"], top_n=2
    )
    assert order == [1, 2]
    sent = cohere_fake.requests[-1]
    assert (sent["model"], sent["top_n"], len(sent["documents"])) == ("rerank-fake", 2, 3)


def test_search_reranks_the_fused_pool_down_to_the_limit(
    cohere_fake: FakeCohere, report_index: ReportIndex
) -> None:
    reranked = ReportIndex(report_index.client, report_index.embedder, reranker(cohere_fake))
    notes: list[str] = []
    hits = reranked.search("BHP net debt FY2024", "BHP", [2024], 8, notes=notes)
    assert notes == [] and len(hits) == 8
    assert len(cohere_fake.requests[-1]["documents"]) == RERANK_POOL
    assert [h.rank for h in hits] == list(range(1, 9))
    fused = report_index.search("BHP net debt FY2024", "BHP", [2024], RERANK_POOL)
    assert {h.chunk_id for h in hits} <= {h.chunk_id for h in fused}


def test_a_reranker_failure_keeps_the_fused_order_and_says_so(
    cohere_fake: FakeCohere, report_index: ReportIndex
) -> None:
    reranked = ReportIndex(report_index.client, report_index.embedder, reranker(cohere_fake))
    cohere_fake.fail_next("500")
    notes: list[str] = []
    hits = reranked.search("BHP net debt FY2024", "BHP", [2024], 8, notes=notes)
    fused = report_index.search("BHP net debt FY2024", "BHP", [2024], 8)
    assert [h.chunk_id for h in hits] == [h.chunk_id for h in fused]
    assert len(notes) == 1 and notes[0].startswith("reranker unavailable, fused order kept")


def test_a_short_retry_after_is_honoured_once_and_a_long_one_falls_back(
    cohere_fake: FakeCohere,
) -> None:
    model = reranker(cohere_fake)
    cohere_fake.fail_next("429")
    assert model.order("debt", ["a", "debt"], 2) == [1, 0]
    assert model.calls == 2  # waited the second, then succeeded
    cohere_fake.retry_after = "30"
    cohere_fake.fail_next("429")
    with pytest.raises(RerankUnavailable):
        model.order("debt", ["a", "debt"], 2)


def test_the_rerank_fake_rejects_what_cohere_rejects(cohere_fake: FakeCohere) -> None:
    with pytest.raises(RerankUnavailable) as caught:
        CohereReranker(api_key="wrong", base_url=cohere_fake.base_url).order("q", ["d"], 1)
    assert "401" in str(caught.value)
    with pytest.raises(RerankUnavailable) as caught:
        reranker(cohere_fake).order("q", [], 1)
    assert "400" in str(caught.value)
