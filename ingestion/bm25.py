"""BM25 sparse vectors for Qdrant's hybrid query.

Qdrant applies IDF itself (the collection's sparse vector uses `Modifier.IDF`), so a
document vector carries only BM25's saturated term frequency and a query vector carries
a weight of 1 per distinct term. We tokenise ourselves because the financial text needs
rules no stock analyser has: "29,016" and "FY2024" stay whole, "revenue," equals
"revenue", and stopwords are dropped so filler words cannot dominate a score.
"""

import re
import zlib
from collections import Counter
from collections.abc import Iterable

from domain.models import ChunkText
from domain.questions.measures import acronyms, written_acronyms
from domain.reports.facts import report_facts

K1 = 1.2
B = 0.75
AVERAGE_DOCUMENT_TOKENS = 90.0

_TOKEN = re.compile(r"[a-z]+\d+|\d+(?:[.,]\d+)*|[a-z]+")

STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "tell",
        "show",
        "give",
        "please",
        "much",
        "many",
        "also",
        "per",
    ]
)


def _normalise(token: str) -> str:
    # Light plural folding so "dividends" meets "dividend"; numbers and codes stay as written.
    if token.isalpha() and len(token) > 4 and token.endswith("s") and not token.endswith("ss"):
        return token[:-1]
    return token


def tokenize(text: str) -> list[str]:
    """Split text into lowercase BM25 terms without punctuation or stopwords."""
    return [
        _normalise(t)
        for t in _TOKEN.findall(text.lower())
        if t not in STOPWORDS and not (t.isalpha() and len(t) == 1)
    ]


def term_id(term: str) -> int:
    """Map a term to a stable sparse index (CRC32 is stable across processes, unlike hash())."""
    return zlib.crc32(term.encode("utf-8")) & 0x7FFFFFFF


def document_vector(text: str, acronyms: Iterable[str] = ()) -> tuple[list[int], list[float]]:
    """Return (indices, values) with BM25-saturated term frequencies for a document.

    `acronyms` are acronym terms ("=aifr", `domain.questions.measures.acronyms`) it holds besides
    its words, once each: what its labels spell ("All-injury frequency rate") or it writes
    ("AIFR"). They do not count in its length, and no word can be one (the "=")."""
    counts = Counter(tokenize(text))
    length = sum(counts.values()) or 1
    counts.update(set(acronyms))
    norm = K1 * (1 - B + B * length / AVERAGE_DOCUMENT_TOKENS)
    indices: list[int] = []
    values: list[float] = []
    for term, tf in sorted(counts.items()):
        indices.append(term_id(term))
        values.append(tf * (K1 + 1) / (tf + norm))
    return indices, values


def query_vector(text: str) -> tuple[list[int], list[float]]:
    """Return (indices, values) with weight 1 per distinct query term; a word written in
    capitals ("AIFR") is also the acronym term a document's spelt-out label carries."""
    terms = sorted(set(tokenize(text)) | written_acronyms(text))
    return [term_id(t) for t in terms], [1.0] * len(terms)


def chunk_acronyms(chunk: ChunkText) -> frozenset[str]:
    """The acronym terms a chunk is found by: those its text writes in capitals and
    those its facts' labels spell ("All-injury frequency rate": "=aifr"), so a question
    asking "AIFR" finds a report that wrote the words out."""
    labels = {fact.label for fact in report_facts(chunk)}
    return written_acronyms(chunk.text).union(*(acronyms(label) for label in labels))
