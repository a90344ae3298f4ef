"""The semantic answer cache: answers already given, in their own Qdrant collection.

The vector is the resolved question; the payload is the clean answer with its citations,
the question's slots, its tenant and user, the corpus version it was answered from and
when it expires. A stored answer is offered again only when ALL of these hold:

- same tenant (a filter on the query itself, so another tenant's entries are never read);
- not expired (a fixed time to live from the write; a hit does not refresh it);
- the same slots (`domain.memory.rules.cache_slots`): companies, years, metric and line item,
  commodity, intent, polarity, figures, scale, currency. Similarity alone cannot tell
  FY2023 from FY2024;
- the corpus version it was answered from is the current one, and every chunk it cites
  still exists;
- similarity at least the hint threshold (hit at the higher one).

Written by us, not a library: GPTCache-style caches match on similarity alone, which
is the failure this module exists to prevent.
"""

import threading
import time
import uuid

from qdrant_client import models

from activities.contracts import CachedAnswer, CacheLookup, CacheWriteResult
from backends.embeddings import Embedder, collection_name
from backends.reports import IndexClient, ReportIndex, create_once
from domain.memory.rules import CacheSlots, cache_decision, cache_slots, cacheable

CANDIDATES = 5
"""Nearest entries checked by the guard per lookup (the nearest may differ in a slot)."""


QUARANTINED = "a partial answer (a claim the checks could not back) is never reused"
"""Why an answer graded partial is neither written nor served: its reader saw the
disclaimer; one served again from the cache would be shown as if checked afresh."""


class AnswerCache:
    def __init__(
        self,
        index: ReportIndex,
        hit_at: float = 0.95,
        hint_at: float = 0.80,
        ttl_seconds: float = 7 * 24 * 3600.0,
    ) -> None:
        if not 0 < hint_at <= hit_at <= 1:
            raise ValueError(f"cache thresholds: need 0 < hint {hint_at} <= hit {hit_at} <= 1")
        self.index = index
        self.hit_at = hit_at
        self.hint_at = hint_at
        self.ttl_seconds = ttl_seconds

    @property
    def client(self) -> IndexClient:
        return self.index.client

    @property
    def embedder(self) -> Embedder:
        return self.index.embedder

    @property
    def collection(self) -> str:
        """Named with the embedding model and dimension, like the report chunks: vectors
        of another model never meet these."""
        return collection_name("answers", self.embedder.name, self.embedder.dimension)

    @property
    def _lock(self) -> threading.RLock:
        # Local-mode Qdrant is not safe from several threads: one client, one lock.
        return self.index._lock

    def ensure_collection(self) -> None:
        keyword = models.PayloadSchemaType.KEYWORD
        with self._lock:
            create_once(
                self.client,
                self.collection,
                {
                    "tenant_id": keyword,
                    "user_id": keyword,
                    "expires_at": models.PayloadSchemaType.FLOAT,
                },
                vectors_config=models.VectorParams(
                    size=self.embedder.dimension, distance=models.Distance.COSINE
                ),
            )

    # ---- lookup ---------------------------------------------------------------------

    def lookup(self, tenant_id: str, question: str, now: float | None = None) -> CacheLookup:
        slots = cache_slots(question)
        version = self.index.corpus_version()
        if not cacheable(slots):
            return CacheLookup(
                outcome="miss", reason="not a cacheable figure question", corpus_version=version
            )
        vector = self.embedder.embed([question])[0]
        return self.lookup_vector(tenant_id, slots, vector, version, now)

    def _nearest(
        self, tenant_id: str, vector: list[float], moment: float
    ) -> list[models.ScoredPoint]:
        """The tenant's unexpired entries nearest the question, nearest first."""
        self.ensure_collection()
        flt = models.Filter(
            must=[
                models.FieldCondition(key="tenant_id", match=models.MatchValue(value=tenant_id)),
                models.FieldCondition(key="expires_at", range=models.Range(gt=moment)),
            ]
        )
        with self._lock:
            points = self.client.query_points(
                self.collection,
                query=vector,
                query_filter=flt,
                limit=CANDIDATES,
                with_payload=True,
            ).points
        return points

    def lookup_vector(
        self,
        tenant_id: str,
        slots: CacheSlots,
        vector: list[float],
        version: str,
        now: float | None = None,
    ) -> CacheLookup:
        """The guarded lookup for an already embedded question (the benchmark reuses it)."""
        # long: the slot guard's checks in the order a reviewer reads them, each with its reason.
        moment = time.time() if now is None else now
        points = self._nearest(tenant_id, vector, moment)
        if not points:
            return CacheLookup(outcome="miss", reason="no entry", corpus_version=version)
        reasons: list[str] = []
        for point in points:
            payload = point.payload or {}
            similarity = float(point.score)
            if similarity < self.hint_at:
                reasons.append(f"below {self.hint_at:.2f} ({similarity:.3f})")
                break  # points come nearest first
            # The stored question's slots are read again, not taken from the payload: a
            # guard made stricter applies to entries written before it.
            stored_question = str(payload.get("entry", {}).get("question", ""))
            differs = _differing(slots, cache_slots(stored_question))
            if differs:
                reasons.append(f"slots differ ({', '.join(differs)}) at {similarity:.3f}")
                continue
            if payload.get("corpus_version") != version:
                reasons.append("answered from an earlier corpus version")
                continue
            entry = CachedAnswer.model_validate(payload["entry"])
            if entry.unsupported:  # written before partial answers were quarantined
                reasons.append(QUARANTINED)
                continue
            cited = [c.chunk_id for c in entry.citations if c.chunk_id]
            if cited and len(self.index.get_chunks(cited)) != len(set(cited)):
                reasons.append("a cited chunk no longer exists")
                continue
            outcome = cache_decision(similarity, self.hit_at, self.hint_at)
            return CacheLookup(
                outcome=outcome,
                entry=entry,
                similarity=round(similarity, 4),
                corpus_version=version,
            )
        return CacheLookup(outcome="miss", reason="; ".join(reasons[:3]), corpus_version=version)

    # ---- write ----------------------------------------------------------------------

    def write(
        self,
        tenant_id: str,
        user_id: str | None,
        entry: CachedAnswer,
        corpus_version: str | None = None,
        now: float | None = None,
    ) -> CacheWriteResult:
        """Store a checked answer (the caller decided it may be stored). One entry per
        tenant and question: the same question answered again replaces it."""
        # long: one entry's build, guard and upsert; split, the stored entry's fields would be
        # spread.
        slots = cache_slots(entry.question)
        if not cacheable(slots):
            return CacheWriteResult(written=False, reason="not a cacheable figure question")
        if entry.unsupported:
            return CacheWriteResult(written=False, reason=QUARANTINED)
        version = corpus_version or self.index.corpus_version()
        if version != self.index.corpus_version():
            return CacheWriteResult(written=False, reason="the corpus changed during the turn")
        moment = time.time() if now is None else now
        vector = self.embedder.embed([entry.question])[0]
        self.ensure_collection()
        point = models.PointStruct(
            id=str(uuid.uuid5(uuid.NAMESPACE_URL, f"{tenant_id}\x00{entry.question}")),
            vector=vector,
            payload={
                "tenant_id": tenant_id,
                "user_id": user_id or "",
                "turn_id": entry.turn_id,
                "slots": slots.model_dump(mode="json"),
                "entry": entry.model_dump(mode="json"),
                "corpus_version": version,
                "created_at": moment,
                "expires_at": moment + self.ttl_seconds,
            },
        )
        with self._lock:
            self.client.upsert(self.collection, points=[point])
            # Expired entries are never read (the lookup filters them); this clears them.
            self.client.delete(
                self.collection,
                points_selector=models.FilterSelector(
                    filter=models.Filter(
                        must=[
                            models.FieldCondition(key="expires_at", range=models.Range(lte=moment))
                        ]
                    )
                ),
            )
        return CacheWriteResult(written=True)

    def forget_user(self, tenant_id: str, user_id: str) -> int:
        """Delete every entry written from this user's turns; returns how many."""
        self.ensure_collection()
        flt = models.Filter(
            must=[
                models.FieldCondition(key="tenant_id", match=models.MatchValue(value=tenant_id)),
                models.FieldCondition(key="user_id", match=models.MatchValue(value=user_id)),
            ]
        )
        with self._lock:
            count = self.client.count(self.collection, count_filter=flt, exact=True).count
            self.client.delete(self.collection, points_selector=models.FilterSelector(filter=flt))
        return count

    def entries(self, tenant_id: str) -> int:
        """Entries held for a tenant (expired ones included until the next write)."""
        self.ensure_collection()
        flt = models.Filter(
            must=[models.FieldCondition(key="tenant_id", match=models.MatchValue(value=tenant_id))]
        )
        with self._lock:
            return self.client.count(self.collection, count_filter=flt, exact=True).count


def _differing(asked: CacheSlots, stored: CacheSlots) -> list[str]:
    """The slot names on which two questions differ (empty: the same question)."""
    a, b = asked.model_dump(), stored.model_dump()
    return [name for name in a if a[name] != b.get(name)]
