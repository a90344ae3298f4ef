"""What a run reports: one line per case (passed, or its problems), per-case flakiness
over `--repeat` runs, and the comparison with the committed baseline (the release gate)."""

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from domain.evaluation.scoring import EvalCase

Mode = Literal["mock", "real"]


class CaseResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    suite: str
    id: str
    passed: bool
    problems: list[str] = Field(default_factory=list)
    """Of the last run that failed (empty when every run passed)."""
    runs: int = 1
    passes: int = 1
    detail: dict[str, object] = Field(default_factory=dict)
    """What the case measured (a retrieval case: the rank of the first hit)."""

    @property
    def flaky(self) -> bool:
        return 0 < self.passes < self.runs

    @classmethod
    def scored(
        cls, case: EvalCase, problems: list[str], detail: dict[str, object] | None = None
    ) -> "CaseResult":
        """One run of `case`: passed when its scorer found no problem."""
        return cls(
            suite=case.suite,
            id=case.id,
            passed=not problems,
            problems=problems,
            passes=int(not problems),
            detail=detail or {},
        )


class SuiteRun(BaseModel):
    model_config = ConfigDict(frozen=True)

    mode: Mode
    engine: str
    corpus_version: str | None = None
    repeat: int = 1
    cases: list[CaseResult]
    metrics: dict[str, float] = Field(default_factory=dict)
    """Suite-level measures, e.g. `retrieval.hit@5`, `retrieval.mrr@5`."""

    def by_suite(self) -> dict[str, list[CaseResult]]:
        out: dict[str, list[CaseResult]] = {}
        for case in self.cases:
            out.setdefault(case.suite, []).append(case)
        return out


def merge_repeats(runs: list[list[CaseResult]]) -> list[CaseResult]:
    """Fold N runs of the same cases into one line per case: k of N passed."""
    merged: list[CaseResult] = []
    for attempts in zip(*runs, strict=True):
        passes = sum(a.passed for a in attempts)
        failing = next((a for a in reversed(attempts) if not a.passed), None)
        merged.append(
            CaseResult(
                suite=attempts[0].suite,
                id=attempts[0].id,
                passed=passes == len(attempts),
                problems=failing.problems if failing else [],
                runs=len(attempts),
                passes=passes,
                detail=attempts[-1].detail,
            )
        )
    return merged


class Baseline(BaseModel):
    """The committed verdict of the offline engine on the real suites: the cases known to
    fail (with the reason) and the metric floors. Anything else failing is a regression."""

    model_config = ConfigDict(extra="forbid")

    known_failures: dict[str, str] = Field(default_factory=dict)
    """`suite/id` → why it fails today."""
    metrics: dict[str, float] = Field(default_factory=dict)
    """Floors: a run below any of them regressed."""

    @classmethod
    def read(cls, path: Path) -> "Baseline":
        return cls.model_validate_json(path.read_text(encoding="utf-8"))

    def write(self, path: Path) -> None:
        path.write_text(
            json.dumps(self.model_dump(), indent=2, sort_keys=True, ensure_ascii=False) + "\n",
            encoding="utf-8",
        )


def gate(run: SuiteRun, baseline: Baseline, complete: bool = True) -> list[str]:
    """Every difference from the baseline, as one line each (empty: the gate passes).

    A case failing that the baseline does not list is a regression; a listed case that
    now passes makes the baseline stale (update it, so it cannot hide a later failure);
    a metric below its floor is a regression. A run narrowed to some cases (`complete`
    False) is compared case by case only: the baseline's other cases and the suite-wide
    floors are not its to judge.
    """
    problems: list[str] = []
    seen: set[str] = set()
    for case in run.cases:
        key = f"{case.suite}/{case.id}"
        seen.add(key)
        listed = key in baseline.known_failures
        if not case.passed and not listed:
            problems.append(f"regressed: {key}: {'; '.join(case.problems) or 'failed'}")
        elif case.passed and listed:
            problems.append(f"now passes (remove it from the baseline): {key}")
    if not complete:
        return problems
    suites = {c.suite for c in run.cases}
    for key in baseline.known_failures:
        if key.split("/", 1)[0] in suites and key not in seen:
            problems.append(f"baseline names a case that no longer exists: {key}")
    for name, floor in baseline.metrics.items():
        if name.split(".", 1)[0] not in suites:
            continue
        value = run.metrics.get(name)
        if value is None:
            problems.append(f"metric {name} was not measured")
        elif value < floor - 1e-9:
            problems.append(f"regressed: {name} {value:.4f} < baseline {floor:.4f}")
    return problems
