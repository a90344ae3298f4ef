"""The answer follows the documents: change a figure in a copy of a report, re-ingest,
ask; then ingest the original again and ask again. No answer is keyed by question."""

from collections.abc import Callable
from pathlib import Path

from psycopg_pool import AsyncConnectionPool

import worker as registry
from backends.engines.offline.engine import OfflineEngine
from backends.reports import ReportIndex
from tests.conftest import CORPUS_DIR, Turns, WorkerFactory

QUESTION = "What was BHP's revenue in FY2024?"
ORIGINAL, ALTERED = "55,658", "57,913"


async def answer_from(
    index: ReportIndex,
    worker: WorkerFactory,
    pool: AsyncConnectionPool,
    turns_on: Callable[[str], Turns],
) -> str:
    activities = registry.activities(index, pool, OfflineEngine())
    async with worker(activities=activities) as task_queue:
        result = await turns_on(task_queue).ask(QUESTION)
    assert result.status == "answered", result
    assert result.citations, "the figure is cited"
    return result.answer or ""


async def test_a_changed_figure_in_a_report_changes_the_answer_and_back(
    worker: WorkerFactory,
    make_report_index: Callable[[], ReportIndex],
    pool: AsyncConnectionPool,
    turns_on: Callable[[str], Turns],
    tmp_path: Path,
) -> None:
    original = CORPUS_DIR / "BHP_FY2024.md"
    text = original.read_text(encoding="utf-8")
    assert ORIGINAL in text and ALTERED not in text
    altered = tmp_path / original.name
    altered.write_text(text.replace(ORIGINAL, ALTERED), encoding="utf-8")

    index = make_report_index()
    assert index.ingest_file(altered).status == "ingested"
    answer = await answer_from(index, worker, pool, turns_on)
    assert ALTERED in answer and ORIGINAL not in answer, answer

    restored = make_report_index()
    assert restored.ingest_file(original).status == "ingested"
    answer = await answer_from(restored, worker, pool, turns_on)
    assert ORIGINAL in answer and ALTERED not in answer, answer
