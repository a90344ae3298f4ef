"""GET /: the small chat page for people (static; it talks to the same turns API)."""

from importlib import resources

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

router = APIRouter(tags=["page"])


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
async def chat_page() -> HTMLResponse:
    return HTMLResponse((resources.files("api") / "static" / "index.html").read_text("utf-8"))
