"""Records for people: a turn's decision record, readers' feedback and past
conversations, as `turnstile audit show`, `turnstile feedback` and `turnstile
conversations` print them (each also has `--json` for the API's own body)."""

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from domain.evaluation.feedback import rating_words


def _when(stamp: object) -> str:
    """An API timestamp ("2026-12-03T18:00:01.2+00:00") to the minute, in UTC."""
    text = str(stamp or "")
    return text[:16].replace("T", " ") + (" UTC" if text.endswith(("+00:00", "Z")) else "")


def _words(value: object) -> str:
    return str(value).replace("_", " ") if value is not None else "-"


def render_record(shown: Mapping[str, Any]) -> str:
    """One turn's decision record in reading order: what was decided and shown, what each
    check found, what was cited (and whether the index still holds it), what failed or
    degraded, then readers' feedback and the chain."""
    # long: a record's sections in the order a reviewer reads them; each is a few lines.
    record: Mapping[str, Any] = shown.get("record") or {}
    checks: Mapping[str, Any] = record.get("checks") or {}
    lines = [
        f"Decision record #{shown.get('seq')} of turn {shown.get('turn_id')}"
        f" (conversation {shown.get('conversation_id')}), {_when(shown.get('recorded_at'))}",
        f"status {_words(record.get('status'))} · route {_words(record.get('route'))}"
        f" · confidence {_words(record.get('confidence'))}",
    ]
    if record.get("resolved_question"):
        lines.append(f"question as understood: {record['resolved_question']}")
    for key in ("refusal_reason", "fallback_reason", "failure_reason"):
        if record.get(key):
            lines.append(f"{_words(key)}: {_words(record[key])}")
    lines += _shown_lines(record.get("shown") or [])
    results = record.get("check_results") or []
    if results:
        lines.append("checks:")
        width = max(len(_words(r.get("check"))) for r in results)
        lines += [f"  {_words(r.get('check')):{width}}  {r.get('result')}" for r in results]
    for gap in checks.get("not_found") or []:
        lines.append(f"  not found: {gap}")
    for claim in checks.get("unsupported_claims") or []:
        lines.append(f"  could not verify: {claim.get('label')} ({_words(claim.get('reason'))})")
    for warning in checks.get("warnings") or []:
        lines.append(f"  warning: {warning}")
    lines += _cited_lines(record, shown.get("passages") or [])
    for degraded in record.get("degradations") or []:
        lines.append(f"degraded: {_words(degraded.get('layer'))} ({degraded.get('reason', '')})")
    for failure in record.get("step_failures") or []:
        lines.append(f"step failed: {failure.get('step')} ({failure.get('reason', '')})")
    tail = [f"corpus {record.get('corpus_version') or '-'}"]
    if record.get("seconds") is not None:
        tail.append(f"{record['seconds']} s")
    if record.get("model_calls"):
        tail.append(f"{record['model_calls']} model calls")
    if record.get("retries"):
        tail.append(f"{record['retries']} retries")
    lines.append(" · ".join(tail))
    lines += _feedback_lines(shown.get("feedback") or [], indent="  ", header="feedback:")
    lines.append(f"chain: {str(shown.get('prev_hash'))[:12]} → {str(shown.get('hash'))[:12]}")
    return "\n".join(lines)


def _shown_lines(shown: Sequence[Mapping[str, Any]]) -> list[str]:
    """Each text the person was shown, as stored (personal values as tokens), with the
    start of its SHA-256 (records from before they kept it have none)."""
    lines = []
    for item in shown:
        kind = _words(item.get("kind"))
        if item.get("round"):
            kind += f", round {item['round']}"
        lines.append(f"shown ({kind}, sha256 {str(item.get('sha256'))[:12]}):")
        lines += [f"  {line}" for line in str(item.get("text", "")).splitlines() or [""]]
    return lines


def _cited_lines(record: Mapping[str, Any], passages: Sequence[Mapping[str, Any]]) -> list[str]:
    """The cited passages, each with what the index holds of it today, and the versions
    of the reports the turn's evidence came from."""
    citations = record.get("citations") or []
    if not citations:
        return []
    today = {p.get("n"): p for p in passages}
    lines = ["cited (and whether the index holds the same text today):" if today else "cited:"]
    for c in citations:
        line = (
            f"  [{c.get('n')}] {c.get('company')} FY{c.get('fiscal_year')}, {c.get('document')},"
            f" p.{c.get('page')} (chunk {c.get('chunk_id')})"
        )
        check = today.get(c.get("n"))
        if check is not None:
            status = str(check.get("status"))
            line += f": {status.upper() if status in ('changed', 'gone') else status}"
            if status != "unchanged":
                line += f" ({check.get('detail')})"
        lines.append(line)
    counted = Counter(str(p.get("status")) for p in passages)
    if counted:
        order = ("changed", "gone", "unknown", "unchanged")
        lines.append("  today: " + ", ".join(f"{counted[k]} {k}" for k in order if counted[k]))
    versions = sorted(
        {
            (v["document_id"], v["document_version"])
            for e in record.get("evidence") or []
            if (v := e.get("version"))
        }
    )
    if versions:
        lines.append("evidence from: " + ", ".join(f"{d} (version {h})" for d, h in versions))
    return lines


def _feedback_lines(items: Sequence[Mapping[str, Any]], indent: str, header: str) -> list[str]:
    if not items:
        return []
    lines = [header]
    for item in items:
        who = f" by {item['user_id']}" if item.get("user_id") else ""
        comment = f': "{item["comment"]}"' if item.get("comment") else ""
        lines.append(
            f"{indent}{_when(item.get('created_at'))} {rating_words(str(item.get('rating')))}"
            f"{who}{comment}"
        )
    return lines


def render_feedback(items: Sequence[Mapping[str, Any]]) -> str:
    """`turnstile feedback`: latest first, each with its turn and question."""
    if not items:
        return "no feedback yet"
    lines = []
    for item in items:
        who = f" by {item['user_id']}" if item.get("user_id") else ""
        lines.append(
            f"{_when(item.get('created_at'))}  {rating_words(str(item.get('rating')))}{who}"
            f"  {item.get('turn_id')}"
        )
        lines.append(f"  asked: {item.get('question')}")
        if item.get("comment"):
            lines.append(f"  said: {item['comment']}")
    return "\n".join(lines)


def render_conversations(items: Sequence[Mapping[str, Any]]) -> str:
    """`turnstile conversations`: one line each, the latest active first, with how to go on."""
    if not items:
        return "no conversations yet"
    lines = []
    for item in items:
        turns = item.get("turns")
        lines.append(
            f"{item.get('conversation_id')}  {_when(item.get('updated_at'))}  {turns} turn"
            f"{'' if turns == 1 else 's'}  {_words(item.get('last_status'))}:"
            f" {item.get('last_question')}"
        )
    lines.append("(continue one with: turnstile chat --conversation ID)")
    return "\n".join(lines)
