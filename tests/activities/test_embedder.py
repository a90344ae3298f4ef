"""The local embedder batches concurrent callers without mixing up their vectors."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from activities.embeddings import LocalEmbedder

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
