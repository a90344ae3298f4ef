"""The one settings class, read only at process edges (worker, API factory, CLI).

A bad value fails fast: `get_settings()` raises `SettingsError`, whose message is one
line naming the environment variable, and `load_settings()` turns that into a clean exit.
"""

import base64
import json
import re
import sys
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from domain.budget import MAX_MODEL_TIMEOUT_SECONDS, TURN_BUDGET_SECONDS
from domain.failures import Direction

PROJECT_ROOT = Path(__file__).resolve().parent
ENV_PREFIX = "TURNSTILE_"
EXIT_BAD_SETTINGS = 2
"""The exit code of a process refused at start-up for a bad setting (the CLI's bad input)."""

# Past a year a duration is a typo, and far past it timedelta and Temporal's Duration
# overflow deep inside a running worker instead of here.
_MAX_SECONDS = 366 * 24 * 3600

Port = Annotated[int, Field(ge=1, le=65535)]
Seconds = Annotated[float, Field(gt=0, le=_MAX_SECONDS, allow_inf_nan=False)]
NonEmpty = Annotated[str, Field(min_length=1)]


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


def _parse_prices(text: str) -> dict[str, tuple[float, float]]:
    try:
        parsed = json.loads(text)
        return {str(model): (float(p["input"]), float(p["output"])) for model, p in parsed.items()}
    except (ValueError, TypeError, KeyError, AttributeError):
        raise ValueError(
            'must be JSON like {"gpt-4o": {"input": 2.5, "output": 10}} (US$ per million tokens)'
        ) from None


SHADOW_FIELDS = (
    "engine", "openai_base_url", "openai_api_key", "openai_structured_output", "model_route",
    "model_grade", "model_synthesize", "model_judge", "model_summarize",
    "model_timeout_seconds", "model_temperature", "context_budget_chars",
    "context_budget_tokens",
)  # fmt: skip
"""The settings a shadow configuration may set (`TURNSTILE_SHADOW_ENGINE`)."""


def _parse_shadow(text: str) -> dict[str, object]:
    try:
        parsed = json.loads(text)
    except ValueError:
        raise ValueError('must be a JSON object of engine settings, like {"engine": "openai"}'
                         ) from None  # fmt: skip
    if not isinstance(parsed, dict):
        raise ValueError("must be a JSON object of engine settings")
    unknown = sorted(set(parsed) - set(SHADOW_FIELDS))
    if unknown:
        raise ValueError(f"{unknown[0]!r} is not an engine setting: use {', '.join(SHADOW_FIELDS)}")
    return parsed


class EngineName(StrEnum):
    """Which engine runs a turn's model steps (`worker.make_engine` builds it)."""

    OFFLINE = "offline"
    OPENAI = "openai"
    """Any OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, llama.cpp, LiteLLM)."""


class Settings(BaseSettings):
    """Everything configurable, from `TURNSTILE_*` environment variables.

    The embedded stack is the default: leave `temporal_address`, `database_url` and
    `qdrant_url` unset and `turnstile up` starts its own Temporal dev server, PostgreSQL
    and Qdrant (local mode) with all state under `home`.
    """

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="ignore")

    home: Path = Field(default=PROJECT_ROOT / ".turnstile")

    temporal_address: str | None = None
    temporal_port: Port = 7233
    temporal_ui_port: Port = 8233
    # The embedded dev server's HTTP API and /metrics ports: a random free port each when
    # unset. Set them when other ports are chosen up front (tests), so the dev server
    # cannot take one of those while it starts.
    temporal_http_port: Port | None = None
    temporal_dev_metrics_port: Port | None = None
    temporal_namespace: NonEmpty = "default"
    task_queue: NonEmpty = "turnstile"
    workers: int = Field(default=1, ge=1, le=8)
    """Turn workers of the embedded stack (`turnstile up --workers N`). One holds the
    report index (Qdrant Edge: one process per shard) and serves `task_queue` with every
    workflow and step; with more than one, turns run on `turn_task_queue`, served by it and
    by N-1 workers that hold no index (`worker.py --role turn`), and their index steps go
    to `task_queue`."""
    turn_task_queue: NonEmpty = "turnstile-turns"

    database_url: str | None = None
    postgres_port: Port = 54329

    qdrant_url: str | None = None
    qdrant_api_key: SecretStr | None = None
    qdrant_embedded: Literal["edge", "local"] = "edge"
    """Without `qdrant_url`, the embedded index: Qdrant Edge, or qdrant-client's local
    mode (pure Python, kept to compare against)."""

    api_host: NonEmpty = "127.0.0.1"
    api_port: Port = 8000
    api_url: str = "http://127.0.0.1:8000"
    request_timeout_seconds: Seconds = 20.0
    # A PostgreSQL outage answers 503 within about this long instead of hanging requests.
    database_pool_timeout_seconds: Seconds = 2.5
    # libpq waits forever on 0 or less.
    database_connect_timeout_seconds: Annotated[int, Field(ge=1, le=_MAX_SECONDS)] = 3
    # How long one statement may take, waited for by the client as well as the server:
    # a PostgreSQL that is stalled (stopped, not gone) never answers, so only the
    # client's own bound ends the wait. The API's statements are all small; the
    # worker's (retention purges, ingestion) get longer.
    database_query_timeout_seconds: Seconds = 2.0
    worker_database_query_timeout_seconds: Seconds = 30.0
    # Every call the API makes to Temporal gives up after this long (a stalled server
    # never answers), and a server that refuses connections is retried for no longer.
    temporal_rpc_timeout_seconds: Seconds = 2.0
    # The largest request body the API reads (413 beyond it); the codec endpoint, which
    # the Temporal UI sends whole workflow payloads to, may take more.
    max_body_bytes: Annotated[int, Field(ge=1024)] = 64 * 1024
    codec_max_body_bytes: Annotated[int, Field(ge=1024)] = 8 * 1024 * 1024

    corpus_dir: Path = Field(default=PROJECT_ROOT / "corpus" / "reports")
    ocr: bool = False
    """Read a PDF page without a usable text layer (a scan, a font without a character
    map) with tesseract (`apt-get install tesseract-ocr`) instead of leaving it out; a
    figure is taken only where two readings agree (ingestion/pdf.py). Off by default:
    OCR costs about 2 s a page, and without tesseract each such page says so."""
    embedding_model: Literal["all-MiniLM-L6-v2"] = "all-MiniLM-L6-v2"
    """The local embedder (offline, the default)."""
    embedding_cache_dir: Path | None = None
    """Where document vectors are kept so a text is embedded once (`VectorCache`); unset,
    `home/embedding-cache`."""
    bytecode_dir: Path | None = None
    """Where the worker keeps compiled modules when PYTHONDONTWRITEBYTECODE is set (it needs
    them: the workflow sandbox loads the turn's module for every turn). Unset, the user's
    cache, `$XDG_CACHE_HOME/turnstile/pycache` (else `~/.cache/...`): bytecode is not data,
    and kept per home every new home compiled torch and the rest anew, about 12 s of a
    stack's start here."""
    embedding_provider: Literal["local", "openai"] = "local"
    """`openai`: embed through an OpenAI-compatible endpoint instead of the local model."""
    embedding_base_url: str | None = None
    """Defaults to TURNSTILE_OPENAI_BASE_URL."""
    embedding_api_key: SecretStr | None = None
    """Defaults to TURNSTILE_OPENAI_API_KEY."""
    openai_embedding_model: NonEmpty = "text-embedding-3-small"
    openai_embedding_dimensions: Annotated[int, Field(ge=8, le=8192)] | None = None
    # Cohere rerank over the fused candidates; without a key there is no reranker.
    cohere_api_key: SecretStr | None = None
    cohere_base_url: str | None = None
    """Defaults to Cohere's own API."""
    rerank_model: NonEmpty = "rerank-v3.5"
    engine: EngineName = EngineName.OFFLINE
    # Prometheus: the API serves GET /metrics on its own port; the worker serves its turn
    # metrics and the Temporal SDK's on these (None: not served).
    metrics_host: NonEmpty = "127.0.0.1"
    worker_metrics_port: Port | None = 9464
    temporal_metrics_port: Port | None = 9465
    # The model engine (TURNSTILE_ENGINE=openai): one endpoint, a model per step. A small
    # model routes and grades, a larger one writes, and a different one judges.
    openai_base_url: str | None = None
    openai_api_key: SecretStr | None = None
    openai_structured_output: Literal["json_schema", "json_object"] = "json_schema"
    """json_schema where the server supports it; json_object (JSON mode, validated here)
    for servers that do not."""
    model_route: NonEmpty = "gpt-4o-mini"
    model_grade: NonEmpty = "gpt-4o-mini"
    model_synthesize: NonEmpty = "gpt-4o"
    model_judge: NonEmpty = "gpt-4.1-mini"
    model_summarize: NonEmpty = "gpt-4o-mini"
    model_timeout_seconds: Annotated[
        float, Field(gt=0, le=MAX_MODEL_TIMEOUT_SECONDS, allow_inf_nan=False)
    ] = 60.0
    """One model call's timeout; at most a model step's start-to-close less its margin
    (`domain/budget.py`), so no attempt is cut off while the provider still works."""
    turn_budget_seconds: Seconds = TURN_BUDGET_SECONDS
    """How long a turn's answering work may take (clarification waits not counted); past
    it the turn settles saying the model provider did not answer in time."""
    model_temperature: Annotated[float, Field(ge=0, le=2)] | None = 0.0
    """Set it empty for reasoning models (o-series, gpt-5), which accept only their default."""
    judge_policy: Direction = "open"
    """A judge that is down: `open` shows the answer capped at medium confidence, `closed`
    (regulated use) settles the turn with the diagnostic fallback instead."""
    classifier_policy: Direction = "open"
    """A route classifier that is down: `open` routes to retrieval, `closed` (regulated
    use) settles the turn with the diagnostic fallback, nothing looked up."""

    @field_validator("model_temperature", mode="before")
    @classmethod
    def _empty_temperature(cls, value: object) -> object:
        return None if value == "" else value

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
    clarification_timeout_seconds: Seconds = 24 * 3600.0
    max_clarifications_per_conversation: int = Field(default=4, ge=0)
    """Clarifying questions a conversation may ask in all (each turn asks at most two):
    once they are spent, a turn that cannot tell what is asked settles at once with a
    fixed text asking for the company and year, instead of asking again. 0: no cap."""
    decision_retention_days: Annotated[int, Field(ge=1, le=36_500)] = 365
    """Decision records older than this are purged by the daily retention schedule."""
    sweep_interval_seconds: Seconds = 600.0
    """How often the SweepTurns schedule reconciles open turns with their workflows. Ten
    minutes: the API reconciles a turn that blocks its conversation at once, so the sweep
    only catches the rest, and each run is a row in the Temporal UI's workflow list (a
    per-minute sweep added 1,440 a day to the list operators read)."""
    probe_interval_minutes: Annotated[int, Field(ge=0, le=10_080)] = 360
    """How often the golden probes run (RunGoldenProbes schedule); 0: no schedule."""
    suite_interval_hours: Annotated[int, Field(ge=0, le=24 * 28)] = 0
    """How often the evaluation suites run through this stack against the committed
    baseline (RunSuites schedule; a regression raises TurnstileSuiteDrift); 0, the
    default: no schedule. A full run asks about 1,700 turns (minutes on the offline
    engine; model calls on a model engine)."""
    suite_sample_every: Annotated[int, Field(ge=1)] = 1
    """The scheduled run asks every n-th case of each suite (1: all)."""
    probe_dir: Path = Field(default=PROJECT_ROOT / "evals" / "probes")
    """The golden probe sets, one JSONL file per slice."""
    probe_healthy_rate: Annotated[float, Field(gt=0, le=1)] = 0.95
    """The pass rate of one probe on a healthy system, behind the binomial thresholds."""
    probe_false_alarm_rate: Annotated[float, Field(gt=0, lt=1)] = 0.05
    """The share of a healthy system's runs allowed to breach a slice's threshold."""
    # The API's bounded waits: past these a search or ingestion answers 503, never hangs.
    search_timeout_seconds: Seconds = 10.0
    ingest_timeout_seconds: Seconds = 600.0
    # POST /v1/ingest reads only files under this folder (symlinks resolved first).
    ingest_dir: Path = Field(default=PROJECT_ROOT / "corpus")

    api_keys: SecretStr | None = None
    """A JSON object mapping each API key to its tenant: `{"k-9f2...": "acme"}`. Unset is
    development mode: the one key `turnstile-dev` (tenant `default`) is accepted, and a
    request with no key at all is taken as that key; start-up says so."""
    reviewer_keys: SecretStr | None = None
    """Read-only API keys, JSON like TURNSTILE_API_KEYS (`{"r-51c...": "acme"}`): a
    reviewer reads its tenant's turns, conversations and decision records across users,
    personal values left as tokens, and any request that would write is 403. A key may
    not be both a caller's and a reviewer's."""
    model_prices: str | None = None
    """US$ per million tokens by model, JSON: `{"gpt-4o": {"input": 2.5, "output": 10}}`.
    A turn's cost is in its decision record and the per-tenant metrics; a model without a
    price makes the cost unknown (null), never zero."""
    payload_key: SecretStr | None = None
    """Base64 of 32 random bytes: Temporal payloads (inputs, results, memos) are then
    AES-GCM encrypted; unset, they are plain JSON. `python -c "import base64, os;
    print(base64.b64encode(os.urandom(32)).decode())"` makes one."""
    operator_tenants: list[str] = ["default"]
    """Tenants whose API keys may decrypt payloads through `/codec/decode` (the Temporal
    UI's codec server); the development tenant by default."""
    codec_cors_origins: list[str] = []
    """Browser origins allowed to call the codec endpoint (the Temporal UI's), besides the
    embedded UI's own."""
    otlp_endpoint: str | None = None
    """Where to send OpenTelemetry spans (OTLP over HTTP, e.g.
    `http://collector:4318/v1/traces`); unset, tracing is off."""
    api_key: SecretStr | None = None
    """The key the CLI sends (`Authorization: Bearer`); unset in development mode."""
    pii_key: SecretStr = SecretStr(DEV_PII_KEY)
    """The HMAC key behind the token map's lookup column; set your own in production."""
    pii_retention_days: Annotated[int, Field(ge=1, le=36_500)] = 30
    """Personal values unused for this long are erased by the daily retention schedule."""
    conversation_retention_days: Annotated[int, Field(ge=0, le=36_500)] = 90
    """Conversations idle for this long lose their turns, messages and summaries to the
    daily retention schedule (never a turn running or waiting, never a decision record);
    0 keeps them forever."""
    rate_limit_per_minute: Annotated[float, Field(gt=0, le=1_000_000)] = 60.0
    """Turns and clarification replies one user may send per minute, sustained."""
    rate_limit_burst: Annotated[int, Field(ge=1, le=1_000_000)] = 20
    """How many of them may come at once (the bucket's size)."""
    answer_cache: bool = True
    """The semantic answer cache (docs/memory.md); off, every turn answers afresh."""
    cache_hit_similarity: Annotated[float, Field(gt=0, le=1)] = 0.95
    """Similarity at which a stored answer (same slots) is reused as it is."""
    cache_hint_similarity: Annotated[float, Field(gt=0, le=1)] = 0.80
    """Similarity at which a stored answer (same slots) is handed to synthesis as a hint."""
    cache_ttl_seconds: Seconds = 7 * 24 * 3600.0
    """How long a cached answer lives from its write (a hit does not extend it)."""
    context_budget_chars: Annotated[int, Field(ge=1000, le=1_000_000)] = 16_000
    """The offline engine's synthesis context, in characters: question, evidence, then
    the summary and memory hints while they fit."""
    context_budget_tokens: Annotated[int, Field(ge=500, le=1_000_000)] = 8_000
    """The model engine's synthesis context, in (estimated) tokens."""
    evidence_budget_tokens: Annotated[int, Field(ge=100, le=1_000_000)] = 6_000
    """The evidence's share of it: past this the weakest excerpts are left out, so the
    conversation's last messages and the other notes keep some room (docs/memory.md)."""

    @field_validator("api_keys")
    @classmethod
    def _api_keys(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None:
            _parse_api_keys(value.get_secret_value())
        return value

    @field_validator("reviewer_keys")
    @classmethod
    def _reviewer_keys(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None:
            _parse_api_keys(value.get_secret_value())
        return value

    @field_validator("shadow_engine")
    @classmethod
    def _shadow_engine(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None:
            _parse_shadow(value.get_secret_value())
        return value

    def shadow_settings(self) -> "Settings":
        """These settings with the shadow configuration's engine settings in place."""
        overrides = (
            _parse_shadow(self.shadow_engine.get_secret_value()) if self.shadow_engine else {}
        )
        merged = {**dict(self), **overrides, "shadow_sample": 0.0, "shadow_engine": None}
        return type(self).model_validate(merged)

    @property
    def shadow_task_queue(self) -> str:
        """The queue of the shadow worker (the index holder runs it beside its own)."""
        return f"{self.task_queue}-shadow"

    @property
    def engine_label(self) -> str:
        """The engine configuration in a few words, as the A/B report names each side."""
        if self.engine == EngineName.OFFLINE:
            return "offline"
        return (f"openai: synthesize {self.model_synthesize}, judge {self.model_judge}, "
                f"route {self.model_route}")  # fmt: skip

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

    @field_validator("model_prices")
    @classmethod
    def _model_prices(cls, value: str | None) -> str | None:
        if value is not None:
            _parse_prices(value)
        return value

    @property
    def prices(self) -> dict[str, tuple[float, float]]:
        """Model → (input, output) US$ per million tokens."""
        return _parse_prices(self.model_prices) if self.model_prices else {}

    @property
    def tenant_by_key(self) -> dict[str, str]:
        """API key → tenant; in development mode only the dev key."""
        if self.api_keys is None:
            return {DEV_API_KEY: DEV_TENANT}
        return _parse_api_keys(self.api_keys.get_secret_value())

    def auth_headers(self) -> dict[str, str]:
        """The API key header a client of this stack sends (TURNSTILE_API_KEY; development
        mode needs none): the CLI's and the scheduled suite run's."""
        if self.api_key is None:
            return {}
        return {"Authorization": f"Bearer {self.api_key.get_secret_value()}"}

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

    @field_validator("api_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value

    @field_validator("openai_base_url", "embedding_base_url", "cohere_base_url", "otlp_endpoint")
    @classmethod
    def _base_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value

    @model_validator(mode="after")
    def _engine_is_configured(self) -> "Settings":
        if self.engine == EngineName.OPENAI and not (self.openai_base_url and self.openai_api_key):
            raise ValueError(
                f"{ENV_PREFIX}ENGINE=openai needs {ENV_PREFIX}OPENAI_BASE_URL and "
                f"{ENV_PREFIX}OPENAI_API_KEY (any non-empty key for a local server)"
            )
        if self.embedding_provider == "openai" and not (
            (self.embedding_base_url or self.openai_base_url)
            and (self.embedding_api_key or self.openai_api_key)
        ):
            raise ValueError(
                f"{ENV_PREFIX}EMBEDDING_PROVIDER=openai needs {ENV_PREFIX}EMBEDDING_BASE_URL "
                f"and {ENV_PREFIX}EMBEDDING_API_KEY (or the OPENAI ones)"
            )
        if self.evidence_budget_tokens > self.context_budget_tokens:
            raise ValueError(
                f"{ENV_PREFIX}EVIDENCE_BUDGET_TOKENS must not be above "
                f"{ENV_PREFIX}CONTEXT_BUDGET_TOKENS (it is a share of it)"
            )
        if self.shadow_sample > 0:
            try:
                self.shadow_settings()
            except ValidationError as exc:
                raise ValueError(f"{ENV_PREFIX}SHADOW_ENGINE: {one_line(exc)}") from None
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
        if self.cache_hint_similarity > self.cache_hit_similarity:
            raise ValueError(
                f"{ENV_PREFIX}CACHE_HINT_SIMILARITY must not be above "
                f"{ENV_PREFIX}CACHE_HIT_SIMILARITY"
            )
        return self

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

    @property
    def judge_is_generator(self) -> bool:
        """The judge should never be the model that wrote the answer (start-up warns)."""
        return self.model_judge == self.model_synthesize

    @property
    def effective_temporal_address(self) -> str:
        return self.temporal_address or f"127.0.0.1:{self.temporal_port}"

    @property
    def embedded_database_url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.postgres_port}/postgres"

    @property
    def effective_database_url(self) -> str:
        return self.database_url or self.embedded_database_url

    @property
    def qdrant_path(self) -> Path:
        return self.home / "qdrant"


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
