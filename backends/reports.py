"""Report chunks in Qdrant: hybrid retrieval and ingestion.

`ReportIndex.search` is THE retrieval function: the workflow's retrieval activity, the
search route (through the worker) and the evaluation code all call it. Dense
(all-MiniLM-L6-v2) and BM25 sparse candidates are fused with Qdrant's own RRF in one
`query_points` call; the filter (company, optional fiscal year) applies to both.

`ReportIndex` is storage only: whether a file may become a company's report for a year
is the document registry's decision (PostgreSQL, checked by the ingest activity), so
tests and tools can still ingest straight into an index without a database.
"""

import hashlib
import re
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from qdrant_client import QdrantClient, models
from qdrant_client.conversions.common_types import PointId

from activities.contracts import IngestFileResult
from activities.errors import invalid_input
from backends.edge import EdgeClient
from backends.embeddings import Embedder, collection_name, embed_documents
from backends.rerank import RERANK_POOL, CohereReranker, RerankUnavailable
from domain.models import ChunkHit, ChunkText, RetrievalConfig
from ingestion import bm25
from ingestion.documents import (
    Chunk,
    DocumentError,
    ParsedDocument,
    legacy_document_id,
    parse_document,
)

SNAPSHOT_MARK = "@"
"""A snapshot's collection is the live one's name, this mark and its corpus version."""
COPY_BATCH = 256
LATER_REPORT_HITS = 3
"""Hits a search adds from later reports (restated comparatives) after the main ones."""
FACET_HITS = 4
"""Hits a search adds for each of its facets (an analyst's line items), after the main ones."""


IndexClient = QdrantClient | EdgeClient
"""A Qdrant server or local mode (qdrant-client), or Qdrant Edge (`backends.edge`):
the one interface `ReportIndex` and the answer cache call."""


def is_local(client: IndexClient) -> bool:
    """Local mode (a folder, or in memory): no payload indexes, one process only."""
    options = client.init_options
    return options.get("path") is not None or options.get("location") == ":memory:"


def create_once(
    client: IndexClient,
    name: str,
    indexes: dict[str, models.PayloadSchemaType],
    **config: Any,
) -> None:
    """Create collection `name` with `config` unless it exists, then its payload indexes
    (a server only: local mode ignores them, and warns). The caller holds the lock."""
    if client.collection_exists(name):
        return
    client.create_collection(name, **config)
    if is_local(client) and not isinstance(client, EdgeClient):
        return  # local mode has no payload indexes (and warns)
    for key, schema in indexes.items():
        client.create_payload_index(name, key, schema)


def open_qdrant(
    url: str | None, path: Path, api_key: str | None = None, engine: str = "edge"
) -> IndexClient:
    """Open Qdrant: a server when `url` is set, else embedded in `path` (one process only):
    Qdrant Edge, or qdrant-client's local mode with `engine="local"` (kept to compare)."""
    if url:
        return QdrantClient(url=url, api_key=api_key)
    path.mkdir(parents=True, exist_ok=True)
    if engine == "edge":
        return EdgeClient(path / "edge")
    return QdrantClient(path=str(path))


class SnapshotMissing(LookupError):
    """No frozen snapshot of the index for that corpus version."""


class ReportIndex:
    """The report-chunk collection of one embedding model, or a frozen snapshot of it
    (`at`): a copy named by the corpus version it held, read like the live one."""

    def __init__(
        self,
        client: IndexClient,
        embedder: Embedder,
        reranker: "CohereReranker | None" = None,
        *,
        snapshot_of: "ReportIndex | None" = None,
        version: str | None = None,
    ) -> None:
        self.client = client
        self.embedder = embedder
        live = collection_name("reports", embedder.name, embedder.dimension)
        self.collection = live if version is None else f"{live}{SNAPSHOT_MARK}{version}"
        self.reranker = reranker
        self._live = snapshot_of
        # Local-mode Qdrant is not safe for concurrent use from several threads: a
        # snapshot shares its live index's client, so it shares the lock too.
        self._lock: threading.RLock = (
            threading.RLock() if snapshot_of is None else snapshot_of._lock
        )
        self._version: str | None = None
        self._reports: dict[str, tuple[int, ...]] = {}
        self._snapshots: dict[str, ReportIndex] = {}

    @property
    def corpus_id(self) -> str:
        """Which collection this is, wherever it lives: the document registry's scope.

        A local folder is named by its resolved path and a server by its URL (never its
        key), so each test's throwaway index has registrations of its own.
        """
        if self._live is not None:  # a snapshot answers to its live index's registry
            return self._live.corpus_id
        options = self.client.init_options
        if options.get("path"):
            where = f"local:{Path(str(options['path'])).resolve()}"
        elif options.get("url"):
            where = str(options["url"])
        elif options.get("host"):
            where = f"{options['host']}:{options.get('port')}"
        else:
            where = str(options.get("location") or ":memory:")
        return f"{where}#{self.collection}"

    def at(self, version: str | None) -> "ReportIndex":
        """This index (`version` None), or its frozen snapshot of corpus `version`.

        Raises SnapshotMissing when no snapshot of that version was frozen (`freeze`)."""
        if version is None:
            return self
        live = self._live or self
        with self._lock:
            found = live._snapshots.get(version)
            if found is None:
                found = ReportIndex(
                    self.client, self.embedder, self.reranker, snapshot_of=live, version=version
                )
                if not self.client.collection_exists(found.collection):
                    raise SnapshotMissing(f"no snapshot of the index at corpus {version}")
                live._snapshots[version] = found
            return found

    def freeze(self) -> tuple[str, bool]:
        """Copy the live index as it stands into a collection named by its corpus version
        (points, vectors and payloads as they are: nothing is embedded again), unless one
        exists. Returns the version and whether this call made the copy.

        Under the index's lock, so no ingestion lands halfway through the copy; a copy
        left short by an interrupted freeze (fewer points than the index) is made again."""
        with self._lock:
            version = self.corpus_version()
            frozen = ReportIndex(
                self.client, self.embedder, self.reranker, snapshot_of=self, version=version
            )
            expected = self.chunk_count()
            if self.client.collection_exists(frozen.collection):
                if frozen.chunk_count() == expected:
                    return version, False
                self.client.delete_collection(frozen.collection)
            frozen.ensure_collection()
            offset: PointId | None = None
            while True:
                records, offset = self.client.scroll(
                    self.collection,
                    limit=COPY_BATCH,
                    offset=offset,
                    with_payload=True,
                    with_vectors=True,
                )
                points = [
                    models.PointStruct(id=r.id, vector=_vectors(r.vector), payload=r.payload)
                    for r in records
                ]
                if points:
                    self.client.upsert(frozen.collection, points=points)
                if offset is None:
                    break
            return version, True

    def snapshot_versions(self) -> list[str]:
        """The corpus versions this index has frozen snapshots of."""
        prefix = f"{self.collection}{SNAPSHOT_MARK}"
        with self._lock:
            names = [c.name for c in self.client.get_collections().collections]
        return sorted(n.removeprefix(prefix) for n in names if n.startswith(prefix))

    def drop_snapshot(self, version: str) -> None:
        """Delete the frozen snapshot of corpus `version` (nothing when there is none)."""
        with self._lock:
            self._snapshots.pop(version, None)
            name = f"{self.collection}{SNAPSHOT_MARK}{version}"
            if self.client.collection_exists(name):
                self.client.delete_collection(name)

    def ensure_collection(self) -> None:
        keyword = models.PayloadSchemaType.KEYWORD
        with self._lock:
            create_once(
                self.client,
                self.collection,
                {
                    "company": keyword,
                    "fiscal_year": models.PayloadSchemaType.INTEGER,
                    "years": models.PayloadSchemaType.INTEGER,
                    "document_id": keyword,
                    "source_path": keyword,
                },
                vectors_config={
                    "dense": models.VectorParams(
                        size=self.embedder.dimension, distance=models.Distance.COSINE
                    )
                },
                sparse_vectors_config={
                    "bm25": models.SparseVectorParams(modifier=models.Modifier.IDF)
                },
            )

    def _scroll(self, fields: list[str]) -> Iterable[models.Record]:
        offset: PointId | None = None
        while True:
            records, offset = self.client.scroll(
                self.collection, limit=512, offset=offset, with_payload=fields
            )
            yield from records
            if offset is None:
                return

    def document_hashes(self) -> dict[str, str]:
        """Return {document_id: content_hash} of everything ingested."""
        with self._lock:
            self.ensure_collection()
            return {
                str(r.payload["document_id"]): str(r.payload["content_hash"])
                for r in self._scroll(["document_id", "content_hash"])
                if r.payload
            }

    def corpus_version(self) -> str:
        """A content hash of the ingested corpus; changes whenever any document changes."""
        with self._lock:
            if self._version is None:
                self.ensure_collection()
                hashes: dict[str, str] = {}
                printed: dict[str, set[int]] = {}
                for r in self._scroll(["document_id", "content_hash", "company", "years"]):
                    if not r.payload:
                        continue
                    hashes[str(r.payload["document_id"])] = str(r.payload["content_hash"])
                    years = printed.setdefault(str(r.payload.get("company", "")), set())
                    years.update(int(y) for y in r.payload.get("years") or ())
                pairs = sorted(hashes.items())
                digest = hashlib.sha256("\n".join(f"{d}:{h}" for d, h in pairs).encode())
                self._version = digest.hexdigest()[:12] if pairs else "empty"
                self._reports = _reports(hashes, printed)
            return self._version

    def reports(self) -> dict[str, tuple[int, ...]]:
        """The fiscal years of the reports held, by company (read with the version)."""
        with self._lock:
            self.corpus_version()
            return dict(self._reports)

    def chunk_count(self) -> int:
        with self._lock:
            self.ensure_collection()
            return self.client.count(self.collection, exact=True).count

    def ingest_file(
        self, path: Path, company: str | None = None, fiscal_year: int | None = None
    ) -> IngestFileResult:
        """Parse, embed and store one file, unchecked by any registry (see `store`).

        Unusable files are reported in the result, never raised.
        """
        try:
            doc = parse_document(path, company, fiscal_year)
        except DocumentError as exc:
            return IngestFileResult(path=str(path), status="failed", error=str(exc))
        return self.store(doc, str(path))

    def _stored(self, document_id: str) -> tuple[str, str] | None:
        """(content hash, source path) of a stored document, None when absent."""
        records, _ = self.client.scroll(
            self.collection,
            scroll_filter=models.Filter(must=[_match("document_id", document_id)]),
            limit=1,
            with_payload=["content_hash", "source_path"],
        )
        if not records or not records[0].payload:
            return None
        payload = records[0].payload
        return str(payload["content_hash"]), str(payload.get("source_path", ""))

    def _chunks_of(self, document_id: str) -> int:
        """How many chunks of a document are stored."""
        found = self.client.count(
            self.collection,
            count_filter=models.Filter(must=[_match("document_id", document_id)]),
            exact=True,
        )
        return found.count

    def _stored_whole(self, doc: ParsedDocument) -> bool:
        """Whether exactly `doc`'s chunks are stored, under its chunks' ids (a document
        stored before ids followed the text has the same hash and other ids)."""
        if self._chunks_of(doc.document_id) != len(doc.chunks):
            return False
        ids: list[PointId] = [c.chunk_id for c in doc.chunks]
        return len(self.client.retrieve(self.collection, ids=ids, with_payload=False)) == len(ids)

    def store(self, doc: ParsedDocument, path: str) -> IngestFileResult:
        """Embed and store a parsed document in place of its previous version; idempotent.

        Point ids are derived from the document id and each chunk's text
        (`domain.provenance`), so storing the same document again writes nothing
        ("unchanged"), and an edited passage never keeps its old id. Otherwise every
        chunk of the same document id goes, and so does any other document read from the
        same file: a file re-ingested under corrected company or year flags is re-tagged,
        not duplicated.
        `path` is the path as the caller gave it, echoed in the result.
        """
        unchanged = self._unchanged(doc, path)
        if unchanged is not None:
            return unchanged
        points = self._points(doc)
        with self._lock:
            self.client.delete(
                self.collection,
                points_selector=models.FilterSelector(filter=_of_document(doc, path)),
            )
            # In batches: one call for a 10-K's thousand points holds the process for
            # seconds at a time (the worker's heartbeats wait behind it).
            for start in range(0, len(points), _UPSERT_BATCH):
                self.client.upsert(self.collection, points=points[start : start + _UPSERT_BATCH])
            self._version = None
        return _stored_result(doc, path, "ingested", len(points))

    def _unchanged(self, doc: ParsedDocument, path: str) -> IngestFileResult | None:
        """The result for a document stored whole already ("unchanged"), its source path
        brought up to date when the same bytes moved; None when it must be stored."""
        with self._lock:
            self.ensure_collection()
            stored = self._stored(doc.document_id)
            # Unchanged only when every chunk is there: an upsert cut short (a worker
            # killed mid-write) leaves some with the same hash, and the re-run redoes it.
            if stored is None or stored[0] != doc.content_hash or not self._stored_whole(doc):
                return None
            if stored[1] != doc.source_path:  # the same bytes, moved
                self.client.set_payload(
                    self.collection,
                    payload={"source_path": doc.source_path},
                    points=models.Filter(must=[_match("document_id", doc.document_id)]),
                )
            return _stored_result(doc, path, "unchanged", len(doc.chunks))

    def _points(self, doc: ParsedDocument) -> list[models.PointStruct]:
        """The document's chunks as points: dense and BM25 vectors, the chunk as payload."""
        vectors = embed_documents(self.embedder, [c.text for c in doc.chunks])
        points = []
        for chunk, dense in zip(doc.chunks, vectors, strict=True):
            indices, values = bm25.document_vector(chunk.text, bm25.chunk_acronyms(chunk.as_text()))
            points.append(
                models.PointStruct(
                    id=chunk.chunk_id,
                    vector={
                        "dense": dense,
                        "bm25": models.SparseVector(indices=indices, values=values),
                    },
                    payload=chunk.model_dump(),
                )
            )
        return points

    def search(
        self,
        query: str,
        company: str | None = None,
        fiscal_years: Sequence[int] = (),
        limit: int = 8,
        later_years: Sequence[int] = (),
        notes: list[str] | None = None,
        config: RetrievalConfig | None = None,
        facets: Sequence[str] = (),
    ) -> list[ChunkHit]:
        """Hybrid search: dense + BM25 candidates fused by Qdrant's RRF, filtered by
        company and by any of `fiscal_years` (none: every year). `later_years` adds up to
        `LATER_REPORT_HITS` hits from those years' reports after the main ones (a later
        report may restate a figure): searched apart, so they can never push a hit of the
        years asked about out of `limit`. Each of `facets` is searched apart too, its best
        `FACET_HITS` new hits added after the rest.

        With a reranker, `RERANK_POOL` fused candidates are reordered by it and the best
        `limit` kept; when it fails the fused order is kept and the reason is appended to
        `notes` (the caller records the degradation). `config` sets the knobs (prefetch,
        pool, rerank, fusion) for the A/B harness; none runs the defaults.
        """
        config = config or RetrievalConfig()
        # The query and each facet are searched several ways (the years' own reports,
        # others that print them, later ones): each is embedded once, in one batch.
        texts = list(dict.fromkeys([query, *facets]))
        vectors = dict(zip(texts, self.embedder.embed(texts), strict=True))
        hits = self._main(
            query, vectors[query], company, fiscal_years, limit, later_years, notes, config
        )
        if facets:
            return self._facets(hits, facets, vectors, company, fiscal_years, notes, config)
        return hits

    def _main(
        self,
        query: str,
        dense: list[float],
        company: str | None,
        fiscal_years: Sequence[int],
        limit: int,
        later_years: Sequence[int],
        notes: list[str] | None,
        config: RetrievalConfig,
    ) -> list[ChunkHit]:
        """The query's hits from the years' own reports, then from others that print
        those years and from `later_years`' reports (see `search`)."""
        hits = self._search(query, dense, company, fiscal_years, limit, notes, config)
        if not fiscal_years:
            return hits
        # Then other reports that print the years' figures (a later report's comparative
        # columns): they fill what the years' own reports leave of `limit`, else add a
        # few, never ranked above the reports of the years asked about.
        room = max(limit - len(hits), LATER_REPORT_HITS)
        printed = self._search(query, dense, company, fiscal_years, room, notes, config, True)
        extra = [y for y in later_years if y not in fiscal_years]
        later = (
            self._search(query, dense, company, extra, LATER_REPORT_HITS, notes, config)
            if extra
            else []
        )
        return _appended(hits, [*printed, *later])

    def _facets(
        self,
        hits: list[ChunkHit],
        facets: Sequence[str],
        vectors: dict[str, list[float]],
        company: str | None,
        fiscal_years: Sequence[int],
        notes: list[str] | None,
        config: RetrievalConfig,
    ) -> list[ChunkHit]:
        """`hits`, then each facet's best `FACET_HITS` tables not among them (a line item
        is printed in a table; the prose that discusses it would outrank it), from the
        years' own reports, then from others that print the years. With two or more years
        asked, each year's reports are searched apart for their best table too: one
        year's statement would otherwise take every place (a FY2021 10-K's income
        statement is as near the words as the FY2022 one's, and both print FY2021)."""
        for facet in facets:
            wanted = (facet, vectors[facet])
            hits = self._facet_hits(
                hits, wanted, company, fiscal_years, FACET_HITS, notes, config, bool(fiscal_years)
            )
            for year in fiscal_years if len(fiscal_years) > 1 else ():
                hits = self._facet_hits(
                    hits, wanted, company, [year], 1, notes, config, False, unless_found=True
                )
        return hits

    def _facet_hits(
        self,
        hits: list[ChunkHit],
        facet: tuple[str, list[float]],
        company: str | None,
        fiscal_years: Sequence[int],
        keep: int,
        notes: list[str] | None,
        config: RetrievalConfig,
        printed: bool,
        unless_found: bool = False,
    ) -> list[ChunkHit]:
        """`hits` and the facet's best `keep` tables not among them, from the years' own
        reports (and, `printed`, from others that print the years); `unless_found`: none
        when the best is among them already."""
        found = {h.chunk_id for h in hits}
        # Asked for as many more as are found already: the facet's best are often among
        # them, and it is the new ones that are wanted. Tables are kept from a wider search
        # rather than filtered in the query: Edge's filter does not match a boolean
        # payload (`is_table`).
        wanted = 4 * (FACET_HITS + len(found))
        text, dense = facet
        more = self._search(text, dense, company, fiscal_years, wanted, notes, config)
        if printed:
            more += self._search(text, dense, company, fiscal_years, wanted, notes, config, True)
        tables = [h for h in more if h.is_table]
        if unless_found and tables and tables[0].chunk_id in found:
            return hits
        new = [h for h in tables if h.chunk_id not in found]
        return _appended(hits, new[:keep])

    def _search(
        self,
        query: str,
        dense: list[float],
        company: str | None,
        fiscal_years: Sequence[int],
        limit: int,
        notes: list[str] | None,
        config: RetrievalConfig,
        printed: bool = False,
    ) -> list[ChunkHit]:
        """One hybrid query: `query`'s words (BM25) and its vector `dense`, fused."""
        flt = _search_filter(company, fiscal_years, printed)
        prefetch = _prefetch(query, dense, flt, config.prefetch)
        reranker = None if config.rerank is False else self.reranker
        if config.rerank and reranker is None and notes is not None:
            notes.append("reranking asked for, but no reranker is configured: fused order kept")
        pool = config.pool or (max(limit, RERANK_POOL) if reranker else limit)
        fusion = models.Fusion.DBSF if config.fusion == "dbsf" else models.Fusion.RRF
        ranked = self._fused(prefetch, fusion, dense, flt, 2 * max(pool, limit), config.prefetch)
        chunks = [
            (Chunk.model_validate(p.payload), float(p.score)) for p in ranked[: max(pool, limit)]
        ]
        if reranker and len(chunks) > 1:
            try:
                order = reranker.order(query, [c.text for c, _ in chunks], limit)
                chunks = [chunks[i] for i in order]
            except RerankUnavailable as err:
                if notes is not None:
                    notes.append(f"reranker unavailable, fused order kept: {err}")
        return [chunk.as_hit(rank, score) for rank, (chunk, score) in enumerate(chunks[:limit], 1)]

    def _fused(
        self,
        prefetch: list[models.Prefetch],
        fusion: models.Fusion,
        dense: list[float],
        flt: models.Filter | None,
        limit: int,
        nearest: int,
    ) -> list[models.ScoredPoint]:
        """The fused candidates in a fixed order: by score, a tie to the closer in meaning
        (the dense list's order, as local mode's fusion keeps it; its first `nearest`),
        then to the chunk id.

        Twice what is kept is asked for (`limit`): fused scores tie (two chunks each first
        in one list), and Edge returns tied points in no fixed order, so ties are broken
        here over more than the cut, and the same query gives the same hits."""
        with self._lock:
            self.ensure_collection()
            response = self.client.query_points(
                self.collection,
                prefetch=prefetch,
                query=models.FusionQuery(fusion=fusion),
                query_filter=flt,
                limit=limit,
                with_payload=True,
            )
            scores = [round(float(p.score), 9) for p in response.points]
            dense_rank: dict[str, int] = {}
            if len(set(scores)) < len(scores):
                closest = self.client.query_points(
                    self.collection,
                    query=dense,
                    using="dense",
                    query_filter=flt,
                    limit=nearest,
                    with_payload=False,
                )
                dense_rank = {str(p.id): i for i, p in enumerate(closest.points)}
        return _ranked(response.points, dense_rank)

    def find(self, company: str, fiscal_year: int, page: int, contains: str) -> list[str]:
        """Ids of the chunks of a report page whose text holds `contains`."""
        where = (("company", company), ("fiscal_year", fiscal_year), ("page", page))
        flt = models.Filter(must=[_match(key, value) for key, value in where])
        with self._lock:
            self.ensure_collection()
            records, _ = self.client.scroll(
                self.collection, scroll_filter=flt, limit=1000, with_payload=["text"]
            )
        return [str(r.id) for r in records if r.payload and contains in str(r.payload["text"])]

    def companies_naming(self, name: str, limit: int = 64) -> set[str]:
        """The companies whose reports' text holds every word of `name` in one chunk
        (Qdrant's full-text match, which needs no text index)."""
        flt = models.Filter(
            must=[models.FieldCondition(key="text", match=models.MatchText(text=name))]
        )
        with self._lock:
            self.ensure_collection()
            records, _ = self.client.scroll(
                self.collection, scroll_filter=flt, limit=limit, with_payload=["company"]
            )
        return {str(r.payload["company"]) for r in records if r.payload}

    def chunks_of(self, company: str, fiscal_years: Sequence[int] = ()) -> list[ChunkText]:
        """Every chunk of a company's reports (of `fiscal_years`, else all), in no order."""
        conditions: list[models.Condition] = [_match("company", company)]
        if fiscal_years:
            conditions.append(
                models.FieldCondition(
                    key="fiscal_year", match=models.MatchAny(any=list(fiscal_years))
                )
            )
        found: list[ChunkText] = []
        offset: PointId | None = None
        with self._lock:
            self.ensure_collection()
            while True:
                records, offset = self.client.scroll(
                    self.collection,
                    scroll_filter=models.Filter(must=conditions),
                    limit=512,
                    offset=offset,
                    with_payload=True,
                )
                found += [Chunk.model_validate(r.payload).as_text() for r in records]
                if offset is None:
                    return found

    def get_chunks(self, chunk_ids: list[str]) -> list[ChunkText]:
        """Load full chunk text by id (claim check); missing ids are simply absent."""
        if not chunk_ids:
            return []
        with self._lock:
            records = self.client.retrieve(self.collection, ids=chunk_ids, with_payload=True)
        by_id = {}
        for record in records:
            chunk = Chunk.model_validate(record.payload).as_text()
            by_id[chunk.chunk_id] = chunk
        return [by_id[c] for c in chunk_ids if c in by_id]


def _vectors(vector: Any) -> dict[str, Any]:
    """A scrolled point's named vectors, as an upsert takes them."""
    return dict(vector or {})


def read_index(index: ReportIndex, snapshot: str | None) -> ReportIndex:
    """The index a request reads: the live one, or the frozen snapshot it names. A
    snapshot that is gone (dropped as unused) is InvalidInput, non-retryable: asking
    again would not bring it back."""
    try:
        return index.at(snapshot)
    except SnapshotMissing as err:
        raise invalid_input(str(err)) from None


_UPSERT_BATCH = 128


_DOCUMENT_KEY = re.compile(r"(?P<ticker>.+?)-FY(?P<year>\d{4})(?:-.+)?")
"""A document id: its company and year (`ingestion.documents.document_key`)."""


def _reports(
    hashes: dict[str, str], printed: dict[str, set[int]] | None = None
) -> dict[str, tuple[int, ...]]:
    """Company and the years its reports give figures for: each report's own (from
    document ids, `BHP-FY2024`, or another filing's of that year, `JPM-FY2021-interim-
    2021-03-31`, ignoring ids from before documents were keyed by company and year) and
    the years its tables print beside it (`printed`, by company)."""
    found: dict[str, set[int]] = {}
    for document_id in hashes:
        if (keyed := _DOCUMENT_KEY.fullmatch(document_id)) is not None:
            found.setdefault(keyed["ticker"], set()).add(int(keyed["year"]))
    for ticker, years in (printed or {}).items():
        if ticker in found:
            found[ticker] |= years
    return {t: tuple(sorted(y)) for t, y in found.items()}


def _of_document(doc: ParsedDocument, path: str) -> models.Filter:
    """Every point a document's new version replaces: its own id's, any other document's
    read from the same file, and the file's chunks stored before documents were keyed by
    company and year (the file stem as their id, no source path)."""
    legacy = models.Filter(
        must=[
            _match("document_id", legacy_document_id(Path(path))),
            models.IsEmptyCondition(is_empty=models.PayloadField(key="source_path")),
        ]
    )
    return models.Filter(
        should=[
            _match("document_id", doc.document_id),
            _match("source_path", doc.source_path),
            legacy,
        ]
    )


def _stored_result(doc: ParsedDocument, path: str, status: str, chunks: int) -> IngestFileResult:
    """What storing a document did (`status`: "ingested" or "unchanged")."""
    return IngestFileResult(
        path=path,
        document_id=doc.document_id,
        status=status,
        chunks=chunks,
        problems=doc.problems,
        identified=doc.identified,
    )


def _search_filter(
    company: str | None, fiscal_years: Sequence[int], printed: bool
) -> models.Filter | None:
    """A search's filter: the company's reports of the years (`printed`: other reports
    that print the years' figures beside their own); None: every chunk."""
    conditions: list[models.Condition] = []
    excluded: list[models.Condition] = []
    if company:
        conditions.append(_match("company", company))
    if fiscal_years:
        asked = models.MatchAny(any=list(fiscal_years))
        if printed:
            # Another report's passage printing the years' figures beside its own.
            conditions.append(models.FieldCondition(key="years", match=asked))
            excluded.append(models.FieldCondition(key="fiscal_year", match=asked))
        else:
            conditions.append(models.FieldCondition(key="fiscal_year", match=asked))
    return models.Filter(must=conditions, must_not=excluded or None) if conditions else None


def _prefetch(
    query: str, dense: list[float], flt: models.Filter | None, limit: int
) -> list[models.Prefetch]:
    """The dense candidates, and the BM25 ones when the query has a term BM25 knows."""
    prefetch = [models.Prefetch(query=dense, using="dense", limit=limit, filter=flt)]
    indices, values = bm25.query_vector(query)
    if indices:
        prefetch.append(
            models.Prefetch(
                query=models.SparseVector(indices=indices, values=values),
                using="bm25",
                limit=limit,
                filter=flt,
            )
        )
    return prefetch


def _ranked(
    points: list[models.ScoredPoint], dense_rank: dict[str, int]
) -> list[models.ScoredPoint]:
    """Fused points by score, a tie to the earlier in `dense_rank`, then to the id."""
    last = len(dense_rank)
    return sorted(
        points,
        key=lambda p: (-round(float(p.score), 9), dense_rank.get(str(p.id), last), str(p.id)),
    )


def _match(key: str, value: str | int) -> models.FieldCondition:
    return models.FieldCondition(key=key, match=models.MatchValue(value=value))


def _appended(hits: list[ChunkHit], more: list[ChunkHit]) -> list[ChunkHit]:
    """`hits`, then each of `more` not already among them, ranked after them."""
    out = list(hits)
    seen = {h.chunk_id for h in out}
    for hit in more:
        if hit.chunk_id not in seen:
            seen.add(hit.chunk_id)
            out.append(hit.model_copy(update={"rank": len(out) + 1}))
    return out
