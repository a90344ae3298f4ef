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
from domain.evaluation import CaseError
from domain.models import UnsupportedClaim
from evals.cases import JUDGE_SET
from evals.real import CONCURRENCY, Stack, gathered
from workflows.evaluation import EvaluateJudge, JudgeProbe, JudgeVerdict

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
    pairs: list[JudgePair] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            pairs.append(JudgePair.model_validate(json.loads(line)))
        except json.JSONDecodeError as err:
            raise CaseError(f"{path.name}:{number}: not JSON ({err.msg})") from None
        except ValidationError as err:
            first = err.errors()[0]
            at = ".".join(str(p) for p in first["loc"])
            raise CaseError(f"{path.name}:{number}: {at}: {first['msg']}") from None
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
    precision: float
    """Of the pairs called unsupported, the share labelled unsupported."""
    recall: float
    """Of the pairs labelled unsupported, the share called unsupported."""
    recall_by_error: dict[str, float]
    disagreements: list[Verdict]

    @property
    def meets_target(self) -> bool:
        return self.precision >= TARGET and self.recall >= TARGET


def scores(judge: str, verdicts: list[Verdict]) -> Scores:
    called = [v for v in verdicts if v.got == "unsupported"]
    wrong = [v for v in verdicts if v.expected == "unsupported"]
    true_pos = [v for v in called if v.expected == "unsupported"]
    kinds = sorted({v.error for v in wrong if v.error})
    return Scores(
        judge=judge, pairs=len(verdicts),
        agreement=round(sum(v.got == v.expected for v in verdicts) / len(verdicts), 4),
        precision=round(len(true_pos) / len(called), 4) if called else 1.0,
        recall=round(len(true_pos) / len(wrong), 4) if wrong else 1.0,
        recall_by_error={
            k: round(sum(v.got == "unsupported" for v in wrong if v.error == k)
                     / sum(v.error == k for v in wrong), 4) for k in kinds
        },
        disagreements=[v for v in verdicts if v.got != v.expected],
    )  # fmt: skip


async def calibrate(stack: Stack, pairs: list[JudgePair], model: bool, engine: str) -> list[Scores]:
    """Every pair through the stack: the numeric check's scores, and the judge's."""

    async def one(pair: JudgePair) -> JudgeVerdict:
        return await stack.temporal.execute_workflow(
            EvaluateJudge.run,
            JudgeProbe(question=pair.query, answer=pair.answer, evidence=pair.evidence,
                       model_judge=model),
            id=f"eval-{stack.run_id}-judge-{pair.id}",
            task_queue=stack.task_queue,
            execution_timeout=timedelta(minutes=5),
        )  # fmt: skip

    verdicts = await gathered([one(p) for p in pairs], CONCURRENCY)
    unresolved = [f"{p.id} (evidence {v.unresolved})" for p, v in zip(pairs, verdicts, strict=True)
                  if v.unresolved]  # fmt: skip
    if unresolved:
        raise CaseError(f"{JUDGE_SET.name}: evidence matches no chunk, or several: "
                        + ", ".join(unresolved))  # fmt: skip

    def verdict(pair: JudgePair, found: list[UnsupportedClaim]) -> Verdict:
        return Verdict(id=pair.id, expected=pair.expected, error=pair.error,
                       got="unsupported" if found else "supported",
                       why=[c.label for c in found])  # fmt: skip

    both = list(zip(pairs, verdicts, strict=True))
    out = [scores("numeric check", [verdict(p, v.numeric) for p, v in both])]
    if model:
        judged = [verdict(p, v.judge or []) for p, v in both]
        out.append(scores(f"judge step ({engine} engine)", judged))
    return out


def render(result: Scores) -> str:
    lines = [
        f"{result.judge}: {result.pairs} pairs, agreement {result.agreement:.3f}, "
        f"unsupported precision {result.precision:.3f} recall {result.recall:.3f} "
        f"(target ≥ {TARGET}: {'met' if result.meets_target else 'NOT met'})",
        "  recall by error: "
        + ", ".join(f"{k} {v:.2f}" for k, v in result.recall_by_error.items()),
    ]
    for v in result.disagreements:
        lines.append(f"  {v.id}: labelled {v.expected}, called {v.got}"
                     + (f" ({'; '.join(v.why)})" if v.why else ""))  # fmt: skip
    return "\n".join(lines)
