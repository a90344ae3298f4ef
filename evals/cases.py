"""Loading the suites and probe sets from their JSONL files (the loader is
`domain.evaluation.scoring.parse_cases`, which names the file and line of a bad case)."""

from pathlib import Path

from domain.evaluation.scoring import SLICES, SUITES, CaseError, EvalCase, parse_cases

HOME = Path(__file__).resolve().parent
SUITE_DIR = HOME / "suites"
PROBE_DIR = HOME / "probes"
CONFIG_DIR = HOME / "configs"
JUDGE_SET = HOME / "judge.jsonl"
BASELINE = HOME / "baseline.json"
CANDIDATE_DIR = HOME / "candidates"
DRAFTED = CANDIDATE_DIR / "live.jsonl"
"""Where `turnstile eval add-case` drafts cases for a reviewer to confirm."""


def relative(path: Path) -> str:
    """`path` from the project root, as messages name files."""
    try:
        return str(path.resolve().relative_to(HOME.parent))
    except ValueError:
        return str(path)


def load_file(path: Path, suite: str) -> list[EvalCase]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise CaseError(f"{relative(path)}: cannot read ({err.strerror})") from None
    return parse_cases(text, relative(path), suite)


def load_suites(
    suites: list[str] | None = None, directory: Path = SUITE_DIR
) -> dict[str, list[EvalCase]]:
    """Every named suite's cases (all four when `suites` is empty)."""
    names = suites or list(SUITES)
    unknown = [s for s in names if s not in SUITES]
    if unknown:
        raise CaseError(f"unknown suite {unknown[0]!r}: choose from {', '.join(SUITES)}")
    return {name: load_file(directory / f"{name}.jsonl", name) for name in names}


def load_probes(directory: Path = PROBE_DIR) -> dict[str, list[EvalCase]]:
    """The golden probe sets, one per slice."""
    return {name: load_file(directory / f"{name}.jsonl", "probe") for name in SLICES}
