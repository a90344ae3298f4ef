"""POST /v1/ingest: run the IngestDocuments workflow on files on the API's machine."""

import uuid
from pathlib import Path

from fastapi import APIRouter

from activities.contracts import IngestRequest, IngestResult
from api.deps import SettingsDep, TemporalDep
from workflows.ingest import IngestDocuments

router = APIRouter(prefix="/v1", tags=["ingest"])


@router.post("/ingest")
async def ingest(body: IngestRequest, client: TemporalDep, settings: SettingsDep) -> IngestResult:
    """Ingest files by absolute path; each file's outcome is in the result (none raises)."""
    request = IngestRequest(
        paths=[str(Path(p).resolve()) for p in body.paths],
        company=body.company,
        fiscal_year=body.fiscal_year,
    )
    return await client.execute_workflow(
        IngestDocuments.run,
        request,
        id=f"ingest-{uuid.uuid4().hex[:12]}",
        task_queue=settings.task_queue,
    )
