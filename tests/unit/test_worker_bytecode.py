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


def test_bytecode_goes_under_home_when_the_environment_forbids_writing_it(
    restore_sys: object, tmp_path: Path
) -> None:
    sys.dont_write_bytecode, sys.pycache_prefix = True, None
    worker.keep_bytecode(Settings(home=tmp_path))
    assert sys.dont_write_bytecode is False
    assert sys.pycache_prefix == str(tmp_path / "pycache")


def test_bytecode_settings_are_left_alone_otherwise(restore_sys: object, tmp_path: Path) -> None:
    sys.dont_write_bytecode, sys.pycache_prefix = False, None
    worker.keep_bytecode(Settings(home=tmp_path))
    assert sys.pycache_prefix is None
