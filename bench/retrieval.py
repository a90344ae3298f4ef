"""Retrieval benchmark: do figure questions find the chunk that holds the figure?

Run by hand: `python -m bench.retrieval [--limit 5] [--json] [--source auto|local|api]`.

Each question in `retrieval_questions.jsonl` names a company, a fiscal year and a figure
exactly as the report prints it. The question is searched with THE retrieval function
(`ReportIndex.search`, directly or through the running stack's `/v1/search`) filtered by
company only, never by year, so choosing the right year is part of the test. A hit is
any returned chunk of that company and fiscal year whose text contains the figure.

Reported: hit@k (share of questions with a hit in the top k), the mean rank of the first
hit among the questions that have one, MRR@k, and every miss with what came back
instead. hit@k and MRR@k are computed with `ranx` (Qrels/Run, `hit_rate@k`, `mrr@k`) and
cross-checked against a direct count.
"""

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
import warnings
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx
from pydantic import BaseModel, ConfigDict

QUESTIONS = Path(__file__).with_name("retrieval_questions.jsonl")
TARGET_HIT_RATE = 0.95
# ranx needs at least one relevant document per query; in API mode only the returned
# chunks can be judged, so each query also gets this id, which no run ever contains.
UNRETRIEVABLE = "__figure-bearing chunk not returned__"


class Question(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    query: str
    company: str
    fiscal_year: int
    figure: str
    synonym: bool


@dataclass(frozen=True)
class Returned:
    chunk_id: str
    company: str
    fiscal_year: int
    page: int
    section: str
    text: str


@dataclass
class Outcome:
    id: str
    query: str
    company: str
    fiscal_year: int
    figure: str
    synonym: bool
    first_hit_rank: int | None
    returned: list[str]


def load_questions(path: Path = QUESTIONS) -> list[Question]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [Question.model_validate_json(line) for line in lines if line.strip()]


def is_hit(question: Question, chunk: Returned) -> bool:
    return (
        chunk.company == question.company
        and chunk.fiscal_year == question.fiscal_year
        and question.figure in chunk.text
    )


class LocalSource:
    """A fresh ReportIndex in a temporary folder with the sample corpus ingested."""

    name = "local"

    def __init__(self, corpus_dir: Path) -> None:
        from activities.embeddings import LocalEmbedder
        from activities.reports import ReportIndex, open_qdrant

        self._tmp = tempfile.TemporaryDirectory(prefix="turnstile-bench-")
        self.index = ReportIndex(open_qdrant(None, Path(self._tmp.name)), LocalEmbedder())
        self.index.ensure_collection()
        for path in sorted(corpus_dir.glob("*.md")):
            result = self.index.ingest_file(path)
            if result.status == "failed":
                raise SystemExit(f"bench: cannot ingest {path}: {result.error}")
        self.corpus_version = self.index.corpus_version()

    def search(self, question: Question, limit: int) -> list[Returned]:
        hits = self.index.search(question.query, question.company, limit=limit)
        texts = {c.chunk_id: c.text for c in self.index.get_chunks([h.chunk_id for h in hits])}
        return [
            Returned(h.chunk_id, h.company, h.fiscal_year, h.page, h.section, texts[h.chunk_id])
            for h in hits
        ]

    def relevant_ids(self, question: Question) -> set[str]:
        """Every chunk of the question's report that holds the figure (for full qrels)."""
        from qdrant_client import models

        flt = models.Filter(
            must=[
                models.FieldCondition(key=k, match=models.MatchValue(value=v))
                for k, v in (("company", question.company), ("fiscal_year", question.fiscal_year))
            ]
        )
        records, _ = self.index.client.scroll(
            self.index.collection, scroll_filter=flt, limit=10_000, with_payload=["text"]
        )
        return {str(r.id) for r in records if r.payload and question.figure in r.payload["text"]}

    def close(self) -> None:
        self.index.client.close()
        self._tmp.cleanup()


class ApiSource:
    """The running stack's `/v1/search` (the worker runs the same `ReportIndex.search`)."""

    name = "api"

    def __init__(self, api_url: str) -> None:
        self.api_url = api_url
        self.client = httpx.Client(base_url=api_url, timeout=60.0)
        health = self.client.get("/healthz").json()
        self.corpus_version = str(health.get("corpus_version"))

    def search(self, question: Question, limit: int) -> list[Returned]:
        response = self.client.get(
            "/v1/search", params={"q": question.query, "company": question.company, "limit": limit}
        )
        response.raise_for_status()
        return [
            Returned(
                h["chunk_id"], h["company"], h["fiscal_year"], h["page"], h["section"], h["text"]
            )
            for h in response.json()
        ]

    def relevant_ids(self, question: Question) -> set[str]:
        return set()

    def close(self) -> None:
        self.client.close()


def api_answers(api_url: str) -> bool:
    try:
        return httpx.get(f"{api_url}/healthz", timeout=3.0).status_code == 200
    except httpx.HTTPError:
        return False


def ranx_metrics(
    questions: list[Question],
    runs: dict[str, list[Returned]],
    relevant: dict[str, set[str]],
    k: int,
) -> dict[str, float]:
    """hit_rate@k and mrr@k with ranx; run scores follow rank so ties keep Qdrant's order."""
    import numba
    from ranx import Qrels, Run, evaluate

    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in questions:
        judged = {r.chunk_id for r in runs[q.id] if is_hit(q, r)}
        qrels[q.id] = {cid: 1 for cid in relevant[q.id] | judged | {UNRETRIEVABLE}}
        returned = runs[q.id] or [Returned("__nothing returned__", "", 0, 0, "", "")]
        run[q.id] = {r.chunk_id: float(len(returned) - i) for i, r in enumerate(returned)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", numba.NumbaTypeSafetyWarning)
        scores = evaluate(Qrels(qrels), Run(run), [f"hit_rate@{k}", f"mrr@{k}"])
    assert isinstance(scores, dict)
    return {name: float(value) for name, value in scores.items()}


def run_benchmark(source: LocalSource | ApiSource, limit: int) -> dict[str, object]:
    questions = load_questions()
    started = time.monotonic()
    runs = {q.id: source.search(q, limit) for q in questions}
    elapsed = time.monotonic() - started
    outcomes = []
    for q in questions:
        ranks = [i for i, r in enumerate(runs[q.id], start=1) if is_hit(q, r)]
        outcomes.append(
            Outcome(
                q.id, q.query, q.company, q.fiscal_year, q.figure, q.synonym,
                ranks[0] if ranks else None,
                [f"FY{r.fiscal_year} p.{r.page} {r.section}" for r in runs[q.id]],
            )
        )  # fmt: skip
    relevant = {q.id: source.relevant_ids(q) for q in questions}
    metrics = ranx_metrics(questions, runs, relevant, limit)
    hits = [o for o in outcomes if o.first_hit_rank is not None]
    hit_rate = len(hits) / len(outcomes)
    if abs(hit_rate - metrics[f"hit_rate@{limit}"]) > 1e-9:
        raise SystemExit(f"bench: ranx hit rate {metrics} disagrees with the count {hit_rate}")

    def rate(group: list[Outcome]) -> float | None:
        return sum(o.first_hit_rank is not None for o in group) / len(group) if group else None

    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.system()} {platform.machine()}, Python {platform.python_version()}",
        "source": source.name,
        "corpus_version": source.corpus_version,
        "limit": limit,
        "questions": len(outcomes),
        "synonym_questions": sum(o.synonym for o in outcomes),
        f"hit@{limit}": hit_rate,
        f"hit@{limit}_label": rate([o for o in outcomes if not o.synonym]),
        f"hit@{limit}_synonym": rate([o for o in outcomes if o.synonym]),
        "mean_first_hit_rank": (
            statistics.mean(o.first_hit_rank for o in hits if o.first_hit_rank) if hits else None
        ),
        f"mrr@{limit}": metrics[f"mrr@{limit}"],
        "target": TARGET_HIT_RATE,
        "met_target": hit_rate >= TARGET_HIT_RATE,
        "search_seconds": round(elapsed, 2),
        "misses": [asdict(o) for o in outcomes if o.first_hit_rank is None],
        "results": [asdict(o) for o in outcomes],
    }


def print_report(report: dict[str, object]) -> None:
    limit = report["limit"]
    results = report["results"]
    assert isinstance(results, list)
    print(f"{'id':30} {'syn':3} {'hit':>3}  query")
    for r in results:
        rank = r["first_hit_rank"] or "-"
        print(f"{r['id']:30} {'yes' if r['synonym'] else '':3} {rank!s:>3}  {r['query']}")
    misses = report["misses"]
    assert isinstance(misses, list)
    print()
    for m in misses:
        where = f"{m['company']} FY{m['fiscal_year']} {m['figure']!r}"
        print(f"MISS {m['id']}: {where} not in the top {limit}; returned:")
        for i, returned in enumerate(m["returned"], start=1):
            print(f"     {i}. {returned}")
    print()
    mean_rank = report["mean_first_hit_rank"]
    print(
        f"{report['questions']} questions ({report['synonym_questions']} phrased with synonyms), "
        f"filtered by company only; source {report['source']}, corpus {report['corpus_version']}"
    )
    print(
        f"hit@{limit} {report[f'hit@{limit}']:.3f} (label {report[f'hit@{limit}_label']:.3f}, "
        f"synonym {report[f'hit@{limit}_synonym']:.3f}) · mean rank of first hit "
        f"{mean_rank if mean_rank is None else f'{mean_rank:.2f}'} · "
        f"MRR@{limit} {report[f'mrr@{limit}']:.3f} (ranx) · target {report['target']} "
        f"{'met' if report['met_target'] else 'MISSED'} · {len(misses)} misses"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.retrieval", description=__doc__)
    parser.add_argument("--limit", type=int, default=5, help="k for hit@k (default 5)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--source",
        choices=("auto", "local", "api"),
        default="auto",
        help="auto: the running stack's API if it answers, else a fresh local index",
    )
    args = parser.parse_args(argv)
    from settings import get_settings

    settings = get_settings()
    use_api = args.source == "api" or (args.source == "auto" and api_answers(settings.api_url))
    source: LocalSource | ApiSource = (
        ApiSource(settings.api_url) if use_api else LocalSource(settings.corpus_dir)
    )
    try:
        report = run_benchmark(source, args.limit)
    finally:
        source.close()
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_report(report)
    return 0 if report["met_target"] else 1


if __name__ == "__main__":
    sys.exit(main())
