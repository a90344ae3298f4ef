"""The worker keeps bytecode (the sandbox loads the workflow module for every workflow)."""

import sys
from pathlib import Path

import pytest

import worker
from settings import Settings


@pytest.fixture
def restore_sys() -> object:
    saved = sys.dont_write_bytecode, sys.pycache_prefix
    yield None
    sys.dont_write_bytecode, sys.pycache_prefix = saved


def test_bytecode_goes_to_the_users_cache_when_the_environment_forbids_writing_it(
    restore_sys: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not under the home: bytecode is not data, and every new home would compile it anew."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    sys.dont_write_bytecode, sys.pycache_prefix = True, None
    worker.keep_bytecode(Settings(home=tmp_path / "home"))
    assert sys.dont_write_bytecode is False
    assert sys.pycache_prefix == str(tmp_path / "cache" / "turnstile" / "pycache")


def test_bytecode_goes_where_the_setting_says(restore_sys: object, tmp_path: Path) -> None:
    sys.dont_write_bytecode, sys.pycache_prefix = True, None
    worker.keep_bytecode(Settings(home=tmp_path, bytecode_dir=tmp_path / "bytecode"))
    assert sys.pycache_prefix == str(tmp_path / "bytecode")


def test_bytecode_settings_are_left_alone_otherwise(restore_sys: object, tmp_path: Path) -> None:
    sys.dont_write_bytecode, sys.pycache_prefix = False, None
    worker.keep_bytecode(Settings(home=tmp_path))
    assert sys.pycache_prefix is None
