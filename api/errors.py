"""One error shape for every failure: JSON with `detail`, `error_type` and maybe `turn_id`."""

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException


class ApiError(Exception):
    def __init__(
        self, status_code: int, error_type: str, detail: str, turn_id: str | None = None
    ) -> None:
        super().__init__(detail)
        self.status_code = status_code
        self.error_type = error_type
        self.detail = detail
        self.turn_id = turn_id


def error_body(error_type: str, detail: str, turn_id: str | None = None) -> dict[str, str]:
    body = {"detail": detail, "error_type": error_type}
    if turn_id:
        body["turn_id"] = turn_id
    return body


def _readable(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err.get("loc", ()) if p not in ("body", "query", "path"))
        msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
        if err.get("type") == "json_invalid":
            parts.append("request body is not valid JSON")
        else:
            parts.append(f"{loc}: {msg}" if loc else msg)
    return "; ".join(parts) or "invalid request"


def install(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(
            error_body(exc.error_type, exc.detail, exc.turn_id), status_code=exc.status_code
        )

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse(error_body("InvalidInput", _readable(exc)), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        kind = {404: "NotFound", 405: "MethodNotAllowed"}.get(exc.status_code, "HTTPError")
        return JSONResponse(error_body(kind, str(exc.detail)), status_code=exc.status_code)
