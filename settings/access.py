"""Settings of who may call the API (keys and their tenants), the key the CLI sends, and
the keys that protect payloads and personal values.

Unset, the API runs in development mode: one known key for one tenant.
"""

import base64
import json
import re
from typing import Self

from pydantic import Field, SecretStr, field_validator, model_validator

from settings.base import ENV_PREFIX, Section

DEV_API_KEY = "turnstile-dev"
DEV_TENANT = "default"
DEV_PII_KEY = "turnstile-dev-pii-key"
_TENANT = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def _parse_api_keys(text: str) -> dict[str, str]:
    """Parse and check TURNSTILE_API_KEYS; the message never repeats a key."""
    try:
        parsed = json.loads(text)
    except ValueError:
        raise ValueError('must be a JSON object of key to tenant, like {"key": "tenant"}') from None
    if not isinstance(parsed, dict) or not parsed:
        raise ValueError("must be a non-empty JSON object of key to tenant")
    for key, tenant in parsed.items():
        if not isinstance(tenant, str) or not _TENANT.fullmatch(tenant):
            raise ValueError("every tenant must be 1-64 characters of A-Z a-z 0-9 _ -")
        if len(key) < 16:
            raise ValueError("every API key must be at least 16 characters")
    return {str(k): str(v) for k, v in parsed.items()}


class AccessSettings(Section):
    """API keys, tenants and the keys behind encryption and pseudonyms."""

    api_keys: SecretStr | None = None
    """A JSON object mapping each API key to its tenant: `{"k-9f2...": "acme"}`. Unset is
    development mode: the one key `turnstile-dev` (tenant `default`) is accepted, and a
    request with no key at all is taken as that key; start-up says so."""
    reviewer_keys: SecretStr | None = None
    """Read-only API keys, JSON like TURNSTILE_API_KEYS (`{"r-51c...": "acme"}`): a
    reviewer reads its tenant's turns, conversations and decision records across users,
    personal values left as tokens, and any request that would write is 403. A key may
    not be both a caller's and a reviewer's."""

    @field_validator("api_keys", "reviewer_keys")
    @classmethod
    def _keys(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None:
            _parse_api_keys(value.get_secret_value())
        return value

    @model_validator(mode="after")
    def _reviewers_are_their_own(self) -> Self:
        if self.reviewer_keys is not None and self.api_keys is None:
            raise ValueError(
                f"{ENV_PREFIX}REVIEWER_KEYS needs {ENV_PREFIX}API_KEYS: in development mode a"
                " request without a key may write, so a read-only key would protect nothing"
            )
        if set(self.reviewer_tenant_by_key) & set(self.tenant_by_key):
            raise ValueError(
                f"{ENV_PREFIX}REVIEWER_KEYS: a key is also in {ENV_PREFIX}API_KEYS; a reviewer's"
                " key must be its own (it cannot write)"
            )
        return self

    api_key: SecretStr | None = None
    """The key the CLI sends (`Authorization: Bearer`); unset in development mode."""
    operator_tenants: list[str] = Field(default=["default"])
    """Tenants whose API keys may decrypt payloads through `/codec/decode` (the Temporal
    UI's codec server); the development tenant by default."""
    codec_cors_origins: list[str] = Field(default=[])
    """Browser origins allowed to call the codec endpoint (the Temporal UI's), besides the
    embedded UI's own."""
    payload_key: SecretStr | None = None
    """Base64 of 32 random bytes: Temporal payloads (inputs, results, memos) are then
    AES-GCM encrypted; unset, they are plain JSON. `python -c "import base64, os;
    print(base64.b64encode(os.urandom(32)).decode())"` makes one."""

    @field_validator("payload_key")
    @classmethod
    def _payload_key(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None:
            try:
                key = base64.b64decode(value.get_secret_value(), validate=True)
            except ValueError:
                raise ValueError("must be base64") from None
            if len(key) != 32:
                raise ValueError("must be base64 of exactly 32 bytes")
        return value

    pii_key: SecretStr = SecretStr(DEV_PII_KEY)
    """The HMAC key behind the token map's lookup column; set your own in production."""

    @property
    def tenant_by_key(self) -> dict[str, str]:
        """API key → tenant; in development mode only the dev key."""
        if self.api_keys is None:
            return {DEV_API_KEY: DEV_TENANT}
        return _parse_api_keys(self.api_keys.get_secret_value())

    @property
    def reviewer_tenant_by_key(self) -> dict[str, str]:
        """Read-only API key → tenant (none unless TURNSTILE_REVIEWER_KEYS is set)."""
        if self.reviewer_keys is None:
            return {}
        return _parse_api_keys(self.reviewer_keys.get_secret_value())

    @property
    def dev_auth(self) -> bool:
        """No keys configured: a request without a key is the development tenant's."""
        return self.api_keys is None

    def auth_headers(self) -> dict[str, str]:
        """The API key header a client of this stack sends (TURNSTILE_API_KEY; development
        mode needs none): the CLI's and the scheduled suite run's."""
        if self.api_key is None:
            return {}
        return {"Authorization": f"Bearer {self.api_key.get_secret_value()}"}
