"""POST /v1/ingest: run the IngestDocuments workflow on files in the ingest directory.

Ingestion changes what every tenant's answers are built from, so it is served only to
an operator's API key from a client on this machine (loopback), and only for files
under `settings.ingest_dir`.
"""

import ipaddress
from datetime import timedelta
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from pydantic import Field

from activities.contracts import IngestRequest, IngestResult
from api import coverage
from api.auth import require_operator
from api.bounded import run_short
from api.deps import PoolDep, SettingsDep, TemporalDep
from api.errors import ApiError, error_responses
from api.text import STORABLE
from workflows.ingest import IngestDocuments
from workflows.turn_start import summary_line

router = APIRouter(prefix="/v1", tags=["ingest"])
INGEST_MAX_BODY_BYTES = 1024 * 1024


class IngestBody(IngestRequest):
    """The request: files by path (absolute, or relative to the ingest directory)."""

    paths: list[Annotated[str, Field(min_length=1, max_length=1024), STORABLE]] = Field(
        min_length=1, max_length=100
    )
    """At most 100 paths of 1,024 characters: a body within the route's own limit
    (`INGEST_MAX_BODY_BYTES`) whatever characters they hold."""


def _loopback_only(request: Request) -> None:
    """Refuse (403) a client that is not on this machine.

    Behind a proxy the client is the proxy's view of the caller: uvicorn takes
    X-Forwarded-For only from a loopback proxy, so a remote caller cannot claim to be local.
    """
    host = request.client.host if request.client else ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address is None or not address.is_loopback:
        raise ApiError(
            403, "Forbidden", "ingestion is accepted only from this machine (a loopback client)"
        )


def _inside(root: Path, raw: str) -> str | None:
    """The resolved path of the file `raw` names under `root`; None if it is not one.

    Symlinks and `..` are resolved before the check, so neither can reach outside.
    """
    try:
        path = Path(raw)
        resolved = (path if path.is_absolute() else root / path).resolve()
        if resolved.is_relative_to(root) and resolved.is_file():
            return str(resolved)
    except (OSError, ValueError):  # unreadable, or not a path at all
        pass
    return None


@router.post(
    "/ingest",
    dependencies=[Depends(require_operator), Depends(_loopback_only)],
    responses=error_responses(401, 403, 503),
)
async def ingest(
    body: IngestBody, http: Request, client: TemporalDep, settings: SettingsDep, pool: PoolDep
) -> IngestResult:
    """Ingest report files; each file's outcome is in the result (none raises).

    Only an operator's key from a loopback client is served (403 `Forbidden` otherwise).
    Every path must name a file under the configured ingest
    directory (`TURNSTILE_INGEST_DIR`) after symlinks and `..` are resolved; a path that
    does not, whether it is missing or outside, is the same 422 `InvalidInput`, so the
    answer does not reveal which files exist elsewhere. A different file for a company
    and year already registered comes back `refused` unless `replace` is true. 503
    `Unavailable` when no worker runs or ingestion outlasts `ingest_timeout_seconds`.
    """
    paths = _resolved(settings.ingest_dir.resolve(), body.paths)
    request = IngestRequest(
        paths=paths,
        company=body.company,
        fiscal_year=body.fiscal_year,
        replace=body.replace,
        details=body.details,
    )
    timeout = timedelta(seconds=settings.ingest_timeout_seconds)
    result = await run_short(
        client,
        settings,
        IngestDocuments.run,
        request,
        "ingest",
        timeout,
        "ingestion",
        summary=summary_line(
            f"ingest {len(paths)} report(s): " + ", ".join(Path(p).name for p in paths)
        ),
        details=_details(request),
    )
    await coverage.read_coverage(http.app.state, pool)  # a new company is known at once
    return result


def _resolved(root: Path, raws: list[str]) -> list[str]:
    """Each path resolved under `root`; 422 `InvalidInput`, naming the first that is not a
    file there, otherwise."""
    paths = []
    for n, raw in enumerate(raws):
        resolved = _inside(root, raw)
        if resolved is None:
            raise ApiError(422, "InvalidInput", f"paths.{n}: no such file in the ingest directory")
        paths.append(resolved)
    return paths


def _details(request: IngestRequest) -> str | None:
    """The ingestion's details in the Temporal UI: what it was told about the files."""
    parts = (
        f"company {request.company}" if request.company else None,
        f"FY{request.fiscal_year}" if request.fiscal_year else None,
        "replacing the registered report" if request.replace else None,
    )
    return ", ".join(p for p in parts if p) or None
