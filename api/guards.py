"""Guards every request passes before a route sees it, and headers every answer carries.

- **Body size.** A body larger than `max_body_bytes` (the codec endpoint:
  `codec_max_body_bytes`) is refused with 413 before it is parsed: from its
  Content-Length at once, or while it streams in. Without it a 100 MB body was read
  and parsed to be refused with a 422.
- **Cross-site writes.** A browser sends another site's form POST with no way to add a
  header, so a request that changes something, carries no API key, and comes from
  another origin (`Sec-Fetch-Site: cross-site|same-site`, or an `Origin` that is not
  this server's or one the codec's CORS list allows) is 403. With API keys such a
  request fails authentication anyway; in development mode, where a request without a
  key is taken as the dev tenant, this is what stops a page elsewhere from cancelling
  your turns.
- **Security headers.** Every answer says `X-Content-Type-Options: nosniff`; an HTML
  page also gets a Content-Security-Policy (scripts only from this server or the
  page's own inline script, by hash; `frame-ancestors 'none'`), `X-Frame-Options:
  DENY` and `Referrer-Policy: no-referrer`. A route may set a stricter CSP itself.

Pure ASGI middleware (not Starlette's BaseHTTPMiddleware) so streaming responses stream.
"""

import base64
import hashlib
import re
from collections.abc import Iterable

from fastapi import HTTPException
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.errors import error_response

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", re.S | re.I)


def page_policy(html: str) -> str:
    """The CSP for an HTML page: this server's scripts plus the page's own inline ones."""
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(body.encode()).digest()).decode() + "'"
        for body in _INLINE_SCRIPT.findall(html)
    )
    return (
        f"default-src 'self'; script-src 'self' {hashes}; style-src 'self' 'unsafe-inline';"
        " img-src 'self' data:; connect-src 'self'; worker-src 'self' blob:;"
        " object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ).replace("  ", " ")


class BodyLimit:
    """413 for a request body over its route's limit (see the module docstring)."""

    def __init__(self, app: ASGIApp, limit: int, limits: dict[str, int]) -> None:
        self.app = app
        self.limit = limit
        self.limits = limits
        """Path prefix → its own limit (the codec endpoint's is larger)."""

    def _limit_for(self, path: str) -> int:
        for prefix, limit in self.limits.items():
            if path.startswith(prefix):
                return limit
        return self.limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self._limit_for(scope.get("path", ""))
        too_large = f"the request body is larger than {limit} bytes"
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await error_response(413, "PayloadTooLarge", too_large)(scope, receive, send)
            return
        received = 0

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    # Raised where the route reads its body: FastAPI passes an
                    # HTTPException through, and the error handlers answer it as JSON.
                    raise HTTPException(413, too_large)
            return message

        await self.app(scope, counting_receive, send)


class SameOriginWrites:
    """403 for a cross-site request that changes something without an API key."""

    def __init__(self, app: ASGIApp, allowed_origins: Iterable[str]) -> None:
        self.app = app
        self.allowed = {o.rstrip("/") for o in allowed_origins}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("method") in UNSAFE_METHODS:
            headers = Headers(scope=scope)
            keyless = "authorization" not in headers and "x-api-key" not in headers
            if keyless and self._cross_site(scope, headers):
                response = error_response(
                    403,
                    "Forbidden",
                    "a request from another site must carry an API key (Authorization: Bearer KEY)",
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def _cross_site(self, scope: Scope, headers: Headers) -> bool:
        origin = headers.get("origin")
        if origin is not None and origin != "null" and origin.rstrip("/") in self.allowed:
            return False
        if headers.get("sec-fetch-site") in ("cross-site", "same-site"):
            return True
        if origin is None:
            return False  # not a browser's cross-origin request (curl, the CLI, a server)
        host = headers.get("host", "")
        scheme = scope.get("scheme", "http")
        return origin == "null" or origin.rstrip("/") != f"{scheme}://{host}"


class SecurityHeaders:
    """`nosniff` on every answer; the page headers on every HTML one."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {name.lower() for name, _ in headers}
                headers.append((b"x-content-type-options", b"nosniff"))
                content_type = dict(headers).get(b"content-type", b"")
                if content_type.startswith(b"text/html"):
                    if b"content-security-policy" not in names:
                        headers.append(
                            (
                                b"content-security-policy",
                                b"default-src 'self'; frame-ancestors 'none'",
                            )
                        )
                    headers.append((b"x-frame-options", b"DENY"))
                    headers.append((b"referrer-policy", b"no-referrer"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)
