"""How long a turn and each of its model calls may take: one set of numbers, so the
workflow's step options, the worker's model client and the settings fit together.

A model step makes one model call per attempt (the client's own retries are off), so its
start-to-close must hold the model timeout, and its schedule-to-close every attempt the
retry policy allows. The whole answering work of a turn has a budget on top: a step is
never given longer than what is left of it, and a turn whose budget is spent before a
draft settles with the explicit "the model provider did not answer in time" fallback.
"""

MODEL_STEP_SECONDS = 75.0
"""Start-to-close of every model step: one call, up to the longest model timeout."""
MODEL_CALL_MARGIN_SECONDS = 5.0
"""What a model step keeps beyond its call (loading the evidence, the heartbeat)."""
MAX_MODEL_TIMEOUT_SECONDS = MODEL_STEP_SECONDS - MODEL_CALL_MARGIN_SECONDS
MODEL_STEP_ATTEMPTS = 3
"""Attempts of a model step (Temporal's retries of one step)."""
MODEL_STEP_TOTAL_SECONDS = MODEL_STEP_SECONDS * MODEL_STEP_ATTEMPTS + 15.0
"""Schedule-to-close of a model step: every attempt at its longest, plus the backoffs."""
TURN_BUDGET_SECONDS = 90.0
"""The default budget of a turn's answering work (TURNSTILE_TURN_BUDGET_SECONDS)."""
SETTLE_MARGIN_SECONDS = 10.0
"""A turn settles within its budget plus this: the checks and the save after it."""
MIN_STEP_SECONDS = 1.0
"""A step is not started with less than this left of the budget: it could not finish."""
