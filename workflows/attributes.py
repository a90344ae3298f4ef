"""Search attributes operators filter turns on in the Temporal UI (never user text or PII)."""

from temporalio.common import SearchAttributeKey, SearchAttributePair, TypedSearchAttributes

CONVERSATION = SearchAttributeKey.for_keyword("TurnstileConversation")
ROUTE = SearchAttributeKey.for_keyword("TurnstileRoute")
OUTCOME = SearchAttributeKey.for_keyword("TurnstileOutcome")
CONFIDENCE = SearchAttributeKey.for_keyword("TurnstileConfidence")

ALL = (CONVERSATION, ROUTE, OUTCOME, CONFIDENCE)


def at_start(conversation_id: str) -> TypedSearchAttributes:
    """The attributes a turn starts with (set by whoever starts it, so the workflow need
    not record an upsert for them: one history event less per turn)."""
    return TypedSearchAttributes([SearchAttributePair(CONVERSATION, conversation_id)])
