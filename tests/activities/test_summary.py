"""The conversation summary over many rounds, on real PostgreSQL with the offline engine:
each round's increment is merged into the summary before it (one line per fact), so a
fact from the first round is still there rounds later, and the summary stays bounded."""

from psycopg_pool import AsyncConnectionPool
from temporalio.testing import ActivityEnvironment

from activities.contracts import SummarizeRequest
from backends.engines.offline.engine import OfflineEngine
from backends.memory import MemoryActivities
from db import memory, turns
from domain.memory.rules import SUMMARY_CHARS
from domain.turns import TurnResult
from tests.conftest import unique

FIRST = (
    "What was BHP's revenue in FY2024?",
    "BHP Group's revenue for FY2024 (year ended 30 June 2024) was US$55,658 million [1].",
)
EARLY = [
    (
        "What was Rio Tinto's net debt in FY2024?",
        "Rio Tinto's net debt at 31 December 2024 was US$5,491 million [1].",
    ),
    (
        "What was Fortescue's underlying EBITDA in FY2023?",
        "Fortescue's underlying EBITDA for FY2023 was US$10,569 million [2].",
    ),
    (
        "What was South32's revenue in FY2025?",
        "South32's revenue for FY2025 was US$5,646 million [1].",
    ),
    (
        "What was Northern Star's revenue in FY2024?",
        "Northern Star's revenue for FY2024 was A$4,922 million [1].",
    ),
    (
        "What was BHP's capital expenditure in FY2023?",
        "BHP's capital expenditure for FY2023 was US$7,083 million [3].",
    ),
]


def follow_up(round_: int, n: int) -> tuple[str, str]:
    """A long exchange going over facts already given: the kind of later talk that filled
    a re-compressed summary and pushed the first round's facts out of it."""
    facts = [
        ("Rio Tinto's net debt", "at 31 December 2024", "US$5,491 million"),
        ("Fortescue's underlying EBITDA", "for FY2023", "US$10,569 million"),
        ("South32's revenue", "for FY2025", "US$5,646 million"),
        ("Northern Star's revenue", "for FY2024", "A$4,922 million"),
    ]
    measure, when, value = facts[n % len(facts)]
    return (
        f"Can you remind me of {measure} {when} (round {round_})?",
        f"As the report says, {measure} {when} was {value}, the figure stated in the "
        f"financial statements and in the operating and financial review, where it is set "
        f"against the prior period with the movements in working capital, the exchange "
        f"rate effects and the portfolio changes explained line by line [1].",
    )


async def say(pool: AsyncConnectionPool, conversation: str | None, q: str, a: str) -> TurnResult:
    async with pool.connection() as conn:
        alloc = await turns.allocate_turn(conn, conversation, None, q)
        result = TurnResult(
            turn_id=alloc.turn_id,
            conversation_id=alloc.conversation_id,
            status="answered",
            question=q,
            answer=a,
        )
        await turns.save_turn(conn, result, final=True)
    return result


async def test_a_first_round_fact_survives_rounds_of_later_talk_within_the_bound(
    pool: AsyncConnectionPool,
) -> None:
    summarise = MemoryActivities(pool, OfflineEngine()).summarize_history
    first = await say(pool, unique("c"), *FIRST)
    conversation = first.conversation_id
    for q, a in EARLY:
        await say(pool, conversation, q, a)
    summaries: list[str] = []
    for round_ in range(1, 5):
        if round_ > 1:
            for n in range(4):
                await say(pool, conversation, *follow_up(round_, n))
        seq = 7 + 4 * (round_ - 1)
        done = await ActivityEnvironment().run(
            summarise, SummarizeRequest(conversation_id=conversation, seq=seq)
        )
        assert done.summarised == 8, (round_, done)
        summaries.append(done.summary or "")
    async with pool.connection() as conn:
        stored = await memory.latest_summary(conn, conversation)
    assert stored == summaries[-1]
    assert all(len(s) <= SUMMARY_CHARS for s in summaries), [len(s) for s in summaries]
    assert "US$55,658 million" in summaries[-1], summaries[-1]  # the first round's fact
    # One line per fact: the four facts gone over again each round are one line each.
    assert sum("Rio Tinto's net debt" in line for line in summaries[-1].splitlines()) == 1
    assert "[1]" not in summaries[-1]  # markers numbered other turns' sources
