"""Settings fail fast: a bad value is refused at load, in one line naming its variable."""

import os
from collections.abc import Iterator

import pytest
from pydantic import ValidationError

from settings import (
    EXIT_BAD_SETTINGS,
    EngineName,
    Settings,
    SettingsError,
    get_settings,
    load_settings,
    one_line,
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No TURNSTILE_* variable from the developer's shell, and no cached settings."""
    for name in [n for n in os.environ if n.startswith("TURNSTILE_")]:
        monkeypatch.delenv(name)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def refusal(monkeypatch: pytest.MonkeyPatch, **env: str) -> str:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError) as caught:
        get_settings()
    return str(caught.value)


def test_defaults_load_and_name_the_offline_engine() -> None:
    settings = Settings()

    assert settings.engine is EngineName.OFFLINE
    assert settings.engine == "offline"


def test_an_unknown_engine_is_one_line_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    line = refusal(monkeypatch, TURNSTILE_ENGINE="gpt")

    assert line == "TURNSTILE_ENGINE: input should be 'offline' or 'openai'"


def test_the_model_engine_without_a_base_url_or_key_is_refused_in_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    line = refusal(monkeypatch, TURNSTILE_ENGINE="openai")
    assert line == (
        "TURNSTILE_ENGINE=openai needs TURNSTILE_OPENAI_BASE_URL and TURNSTILE_OPENAI_API_KEY "
        "(any non-empty key for a local server)"
    )
    get_settings.cache_clear()
    monkeypatch.setenv("TURNSTILE_OPENAI_BASE_URL", "http://127.0.0.1:11434/v1")
    assert "OPENAI_API_KEY" in refusal(monkeypatch)
    get_settings.cache_clear()
    monkeypatch.setenv("TURNSTILE_OPENAI_API_KEY", "ollama")
    settings = get_settings()
    assert settings.engine is EngineName.OPENAI
    assert "ollama" not in repr(settings)  # the key is a secret
    assert not settings.judge_is_generator


def test_a_judge_on_the_generators_model_is_flagged() -> None:
    settings = Settings(model_synthesize="m", model_judge="m")
    assert settings.judge_is_generator


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("TURNSTILE_API_PORT", "0", "greater than or equal to 1"),
        ("TURNSTILE_API_PORT", "65536", "less than or equal to 65535"),
        ("TURNSTILE_TEMPORAL_PORT", "-1", "greater than or equal to 1"),
        ("TURNSTILE_TEMPORAL_UI_PORT", "70000", "less than or equal to 65535"),
        ("TURNSTILE_POSTGRES_PORT", "0", "greater than or equal to 1"),
        ("TURNSTILE_API_PORT", "http", "a valid integer"),
        ("TURNSTILE_REQUEST_TIMEOUT_SECONDS", "0", "greater than 0"),
        ("TURNSTILE_DATABASE_POOL_TIMEOUT_SECONDS", "-3", "greater than 0"),
        ("TURNSTILE_DATABASE_CONNECT_TIMEOUT_SECONDS", "0", "greater than or equal to 1"),
        ("TURNSTILE_CLARIFICATION_TIMEOUT_SECONDS", "0", "greater than 0"),
        ("TURNSTILE_CLARIFICATION_TIMEOUT_SECONDS", "1e12", "less than or equal to"),
        ("TURNSTILE_SWEEP_INTERVAL_SECONDS", "0", "greater than 0"),
        ("TURNSTILE_SWEEP_INTERVAL_SECONDS", "inf", "a finite number"),
        ("TURNSTILE_SEARCH_TIMEOUT_SECONDS", "nan", "a finite number"),
        ("TURNSTILE_INGEST_TIMEOUT_SECONDS", "-1", "greater than 0"),
        ("TURNSTILE_TASK_QUEUE", "", "at least 1 character"),
        ("TURNSTILE_TEMPORAL_NAMESPACE", "", "at least 1 character"),
        ("TURNSTILE_API_HOST", "", "at least 1 character"),
        ("TURNSTILE_API_URL", "127.0.0.1:8000", "must start with http:// or https://"),
        ("TURNSTILE_EMBEDDING_MODEL", "bge-small", "input should be 'all-MiniLM-L6-v2'"),
        ("TURNSTILE_OPENAI_BASE_URL", "localhost:11434", "must start with http:// or https://"),
        ("TURNSTILE_MODEL_JUDGE", "", "at least 1 character"),
        ("TURNSTILE_MODEL_TIMEOUT_SECONDS", "0", "greater than 0"),
        # Longer than a model step's start-to-close holds: every attempt would be cut off.
        ("TURNSTILE_MODEL_TIMEOUT_SECONDS", "71", "less than or equal to 70"),
        ("TURNSTILE_TURN_BUDGET_SECONDS", "0", "greater than 0"),
        ("TURNSTILE_OPENAI_STRUCTURED_OUTPUT", "xml", "'json_schema' or 'json_object'"),
        ("TURNSTILE_JUDGE_POLICY", "strict", "input should be 'open' or 'closed'"),
        ("TURNSTILE_CLASSIFIER_POLICY", "", "input should be 'open' or 'closed'"),
        ("TURNSTILE_CONVERSATION_RETENTION_DAYS", "-1", "greater than or equal to 0"),
    ],
)
def test_each_bound_refuses_a_nonsense_value_naming_its_variable(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, message: str
) -> None:
    line = refusal(monkeypatch, **{variable: value})

    assert line.startswith(f"{variable}: ")
    assert message in line
    assert "\n" not in line


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("TURNSTILE_API_PORT", "1"),
        ("TURNSTILE_API_PORT", "65535"),
        ("TURNSTILE_SWEEP_INTERVAL_SECONDS", "0.5"),
        ("TURNSTILE_DATABASE_CONNECT_TIMEOUT_SECONDS", "1"),
        ("TURNSTILE_API_URL", "https://turnstile.example"),
        ("TURNSTILE_ENGINE", "offline"),
        ("TURNSTILE_MODEL_TIMEOUT_SECONDS", "70"),
        ("TURNSTILE_JUDGE_POLICY", "closed"),
        ("TURNSTILE_CLASSIFIER_POLICY", "closed"),
        ("TURNSTILE_CONVERSATION_RETENTION_DAYS", "0"),  # kept forever
    ],
)
def test_values_at_the_bounds_are_accepted(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)

    get_settings()


def test_several_bad_values_stay_on_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    line = refusal(monkeypatch, TURNSTILE_ENGINE="gpt", TURNSTILE_API_PORT="0")

    assert "\n" not in line
    assert "TURNSTILE_ENGINE: input should be 'offline'" in line
    assert "TURNSTILE_API_PORT: input should be greater than or equal to 1" in line


def test_the_rendering_leaves_the_rejected_value_out() -> None:
    with pytest.raises(ValidationError) as caught:
        Settings(api_url="postgres://admin:hunter2@db")

    assert "hunter2" not in one_line(caught.value)


def test_explicit_values_are_checked_like_the_environment() -> None:
    with pytest.raises(ValidationError) as caught:
        Settings(api_port=0)

    assert one_line(caught.value) == (
        "TURNSTILE_API_PORT: input should be greater than or equal to 1"
    )


def test_get_settings_is_cached_and_a_refusal_is_not(monkeypatch: pytest.MonkeyPatch) -> None:
    refusal(monkeypatch, TURNSTILE_ENGINE="gpt")
    monkeypatch.setenv("TURNSTILE_ENGINE", "offline")

    first = get_settings()

    assert get_settings() is first


def test_load_settings_exits_with_one_line_on_stderr(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TURNSTILE_ENGINE", "gpt")

    with pytest.raises(SystemExit) as caught:
        load_settings()

    assert caught.value.code == EXIT_BAD_SETTINGS != 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "turnstile: TURNSTILE_ENGINE: input should be 'offline' or 'openai'\n"


def test_an_empty_model_temperature_leaves_it_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TURNSTILE_MODEL_TEMPERATURE", "")
    assert get_settings().model_temperature is None
    get_settings.cache_clear()
    assert "TURNSTILE_MODEL_TEMPERATURE" in refusal(monkeypatch, TURNSTILE_MODEL_TEMPERATURE="3")
