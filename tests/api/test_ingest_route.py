"""POST /v1/ingest: loopback clients only, files under the ingest directory only."""

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from psycopg_pool import AsyncConnectionPool
from temporalio.client import Client

from backends.report_activities import ReportActivities
from backends.reports import ReportIndex
from settings import Settings
from tests.api.test_bounded_waits import until_polled
from tests.api.test_operator_view import summaries
from tests.conftest import CORPUS_DIR, WorkerFactory, client_for

BHP_FY2024 = CORPUS_DIR / "BHP_FY2024.md"
HIDDEN = {"detail": "paths.0: no such file in the ingest directory", "error_type": "InvalidInput"}


@pytest.fixture
def inbox(tmp_path: Path) -> Path:
    """An ingest directory holding a copy of the real BHP FY2024 report, with a secret beside it."""
    folder = tmp_path / "inbox"
    (folder / "real").mkdir(parents=True)
    shutil.copy(BHP_FY2024, folder / "real" / BHP_FY2024.name)
    (tmp_path / "secret.md").write_text("---\ncompany: BHP\n---\n", encoding="utf-8")
    return folder


@pytest.fixture
def inbox_settings(app_settings: Settings, inbox: Path) -> Settings:
    return app_settings.model_copy(update={"ingest_dir": inbox})


@pytest.mark.parametrize("client", [("203.0.113.7", 4000), ("::ffff:192.0.2.1", 4000)])
async def test_ingest_from_another_machine_is_forbidden_before_the_body_is_read(
    inbox_settings: Settings, client: tuple[str, int]
) -> None:
    async with client_for(inbox_settings, client) as http:
        valid = await http.post("/v1/ingest", json={"paths": ["real/BHP_FY2024.md"]})
        invalid = await http.post("/v1/ingest", json={"paths": []})

    for response in (valid, invalid):
        assert response.status_code == 403
        assert response.json() == {
            "detail": "ingestion is accepted only from this machine (a loopback client)",
            "error_type": "Forbidden",
        }


@pytest.mark.parametrize(
    "path",
    [
        "{inbox}/real/missing.md",
        "missing.md",
        str(BHP_FY2024),
        "{inbox}/../secret.md",
        "../secret.md",
        "{inbox}/link-to-secret.md",
        "{inbox}/real",
        "{inbox}/bad\u0000name.md",
    ],
    ids=[
        "missing",
        "missing-relative",
        "outside",
        "dotdot",
        "dotdot-relative",
        "symlink-out",
        "directory",
        "nul",
    ],
)
async def test_a_missing_path_and_a_forbidden_one_get_the_same_422(
    inbox_settings: Settings, inbox: Path, path: str
) -> None:
    (inbox / "link-to-secret.md").symlink_to(inbox.parent / "secret.md")

    async with client_for(inbox_settings, ("::1", 4000)) as http:
        response = await http.post("/v1/ingest", json={"paths": [path.format(inbox=inbox)]})

    assert response.status_code == 422
    if "\u0000" in path:
        assert response.json()["error_type"] == "InvalidInput"
    else:
        assert response.json() == HIDDEN


async def test_a_loopback_client_ingests_files_in_the_ingest_directory_through_the_registry(
    inbox_settings: Settings,
    inbox: Path,
    worker: WorkerFactory,
    make_report_index: Callable[[], ReportIndex],
    pool: AsyncConnectionPool,
    temporal_client: Client,
) -> None:
    planted = inbox / "planted" / BHP_FY2024.name
    planted.parent.mkdir()
    planted.write_text(
        BHP_FY2024.read_text(encoding="utf-8").replace("55,658", "955,658"), encoding="utf-8"
    )
    reports = ReportActivities(make_report_index(), pool)
    activities = [reports.ingest_file, reports.corpus_version]
    async with (
        worker(task_queue=inbox_settings.task_queue, activities=activities),
        client_for(inbox_settings) as http,
    ):
        await until_polled(temporal_client, inbox_settings)
        real = await http.post("/v1/ingest", json={"paths": ["real/BHP_FY2024.md"]})
        refused = await http.post("/v1/ingest", json={"paths": [str(planted)]})
        replaced = await http.post("/v1/ingest", json={"paths": [str(planted)], "replace": True})
        named = await summaries(temporal_client, inbox_settings.task_queue, {"IngestDocuments"}, 3)

    assert real.status_code == 200, real.json()
    assert real.json()["files"][0]["path"] == str((inbox / "real" / BHP_FY2024.name).resolve())
    assert [f["status"] for f in real.json()["files"]] == ["ingested"]
    assert refused.status_code == 200, refused.json()
    (file,) = refused.json()["files"]
    assert file["status"] == "refused"
    assert str((inbox / "real" / BHP_FY2024.name).resolve()) in file["error"]
    assert [f["status"] for f in replaced.json()["files"]] == ["ingested"]
    # The Temporal UI's list names each ingestion by its files.
    assert sorted(named["IngestDocuments"]) == ["ingest 1 report(s): BHP_FY2024.md"] * 3
