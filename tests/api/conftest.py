"""Fixtures of the API tests: two tenants, each with its own API key."""

import json
from collections.abc import AsyncIterator

import httpx
import pytest
from pydantic import SecretStr

from settings import Settings
from tests.conftest import TurnWorker, client_for, unique

KEY_A = "key-a-0123456789abcdef"
KEY_B = "key-b-0123456789abcdef"
A = {"Authorization": f"Bearer {KEY_A}"}
B = {"X-API-Key": KEY_B}


@pytest.fixture
def keyed_settings(app_settings: Settings) -> Settings:
    keys = {KEY_A: unique("tenant-a"), KEY_B: unique("tenant-b")}
    return app_settings.model_copy(update={"api_keys": SecretStr(json.dumps(keys))})


@pytest.fixture
async def keyed(
    keyed_settings: Settings, turn_worker: TurnWorker
) -> AsyncIterator[httpx.AsyncClient]:
    async with (
        turn_worker(task_queue=keyed_settings.task_queue),
        client_for(keyed_settings) as client,
    ):
        yield client
