"""/docs and /redoc work offline, and the OpenAPI document explains the main models.

The pages must reference nothing but the API's own URLs: a script or stylesheet from a
CDN is a blank page on a machine without internet. Every asset they reference is served
here. (That the pages render with the network blocked is the browser tests' job.)
"""

import fnmatch
import tomllib
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from pydantic import BaseModel

from api.app import create_app
from api.errors import ErrorResponse
from api.turn_schemas import ClarificationRequest, MessageOut, TurnRequest
from domain.models import Citation, Derived, ModelCall, NotFound, UnsupportedClaim
from domain.turns import Carried, Degradation, DocumentsUsed, TurnResult
from settings import PROJECT_ROOT, Settings

CONTENT_TYPES = {".js": "text/javascript", ".css": "text/css", ".ico": "image/x-icon"}


class _References(HTMLParser):
    """Every URL a page loads: script sources, stylesheet and icon links, ReDoc's spec."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        for name in ("src", "href", "spec-url"):
            if found.get(name):
                self.urls.append(str(found[name]))


def references(page: str) -> list[str]:
    parser = _References()
    parser.feed(page)
    return parser.urls


@pytest.mark.parametrize("path", ["/docs", "/redoc"])
async def test_docs_page_references_only_its_own_assets_and_each_is_served(
    api_client: httpx.AsyncClient, path: str
) -> None:
    response = await api_client.get(path)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/html")
    page = response.text
    # No other host anywhere in the page, not even in its inline script: no absolute
    # URL, no protocol-relative one (`//cdn.example/...`).
    assert "//" not in page

    urls = references(page)
    assets = [url for url in urls if not url.endswith("/openapi.json")]
    assert any(url.endswith(".js") for url in assets), urls
    for url in urls:
        parts = urlsplit(url)
        assert not parts.scheme and not parts.netloc and url.startswith("/"), url
    for url in assets:
        asset = await api_client.get(url)
        suffix = url[url.rindex(".") :]
        assert asset.status_code == 200, url
        assert asset.headers["content-type"].startswith(CONTENT_TYPES[suffix]), url
        assert asset.content, url


async def test_swagger_ui_loads_the_local_bundle_and_stylesheet(
    api_client: httpx.AsyncClient,
) -> None:
    urls = references((await api_client.get("/docs")).text)
    assert "/static/docs/swagger-ui-bundle.js" in urls
    assert "/static/docs/swagger-ui.css" in urls
    redirect = await api_client.get("/docs/oauth2-redirect")
    assert redirect.status_code == 200 and "https://" not in redirect.text


async def test_favicon_is_served(api_client: httpx.AsyncClient) -> None:
    response = await api_client.get("/favicon.ico")
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/x-icon"
    assert response.content.startswith(b"\x00\x00\x01\x00")  # an ICO file's header


def test_static_files_are_package_data() -> None:
    """A non-editable install carries every file of api/static (the favicon, the page)."""
    config = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text("utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["api"]
    static = PROJECT_ROOT / "api" / "static"
    files = [p.relative_to(static.parent).as_posix() for p in static.iterdir() if p.is_file()]
    assert "static/favicon.ico" in files
    for name in files:
        assert any(fnmatch.fnmatch(name, pattern) for pattern in patterns), name


def test_docs_routes_are_not_operations(settings: Settings) -> None:
    paths = create_app(settings).openapi()["paths"]
    assert not [p for p in paths if p.startswith(("/docs", "/redoc", "/static", "/favicon"))]


WHAT_EACH_STATUS_IS = {
    400: {"InvalidInput"},
    401: {"Unauthorized"},
    403: {"Forbidden"},
    404: {"NotFound"},
    409: {"TurnInProgress", "NotWaiting", "Conflict"},
    413: {"PayloadTooLarge"},
    422: {"InvalidInput"},
    429: {"RateLimited"},
    500: {"InternalError"},
    502: {"UpstreamRejected"},
    503: {"Unavailable", "UpstreamUnavailable"},
}


def test_each_error_status_has_an_example_of_its_own_error_type(settings: Settings) -> None:
    """Swagger UI shows a response's example: a 404 shows a NotFound, /metrics' 500 an
    InternalError, never the first of ErrorResponse's examples for every status."""
    paths = create_app(settings).openapi()["paths"]
    seen = set()
    for path, operations in paths.items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                body = response.get("content", {}).get("application/json", {})
                if int(status) < 400 or "ErrorResponse" not in str(body.get("schema")):
                    continue
                example = body.get("example")
                assert example, (method, path, status)
                assert example["error_type"] in WHAT_EACH_STATUS_IS[int(status)], (path, status)
                ErrorResponse.model_validate(example)
                seen.add(int(status))
    assert {401, 404, 409, 422, 500, 503} <= seen


def test_the_docs_list_asking_before_operating(settings: Settings) -> None:
    schema = create_app(settings).openapi()
    tags = [t["name"] for t in schema["tags"]]
    assert tags[0] == "turns" and tags.index("operations") > tags.index("audit")
    used = {t for ops in schema["paths"].values() for op in ops.values() for t in op["tags"]}
    assert used <= set(tags), used - set(tags)  # every group has its place in the order


DOCUMENTED: list[type[BaseModel]] = [
    TurnRequest,
    ClarificationRequest,
    MessageOut,
    ErrorResponse,
    TurnResult,
    Citation,
    Derived,
    NotFound,
    UnsupportedClaim,
    ModelCall,
    Carried,
    Degradation,
    DocumentsUsed,
]


@pytest.fixture(scope="module")
def schemas(settings: Settings) -> dict[str, Any]:
    components: dict[str, Any] = create_app(settings).openapi()["components"]["schemas"]
    return components


@pytest.mark.parametrize("model", DOCUMENTED, ids=lambda m: m.__name__)
def test_openapi_describes_the_model_and_each_field_with_valid_examples(
    schemas: dict[str, Any], model: type[BaseModel]
) -> None:
    schema = schemas[model.__name__]

    assert schema.get("description"), model.__name__
    undescribed = [name for name, p in schema["properties"].items() if not p.get("description")]
    assert not undescribed, undescribed
    examples = schema.get("examples")
    assert examples, model.__name__
    # An example is a body the API would accept or send: it passes the model's own checks.
    for example in examples:
        model.model_validate(example)
