"""A turn's token usage and cost from its model calls and the configured prices."""

import pytest
from prometheus_client import CollectorRegistry

from backends.metrics import TurnMetrics
from domain.models import ModelCall
from domain.usage import Price, Usage, usage_of
from settings import Settings

PRICES = {"gpt-4o": Price(input=2.5, output=10.0), "mini": Price(input=0.15, output=0.6)}


def call(model: str, prompt: int, completion: int) -> ModelCall:
    return ModelCall(
        step="synthesize",
        model=model,
        prompt_sha="abc123def456",
        prompt_tokens=prompt,
        completion_tokens=completion,
    )


def test_cost_is_tokens_times_each_models_price() -> None:
    usage = usage_of([call("gpt-4o", 1000, 200), call("mini", 4000, 100)], PRICES)
    assert (usage.prompt_tokens, usage.completion_tokens) == (5000, 300)
    # 1000*2.5 + 200*10 + 4000*0.15 + 100*0.6 = 5160 per million
    assert usage.cost_usd == pytest.approx(0.00516)


def test_an_unpriced_model_makes_the_cost_unknown_not_zero() -> None:
    usage = usage_of([call("gpt-4o", 1000, 200), call("llama-local", 10, 10)], PRICES)
    assert usage.cost_usd is None and usage.unpriced_models == ("llama-local",)


def test_a_turn_without_model_calls_costs_nothing() -> None:
    assert usage_of([], {}) == Usage()


def test_prices_come_from_one_json_setting_and_a_bad_one_is_refused() -> None:
    settings = Settings(model_prices='{"gpt-4o": {"input": 2.5, "output": 10}}')
    assert settings.prices == {"gpt-4o": (2.5, 10.0)}
    with pytest.raises(ValueError, match="US\\$ per million tokens"):
        Settings(model_prices='{"gpt-4o": 2.5}')


def test_usage_is_counted_per_tenant() -> None:
    registry = CollectorRegistry()
    metrics = TurnMetrics(registry)
    metrics.observe_usage("acme", usage_of([call("gpt-4o", 1000, 200)], PRICES))
    metrics.observe_usage("acme", usage_of([call("unknown", 5, 5)], PRICES))
    get = registry.get_sample_value
    assert get("turnstile_tenant_tokens_total", {"tenant": "acme", "kind": "prompt"}) == 1005
    assert get("turnstile_tenant_cost_usd_total", {"tenant": "acme"}) == pytest.approx(0.0045)
    assert get("turnstile_unpriced_turns_total", {"tenant": "acme"}) == 1
