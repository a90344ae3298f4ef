"""A scripted engine for controls that only fire on a bad draft.

It implements the Engine protocol: each method pops its next scripted step (a value to
return, an exception to raise, or a function of the offline engine's own result) and
falls back to the real offline engine when its script is empty. Everything else in a
test using it — workflow, activities, Qdrant, PostgreSQL, the checks — stays real.
"""

from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from activities.contracts import AnswerGrade, DocumentGrades, RewritePlan, RouteDecision
from backends.engines.offline.engine import OfflineEngine
from domain.memory.rules import MemoryNote
from domain.models import ChunkText, Draft, Slots

Step = object  # a value, an Exception instance, or a callable(offline_result) -> value


class ScriptedEngine:
    name = "scripted-1"

    def __init__(self, **scripts: list[Step]) -> None:
        self.offline = OfflineEngine()
        self.scripts: dict[str, list[Step]] = defaultdict(list, scripts)
        self.calls: Counter[str] = Counter()
        self.repeat: dict[str, Step] = {}

    def always(self, method: str, step: Step) -> "ScriptedEngine":
        """Use `step` for every call of `method` once its script is used up."""
        self.repeat[method] = step
        return self

    async def _run(self, method: str, real: Callable[[], Any]) -> Any:
        self.calls[method] += 1
        script = self.scripts[method]
        step = script.pop(0) if script else self.repeat.get(method)
        if step is None:
            return await real()
        if isinstance(step, BaseException):
            raise step
        if callable(step):
            return step(await real())
        return step

    async def route(self, question: str) -> RouteDecision:
        result: RouteDecision = await self._run("route", lambda: self.offline.route(question))
        return result

    async def rewrite(self, question: str, slots: Slots) -> RewritePlan:
        result: RewritePlan = await self._run(
            "rewrite", lambda: self.offline.rewrite(question, slots)
        )
        return result

    async def grade_documents(
        self, question: str, slots: Slots, chunks: list[ChunkText]
    ) -> DocumentGrades:
        result: DocumentGrades = await self._run(
            "grade_documents", lambda: self.offline.grade_documents(question, slots, chunks)
        )
        return result

    def context_size(self, text: str) -> int:
        return len(text)

    async def synthesize(
        self,
        question: str,
        slots: Slots,
        sources: list[ChunkText],
        memory: Sequence[MemoryNote] = (),
        shown: Sequence[int] | None = None,
    ) -> Draft:
        self.last_sources = sources
        self.last_memory = list(memory)
        self.last_shown = None if shown is None else list(shown)
        result: Draft = await self._run(
            "synthesize", lambda: self.offline.synthesize(question, slots, sources)
        )
        return result

    async def grade_answer(
        self, question: str, answer: str, sources: list[ChunkText]
    ) -> AnswerGrade:
        result: AnswerGrade = await self._run(
            "grade_answer", lambda: self.offline.grade_answer(question, answer, sources)
        )
        return result

    async def summarize(self, messages: list[str]) -> str:
        result: str = await self._run("summarize", lambda: self.offline.summarize(messages))
        return result


class WithoutCompanyOnce(ScriptedEngine):
    """Grades every chunk of `company` irrelevant on the first grading, as a grader that
    misjudged a company's evidence would; later gradings are the offline engine's."""

    def __init__(self, company: str) -> None:
        super().__init__()
        self.company, self.dropped = company, False

    async def grade_documents(
        self, question: str, slots: Slots, chunks: list[ChunkText]
    ) -> DocumentGrades:
        grades = await super().grade_documents(question, slots, chunks)
        if self.dropped:
            return grades
        self.dropped = True
        keep = [i for i in grades.keep if chunks[i].company != self.company]
        return grades.model_copy(update={"keep": keep})


def with_capex_line(engine: ScriptedEngine, net_debt: str, capex: str) -> Step:
    """A `synthesize` step for "What was BHP's net debt in FY2024?": the offline draft with
    its net debt (9.12) written as `net_debt`, and a line of capital and exploration
    expenditure of US$`capex` billion cited to the source that prints its 9.27."""

    def step(draft: Draft) -> Draft:
        n = next(i for i, c in enumerate(engine.last_sources, 1) if "9.27" in c.text)
        said = draft.answer.replace("9.12", net_debt)
        line = f"BHP's capital and exploration expenditure for FY2024 was US${capex} billion [{n}]."
        return Draft(answer=f"{said}\n\n{line}", derived=draft.derived)

    return step
