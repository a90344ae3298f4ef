"""The base every settings section shares, with the `TURNSTILE_` prefix, the project's root
and the bounded value types of their fields.

A section is a `Section` subclass holding the fields about one thing, each field with
its attribute docstring, which pydantic keeps as the field's description: the settings
table in docs/operations.md is rendered from those (`python -m settings.table`).
"""

from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent
ENV_PREFIX = "TURNSTILE_"

# Past a year a duration is a typo, and far past it timedelta and Temporal's Duration
# overflow deep inside a running worker instead of here.
MAX_SECONDS = 366 * 24 * 3600

Port = Annotated[int, Field(ge=1, le=65535)]
Seconds = Annotated[float, Field(gt=0, le=MAX_SECONDS, allow_inf_nan=False)]
NonEmpty = Annotated[str, Field(min_length=1)]


def _http(value: str) -> str:
    if not value.startswith(("http://", "https://")):
        raise ValueError("must start with http:// or https://")
    return value


HttpAddress = Annotated[str, AfterValidator(_http)]
"""The URL of an HTTP server (the API, a provider, a collector): a missing scheme fails at
start-up, not at the first request."""


class Section(BaseSettings):
    """One group of settings, each read from `TURNSTILE_<FIELD>`.

    `settings.Settings` inherits every section, so the settings stay one flat object.
    """

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, extra="ignore", use_attribute_docstrings=True
    )
