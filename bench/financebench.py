"""FinanceBench beside its published peers: ingest the filings, ask each question, score.

    .venv/bin/python -m bench.financebench FOLDER [--api-url URL] [--home DIR]
                                           [--ids ID,ID] [--json] [--answers FILE]

FOLDER holds FinanceBench questions as `dev.jsonl` (one JSON object a line: `id`,
`doc_name`, `company`, `question_type`, `question`, `answer`), their filings as
`pdfs/<doc_name>.pdf`, and `PEERS.md`, the peer systems' human-labelled scores on the
same questions. FinanceBench (Islam et al. 2023, arXiv:2311.11944) is Patronus AI's
public sample: github.com/patronus-ai/financebench (the questions are CC BY-NC 4.0 on
Hugging Face). Only ever point this at a development split: the evaluation half is not
to be tuned on.

Unless `--api-url` is given it starts an embedded stack of its own (a temporary
TURNSTILE_HOME, free ports, the ingest directory set to FOLDER), ingests each filing
through the API as a user would (`turnstile ingest filing.pdf`, no flags: who and when
are read from the filing's first pages; a filing that does not say them, an 8-K or an
earnings release, is ingested again with the company and the year of its name), asks
every question in a conversation of its own with the answer cache off, and labels each
answer (`evals.financebench`: a figure gold is scored automatically, with the tolerance
and unit rules written there; a sentence gold is labelled answered or declined, and
listed for a person to judge). One report per company and year is held at a time: a
question about a filing whose company and year another filing holds re-ingests its own
(`replace`) before it is asked.

It prints correct / wrong / declined per question type beside PEERS.md's figures for
the same questions, wrong answers by confidence, and the ingest time per page.
"""

import argparse
import json
import re
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import httpx

from bench import common
from evals.financebench import label
from settings import Settings
from stack import embedded

TYPES = ("metrics-generated", "domain-relevant", "novel-generated")
PEER_MODES = ("singleStore", "sharedStore", "oracle")


def load_questions(folder: Path, ids: set[str] | None) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (folder / "dev.jsonl").read_text().splitlines() if line]
    return [r for r in rows if ids is None or r["id"] in ids]


def peer_scores(folder: Path) -> dict[tuple[str, str], str]:
    """PEERS.md's per-type rows of gpt-4-1106-preview: (mode, type) → "10 (45.5%)"."""
    found: dict[tuple[str, str], str] = {}
    path = folder / "PEERS.md"
    if not path.is_file():
        return found
    for line in path.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[0].startswith("gpt-4-1106-preview_") and cells[1] in TYPES:
            found[(cells[0].split("_", 1)[1], cells[1])] = cells[3]
    return found


def _year(doc_name: str) -> int:
    match = re.search(r"_(\d{4})", doc_name)
    if match is None:
        raise ValueError(f"no year in {doc_name}")
    return int(match.group(1))


def _post_ingest(
    http: httpx.Client,
    path: Path,
    company: str | None,
    year: int | None,
    replace: bool,
    name: str | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {"paths": [str(path)], "replace": replace}
    if name:
        body["details"] = {"name": name, "currency": "US$", "year_end": "12-31"}
    if company:
        body["company"] = company
    if year:
        body["fiscal_year"] = year
    response = http.post("/v1/ingest", json=body, timeout=1800)
    response.raise_for_status()
    result: dict[str, Any] = response.json()["files"][0]
    return result


def ingest(
    http: httpx.Client, folder: Path, questions: list[dict[str, Any]], say: Any
) -> dict[str, Any]:
    """Each filing once, annual reports first (a later quarterly report of the same
    company then knows its fiscal calendar); the outcome and seconds per filing."""
    docs = sorted({q["doc_name"]: q["company"] for q in questions}.items())
    docs.sort(key=lambda d: ("10K" not in d[0], d[0]))
    outcome: dict[str, Any] = {}
    for doc, company in docs:
        path = (folder / "pdfs" / f"{doc}.pdf").resolve()
        t0 = time.monotonic()
        result = _post_ingest(http, path, None, None, False)
        flags = None
        if result["status"] == "failed" and "could not tell" in (result.get("error") or ""):
            # A filing that does not say who and when (an 8-K, an earnings release): as a
            # user would, name the company (a new one with its name) and the year.
            flags = (company, _year(doc))
            result = _post_ingest(http, path, company, _year(doc), False)
            if result["status"] == "failed" and "unknown company" in (result.get("error") or ""):
                ticker = re.sub(r"[^A-Z0-9]", "", company.upper())[:10]
                flags = (ticker, _year(doc))
                result = _post_ingest(http, path, ticker, _year(doc), False, company)
        seconds = time.monotonic() - t0
        outcome[doc] = {**result, "seconds": round(seconds, 1), "flags": flags}
        said = result.get("identified") or result.get("error") or ""
        say(
            f"{doc}: {result['status']} in {seconds:.0f}s, {result.get('chunks', 0)} chunks; {said}"
        )
    return outcome


def _settled(http: httpx.Client, response: httpx.Response) -> dict[str, Any]:
    """The turn's result once it is no longer running (a 202 is polled)."""
    if response.status_code == 202:
        location = response.headers["Location"]
        for _ in range(600):
            time.sleep(0.5)
            polled = http.get(location, timeout=60)
            if polled.json().get("status") not in ("running", None):
                response = polled
                break
    result: dict[str, Any] = response.json()
    return result


START_ATTEMPTS = 4
"""How many times a turn's start is sent when the API answers 503 (the same key each time)."""


def ask(http: httpx.Client, question: str, company: str = "") -> dict[str, Any]:
    """One question in a conversation of its own. A clarifying question is answered once,
    as the person asking would: with the company of the filing the question is about
    (FinanceBench asks some without naming it: "Was there any drop in Cash & Cash
    equivalents between FY 2023 and Q2 of FY2024?")."""
    conversation = f"fb-{uuid.uuid4().hex[:12]}"
    # As the API asks of a 503 ("may or may not have started; retry with the same
    # Idempotency-Key"): the same key again, so a turn that did start is read, not
    # asked twice (a 2-core machine under load answered one start so).
    key = uuid.uuid4().hex
    for attempt in range(START_ATTEMPTS):
        response = http.post(
            "/v1/turns",
            json={"conversation_id": conversation, "question": question},
            headers={"Cache-Control": "no-cache", "Idempotency-Key": key},
            timeout=300,
        )
        if response.status_code != 503 or attempt == START_ATTEMPTS - 1:
            break
        time.sleep(float(response.headers.get("Retry-After", "2")))
    result = _settled(http, response)
    if result.get("status") == "needs_clarification" and company:
        reply = http.post(
            f"/v1/turns/{result['turn_id']}/clarification", json={"reply": company}, timeout=300
        )
        result = {**_settled(http, reply), "clarified": result.get("clarifying_question")}
    return result


def run(
    http: httpx.Client, folder: Path, questions: list[dict[str, Any]], say: Any, asked_only: bool
) -> dict[str, Any]:
    started = time.monotonic()
    ingested = {} if asked_only else ingest(http, folder, questions, say)
    ingest_seconds = time.monotonic() - started
    current: dict[str, str] = {}  # document id → the filing it holds now
    rows = []
    for q in questions:
        doc = q["doc_name"]
        held = ingested.get(doc, {})
        document_id = held.get("document_id")
        if document_id and (current.get(document_id, doc) != doc or held["status"] == "refused"):
            # Another filing of the company and year is held: this question's replaces it.
            flags = held.get("flags") or (None, None)
            _post_ingest(http, (folder / "pdfs" / f"{doc}.pdf").resolve(), *flags, True)
            held["status"] = "replaced"
        if document_id:
            current[document_id] = doc
        turn = ask(http, q["question"], q["company"])
        answer = turn.get("answer") or ""
        status = turn.get("status", "error")
        verdict = label(q["answer"], q["question"], status, answer)
        rows.append(
            {
                "id": q["id"],
                "type": q["question_type"],
                "doc": doc,
                "question": q["question"],
                "gold": q["answer"],
                "status": status,
                "confidence": turn.get("confidence"),
                "answer": answer,
                "label": verdict,
                "clarified": turn.get("clarified"),
            }
        )
        say(f"{q['id']} {verdict} ({status}, {turn.get('confidence')})")
    return {"ingest": ingested, "ingest_seconds": round(ingest_seconds, 1), "rows": rows}


def render(report: dict[str, Any], peers: dict[tuple[str, str], str]) -> str:
    rows = report["rows"]
    by_type: dict[str, Counter[str]] = defaultdict(Counter)
    for r in rows:
        by_type[r["type"]][r["label"]] += 1
        by_type["all"][r["label"]] += 1
    lines = [
        "| question type | n | correct | wrong | declined | answered, to judge | peers: "
        "per-document store / one store / evidence given (correct) |",
        "|---|---|---|---|---|---|---|",
    ]
    for kind in (*TYPES, "all"):
        c = by_type[kind]
        n = sum(c.values())
        if not n:
            continue
        peer = " / ".join(peers.get((m, kind), "–") for m in PEER_MODES)

        def pct(k: str, c: Counter[str] = c, n: int = n) -> str:
            return f"{c[k]} ({100 * c[k] / n:.1f}%)"

        lines.append(
            f"| {kind} | {n} | {pct('correct')} | {pct('wrong')} | {pct('declined')} | "
            f"{c['answered']} | {peer if kind != 'all' else '47.7% / 16.9% / 84.6%'} |"
        )
    wrong = Counter(r["confidence"] for r in rows if r["label"] == "wrong")
    lines.append("")
    lines.append(f"wrong answers by confidence: {dict(wrong) or 'none'}")
    pages = sum(i.get("pages", 0) for i in report["ingest"].values())
    lines.append(
        f"ingest: {len(report['ingest'])} filings in {report['ingest_seconds']:.0f}s"
        + (f" ({pages} pages)" if pages else "")
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("folder", type=Path, help="dev.jsonl, pdfs/ and PEERS.md")
    parser.add_argument("--api-url", help="use this running API (its ingest directory: FOLDER)")
    parser.add_argument("--home", type=Path, help="TURNSTILE_HOME for the stack (kept)")
    parser.add_argument("--ids", help="only these question ids, comma-separated")
    parser.add_argument("--json", action="store_true", help="print the whole report as JSON")
    parser.add_argument("--answers", type=Path, help="write every answer here (JSON lines)")
    parser.add_argument(
        "--ask-only",
        action="store_true",
        help="with --api-url: the stack holds the filings already; only ask (one filing per"
        " company and year is then whichever was ingested last)",
    )
    args = parser.parse_args(argv)
    folder = args.folder.resolve()
    ids = set(args.ids.split(",")) if args.ids else None
    questions = load_questions(folder, ids)

    def say(message: str) -> None:
        print(f"[financebench] {message}", file=sys.stderr, flush=True)

    settings: Settings | None = None
    try:
        if args.api_url is None:
            home = args.home.resolve() if args.home else Path(tempfile.mkdtemp(prefix="tsfb-"))
            home.mkdir(parents=True, exist_ok=True)
            settings = common.isolated_settings(home, "financebench", ingest_dir=folder)
            say(f"starting a stack in {home} (API {settings.api_url})")
            embedded.up(settings, say)
            api_url = settings.api_url
        else:
            api_url = args.api_url
        with httpx.Client(base_url=api_url) as http:
            report = run(http, folder, questions, say, args.ask_only)
    finally:
        if settings is not None:
            embedded.down(settings, say)
    if args.answers:
        args.answers.write_text("".join(json.dumps(r) + "\n" for r in report["rows"]))
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(render(report, peer_scores(folder)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
