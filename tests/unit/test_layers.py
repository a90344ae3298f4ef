"""The API and the CLI load none of the worker's dependencies (the layers point one way).

The import contracts in pyproject.toml (run by `make lint`) check the source; this test
checks what a fresh interpreter really loads, which also catches an import made at run
time through a plug-in or a lazily imported module.
"""

import json
import subprocess
import sys

import pytest

from settings import PROJECT_ROOT

WORKER_ONLY = (
    "qdrant_client",
    "transformers",
    "torch",
    "ingestion.documents",
    "backends.reports",
    "backends.model_steps",
    "backends.engines.offline",
)


def loaded_after_import(module: str) -> list[str]:
    code = (
        f"import json, sys, {module}\n"
        f"print(json.dumps([m for m in {WORKER_ONLY!r} if m in sys.modules]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True
    )
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("module", ["api.app", "cli.main", "workflows.chat_turn"])
def test_clients_and_workflows_load_no_worker_dependency(module: str) -> None:
    assert loaded_after_import(module) == []


def test_the_worker_does_load_them() -> None:
    """The check can fail: the worker, which runs the activities, loads Qdrant."""
    assert "qdrant_client" in loaded_after_import("worker")
