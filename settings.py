"""The one settings class, read only at process edges (worker, API factory, CLI)."""

from functools import lru_cache
from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent


class Settings(BaseSettings):
    """Everything configurable, from `TURNSTILE_*` environment variables.

    The embedded stack is the default: leave `temporal_address`, `database_url` and
    `qdrant_url` unset and `turnstile up` starts its own Temporal dev server, PostgreSQL
    and Qdrant (local mode) with all state under `home`.
    """

    model_config = SettingsConfigDict(env_prefix="TURNSTILE_", extra="ignore")

    home: Path = Field(default=PROJECT_ROOT / ".turnstile")

    temporal_address: str | None = None
    temporal_port: int = 7233
    temporal_ui_port: int = 8233
    temporal_namespace: str = "default"
    task_queue: str = "turnstile"

    database_url: str | None = None
    postgres_port: int = 54329

    qdrant_url: str | None = None
    qdrant_api_key: SecretStr | None = None

    api_host: str = "127.0.0.1"
    api_port: int = 8000
    api_url: str = "http://127.0.0.1:8000"
    request_timeout_seconds: float = 20.0
    # A PostgreSQL outage answers 503 within about this long instead of hanging requests.
    database_pool_timeout_seconds: float = 3.0
    database_connect_timeout_seconds: int = 3

    corpus_dir: Path = Field(default=PROJECT_ROOT / "corpus" / "reports")
    embedding_model: str = "all-MiniLM-L6-v2"
    engine: str = "offline"
    clarification_timeout_seconds: float = 24 * 3600.0
    sweep_interval_seconds: float = 60.0
    """How often the SweepTurns schedule reconciles open turns with their workflows."""
    # The API's bounded waits: past these a search or ingestion answers 503, never hangs.
    search_timeout_seconds: float = 10.0
    ingest_timeout_seconds: float = 600.0
    # POST /v1/ingest reads only files under this folder (symlinks resolved first).
    ingest_dir: Path = Field(default=PROJECT_ROOT / "corpus")

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


@lru_cache
def get_settings() -> Settings:
    return Settings()
