"""Shared session fixtures: real PostgreSQL, a real Temporal dev server, real Qdrant.

Nothing of ours is mocked. Everything lives under one temporary TURNSTILE_HOME and on
free ports, so a developer's running stack (or the system PostgreSQL on 5432) is never
touched. The expensive parts (dev server, PostgreSQL, embedding model, the ingested
sample corpus) are started once per session; each test gets a fresh task queue.

- `turnstile_home`, `settings`: where everything lives and which ports it uses.
- `postgres_url`: migrated PostgreSQL (TURNSTILE_DATABASE_URL if set, else embedded).
- `temporal_env`: the Temporal CLI dev server with our search attributes registered.
- `embedder`, `report_index`: the local model and the whole sample corpus in Qdrant.
- `make_report_index`: a fresh, empty index in a per-test folder.
- `worker`: `async with worker() as task_queue:` runs a real Worker for one test.
- `app_settings`, `api_client`: the HTTP API in-process, lifespan and all.
- `pool`, `turn_worker`, `turns_on`: run ChatTurn with every real activity and start
  turns the way the API does (allocated in PostgreSQL first).
"""

import asyncio
import contextlib
import fcntl
import hashlib
import os
import secrets
import shutil
import string
import sys
import tempfile
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any, Protocol

import httpx
import pytest
from fastapi import FastAPI
from psycopg_pool import AsyncConnectionPool
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHandle, WorkflowUpdateFailedError
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.service import RPCError
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from api.app import create_app
from backends.coverage import PinCoverage
from backends.embeddings import CachedEmbedder, LocalEmbedder, VectorCache
from backends.engines.offline.engine import OfflineEngine
from backends.engines.openai_engine import ModelConfig, OpenAIEngine
from backends.engines.protocol import Engine
from backends.report_activities import ReportActivities
from backends.reports import IndexClient, ReportIndex, open_qdrant
from db import turns
from db.migrate import migrate
from domain.budget import TURN_BUDGET_SECONDS
from domain.companies.roster import use_coverage
from domain.failures import Direction
from domain.turns import TurnResult
from ingestion.companies import sample_coverage
from settings import PROJECT_ROOT, Settings, get_settings
from stack import postgres
from stack.processes import free_port, pid_alive
from testkit.fake_servers import FakeOpenAI
from workflows import attributes
from workflows.chat_turn import ChatTurn
from workflows.contracts import ClarificationReply, TurnInput
from workflows.turn.budget import execution_timeout

# The process's coverage (what names resolve against outside a turn): the sample corpus's,
# as a stack that has ingested it holds. A turn pins its own, read from the registry.
use_coverage(sample_coverage(PROJECT_ROOT / "corpus" / "reports"))


CORPUS_DIR = PROJECT_ROOT / "corpus" / "reports"
TEMPORAL_CLI = os.path.join(os.path.dirname(sys.executable), "temporal")


def unique(prefix: str) -> str:
    """Return a name no other test uses (task queues, workflow ids, schemas).

    Letters only: hex digits were all digits about once in a hundred names, and an id such
    as `c-0412345678` is refused by the API as holding a phone number."""
    return f"{prefix}-{''.join(secrets.choice(string.ascii_lowercase) for _ in range(12))}"


def corpus_files() -> list[Path]:
    return sorted(CORPUS_DIR.glob("*.md"))


@pytest.fixture(scope="session")
def turnstile_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("turnstile-home")


@pytest.fixture(scope="session")
def settings(turnstile_home: Path) -> Settings:
    """Settings for an isolated stack: temp home, free ports, a session-unique task queue.

    Only TURNSTILE_DATABASE_URL is taken from the environment (an existing PostgreSQL);
    every other address is pinned here so a developer's environment cannot leak in.
    """
    api_port = free_port()
    return Settings(
        home=turnstile_home,
        temporal_address=None,
        temporal_port=free_port(),
        temporal_ui_port=free_port(),
        task_queue=unique("turnstile-test"),
        database_url=os.environ.get("TURNSTILE_DATABASE_URL") or None,
        postgres_port=free_port(),
        qdrant_url=None,
        api_port=api_port,
        api_url=f"http://127.0.0.1:{api_port}",
        corpus_dir=CORPUS_DIR,
        # The suite starts hundreds of turns as one anonymous caller; the limit has its
        # own tests, with their own settings.
        rate_limit_per_minute=1_000_000,
        rate_limit_burst=1_000_000,
        # Tests ask the same questions again and again, each expecting the full path;
        # the answer cache has its own tests (tests/workflows/test_memory.py), which
        # turn it on with a tenant of their own.
        answer_cache=False,
    )


@pytest.fixture(scope="session")
def postgres_url(settings: Settings) -> Iterator[str]:
    """A migrated PostgreSQL: the configured one, else an embedded server for this session."""
    pgdata = settings.home / "postgres"
    if not settings.database_url:
        postgres.start(pgdata, settings.postgres_port, settings.home / "logs" / "postgres.log")
    try:
        migrate(settings.effective_database_url)
        yield settings.effective_database_url
    finally:
        if not settings.database_url:
            postgres.stop(pgdata)


@pytest.fixture(scope="session")
async def temporal_env(settings: Settings) -> AsyncIterator[WorkflowEnvironment]:
    """The Temporal CLI dev server on `settings.temporal_port`, with our search attributes."""
    env = await WorkflowEnvironment.start_local(
        namespace=settings.temporal_namespace,
        port=settings.temporal_port,
        data_converter=pydantic_data_converter,
        search_attributes=list(attributes.ALL),
        dev_server_existing_path=TEMPORAL_CLI,
    )
    try:
        yield env
    finally:
        await env.shutdown()


@pytest.fixture(scope="session")
def temporal_client(temporal_env: WorkflowEnvironment) -> Client:
    return temporal_env.client


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """A temporary root of this checkout's own, and one vector cache for the whole run.

    pytest numbers its temporary folders per user (`/tmp/pytest-of-USER/pytest-N`) and
    prunes all but the newest three when a session starts, so a second checkout's run on
    the same machine (CI beside a developer, two worktrees) deleted the embedded
    PostgreSQL and Temporal files of a run still going. Each session gets its own folder
    instead, named by checkout and process (two sessions in one checkout, a run and a file
    rerun beside it, collided while the folder was the checkout's); a session removes the
    folders of this checkout's sessions that have ended. `tryfirst`: pytest's tmp_path
    plugin reads `basetemp` in its own `pytest_configure`, and xdist hands it on to its
    workers.

    The vector cache is shared by every stack the tests start (`tests/e2e` passes it on):
    the sample corpus is embedded once, not once a stack. It is kept outside the checkout,
    as mypy's cache is (the Makefile), so a clean clone on a machine that ran the suite
    before starts warm: the corpus's 44 CPU seconds of embedding are paid by the first run
    only. A vector is found by the SHA-256 of its model and text, so a kept one is exactly
    the vector the model would give; TURNSTILE_TEST_VECTORS=fresh gives a run its own."""
    if config.option.basetemp is None and not hasattr(config, "workerinput"):
        checkout = hashlib.sha1(str(config.rootpath).encode()).hexdigest()[:10]
        root = Path(tempfile.gettempdir())
        for earlier in root.glob(f"turnstile-tests-{checkout}*"):
            owner = earlier.name.removeprefix(f"turnstile-tests-{checkout}").lstrip("-")
            if not (owner.isdigit() and pid_alive(int(owner))):
                shutil.rmtree(earlier, ignore_errors=True)
        config.option.basetemp = str(root / f"turnstile-tests-{checkout}-{os.getpid()}")
    if "TURNSTILE_EMBEDDING_CACHE_DIR" not in os.environ:
        if os.environ.get("TURNSTILE_TEST_VECTORS") == "fresh":
            directory = tempfile.mkdtemp(prefix="turnstile-vectors-")
            config.stash[_OWN_VECTORS] = directory
        else:
            directory = str(_kept_vectors())
        os.environ["TURNSTILE_EMBEDDING_CACHE_DIR"] = directory


def _kept_vectors() -> Path:
    """The machine's test vector cache, started over once it passes 256 MB (generated
    test reports add texts each run)."""
    home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    directory = home / "turnstile" / "test-vectors"
    directory.mkdir(parents=True, exist_ok=True)
    kept = directory / "vectors.sqlite3"
    with contextlib.suppress(OSError):
        if kept.stat().st_size > 256 * 2**20:
            for path in directory.iterdir():
                path.unlink()
    return directory


def pytest_unconfigure(config: pytest.Config) -> None:
    directory = config.stash.get(_OWN_VECTORS, None)
    if directory is not None:
        shutil.rmtree(directory, ignore_errors=True)


_OWN_VECTORS = pytest.StashKey[str]()


@pytest.fixture(scope="session")
def embedder() -> LocalEmbedder:
    """The local all-MiniLM-L6-v2, loaded once (about six seconds)."""
    return LocalEmbedder()


def cached(embedder: LocalEmbedder) -> CachedEmbedder:
    """`embedder` with the run's vector cache, as the worker runs it."""
    directory = Path(os.environ["TURNSTILE_EMBEDDING_CACHE_DIR"])
    return CachedEmbedder(embedder, VectorCache(directory, embedder.name, embedder.dimension))


def open_index_client(folder: Path, engine: str = "edge") -> "IndexClient":
    """An embedded index in `folder`: Qdrant Edge (the product's default) or
    qdrant-client's local mode (`engine="local"`, the adapter the Edge one replaced)."""
    return open_qdrant(None, folder, engine=engine)


@pytest.fixture(scope="session")
def report_index(
    tmp_path_factory: pytest.TempPathFactory, embedder: LocalEmbedder
) -> Iterator[ReportIndex]:
    """The whole sample corpus ingested once into Qdrant Edge. Treat it as read-only.

    The pytest workers share the run's vector cache and start at the same moment: under a
    lock, the first embeds the corpus (about 44 CPU seconds) and the others read its
    vectors, instead of each embedding it alongside."""
    client = open_index_client(tmp_path_factory.mktemp("qdrant-corpus"))
    index = ReportIndex(client, cached(embedder))
    index.ensure_collection()
    lock = Path(os.environ["TURNSTILE_EMBEDDING_CACHE_DIR"]) / "corpus.lock"
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        for path in corpus_files():
            result = index.ingest_file(path)
            assert result.status == "ingested", result
    yield index
    client.close()


@pytest.fixture
def index_engine() -> str:
    """Which embedded adapter `make_report_index` opens; a module overrides it to run
    its tests on both ("edge", "local")."""
    return "edge"


@pytest.fixture
def make_report_index(
    tmp_path_factory: pytest.TempPathFactory, embedder: LocalEmbedder, index_engine: str
) -> Iterator[Callable[[], ReportIndex]]:
    """Return a factory of fresh, empty indexes in per-test folders (closed afterwards)."""
    clients: list[IndexClient] = []

    def make() -> ReportIndex:
        client = open_index_client(tmp_path_factory.mktemp("qdrant"), index_engine)
        clients.append(client)
        index = ReportIndex(client, cached(embedder))
        index.ensure_collection()
        return index

    yield make
    for client in clients:
        client.close()


def report_activities(index: ReportIndex) -> list[Callable[..., Any]]:
    """The activities at the Qdrant boundary, bound to `index`."""
    return ReportActivities(index).activities()


class WorkerFactory(Protocol):
    def __call__(
        self,
        index: ReportIndex | None = None,
        *,
        task_queue: str | None = None,
        workflows: Sequence[type] | None = None,
        activities: Sequence[Callable[..., Any]] | None = None,
    ) -> contextlib.AbstractAsyncContextManager[str]: ...


@pytest.fixture
def worker(request: pytest.FixtureRequest, temporal_client: Client) -> WorkerFactory:
    """Run a real Worker for the duration of an `async with`; it yields its task queue.

    Defaults: a fresh task queue, every workflow in the registry (`worker.workflows()`)
    and the report activities over `index`, else over the session's `report_index`
    (ingested only when a test first needs it). Pass `activities=` to run more.
    """

    @contextlib.asynccontextmanager
    async def run(
        index: ReportIndex | None = None,
        *,
        task_queue: str | None = None,
        workflows: Sequence[type] | None = None,
        activities: Sequence[Callable[..., Any]] | None = None,
    ) -> AsyncIterator[str]:
        if workflows is None:
            import worker as registry  # here, so a unit-test run never imports the registry

            workflows = registry.workflows()
        if activities is None:
            activities = report_activities(index or request.getfixturevalue("report_index"))
        queue = task_queue or unique("tq")
        async with Worker(
            temporal_client,
            task_queue=queue,
            workflows=list(workflows),
            activities=list(activities),
            interceptors=[PinCoverage()],  # as the worker runs them
        ):
            yield queue

    return run


@pytest.fixture
def app_settings(
    settings: Settings, postgres_url: str, temporal_env: WorkflowEnvironment
) -> Settings:
    """Settings for one API test: the session's servers and a task queue of its own."""
    return settings.model_copy(update={"task_queue": unique("api")})


LOOPBACK_CLIENT = ("127.0.0.1", 50123)


@contextlib.asynccontextmanager
async def database_down() -> AsyncIterator[AsyncConnectionPool]:
    """A pool for a PostgreSQL nobody listens on (a free port): every connection it is
    asked for fails within half a second, as in a database outage."""
    down = AsyncConnectionPool(
        f"host=127.0.0.1 port={free_port()} dbname=turnstile connect_timeout=1",
        min_size=0,
        max_size=1,
        timeout=0.5,
        open=False,
    )
    await down.open(wait=False)
    try:
        yield down
    finally:
        await down.close()


@contextlib.asynccontextmanager
async def in_process(
    app: FastAPI, client: tuple[str, int] = LOOPBACK_CLIENT
) -> AsyncIterator[httpx.AsyncClient]:
    """An httpx client on `app` in-process, its lifespan run, calling from `client`.

    httpx's ASGI transport does not send lifespan events, so the app's lifespan context
    is entered here (it migrates, connects to Temporal and opens the pool).
    """
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, client=client)
        async with httpx.AsyncClient(transport=transport, base_url="http://turnstile.test") as c:
            yield c


def client_for(
    settings: Settings, client: tuple[str, int] = LOOPBACK_CLIENT
) -> contextlib.AbstractAsyncContextManager[httpx.AsyncClient]:
    """`in_process(create_app(settings))`: the API as configured by `settings`."""
    return in_process(create_app(settings), client)


@pytest.fixture
async def api_client(app_settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """The API in-process on the session's servers, with no worker on its task queue."""
    async with client_for(app_settings) as client:
        yield client


# ---- chat turns -----------------------------------------------------------------


@pytest.fixture
def fresh_database_url(postgres_url: str) -> Iterator[str]:
    """A migrated database of its own on the session's server, dropped afterwards: for
    tests that tamper with what other tests share (the decision-record chain)."""
    import psycopg

    name = f"fresh_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    url = postgres_url.rsplit("/", 1)[0] + f"/{name}"
    try:
        migrate(url)
        yield url
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE {name} WITH (FORCE)")


@pytest.fixture(scope="session")
async def pool(postgres_url: str) -> AsyncIterator[AsyncConnectionPool]:
    pool = AsyncConnectionPool(
        postgres_url, min_size=1, max_size=6, open=False, kwargs={"autocommit": True}
    )
    await pool.open()
    yield pool
    await pool.close()


TurnWorker = Callable[..., contextlib.AbstractAsyncContextManager[str]]


@pytest.fixture
def turn_worker(
    worker: "WorkerFactory", report_index: ReportIndex, pool: AsyncConnectionPool
) -> TurnWorker:
    """`async with turn_worker(engine) as task_queue:` — every real activity, one engine
    (and, for a model engine, the evidence budget a worker of it would have)."""

    def run(
        engine: Engine | None = None,
        task_queue: str | None = None,
        evidence_budget: int | None = None,
    ) -> contextlib.AbstractAsyncContextManager[str]:
        import worker as registry

        return worker(
            task_queue=task_queue,
            activities=registry.activities(
                report_index,
                pool,
                engine or OfflineEngine(report_index.embedder),
                evidence_budget=evidence_budget,
            ),
        )

    return run


async def activity_inputs(handle: WorkflowHandle[ChatTurn, TurnResult], name: str) -> list[str]:
    """The raw JSON inputs of every scheduled activity called `name`, in order."""
    inputs = []
    async for event in handle.fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            attrs = event.activity_task_scheduled_event_attributes
            if attrs.activity_type.name == name:
                inputs.append(attrs.input.payloads[0].data.decode())
    return inputs


async def outcome(handle: WorkflowHandle[ChatTurn, TurnResult], after_round: int = 0) -> TurnResult:
    """The turn's next outcome after `after_round`, as the API waits for it.

    A turn whose steps all run as local activities can finish inside the workflow task
    that would have taken the update; the server then aborts the update, and the
    workflow's own result is the outcome (the API reads its table the same way).
    """
    try:
        return await handle.execute_update(ChatTurn.wait_for_outcome, after_round)
    except (RPCError, WorkflowUpdateFailedError):
        return await handle.result()


class Turns:
    """Start turns the way the API does: allocate in PostgreSQL, then start ChatTurn."""

    def __init__(
        self,
        client: Client,
        pool: AsyncConnectionPool,
        task_queue: str,
        in_process: bool = True,
        *,
        tenant_id: str = "default",
        user_id: str | None = None,
        answer_cache: bool = False,
    ) -> None:
        self.client = client
        self.pool = pool
        self.task_queue = task_queue
        self.in_process = in_process
        """The offline and scripted engines run in the worker; a model engine does not."""
        self.tenant_id = tenant_id
        self.user_id = user_id
        self.answer_cache = answer_cache
        self.turn_budget = TURN_BUDGET_SECONDS
        """The turn's budget (`domain/budget.py`); a test of running out sets it short."""
        self.index_task_queue: str | None = None
        """The index holder's queue, when the turns run on workers without the index."""
        self.judge_policy: Direction = "open"
        self.classifier_policy: Direction = "open"
        """The failure policies the API passes (TURNSTILE_JUDGE_POLICY and
        TURNSTILE_CLASSIFIER_POLICY); a test of failing closed sets them."""
        self.clarifications_left: int | None = None
        """What the conversation's cap leaves this turn (the API counts it); None: no cap."""

    async def start(
        self,
        question: str,
        conversation_id: str | None = None,
        clarification_timeout: timedelta = timedelta(hours=24),
    ) -> WorkflowHandle[ChatTurn, TurnResult]:
        conversation_id = conversation_id or unique("c")
        async with self.pool.connection() as conn:
            alloc = await turns.allocate_turn(
                conn, conversation_id, self.user_id, question, tenant_id=self.tenant_id
            )
        return await self.client.start_workflow(
            ChatTurn.run,
            TurnInput(
                turn_id=alloc.turn_id,
                conversation_id=conversation_id,
                seq=alloc.seq,
                question=question,
                clarification_timeout_seconds=clarification_timeout.total_seconds(),
                engine_in_process=self.in_process,
                tenant_id=self.tenant_id,
                user_id=self.user_id,
                answer_cache=self.answer_cache,
                turn_budget_seconds=self.turn_budget,
                index_task_queue=self.index_task_queue,
                judge_policy=self.judge_policy,
                classifier_policy=self.classifier_policy,
                clarifications_left=self.clarifications_left,
            ),
            id=alloc.turn_id,
            task_queue=self.task_queue,
            execution_timeout=execution_timeout(clarification_timeout.total_seconds()),
            search_attributes=attributes.at_start(conversation_id),
        )

    async def ask(self, question: str, conversation_id: str | None = None) -> TurnResult:
        handle = await self.start(question, conversation_id)
        return await outcome(handle, 0)

    async def reply(
        self, handle: WorkflowHandle[ChatTurn, TurnResult], round_: int, text: str
    ) -> TurnResult:
        await handle.signal(
            ChatTurn.clarification_reply, ClarificationReply(round=round_, reply=text)
        )
        return await outcome(handle, round_)


@pytest.fixture
async def served(
    app_settings: Settings, turn_worker: TurnWorker
) -> AsyncIterator[httpx.AsyncClient]:
    """The API in-process with a worker (every real activity) polling its task queue."""
    async with turn_worker(task_queue=app_settings.task_queue), client_for(app_settings) as c:
        yield c


@pytest.fixture
def turns_on(temporal_client: Client, pool: AsyncConnectionPool) -> Callable[[str], Turns]:
    return lambda task_queue: Turns(temporal_client, pool, task_queue)


async def run_cli(settings: Settings, monkeypatch: pytest.MonkeyPatch, *argv: str) -> int:
    """`turnstile ARGV` as a person runs it (its own parser, settings from the environment),
    against the test's Temporal server and task queue."""
    from cli.main import main

    monkeypatch.setenv("TURNSTILE_TEMPORAL_PORT", str(settings.temporal_port))
    monkeypatch.setenv("TURNSTILE_TASK_QUEUE", settings.task_queue)
    monkeypatch.setenv("TURNSTILE_HOME", str(settings.home))
    get_settings.cache_clear()
    try:
        return await asyncio.to_thread(main, list(argv))
    finally:
        get_settings.cache_clear()


def model_engine(fake: FakeOpenAI, timeout: float = 5.0) -> OpenAIEngine:
    """The model engine on a fake provider, one model name per role."""
    return OpenAIEngine(
        ModelConfig(
            base_url=fake.base_url,
            api_key=fake.api_key,
            route_model="small-1",
            grade_model="small-1",
            synthesize_model="large-1",
            judge_model="judge-1",
            summarize_model="small-1",
            timeout_seconds=timeout,
        )
    )
