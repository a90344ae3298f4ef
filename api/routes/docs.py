"""GET /docs (Swagger UI) and /redoc from files installed with the package, and a favicon.

FastAPI's own pages load Swagger UI and ReDoc from a CDN (jsDelivr, and ReDoc's fonts
from Google), so on a machine without internet, as many that run Turnstile are, /docs
was a blank page. The `fastapi-offline` package ships the same bundles: they are served
from its installed folder under `/static/docs/`, and the pages point there. The favicon
is our own (`api/static/favicon.ico`, also `/favicon.ico` for the chat page and for
browsers that ask by default). None of these routes is in the OpenAPI document: they
are pages for people, not operations.

`install(app)` wires it; the app must be made with `docs_url=None, redoc_url=None` so
FastAPI does not add its CDN pages as well.
"""

from importlib import resources

from fastapi import APIRouter, FastAPI, Request
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

from api.guards import page_policy

ASSETS = "/static/docs"
"""Where the Swagger UI and ReDoc bundles are served (a folder of `fastapi_offline`)."""
DOCS = "/docs"
OAUTH2_REDIRECT = "/docs/oauth2-redirect"  # FastAPI's default, kept for the Authorize dialog
REDOC = "/redoc"
FAVICON = "/favicon.ico"

router = APIRouter(include_in_schema=False)


# Both pages may load scripts, images and data from this server only (`page_policy`:
# their own inline script by its hash, no framing). ReDoc's bundle shows a "powered by"
# logo fetched from its vendor's CDN; the browser now refuses to ask for it, so reading
# the docs sends nothing off the machine (offline it was a failed request).
def _local_only(page: HTMLResponse) -> HTMLResponse:
    page.headers["Content-Security-Policy"] = page_policy(bytes(page.body).decode())
    return page


_FAVICON = (resources.files("api") / "static" / "favicon.ico").read_bytes()


def _root(request: Request) -> str:
    """The path prefix a proxy mounts the API under (as FastAPI's own pages honour it)."""
    return str(request.scope.get("root_path", "")).rstrip("/")


@router.get(DOCS)
async def swagger_ui(request: Request) -> HTMLResponse:
    root = _root(request)
    page = get_swagger_ui_html(
        openapi_url=f"{root}{request.app.openapi_url}",
        title=f"{request.app.title} - Swagger UI",
        swagger_js_url=f"{root}{ASSETS}/swagger-ui-bundle.js",
        swagger_css_url=f"{root}{ASSETS}/swagger-ui.css",
        swagger_favicon_url=f"{root}{FAVICON}",
        oauth2_redirect_url=f"{root}{OAUTH2_REDIRECT}",
        swagger_ui_parameters=request.app.swagger_ui_parameters,
    )
    return _local_only(page)


@router.get(OAUTH2_REDIRECT)
async def swagger_ui_oauth2_redirect() -> HTMLResponse:
    return _local_only(get_swagger_ui_oauth2_redirect_html())


@router.get(REDOC)
async def redoc(request: Request) -> HTMLResponse:
    root = _root(request)
    page = get_redoc_html(
        openapi_url=f"{root}{request.app.openapi_url}",
        title=f"{request.app.title} - ReDoc",
        redoc_js_url=f"{root}{ASSETS}/redoc.standalone.js",
        redoc_favicon_url=f"{root}{FAVICON}",
        with_google_fonts=False,  # ReDoc falls back to the system's fonts
    )
    return _local_only(page)


@router.get(FAVICON)
async def favicon() -> Response:
    return Response(
        _FAVICON, media_type="image/x-icon", headers={"Cache-Control": "public, max-age=86400"}
    )


def install(app: FastAPI) -> None:
    """Serve the bundles under `ASSETS` and the pages; the app has FastAPI's turned off."""
    if app.docs_url is not None or app.redoc_url is not None:
        raise ValueError("create the app with docs_url=None, redoc_url=None")
    bundles = resources.files("fastapi_offline") / "static"
    # A missing folder fails here, at start-up, not as a blank page later.
    app.mount(ASSETS, StaticFiles(directory=str(bundles)), name="docs-assets")
    app.include_router(router)
