"""The production docker-compose.yml is a valid Compose file wired to the real engines.

The Compose Specification schema is read from the check-jsonschema wheel, which
vendors it, so the test needs no network.
"""

from __future__ import annotations

import copy
import json
from importlib import resources
from pathlib import Path
from typing import TypeAlias, cast

import jsonschema
import pytest
import yaml

# YAML and JSON documents as jsonschema accepts them.
Json: TypeAlias = str | int | float | bool | list["Json"] | dict[str, "Json"] | None

COMPOSE_FILE = Path(__file__).resolve().parents[2] / "docker-compose.yml"
SCHEMA_PACKAGE = "check_jsonschema.builtin_schemas"
APP_SERVICES = ("api", "worker")
APP_ENVIRONMENT = {
    "TURNSTILE_TEMPORAL_ADDRESS": "temporal:7233",
    "TURNSTILE_DATABASE_URL": "postgresql://turnstile:turnstile@postgresql:5432/turnstile",
    "TURNSTILE_QDRANT_URL": "http://qdrant:6333",
}


def _mapping(value: object, where: str) -> dict[str, object]:
    assert isinstance(value, dict), f"{where} must be a mapping, got {type(value).__name__}"
    return cast(dict[str, object], value)


def _load_compose() -> dict[str, object]:
    with COMPOSE_FILE.open(encoding="utf-8") as handle:
        document: object = yaml.safe_load(handle)
    return _mapping(document, str(COMPOSE_FILE))


def _load_schema() -> dict[str, object]:
    schema_file = resources.files(SCHEMA_PACKAGE).joinpath("vendor").joinpath("compose-spec.json")
    document: object = json.loads(schema_file.read_text(encoding="utf-8"))
    return _mapping(document, "compose-spec.json")


def _services(compose: dict[str, object]) -> dict[str, dict[str, object]]:
    services = _mapping(compose.get("services"), "services")
    return {name: _mapping(body, f"services.{name}") for name, body in services.items()}


def _environment(service: dict[str, object]) -> dict[str, str]:
    raw = service.get("environment", {})
    if isinstance(raw, list):
        pairs = (str(entry).partition("=") for entry in raw)
        return {key: value for key, _, value in pairs}
    return {key: str(value) for key, value in _mapping(raw, "environment").items()}


def _schema_errors(document: dict[str, object]) -> list[str]:
    schema = _load_schema()
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator = validator_class(schema)
    return [
        f"{error.json_path}: {error.message}"
        for error in sorted(validator.iter_errors(cast(Json, document)), key=lambda e: e.json_path)
    ]


def test_compose_file_conforms_to_the_compose_specification() -> None:
    assert _schema_errors(_load_compose()) == []


def test_schema_check_rejects_an_unknown_service_key() -> None:
    compose = copy.deepcopy(_load_compose())
    _services(compose)["worker"]["replica_count"] = 2

    errors = _schema_errors(compose)

    assert any("replica_count" in error for error in errors), errors


def test_every_service_built_from_the_dockerfile_states_its_command() -> None:
    built = {name: body for name, body in _services(_load_compose()).items() if "build" in body}

    assert set(APP_SERVICES) <= set(built)
    assert [name for name, body in built.items() if not body.get("command")] == []


@pytest.mark.parametrize("service_name", APP_SERVICES)
def test_app_service_reaches_temporal_postgresql_and_qdrant_by_service_name(
    service_name: str,
) -> None:
    services = _services(_load_compose())

    environment = _environment(services[service_name])

    assert {key: environment.get(key) for key in APP_ENVIRONMENT} == APP_ENVIRONMENT
    assert {"temporal", "postgresql", "qdrant"} <= set(services)


def test_temporal_starts_only_after_postgresql_is_healthy() -> None:
    temporal = _services(_load_compose())["temporal"]

    depends_on = _mapping(temporal.get("depends_on"), "services.temporal.depends_on")

    assert _mapping(depends_on.get("postgresql"), "postgresql") == {"condition": "service_healthy"}
    assert _environment(temporal)["POSTGRES_SEEDS"] == "postgresql"


def test_workers_run_as_several_replicas_on_the_task_queue() -> None:
    worker = _services(_load_compose())["worker"]

    deploy = _mapping(worker.get("deploy"), "services.worker.deploy")

    replicas = deploy.get("replicas")
    assert isinstance(replicas, int)
    assert replicas >= 2
    assert "ports" not in worker, "published ports would collide between replicas"
