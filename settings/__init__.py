"""The one settings class, read only at process edges (worker, API factory, CLI).

`Settings` is one flat object made of sections, a module each, every field documented
beside its checks: `stack`, `engine`, `retrieval`, `limits`, `memory`, `evaluation`,
`access` and `operations`. The checks that read two sections are here. The table of
every variable in docs/operations.md is rendered from the fields (`python -m
settings.table`).

A bad value fails fast: `get_settings()` raises `SettingsError`, whose message is one
line naming the environment variable, and `load_settings()` turns that into a clean exit.
"""

import sys
from functools import lru_cache
from typing import Self

from pydantic import ValidationError, model_validator

from settings.access import DEV_API_KEY, DEV_PII_KEY, DEV_TENANT, AccessSettings
from settings.base import ENV_PREFIX, PROJECT_ROOT, Section
from settings.engine import EngineName, EngineSettings
from settings.evaluation import SHADOW_FIELDS, EvaluationSettings, parse_shadow
from settings.limits import LimitSettings
from settings.memory import MemorySettings
from settings.operations import OperationsSettings
from settings.retrieval import RetrievalSettings
from settings.stack import StackSettings

__all__ = [
    "DEV_API_KEY",
    "DEV_PII_KEY",
    "DEV_TENANT",
    "ENV_PREFIX",
    "EXIT_BAD_SETTINGS",
    "PROJECT_ROOT",
    "SECTIONS",
    "SHADOW_FIELDS",
    "EngineName",
    "Settings",
    "SettingsError",
    "get_settings",
    "load_settings",
    "one_line",
]

EXIT_BAD_SETTINGS = 2
"""The exit code of a process refused at start-up for a bad setting (the CLI's bad input)."""

SECTIONS: tuple[type[Section], ...] = (
    StackSettings,
    EngineSettings,
    RetrievalSettings,
    LimitSettings,
    MemorySettings,
    EvaluationSettings,
    AccessSettings,
    OperationsSettings,
)
"""Every section, in the order the settings are read and documented."""


# The sections are listed last to first: pydantic takes the fields (and runs the checks)
# of the base listed last first, so they come in `SECTIONS` order, the stack's first.
class Settings(
    OperationsSettings,
    AccessSettings,
    EvaluationSettings,
    MemorySettings,
    LimitSettings,
    RetrievalSettings,
    EngineSettings,
    StackSettings,
):
    """Everything configurable, from `TURNSTILE_*` environment variables.

    The embedded stack is the default: leave `temporal_address`, `database_url` and
    `qdrant_url` unset and `turnstile up` starts its own Temporal dev server, PostgreSQL
    and the embedded Qdrant with all state under `home`.
    """

    @model_validator(mode="after")
    def _embedding_endpoint_is_configured(self) -> Self:
        if self.embedding_provider == "openai" and not (
            (self.embedding_base_url or self.openai_base_url)
            and (self.embedding_api_key or self.openai_api_key)
        ):
            raise ValueError(
                f"{ENV_PREFIX}EMBEDDING_PROVIDER=openai needs {ENV_PREFIX}EMBEDDING_BASE_URL "
                f"and {ENV_PREFIX}EMBEDDING_API_KEY (or the OPENAI ones)"
            )
        return self

    @model_validator(mode="after")
    def _shadow_is_configured(self) -> Self:
        if self.shadow_sample > 0:
            try:
                self.shadow_settings()
            except ValidationError as exc:
                raise ValueError(f"{ENV_PREFIX}SHADOW_ENGINE: {one_line(exc)}") from None
        return self

    def shadow_settings(self) -> Self:
        """These settings with the shadow configuration's engine settings in place."""
        overrides = (
            parse_shadow(self.shadow_engine.get_secret_value()) if self.shadow_engine else {}
        )
        merged = {**dict(self), **overrides, "shadow_sample": 0.0, "shadow_engine": None}
        return type(self).model_validate(merged)

    @property
    def context_budget(self) -> int:
        """The synthesis context budget in the configured engine's unit."""
        if self.engine == EngineName.OFFLINE:
            return self.context_budget_chars
        return self.context_budget_tokens

    @property
    def evidence_budget(self) -> int | None:
        """The evidence's cap, for an engine with a window (None: the offline engine
        reads every kept excerpt)."""
        return None if self.engine == EngineName.OFFLINE else self.evidence_budget_tokens


def one_line(error: ValidationError) -> str:
    """Render a settings ValidationError as `TURNSTILE_<FIELD>: message`, `; `-joined.

    The rejected value is left out: it may be a key or a URL with a password in it.
    """
    parts = []
    for item in error.errors():
        message = str(item["msg"]).removeprefix("Value error, ")
        if not message.startswith(ENV_PREFIX):  # a variable's name keeps its case
            message = message[:1].lower() + message[1:]
        field = item["loc"][0] if item["loc"] else None
        parts.append(
            f"{ENV_PREFIX}{field.upper()}: {message}" if isinstance(field, str) else message
        )
    return "; ".join(parts)


class SettingsError(Exception):
    """A setting holds a value the project cannot run with; `str()` is one readable line."""

    def __init__(self, error: ValidationError) -> None:
        super().__init__(one_line(error))


@lru_cache
def get_settings() -> Settings:
    """Read the settings once per process; raise SettingsError on a bad value (not cached)."""
    try:
        return Settings()
    except ValidationError as exc:
        raise SettingsError(exc) from exc


def load_settings() -> Settings:
    """`get_settings()` for a process edge: a bad value exits with one line on stderr.

    Raises SystemExit(EXIT_BAD_SETTINGS) after printing `turnstile: TURNSTILE_X: ...`, so
    the worker, the API factory (uvicorn prints no traceback for SystemExit) and a
    `python -c` caller all stop before anything starts.
    """
    try:
        return get_settings()
    except SettingsError as exc:
        print(f"turnstile: {exc}", file=sys.stderr, flush=True)
        raise SystemExit(EXIT_BAD_SETTINGS) from None
