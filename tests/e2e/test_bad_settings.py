"""A bad setting stops every process edge at start-up: one line naming it, no traceback.

The edges are the ones the stack runs (`turnstile`, `python worker.py`, uvicorn's
`api.app:create_app --factory`) plus a plain `create_app()` call. Nothing is started, so
these take a second or two each.
"""

import subprocess
import sys
from pathlib import Path

import pytest

from settings import PROJECT_ROOT
from tests.e2e.test_stack import TURNSTILE, assert_one_clean_error_line, stack_env

PYTHON = sys.executable
EDGES = {
    "turnstile-status": [TURNSTILE, "status"],
    "turnstile-up": [TURNSTILE, "up", "--detach"],
    "worker": [PYTHON, "worker.py"],
    "create-app": [PYTHON, "-c", "from api.app import create_app; create_app()"],
    "uvicorn-factory": [
        PYTHON,
        "-m",
        "uvicorn",
        "api.app:create_app",
        "--factory",
        "--port",
        "0",
    ],
}


@pytest.mark.parametrize("command", list(EDGES.values()), ids=list(EDGES))
def test_an_unknown_engine_stops_the_process_with_one_line_naming_the_variable(
    tmp_path: Path, command: list[str]
) -> None:
    env, _ = stack_env(tmp_path)
    env["TURNSTILE_ENGINE"] = "gpt"

    result = subprocess.run(
        command,
        env=env,
        cwd=PROJECT_ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )

    line = assert_one_clean_error_line(result)
    assert line == "turnstile: TURNSTILE_ENGINE: input should be 'offline' or 'openai'"
    assert not (tmp_path / "run").exists(), "nothing may start"


def test_the_model_engine_without_its_endpoint_starts_nothing(tmp_path: Path) -> None:
    env, _ = stack_env(tmp_path)
    env["TURNSTILE_ENGINE"] = "openai"
    env.pop("TURNSTILE_OPENAI_BASE_URL", None)
    env.pop("TURNSTILE_OPENAI_API_KEY", None)

    result = subprocess.run(
        [TURNSTILE, "up", "--detach"],
        env=env,
        cwd=PROJECT_ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )

    line = assert_one_clean_error_line(result)
    assert line.startswith("turnstile: TURNSTILE_ENGINE=openai needs TURNSTILE_OPENAI_BASE_URL")
    assert not (tmp_path / "run").exists(), "nothing may start"


def test_up_with_an_out_of_range_port_starts_nothing(tmp_path: Path) -> None:
    env, _ = stack_env(tmp_path)
    env["TURNSTILE_API_PORT"] = "70000"

    result = subprocess.run(
        [TURNSTILE, "up", "--detach"],
        env=env,
        cwd=PROJECT_ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )

    line = assert_one_clean_error_line(result)
    assert line.startswith("turnstile: TURNSTILE_API_PORT: ")
    assert not (tmp_path / "run").exists(), "nothing may start"
