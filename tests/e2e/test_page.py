"""The chat page in a real browser: Debian's Chromium, headless, driven through chromedriver.

Against a whole stack started as a user starts it (`turnstile up --detach`, the offline
engine): ask and watch the steps arrive before the answer, open a citation's preview
with its cited row marked, answer a clarification in the page, compare three
companies as a table, click a refusal's suggestion, reload into the same conversation,
do it all from the keyboard, check accessibility with axe-core, and read /docs and
/redoc with every host but this one unreachable.

Chromium and chromedriver are Debian's packages (`chromium`, `chromium-driver`; .ci/run
installs them). Nothing is downloaded at run time: Selenium is given both paths, so its
driver manager never runs. A screenshot of each state is written to
`test-output/page/` (or `$TURNSTILE_TEST_OUTPUT/page/`) on every run.
"""

import json
import os
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.pointer_input import PointerInput
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait
from selenium_axe_python import Axe

from settings import PROJECT_ROOT
from tests.e2e.test_stack import Stack, stack_env, turnstile

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
SHOTS = Path(os.environ.get("TURNSTILE_TEST_OUTPUT", PROJECT_ROOT / "test-output")) / "page"
WAIT_SECONDS = 90
# What the page must show: the corpus's figures (see corpus/README.md).
BHP_REVENUE_FY2024 = "55,658"
# A question that cites BHP's FY2024 table; a vague one that must be asked back.
SINGLE = "What was BHP's revenue in FY2024?"
VAGUE = "What was their revenue?"
COMPARE = "Compare the revenue of BHP, Rio Tinto and Fortescue in FY2024"
OUT_OF_SCOPE = "Should I buy BHP shares?"
FRESH = "What was South32's underlying EBITDA in FY2024?"
# A figure the reports leave out (corpus/README.md, "Deliberately absent metrics").
ABSENT = "What was Northern Star's underlying EBITDA in FY2023?"
DARK = {"features": [{"name": "prefers-color-scheme", "value": "dark"}]}
# The stack runs with API keys, as a deployment would: the page must send one.
PAGE_KEY = "page-test-key-0123456789"
KEY_STORE = "turnstile.apiKey"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not shutil.which(p)]
    assert not missing, (
        f"{' and '.join(missing)} not found: install Debian's chromium and chromium-driver"
        " (apt-get install chromium chromium-driver), as .ci/run does"
    )
    home = tmp_path_factory.mktemp("page-home")
    env, ports = stack_env(home)
    # API keys configured (the CLI sends its own to ingest), so every request the page
    # makes must carry the key the person entered.
    env.update(TURNSTILE_API_KEYS=f'{{"{PAGE_KEY}": "default"}}', TURNSTILE_API_KEY=PAGE_KEY)
    try:
        result = turnstile(env, "up", "--detach", timeout=300)
        assert result.returncode == 0, result.stdout + result.stderr
        yield Stack(home, env, ports[0], ports[2], ports, result.stdout)
    finally:
        turnstile(env, "down", timeout=120)


def chromium(*extra: str, width: int = 1200, height: int = 900) -> WebDriver:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        f"--window-size={width},{height}",
        *extra,
    ):
        options.add_argument(argument)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


def with_key(driver: WebDriver, url: str) -> WebDriver:
    """The page's origin with the API key already kept in the browser, as after a person
    entered it once (`test_the_page_asks_for_the_api_key_once_and_keeps_it`)."""
    driver.get(url + "/")
    driver.execute_script("localStorage.setItem(arguments[0], arguments[1])", KEY_STORE, PAGE_KEY)
    return driver


@pytest.fixture
def browser(stack: Stack) -> Iterator[WebDriver]:
    driver = chromium()
    try:
        yield with_key(driver, stack.api_url)
    finally:
        driver.quit()


def shot(driver: WebDriver, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    assert driver.save_screenshot(str(SHOTS / f"{name}.png"))


def until(driver: WebDriver, condition: Callable[[WebDriver], Any], what: str) -> Any:
    return WebDriverWait(driver, WAIT_SECONDS).until(condition, f"waiting for {what}")


def answers(driver: WebDriver) -> list[WebElement]:
    return driver.find_elements(By.CSS_SELECTOR, ".msg.assistant .answer")


def messages(driver: WebDriver) -> list[WebElement]:
    return driver.find_elements(By.CSS_SELECTOR, ".msg.assistant")


def ask(driver: WebDriver, question: str) -> WebElement:
    """Type a question, press Enter, and return the answer that arrives for it."""
    before = len(answers(driver))
    driver.find_element(By.ID, "question").send_keys(question, Keys.ENTER)
    until(driver, lambda d: len(answers(d)) > before, f"the answer to {question!r}")
    return answers(driver)[-1]


def record_order(driver: WebDriver) -> None:
    """Record, in the page, the order in which steps and answers appear."""
    driver.execute_script("""
        window.__order = [];
        new MutationObserver((records) => {
          for (const r of records) for (const n of r.addedNodes) {
            if (!(n instanceof Element)) continue;
            if (n.matches("li.step")) window.__order.push("step");
            if (n.matches(".answer") || n.querySelector(".answer")) window.__order.push("answer");
          }
        }).observe(document.getElementById("log"), {childList: true, subtree: true});
    """)


def turn_json(driver: WebDriver, turn_id: str | None) -> dict[str, Any]:
    """The turn as the API gives it, read in the page with its kept key."""
    assert turn_id, "the answer names its turn"
    result: dict[str, Any] = driver.execute_async_script(
        """const [path, done] = arguments;
        const key = localStorage.getItem("turnstile.apiKey");
        fetch(path, {headers: {authorization: "Bearer " + key}})
          .then((r) => r.json()).then(done, (e) => done({error: String(e)}));""",
        f"/v1/turns/{turn_id}",
    )
    return result


def in_view(driver: WebDriver, element: WebElement) -> bool:
    """Whether the element is on screen and not under the fixed ask bar (its top, when it
    is taller than the space above the bar)."""
    return bool(
        driver.execute_script(
            """const r = arguments[0].getBoundingClientRect();
        const bar = document.getElementById("ask").getBoundingClientRect().top;
        return r.top >= -1 && (r.bottom <= bar + 1 || r.top <= 16);""",
            element,
        )
    )


def tap(driver: WebDriver, element: WebElement) -> None:
    """A finger's tap (a touch pointer, not a mouse click)."""
    actions = ActionBuilder(driver, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
    actions.pointer_action.move_to(element).pointer_down().pointer_up()
    actions.perform()


def row_in_dialog(driver: WebDriver, row: WebElement) -> bool:
    return bool(
        driver.execute_script(
            """const r = arguments[0].getBoundingClientRect();
        const d = document.getElementById("report").getBoundingClientRect();
        return r.top >= d.top && r.bottom <= d.bottom;""",
            row,
        )
    )


def api_call(driver: WebDriver, method: str, path: str) -> dict[str, Any]:
    """Call the API from the page with its kept key: {status, body}."""
    result: dict[str, Any] = driver.execute_async_script(
        """const [method, path, done] = arguments;
        const key = localStorage.getItem("turnstile.apiKey");
        fetch(path, {method, headers: {authorization: "Bearer " + key}})
          .then(async (r) => done({status: r.status, body: await r.text()}),
                (e) => done({error: String(e)}));""",
        method,
        path,
    )
    return result


def said(message: WebElement) -> str:
    """What an answer's actions last said (copied, feedback recorded, link revoked)."""
    return str(message.find_element(By.CSS_SELECTOR, ".actions .done").text)


def listed(driver: WebDriver) -> list[WebElement]:
    return driver.find_elements(By.CSS_SELECTOR, "#history-list li")


def download(driver: WebDriver, folder: Path, name: str) -> str:
    """The text of a file the page downloads into `folder` (once it is complete)."""
    until(
        driver,
        lambda d: (folder / name).is_file() and not list(folder.glob("*.crdownload")),
        f"the download {name}",
    )
    return (folder / name).read_text("utf-8")


def serious_violations(driver: WebDriver) -> list[str]:
    axe = Axe(driver)
    axe.inject()
    results = axe.run()
    return [
        f"{v['id']} ({v['impact']}): {v['help']} — {[n['target'] for n in v['nodes']][:3]}"
        for v in results["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def test_a_question_shows_its_steps_live_then_the_cited_answer_with_a_row_preview(
    stack: Stack, browser: WebDriver
) -> None:
    browser.get(stack.api_url + "/")
    assert "sample excerpts" in browser.find_element(By.ID, "sample-note").text
    examples = browser.find_elements(By.CSS_SELECTOR, "#examples button.example")
    assert len(examples) >= 3
    shot(browser, "01-empty-page")
    assert not serious_violations(browser)

    record_order(browser)
    browser.find_element(By.ID, "question").send_keys(SINGLE, Keys.ENTER)
    # The question is echoed at once, and steps appear while the turn runs.
    until(
        browser,
        lambda d: SINGLE in d.find_element(By.CSS_SELECTOR, ".msg.user").text,
        "the question echoed",
    )
    until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".steps li.step"), "a step")
    shot(browser, "02-steps-then-answer")
    answer = until(browser, lambda d: answers(d) and answers(d)[-1], "the answer")
    order = browser.execute_script("return window.__order")
    assert "step" in order and "answer" in order
    assert order.index("step") < order.index("answer"), order
    steps = browser.execute_script(
        "return [...document.querySelectorAll('.steps li.step')].map(li => li.textContent)"
    )
    assert "Reading the question" in steps and any("Searching BHP" in s for s in steps), steps
    assert BHP_REVENUE_FY2024 in answer.text

    # The confidence badge says its level in words, not only in colour.
    badge = browser.find_element(By.CSS_SELECTOR, ".msg.assistant .badge")
    assert badge.text.startswith("Confidence: ")
    # The reference list holds only the cited sources, and each marker is a link to one.
    markers = answer.find_elements(By.CSS_SELECTOR, "a.cite")
    references = browser.find_elements(By.CSS_SELECTOR, ".msg.assistant .sources li")
    assert markers and len(references) == len({m.text for m in markers})
    marker = markers[0]
    assert marker.get_attribute("href").endswith("#" + references[0].get_attribute("id"))

    browser.execute_script("arguments[0].focus()", marker)
    row = until(
        browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".popover tr.cited"), "a cited row"
    )[0]
    popover = browser.find_element(By.CSS_SELECTOR, ".popover")
    assert "BHP Group" in popover.text and "FY2024" in popover.text and "page 4" in popover.text
    assert "Revenue" in row.text and BHP_REVENUE_FY2024 in row.text
    assert popover.find_elements(By.CSS_SELECTOR, "table td"), "the passage is a table"
    assert "|---" not in popover.text, "a table, not markdown pipes"
    shot(browser, "03-answer-with-citation-preview")
    assert not serious_violations(browser)
    marker.send_keys(Keys.ESCAPE)
    until(browser, lambda d: not d.find_elements(By.CSS_SELECTOR, ".popover"), "preview closed")


def test_the_page_says_what_the_registry_covers_and_suggests_only_its_companies(
    stack: Stack, browser: WebDriver
) -> None:
    """The page named "five ASX miners" and suggested their questions whatever the
    registry held: its tagline, suggestions and placeholder now come from GET
    /v1/companies, so a company ingested later is named and one not held never offered."""

    held = httpx.get(
        stack.api_url + "/v1/companies",
        headers={"Authorization": f"Bearer {PAGE_KEY}"},
        timeout=10,
    ).json()
    assert isinstance(held, list), held
    browser.get(stack.api_url + "/")
    default = "Checked answers from annual reports"
    tagline = until(
        browser,
        lambda d: (t := d.find_element(By.ID, "tagline").text) != default and t,
        "the tagline from the registry",
    )
    assert "five ASX miners" not in tagline and "five ASX miners" not in browser.title
    if len(held) <= 6:
        assert all(c["name"] in tagline for c in held), tagline
    suggested = [b.text for b in browser.find_elements(By.CSS_SELECTOR, "#examples button.example")]
    names = {c["name"] for c in held}
    assert len(suggested) >= 3 and all(any(n in q for n in names) for q in suggested), suggested
    placeholder = browser.find_element(By.ID, "question").get_attribute("placeholder")
    assert placeholder == suggested[0]
    browser.find_elements(By.CSS_SELECTOR, "#examples button.example")[0].click()
    until(
        browser,
        lambda d: suggested[0] in d.find_element(By.CSS_SELECTOR, ".msg.user").text,
        "the suggestion asked",
    )


def test_a_vague_question_is_asked_back_and_answered_in_the_page(
    stack: Stack, browser: WebDriver
) -> None:
    browser.get(stack.api_url + "/")
    browser.find_element(By.ID, "question").send_keys(VAGUE, Keys.ENTER)
    until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".reply input"), "the reply field")
    asked = browser.find_element(By.CSS_SELECTOR, ".clarify").text
    assert "Which company" in asked
    # A reload while the question waits shows it again, with its reply box focused.
    browser.refresh()
    reply = until(
        browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".reply input"), "the reply field"
    )[0]
    assert browser.find_element(By.CSS_SELECTOR, ".msg.user p").text == VAGUE
    assert browser.find_element(By.CSS_SELECTOR, ".clarify").text == asked
    assert browser.switch_to.active_element == reply, "focus moves to the reply field"
    shot(browser, "04-clarifying-question-after-reload")
    assert not serious_violations(browser)

    reply.send_keys("BHP in FY2024", Keys.ENTER)
    answer = until(browser, lambda d: answers(d) and answers(d)[-1], "the answer")
    assert BHP_REVENUE_FY2024 in answer.text
    assert not browser.find_elements(By.CSS_SELECTOR, ".reply"), "the reply form is gone"
    # The question asked back and the reply stay in the conversation.
    exchange = browser.find_element(By.CSS_SELECTOR, ".msg.assistant .exchange")
    assert asked in exchange.text and "You replied: BHP in FY2024" in exchange.text
    shot(browser, "05-clarification-answered")

    # The thread continues: a follow-up in the same conversation is answered too.
    follow_up = ask(browser, "And in FY2025?")
    assert follow_up.find_elements(By.CSS_SELECTOR, "a.cite")


def test_a_clarification_can_be_cancelled_in_the_page(stack: Stack, browser: WebDriver) -> None:
    browser.get(stack.api_url + "/")
    browser.find_element(By.ID, "question").send_keys(VAGUE, Keys.ENTER)
    until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".reply input"), "the reply field")
    cancel = browser.find_element(By.XPATH, "//button[normalize-space()='Cancel question']")
    cancel.click()
    until(browser, lambda d: answers(d), "the cancelled turn's message")
    status = browser.find_element(By.CSS_SELECTOR, ".msg.assistant .status-line").text
    assert status == "Cancelled"
    # The conversation is free again.
    assert BHP_REVENUE_FY2024 in ask(browser, SINGLE).text


def test_a_comparison_of_three_companies_is_a_table(stack: Stack, browser: WebDriver) -> None:
    browser.get(stack.api_url + "/")
    answer = ask(browser, COMPARE)
    table = answer.find_element(By.CSS_SELECTOR, "table")
    rows = table.find_elements(By.CSS_SELECTOR, "tbody tr")
    names = " ".join(r.text for r in rows)
    assert len(rows) >= 3 and all(n in names for n in ("BHP", "Rio Tinto", "Fortescue"))
    assert table.find_elements(By.CSS_SELECTOR, "a.cite"), "each figure keeps its citation"
    shot(browser, "06-comparison-table")


def test_a_refusal_offers_suggestions_that_ask_when_clicked(
    stack: Stack, browser: WebDriver
) -> None:
    browser.get(stack.api_url + "/")
    refused = ask(browser, OUT_OF_SCOPE)
    message = browser.find_elements(By.CSS_SELECTOR, ".msg.assistant")[-1]
    # Drawn from the turn's status, not its text: a "Declined" box, never "Not found".
    turn = turn_json(browser, message.get_attribute("data-turn-id"))
    assert turn["status"] == "refused" and turn["status_text"] == "Declined"
    assert message.find_element(By.CSS_SELECTOR, ".badge").text == "Declined"
    assert message.find_element(By.CSS_SELECTOR, ".status-line").text == "Declined"
    assert refused.find_elements(By.CSS_SELECTOR, ".flag.declined")
    assert not message.find_elements(By.CSS_SELECTOR, ".flag.notfound")
    assert "Not found" not in message.text
    suggestion = message.find_element(By.CSS_SELECTOR, "button.suggestion")
    suggested = suggestion.text
    assert suggested.endswith("?") and "investment advice" in refused.text
    shot(browser, "07-refusal-with-suggestions")
    suggestion.click()
    until(browser, lambda d: len(answers(d)) == 2, "the suggested question's answer")
    users = [m.text for m in browser.find_elements(By.CSS_SELECTOR, ".msg.user p")]
    assert users[-1] == suggested
    assert answers(browser)[-1].find_elements(By.CSS_SELECTOR, "a.cite")


def test_a_reload_keeps_the_conversation_and_new_conversation_starts_over(
    stack: Stack, browser: WebDriver
) -> None:
    browser.get(stack.api_url + "/")
    ask(browser, SINGLE)
    ask(browser, COMPARE)
    assert "?c=" in browser.current_url
    conversation_url = browser.current_url
    browser.refresh()
    until(browser, lambda d: len(answers(d)) == 2, "the restored answers")
    users = [m.text for m in browser.find_elements(By.CSS_SELECTOR, ".msg.user p")]
    assert users == [SINGLE, COMPARE]
    assert answers(browser)[1].find_elements(By.CSS_SELECTOR, "table")
    # The page opens at the latest answer, not at the top, and each answer keeps its
    # "How this was checked" trail, read from the stored turn.
    until(browser, lambda d: in_view(d, messages(d)[-1]), "the latest answer in view")
    assert browser.execute_script("return window.scrollY") > 0
    for trail in browser.find_elements(By.CSS_SELECTOR, ".msg.assistant details.trail"):
        assert trail.is_displayed() and "How this was checked" in trail.text
        trail.find_element(By.TAG_NAME, "summary").click()
        lines = [li.text for li in trail.find_elements(By.CSS_SELECTOR, "li")]
        assert lines and all(lines), lines
        assert f"({len(lines)} step" in trail.find_element(By.TAG_NAME, "summary").text
        trail.find_element(By.TAG_NAME, "summary").click()
    # The restored answer's citations still open their previews.
    marker = answers(browser)[0].find_element(By.CSS_SELECTOR, "a.cite")
    browser.execute_script("arguments[0].focus()", marker)
    until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".popover tr.cited"), "preview")
    shot(browser, "08-after-reload")
    assert browser.current_url == conversation_url

    browser.find_element(By.ID, "new").click()
    assert "?c=" not in browser.current_url
    assert not answers(browser) and browser.find_element(By.ID, "examples").is_displayed()


def test_the_whole_flow_works_from_the_keyboard_alone(stack: Stack, browser: WebDriver) -> None:
    browser.get(stack.api_url + "/")
    # The page rebuilds its tagline and examples from the registry after it loads,
    # replacing the buttons: tabbing before then met a replaced element on a busy machine.
    default = "Checked answers from annual reports"
    until(
        browser,
        lambda d: d.find_element(By.ID, "tagline").text not in ("", default),
        "the page's registry",
    )

    def tab_to(
        predicate: Callable[[WebElement], bool], what: str, back: bool = False, limit: int = 60
    ) -> WebElement:
        for _ in range(limit):
            key = Keys.SHIFT + Keys.TAB if back else Keys.TAB
            try:
                browser.switch_to.active_element.send_keys(key)
                active = browser.switch_to.active_element
                if predicate(active):
                    return active
            except StaleElementReferenceException:
                continue  # the page re-rendered the focused element: read focus again
        raise AssertionError(f"Tab never reached {what}")

    def focus_visible(element: WebElement) -> bool:
        style = browser.execute_script(
            "const s = getComputedStyle(arguments[0]); return [s.outlineStyle, s.outlineWidth]",
            element,
        )
        return bool(style[0] != "none" and style[1] != "0px")

    # Tab to the question field and ask a vague question; the reply field takes focus.
    field = tab_to(lambda e: e.get_attribute("id") == "question", "the question field")
    assert focus_visible(field)
    field.send_keys(VAGUE, Keys.ENTER)
    until(
        browser,
        lambda d: (
            d.find_elements(By.CSS_SELECTOR, ".reply input")
            and "reply" in (d.switch_to.active_element.get_attribute("id") or "")
        ),
        "the reply field focused",
    )
    browser.switch_to.active_element.send_keys("BHP in FY2024", Keys.ENTER)
    until(browser, lambda d: answers(d), "the clarified answer")
    # Focus returns to the question field; back up to a citation marker: its preview
    # opens on focus and closes with Escape.
    until(
        browser,
        lambda d: d.switch_to.active_element.get_attribute("id") == "question",
        "focus back on the question field",
    )
    marker = tab_to(lambda e: "cite" in (e.get_attribute("class") or ""), "a citation", True)
    assert focus_visible(marker)
    until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".popover tr.cited"), "preview")
    shot(browser, "09-keyboard-citation-preview")
    marker.send_keys(Keys.ESCAPE)
    until(browser, lambda d: not d.find_elements(By.CSS_SELECTOR, ".popover"), "preview closed")
    # A new conversation, then an example question, both from the keyboard.
    new = tab_to(lambda e: e.get_attribute("id") == "new", "New conversation", back=True)
    assert focus_visible(new)
    new.send_keys(Keys.ENTER)
    until(browser, lambda d: not answers(d), "an empty conversation")
    example = tab_to(lambda e: "example" in (e.get_attribute("class") or ""), "an example")
    assert focus_visible(example)
    example.send_keys(Keys.ENTER)
    until(browser, lambda d: answers(d), "the example's answer")


def test_the_page_is_usable_390_px_wide(stack: Stack) -> None:
    driver = chromium()
    try:
        # A phone's viewport (a headless window has a minimum width wider than this).
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True},
        )
        driver.execute_cdp_cmd(
            "Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5}
        )
        with_key(driver, stack.api_url)
        assert driver.execute_script("return window.innerWidth") == 390
        answer = ask(driver, COMPARE)
        overflow = driver.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, f"the page scrolls sideways by {overflow}px at 390 px"
        send = driver.find_element(By.ID, "send")
        assert send.is_displayed() and send.rect["x"] + send.rect["width"] <= 390
        shot(driver, "10-narrow-390px")
        assert not serious_violations(driver)

        # Past conversations fold away on a phone, behind a button in the header.
        history, toggle = (
            driver.find_element(By.ID, "history"),
            driver.find_element(By.ID, "history-toggle"),
        )
        assert not history.is_displayed() and toggle.get_attribute("aria-expanded") == "false"
        tap(driver, toggle)
        until(driver, lambda d: history.is_displayed(), "the conversations opened")
        assert toggle.get_attribute("aria-expanded") == "true"
        assert COMPARE in history.text
        shot(driver, "10b-narrow-conversations")
        assert not serious_violations(driver)
        tap(driver, toggle)
        until(driver, lambda d: not history.is_displayed(), "the conversations folded")

        # A tap on [1] opens its preview where it is, instead of jumping to the source list.
        marker = answer.find_element(By.CSS_SELECTOR, "a.cite")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", marker)
        url = driver.current_url
        tap(driver, marker)
        popover = until(
            driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".popover tr.cited"), "a preview"
        )
        assert driver.current_url == url, "the tap did not follow the link"
        popover = driver.find_element(By.CSS_SELECTOR, ".popover")
        assert popover.rect["x"] >= 0 and popover.rect["x"] + popover.rect["width"] <= 390
        shot(driver, "10c-narrow-tapped-citation")
        assert not serious_violations(driver)
        # From the preview, the report opens at the cited page with the cited row marked.
        opener = popover.find_element(By.XPATH, ".//button[starts-with(., 'Open page')]")
        assert in_view(driver, opener), "the preview is not under the ask bar"
        tap(driver, opener)
        row = until(
            driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#report tr.cited"), "the report"
        )[0]
        until(driver, lambda d: row_in_dialog(d, row), "the cited row scrolled into view")
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", DARK)
        shot(driver, "10d-narrow-report-page-dark")
        assert not serious_violations(driver)
        tap(driver, driver.find_element(By.ID, "report-close"))
        until(driver, lambda d: not d.find_element(By.ID, "report").is_displayed(), "closed")
        shot(driver, "10e-narrow-dark")
        assert not serious_violations(driver)
    finally:
        driver.quit()


@pytest.mark.parametrize(
    "path, rendered",
    [
        ("/docs", ".opblock-summary-path"),
        ("/redoc", "[data-section-id^='operation/']"),
    ],
)
def test_api_docs_render_with_the_network_blocked(stack: Stack, path: str, rendered: str) -> None:
    # Every host but this machine's loopback is unreachable: no resolver, a dead proxy.
    driver = chromium(
        "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
        "--proxy-server=http://127.0.0.1:9",
    )
    try:
        driver.get(stack.api_url + path)
        operations = until(
            driver, lambda d: d.find_elements(By.CSS_SELECTOR, rendered), "the operations"
        )
        assert len(operations) >= 10
        assert "/v1/turns" in driver.page_source
        # Everything that loaded came from this server (an attempt elsewhere, such as
        # ReDoc's vendor logo, is refused by the page's CSP and loads nothing).
        loaded = driver.execute_script(
            "return performance.getEntriesByType('resource')"
            ".filter(e => e.responseStatus > 0).map(e => e.name)"
        )
        assert any("/static/docs/" in u for u in loaded), loaded
        assert all(u.startswith(stack.api_url) for u in loaded), loaded
        shot(driver, f"11-{path.strip('/')}-offline")
    finally:
        driver.quit()


def test_the_page_asks_for_the_api_key_once_and_keeps_it(stack: Stack) -> None:
    """Against a stack with API keys: a question asked without a key opens the key form;
    a wrong key is refused in words; the right one lets the same question through
    (steps from the event stream and the answer, so both carry the key), and after a
    reload the kept key is used without asking."""
    driver = chromium()
    try:
        driver.get(stack.api_url + "/")
        form = driver.find_element(By.ID, "key-form")
        assert not form.is_displayed()
        driver.find_element(By.ID, "question").send_keys(SINGLE, Keys.ENTER)
        until(driver, lambda d: d.find_element(By.ID, "key-form").is_displayed(), "the key form")
        assert driver.switch_to.active_element.get_attribute("id") == "api-key"
        shot(driver, "12-api-key-asked")
        assert not serious_violations(driver)

        driver.switch_to.active_element.send_keys("not-the-key-0123456789", Keys.ENTER)
        until(
            driver,
            lambda d: "not accepted" in d.find_element(By.ID, "key-error").text,
            "the wrong key refused",
        )
        key = driver.find_element(By.ID, "api-key")
        key.clear()
        key.send_keys(PAGE_KEY, Keys.ENTER)
        answer = until(driver, lambda d: answers(d) and answers(d)[-1], "the answer")
        assert BHP_REVENUE_FY2024 in answer.text
        assert driver.find_elements(By.CSS_SELECTOR, ".steps li.step"), "steps arrived"
        assert driver.execute_script("return localStorage.getItem(arguments[0])", KEY_STORE) == (
            PAGE_KEY
        )

        driver.refresh()
        until(driver, lambda d: len(answers(d)) == 1, "the restored answer")
        ask(driver, "And its net debt?")
        assert not driver.find_element(By.ID, "key-form").is_displayed()
        shot(driver, "13-api-key-kept")
    finally:
        driver.quit()


def test_the_page_and_the_docs_send_security_headers(stack: Stack) -> None:

    for path in ("/", "/docs", "/redoc"):
        headers = httpx.get(stack.api_url + path, timeout=10).headers
        policy = headers["content-security-policy"]
        assert "frame-ancestors 'none'" in policy and "script-src 'self'" in policy, path
        assert "unsafe-inline" not in policy.split("script-src")[1].split(";")[0], path
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["x-frame-options"] == "DENY"


def test_each_answer_comes_into_view_labelled_from_its_fields(
    stack: Stack, browser: WebDriver
) -> None:
    """Every answer lands above the fixed ask bar; the status line is the turn's
    `status_text` (never "Answered" for a turn that answered nothing) and a confidence
    below high says why (`confidence_reason`); figures the reports lack are one box drawn
    from `not_found`."""
    browser.get(stack.api_url + "/")
    # Asked in no other test: answered afresh (a turn the answer cache answers carries no
    # relevance check, so no match strength).
    first = ask(browser, FRESH)
    message = browser.find_elements(By.CSS_SELECTOR, ".msg.assistant")[-1]
    turn = turn_json(browser, message.get_attribute("data-turn-id"))
    assert (turn["status_text"], turn["confidence"]) == ("Answered", "high")
    assert message.find_element(By.CSS_SELECTOR, ".status-line").text == "Answered"
    assert not message.find_elements(By.CSS_SELECTOR, ".badges .reason")
    assert not message.find_elements(By.CSS_SELECTOR, ".flag.notfound")
    # Match strength on the sources, in words and as a bar with its number.
    meter = first.find_element(By.XPATH, "..").find_element(By.CSS_SELECTOR, ".match-item meter")
    assert 0 < float(meter.get_attribute("value")) <= 1.5
    assert "match (" in message.find_element(By.CSS_SELECTOR, ".match-item .strength").text

    ask(browser, COMPARE)
    until(browser, lambda d: in_view(d, messages(d)[-1]), "the second answer above the ask bar")
    ask(browser, ABSENT)
    until(browser, lambda d: in_view(d, messages(d)[-1]), "the third answer above the ask bar")
    message = browser.find_elements(By.CSS_SELECTOR, ".msg.assistant")[-1]
    turn = turn_json(browser, message.get_attribute("data-turn-id"))
    assert turn["not_found"] and turn["status_text"] != "Answered", turn
    assert message.find_element(By.CSS_SELECTOR, ".status-line").text == turn["status_text"]
    box = message.find_element(By.CSS_SELECTOR, ".flag.notfound")
    assert "Northern Star, FY2023" in box.text
    assert "data not found in provided documents" not in message.text, "said once, in words"
    assert turn["confidence_reason"], turn
    assert (
        message.find_element(By.CSS_SELECTOR, ".badges .reason").text == turn["confidence_reason"]
    )
    shot(browser, "14-answer-in-view-not-in-the-reports")
    assert not serious_violations(browser)


def test_an_unreachable_api_says_so_and_retries_with_the_question_kept(
    stack: Stack, browser: WebDriver
) -> None:
    browser.get(stack.api_url + "/")
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/v1/turns*"]})
    browser.find_element(By.ID, "question").send_keys(SINGLE, Keys.ENTER)
    retry = until(
        browser,
        lambda d: d.find_elements(By.CSS_SELECTOR, ".error-box button.retry"),
        "the retry button",
    )[0]
    error = browser.find_element(By.CSS_SELECTOR, ".error-box .error").text
    assert "Could not reach Turnstile" in error and "Failed to fetch" not in error
    assert browser.find_element(By.ID, "question").get_attribute("value") == SINGLE
    shot(browser, "15-unreachable-api-retry")
    assert not serious_violations(browser)

    browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    retry.click()
    answer = until(browser, lambda d: answers(d) and answers(d)[-1], "the answer on retry")
    assert BHP_REVENUE_FY2024 in answer.text
    assert len(browser.find_elements(By.CSS_SELECTOR, ".msg.user")) == 1, "asked once"
    assert not browser.find_elements(By.CSS_SELECTOR, ".error-box")
    assert browser.find_element(By.ID, "question").get_attribute("value") == ""


def test_an_answer_can_be_copied_rated_opened_at_its_page_and_shared(
    stack: Stack, browser: WebDriver
) -> None:
    browser.execute_cdp_cmd(
        "Browser.grantPermissions",
        {
            "origin": stack.api_url,
            "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"],
        },
    )
    browser.get(stack.api_url + "/")
    ask(browser, SINGLE)
    message = browser.find_elements(By.CSS_SELECTOR, ".msg.assistant")[-1]
    turn_id = message.get_attribute("data-turn-id")

    # Copy: the answer with its numbered sources, as text.
    message.find_element(By.CSS_SELECTOR, "button.copy").click()
    until(browser, lambda d: "Copied" in said(message), "copied")
    copied = browser.execute_async_script(
        "navigator.clipboard.readText().then(arguments[0], (e) => arguments[0]('failed: ' + e))"
    )
    assert BHP_REVENUE_FY2024 in copied and "[1]" in copied, copied
    assert "[1] BHP Group, FY2024 — BHP Annual Report 2024, page 4" in copied, copied

    # Feedback: "wrong figure" with a comment, stored with the turn.
    message.find_element(By.CSS_SELECTOR, "button[data-rating='wrong_figure']").click()
    box = message.find_element(By.CSS_SELECTOR, ".feedback-box")
    until(browser, lambda d: box.is_displayed(), "the comment field")
    comment = box.find_element(By.TAG_NAME, "input")
    assert browser.switch_to.active_element == comment
    shot(browser, "16-feedback-comment")
    assert not serious_violations(browser)
    comment.send_keys("The revenue looks like FY2023's", Keys.ENTER)
    until(browser, lambda d: "Thank you" in said(message), "feedback recorded")
    listed = api_call(browser, "GET", "/v1/feedback?rating=wrong_figure")
    [mine] = [f for f in json.loads(listed["body"])["items"] if f["turn_id"] == turn_id]
    assert mine["comment"] == "The revenue looks like FY2023's"

    # The report, opened at the cited page with the cited row marked and in view.
    opener = message.find_element(By.CSS_SELECTOR, "button.open-report")
    opener.click()
    row = until(
        browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#report tr.cited"), "the report"
    )[0]
    assert "Revenue" in row.text and BHP_REVENUE_FY2024 in row.text
    cited = browser.find_element(By.CSS_SELECTOR, "#report section.cited-page h3")
    assert cited.text.startswith("Page 4")
    until(browser, lambda d: row_in_dialog(d, row), "the cited row scrolled into view")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#report section.report-page")) > 4
    shot(browser, "17-report-at-the-cited-page")
    assert not serious_violations(browser)
    browser.find_element(By.ID, "report-close").click()
    assert browser.switch_to.active_element == opener

    # Share: a read-only link that opens without a key, until it is revoked.
    message.find_element(By.CSS_SELECTOR, "button.share").click()
    link = until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".share-link"), "the link")[0]
    url = link.get_attribute("value")
    assert url.startswith(stack.api_url + "/?share=")
    shot(browser, "18-share-link")
    assert not serious_violations(browser)
    reader = chromium()  # another person: no key, nothing kept
    try:
        reader.get(url)
        shared = until(reader, lambda d: answers(d) and answers(d)[-1], "the shared answer")
        assert BHP_REVENUE_FY2024 in shared.text and shared.find_elements(By.CSS_SELECTOR, "a.cite")
        assert not reader.find_element(By.ID, "ask").is_displayed()
        assert not reader.find_elements(By.CSS_SELECTOR, ".actions, .open-report")
        assert reader.find_element(By.CSS_SELECTOR, ".msg.user p").text == SINGLE
        shot(reader, "19-shared-read-only")
        assert not serious_violations(reader)
        message.find_element(By.CSS_SELECTOR, "button.revoke").click()
        until(browser, lambda d: "no longer" in said(message), "the link revoked")
        reader.refresh()
        gone = until(
            reader, lambda d: d.find_elements(By.CSS_SELECTOR, "#log .error"), "the refusal"
        )
        assert "not available" in gone[0].text and not answers(reader)
    finally:
        reader.quit()


def test_conversations_are_listed_exported_deleted_and_shown_dark(
    stack: Stack, browser: WebDriver, tmp_path: Path
) -> None:
    browser.execute_cdp_cmd(
        "Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)}
    )
    browser.get(stack.api_url + "/")
    history = browser.find_element(By.ID, "history")
    assert history.is_displayed() and "None yet" in history.text  # a column on a wide screen
    ask(browser, SINGLE)
    table_answer = ask(browser, COMPARE)
    first = browser.current_url.split("?c=")[1]

    # The comparison table as CSV, and the conversation as Markdown with its sources.
    table_answer.find_element(By.CSS_SELECTOR, "button.csv").click()
    rows = download(browser, tmp_path, "turnstile-table.csv").strip().splitlines()
    assert len(rows) >= 4 and "[" not in "".join(rows), rows
    assert all(any(name in r for r in rows) for name in ("BHP", "Rio Tinto", "Fortescue")), rows
    browser.find_element(By.ID, "export").click()
    markdown = download(browser, tmp_path, f"turnstile-{first}.md")
    assert f"## {SINGLE}" in markdown and f"## {COMPARE}" in markdown
    assert BHP_REVENUE_FY2024 in markdown
    assert "1. BHP Group, FY2024 — BHP Annual Report 2024, page 4" in markdown

    # Past conversations, kept server-side for this browser's user: open one, delete one.
    until(browser, lambda d: len(listed(d)) == 1, "listed")
    browser.find_element(By.ID, "new").click()
    ask(browser, OUT_OF_SCOPE)
    second = browser.current_url.split("?c=")[1]
    until(browser, lambda d: len(listed(d)) == 2, "two conversations")
    items = listed(browser)
    # Titled by its first question, not its latest.
    assert OUT_OF_SCOPE in items[0].text and SINGLE in items[1].text
    assert COMPARE not in items[1].text
    shot(browser, "20-conversations")
    assert not serious_violations(browser)
    items[1].find_element(By.CSS_SELECTOR, "button.open").click()
    until(browser, lambda d: len(answers(d)) == 2, "the first conversation opened")
    assert f"?c={first}" in browser.current_url
    assert [m.text for m in browser.find_elements(By.CSS_SELECTOR, ".msg.user p")] == [
        SINGLE,
        COMPARE,
    ]

    other = browser.find_elements(By.CSS_SELECTOR, "#history-list li")[0]
    other.find_element(By.CSS_SELECTOR, "button.delete").click()
    other.find_element(By.CSS_SELECTOR, "button.confirm-delete").click()
    until(browser, lambda d: len(listed(d)) == 1, "deleted")
    assert api_call(browser, "GET", f"/v1/conversations/{second}")["status"] == 404
    assert len(answers(browser)) == 2, "the open conversation is untouched"

    # Dark mode follows the system setting.
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", DARK)
    background = browser.execute_script("return getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(23, 24, 27)", background
    shot(browser, "21-dark-mode")
    assert not serious_violations(browser)
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


FIVE = "Compare the revenue of BHP, Rio Tinto, Fortescue, South32 and Northern Star in FY2025"
"""Rio Tinto's FY2025 revenue is not in its report (corpus/README.md): four figures and one
gap."""
INTERNAL = re.compile(r"\b[a-z]+_[a-z_]+\b|\bslots? differ|\bhint\b|\broute:|\bcache: (hit|miss)")
"""Words of the code, not of a person: snake_case names, the cache's and router's jargon."""
SCALED = re.compile(r"(US\$|A\$)\s?[\d.,]+\s*(billion|million|bn|m)\b", re.I)


def test_a_comparison_of_five_names_each_company_in_one_table_in_plain_words(
    stack: Stack, browser: WebDriver
) -> None:
    """Every company asked about has its row, the one whose report lacks the figure too
    (said there, not only in a line below); names, not tickers; one scale per currency
    in the table; and the steps of "How this was checked" in a person's words."""
    browser.get(stack.api_url + "/")
    answer = ask(browser, FIVE)
    message = messages(browser)[-1]
    turn = turn_json(browser, message.get_attribute("data-turn-id"))
    rows = answer.find_elements(By.CSS_SELECTOR, "table tbody tr")
    named = [r.find_elements(By.CSS_SELECTOR, "td, th")[0].text for r in rows]
    companies = ["BHP Group", "Rio Tinto", "Fortescue", "South32", "Northern Star"]
    assert all(any(c in n for n in named) for c in companies), named
    assert not any(re.fullmatch(r"(BHP|RIO|FMG|S32|NST)", n.strip()) for n in named), named
    [rio] = [r for r in rows if "Rio Tinto" in r.text]
    assert not re.search(r"\d{2},\d{3}|\d+\.\d+ (billion|million)", rio.text), rio.text
    assert [(g["company"], g["fiscal_year"]) for g in turn["not_found"]] == [("RIO", 2025)]
    box = message.find_element(By.CSS_SELECTOR, ".flag.notfound").text
    assert "Rio Tinto, FY2025" in box and "RIO" not in box, (
        box,
        browser.execute_script("return [COMPANY, String(TICKERS)]"),
    )
    table = " ".join(r.text for r in rows)
    for currency in ("US$", "A$"):
        scales = {m.group(2).lower()[:1] for m in SCALED.finditer(table) if m.group(1) == currency}
        assert len(scales) <= 1, (currency, scales, table)
    steps = message.find_elements(By.CSS_SELECTOR, ".trail li")
    assert steps, "the trail lists the steps"
    said = "\n".join(s.get_attribute("textContent") for s in steps)
    assert not INTERNAL.search(said), INTERNAL.search(said)
    shot(browser, "22-comparison-of-five")
    assert not serious_violations(browser)
