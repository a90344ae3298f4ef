"""Embedded PostgreSQL from the `pgserver` wheel's binaries, listening on 127.0.0.1:PORT.

We drive `initdb`/`pg_ctl` ourselves (rather than `pgserver.get_server`) because the stack
needs a TCP port and a lifetime that outlives the Python process that started it.
Postgres refuses to run as root, so as root the server runs as a `pgserver` system user,
as pgserver itself does.
"""

import os
import pwd
import subprocess
import warnings
from pathlib import Path

from stack.processes import StackError, read_pid

_USER = "pgserver"


def _quiet_import() -> None:
    # pgserver computes a runtime directory at import time and warns when
    # XDG_RUNTIME_DIR is unset; we never use that directory.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver.utils  # noqa: F401


def _bin(name: str) -> str:
    _quiet_import()
    import pgserver

    return str(Path(pgserver.__file__).parent / "pginstall" / "bin" / name)


def _run_as() -> str | None:
    if os.geteuid() != 0:
        return None
    _quiet_import()
    from pgserver.utils import ensure_user_exists

    ensure_user_exists(_USER)
    return _USER


def _prepare(pgdata: Path, user: str | None) -> None:
    pgdata.mkdir(parents=True, exist_ok=True)
    if user is None:
        return
    _quiet_import()
    from pgserver.utils import ensure_folder_permissions, ensure_prefix_permissions

    ensure_prefix_permissions(pgdata)
    bin_dir = Path(_bin("postgres")).parent
    ensure_prefix_permissions(bin_dir)
    ensure_folder_permissions(bin_dir, 0o555)
    ensure_folder_permissions(bin_dir.parent / "lib", 0o444)
    entry = pwd.getpwnam(user)
    for path in [pgdata, *pgdata.rglob("*")]:
        os.chown(path, entry.pw_uid, entry.pw_gid)


def pid(pgdata: Path) -> int | None:
    return read_pid(pgdata / "postmaster.pid")


def start(pgdata: Path, port: int, log: Path) -> int:
    """Initialise `pgdata` if new and start the server; return the postmaster pid."""
    user = _run_as()
    _prepare(pgdata, user)
    log.parent.mkdir(parents=True, exist_ok=True)
    if not (pgdata / "PG_VERSION").exists():
        _call(
            [_bin("initdb"), "-D", str(pgdata), "--auth=trust", "-U", "postgres", "-E", "utf8"],
            user,
        )
    if user:
        log.touch()
        entry = pwd.getpwnam(user)
        os.chown(log, entry.pw_uid, entry.pw_gid)
    options = f"-h 127.0.0.1 -p {port} -k ''"
    _call(
        [
            _bin("pg_ctl"),
            "-D",
            str(pgdata),
            "-w",
            "-t",
            "60",
            "-l",
            str(log),
            "-o",
            options,
            "start",
        ],
        user,
    )
    found = pid(pgdata)
    if found is None:
        raise StackError(f"PostgreSQL did not start; see {log}")
    return found


def stop(pgdata: Path) -> None:
    if pid(pgdata) is None:
        return
    _call([_bin("pg_ctl"), "-D", str(pgdata), "-w", "-m", "fast", "stop"], _run_as(), check=False)


def _call(args: list[str], user: str | None, check: bool = True) -> None:
    result = subprocess.run(args, user=user, capture_output=True, text=True, timeout=120)
    if check and result.returncode != 0:
        detail = (result.stderr or result.stdout).strip().splitlines()
        raise StackError(
            f"{Path(args[0]).name} failed: {detail[-1] if detail else result.returncode}"
        )
