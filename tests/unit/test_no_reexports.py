"""A domain type has one import path: the domain module that defines it. The contracts
modules use domain types in their own models, but nothing imports one through them."""

import ast
import subprocess
from pathlib import Path

from settings import PROJECT_ROOT

CONTRACTS = ("activities.contracts", "workflows.contracts")


def domain_names(module: str) -> set[str]:
    """The names `module` imports from the domain (unaliased: what a re-export would be)."""
    path = PROJECT_ROOT / (module.replace(".", "/") + ".py")
    return {
        alias.name
        for node in ast.parse(path.read_text(encoding="utf-8")).body
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("domain")
        for alias in node.names
        if alias.asname is None
    }


def through_contracts(source: str) -> list[str]:
    """Each `module.name` of `source` that imports a domain type through a contracts module."""
    reexported = {module: domain_names(module) for module in CONTRACTS}
    return [
        f"{node.module}.{alias.name}"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom) and node.module in reexported
        for alias in node.names
        if alias.name in reexported[node.module]
    ]


def python_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "*.py"], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True
    )
    return [PROJECT_ROOT / line for line in listed.stdout.split()]


def test_no_module_imports_a_domain_type_through_a_contracts_module() -> None:
    found = {
        str(path.relative_to(PROJECT_ROOT)): names
        for path in python_files()
        if (names := through_contracts(path.read_text(encoding="utf-8")))
    }
    assert found == {}


def test_the_check_fires_on_a_domain_type_imported_through_contracts() -> None:
    used = sorted(domain_names("activities.contracts"))[0]  # a domain type its models use
    source = f"from activities.contracts import {used}, SearchRequest\n"
    assert through_contracts(source) == [f"activities.contracts.{used}"]
    assert through_contracts("from activities.contracts import SearchRequest\n") == []
