"""The model engine: every model-backed step through an OpenAI-compatible chat endpoint.

Works with any base URL that speaks the chat-completions protocol (OpenAI, vLLM, Ollama,
llama.cpp server, a LiteLLM proxy). Each step sends its versioned prompt
(`prompt_templates/<step>.md`) and parses the reply into a pydantic model: with the
endpoint's JSON-schema response format where it supports one (`structured="json_schema"`,
through the client's own `parse`), else JSON mode plus validation here
(`structured="json_object"`).

What the model decides is bounded by code on both sides. Slots (companies, years,
metrics) are read by the same deterministic reader as the offline engine; the scope rules
run in the workflow before the router; a refusal is never generated text (a direct answer
about the assistant is the fixed constant); grader indices are validated in range by the
activity; every figure in a draft still goes through the deterministic numeric check
before the judge sees it. The judge runs on its own model, never the synthesiser's.

The client runs with `max_retries=0`: Temporal owns retries. Every failure is an
ApplicationError from `provider_errors` (a refusal, a truncated completion or output that
is not the schema are non-retryable), and the step's failure policy decides the rest.
"""

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

import openai
from openai import AsyncOpenAI, Omit, omit
from openai.types import CompletionUsage
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from temporalio.exceptions import ApplicationError

from activities.contracts import AnswerGrade, DocumentGrades, RewritePlan, RouteDecision
from activities.errors import ErrorType
from backends.engines.calls import record
from backends.engines.prompts import prompt
from backends.engines.provider_errors import classify_openai
from domain.checks.clarification import unshowable
from domain.checks.evidence import fence
from domain.checks.injection import fenced_memory
from domain.companies.replies import clarifying_question, direct_answer
from domain.companies.roster import companies, display_name, fiscal_years, year_span
from domain.language.amounts import label_without_figures
from domain.memory.rules import MemoryNote, merge_summary
from domain.models import ChunkText, Draft, ModelCall, NotFound, Slots, SubQuery, UnsupportedClaim
from domain.questions.answer_scope import answer_years, requested_metrics
from domain.questions.intent import companies_asked
from domain.questions.metrics import metric_display, read_metric_words
from domain.questions.question import extract_slots
from domain.questions.years import later_report_years

log = logging.getLogger(__name__)

SYSTEM = (
    "You are a careful financial analyst's assistant working only from the annual-report "
    "excerpts you are given. Reply with a single JSON object and nothing else."
)
Structured = Literal["json_schema", "json_object"]


class _Out(BaseModel):
    """A step's reply: every field required, nothing extra (what strict schemas demand)."""

    model_config = ConfigDict(extra="forbid")


class RouteOut(_Out):
    out_of_scope: bool
    needs_retrieval: bool
    needs_clarification: bool
    clarifying_question: str | None
    direct_answer: str | None


class SubQueryOut(_Out):
    company: str
    query: str


class RewriteOut(_Out):
    sub_queries: list[SubQueryOut]


class GradeOut(_Out):
    relevant: list[int]


class NotFoundOut(_Out):
    company: str
    fiscal_year: int
    metric: str


class SynthesisOut(_Out):
    answer: str
    not_found: list[NotFoundOut]


class ClaimOut(_Out):
    label: str
    reason: Literal["calculation", "interpolation", "general_knowledge"]


class JudgeOut(_Out):
    quality_passed: bool
    unsupported: list[ClaimOut]


class SummaryOut(_Out):
    summary: str


class ModelConfig(BaseModel):
    """Where the model engine's calls go, and which model each step uses."""

    model_config = ConfigDict(frozen=True)

    base_url: str
    api_key: str = Field(repr=False)
    route_model: str
    grade_model: str
    synthesize_model: str
    judge_model: str
    summarize_model: str
    structured: Structured = "json_schema"
    timeout_seconds: float = 60.0
    temperature: float | None = 0.0
    """None leaves it out of the request: reasoning models (o-series, gpt-5) reject any
    temperature but their default."""


T = TypeVar("T", bound=_Out)


@dataclass
class OpenAIEngine:
    """The engine protocol over an OpenAI-compatible endpoint; see the module docstring."""

    config: ModelConfig
    client: AsyncOpenAI | None = None
    name: str = ""

    def __post_init__(self) -> None:
        c = self.config
        self.name = f"openai:{c.synthesize_model} (judge {c.judge_model})"
        if self.client is None:
            self.client = AsyncOpenAI(
                base_url=self.config.base_url,
                api_key=self.config.api_key,
                max_retries=0,  # Temporal owns retries
                timeout=self.config.timeout_seconds,
            )

    async def _ask(self, step: str, model: str, schema: type[T], text: str) -> T:
        # long: one model call in either structured mode, each failure classified where it happens.
        assert self.client is not None
        template = prompt(step)
        messages: list[openai.types.chat.ChatCompletionMessageParam] = [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": text},
        ]
        try:
            if self.config.structured == "json_schema":
                parsed_completion = await self.client.chat.completions.parse(
                    model=model,
                    messages=messages,
                    response_format=schema,
                    temperature=self._temperature,
                )
                choice = parsed_completion.choices[0]
                usage = parsed_completion.usage
                self._refused(step, choice.message.refusal)
                result = choice.message.parsed
                if result is None:
                    raise ValueError("no parsed content")
            else:
                completion = await self.client.chat.completions.create(
                    model=model,
                    messages=messages,
                    response_format={"type": "json_object"},
                    temperature=self._temperature,
                )
                choice_ = completion.choices[0]
                usage = completion.usage
                if choice_.finish_reason == "length":
                    raise openai.LengthFinishReasonError(completion=completion)
                self._refused(step, choice_.message.refusal)
                result = schema.model_validate_json(choice_.message.content or "")
        except ApplicationError:
            raise
        except openai.OpenAIError as err:
            raise classify_openai(err, step) from err
        except (ValidationError, ValueError, json.JSONDecodeError) as err:
            raise ApplicationError(
                f"{step}: the model's reply is not the {schema.__name__} schema: "
                f"{str(err).splitlines()[0][:200]}",
                type=ErrorType.MODEL_OUTPUT_INVALID,
                non_retryable=True,
            ) from err
        _record_call(step, model, template.sha, usage)
        return result

    @property
    def _temperature(self) -> float | Omit:
        """The configured temperature, or left out of the request entirely."""
        return omit if self.config.temperature is None else self.config.temperature

    @staticmethod
    def _refused(step: str, refusal: str | None) -> None:
        if refusal:
            raise ApplicationError(
                f"{step}: the model refused: {refusal[:200]}",
                type=ErrorType.MODEL_REFUSED,
                non_retryable=True,
            )

    # ---- the steps ---------------------------------------------------------------------

    async def route(self, question: str) -> RouteDecision:
        """The model routes; the deterministic reader supplies the slots, and a question
        naming a company is never held for clarification."""
        slots = extract_slots(read_metric_words(question))
        text = prompt("route").render(
            companies=_company_list(), years=year_span(" to "), question=question
        )
        out = await self._ask("route", self.config.route_model, RouteOut, text)
        if out.direct_answer and not (out.needs_retrieval or slots.companies):
            return RouteDecision(
                route="direct_answer",
                reason="model: a question about the assistant",
                slots=slots,
                direct_answer=direct_answer(),  # a fixed text, never a generated one
            )
        if out.out_of_scope and not out.needs_retrieval and not slots.companies:
            return RouteDecision(route="out_of_scope", reason="model: out of scope", slots=slots)
        if out.needs_clarification and not out.needs_retrieval and not slots.companies:
            # The model's question is shown with no citation or check of its own: one
            # that could need them is replaced by the fixed text, and the reason said.
            asked = (out.clarifying_question or "").strip()
            why = unshowable(asked)
            reason = "model: no company can be identified"
            return RouteDecision(
                route="needs_clarification",
                reason=f"{reason} (its clarifying question replaced: {why})" if why else reason,
                slots=slots,
                clarifying_question=clarifying_question() if why else asked,
            )
        # "the miners", a commodity's producers, every company of a share of their total
        slots = slots.model_copy(update={"companies": companies_asked(slots.companies, question)})
        return RouteDecision(route="needs_retrieval", reason="model: answerable", slots=slots)

    async def rewrite(self, question: str, slots: Slots) -> RewritePlan:
        """One sub-query per company (first pass only: retries change them in code)."""
        asked = slots.companies or list(companies())
        metrics = requested_metrics(slots)
        years = answer_years(slots, question)
        text = prompt("rewrite").render(
            companies=", ".join(display_name(t) for t in asked),
            tickers=", ".join(asked),
            years=", ".join(f"FY{y}" for y in years),
            metrics=", ".join(metric_display(m) for m in metrics) or "none named",
            question=question,
        )
        out = await self._ask("rewrite", self.config.route_model, RewriteOut, text)
        later = later_report_years(slots, years, len(asked))
        by_company: dict[str, SubQuery] = {}
        for sq in out.sub_queries:
            ticker = sq.company.strip().upper()
            if ticker in asked and ticker not in by_company and sq.query.strip():
                by_company[ticker] = SubQuery(
                    company=ticker,
                    query=sq.query.strip()[:500],
                    fiscal_years=years,
                    metrics=metrics,
                    later_years=later,
                )
        # A company the model left out still gets searched (the workflow fills it in).
        return RewritePlan(sub_queries=[by_company[t] for t in asked if t in by_company])

    async def grade_documents(
        self, question: str, slots: Slots, chunks: list[ChunkText]
    ) -> DocumentGrades:
        """Indices of the relevant chunks (0-based); the activity validates the range."""
        if not chunks:
            return DocumentGrades(keep=[])
        text = prompt("grade_documents").render(
            question=question, evidence=fence([(i, c.text) for i, c in enumerate(chunks)])
        )
        out = await self._ask("grade_documents", self.config.grade_model, GradeOut, text)
        return DocumentGrades(keep=sorted(set(out.relevant)))

    def context_size(self, text: str) -> int:
        """Tokens, estimated at four characters each: the endpoint's own tokenizer is
        unknown (any OpenAI-compatible model), and tiktoken would fetch its tables at run
        time. The estimate only decides which excerpts and remembered notes fit; the
        budget's defaults leave the model's window a wide margin for its error."""
        return (len(text) + 3) // 4

    async def synthesize(
        self,
        question: str,
        slots: Slots,
        sources: list[ChunkText],
        memory: Sequence[MemoryNote] = (),
        shown: Sequence[int] | None = None,
    ) -> Draft:
        """A cited draft; gaps the model lists are kept only when they name a covered
        company and year (the workflow adds any exact line the text leaves out). The
        excerpts go in the order `shown` gives, each under its own source number."""
        if not sources:
            return Draft(answer="")
        asked = slots.companies or list(companies())
        years = answer_years(slots, question)
        metrics = requested_metrics(slots)
        order = list(shown) if shown is not None else range(1, len(sources) + 1)
        text = prompt("synthesize").render(
            question=question,
            companies=", ".join(asked),
            years=", ".join(f"FY{y}" for y in years),
            metrics=", ".join(metric_display(m) for m in metrics) or "as the question asks",
            evidence=fence([(n, sources[n - 1].text) for n in order]),
            memory=fenced_memory([note.labelled() for note in memory]),
        )
        out = await self._ask("synthesize", self.config.synthesize_model, SynthesisOut, text)
        gaps = [
            NotFound(company=g.company.upper(), fiscal_year=g.fiscal_year, metric=g.metric)
            for g in out.not_found
            if g.company.upper() in companies() and g.fiscal_year in fiscal_years() and g.metric
        ]
        return Draft(answer=out.answer.strip(), not_found=gaps)

    async def grade_answer(
        self, question: str, answer: str, sources: list[ChunkText]
    ) -> AnswerGrade:
        """The judge, on its own model: sees the question, the answer and the evidence."""
        text = prompt("grade_answer").render(
            question=question,
            answer=answer.replace("ANSWER>>>", "ANSWER> > >"),
            evidence=fence([(n, c.text) for n, c in enumerate(sources, start=1)]),
        )
        out = await self._ask("grade_answer", self.config.judge_model, JudgeOut, text)
        claims = [
            # The prompt asks for no figure in a label; a label is shown to the user,
            # so one the judge wrote with a figure has it taken out here.
            UnsupportedClaim(
                label=" ".join(label_without_figures(c.label).split()[:8]), reason=c.reason
            )
            for c in out.unsupported
            if c.label.strip()
        ]
        return AnswerGrade(
            quality_passed=out.quality_passed,
            unsupported=claims,
            notes=f"model judge {self.config.judge_model}: {len(claims)} unsupported",
        )

    async def summarize(self, messages: list[str]) -> str:
        """An increment: one fact a line (numbers, names, years and decisions), merged one
        fact a line and bounded as the summary is (`domain.memory.rules.merge_summary`)."""
        text = prompt("summarize").render(messages="\n".join(f"- {m}" for m in messages))
        out = await self._ask("summarize", self.config.summarize_model, SummaryOut, text)
        return merge_summary(None, out.summary.strip())


def _company_list() -> str:
    return ", ".join(f"{c.name} ({c.ticker})" for c in companies().values())


def _record_call(step: str, model: str, prompt_sha: str, usage: CompletionUsage | None) -> None:
    """Count the call's tokens for the turn's usage and log it."""
    call = ModelCall(
        step=step,
        model=model,
        prompt_sha=prompt_sha,
        prompt_tokens=usage.prompt_tokens if usage else 0,
        completion_tokens=usage.completion_tokens if usage else 0,
    )
    record(call)
    log.info(
        "model call step=%s model=%s prompt=%s tokens=%d+%d",
        step,
        model,
        call.prompt_sha,
        call.prompt_tokens,
        call.completion_tokens,
    )
