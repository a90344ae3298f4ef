"""The rooms of a chat turn: ChatTurn (`workflows/chat_turn.py`) orchestrates, and each
concern of its state lives here in a small typed object of its own.

- `errors`: what a failed step raises, and the name of its cause.
- `progress`: the decision lines and the progress stream watchers read.
- `ledger`: what the turn retrieved, kept, degraded and failed, and its model calls.
- `budget`: the turn's answering budget.
- `rounds`: the clarification rounds (reply, cancel, settled).
- `memory`: the conversation's summary, the user's preferences and the answer cache.
- `steps`: every step with I/O, each a method named by its step, with its fail-open or
  fail-closed handling.
- `passes`: the retrieval passes (search, grade, draft, check, redraft, retry).
- `answer`: a pass composed into an outcome; a cached answer reused.
- `outcome`: the one outcome type, from the passes to the TurnResult.
"""
