"""Small process and port helpers for the embedded stack (pid files, ports, waiting)."""

import contextlib
import fcntl
import os
import random
import signal
import socket
import tempfile
import time
from collections.abc import Callable
from pathlib import Path


class StackError(Exception):
    """A stack operation failed; the message is one line meant for a person."""


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.3)
        return sock.connect_ex((host, port)) == 0


def port_bindable(port: int, host: str = "127.0.0.1") -> bool:
    """Return True if a server could listen on `port` now.

    SO_REUSEADDR, as PostgreSQL, the Temporal server and uvicorn set it: without it a
    port stays "in use" for a minute after its server exits, while closed connections
    sit in TIME_WAIT (PostgreSQL closes every heartbeat connection from its side).
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
        return True


# Ports handed out by free_port() in this process, each held by an open, locked file so that
# no other process on the machine (another test worker, a benchmark) takes it while we live.
_RESERVED: dict[int, int] = {}
_RESERVATIONS = Path(tempfile.gettempdir()) / "turnstile-ports"


def _ephemeral_range() -> tuple[int, int]:
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999


def free_port() -> int:
    """A port nothing listens on, outside the kernel's ephemeral range, reserved for this
    process's lifetime.

    Not the kernel's `bind(0)`: that port comes from the ephemeral range, where any outgoing
    connection may take it as its local port while the server it was chosen for is down
    (a stack stopped and started again, minutes later, failed to bind its own port so).
    """
    _RESERVATIONS.mkdir(exist_ok=True)
    low, high = _ephemeral_range()
    below = (10000, low - 1) if low > 11000 else (high + 1, 65535)
    rng = random.Random()
    for _ in range(2000):
        port = rng.randint(*below)
        if port in _RESERVED or not port_bindable(port):
            continue
        fd = os.open(_RESERVATIONS / f"{port}.lock", os.O_CREAT | os.O_RDWR, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        _RESERVED[port] = fd
        return port
    raise StackError("no free port outside the ephemeral range")


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie child still answers kill(0); reap it if it is ours.
    with contextlib.suppress(ChildProcessError):
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            return False
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def stop_pid(pid: int, timeout: float = 20.0, sig: signal.Signals = signal.SIGTERM) -> None:
    """Send `sig` to the process group (else the process), escalate to SIGKILL, wait."""
    if not pid_alive(pid):
        return
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not pid_alive(pid):
            return
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    while pid_alive(pid):
        time.sleep(0.05)


def process_tree(pid: int) -> list[int]:
    """`pid` and every process descended from it (read from /proc), parents first."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry.name))
    tree, todo = [], [pid]
    while todo:
        current = todo.pop(0)
        tree.append(current)
        todo.extend(children.get(current, []))
    return tree


def signal_tree(pid: int, sig: signal.Signals) -> list[int]:
    """Send `sig` to `pid` and its descendants (SIGSTOP/SIGCONT: a stalled server whose
    sockets stay open); return the pids signalled."""
    pids = process_tree(pid)
    for each in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(each, sig)
    return pids


def wait_until(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise StackError(f"timed out after {timeout:.0f}s waiting for {what}")
