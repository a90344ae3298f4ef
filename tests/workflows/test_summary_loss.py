"""What the summary buffer keeps (issue 45 item 8): conversations whose later turns need an
early figure, asked as real turns (offline engine, real worker, PostgreSQL, Temporal),
scored with and without the summary (`evals/summary_loss.py`)."""

from collections.abc import Callable

from psycopg_pool import AsyncConnectionPool

from db import memory
from db import turns as turn_store
from evals.cases import load_suites
from evals.summary_loss import Kept, conversations, score
from tests.conftest import Turns, TurnWorker, unique

COUNT, LENGTH = 4, 9
"""Nine questions a conversation: the seventh turn's start summarises the first answers,
and the last four messages hold only the last two turns."""


async def test_the_summary_keeps_early_figures_the_last_messages_have_lost(
    turn_worker: TurnWorker, turns_on: Callable[[str], Turns], pool: AsyncConnectionPool
) -> None:
    kept: list[Kept] = []
    async with turn_worker() as tq:
        t = turns_on(tq)
        for conversation in conversations(load_suites(["typed"])["typed"], COUNT, LENGTH):
            conversation_id = unique("c")
            answers = []
            for question in conversation.questions:
                result = await t.ask(question, conversation_id)
                answers.append(result.answer or "")
            async with pool.connection() as conn:
                summary = await memory.latest_summary(conn, conversation_id)
                recent = await turn_store.recent_messages(conn, conversation_id, LENGTH + 1)
                covered = await (
                    await conn.execute(
                        "SELECT count(*) FROM messages WHERE conversation_id = %s"
                        " AND summary_id IS NOT NULL",
                        (conversation_id,),
                    )
                ).fetchone()
            texts = [m.text for m in recent]
            summarised_turns = (covered[0] if covered else 0) // 2
            kept.append(score(conversation, answers, summary, texts, summarised_turns))
    early = sum(k.early for k in kept)
    with_summary = sum(k.with_summary for k in kept)
    without = sum(k.without_summary for k in kept)
    dropped, waiting = sum(k.dropped for k in kept), sum(k.waiting for k in kept)
    print(
        f"early figures {early}: kept with the summary {with_summary}, without {without};"
        f" dropped by the summary {dropped}, waiting for the next summary {waiting}"
    )
    assert early >= COUNT * 4  # the conversations did give early figures to keep
    # The summary keeps every figure of the answers it covers (one line per fact, merged,
    # bounded: docs/memory.md); the last messages alone keep almost none.
    assert dropped == 0, kept
    assert with_summary > 2 * without, kept
