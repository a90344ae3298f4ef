"""The whole stack as a user runs it: `turnstile up --detach`, search, status, down, up again.

One stack per module (start-up takes about 25 s). It lives in a temporary
TURNSTILE_HOME on free ports with its own embedded PostgreSQL, so it never touches a
developer's stack. Tests run in file order; the last one stops and restarts it.
"""

import json
import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from settings import PROJECT_ROOT
from stack.processes import free_port, pid_alive, port_bindable
from tests.conftest import CORPUS_DIR

TURNSTILE = str(Path(sys.executable).parent / "turnstile")
HIT_KEYS = {
    "rank",
    "score",
    "chunk_id",
    "company",
    "fiscal_year",
    "page",
    "section",
    "document",
    "text",
}


@dataclass
class Stack:
    home: Path
    env: dict[str, str]
    api_port: int
    ui_port: int
    ports: list[int]
    up_output: str

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.api_port}"


def stack_env(home: Path, api_port: int | None = None) -> tuple[dict[str, str], list[int]]:
    """Environment for a `turnstile` process: its own home and free ports, nothing inherited."""
    ports = [api_port or free_port(), *(free_port() for _ in range(7))]
    env = {k: v for k, v in os.environ.items() if not k.startswith("TURNSTILE_")}
    # The run's vector cache (tests/conftest.py): every stack embeds the corpus once.
    if cache := os.environ.get("TURNSTILE_EMBEDDING_CACHE_DIR"):
        env["TURNSTILE_EMBEDDING_CACHE_DIR"] = cache
    env.update(
        TURNSTILE_HOME=str(home),
        TURNSTILE_API_PORT=str(ports[0]),
        TURNSTILE_API_URL=f"http://127.0.0.1:{ports[0]}",
        TURNSTILE_TEMPORAL_PORT=str(ports[1]),
        TURNSTILE_TEMPORAL_UI_PORT=str(ports[2]),
        TURNSTILE_POSTGRES_PORT=str(ports[3]),
        TURNSTILE_WORKER_METRICS_PORT=str(ports[4]),
        TURNSTILE_TEMPORAL_METRICS_PORT=str(ports[5]),
        # Chosen here too: left to itself the dev server takes random free ports while it
        # starts, possibly one of the above.
        TURNSTILE_TEMPORAL_HTTP_PORT=str(ports[6]),
        TURNSTILE_TEMPORAL_DEV_METRICS_PORT=str(ports[7]),
        # These tests ask dozens of turns as one anonymous caller, as fast as the machine
        # runs them: the rate limit has its own tests (tests/api/test_tenants.py).
        TURNSTILE_RATE_LIMIT_PER_MINUTE="100000",
        TURNSTILE_RATE_LIMIT_BURST="10000",
    )
    return env, ports


def turnstile(
    env: dict[str, str], *args: str, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [TURNSTILE, *args],
        env=env,
        cwd=PROJECT_ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def assert_one_clean_error_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode != 0, result
    assert "Traceback" not in result.stdout + result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    home = tmp_path_factory.mktemp("e2e-home")
    env, ports = stack_env(home)
    try:
        result = turnstile(env, "up", "--detach", timeout=300)
        assert result.returncode == 0, result.stdout + result.stderr
        yield Stack(home, env, ports[0], ports[2], ports, result.stdout)
    finally:
        turnstile(env, "down", timeout=120)


def healthz(stack: Stack) -> httpx.Response:
    return httpx.get(f"{stack.api_url}/healthz", timeout=10)


def test_up_detach_returns_with_healthz_green_and_the_corpus_ingested(stack: Stack) -> None:
    response = healthz(stack)

    body = response.json()
    assert response.status_code == 200, body
    assert all(component["ok"] for component in body["components"].values())
    assert body["components"]["qdrant"]["chunks"] > 0
    assert f"corpus {body['corpus_version']}" in stack.up_output


def test_temporal_ui_answers_http(stack: Stack) -> None:
    response = httpx.get(f"http://127.0.0.1:{stack.ui_port}/", timeout=10)

    assert response.status_code == 200


def test_search_json_prints_hits_with_exactly_the_documented_keys(stack: Stack) -> None:
    result = turnstile(stack.env, "search", "BHP revenue", "--company", "BHP", "--json")

    assert result.returncode == 0, result.stderr
    hits = json.loads(result.stdout)
    assert isinstance(hits, list) and hits
    for rank, hit in enumerate(hits, start=1):
        assert set(hit) == HIT_KEYS
        assert hit["rank"] == rank
        assert hit["company"] == "BHP"
        assert type(hit["fiscal_year"]) is int
        assert type(hit["page"]) is int
    assert any("55,658" in hit["text"] for hit in hits)


def test_the_worker_serves_turn_metrics_and_the_sdks_own(stack: Stack) -> None:
    response = httpx.post(
        f"{stack.api_url}/v1/turns",
        json={"question": "What was BHP's net debt in FY2024?"},
        timeout=60,
    )
    assert response.status_code == 200 and response.json()["status"] == "answered"
    worker = httpx.get(f"http://127.0.0.1:{stack.ports[4]}/metrics", timeout=10).text
    assert 'turnstile_turns_total{route="needs_retrieval",status="answered"}' in worker
    assert "turnstile_turn_seconds_bucket" in worker
    sdk = httpx.get(f"http://127.0.0.1:{stack.ports[5]}/metrics", timeout=10).text
    assert "temporal_activity_execution_latency" in sdk  # per-step latency, by activity type
    api = httpx.get(f"{stack.api_url}/metrics", timeout=10).text
    assert re.search(r"^turnstile_turns_started_total [1-9]", api, re.MULTILINE)


def test_after_twenty_turns_the_decision_record_verifies(stack: Stack) -> None:
    questions = [
        "What was BHP's revenue in FY2024?",
        "Should I buy BHP shares?",
        "What was the revenue in FY2024?",
        "Compare Rio Tinto and BHP net debt",
    ]
    turn_ids = []
    for i in range(20):
        response = httpx.post(
            f"{stack.api_url}/v1/turns", json={"question": questions[i % 4]}, timeout=60
        )
        assert response.status_code == 200, response.text
        turn_ids.append(response.json()["turn_id"])
    verified = turnstile(stack.env, "audit", "verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "chain intact" in verified.stdout
    readable = turnstile(stack.env, "audit", "show", turn_ids[1])
    assert readable.returncode == 0, readable.stderr
    assert f"turn {turn_ids[1]}" in readable.stdout and "refused" in readable.stdout
    shown = turnstile(stack.env, "audit", "show", turn_ids[1], "--json")
    assert shown.returncode == 0, shown.stderr
    record = json.loads(shown.stdout)
    assert record["turn_id"] == turn_ids[1] and record["record"]["status"] == "refused"
    missing = turnstile(stack.env, "audit", "show", "turn-nope-1")
    assert missing.returncode != 0 and "no decision record" in missing.stderr
    # A clarification still waiting has no record until it settles.
    waiting = next(t for t, q in zip(turn_ids, questions * 5, strict=True) if "the revenue" in q)
    assert httpx.get(f"{stack.api_url}/v1/turns/{waiting}/audit", timeout=10).status_code == 404


PERSONAL = {
    "email": "jo.citizen@example.com",
    "phone": "0412 345 678",
    "card": "4111 1111 1111 1111",
    "tfn": "123 456 782",
}


def _needles() -> list[bytes]:
    """Each value as typed and as bare digits (a store might normalise it)."""
    forms = set()
    for value in PERSONAL.values():
        forms.add(value)
        if "@" not in value:
            forms.add(value.replace(" ", ""))
    return sorted(v.encode() for v in forms)


def _leaks(data: bytes) -> list[str]:
    return [n.decode() for n in _needles() if n in data]


async def _history_leaks(stack: Stack) -> dict[str, list[str]]:
    from temporalio.client import Client

    client = await Client.connect(f"127.0.0.1:{stack.ports[1]}")
    found = {}
    async for execution in client.list_workflows():
        history = await client.get_workflow_handle(
            execution.id, run_id=execution.run_id
        ).fetch_history()
        data = b"".join(event.SerializeToString() for event in history.events)
        if leaks := _leaks(data):
            found[execution.id] = leaks
    return found


def test_personal_data_reaches_no_history_table_file_log_or_metric(stack: Stack) -> None:
    """Done-when of the PII work: after turns with an email, a phone, a card and a TFN in
    the question and in a clarification reply, none is found anywhere but the token map."""
    import asyncio

    import psycopg

    api = stack.api_url
    user = "u-pii-e2e"
    first = httpx.post(
        f"{api}/v1/turns",
        json={
            "user_id": user,
            "question": (
                f"I'm {PERSONAL['email']}, mobile {PERSONAL['phone']}, card {PERSONAL['card']},"
                f" TFN {PERSONAL['tfn']}. What was BHP's revenue in FY2024?"
            ),
        },
        timeout=60,
    )
    assert first.status_code == 200 and first.json()["status"] == "answered", first.text
    assert PERSONAL["card"] in first.json()["question"]  # shown back to its owner
    waiting = httpx.post(
        f"{api}/v1/turns",
        json={"user_id": user, "question": f"Tell me about this company ({PERSONAL['email']})"},
        timeout=60,
    )
    assert waiting.json()["status"] == "needs_clarification", waiting.text
    reply = httpx.post(
        f"{api}/v1/turns/{waiting.json()['turn_id']}/clarification",
        json={
            "reply": (
                f"Fortescue. Card {PERSONAL['card']}, TFN {PERSONAL['tfn']},"
                f" phone {PERSONAL['phone']}"
            )
        },
        timeout=60,
    )
    assert reply.status_code == 200 and reply.json()["status"] == "answered", reply.text
    search = httpx.get(f"{api}/v1/search", params={"q": f"revenue {PERSONAL['email']}"}, timeout=60)
    assert search.status_code == 200

    assert asyncio.run(_history_leaks(stack)) == {}
    url = f"postgresql://postgres@127.0.0.1:{stack.ports[3]}/postgres"
    with psycopg.connect(url) as conn:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
            ).fetchall()
        ]
        assert "pii_tokens" in tables
        leaked = {}
        for table in tables:
            rows = conn.execute(f'SELECT t::text FROM "{table}" t').fetchall()
            if table != "pii_tokens" and (leaks := _leaks("\n".join(r[0] for r in rows).encode())):
                leaked[table] = leaks
        kept = conn.execute("SELECT count(*) FROM pii_tokens").fetchone()
    assert leaked == {}
    assert kept is not None and kept[0] >= 4
    # Files: logs, Qdrant's storage (the chunks and any cache collection), Temporal's
    # database. PostgreSQL's own files hold the token map, so they are checked by SQL.
    files = {}
    pgdata = stack.home / "postgres"
    for path in stack.home.rglob("*"):
        in_store = path.is_file() and not path.is_relative_to(pgdata)
        if in_store and (leaks := _leaks(path.read_bytes())):
            files[str(path.relative_to(stack.home))] = leaks
    assert files == {}
    for port in (stack.api_port, stack.ports[4], stack.ports[5]):
        assert _leaks(httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).content) == []


def _json_lines(path: Path) -> list[dict[str, object]]:
    lines = [line for line in path.read_text(errors="replace").splitlines() if line.strip()]
    assert lines, path
    parsed = []
    for line in lines:
        try:
            parsed.append(json.loads(line))
        except ValueError:
            raise AssertionError(f"{path.name} has a line that is not JSON: {line[:200]}") from None
    return parsed


def test_worker_and_api_logs_are_json_lines_per_turn_step_and_request(stack: Stack) -> None:
    conversation = "c-logs-e2e"
    response = httpx.post(
        f"{stack.api_url}/v1/turns",
        json={
            "question": "What was Fortescue's revenue in FY2024?",
            "conversation_id": conversation,
        },
        timeout=60,
    )
    turn_id = response.json()["turn_id"]
    assert httpx.get(f"{stack.api_url}/v1/turns/{turn_id}", timeout=10).status_code == 200
    worker = _json_lines(stack.home / "logs" / "worker.log")
    turn_lines = [r for r in worker if r.get("event") == "turn" and r.get("turn_id") == turn_id]
    assert len(turn_lines) == 1, turn_lines
    assert turn_lines[0]["conversation_id"] == conversation
    assert turn_lines[0]["status"] == "answered" and turn_lines[0]["level"] == "INFO"
    steps = {r["step"] for r in worker if r.get("event") == "step" and r.get("turn_id") == turn_id}
    assert {"postgres_load_session", "qdrant_search_chunks", "postgres_save_turn"} <= steps
    assert not any("it/s]" in str(r.get("message")) for r in worker)  # no progress bars
    api = _json_lines(stack.home / "logs" / "api.log")
    access = [r for r in api if r.get("event") == "request" and r.get("route") == "/v1/turns"]
    assert access and access[-1]["status"] == 200 and access[-1]["method"] == "POST"
    reads = [r for r in api if r.get("event") == "request" and r.get("turn_id") == turn_id]
    assert reads and reads[-1]["route"] == "/v1/turns/{turn_id}"


def test_second_up_says_already_running_and_exits_zero(stack: Stack) -> None:
    result = turnstile(stack.env, "up", "--detach")

    assert result.returncode == 0, result.stderr
    assert "already running" in result.stdout


def test_status_json_lists_every_process_and_a_healthy_stack(stack: Stack) -> None:
    result = turnstile(stack.env, "status", "--json")

    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["healthy"] is True
    assert report["home"] == str(stack.home)
    assert set(report["processes"]) == {"temporal", "postgres", "worker", "api"}
    assert all(isinstance(pid, int) and pid_alive(pid) for pid in report["processes"].values())


def test_status_prints_an_aligned_table_and_exits_0_when_healthy(stack: Stack) -> None:
    done = turnstile(stack.env, "status")

    assert done.returncode == 0, done.stderr
    rows = done.stdout.splitlines()
    assert rows[-1] == "healthy"
    assert any(re.match(r"worker +ok +pollers \d+$", row) for row in rows), rows
    states = {row.split("  ")[0].strip(): row for row in rows[:-1]}
    assert {"temporal process", "postgres process", "worker process", "api process"} <= set(states)


def test_chat_answers_asks_back_and_lets_you_drop_the_question(stack: Stack) -> None:
    """`turnstile chat` in a terminal: a clarifying question is answered by typing, or
    dropped with /cancel; the lines typed are kept as history for the next session."""
    import pexpect

    env = {**stack.env, "TERM": "dumb"}
    child = pexpect.spawn(
        TURNSTILE, ["chat"], env=env, cwd=str(PROJECT_ROOT), encoding="utf-8", timeout=120
    )
    try:
        child.expect("/help for commands")
        child.expect_exact("> ")
        child.sendline("What was the revenue?")
        child.expect_exact("type your answer, or /cancel to drop the question")
        child.expect_exact("reply> ")
        child.sendline("/cancel")
        child.expect("cancelled before it was answered")
        child.expect_exact("> ")
        child.sendline("What was the revenue?")
        child.expect_exact("reply> ")
        child.sendline("BHP in FY2024")
        child.expect("55,658")
        child.expect_exact("> ")
        child.sendline("/quit")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    history = (stack.home / "chat_history").read_text()
    assert "BHP in FY2024" in history and "/cancel" in history


def pending_clarification(stack: Stack, conversation: str) -> str:
    """Start a vague question in `conversation` through the API, as another terminal or
    the web page would; it waits for a clarification. Returns its turn id."""
    response = httpx.post(
        f"{stack.api_url}/v1/turns",
        json={"question": "What was the revenue?", "conversation_id": conversation},
        timeout=60,
    )
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "needs_clarification", response.text
    return str(response.json()["turn_id"])


def turn_status(stack: Stack, turn_id: str) -> str:
    return str(httpx.get(f"{stack.api_url}/v1/turns/{turn_id}", timeout=10).json()["status"])


@pytest.mark.parametrize("way_out", ["reply", "cancel"])
def test_chat_in_a_conversation_with_a_pending_clarification_offers_it_then_asks(
    stack: Stack, way_out: str
) -> None:
    """`turnstile chat` where a turn started elsewhere (after the chat opened) waits for a
    clarification: the question typed is not asked yet; the waiting question is shown,
    answered by typing (or dropped with /cancel), and then the typed question is asked."""
    import pexpect

    env = {**stack.env, "TERM": "dumb"}
    child = pexpect.spawn(
        TURNSTILE, ["chat"], env=env, cwd=str(PROJECT_ROOT), encoding="utf-8", timeout=120
    )
    try:
        child.expect(r"Turnstile chat \(conversation (\S+)\)")
        conversation = child.match.group(1)
        child.expect_exact("> ")
        # Another window asks in the same conversation while this chat is open.
        blocking = pending_clarification(stack, conversation)
        child.sendline("What was BHP's net debt in FY2024?")
        child.expect_exact(f"turn {blocking} of this conversation waits for an answer")
        child.expect_exact("your question was not asked yet")
        child.expect_exact("? Which company do you mean?")
        child.expect_exact("type your answer, or /cancel to drop the question")
        child.expect_exact("reply> ")
        if way_out == "reply":
            child.sendline("Rio Tinto in FY2024")
            child.expect_exact("53,658")  # Rio Tinto's FY2024 revenue: the waiting turn's
        else:
            child.sendline("/cancel")
            child.expect_exact("cancelled before it was answered")
        child.expect_exact("(now asking your question: What was BHP's net debt in FY2024?)")
        child.expect_exact("9.12")  # BHP's FY2024 net debt: the question typed first
        child.expect_exact(f"turn-{conversation}-2")
        child.expect_exact("> ")
        child.sendline("/quit")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert turn_status(stack, blocking) == ("answered" if way_out == "reply" else "cancelled")
    assert turn_status(stack, f"turn-{conversation}-2") == "answered"


def test_chat_resumes_a_conversation_with_its_end_and_its_waiting_question(
    stack: Stack,
) -> None:
    """`turnstile chat --conversation ID` prints the conversation's last messages and the
    question still waiting, takes the next line as its answer; an unknown /command is not
    sent; an empty line does not leave; /new and /quit say how to come back, and that a
    question asked back still waits."""
    import pexpect

    conversation = f"c-resume-{os.getpid()}"
    blocking = pending_clarification(stack, conversation)
    env = {**stack.env, "TERM": "dumb"}
    child = pexpect.spawn(
        TURNSTILE,
        ["chat", "--conversation", conversation],
        env=env,
        cwd=str(PROJECT_ROOT),
        encoding="utf-8",
        timeout=120,
    )
    try:
        child.expect_exact("you: What was the revenue?")
        child.expect_exact("? Which company do you mean?")
        child.expect_exact(f"Turnstile chat (conversation {conversation})")
        child.expect_exact("reply> ")
        child.sendline("BHP in FY2024")
        child.expect_exact("55,658")
        child.expect_exact("> ")
        child.sendline("/frobnicate the revenue")
        child.expect_exact(
            "(unknown command /frobnicate: /help, /new, /cancel, /quit; nothing was asked)"
        )
        child.sendline("")
        child.sendline("/new")
        child.expect_exact(f"(to continue: turnstile chat --conversation {conversation})")
        child.expect(r"\(new conversation (\S+)\)")
        second = child.match.group(1)
        child.expect_exact("> ")
        child.sendline("What was the revenue?")
        child.expect_exact("reply> ")
        child.sendline("/quit")
        child.expect_exact('(the question "Which company do you mean?" still waits for your')
        child.expect_exact(f"turnstile chat --conversation {second}")
        child.expect_exact(f"turnstile cancel turn-{second}-1")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert turn_status(stack, blocking) == "answered"
    assert turn_status(stack, f"turn-{second}-1") == "needs_clarification"
    messages = httpx.get(f"{stack.api_url}/v1/conversations/{conversation}/messages", timeout=10)
    assert "frobnicate" not in messages.text
    unknown = turnstile(stack.env, "chat", "--conversation", f"c-never-{os.getpid()}")
    line = assert_one_clean_error_line(unknown)
    assert unknown.returncode == 2
    assert line == (
        f"turnstile: no conversation c-never-{os.getpid()}: turnstile conversations lists yours"
    )


def test_ask_names_its_conversation_and_feedback_reaches_the_record_and_the_list(
    stack: Stack,
) -> None:
    """`ask` prints the conversation id a follow-up needs; `feedback TURN RATING` stores a
    rating that `feedback` lists, `audit show` prints (readably; `--json` raw) and
    /metrics counts; `conversations` lists the conversation."""
    user = f"reader-{os.getpid()}"
    asked = turnstile(stack.env, "ask", "--user", user, "What was BHP's revenue in FY2024?")
    assert asked.returncode == 0, asked.stderr
    match = re.search(
        r"\(conversation (\S+): follow up with turnstile ask --conversation"
        r" (\S+) ",
        asked.stdout,
    )
    assert match and match.group(1) == match.group(2), asked.stdout
    conversation = match.group(1)
    turn_id = f"turn-{conversation}-1"
    followed = turnstile(
        stack.env, "ask", "--conversation", conversation, "--user", user, "And in FY2023?"
    )
    assert followed.returncode == 0, followed.stderr
    assert re.search(r"53,817|53\.82", followed.stdout), followed.stdout  # BHP's FY2023

    rated = turnstile(
        stack.env, "feedback", turn_id, "wrong_figure", "--comment", "the FY2023 figure was shown"
    )
    assert rated.returncode == 0, rated.stderr
    assert rated.stdout.strip() == f"noted: turn {turn_id} rated wrong figure"
    listed = turnstile(stack.env, "feedback", "--rating", "wrong_figure")
    assert listed.returncode == 0 and turn_id in listed.stdout, listed.stderr
    assert "asked: What was BHP's revenue in FY2024?" in listed.stdout
    assert "said: the FY2023 figure was shown" in listed.stdout
    shown = turnstile(stack.env, "audit", "show", turn_id)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("Decision record #")
    assert "status answered" in shown.stdout and "checks:" in shown.stdout
    assert re.search(r"^feedback:\n  \S+ \S+ UTC wrong figure by " + user, shown.stdout, re.M)
    raw = json.loads(turnstile(stack.env, "audit", "show", turn_id, "--json").stdout)
    assert raw["feedback"][0]["rating"] == "wrong_figure" and raw["record"]["citations"]
    metrics = httpx.get(f"{stack.api_url}/metrics", timeout=10).text
    assert re.search(r'^turnstile_feedback_total\{rating="wrong_figure"\} [1-9]', metrics, re.M)
    mine = turnstile(stack.env, "conversations", "--user", user)
    assert mine.returncode == 0, mine.stderr
    assert mine.stdout.splitlines()[0].startswith(f"{conversation}  ")
    assert "2 turns  answered: And in FY2023?" in mine.stdout.splitlines()[0]
    bad = turnstile(stack.env, "feedback", turn_id, "great")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1


def in_terminal(stack: Stack, *args: str, env: dict[str, str] | None = None) -> tuple[str, int]:
    """Run `turnstile ARGS` in a terminal (a pty, as a person types it): what it printed
    there, stdout and stderr as they appear, and its exit code."""
    import pexpect

    child = pexpect.spawn(
        TURNSTILE,
        list(args),
        env={**(env or stack.env), "TERM": "dumb"},
        cwd=str(PROJECT_ROOT),
        encoding="utf-8",
        timeout=120,
    )
    child.expect(pexpect.EOF)
    child.close()
    return child.before.replace("\r\n", "\n"), child.exitstatus


def test_each_cli_finding_of_issue_27_in_a_terminal(stack: Stack) -> None:
    """Issue 27's CLI findings, each as a person meets it in a terminal: `status` checks
    the API TURNSTILE_API_URL names; `--fy FY2024` is a year; `ask` names the
    conversation a follow-up needs; in `chat` an unknown /command is not sent, an empty
    line neither asks nor leaves, /new says a question asked back still waits and how to
    come back, an unknown --conversation is an error; `audit show` is readable (`--json`
    raw); `conversations` and `feedback` list what they hold."""
    # long: one terminal session per finding, in the order the issue lists them.
    import pexpect

    elsewhere = f"http://127.0.0.1:{free_port()}"
    shown, code = in_terminal(stack, "status", env={**stack.env, "TURNSTILE_API_URL": elsewhere})
    assert code == 1 and re.search(rf"^api +unreachable +{re.escape(elsewhere)}$", shown, re.M)
    assert shown.rstrip().endswith("not healthy"), shown
    shown, code = in_terminal(
        stack, "search", "Fortescue net debt", "--company", "FMG", "--fy", "FY2024", "--limit", "2"
    )
    assert code == 0 and "FMG FY2024 p." in shown, shown
    user = f"terminal-{os.getpid()}"
    question = "What was Fortescue's revenue in FY2024?"
    shown, code = in_terminal(stack, "ask", "--user", user, question)
    match = re.search(r"\(conversation (\S+): follow up with turnstile ask --conversation", shown)
    assert code == 0 and match and "18.22" in shown, shown
    turn_id = f"turn-{match.group(1)}-1"

    child = pexpect.spawn(
        TURNSTILE,
        ["chat", "--user", user],
        env={**stack.env, "TERM": "dumb"},
        cwd=str(PROJECT_ROOT),
        encoding="utf-8",
        timeout=120,
    )
    try:
        child.expect(r"Turnstile chat \(conversation (\S+)\)")
        conversation = child.match.group(1)
        child.expect_exact("> ")
        child.sendline("/revenue of BHP")
        child.expect_exact(
            "(unknown command /revenue: /help, /new, /cancel, /quit; nothing was asked)"
        )
        child.sendline("What was the revenue?")
        child.expect_exact("? Which company do you mean?")
        child.expect_exact("reply> ")
        child.sendline("")  # an empty line: the question still waits, the chat stays
        child.expect_exact("reply> ")
        child.sendline("/new")
        child.expect_exact(
            '(the question "Which company do you mean?" still waits for'
            " your answer and keeps the conversation busy"
        )
        child.expect_exact(
            f"come back with turnstile chat --conversation {conversation}, or"
            f" drop it with turnstile cancel turn-{conversation}-1)"
        )
        child.expect(r"\(new conversation \S+\)")
        child.sendline("/quit")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    shown, code = in_terminal(stack, "cancel", f"turn-{conversation}-1")
    assert code == 0 and "Cancelled" in shown, shown
    shown, code = in_terminal(stack, "chat", "--conversation", f"c-nowhere-{os.getpid()}")
    assert code == 2 and "no conversation c-nowhere" in shown and "Traceback" not in shown

    shown, code = in_terminal(stack, "audit", "show", turn_id)
    assert code == 0 and shown.startswith("Decision record #") and "checks:" in shown, shown
    raw, code = in_terminal(stack, "audit", "show", turn_id, "--json")
    assert code == 0 and json.loads(raw)["turn_id"] == turn_id
    shown, code = in_terminal(stack, "conversations", "--user", user)
    listed = rf"^{re.escape(match.group(1))}  .* 1 turn  answered: {re.escape(question)}$"
    assert code == 0 and re.search(listed, shown, re.M), shown
    assert "(continue one with: turnstile chat --conversation ID)" in shown
    shown, code = in_terminal(stack, "feedback", turn_id, "helpful", "--comment", "clear")
    assert code == 0 and shown.strip() == f"noted: turn {turn_id} rated helpful", shown
    shown, code = in_terminal(stack, "feedback", "--rating", "helpful")
    assert code == 0 and turn_id in shown and "said: clear" in shown, shown


def test_status_reports_the_api_it_is_pointed_at_not_only_the_local_processes(
    stack: Stack,
) -> None:
    """TURNSTILE_API_URL is the API `ask` talks to: `status` is healthy only when that one
    answers, whatever runs locally."""
    elsewhere = f"http://127.0.0.1:{free_port()}"
    done = turnstile({**stack.env, "TURNSTILE_API_URL": elsewhere}, "status")

    assert done.returncode == 1
    rows = done.stdout.splitlines()
    assert re.match(rf"api +unreachable +{re.escape(elsewhere)}$", rows[0]), rows
    assert rows[-1] == "not healthy"
    here = turnstile(stack.env, "status")
    assert here.returncode == 0
    assert re.match(rf"api +ok +{re.escape(stack.api_url)}$", here.stdout.splitlines()[0])


def test_ask_in_a_conversation_with_a_pending_clarification_names_reply_and_cancel(
    stack: Stack,
) -> None:
    """`turnstile ask --conversation ID` while a turn there waits: one line naming the two
    ways out, each of which works as written and frees the conversation."""
    for way_out in ("reply", "cancel"):
        conversation = f"c-ask-{way_out}-{os.getpid()}"
        blocking = pending_clarification(stack, conversation)
        question = "What was BHP's net debt in FY2024?"

        refused = turnstile(stack.env, "ask", "--conversation", conversation, question)

        line = assert_one_clean_error_line(refused)
        assert refused.returncode == 2 and refused.stdout == ""
        assert line == (
            f'turnstile: turn {blocking} of this conversation waits for an answer to "Which'
            f' company do you mean?", so your question was not asked: answer it with turnstile'
            f' reply {blocking} "..." or drop it with turnstile cancel {blocking}, then ask again'
        )
        if way_out == "reply":
            freed = turnstile(stack.env, "reply", blocking, "BHP in FY2024")
            assert freed.returncode == 0 and "55,658" in freed.stdout, freed.stderr
        else:
            freed = turnstile(stack.env, "cancel", blocking)
            assert freed.returncode == 0 and "cancelled" in freed.stdout, freed.stderr
        again = turnstile(stack.env, "ask", "--conversation", conversation, question)
        assert again.returncode == 0 and "9.12" in again.stdout, again.stderr


@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
def test_ask_json_into_a_closed_pipe_exits_quietly(stack: Stack, buffered: bool) -> None:
    """`turnstile ask --json ... | head -c 10`, and a reader gone before the answer came:
    no BrokenPipeError traceback, exit 141 as for a program SIGPIPE ended."""
    env = {k: v for k, v in stack.env.items() if k != "PYTHONUNBUFFERED"}
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"
    ask = [TURNSTILE, "ask", "--json", "What was BHP's revenue in FY2024?"]
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        gone = subprocess.run(
            ask,
            env=env,
            cwd=PROJECT_ROOT,
            stdin=subprocess.DEVNULL,
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert (gone.returncode, gone.stderr) == (141, "")

    head = subprocess.run(
        ["bash", "-c", 'set -o pipefail; "$@" | head -c 10', "bash", *ask],
        env=env,
        cwd=PROJECT_ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert head.stdout == '{"turn_id"' and head.stderr == ""
    assert head.returncode in (0, 141)  # 141 when head left before the answer was written


def test_eval_real_mode_through_the_running_stack(stack: Stack) -> None:
    done = turnstile(
        stack.env,
        "eval",
        "--mode",
        "real",
        "--suite",
        "routing",
        "--limit",
        "3",
        "--json",
        timeout=300,
    )

    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["mode"] == "real" and report["engine"] == "offline"
    assert [c["passed"] for c in report["cases"]] == [True, True, True]


def test_up_with_its_port_in_use_names_the_port_in_one_line(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env, _ = stack_env(tmp_path_factory.mktemp("busy-home"), api_port=port)

        result = turnstile(env, "up", "--detach")

    line = assert_one_clean_error_line(result)
    assert f"port {port} is already in use" in line
    assert not (Path(env["TURNSTILE_HOME"]) / "run").exists(), "nothing may start"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["search", ""], "query must not be empty"),
        (["search", "   "], "query must not be empty"),
        (["search", "revenue", "--company", "ACME"], "unknown company 'ACME'"),
        (["search", "revenue", "--fy", "2021"], "fiscal year 2021 is outside 2023-2025"),
        (["search", "revenue", "--fy", "last"], "argument --fy: 'last' is not a fiscal year"),
        (["search"], "the following arguments are required: query"),
        (["ingest", "/nonexistent/report.md"], "/nonexistent/report.md: no such file"),
        (["ingest", str(CORPUS_DIR / "BHP_FY2024.md"), "--fy", "1850"], "fiscal year 1850 is not"),
    ],
    ids=[
        "empty-query",
        "blank-query",
        "unknown-ticker",
        "fy-2021",
        "fy-not-a-number",
        "no-query",
        "missing-path",
        "ingest-fy",
    ],
)
def test_bad_cli_input_gives_one_line_and_a_nonzero_exit(
    stack: Stack, args: list[str], message: str
) -> None:
    line = assert_one_clean_error_line(turnstile(stack.env, *args))

    assert line.startswith("turnstile: ")
    assert message in line


def test_down_stops_every_process_and_frees_the_ports_then_up_reuses_the_data(
    stack: Stack,
) -> None:
    pids = json.loads(turnstile(stack.env, "status", "--json").stdout)["processes"]
    version = healthz(stack).json()["corpus_version"]

    down = turnstile(stack.env, "down", timeout=120)

    assert down.returncode == 0, down.stderr
    assert [name for name, pid in pids.items() if pid_alive(pid)] == []
    assert [port for port in stack.ports if not port_bindable(port)] == []

    again = turnstile(stack.env, "up", "--detach", timeout=300)

    assert again.returncode == 0, again.stdout + again.stderr
    assert f"corpus {version}" in again.stdout
    assert healthz(stack).json()["corpus_version"] == version
    ingest = turnstile(stack.env, "ingest", str(CORPUS_DIR), timeout=300)
    assert ingest.returncode == 0, ingest.stderr
    statuses = [line.split(":", 1)[0] for line in ingest.stdout.splitlines() if ": /" in line]
    assert statuses == ["unchanged"] * 15
    assert f"corpus version {version}" in ingest.stdout


def test_forget_erases_a_users_memory_from_the_command_line(stack: Stack) -> None:
    user = f"u-forget-{os.getpid()}"
    said = httpx.post(
        f"{stack.api_url}/v1/turns",
        json={"question": "Show me figures in billions from now on", "user_id": user},
        timeout=60,
    )
    assert said.status_code == 200 and said.json()["route"] == "remember", said.text
    asked = httpx.post(
        f"{stack.api_url}/v1/turns",
        json={"question": "What was BHP's revenue in FY2024?", "user_id": user},
        timeout=60,
    ).json()
    assert "billion" in asked["answer"] and asked["cache"] == "miss"
    memory = httpx.get(f"{stack.api_url}/v1/users/{user}/memory", timeout=10).json()
    assert [f["value"] for f in memory["facts"]] == ["bn"]
    forgot = turnstile(stack.env, "forget", user)
    assert forgot.returncode == 0, forgot.stderr
    assert f"erased {user}: 1 fact version(s)" in forgot.stdout
    assert "1 cached answer(s)" in forgot.stdout
    assert httpx.get(f"{stack.api_url}/v1/users/{user}/memory", timeout=10).json()["facts"] == []
    bad = turnstile(stack.env, "forget", "u" * 200)  # longer than a user id may be
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1, bad.stderr
