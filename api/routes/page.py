"""GET /: the small chat page for people (static; it talks to the same turns API)."""

from importlib import resources

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from api.guards import page_policy

router = APIRouter(tags=["page"])

_PAGE = (resources.files("api") / "static" / "index.html").read_text("utf-8")
_POLICY = page_policy(_PAGE)
"""Its one inline script is allowed by its hash, nothing else inline or from elsewhere."""


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
async def chat_page() -> HTMLResponse:
    return HTMLResponse(_PAGE, headers={"Content-Security-Policy": _POLICY})
