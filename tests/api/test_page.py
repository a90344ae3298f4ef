"""The chat page is served and renders answers as text, never as HTML."""

import httpx


async def test_chat_page_is_served_with_its_form(api_client: httpx.AsyncClient) -> None:
    response = await api_client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    page = response.text
    assert (
        'id="ask"' in page
        and 'for="question"' in page
        and "/v1/turns" in page
        and "/clarification" in page
    )


async def test_chat_page_never_injects_answer_text_as_html(api_client: httpx.AsyncClient) -> None:
    page = (await api_client.get("/")).text
    assert "innerHTML" not in page.replace("never innerHTML", "")
    assert "textContent" in page
