"""A `turnstile` whose stdout reader has left (`| head -c 10`) exits 141, quietly.

Run as the console script with its stdout a pipe whose reading end is already closed:
the write fails at once (unbuffered) or when the output is flushed at exit (buffered),
and neither may end in a BrokenPipeError traceback. No stack is needed: `status --json`
prints its report whether or not anything runs. tests/e2e/test_stack.py does the same
with `turnstile ask --json`.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from settings import PROJECT_ROOT
from stack.processes import free_port

TURNSTILE = str(Path(sys.executable).parent / "turnstile")


def run_into_closed_pipe(
    args: list[str], env: dict[str, str], timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """Run `turnstile ARGS` with stdout a pipe nobody reads any more."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            [TURNSTILE, *args],
            env=env,
            cwd=PROJECT_ROOT,
            stdin=subprocess.DEVNULL,
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=timeout,
        )
    finally:
        os.close(write_end)


@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
def test_status_json_into_a_closed_pipe_exits_141_without_a_traceback(
    tmp_path: Path, buffered: bool
) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("TURNSTILE_") and k != "PYTHONUNBUFFERED"
    }
    env.update(TURNSTILE_HOME=str(tmp_path), TURNSTILE_API_URL=f"http://127.0.0.1:{free_port()}")
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"

    done = run_into_closed_pipe(["status", "--json"], env)

    assert (done.returncode, done.stderr) == (141, "")
