"""Settings of where Temporal, PostgreSQL, Qdrant and the API run, and of the task queues
the workers serve.

The embedded stack is the default: leave `temporal_address`, `database_url` and
`qdrant_url` unset and `turnstile up` starts its own Temporal dev server, PostgreSQL and
Qdrant (Edge, or local mode) with all state under `home`.
"""

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr

from settings.base import PROJECT_ROOT, HttpAddress, NonEmpty, Port, Section


class StackSettings(Section):
    """Servers, ports, queues and processes."""

    home: Path = Field(default=PROJECT_ROOT / ".turnstile")
    """The data directory: the embedded servers' state, the index, pid files and logs."""
    bytecode_dir: Path | None = None
    """Where the worker keeps compiled modules when PYTHONDONTWRITEBYTECODE is set (it needs
    them: the workflow sandbox loads the turn's module for every turn). Unset, the user's
    cache, `$XDG_CACHE_HOME/turnstile/pycache` (else `~/.cache/...`): bytecode is not data,
    and kept per home every new home compiled torch and the rest anew, about 12 s of a
    stack's start here."""

    temporal_address: str | None = None
    """`host:port` of an existing Temporal frontend; unset, the embedded dev server."""
    temporal_port: Port = 7233
    """The embedded Temporal dev server's gRPC port."""
    temporal_ui_port: Port = 8233
    """The embedded Temporal dev server's web UI (also an origin allowed to call the codec
    endpoint)."""
    temporal_http_port: Port | None = None
    """The embedded dev server's HTTP API port; unset, a random free port. Set it when
    other ports are chosen up front (tests), so the dev server cannot take one of those
    while it starts."""
    temporal_dev_metrics_port: Port | None = None
    """The embedded dev server's own /metrics port; unset, a random free port (as for
    `temporal_http_port`)."""
    temporal_namespace: NonEmpty = "default"
    """The Temporal namespace every client and worker uses."""
    task_queue: NonEmpty = "turnstile"
    """The main task queue: every workflow and step, served by the worker that holds the
    report index."""
    workers: int = Field(default=1, ge=1, le=8)
    """Turn workers of the embedded stack (`turnstile up --workers N`). One holds the
    report index (Qdrant Edge: one process per shard) and serves `task_queue` with every
    workflow and step; with more than one, turns run on `turn_task_queue`, served by it and
    by N-1 workers that hold no index (`worker.py --role turn`), and their index steps go
    to `task_queue`."""
    turn_task_queue: NonEmpty = "turnstile-turns"
    """The queue ChatTurn runs on when there is more than one worker (`workers`)."""

    database_url: str | None = None
    """A PostgreSQL connection URL; unset, the embedded server on `postgres_port`."""
    postgres_port: Port = 54329
    """The embedded PostgreSQL server's port."""

    qdrant_url: str | None = None
    """An existing Qdrant server; unset, the embedded index under `home`."""
    qdrant_api_key: SecretStr | None = None
    """The API key of the Qdrant server at `qdrant_url`, if it asks for one."""
    qdrant_embedded: Literal["edge", "local"] = "edge"
    """Without `qdrant_url`, the embedded index: Qdrant Edge, or qdrant-client's local
    mode (pure Python, kept to compare against)."""

    api_host: NonEmpty = "127.0.0.1"
    """The interface the embedded stack's API listens on."""
    api_port: Port = 8000
    """The port the embedded stack's API listens on."""
    api_url: HttpAddress = "http://127.0.0.1:8000"
    """The API the CLI and the scheduled suite run talk to."""

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

    @property
    def shadow_task_queue(self) -> str:
        """The queue of the shadow worker (the index holder runs it beside its own)."""
        return f"{self.task_queue}-shadow"
