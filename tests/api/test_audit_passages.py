"""A decision record a reviewer can trust on its own: it holds the text the person was
shown and each cited passage's text hash and report version, and `turnstile audit show`
of an older turn says which cited passage a re-ingested report changed.

Through the real stack: the API served by uvicorn, a worker with every real activity on
an index of its own, PostgreSQL, Temporal; reports ingested through `POST /v1/ingest`
from copies of a sample report (edited in a temp folder, never in `corpus/`), and the
real `turnstile` command reading the record back.
"""

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from psycopg_pool import AsyncConnectionPool

import worker as registry
from api.app import create_app
from backends.engines.offline.engine import OfflineEngine
from backends.reports import ReportIndex
from domain.provenance import text_sha256
from ingestion.documents import parse_document
from settings import PROJECT_ROOT, Settings
from tests.api.test_errors import under_uvicorn
from tests.conftest import CORPUS_DIR, WorkerFactory

TURNSTILE = str(Path(sys.executable).parent / "turnstile")
REPORT = CORPUS_DIR / "BHP_FY2024.md"
QUESTION = "What were BHP's revenue and total dividends per share in FY2024?"


@pytest.fixture
def inbox(tmp_path: Path) -> Path:
    """The ingest directory: a copy of the sample report, and room for its revisions."""
    folder = tmp_path / "inbox"
    (folder / "v1").mkdir(parents=True)
    shutil.copy(REPORT, folder / "v1" / REPORT.name)
    return folder


@pytest.fixture
def served_url(app_settings: Settings, inbox: Path) -> Iterator[str]:
    """The API under uvicorn on a free port, reading reports from `inbox`."""
    with under_uvicorn(create_app(app_settings.model_copy(update={"ingest_dir": inbox}))) as url:
        yield url


def audit_show(url: str, turn_id: str, *flags: str) -> str:
    """`turnstile audit show TURN` as a person runs it, against the API at `url`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TURNSTILE_")}
    env["TURNSTILE_API_URL"] = url
    done = subprocess.run(
        [TURNSTILE, "audit", "show", turn_id, *flags],
        env=env,
        cwd=PROJECT_ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def edited(text: str, passage: str) -> tuple[str, str]:
    """`text` with one figure changed inside `passage` only (a line of it the report holds
    once), the number of words kept so no other passage's bounds move; and the line."""
    body = [line for line in passage.splitlines()[1:] if not line.startswith("Table (")]
    line = next(ln for ln in body if re.search(r"\d", ln) and text.count(ln) == 1)
    digit = re.search(r"\d", line)
    assert digit is not None
    changed = line[: digit.start()] + str((int(digit.group()) + 1) % 10) + line[digit.end() :]
    return text.replace(line, changed), line


async def test_audit_show_of_an_older_turn_names_the_cited_passage_a_reingest_changed(
    app_settings: Settings,
    served_url: str,
    inbox: Path,
    worker: WorkerFactory,
    make_report_index: Callable[[], ReportIndex],
    pool: AsyncConnectionPool,
) -> None:
    # long: one story in order (ingest, ask, re-ingest identical, re-ingest edited, read).
    index = make_report_index()
    activities = registry.activities(index, pool, OfflineEngine(index.embedder))
    async with (
        worker(index, task_queue=app_settings.task_queue, activities=activities),
        httpx.AsyncClient(base_url=served_url, timeout=120) as http,
    ):

        async def ingest(path: str, replace: bool = False) -> str:
            response = await http.post("/v1/ingest", json={"paths": [path], "replace": replace})
            assert response.status_code == 200, response.text
            (file,) = response.json()["files"]
            return str(file["status"])

        async def audit(turn_id: str) -> dict[str, Any]:
            response = await http.get(f"/v1/turns/{turn_id}/audit")
            assert response.status_code == 200, response.text
            body: dict[str, Any] = response.json()
            return body

        assert await ingest(f"v1/{REPORT.name}") == "ingested"
        asked = await http.post("/v1/turns", json={"question": QUESTION})
        assert asked.status_code == 200, asked.text
        turn = asked.json()
        assert turn["status"] == "answered" and len(turn["citations"]) >= 2, turn
        sources = (await http.get(f"/v1/turns/{turn['turn_id']}/sources")).json()

        # What the person was told, and what it stood on, is in the record itself.
        before = await audit(turn["turn_id"])
        record = before["record"]
        assert record["shown"] == [
            {
                "kind": "answer",
                "text": turn["answer"],
                "sha256": text_sha256(turn["answer"]),
                "round": None,
            },
        ]
        cited = {c["chunk_id"] for c in turn["citations"]}
        evidence = {e["chunk_id"]: e for e in record["evidence"]}
        assert cited <= set(evidence) and set(record["documents"]["kept"]) <= set(evidence)
        assert all(e["version"] for e in record["evidence"])
        for source in sources:
            version = evidence[
                next(c["chunk_id"] for c in turn["citations"] if c["n"] == source["n"])
            ]["version"]
            assert version["document_id"] == "BHP-FY2024" and version["page"] == source["page"]
            assert version["text_sha256"] == text_sha256(source["text"])
        assert {p["status"] for p in before["passages"]} == {"unchanged"}

        # Quiet: the same report again, even from another path, changes nothing.
        (inbox / "copy").mkdir()
        shutil.copy(REPORT, inbox / "copy" / REPORT.name)
        assert await ingest(f"copy/{REPORT.name}", replace=True) == "unchanged"
        assert {p["status"] for p in (await audit(turn["turn_id"]))["passages"]} == {"unchanged"}
        quiet = audit_show(served_url, turn["turn_id"])
        assert "CHANGED" not in quiet and f"today: {len(turn['citations'])} unchanged" in quiet

        # Firing: a revision of the report with one figure of citation [1] changed.
        first = sources[0]
        text, _ = edited(REPORT.read_text(encoding="utf-8"), first["text"])
        (inbox / "v2").mkdir()
        (inbox / "v2" / REPORT.name).write_text(text, encoding="utf-8")
        assert await ingest(f"v2/{REPORT.name}", replace=True) == "ingested"

        after = await audit(turn["turn_id"])
        later = (await http.post("/v1/turns", json={"question": QUESTION})).json()
        later_record = await audit(later["turn_id"])

    statuses = {p["n"]: p["status"] for p in after["passages"]}
    assert statuses == {
        c["n"]: "changed" if c["n"] == first["n"] else "unchanged" for c in turn["citations"]
    }, after["passages"]
    changed = next(p for p in after["passages"] if p["status"] == "changed")
    assert "BHP-FY2024 was re-ingested" in changed["detail"] and changed["now"]
    # The record itself did not change: only the check beside it did.
    assert after["record"] == before["record"] and after["hash"] == before["hash"]

    readable = audit_show(served_url, turn["turn_id"]).splitlines()
    marked = [ln for ln in readable if ln.startswith(f"  [{first['n']}] ")]
    assert len(marked) == 1 and ": CHANGED (BHP-FY2024 was re-ingested" in marked[0], readable
    others = [ln for ln in readable if re.match(r"  \[\d+\] BHP", ln) and ln not in marked]
    assert others and all(ln.endswith(": unchanged") for ln in others), readable
    assert f"  today: 1 changed, {len(turn['citations']) - 1} unchanged" in readable
    assert f"  {turn['answer'].splitlines()[0]}" in readable  # the text shown, as shown

    # A turn answered after the revision stands on the new version, unchanged today.
    revision = parse_document(inbox / "v2" / REPORT.name).content_hash
    assert f"→ {revision})" in changed["detail"]
    versions = {e["version"]["document_version"] for e in later_record["record"]["evidence"]}
    assert versions == {revision}
    assert {p["status"] for p in later_record["passages"]} == {"unchanged"}
