"""The embedded stack configured for a model: TURNSTILE_ENGINE=openai pointed at the fake
OpenAI server this test runs. `turnstile up` builds the engine from the settings, the
API starts turns with the model steps as regular activities, and a figure question is
answered, cited and checked end to end. The "model" is the small brain of
testkit/fake_servers.py, answering from the prompts the worker sends.
"""

from collections.abc import Iterator

import httpx
import pytest
from selenium.webdriver.common.by import By

from testkit.fake_servers import Brain, FakeOpenAI
from tests.e2e.test_page import ask, chromium
from tests.e2e.test_stack import stack_env, turnstile
from tests.workflows.test_model_engine import compare, revenue_sentence

COMPARISON = "Compare BHP and Rio Tinto revenue in FY2024"


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI().running() as server:
        yield server


def test_a_stack_configured_for_a_model_answers_through_it(
    fake: FakeOpenAI, tmp_path_factory: pytest.TempPathFactory
) -> None:
    Brain(fake).writes(revenue_sentence)
    env, _ = stack_env(tmp_path_factory.mktemp("model-home"))
    env.update(
        TURNSTILE_ENGINE="openai",
        TURNSTILE_OPENAI_BASE_URL=fake.base_url,
        TURNSTILE_OPENAI_API_KEY=fake.api_key,
        TURNSTILE_MODEL_JUDGE="judge-1",
    )
    try:
        up = turnstile(env, "up", "--detach", timeout=300)
        assert up.returncode == 0, up.stdout + up.stderr
        api = env["TURNSTILE_API_URL"]
        health = httpx.get(f"{api}/healthz", timeout=10).json()
        assert health["engine"]["name"] == "openai"
        assert health["engine"]["models"]["grade_answer"] == "judge-1"
        response = httpx.post(
            f"{api}/v1/turns", json={"question": "What was BHP's revenue in FY2024?"}, timeout=60
        )
        result = response.json()
        assert response.status_code == 200 and result["status"] == "answered", result
        assert "US$55,658 million" in result["answer"] and result["citations"]
        assert [c["step"] for c in result["model_trace"]] == [
            "route",
            "rewrite",
            "grade_documents",
            "synthesize",
            "grade_answer",
        ]
        assert fake.steps_called()[-1] == "JudgeOut"
        # A claim the checks refuted is named where people read the answer: the CLI and
        # the page each say which figure could not be verified.
        Brain(fake).writes(lambda body: compare(body, "US$99,999 million"))
        asked = turnstile(env, "ask", COMPARISON, timeout=120)
        assert asked.returncode == 0, asked.stdout + asked.stderr
        assert "! could not verify: RIO FY2024 revenue" in asked.stdout, asked.stdout
        assert "99,999" not in asked.stdout
        driver = chromium()
        try:
            driver.get(api + "/")
            ask(driver, COMPARISON)
            flags = [f.text for f in driver.find_elements(By.CSS_SELECTOR, ".msg.assistant .flag")]
            # The page names the company (the registry's name for the label's ticker).
            assert any(
                f.startswith("Could not verify:") and "Rio Tinto FY2024 revenue" in f for f in flags
            ), flags
        finally:
            driver.quit()
    finally:
        turnstile(env, "down", timeout=120)
