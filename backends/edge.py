"""Qdrant Edge (`qdrant-edge-py`) behind the part of qdrant-client's interface we use.

The embedded index was qdrant-client's local mode: pure Python, so a filtered hybrid
query cost about 30 ms of CPU at 600 points and 350 ms at 6,000. Edge is Qdrant's own
engine in this process (the same segments, HNSW, sparse index and fusion as a server).
qdrant-client stays for a Qdrant server (`TURNSTILE_QDRANT_URL`).

One interface, two adapters: `ReportIndex` and `AnswerCache` call the methods below with
qdrant-client's `models`, and `EdgeClient` answers them from one Edge shard per
collection (a directory under its root), translating each model to Edge's. Only what the
product calls is translated; anything else raises `NotImplementedError`, so a new use is
found by its test, not by a silent difference. Written here because neither library
ships such an adapter (Edge's API is its own and still moves: the package is pinned).

A shard directory is held by one process, as local mode's folder was: the worker.
"""

import shutil
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import qdrant_edge as edge
from qdrant_client import models


@dataclass(frozen=True)
class _Count:
    count: int


@dataclass(frozen=True)
class _Response:
    points: list[Any]


def _match(match: Any) -> Any:
    if isinstance(match, models.MatchValue):
        return edge.MatchValue(match.value)
    if isinstance(match, models.MatchAny):
        return edge.MatchAny(list(match.any))  # type: ignore[arg-type]
    if isinstance(match, models.MatchText):
        return edge.MatchText(match.text)
    raise NotImplementedError(f"match {type(match).__name__}")


def _condition(condition: Any) -> Any:
    if isinstance(condition, models.FieldCondition):
        if condition.match is not None:
            return edge.FieldCondition(key=condition.key, match=_match(condition.match))
        if condition.range is not None:
            r = condition.range
            return edge.FieldCondition(
                key=condition.key,
                range=edge.RangeFloat(gte=r.gte, gt=r.gt, lte=r.lte, lt=r.lt),  # type: ignore[arg-type]
            )
        raise NotImplementedError(f"field condition on {condition.key} without match or range")
    if isinstance(condition, models.IsEmptyCondition):
        return edge.IsEmptyCondition(condition.is_empty.key)
    if isinstance(condition, models.Filter):
        return _filter(condition)
    raise NotImplementedError(f"condition {type(condition).__name__}")


def _conditions(conditions: Any) -> list[Any] | None:
    if conditions is None:
        return None
    if not isinstance(conditions, list):
        conditions = [conditions]
    return [_condition(c) for c in conditions]


def _filter(flt: models.Filter | None) -> edge.Filter | None:
    if flt is None:
        return None
    return edge.Filter(
        must=_conditions(flt.must),
        should=_conditions(flt.should),
        must_not=_conditions(flt.must_not),
    )


def _vector(vector: Any) -> Any:
    if isinstance(vector, models.SparseVector):
        return edge.SparseVector(list(vector.indices), list(vector.values))
    if isinstance(vector, dict):
        return {name: _vector(v) for name, v in vector.items()}
    return list(vector)


def _client_vector(vector: Any) -> Any:
    """An Edge record's vector(s) as qdrant-client's models (a copy upserts them back)."""
    if isinstance(vector, dict):
        return {name: _client_vector(v) for name, v in vector.items()}
    if isinstance(vector, edge.SparseVector):
        return models.SparseVector(indices=list(vector.indices), values=list(vector.values))
    return list(vector)


@dataclass(frozen=True)
class _Record:
    id: Any
    payload: Any
    vector: Any


@dataclass(frozen=True)
class _Named:
    name: str


@dataclass(frozen=True)
class _Collections:
    collections: list[_Named]


def _nearest(query: Any, using: str | None) -> Any:
    return edge.Query.Nearest(_vector(query), using=using)


def _payload(with_payload: Any) -> Any:
    return list(with_payload) if isinstance(with_payload, (list, tuple)) else bool(with_payload)


class EdgeClient:
    """qdrant-client's calls that the index and the answer cache make, on Edge shards."""

    def __init__(self, root: Path) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.root = root
        self.init_options: dict[str, Any] = {"path": str(root), "engine": "edge"}
        self._shards: dict[str, edge.EdgeShard] = {}
        self._lock = threading.RLock()

    def _dir(self, name: str) -> Path:
        return self.root / name

    def _shard(self, name: str) -> edge.EdgeShard:
        with self._lock:
            shard = self._shards.get(name)
            if shard is None:
                if not (self._dir(name) / "edge_config.json").exists():
                    raise ValueError(f"Collection {name} not found")
                shard = edge.EdgeShard.load(str(self._dir(name)))
                self._shards[name] = shard
            return shard

    def collection_exists(self, name: str) -> bool:
        return name in self._shards or (self._dir(name) / "edge_config.json").exists()

    def create_collection(
        self,
        name: str,
        vectors_config: models.VectorParams | dict[str, models.VectorParams],
        sparse_vectors_config: dict[str, models.SparseVectorParams] | None = None,
    ) -> None:
        def dense(params: models.VectorParams) -> edge.EdgeVectorParams:
            if params.distance != models.Distance.COSINE:
                raise NotImplementedError(f"distance {params.distance}")
            return edge.EdgeVectorParams(size=params.size, distance=edge.Distance.Cosine)

        vectors: Any = (
            {k: dense(v) for k, v in vectors_config.items()}
            if isinstance(vectors_config, dict)
            else dense(vectors_config)
        )
        sparse = {
            k: edge.EdgeSparseVectorParams(
                modifier=edge.Modifier.Idf if v.modifier == models.Modifier.IDF else None
            )
            for k, v in (sparse_vectors_config or {}).items()
        }
        config = edge.EdgeConfig(vectors=vectors, sparse_vectors=sparse or None)
        with self._lock:
            self._shards[name] = edge.EdgeShard.create(str(self._dir(name)), config)

    def create_payload_index(self, name: str, key: str, schema: models.PayloadSchemaType) -> None:
        kinds = {
            models.PayloadSchemaType.KEYWORD: edge.PayloadSchemaType.Keyword,
            models.PayloadSchemaType.INTEGER: edge.PayloadSchemaType.Integer,
            models.PayloadSchemaType.FLOAT: edge.PayloadSchemaType.Float,
        }
        self._update(name, edge.UpdateOperation.create_field_index(key, kinds[schema]))

    def _update(self, name: str, operation: edge.UpdateOperation) -> None:
        shard = self._shard(name)
        shard.update(operation)

    def upsert(self, name: str, points: Sequence[models.PointStruct]) -> None:
        converted = [edge.Point(p.id, _vector(p.vector), p.payload or {}) for p in points]
        self._update(name, edge.UpdateOperation.upsert_points(converted))
        self._shard(name).flush()

    def delete(self, name: str, points_selector: Any) -> None:
        if isinstance(points_selector, models.FilterSelector):
            flt = _filter(points_selector.filter)
            assert flt is not None
            operation = edge.UpdateOperation.delete_points_by_filter(flt)
        elif isinstance(points_selector, models.PointIdsList):
            operation = edge.UpdateOperation.delete_points(list(points_selector.points))
        else:
            raise NotImplementedError(f"points selector {type(points_selector).__name__}")
        self._update(name, operation)
        self._shard(name).flush()

    def set_payload(self, name: str, payload: dict[str, Any], points: models.Filter) -> None:
        flt = _filter(points)
        assert flt is not None
        self._update(name, edge.UpdateOperation.set_payload_by_filter(flt, payload))
        self._shard(name).flush()

    def count(
        self, name: str, count_filter: models.Filter | None = None, exact: bool = True
    ) -> _Count:
        return _Count(
            self._shard(name).count(edge.CountRequest(filter=_filter(count_filter), exact=exact))
        )

    def scroll(
        self,
        name: str,
        scroll_filter: models.Filter | None = None,
        limit: int = 10,
        offset: Any = None,
        with_payload: Any = True,
        with_vectors: bool = False,
    ) -> tuple[list[Any], Any]:
        request = edge.ScrollRequest(
            offset=offset,
            limit=limit,
            filter=_filter(scroll_filter),
            with_payload=_payload(with_payload),
            with_vector=with_vectors,
        )
        records, next_offset = self._shard(name).scroll(request)
        if with_vectors:
            return [
                _Record(r.id, r.payload, _client_vector(r.vector)) for r in records
            ], next_offset
        return list(records), next_offset

    def get_collections(self) -> "_Collections":
        with self._lock:
            names = {p.name for p in self.root.iterdir() if (p / "edge_config.json").exists()}
            return _Collections([_Named(n) for n in sorted(names | set(self._shards))])

    def delete_collection(self, name: str) -> None:
        with self._lock:
            shard = self._shards.pop(name, None)
            if shard is not None:
                shard.close()
            shutil.rmtree(self._dir(name), ignore_errors=True)

    def retrieve(self, name: str, ids: Sequence[Any], with_payload: Any = True) -> list[Any]:
        return list(self._shard(name).retrieve(list(ids), _payload(with_payload), False))

    def query_points(
        self,
        name: str,
        query: Any = None,
        prefetch: Sequence[models.Prefetch] | None = None,
        query_filter: models.Filter | None = None,
        limit: int = 10,
        with_payload: Any = True,
        using: str | None = None,
    ) -> _Response:
        prefetches = [
            edge.Prefetch(
                limit=p.limit or limit, query=_nearest(p.query, p.using), filter=_filter(p.filter)
            )
            for p in (prefetch or [])
        ]
        if isinstance(query, models.FusionQuery):
            scoring: Any = (
                edge.Fusion.Dbsf() if query.fusion == models.Fusion.DBSF else edge.Fusion.Rrf(k=2)
            )
        elif query is None:
            scoring = None
        else:
            scoring = _nearest(query, using)
        request = edge.QueryRequest(
            limit=limit,
            query=scoring,
            prefetches=prefetches or None,
            filter=_filter(query_filter),
            with_payload=_payload(with_payload),
            with_vector=False,
        )
        return _Response(list(self._shard(name).query(request)))

    def close(self) -> None:
        with self._lock:
            for shard in self._shards.values():
                shard.flush()
                shard.close()
            self._shards.clear()
