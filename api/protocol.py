"""uvicorn's HTTP protocol, answering a malformed request in the API's JSON error shape.

A request h11 cannot parse (a header over its size limit, a NUL in a header, a broken
request line) never reaches the app: uvicorn answers it itself with a plain-text 400.
uvicorn takes the protocol class as an import string (`--http
api.protocol:JsonErrorsH11Protocol`, as `turnstile up` and docker-compose run it), so
this subclass writes the same 400 as `{"detail": ..., "error_type": "InvalidInput"}`.
A unit test pins the method it overrides, so an upgrade that renames it fails loudly.
"""

import json

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

_BODY = json.dumps(
    {
        "detail": "the HTTP request is malformed (a header too large or holding a"
        " character HTTP does not allow, or a broken request line)",
        "error_type": "InvalidInput",
    }
).encode()


class JsonErrorsH11Protocol(H11Protocol):
    def send_400_response(self, msg: str) -> None:
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(_BODY)).encode()),
            (b"connection", b"close"),
            (b"x-content-type-options", b"nosniff"),
        ]
        for event in (
            h11.Response(status_code=400, headers=headers, reason=b"Bad Request"),
            h11.Data(data=_BODY),
            h11.EndOfMessage(),
        ):
            self.transport.write(self.conn.send(event))
        self.transport.close()
