"""Scale benchmark: the embedded index holding 5, 50 and 150 full-length reports.

    .venv/bin/python -m bench.scale [--sizes 5,50,150] [--pages 110] [--engine edge|local]
                                    [--json]

For each size N the index holds the sample corpus (the five sample companies' fifteen
reports, Markdown) and N - 5 generated full-length PDF reports of other companies
(`testkit/reportgen.py`, `--pages` pages each: statements in columns, notes, prose), read
by the product's PDF reader and stored by `ReportIndex` as the worker stores them, in
this process (the index is held by one process, as the worker holds it).

Per size it reports: ingest seconds per page of the generated reports (read, embed,
store; the embedder's vector cache is off, so every chunk is embedded), points and the
index's size on disk, the CPU and wall time per search (the retrieval suite's
questions, each filtered by its company and year, as a turn's per-company search is;
p50 and p95: the index's query alone, its query vector kept from a first pass, and with
the query's embedding), this process's resident memory, and hit@5 / MRR@5 of the retrieval suite
(the sample companies' questions, asked as typed) at that size.

Sizes are cumulative: the index grows from one size to the next, so the 150-report
figures include the 50. `--engine local` runs qdrant-client's local mode instead of
Qdrant Edge, for the same-hour comparison. Targets (the issue's, reported, never
asserted): a 150-page report ingests in under 60 s; at 150 reports search p50 <= 20 ms
per company query with resident memory under 3 GB; hit@5 within 0.02 of the 5-report
figure.
"""

import argparse
import json
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from backends.embeddings import LocalEmbedder
from backends.reports import ReportIndex, open_qdrant
from domain.companies.roster import Company, aliases_for, use_coverage
from domain.evaluation.scoring import RetrievalExpected, first_hit_rank
from evals.cases import load_suites
from evals.ranking import ranx_metrics
from ingestion.companies import sample_coverage
from ingestion.documents import parse_document
from settings import get_settings
from testkit.reportgen import write_report


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _size_mb(path: Path) -> float:
    """Disk blocks in use (Edge preallocates sparse files: their length says little)."""
    return sum(f.stat().st_blocks * 512 for f in path.rglob("*") if f.is_file()) / 1e6


class _Remembered:
    """The embedder with the queries' vectors kept: the second pass of searches times
    the index alone, not the model."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name, self.dimension = inner.name, inner.dimension
        self.kept: dict[str, list[float]] = {}

    def embed(self, texts: list[str]) -> list[list[float]]:
        missing = [t for t in texts if t not in self.kept]
        if missing:
            self.kept.update(zip(missing, self.inner.embed(missing), strict=True))
        return [self.kept[t] for t in texts]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.inner.embed_documents(texts)  # type: ignore[no-any-return]


def _searches(index: ReportIndex) -> dict[str, Any]:
    cases = [
        c
        for c in load_suites(["retrieval"])["retrieval"]
        if isinstance(c.expected, RetrievalExpected)
    ]
    cpu: list[float] = []
    wall: list[float] = []
    first: dict[str, int | None] = {}
    index.embedder.kept.clear()  # type: ignore[attr-defined]  # the first pass embeds
    for case in cases:
        expected = case.expected
        assert isinstance(expected, RetrievalExpected)
        c0, w0 = time.process_time(), time.perf_counter()
        hits = index.search(case.query, expected.company, [expected.fiscal_year], 5)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
        chunks = index.get_chunks([h.chunk_id for h in hits])
        first[case.id] = first_hit_rank(expected, chunks)
    measures = ranx_metrics(first, 5)
    # The same searches again, their query vectors kept: the index's own cost.
    index_cpu: list[float] = []
    index_wall: list[float] = []
    for case in cases:
        expected = case.expected
        assert isinstance(expected, RetrievalExpected)
        c0, w0 = time.process_time(), time.perf_counter()
        index.search(case.query, expected.company, [expected.fiscal_year], 5)
        index_cpu.append(time.process_time() - c0)
        index_wall.append(time.perf_counter() - w0)
    return {
        "queries": len(cases),
        "index_cpu_ms_p50": round(1000 * statistics.median(index_cpu), 2),
        "index_ms_p50": round(1000 * statistics.median(index_wall), 2),
        "index_ms_p95": round(1000 * statistics.quantiles(index_wall, n=20)[18], 2),
        "search_cpu_ms_p50": round(1000 * statistics.median(cpu), 2),
        "search_ms_p50": round(1000 * statistics.median(wall), 2),
        "search_ms_p95": round(1000 * statistics.quantiles(wall, n=20)[18], 2),
        "hit@5": round(measures["hit@5"], 3),
        "mrr@5": round(measures["mrr@5"], 3),
    }


def run(sizes: list[int], pages: int, engine: str, workdir: Path) -> list[dict[str, Any]]:
    client = open_qdrant(None, workdir / "index", engine=engine)
    index = ReportIndex(client, _Remembered(LocalEmbedder()))  # type: ignore[arg-type]
    index.ensure_collection()
    use_coverage(sample_coverage(get_settings().corpus_dir))
    for path in sorted(get_settings().corpus_dir.glob("*.md")):
        index.ingest_file(path)
    reports_dir = workdir / "reports"
    reports_dir.mkdir()
    results: list[dict[str, Any]] = []
    generated = 0
    for size in sizes:
        ingest_seconds, ingest_pages = 0.0, 0
        while 5 + generated < size:
            n = generated + 1
            ticker, name = f"SYN{n:03d}", f"Synthetic Mining {n:03d}"
            path = reports_dir / f"{ticker}.pdf"
            write_report(path, name, 2024, pages=pages, seed=n)
            start = time.perf_counter()
            doc = parse_document(path, Company(ticker, name, aliases_for(ticker, name)), 2024)
            result = index.store(doc, str(path))
            ingest_seconds += time.perf_counter() - start
            ingest_pages += pages
            assert result.status == "ingested", result
            path.unlink()
            generated += 1
            print(f"[scale] {5 + generated} reports, {index.chunk_count()} points", file=sys.stderr)
        row = {
            "reports": size,
            "engine": engine,
            "points": index.chunk_count(),
            "index_mb": round(_size_mb(workdir / "index"), 1),
            "ingest_s_per_page": round(ingest_seconds / ingest_pages, 3) if ingest_pages else None,
            "rss_mb": round(_rss_mb()),
            **_searches(index),
        }
        print(f"[scale] {row}", file=sys.stderr)
        results.append(row)
    client.close()
    return results


def render(rows: list[dict[str, Any]], pages: int) -> str:
    head = (
        f"scale benchmark: {rows[0]['engine'] if rows else '?'} index, generated reports of "
        f"{pages} pages, searches filtered by company and year\n\n"
        "reports   points  index MB  ingest s/page  RSS MB | index query: CPU ms p50  "
        "ms p50   p95 | with the query's embedding: ms p50   p95 | hit@5  MRR@5"
    )
    lines = [head]
    for r in rows:
        per_page = "-" if r["ingest_s_per_page"] is None else f"{r['ingest_s_per_page']:.3f}"
        lines.append(
            f"{r['reports']:>7} {r['points']:>8} {r['index_mb']:>9} {per_page:>14} "
            f"{r['rss_mb']:>7} | {r['index_cpu_ms_p50']:>23} {r['index_ms_p50']:>6} "
            f"{r['index_ms_p95']:>5} | {r['search_ms_p50']:>33} {r['search_ms_p95']:>5} | "
            f"{r['hit@5']:>5} {r['mrr@5']:>6}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="5,50,150", help="reports held, cumulative")
    parser.add_argument("--pages", type=int, default=110, help="pages per generated report")
    parser.add_argument("--engine", choices=("edge", "local"), default="edge")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    workdir = Path(tempfile.mkdtemp(prefix="turnstile-scale-"))
    try:
        rows = run(sizes, args.pages, args.engine, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(json.dumps(rows, indent=2) if args.json else render(rows, args.pages))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
