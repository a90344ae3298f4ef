"""Answer-cache benchmark: paraphrases that should be reused, near misses that must not be.

    .venv/bin/python -m bench.cache

Every pair goes through the real embedder (all-MiniLM-L6-v2) and the real guarded lookup
(`backends.answer_cache.AnswerCache`, on an in-memory Qdrant): the first question's
answer is written, the second is looked up, in a tenant of its own. For each threshold
setting it prints the paraphrase hit and hint rates, the near misses served (wrong-slot
hits: must be 0) and, for contrast, how many near misses a similarity-only cache would
have served at the same hint threshold.

Pairs are built from the figures the corpus carries (companies, metrics, fiscal years);
no pair is a question the tests ask verbatim.
"""

import argparse
import itertools
import statistics
import time

from qdrant_client import QdrantClient

from activities.contracts import CachedAnswer
from backends.answer_cache import AnswerCache
from backends.embeddings import LocalEmbedder
from backends.reports import ReportIndex
from domain.memory.rules import cache_slots

COMPANIES = {
    "BHP": "BHP",
    "RIO": "Rio Tinto",
    "FMG": "Fortescue",
    "S32": "South32",
    "NST": "Northern Star",
}
METRICS = ["revenue", "underlying EBITDA", "net debt", "capital expenditure", "net profit"]
YEARS = [2023, 2024, 2025]
ASK = "What was {c}'s {m} in FY{y}?"
PARAPHRASES = [
    "How much {m} did {c} report for FY{y}?",
    "{c} {m} FY{y}",
    "Tell me {c}'s {m} for fiscal {y}.",
    "What {m} did {c} post in FY{y}?",
    "Can you give me the {m} of {c} in FY{y}?",
    "What did {c} report as {m} for FY{y}?",
    "FY{y} {m} at {c}?",
    "I'd like to know {c}'s FY{y} {m}.",
    "How much {m} did {c} generate in FY{y}?",
]
THRESHOLDS = [(0.95, 0.80), (0.95, 0.85), (0.92, 0.80), (0.90, 0.75), (0.90, 0.80), (0.85, 0.70)]


def paraphrase_pairs() -> list[tuple[str, str]]:
    combos = list(itertools.product(COMPANIES.values(), METRICS, YEARS))
    pairs = []
    for i, (c, m, y) in enumerate(combos):
        template = PARAPHRASES[i % len(PARAPHRASES)]
        pairs.append((ASK.format(c=c, m=m, y=y), template.format(c=c, m=m, y=y)))
    return pairs


def near_miss_pairs() -> list[tuple[str, str, str]]:
    """(stored question, asked question, what differs)."""
    pairs: list[tuple[str, str, str]] = []
    names = list(COMPANIES.values())
    for i, (c, m) in enumerate(itertools.product(names, METRICS)):
        y = YEARS[i % 3]
        other_year = YEARS[(i + 1) % 3]
        other_company = names[(names.index(c) + 1) % len(names)]
        other_metric = METRICS[(METRICS.index(m) + 1) % len(METRICS)]
        base = ASK.format(c=c, m=m, y=y)
        pairs.append((base, ASK.format(c=c, m=m, y=other_year), "year"))
        pairs.append((base, ASK.format(c=other_company, m=m, y=y), "company"))
        pairs.append((base, ASK.format(c=c, m=other_metric, y=y), "metric"))
    for c, y in itertools.product(["BHP", "Rio Tinto", "Fortescue"], YEARS):
        pairs.append(
            (
                f"What was {c}'s final dividend in FY{y}?",
                f"What was {c}'s interim dividend in FY{y}?",
                "line item",
            )
        )
        pairs.append(
            (
                f"What was {c}'s underlying profit in FY{y}?",
                f"What was {c}'s net profit in FY{y}?",
                "line item",
            )
        )
    for m, y in itertools.product(METRICS, YEARS):
        pairs.append(
            (
                f"Which company had the highest {m} in FY{y}?",
                f"Which company had the lowest {m} in FY{y}?",
                "polarity",
            )
        )
    qualified = [
        ("profit before tax", "profit after tax"),
        ("revenue", "revenue as restated"),
        ("revenue in the first half", "revenue in the second half"),
        ("profit", "operating profit"),
        ("net profit", "net profit per share"),
        ("revenue from continuing operations", "revenue from discontinued operations"),
    ]
    for c, (a, b) in itertools.product(["BHP", "Fortescue"], qualified):
        pairs.append(
            (f"What was {c}'s {a} in FY2024?", f"What was {c}'s {b} in FY2024?", "qualifier")
        )
    for c in names:
        pairs.append(
            (f"Did {c}'s revenue rise in FY2024?", f"Did {c}'s revenue fall in FY2024?", "polarity")
        )
        pairs.append(
            (
                f"What was {c}'s copper production in FY2024?",
                f"What was {c}'s iron ore production in FY2024?",
                "line item",
            )
        )
    return pairs


class _Memo:
    """The real embedder, each distinct text encoded once across threshold settings."""

    def __init__(self, embedder: LocalEmbedder) -> None:
        self.inner = embedder
        self.name, self.dimension = embedder.name, embedder.dimension
        self.seen: dict[str, list[float]] = {}

    def embed(self, texts: list[str]) -> list[list[float]]:
        missing = [t for t in dict.fromkeys(texts) if t not in self.seen]
        if missing:
            self.seen.update(zip(missing, self.inner.embed(missing), strict=True))
        return [self.seen[t] for t in texts]


def run_pairs(
    cache: AnswerCache, pairs: list[tuple[str, str]], tag: str
) -> tuple[list[str], list[float]]:
    """Write each pair's first question, look up its second; outcomes and similarities."""
    outcomes, sims = [], []
    for n, (stored, asked) in enumerate(pairs):
        tenant = f"{tag}-{n}"
        entry = CachedAnswer(turn_id=f"turn-bench-{n}", question=stored, answer="checked answer")
        written = cache.write(tenant, None, entry)
        if not written.written:
            raise SystemExit(f"not cacheable, fix the pair: {stored!r} ({written.reason})")
        found = cache.lookup(tenant, asked)
        outcomes.append(found.outcome)
        a, b = cache.embedder.embed([stored, asked])
        sims.append(sum(x * y for x, y in zip(a, b, strict=True)))
    return outcomes, sims


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    t0 = time.perf_counter()
    embedder = _Memo(LocalEmbedder())
    paraphrases = paraphrase_pairs()
    near = near_miss_pairs()
    same_slots = [(a, b, why) for a, b, why in near if cache_slots(a) == cache_slots(b)]
    print(
        f"{len(paraphrases)} paraphrase pairs, {len(near)} near-miss pairs "
        f"({', '.join(f'{k}: {sum(w == k for *_, w in near)}' for k in sorted({w for *_, w in near}))})"  # noqa: E501
    )
    if same_slots:
        print(f"WARNING: {len(same_slots)} near-miss pairs have equal slots: {same_slots[:3]}")
    print(
        f"{'hit at':>6} {'hint at':>7} {'para hit':>8} {'para hint':>9} {'para both':>9} "
        f"{'wrong-slot':>10} {'sim-only would serve':>20}"
    )
    para_sims: list[float] = []
    near_sims: list[float] = []
    for hit_at, hint_at in THRESHOLDS:
        client = QdrantClient(":memory:")
        index = ReportIndex(client, embedder)
        cache = AnswerCache(index, hit_at=hit_at, hint_at=hint_at)
        p_out, para_sims = run_pairs(cache, paraphrases, "p")
        n_out, near_sims = run_pairs(cache, [(a, b) for a, b, _ in near], "n")
        hits = p_out.count("hit") / len(p_out)
        hints = p_out.count("hint") / len(p_out)
        wrong = sum(o != "miss" for o in n_out)
        naive = sum(s >= hint_at for s in near_sims)
        print(
            f"{hit_at:>6.2f} {hint_at:>7.2f} {hits:>8.2f} {hints:>9.2f} {hits + hints:>9.2f} "
            f"{wrong:>10} {naive:>20}"
        )
        client.close()
    print(
        f"similarity: paraphrases min {min(para_sims):.3f} median "
        f"{statistics.median(para_sims):.3f}; near misses median "
        f"{statistics.median(near_sims):.3f} max {max(near_sims):.3f}"
    )
    print(f"done in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
