"""A step seen in the Temporal UI is found from its name: its declaration in
`activities/steps.py` names the file and method that implement it, and that is the
method `@implements` marks."""

import ast
import inspect

from activities import steps
from settings import PROJECT_ROOT


def implementations() -> dict[str, str]:
    """Each implemented step's name → "`backends/file.py` `Class.method`", read from the
    `@implements(steps.<name>)` decorators of backends/ (and of evals/scheduled.py: the
    scheduled suite run's step is the evaluation code, which backends/ may not import)."""
    found: dict[str, str] = {}
    paths = [
        *sorted((PROJECT_ROOT / "backends").rglob("*.py")),
        PROJECT_ROOT / "evals" / "scheduled.py",
    ]
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            for fn in cls.body:
                if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                for d in fn.decorator_list:
                    if isinstance(d, ast.Call) and getattr(d.func, "id", None) == "implements":
                        step = d.args[0]
                        assert isinstance(step, ast.Attribute)
                        where = path.relative_to(PROJECT_ROOT)
                        found[step.attr] = f"`{where}` `{cls.name}.{fn.name}`"
    return found


def declarations() -> dict[str, str]:
    return {
        name: inspect.getdoc(fn) or ""
        for name, fn in vars(steps).items()
        if inspect.iscoroutinefunction(fn) and getattr(fn, "__temporal_activity_definition", None)
    }


def test_every_declared_step_is_implemented_once_where_the_index_says() -> None:
    assert set(implementations()) == set(declarations())


def test_every_declaration_names_the_method_that_implements_it() -> None:
    wrong = {
        name: where
        for name, where in implementations().items()
        if f"Implemented by {where}." not in " ".join(declarations()[name].split())
    }
    assert wrong == {}
