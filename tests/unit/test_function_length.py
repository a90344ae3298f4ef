"""No function of the product over 40 lines without a reason: a `# long: ...` comment in
its body says why it stays whole (bench/, tests/ and testkit/ are outside the rule). ChatTurn and
its rooms (`workflows/chat_turn.py`, `workflows/turn/`) have none at all."""

import ast
from pathlib import Path

from settings import PROJECT_ROOT

LIMIT = 40
OUTSIDE = {"bench", "tests", "testkit", ".venv"}


def long_functions() -> list[tuple[Path, ast.FunctionDef | ast.AsyncFunctionDef]]:
    found = []
    tops = [p for p in PROJECT_ROOT.iterdir() if p.name not in OUTSIDE and p.name[0] != "."]
    files = [p for p in tops if p.suffix == ".py"]
    files += [f for top in tops if top.is_dir() for f in top.rglob("*.py")]
    for path in sorted(files):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            function = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            if function and (node.end_lineno or node.lineno) - node.lineno + 1 > LIMIT:
                found.append((path, node))
    return found


def reason(path: Path, node: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    lines = path.read_text(encoding="utf-8").splitlines()[node.lineno - 1 : node.end_lineno]
    said = [line.strip() for line in lines if line.strip().startswith("# long: ")]
    return said[0].removeprefix("# long: ") if said else None


def test_every_function_over_40_lines_says_why_it_stays_whole() -> None:
    unexplained = [
        f"{path.relative_to(PROJECT_ROOT)}:{node.lineno} {node.name}"
        for path, node in long_functions()
        if not reason(path, node)
    ]
    assert unexplained == []


def test_chat_turn_and_its_rooms_have_no_function_over_40_lines() -> None:
    rooms = [
        f"{path.name}:{node.name}"
        for path, node in long_functions()
        if path.name == "chat_turn.py" or path.parent.name == "turn"
    ]
    assert rooms == []


def test_the_rule_fires_on_a_long_function_without_a_reason(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(LIMIT))
    path = tmp_path / "long.py"
    path.write_text(f"def long() -> None:\n{body}\n", encoding="utf-8")
    node = ast.parse(path.read_text())
    function = node.body[0]
    assert isinstance(function, ast.FunctionDef)
    assert reason(path, function) is None
    path.write_text(f"def long() -> None:\n    # long: a reason.\n{body}\n", encoding="utf-8")
    function = ast.parse(path.read_text()).body[0]
    assert isinstance(function, ast.FunctionDef) and reason(path, function) == "a reason."


CHAT_TURN_LINES = 450
"""ChatTurn keeps only the orchestration; its state and steps live in workflows/turn/."""


def test_the_chat_turn_module_stays_under_its_size() -> None:
    lines = (PROJECT_ROOT / "workflows" / "chat_turn.py").read_text(encoding="utf-8")
    assert len(lines.splitlines()) < CHAT_TURN_LINES, "move state or a step to workflows/turn/"
