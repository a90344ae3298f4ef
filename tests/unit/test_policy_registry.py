"""The failure-policy table and the worker's registry name the same activities."""

from temporalio import activity

import worker as registry
from workflows.policy import POLICY


def registered_activity_names() -> set[str]:
    # The bound methods only need their owners to exist; no I/O happens on binding.
    functions = registry.activities(None, None, None)  # type: ignore[arg-type]
    names = set()
    for fn in functions:
        definition = activity._Definition.from_callable(fn)
        assert definition is not None and definition.name
        names.add(definition.name)
    return names


def test_every_registered_activity_has_a_failure_policy() -> None:
    missing = registered_activity_names() - set(POLICY)
    assert not missing, f"activities without a fail-open/closed policy: {sorted(missing)}"


def test_every_policy_entry_names_a_registered_activity() -> None:
    stale = set(POLICY) - registered_activity_names()
    assert not stale, f"policy entries for activities the worker does not run: {sorted(stale)}"
