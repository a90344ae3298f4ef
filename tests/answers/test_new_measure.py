"""A measure no code knows: a copy of a report gains a page on land stewardship (native
seedlings planted, land returned to pasture) in a table with a prior-year column and in a
sentence; it is ingested and asked about in whole turns, with no code change.

The test first proves the words are new: no module of the product (outside `tests/`)
contains them, so no vocabulary, synonym or rule can have been written for them.
"""

import re
from collections.abc import Callable
from pathlib import Path

from psycopg_pool import AsyncConnectionPool

import worker as registry
from backends.engines.offline.engine import OfflineEngine
from backends.reports import ReportIndex
from tests.conftest import CORPUS_DIR, Turns, WorkerFactory

ROOT = Path(__file__).resolve().parents[2]
NEW_WORDS = ("seedling", "pasture")
PAGE = """
<!-- page: 13 -->
# Land stewardship

## Returning land

During the year we returned 1,284 hectares of mined land to pasture, and our nurseries
supplied 412 thousand native seedlings for planting across the Pilbara and Queensland.

| Land stewardship | FY2024 | FY2023 |
|---|---|---|
| Native seedlings planted (thousand) | 412 | 388 |
| Land returned to pasture (hectares) | 1,284 | 1,102 |
"""


def test_the_new_measure_is_in_no_product_code() -> None:
    skipped = {"tests", ".venv", "node_modules"}
    sources = [p for p in ROOT.rglob("*.py") if not skipped & set(p.relative_to(ROOT).parts)]
    assert len(sources) > 50
    for path in sources:
        text = path.read_text(encoding="utf-8").lower()
        for word in NEW_WORDS:
            assert not re.search(word, text), f"{path} names {word!r}"


async def test_a_report_with_a_new_measure_is_answered_with_its_citation(
    worker: WorkerFactory,
    make_report_index: Callable[[], ReportIndex],
    pool: AsyncConnectionPool,
    turns_on: Callable[[str], Turns],
    tmp_path: Path,
) -> None:
    original = CORPUS_DIR / "BHP_FY2024.md"
    copy = tmp_path / original.name
    copy.write_text(original.read_text(encoding="utf-8") + PAGE, encoding="utf-8")
    index = make_report_index()
    assert index.ingest_file(copy).status == "ingested"
    # FY2023 is covered by its own report; its figure is the FY2024 report's comparative.
    assert index.ingest_file(CORPUS_DIR / "BHP_FY2023.md").status == "ingested"

    activities = registry.activities(index, pool, OfflineEngine())
    async with worker(activities=activities) as task_queue:
        turns = turns_on(task_queue)
        seedlings = await turns.ask("How many native seedlings did BHP plant in FY2024?")
        prior = await turns.ask("How many native seedlings did BHP plant in FY2023?")
        land = await turns.ask("How much land did BHP return to pasture in FY2024?")

    for result, figure in ((seedlings, "412"), (prior, "388"), (land, "1,284")):
        assert result.status == "answered", result
        assert figure in (result.answer or ""), result.answer
        assert "data not found" not in (result.answer or ""), result.answer
        assert result.confidence == "high", (result.confidence, result.answer)
        cited = [c for c in result.citations if c.company == "BHP" and c.page == 13]
        assert cited, f"the new page is cited: {result.citations}"
    assert "1,102" not in (land.answer or ""), "the prior-year column is not this year's"
