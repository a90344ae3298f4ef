"""Search attributes operators filter turns on in the Temporal UI (never user text or PII)."""

from temporalio.common import SearchAttributeKey, SearchAttributePair, TypedSearchAttributes

CONVERSATION = SearchAttributeKey.for_keyword("TurnstileConversation")
ROUTE = SearchAttributeKey.for_keyword("TurnstileRoute")
OUTCOME = SearchAttributeKey.for_keyword("TurnstileOutcome")
CONFIDENCE = SearchAttributeKey.for_keyword("TurnstileConfidence")
TENANT = SearchAttributeKey.for_keyword("TurnstileTenant")
FALLBACK = SearchAttributeKey.for_keyword("TurnstileFallback")
"""Why a turn fell back: one of the final gate's reason codes."""

ALL = (CONVERSATION, ROUTE, OUTCOME, CONFIDENCE, TENANT, FALLBACK)


def at_start(conversation_id: str, tenant_id: str | None = None) -> TypedSearchAttributes:
    """The attributes a turn starts with (set by whoever starts it, so the workflow need
    not record an upsert for them: one history event less per turn)."""
    pairs = [SearchAttributePair(CONVERSATION, conversation_id)]
    if tenant_id is not None:
        pairs.append(SearchAttributePair(TENANT, tenant_id))
    return TypedSearchAttributes(pairs)
