"""Dependencies shared by the routes (typed aliases, FastAPI full-stack template style)."""

from typing import Annotated

from fastapi import Depends, Path, Request
from psycopg_pool import AsyncConnectionPool
from temporalio.client import Client

from api.streams import TurnStreams
from api.text import ID_CHARS
from settings import Settings


def _client(request: Request) -> Client:
    client: Client = request.app.state.temporal
    return client


def _pool(request: Request) -> AsyncConnectionPool:
    pool: AsyncConnectionPool = request.app.state.pool
    return pool


def _streams(request: Request) -> TurnStreams:
    streams: TurnStreams = request.app.state.streams
    return streams


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


TemporalDep = Annotated[Client, Depends(_client)]
PoolDep = Annotated[AsyncConnectionPool, Depends(_pool)]
StreamsDep = Annotated[TurnStreams, Depends(_streams)]
SettingsDep = Annotated[Settings, Depends(_settings)]

TurnIdPath = Annotated[str, Path(max_length=100), ID_CHARS]
"""A turn id in the URL; storable and free of control characters, else a 422."""
