"""The codec server the Temporal UI calls to show payloads to operators.

Temporal's codec-server protocol: `POST /codec/decode` (and `/codec/encode`) with
`{"payloads": [{"metadata": {key: base64}, "data": base64}]}`, answered in the same
shape. Only for an API key of a tenant in `TURNSTILE_OPERATOR_TENANTS` (else 403):
decoding shows every tenant's turns. With `TURNSTILE_PAYLOAD_KEY` set it decrypts; with
or without it, decoding writes a turn's progress events readably (`payloads.readable`:
the workflow stream's items are base64 otherwise). Without a key `/encode` changes
nothing. Point the UI at `<api>/codec` (the embedded stack does it itself).
"""

import base64
import binascii

from fastapi import APIRouter, Depends
from pydantic import BaseModel
from temporalio.api.common.v1 import Payload

from api.auth import require_operator
from api.deps import SettingsDep
from api.errors import ApiError, error_responses
from payloads import EncryptingCodec, payload_key, readable
from settings import Settings

# Decrypting shows every tenant's turns: an operator's key, for every route here.
router = APIRouter(prefix="/codec", tags=["operations"], dependencies=[Depends(require_operator)])


class CodecPayload(BaseModel):
    metadata: dict[str, str] = {}
    """Each value base64, as in Temporal's JSON form of a Payload."""
    data: str = ""
    """Base64."""


class CodecPayloads(BaseModel):
    payloads: list[CodecPayload]


def _to_proto(payloads: CodecPayloads) -> list[Payload]:
    try:
        return [
            Payload(
                metadata={k: base64.b64decode(v, validate=True) for k, v in p.metadata.items()},
                data=base64.b64decode(p.data, validate=True),
            )
            for p in payloads.payloads
        ]
    except (binascii.Error, ValueError) as exc:
        raise ApiError(422, "InvalidInput", "payload metadata and data must be base64") from exc


def _to_json(payloads: list[Payload]) -> CodecPayloads:
    return CodecPayloads(
        payloads=[
            CodecPayload(
                metadata={k: base64.b64encode(v).decode() for k, v in p.metadata.items()},
                data=base64.b64encode(p.data).decode(),
            )
            for p in payloads
        ]
    )


def _codec(settings: Settings) -> EncryptingCodec | None:
    key = payload_key(settings)
    return None if key is None else EncryptingCodec(key)


@router.post("/decode", responses=error_responses(401, 403, 422))
async def decode(body: CodecPayloads, settings: SettingsDep) -> CodecPayloads:
    """Payloads as the Temporal UI shows them: decrypted (unencrypted ones as they are),
    a turn's progress events written out as JSON."""
    codec = _codec(settings)
    payloads = _to_proto(body)
    try:
        plain = payloads if codec is None else await codec.decode(payloads)
    except ValueError as exc:
        raise ApiError(422, "InvalidInput", str(exc)) from exc
    return _to_json([readable(p) for p in plain])


@router.post("/encode", responses=error_responses(401, 403, 422))
async def encode(body: CodecPayloads, settings: SettingsDep) -> CodecPayloads:
    """Encrypt payloads (the UI encodes what an operator sends, such as a signal); without
    a key they go as they are."""
    codec = _codec(settings)
    payloads = _to_proto(body)
    return _to_json(payloads if codec is None else await codec.encode(payloads))
