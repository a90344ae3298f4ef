"""docs/architecture.md names every module: its generated map (`tests.architecture_map`)
is current with the code."""

from tests import architecture_map


def test_the_architecture_map_names_every_module_as_the_code_has_it() -> None:
    current = architecture_map.section(architecture_map.DOC.read_text(encoding="utf-8"))
    assert current, "docs/architecture.md has no module map"
    assert current == architecture_map.render(), (
        "docs/architecture.md's module map is stale: run "
        "`.venv/bin/python -m tests.architecture_map`"
    )


def test_every_module_is_in_the_map_with_a_sentence_of_its_own() -> None:
    rendered = architecture_map.render()
    for path in architecture_map.modules():
        assert f"| `{path.as_posix()}` |" in rendered
    assert "(no docstring)" not in rendered
