"""Cohere rerank (v2) over the fused candidates of a search: 20 in, the best 8 out.

Optional: without a Cohere key there is no reranker and search keeps Qdrant's fused
(RRF) order. A reranker failure never fails a search — the fused order is a working
order — but it is recorded (the search result's `degraded`, then the turn's). A
throttled answer (429/503) that asks to wait briefly is honoured once; a longer wait
falls back at once, so a rate limit never stalls a turn.
"""

import time
from dataclasses import dataclass

from temporalio.exceptions import ApplicationError

from backends.engines.provider_errors import classify_cohere

RERANK_POOL = 20
"""Fused candidates handed to the reranker for each search."""
MAX_WAIT_SECONDS = 2.0
"""The longest Retry-After honoured inside a search; a longer one falls back at once."""


class RerankUnavailable(Exception):
    """The reranker could not order the candidates; `str()` says why, in one line."""


@dataclass
class CohereReranker:
    api_key: str
    model: str = "rerank-v3.5"
    base_url: str | None = None
    timeout_seconds: float = 10.0

    def __post_init__(self) -> None:
        import cohere

        kwargs: dict[str, object] = {"api_key": self.api_key, "timeout": self.timeout_seconds}
        if self.base_url:
            kwargs["base_url"] = self.base_url
        self._client = cohere.ClientV2(**kwargs)  # type: ignore[arg-type]
        self.calls = 0

    def order(self, query: str, documents: list[str], top_n: int) -> list[int]:
        """The indices of `documents`, best first, at most `top_n` of them."""
        for attempt in (1, 2):
            self.calls += 1
            try:
                answer = self._client.rerank(
                    model=self.model,
                    query=query,
                    documents=documents,
                    top_n=min(top_n, len(documents)),
                    request_options={"max_retries": 0},  # a search never waits on retries
                )
            except Exception as err:  # classified below; any failure falls back
                failure: ApplicationError = classify_cohere(err)
                delay = failure.next_retry_delay
                if attempt == 1 and delay is not None and delay.total_seconds() <= MAX_WAIT_SECONDS:
                    time.sleep(delay.total_seconds())
                    continue
                raise RerankUnavailable(failure.message) from err
            indices = [r.index for r in answer.results if 0 <= r.index < len(documents)]
            return list(dict.fromkeys(indices))[:top_n]
        raise RerankUnavailable("still throttled after waiting")  # pragma: no cover
