"""Logs as JSON lines, for the worker and the API (read at process edges, like settings).

One object per line with `time`, `level`, `logger`, `message` and whatever the call put in
`extra=` (turn and conversation ids, step, outcome); Temporal's own workflow and activity
loggers add their `temporal_workflow` / `temporal_activity` context. Progress bars (the
embedder's, the model loader's) are switched off: a log is for lines an operator can
search, not terminal animation.
"""

import logging
import os
import sys

from pythonjsonlogger.json import JsonFormatter

FORMAT = "{asctime}{levelname}{name}{message}"
RENAMED = {"asctime": "time", "levelname": "level", "name": "logger"}


def json_formatter(process: str) -> JsonFormatter:
    return JsonFormatter(
        FORMAT, style="{", rename_fields=RENAMED, static_fields={"process": process}
    )


def configure(process: str, level: int = logging.INFO) -> None:
    """Send every log record of this process to stderr as one JSON line."""
    # tqdm reads this when a bar is created; set before any library makes one.
    os.environ.setdefault("TQDM_DISABLE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(json_formatter(process))
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(level)
