"""The repository stands alone: sources and documents cite only its own docs/.

A person who clones the project has `docs/` (architecture, controls, failure policy,
memory, corpus) and nothing else: no design file kept beside the repository, no
absolute path on a developer's machine.
"""

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SKIP_DIRS = {".venv", ".git", ".turnstile", ".mypy_cache", ".ruff_cache", "__pycache__"}
FORBIDDEN = ("DESIGN" + ".md", ".." + "/shared/", "/" + "work" + "/")
"""A design file outside the repository, the folder beside it, a path on this machine:
spelled in pieces so this file does not match itself."""


def tracked_files() -> list[Path]:
    """The repository's .py and .md files: tracked ones by git, else a walk of the tree."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.py", "*.md"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        ).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        listed = []
    if listed:
        return [ROOT / name for name in listed if (ROOT / name).is_file()]
    found = []
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info")]
        found += [Path(folder) / f for f in files if f.endswith((".py", ".md"))]
    return found


def test_there_are_files_to_check() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in tracked_files()}

    assert {"README.md", "workflows/chat_turn.py", "docs/controls.md"} <= names


@pytest.mark.parametrize("marker", FORBIDDEN)
def test_no_file_cites_a_document_outside_the_repository(marker: str) -> None:
    offenders = []
    for path in tracked_files():
        for number, line in enumerate(path.read_text("utf-8", errors="replace").splitlines(), 1):
            if marker in line:
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")

    assert not offenders, f"files citing {marker!r} (outside the repository):\n" + "\n".join(
        offenders
    )
