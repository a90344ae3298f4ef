"""The failure-policy table, the step declarations and the worker's registry agree."""

import pytest
from temporalio import activity

import worker as registry
from activities import steps
from activities.steps import implements
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


def test_each_activity_class_lists_every_activity_it_defines() -> None:
    from backends.model_steps import GroundingActivities, ModelActivities
    from backends.report_activities import ReportActivities
    from backends.sessions import SessionActivities
    from backends.turn_sweeper import SweepActivities

    for cls, instance in (
        (ReportActivities, ReportActivities(None)),  # type: ignore[arg-type]
        (SessionActivities, SessionActivities(None)),  # type: ignore[arg-type]
        (SweepActivities, SweepActivities(None)),  # type: ignore[arg-type]
        (ModelActivities, ModelActivities(None, None)),  # type: ignore[arg-type]
        (GroundingActivities, GroundingActivities(None)),  # type: ignore[arg-type]
    ):
        defined = {
            name
            for name, member in vars(cls).items()
            if activity._Definition.from_callable(member) is not None
        }
        listed = {fn.__name__ for fn in instance.activities()}
        assert listed == defined, f"{cls.__name__} does not list {sorted(defined - listed)}"


def test_every_declared_step_has_one_registered_implementation_and_a_policy_row() -> None:
    functions = registry.activities(None, None, None)  # type: ignore[arg-type]
    names = [activity._Definition.must_from_callable(fn).name for fn in functions]
    assert sorted(names) == sorted(steps.DECLARED), "declarations and registry differ"
    assert set(steps.DECLARED) == set(POLICY)
    for fn in functions:
        declared = steps.DECLARED[steps.declared_name(fn)]
        assert steps.signature_of(fn) == steps.signature_of(declared), fn


def test_an_implementation_whose_signature_differs_from_its_declaration_is_refused() -> None:
    class Wrong:
        async def route(self, request: str) -> str:  # declared: RouteRequest -> RouteDecision
            return request

    with pytest.raises(TypeError, match="implements llm_route_question"):
        implements(steps.llm_route_question)(Wrong.route)


def test_workflows_call_declarations_not_implementations() -> None:
    """Workflows import `activities.steps` (names and signatures), never the classes that
    do the I/O; the import contracts in pyproject.toml enforce the same for packages."""
    from pathlib import Path

    root = Path(registry.__file__).resolve().parent / "workflows"
    for path in root.rglob("*.py"):
        text = path.read_text()
        assert "execute_activity_method" not in text, path
        assert "execute_local_activity_method" not in text, path


def test_workflows_take_step_options_from_the_step_they_call() -> None:
    """No call site names a step by string: its options come from the method it runs,
    so one step can never get another step's timeouts or failure policy."""
    import re
    from pathlib import Path

    root = Path(registry.__file__).resolve().parent / "workflows"
    for path in root.rglob("*.py"):
        text = path.read_text()
        assert not re.search(r"activity_options\(\s*[\"']", text), path
        pairs = re.findall(
            r"execute_activity\(\s*([\w.]+),.*?\*\*(?:step_options|self\.options)\(([\w.]+)\)",
            text,
            re.S,
        )
        assert len(pairs) == text.count("workflow.execute_activity("), path
        for call, option in pairs:
            assert call == option, f"{path.name}: {call} runs with {option}'s options"
