"""The allow-list import contract (tests/import_contracts.py) on a small package tree of its
own: an import a layer was not given breaks it, wherever it stands (a function body
included); the standard library and the layer's own modules never do."""

import sys
from collections.abc import Iterator
from pathlib import Path

import grimp
import pytest

from tests.import_contracts import MayImportOnly


@pytest.fixture
def tree(tmp_path: Path) -> Iterator[Path]:
    for package in ("lower", "upper"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "lower" / "facts.py").write_text("import json\nfrom lower import other\n")
    (tmp_path / "lower" / "other.py").write_text("import re\n")
    (tmp_path / "upper" / "routes.py").write_text("import lower.facts\n")
    sys.path.insert(0, str(tmp_path))
    yield tmp_path
    sys.path.remove(str(tmp_path))


def checked(tree: Path, source: str, allowed: list[str]) -> tuple[bool, list[str]]:
    graph = grimp.build_graph("lower", "upper", include_external_packages=True, cache_dir=None)
    contract = MayImportOnly("test", {}, {"source_modules": [source], "allowed_modules": allowed})
    check = contract.check(graph, verbose=False)
    return check.kept, [f"{r['importer']}->{r['imported']}" for r in check.metadata["refused"]]


def test_a_layer_importing_only_what_it_was_given_keeps_the_contract(tree: Path) -> None:
    assert checked(tree, "lower", []) == (True, [])
    assert checked(tree, "upper", ["lower"]) == (True, [])


def test_an_import_of_ours_the_layer_was_not_given_breaks_it(tree: Path) -> None:
    (tree / "lower" / "other.py").write_text("import re\n\ndef later():\n    import upper\n")

    kept, refused = checked(tree, "lower", [])

    assert not kept and refused == ["lower.other->upper"]


def test_a_third_party_library_the_layer_was_not_given_breaks_it(tree: Path) -> None:
    (tree / "upper" / "routes.py").write_text("import lower.facts\nimport httpx\n")

    assert checked(tree, "upper", ["lower"]) == (False, ["upper.routes->httpx"])
    assert checked(tree, "upper", ["lower", "httpx"]) == (True, [])
