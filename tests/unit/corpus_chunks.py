"""Chunks of the sample corpus as the engine receives them (pure file reading, no services)."""

from functools import cache
from pathlib import Path

from domain.models import ChunkText
from ingestion.documents import parse_markdown

CORPUS_DIR = Path(__file__).resolve().parents[2] / "corpus" / "reports"


def chunks_of(path: Path) -> list[ChunkText]:
    """Parse one Markdown report into the ChunkText objects the engine steps get."""
    return [c.as_text() for c in parse_markdown(path).chunks]


@cache
def report(ticker: str, year: int) -> tuple[ChunkText, ...]:
    return tuple(chunks_of(CORPUS_DIR / f"{ticker}_FY{year}.md"))


def corpus() -> list[ChunkText]:
    """Every chunk of all fifteen reports."""
    return [c for path in sorted(CORPUS_DIR.glob("*.md")) for c in report(*_key(path))]


def tables(ticker: str, year: int) -> list[ChunkText]:
    return [c for c in report(ticker, year) if c.is_table]


def _key(path: Path) -> tuple[str, int]:
    ticker, fy = path.stem.split("_FY")
    return ticker, int(fy)
