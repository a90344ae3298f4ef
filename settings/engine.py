"""Settings of the engine that answers a turn's model steps, the endpoint and the model of
each step, how long a call may take, and what a step that is down does."""

import json
from enum import StrEnum
from typing import Annotated, Literal, Self

from pydantic import Field, SecretStr, field_validator, model_validator

from domain.budget import MAX_MODEL_TIMEOUT_SECONDS
from domain.failures import Direction
from settings.base import ENV_PREFIX, HttpAddress, NonEmpty, Section


class EngineName(StrEnum):
    """Which engine runs a turn's model steps (`worker.make_engine` builds it)."""

    OFFLINE = "offline"
    OPENAI = "openai"
    """Any OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, llama.cpp, LiteLLM)."""


def _parse_prices(text: str) -> dict[str, tuple[float, float]]:
    """Parse TURNSTILE_MODEL_PRICES into model → (input, output) US$ per million tokens."""
    try:
        parsed = json.loads(text)
        return {str(model): (float(p["input"]), float(p["output"])) for model, p in parsed.items()}
    except (ValueError, TypeError, KeyError, AttributeError):
        raise ValueError(
            'must be JSON like {"gpt-4o": {"input": 2.5, "output": 10}} (US$ per million tokens)'
        ) from None


class EngineSettings(Section):
    """The model engine: one endpoint, a model per step. A small model routes and grades,
    a larger one writes, and a different one judges."""

    engine: EngineName = EngineName.OFFLINE
    """`offline` (deterministic, no model provider) or `openai`: any OpenAI-compatible
    chat endpoint, which then needs `openai_base_url` and `openai_api_key`."""
    openai_base_url: HttpAddress | None = None
    """The chat endpoint of the model engine (`https://api.openai.com/v1`, a vLLM or
    Ollama server's `/v1`)."""
    openai_api_key: SecretStr | None = None
    """The model engine's API key (any non-empty key for a local server)."""

    @model_validator(mode="after")
    def _engine_is_configured(self) -> Self:
        if self.engine == EngineName.OPENAI and not (self.openai_base_url and self.openai_api_key):
            raise ValueError(
                f"{ENV_PREFIX}ENGINE=openai needs {ENV_PREFIX}OPENAI_BASE_URL and "
                f"{ENV_PREFIX}OPENAI_API_KEY (any non-empty key for a local server)"
            )
        return self

    openai_structured_output: Literal["json_schema", "json_object"] = "json_schema"
    """json_schema where the server supports it; json_object (JSON mode, validated here)
    for servers that do not."""
    model_route: NonEmpty = "gpt-4o-mini"
    """The model that routes a question and reads its slots."""
    model_grade: NonEmpty = "gpt-4o-mini"
    """The model that grades retrieved excerpts for relevance."""
    model_synthesize: NonEmpty = "gpt-4o"
    """The model that writes the answer."""
    model_judge: NonEmpty = "gpt-4.1-mini"
    """The model that judges the answer; never the writer's (start-up warns)."""
    model_summarize: NonEmpty = "gpt-4o-mini"
    """The model that summarises a long conversation's older messages."""
    model_timeout_seconds: Annotated[
        float, Field(gt=0, le=MAX_MODEL_TIMEOUT_SECONDS, allow_inf_nan=False)
    ] = 60.0
    """One model call's timeout; at most a model step's start-to-close less its margin
    (`domain/budget.py`), so no attempt is cut off while the provider still works."""
    model_temperature: Annotated[float, Field(ge=0, le=2)] | None = 0.0
    """Set it empty for reasoning models (o-series, gpt-5), which accept only their default."""

    @field_validator("model_temperature", mode="before")
    @classmethod
    def _empty_temperature(cls, value: object) -> object:
        return None if value == "" else value

    model_prices: str | None = None
    """US$ per million tokens by model, JSON: `{"gpt-4o": {"input": 2.5, "output": 10}}`.
    A turn's cost is in its decision record and the per-tenant metrics; a model without a
    price makes the cost unknown (null), never zero."""

    @field_validator("model_prices")
    @classmethod
    def _model_prices(cls, value: str | None) -> str | None:
        if value is not None:
            _parse_prices(value)
        return value

    judge_policy: Direction = "open"
    """A judge that is down: `open` shows the answer capped at medium confidence, `closed`
    (regulated use) settles the turn with the diagnostic fallback instead."""
    classifier_policy: Direction = "open"
    """A route classifier that is down: `open` routes to retrieval, `closed` (regulated
    use) settles the turn with the diagnostic fallback, nothing looked up."""

    @property
    def prices(self) -> dict[str, tuple[float, float]]:
        """Model → (input, output) US$ per million tokens."""
        return _parse_prices(self.model_prices) if self.model_prices else {}

    @property
    def engine_label(self) -> str:
        """The engine configuration in a few words, as the A/B report names each side."""
        if self.engine == EngineName.OFFLINE:
            return "offline"
        return (
            f"openai: synthesize {self.model_synthesize}, judge {self.model_judge}, "
            f"route {self.model_route}"
        )

    @property
    def judge_is_generator(self) -> bool:
        """The judge should never be the model that wrote the answer (start-up warns)."""
        return self.model_judge == self.model_synthesize
