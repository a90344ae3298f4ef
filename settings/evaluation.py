"""Settings of the golden probes, the scheduled suite runs and the shadow configuration
that answers live questions beside the real one."""

import json
from pathlib import Path
from typing import Annotated

from pydantic import Field, SecretStr, field_validator

from settings.base import PROJECT_ROOT, Section

SHADOW_FIELDS = (
    "engine",
    "openai_base_url",
    "openai_api_key",
    "openai_structured_output",
    "model_route",
    "model_grade",
    "model_synthesize",
    "model_judge",
    "model_summarize",
    "model_timeout_seconds",
    "model_temperature",
    "context_budget_chars",
    "context_budget_tokens",
)
"""The settings a shadow configuration may set (`TURNSTILE_SHADOW_ENGINE`)."""


def parse_shadow(text: str) -> dict[str, object]:
    """Parse TURNSTILE_SHADOW_ENGINE: a JSON object of `SHADOW_FIELDS` only."""
    try:
        parsed = json.loads(text)
    except ValueError:
        raise ValueError(
            'must be a JSON object of engine settings, like {"engine": "openai"}'
        ) from None
    if not isinstance(parsed, dict):
        raise ValueError("must be a JSON object of engine settings")
    unknown = sorted(set(parsed) - set(SHADOW_FIELDS))
    if unknown:
        raise ValueError(f"{unknown[0]!r} is not an engine setting: use {', '.join(SHADOW_FIELDS)}")
    return parsed


class EvaluationSettings(Section):
    """Golden probes, scheduled suites and the shadow engine."""

    probe_dir: Path = Field(default=PROJECT_ROOT / "evals" / "probes")
    """The golden probe sets, one JSONL file per slice."""
    probe_interval_minutes: Annotated[int, Field(ge=0, le=10_080)] = 360
    """How often the golden probes run (RunGoldenProbes schedule); 0: no schedule."""
    probe_healthy_rate: Annotated[float, Field(gt=0, le=1)] = 0.95
    """The pass rate of one probe on a healthy system, behind the binomial thresholds."""
    probe_false_alarm_rate: Annotated[float, Field(gt=0, lt=1)] = 0.05
    """The share of a healthy system's runs allowed to breach a slice's threshold."""

    suite_interval_hours: Annotated[int, Field(ge=0, le=24 * 28)] = 0
    """How often the evaluation suites run through this stack against the committed
    baseline (RunSuites schedule; a regression raises TurnstileSuiteDrift); 0, the
    default: no schedule. A full run asks about 1,700 turns (minutes on the offline
    engine; model calls on a model engine)."""
    suite_sample_every: Annotated[int, Field(ge=1)] = 1
    """The scheduled run asks every n-th case of each suite (1: all)."""

    shadow_sample: Annotated[float, Field(ge=0, le=1)] = 0.0
    """The share of live questions a second engine configuration answers as well, in
    shadow (`shadow_engine`), on its own task queue: 0, none. The shadow's answer is never
    shown and never written to the conversation, the answer cache or the decision
    record; both outcomes go side by side to `turnstile eval shadow`."""
    shadow_engine: SecretStr | None = None
    """The shadow configuration: a JSON object of the engine settings it changes, named
    as their variables are without the prefix (`{"engine": "openai", "openai_base_url":
    "http://…", "openai_api_key": "…", "model_synthesize": "gpt-4.1"}`). Unset: the live
    configuration itself (a shadow then shows how much its answers vary run to run)."""

    @field_validator("shadow_engine")
    @classmethod
    def _shadow_engine(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None:
            parse_shadow(value.get_secret_value())
        return value
