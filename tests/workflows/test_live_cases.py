"""From a live turn that went wrong to a regression case, through the real stack.

Real parts: the Temporal dev server, PostgreSQL, the sample corpus in Qdrant Edge, the API
in-process, the CLI's own `eval add-case`. The wrong turn comes from the model engine
against the fake provider (testkit/fake_servers.py), by a path today's controls really
leave open: the draft states FY2024's revenue as a share of FY2025's the wrong way round
("92.1% of its FY2025 revenue": 51,260 / 55,658; FY2024's is 108.6% of FY2025's) and
says it again. The numeric check recomputes a share from two cited figures trying both
ways round (`domain/checks/numeric.py`, `_change`: only a change is read in the order it is
stated), so the figure is derived, not refuted, and shown at high confidence: the turn a
reader rates "wrong figure". The case drafted from it must fail on that configuration
and pass on a correct one (the offline engine).

(Earlier this test's wrong turn was another year's figure said twice, which the final
gate took out of one sentence only; every sentence of a refuted figure is taken out now
(`refuted-every-sentence-v1`), and the adversary's `repeats_other_year` mode,
tests/workflows/test_model_engine.py, shows it stopped. Before that the figure was in
words, which the check did not read; it reads them now.)
"""

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from psycopg_pool import AsyncConnectionPool
from temporalio.client import Client

from backends.engines.openai_engine import OpenAIEngine
from backends.reports import ReportIndex
from domain.evaluation.scoring import DRAFTS, TurnExpected
from evals import live
from evals.cases import load_file
from evals.real import run_turn_case
from settings import Settings
from testkit.fake_servers import Body, Brain, FakeOpenAI, block_with
from tests.conftest import TurnWorker, WorkerFactory, client_for, model_engine, run_cli, unique
from workflows.probes import ProbeRequest, RunGoldenProbes

QUESTION = "What was BHP's revenue in FY2024?"
WRONG = "92.1"
"""FY2025's revenue as a share of FY2024's (51,260 / 55,658), stated as FY2024's share of
FY2025's (which is 108.6%)."""


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI().running() as server:
        yield server


def states_the_share_backwards(fake: FakeOpenAI) -> OpenAIEngine:
    """The configuration that produced the wrong turn: a model engine whose draft states
    FY2024's revenue as a share of FY2025's the wrong way round, then says it again, and
    a judge that passes it."""
    fake.responders.clear()
    brain = Brain(fake)

    def draft(body: Body) -> str:
        fy24, fy25 = block_with(body, "55,658"), block_with(body, "51.26")
        return (
            f"BHP Group's revenue for FY2024 (year ended 30 June 2024) was {WRONG}% of "
            f"its FY2025 revenue [{fy24}, {fy25}]. In short, BHP's FY2024 revenue came "
            f"to {WRONG}% of FY2025's [{fy24}, {fy25}]."
        )

    brain.writes(draft)
    return model_engine(fake)


async def ask(http: httpx.AsyncClient, question: str) -> dict[str, object]:
    response = await http.post("/v1/turns", json={"question": question})
    assert response.status_code == 200, response.text
    body: dict[str, object] = response.json()
    return body


async def test_a_turn_rated_wrong_figure_becomes_a_case_that_fails_where_it_was_produced(
    app_settings: Settings,
    turn_worker: TurnWorker,
    fake: FakeOpenAI,
    temporal_client: Client,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    producing = app_settings
    async with (
        turn_worker(states_the_share_backwards(fake), task_queue=producing.task_queue),
        client_for(producing) as http,
    ):
        shown = await ask(http, QUESTION)
        # The slip, as a person saw it: the share the wrong way round, derived by the
        # check and shown with nothing taken out.
        answer = str(shown["answer"])
        assert shown["status"] == "answered" and f"{WRONG}% of" in answer, shown
        assert "was removed" not in answer
        turn_id = str(shown["turn_id"])
        rating = {"rating": "wrong_figure", "comment": "it is the other way round"}
        rated = await http.post(f"/v1/turns/{turn_id}/feedback", json=rating)
        assert rated.status_code == 201

        listed = await live.candidates(temporal_client, producing.task_queue, 500)
        mine = [c for c in listed if c.turn_id == turn_id]
        assert [(c.kind, c.why) for c in mine] == [
            ("wrong_figure", 'rated wrong figure: "it is the other way round"')
        ]

        out = tmp_path / "live.jsonl"
        code = await run_cli(
            producing, monkeypatch, "eval", "add-case", "--from-turn", turn_id, "--out", str(out)
        )
        assert code == 0, capsys.readouterr().err
        assert "unconfirmed" in capsys.readouterr().out
        [case] = load_file(out, DRAFTS)
        assert not case.confirmed and case.origin is not None
        assert case.origin.turn_id == turn_id and WRONG in case.origin.shown
        expected = case.expected
        assert isinstance(expected, TurnExpected)
        # What the reports say, not what the turn showed; the shown figure must not be.
        assert expected.status == "answered" and expected.present == ["55,658"]
        assert expected.absent == [WRONG]
        assert [(c.company, c.fiscal_year) for c in expected.cites] == [("BHP", 2024)]
        assert 4 in expected.cites[0].pages

        # Drafting it twice is refused in one line: the file holds it already.
        again = await run_cli(
            producing, monkeypatch, "eval", "add-case", "--from-turn", turn_id, "--out", str(out)
        )
        assert again == 2 and "already holds a case" in capsys.readouterr().err

        on_producing, _ = await run_turn_case(http, case)
    assert not on_producing.passed
    assert "missing '55,658'" in on_producing.problems
    assert f"unexpected {WRONG!r}" in on_producing.problems

    correct = app_settings.model_copy(update={"task_queue": unique("correct")})
    async with turn_worker(task_queue=correct.task_queue), client_for(correct) as http:
        on_correct, result = await run_turn_case(http, case)
    assert on_correct.passed, (on_correct.problems, result.answer)


async def test_a_turn_rated_helpful_last_is_no_candidate_and_a_correct_turn_drafts_no_absent(
    app_settings: Settings,
    turn_worker: TurnWorker,
    temporal_client: Client,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    async with turn_worker(task_queue=app_settings.task_queue), client_for(app_settings) as http:
        first = await ask(http, QUESTION)
        right = str(first["turn_id"])
        # A follow-up: its case carries the question before it, and replays it.
        followed = await http.post(
            "/v1/turns",
            json={"question": "And in FY2023?", "conversation_id": first["conversation_id"]},
        )
        follow_up = str(followed.json()["turn_id"])
        assert followed.json()["status"] == "answered", followed.text
        changed = str((await ask(http, "What was Fortescue's revenue in FY2024?"))["turn_id"])
        await http.post(f"/v1/turns/{right}/feedback", json={"rating": "wrong_figure"})
        for rating in ("wrong_figure", "helpful"):  # a changed mind: the latest counts
            await http.post(f"/v1/turns/{changed}/feedback", json={"rating": rating})

        found = await live.candidates(temporal_client, app_settings.task_queue, 500)
        listed = {c.turn_id for c in found}
        # As a reviewer reads the list: `turnstile eval candidates`.
        capsys.readouterr()
        code = await run_cli(app_settings, monkeypatch, "eval", "candidates", "--limit", "500")
        printed = capsys.readouterr().out
        draft = await live.draft(temporal_client, app_settings.task_queue, right)
        on_correct, _ = await run_turn_case(http, draft)
        drafted_follow_up = await live.draft(temporal_client, app_settings.task_queue, follow_up)
        on_follow_up, replayed = await run_turn_case(http, drafted_follow_up)

    assert right in listed and changed not in listed
    assert code == 0 and re.search(rf"^\S+ \S+  wrong_figure +{right}\b", printed, re.M), printed
    assert f"    asked: {QUESTION}" in printed and changed not in printed
    assert printed.rstrip().endswith("(draft one with: turnstile eval add-case --from-turn TURN)")
    # The figure shown agrees with the reports: expected, and nothing must-not-show.
    expected = draft.expected
    assert isinstance(expected, TurnExpected)
    assert expected.present == ["55,658"] and expected.absent == []
    assert on_correct.passed, on_correct.problems
    assert drafted_follow_up.before == [QUESTION] and drafted_follow_up.query == "And in FY2023?"
    follow_up_expected = drafted_follow_up.expected
    assert isinstance(follow_up_expected, TurnExpected)
    assert follow_up_expected.present == ["53.82"], follow_up_expected
    assert on_follow_up.passed and "53.82" in (replayed.answer or ""), on_follow_up.problems


async def test_adding_a_case_from_an_unknown_turn_is_one_line_and_writes_nothing(
    app_settings: Settings,
    turn_worker: TurnWorker,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "live.jsonl"
    async with turn_worker(task_queue=app_settings.task_queue):
        code = await run_cli(
            app_settings,
            monkeypatch,
            "eval",
            "add-case",
            "--from-turn",
            "turn-nope-1",
            "--out",
            str(out),
        )
    err = capsys.readouterr().err
    assert code == 2 and err.strip() == "turnstile: no turn turn-nope-1", err
    assert not out.exists()


async def test_a_failed_probes_turn_is_a_candidate_and_drafts_the_reports_figure(
    worker: WorkerFactory,
    report_index: ReportIndex,
    pool: AsyncConnectionPool,
    temporal_client: Client,
    tmp_path: Path,
) -> None:
    import worker as registry
    from backends.engines.offline.engine import OfflineEngine

    name = unique("slice").replace("-", "_")
    (tmp_path / f"{name}.jsonl").write_text(
        '{"id": "wrong-expectation", "query": "What was BHP\'s revenue in FY2024?",'
        ' "expected": {"status": "answered", "present": ["US$1 trillion"]},'
        ' "why_it_matters": "a probe made to fail"}\n'
    )
    activities = registry.activities(report_index, pool, OfflineEngine(), probe_dir=tmp_path)
    async with worker(activities=activities) as tq:
        run = await temporal_client.execute_workflow(
            RunGoldenProbes.run, ProbeRequest(slices=[name]), id=unique("probes"), task_queue=tq
        )
        [failed] = run.slices
        [turn_id] = failed.failed_turns
        listed = [
            c for c in await live.candidates(temporal_client, tq, 500) if c.turn_id == turn_id
        ]
        draft = await live.draft(temporal_client, tq, turn_id)

    assert [(c.kind, c.why.split(" (run")[0]) for c in listed] == [
        ("probe", f"probe {name}/wrong-expectation: missing 'US$1 trillion'")
    ]
    expected = draft.expected
    assert isinstance(expected, TurnExpected)
    assert expected.present == ["55,658"] and draft.tags == ["live", "probe"]
    assert draft.origin is not None and draft.origin.why == [
        f"probe {name}/wrong-expectation: missing 'US$1 trillion'"
    ]
