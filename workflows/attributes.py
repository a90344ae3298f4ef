"""Search attributes operators filter turns on in the Temporal UI (never user text or PII)."""

from temporalio.common import SearchAttributeKey

CONVERSATION = SearchAttributeKey.for_keyword("TurnstileConversation")
ROUTE = SearchAttributeKey.for_keyword("TurnstileRoute")
OUTCOME = SearchAttributeKey.for_keyword("TurnstileOutcome")
CONFIDENCE = SearchAttributeKey.for_keyword("TurnstileConfidence")

ALL = (CONVERSATION, ROUTE, OUTCOME, CONFIDENCE)
