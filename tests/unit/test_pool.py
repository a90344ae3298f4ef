"""The pool's reconnect delay has a ceiling (psycopg_pool's own doubles without one)."""

import psycopg_pool.pool_async as pool_async

from db.pool import RECONNECT_CEILING_SECONDS, make_pool


def test_reconnect_delay_stops_growing_at_the_ceiling() -> None:
    make_pool("postgresql://nobody@127.0.0.1:1/none")  # unopened: connects to nothing
    attempt = pool_async.AttemptWithBackoff(timeout=300.0)
    delays = []
    for second in range(12):
        attempt.update_delay(float(second))
        delays.append(attempt.delay)
    assert max(delays) <= RECONNECT_CEILING_SECONDS
    assert delays[0] < delays[1], "it still backs off below the ceiling"


def test_without_the_ceiling_the_library_delay_would_keep_doubling() -> None:
    from psycopg_pool.base import AttemptWithBackoff

    attempt = AttemptWithBackoff(timeout=300.0)
    for second in range(6):
        attempt.update_delay(float(second))
    assert attempt.delay > RECONNECT_CEILING_SECONDS * 4
