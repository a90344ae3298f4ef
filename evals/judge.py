"""Judge calibration: how often the groundedness checks agree with labelled pairs.

`judge.jsonl` holds answer/evidence pairs labelled `supported` or `unsupported` (about a
third deliberately wrong: altered digits, swapped years, the wrong company, unit slips,
a percentage or a difference computed wrongly). Each evidence entry names a report page
and a literal part of the cited chunk, so the pairs cite exactly what the index holds.

Each pair runs through the stack (workflow `EvaluateJudge`): the chunks are found in the
index, then the turn's own numeric check (`grounding_check_numbers`) and, with
`--model`, the judge step (`llm_grade_answer`: the model judge with a model engine; the
offline engine's judge is the numeric check itself). Reported: agreement with the labels
and the precision and recall of "unsupported", per error kind too, and every
disagreement.
"""

import json
from datetime import timedelta
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from activities.contracts import ChunkLocator
from domain.evaluation.scoring import CaseError
from domain.models import UnsupportedClaim
from evals.cases import JUDGE_SET, relative
from evals.real import CONCURRENCY, Stack, gathered
from workflows.contracts import JudgeProbe, JudgeVerdict
from workflows.evaluation import EvaluateJudge

Label = Literal["supported", "unsupported"]
TARGET = 0.95


class JudgePair(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    query: str
    answer: str
    evidence: list[ChunkLocator] = Field(min_length=1)
    expected: Label
    error: str | None = None
    why_it_matters: str = Field(min_length=1)


def load_pairs(path: Path = JUDGE_SET) -> list[JudgePair]:
    name = relative(path)
    pairs: list[JudgePair] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            pairs.append(JudgePair.model_validate(json.loads(line)))
        except json.JSONDecodeError as err:
            raise CaseError(f"{name}:{number}: not JSON ({err.msg})") from None
        except ValidationError as err:
            first = err.errors()[0]
            at = ".".join(str(p) for p in first["loc"])
            raise CaseError(f"{name}:{number}: {at}: {first['msg']}") from None
    return pairs


class Verdict(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    expected: Label
    error: str | None
    got: Label
    why: list[str] = Field(default_factory=list)
    """The unsupported claims the check listed."""


class Scores(BaseModel):
    model_config = ConfigDict(frozen=True)

    judge: str
    pairs: int
    agreement: float
    precision: float | None
    """Of the pairs called unsupported, the share labelled unsupported (None: none called)."""
    recall: float | None
    """Of the pairs labelled unsupported, the share called unsupported (None: no such pair,
    so the check was not measured on a wrong answer at all)."""
    recall_by_error: dict[str, float]
    disagreements: list[Verdict]

    @property
    def meets_target(self) -> bool:
        """Both measures at the target; never met by a set with no wrong pair."""
        if self.recall is None:
            return False
        return (self.precision or 0.0) >= TARGET and self.recall >= TARGET


def scores(judge: str, verdicts: list[Verdict]) -> Scores:
    called = [v for v in verdicts if v.got == "unsupported"]
    wrong = [v for v in verdicts if v.expected == "unsupported"]
    true_pos = [v for v in called if v.expected == "unsupported"]
    kinds = sorted({v.error for v in wrong if v.error})
    return Scores(
        judge=judge,
        pairs=len(verdicts),
        agreement=round(sum(v.got == v.expected for v in verdicts) / len(verdicts), 4),
        precision=round(len(true_pos) / len(called), 4) if called else None,
        recall=round(len(true_pos) / len(wrong), 4) if wrong else None,
        recall_by_error={
            k: round(
                sum(v.got == "unsupported" for v in wrong if v.error == k)
                / sum(v.error == k for v in wrong),
                4,
            )
            for k in kinds
        },
        disagreements=[v for v in verdicts if v.got != v.expected],
    )


def _measure(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


async def calibrate(stack: Stack, pairs: list[JudgePair], model: bool, engine: str) -> list[Scores]:
    """Every pair through the stack: the numeric check's scores, and the judge's."""
    # long: two small closures over the stack and the engine, read with the steps that use them.
    if not pairs:
        raise CaseError("no calibration pair chosen")

    async def one(pair: JudgePair) -> JudgeVerdict:
        return await stack.temporal.execute_workflow(
            EvaluateJudge.run,
            JudgeProbe(
                question=pair.query, answer=pair.answer, evidence=pair.evidence, model_judge=model
            ),
            id=f"eval-{stack.run_id}-judge-{pair.id}",
            task_queue=stack.task_queue,
            static_summary=f"judge calibration pair {pair.id}",
            execution_timeout=timedelta(minutes=5),
        )

    verdicts = await gathered([one(p) for p in pairs], CONCURRENCY)
    unresolved = [
        f"{p.id} (evidence {v.unresolved})"
        for p, v in zip(pairs, verdicts, strict=True)
        if v.unresolved
    ]
    if unresolved:
        raise CaseError(
            f"{JUDGE_SET.name}: evidence matches no chunk, or several: " + ", ".join(unresolved)
        )

    def verdict(pair: JudgePair, found: list[UnsupportedClaim]) -> Verdict:
        return Verdict(
            id=pair.id,
            expected=pair.expected,
            error=pair.error,
            got="unsupported" if found else "supported",
            why=[c.label for c in found],
        )

    both = list(zip(pairs, verdicts, strict=True))
    out = [scores("numeric check", [verdict(p, v.numeric) for p, v in both])]
    if model:
        judged = [verdict(p, v.judge or []) for p, v in both]
        out.append(scores(f"judge step ({engine} engine)", judged))
    return out


def render(result: Scores) -> str:
    target = "met" if result.meets_target else "NOT met"
    if result.recall is None:
        target = "not measured: no wrong pair in the set"
    lines = [
        f"{result.judge}: {result.pairs} pairs, agreement {result.agreement:.3f}, "
        f"unsupported precision {_measure(result.precision)} recall {_measure(result.recall)} "
        f"(target ≥ {TARGET}: {target})",
    ]
    if result.recall_by_error:
        by_error = ", ".join(f"{k} {v:.2f}" for k, v in result.recall_by_error.items())
        lines.append(f"  recall by error: {by_error}")
    for v in result.disagreements:
        why = f" ({'; '.join(v.why)})" if v.why else ""
        lines.append(f"  {v.id}: labelled {v.expected}, called {v.got}{why}")
    return "\n".join(lines)
