"""The production docker-compose.yml is a valid Compose file wired to the real engines.

The Compose Specification schema is read from the check-jsonschema wheel, which
vendors it, so the test needs no network.
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import TypeAlias, cast

import jsonschema
import pytest
import yaml

from settings import Settings

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


def test_temporal_starts_after_its_schema_and_the_app_after_its_namespace() -> None:
    services = _services(_load_compose())

    def needs(name: str) -> dict[str, object]:
        return _mapping(services[name].get("depends_on"), f"services.{name}.depends_on")

    assert needs("temporal-schema")["postgresql"] == {"condition": "service_healthy"}
    assert needs("temporal")["temporal-schema"] == {"condition": "service_completed_successfully"}
    for app in APP_SERVICES:
        assert needs(app)["temporal-namespace"] == {"condition": "service_completed_successfully"}
    assert _environment(services["temporal"])["POSTGRES_SEEDS"] == "postgresql"


def test_temporal_is_the_server_image_at_the_dev_servers_version() -> None:
    services = _services(_load_compose())
    images = {name: str(body.get("image", "")) for name, body in services.items()}
    assert not any("auto-setup" in image for image in images.values())
    # The embedded stack's dev server says which server it is: production runs the same.
    version = subprocess.run(
        [str(Path(sys.executable).parent / "temporal"), "--version"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    server = re.search(r"Server (\d+\.\d+\.\d+)", version)
    assert server is not None, version
    assert images["temporal"] == f"temporalio/server:{server.group(1)}"
    assert images["temporal-schema"] == images["temporal-namespace"]
    assert images["temporal-schema"] == f"temporalio/admin-tools:{server.group(1)}"


def test_every_file_the_stack_mounts_or_builds_from_exists() -> None:
    root = COMPOSE_FILE.parent
    services = _services(_load_compose())
    missing = []
    for name, body in services.items():
        for volume in body.get("volumes", []) or []:
            source = str(volume).split(":", 1)[0]
            if source.startswith("./") and not (root / source).exists():
                missing.append(f"{name}: {source}")
        build = body.get("build")
        if isinstance(build, dict) and not (root / str(build.get("dockerfile"))).exists():
            missing.append(f"{name}: {build.get('dockerfile')}")
    api_command = [str(part) for part in services["api"].get("command", [])]  # type: ignore[union-attr]
    log_config = api_command[api_command.index("--log-config") + 1]
    if not (root / log_config).exists():
        missing.append(f"api: {log_config}")
    assert missing == []


def test_every_app_variable_is_a_setting() -> None:
    fields = {f"TURNSTILE_{name.upper()}" for name in Settings.model_fields}
    for name in APP_SERVICES:
        variables = {
            k for k in _environment(_services(_load_compose())[name]) if k.startswith("TURNSTILE_")
        }
        assert variables and variables <= fields, variables - fields


def test_prometheus_scrapes_the_ports_the_app_serves_and_loads_the_rules() -> None:
    root = COMPOSE_FILE.parent
    config = yaml.safe_load((root / "ops/prometheus/prometheus.yml").read_text())
    assert config["rule_files"] == ["/etc/prometheus/alerts.yml"]
    mounts = [str(v) for v in _services(_load_compose())["prometheus"]["volumes"]]  # type: ignore[union-attr]
    assert "./ops/prometheus/alerts.yml:/etc/prometheus/alerts.yml:ro" in mounts
    ports = set()
    for job in config["scrape_configs"]:
        for static in job.get("static_configs", []):
            ports |= {t for t in static["targets"]}
        for dns in job.get("dns_sd_configs", []):
            ports |= {f"{name}:{dns['port']}" for name in dns["names"]}
    env = _environment(_services(_load_compose())["worker"])
    assert {
        "api:8000",
        f"worker:{env['TURNSTILE_WORKER_METRICS_PORT']}",
        f"worker:{env['TURNSTILE_TEMPORAL_METRICS_PORT']}",
    } <= ports


def test_the_dashboard_charts_only_metrics_the_code_exports() -> None:
    from tests.unit.test_metrics import exported_names

    root = COMPOSE_FILE.parent
    dashboard = json.loads((root / "ops/grafana/dashboards/turnstile.json").read_text())
    exprs = [t["expr"] for panel in dashboard["panels"] for t in panel["targets"]]
    assert len(exprs) >= 15
    names = {n for e in exprs for n in re.findall(r"\b(turnstile_[a-z_]+)\b", e)}
    exported = exported_names()
    assert names and names <= exported, names - exported
    # The SDK's step latency, as the worker's Temporal runtime exports it (e2e checks it).
    sdk = {n for e in exprs for n in re.findall(r"\b(temporal_[a-z_]+)\b", e)}
    assert sdk <= {"temporal_activity_execution_latency_bucket"}
    provider = yaml.safe_load(
        (root / "ops/grafana/provisioning/dashboards/turnstile.yml").read_text()
    )
    assert provider["providers"][0]["options"]["path"] == "/var/lib/grafana/dashboards"


def test_workers_run_as_several_replicas_on_the_task_queue() -> None:
    worker = _services(_load_compose())["worker"]

    deploy = _mapping(worker.get("deploy"), "services.worker.deploy")

    replicas = deploy.get("replicas")
    assert isinstance(replicas, int)
    assert replicas >= 2
    assert "ports" not in worker, "published ports would collide between replicas"


def test_only_authenticated_services_listen_beyond_the_host() -> None:
    open_to_all = {
        name
        for name, body in _services(_load_compose()).items()
        for port in body.get("ports", []) or []  # type: ignore[attr-defined]
        if not str(port).startswith("127.0.0.1:")
    }
    assert open_to_all == {"api", "grafana"}
