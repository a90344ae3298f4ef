"""`turnstile`: run the embedded stack, then ask, chat, search, ingest, audit, evaluate.

Exit codes: 0 ok, 1 failure, 2 bad input, 3 API unreachable, 4 timeout, 141 when
stdout was closed before the output was written (`turnstile ask --json ... | head -c 10`).
Every error is one line on stderr, never a traceback.
"""

import argparse
import contextlib
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeAlias
from urllib.parse import quote

import httpx
from pydantic import ValidationError

from cli import records
from domain.evaluation.feedback import RATINGS, rating_words
from evals import cli as eval_cli
from settings import Settings, SettingsError, get_settings
from stack.processes import StackError

if TYPE_CHECKING:
    from activities.contracts import IngestRequest

EXIT_FAILURE, EXIT_BAD_INPUT, EXIT_UNREACHABLE, EXIT_TIMEOUT = 1, 2, 3, 4
EXIT_CLOSED_STDOUT = 141
"""128 + SIGPIPE, what a shell reports for a program SIGPIPE ended: its reader left."""


class CliError(Exception):
    def __init__(self, message: str, code: int = EXIT_FAILURE) -> None:
        super().__init__(message)
        self.code = code


def _say(message: str) -> None:
    print(message, flush=True)


def _validation_line(exc: ValidationError) -> str:
    return "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in exc.errors())


def cmd_up(args: argparse.Namespace, settings: Settings) -> int:
    from stack import embedded

    if args.workers is not None:
        # The API and every worker read it: turns go to the turn workers' queue.
        os.environ["TURNSTILE_WORKERS"] = str(args.workers)
        settings = settings.model_copy(update={"workers": args.workers})
    started = embedded.up(settings, _say)
    if args.detach or not started:
        return 0
    _say("press Ctrl-C to stop")
    stop = {"now": False}

    def handler(signum: int, frame: object) -> None:
        stop["now"] = True

    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGTERM, handler)
    while not stop["now"]:
        running = embedded.running_components(settings)
        missing = [c for c in ("worker", "api") if c not in running]
        if missing:
            _say(f"{', '.join(missing)} stopped unexpectedly; shutting down")
            break
        time.sleep(0.5)
    embedded.down(settings, _say)
    return 0


def cmd_down(args: argparse.Namespace, settings: Settings) -> int:
    from stack import embedded

    embedded.down(settings, _say)
    return 0


def cmd_status(args: argparse.Namespace, settings: Settings) -> int:
    from stack import embedded

    report = embedded.status(settings)
    if args.json:
        print(json.dumps(report))
    else:
        _say(status_table(report))
    return 0 if report["healthy"] else 1


def status_table(report: dict[str, object]) -> str:
    """`turnstile status` for people: one aligned row per process and per component the
    API reports, then the engine and the verdict."""
    rows: list[tuple[str, str, str]] = []
    processes = report.get("processes") or {}
    assert isinstance(processes, dict)
    for name, pid in processes.items():
        rows.append(
            (f"{name} process", "running" if pid else "stopped", f"pid {pid}" if pid else "")
        )
    health = report.get("health") or {}
    assert isinstance(health, dict)
    for name, comp in (health.get("components") or {}).items():
        details = ", ".join(f"{k} {v}" for k, v in comp.items() if k != "ok" and v is not None)
        rows.append((name, "ok" if comp.get("ok") else "DOWN", details))
    engine = health.get("engine") or {}
    if engine:
        models = ", ".join(f"{step} {model}" for step, model in engine.get("models", {}).items())
        rows.append(("engine", str(engine.get("name")), models))
    if report.get("api_url"):
        state_of_api = "ok" if report.get("healthy") else ("DOWN" if health else "unreachable")
        rows.insert(0, ("api", state_of_api, str(report["api_url"])))
    width = max(len(r[0]) for r in rows) if rows else 0
    state = max(len(r[1]) for r in rows) if rows else 0
    lines = [f"{a:{width}}  {b:{state}}  {c}".rstrip() for a, b, c in rows]
    lines.append("healthy" if report.get("healthy") else "not healthy")
    return "\n".join(lines)


def _fiscal_year(value: str) -> int:
    """A fiscal year as people write it: "2024", "FY2024", "fy24"."""
    text = value.strip().upper().removeprefix("FY")
    if text.isdigit() and len(text) in (2, 4):
        return 2000 + int(text) if len(text) == 2 else int(text)
    raise argparse.ArgumentTypeError(f"{value!r} is not a fiscal year such as 2024 or FY2024")


def _api_up(settings: Settings) -> bool:
    try:
        httpx.get(f"{settings.api_url}/healthz", timeout=3.0)
    except httpx.HTTPError:
        return False
    return True


def _api_error_line(response: httpx.Response) -> str:
    try:
        return str(response.json().get("detail"))
    except ValueError:
        return f"HTTP {response.status_code}"


def cmd_search(args: argparse.Namespace, settings: Settings) -> int:
    # Imported here: the step contracts bring the Temporal SDK, which no other command
    # (but ingest and eval) needs; the CLI starts a second sooner without it.
    from activities.contracts import SearchRequest
    from domain.models import SearchHitWithText

    try:
        years = [] if args.fy is None else [args.fy]
        # The company is the API's to resolve: it knows the companies held.
        request = SearchRequest(query=args.query, fiscal_years=years, limit=args.limit)
    except ValidationError as exc:
        raise CliError(_validation_line(exc), EXIT_BAD_INPUT) from exc
    if not _api_up(settings):
        raise CliError(
            f"the API at {settings.api_url} does not answer; start the stack: turnstile up",
            EXIT_UNREACHABLE,
        )
    params: dict[str, str | int] = {"q": request.query, "limit": request.limit}
    if args.company:
        params["company"] = args.company
    if request.fiscal_years:
        params["fy"] = request.fiscal_years[0]
    url, headers = f"{settings.api_url}/v1/search", settings.auth_headers()
    response = httpx.get(url, params=params, timeout=60.0, headers=headers)
    if response.status_code != 200:
        raise CliError(_api_error_line(response))
    hits = [SearchHitWithText.model_validate(h) for h in response.json()]
    if args.json:
        print(json.dumps([h.model_dump() for h in hits], ensure_ascii=False))
        return 0
    for h in hits:
        _say(f"{h.rank:>2}. {h.company} FY{h.fiscal_year} p.{h.page} · {h.section} · {h.score:.3f}")
        body = " ".join(h.text.split("\n", 1)[-1].split())
        _say(f"    {body[:200]}")
    if not hits:
        _say("no results")
    return 0


def _expand(paths: Sequence[str]) -> list[str]:
    files: list[str] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if not path.exists():
            raise CliError(f"{raw}: no such file or directory", EXIT_BAD_INPUT)
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.suffix.lower() in (".md", ".pdf"))
            if not found:
                raise CliError(f"{raw}: no .md or .pdf files in this directory", EXIT_BAD_INPUT)
            files.extend(str(p.resolve()) for p in found)
        else:
            files.append(str(path.resolve()))
    return files


def _check_ingest_dir(paths: Sequence[str], settings: Settings) -> None:
    """Name the ingest directory up front: the API refuses files outside it without saying."""
    root = settings.ingest_dir.resolve()
    for path in paths:
        if not Path(path).is_relative_to(root):
            raise CliError(
                f"{path}: outside the ingest directory {root} (set TURNSTILE_INGEST_DIR)",
                EXIT_BAD_INPUT,
            )


def cmd_ingest(args: argparse.Namespace, settings: Settings) -> int:
    """Ingest through the API, the only way past the document registry (PostgreSQL).

    There is no direct path into Qdrant: without the registry a stray file could
    replace a company's report for a year unnoticed.
    """
    request = _ingest_request(args)
    _check_ingest_dir(request.paths, settings)
    if not _api_up(settings):
        raise CliError(
            f"cannot reach the API at {settings.api_url}; ingestion needs the running stack"
            " (turnstile up)",
            EXIT_UNREACHABLE,
        )
    response = httpx.post(
        f"{settings.api_url}/v1/ingest",
        json=request.model_dump(),
        timeout=settings.ingest_timeout_seconds + 30.0,
        headers=settings.auth_headers(),
    )
    if response.status_code != 200:
        raise CliError(_api_error_line(response))
    return _print_ingested(response.json())


def _ingest_request(args: argparse.Namespace) -> "IngestRequest":
    """The ingest request the arguments describe; CliError (bad input) when they do not
    make one."""
    from activities.contracts import CompanyDetails, IngestRequest  # as in cmd_search

    described = args.alias or args.year_end or args.currency or args.commodity
    if described and not args.name:
        raise CliError(
            "--alias, --year-end, --currency and --commodity need --name", EXIT_BAD_INPUT
        )
    try:
        details = None
        if args.name:
            details = CompanyDetails(
                name=args.name,
                aliases=args.alias,
                year_end=args.year_end or "06-30",
                currency=args.currency or "US$",
                commodities=args.commodity,
            )
        return IngestRequest(
            paths=_expand(args.paths),
            company=args.company,
            fiscal_year=args.fy,
            replace=args.replace,
            details=details,
        )
    except ValidationError as exc:
        raise CliError(_validation_line(exc), EXIT_BAD_INPUT) from exc


def _print_ingested(body: dict[str, Any]) -> int:
    """One line per file the API ingested (failures and problems on stderr), then the
    corpus version; the exit code says whether any file failed."""
    failed = 0
    for r in body["files"]:
        if r["status"] in ("failed", "refused"):
            failed += 1
            print(f"{r['status']}: {r['error']}", file=sys.stderr)
        else:
            _say(f"{r['status']}: {r['path']} ({r['chunks']} chunks)")
            if r.get("identified"):
                _say(f"  {r['identified']}")
            for problem in r.get("problems", []):
                print(f"  {r['path']}: {problem}", file=sys.stderr)
    _say(f"corpus version {body['corpus_version']}")
    return EXIT_FAILURE if failed else 0


def cmd_ask(args: argparse.Namespace, settings: Settings) -> int:
    from cli import chat

    if not args.question.strip():
        raise CliError("question must not be empty", EXIT_BAD_INPUT)
    try:
        result = chat.ask(
            settings.api_url,
            args.question,
            args.conversation,
            args.user,
            args.timeout,
            settings.auth_headers(),
            fresh=args.no_cache,
        )
    except chat.ChatError as exc:
        blocking_id = exc.blocking_turn
        if blocking_id is None:
            raise CliError(str(exc), exc.code) from exc
        # The conversation is busy: say which turn holds it and how to free it.
        blocking = chat.get_turn(settings.api_url, blocking_id, settings.auth_headers())
        raise CliError(chat.blocked_line(blocking_id, blocking), exc.code) from exc
    chat.print_result(result, args.json)
    if not args.json:
        print(chat.follow_up_line(result.conversation_id))
    return 0


def cmd_reply(args: argparse.Namespace, settings: Settings) -> int:
    from cli import chat

    if not args.text.strip():
        raise CliError("reply must not be empty", EXIT_BAD_INPUT)
    try:
        result = chat.reply(
            settings.api_url, args.turn_id, args.text, args.timeout, settings.auth_headers()
        )
    except chat.ChatError as exc:
        raise CliError(str(exc), exc.code) from exc
    chat.print_result(result, args.json)
    return 0


def cmd_cancel(args: argparse.Namespace, settings: Settings) -> int:
    from cli import chat

    try:
        result = chat.cancel(settings.api_url, args.turn_id, args.timeout, settings.auth_headers())
    except chat.ChatError as exc:
        raise CliError(str(exc), exc.code) from exc
    chat.print_result(result, args.json)
    return 0


def cmd_audit(args: argparse.Namespace, settings: Settings) -> int:
    """`audit verify`: exit 0 when the chain is intact, 1 naming the first broken row;
    `audit show TURN_ID`: the turn's decision record for reading (each cited passage
    marked with whether the index still holds its text), `--json` the API's body."""
    if not _api_up(settings):
        raise CliError(
            f"the API at {settings.api_url} does not answer; start the stack: turnstile up",
            EXIT_UNREACHABLE,
        )
    if args.audit_command == "verify":
        response = httpx.get(
            f"{settings.api_url}/v1/audit/verify", timeout=120.0, headers=settings.auth_headers()
        )
        if response.status_code != 200:
            raise CliError(_api_error_line(response))
        report = response.json()
        if not report["ok"]:
            raise CliError(str(report["summary"]))
        _say(str(report["summary"]))
        return 0
    response = httpx.get(
        f"{settings.api_url}/v1/turns/{args.turn_id}/audit",
        timeout=30.0,
        headers=settings.auth_headers(),
    )
    if response.status_code != 200:
        raise CliError(_api_error_line(response))
    if args.json:
        print(json.dumps(response.json(), indent=2, ensure_ascii=False))
    else:
        print(records.render_record(response.json()))
    return 0


def _require_api(settings: Settings) -> None:
    if not _api_up(settings):
        raise CliError(
            f"the API at {settings.api_url} does not answer; start the stack: turnstile up",
            EXIT_UNREACHABLE,
        )


def cmd_feedback(args: argparse.Namespace, settings: Settings) -> int:
    """`feedback TURN RATING [--comment TEXT]` rates a turn; `feedback` alone lists the
    tenant's feedback, latest first (`--rating wrong_figure`: the turns to review)."""
    _require_api(settings)
    if args.turn_id is not None:
        if args.rating_given is None:
            raise CliError(f"say how it was: {' | '.join(RATINGS)}", EXIT_BAD_INPUT)
        response = httpx.post(
            f"{settings.api_url}/v1/turns/{quote(args.turn_id, safe='')}/feedback",
            json={"rating": args.rating_given, "comment": args.comment or ""},
            timeout=30.0,
            headers=settings.auth_headers(),
        )
        if response.status_code != 201:
            raise CliError(_api_error_line(response))
        item = response.json()
        if args.json:
            print(json.dumps(item, ensure_ascii=False))
        else:
            _say(f"noted: turn {item['turn_id']} rated {rating_words(item['rating'])}")
        return 0
    params: dict[str, str | int] = {"limit": args.limit}
    if args.rating:
        params["rating"] = args.rating
    response = httpx.get(
        f"{settings.api_url}/v1/feedback",
        params=params,
        timeout=30.0,
        headers=settings.auth_headers(),
    )
    if response.status_code != 200:
        raise CliError(_api_error_line(response))
    items = response.json()["items"]
    print(json.dumps(items, ensure_ascii=False) if args.json else records.render_feedback(items))
    return 0


def cmd_conversations(args: argparse.Namespace, settings: Settings) -> int:
    """A user's conversations, the latest active first (without --user: those asked
    without a user id, as `ask` and `chat` do by default)."""
    _require_api(settings)
    params: dict[str, str | int] = {"limit": args.limit}
    if args.user:
        params["user_id"] = args.user
    response = httpx.get(
        f"{settings.api_url}/v1/conversations",
        params=params,
        timeout=30.0,
        headers=settings.auth_headers(),
    )
    if response.status_code != 200:
        raise CliError(_api_error_line(response))
    items = response.json()["items"]
    print(
        json.dumps(items, ensure_ascii=False) if args.json else records.render_conversations(items)
    )
    return 0


def cmd_forget(args: argparse.Namespace, settings: Settings) -> int:
    """Erase everything remembered about one user (DELETE /v1/users/{user}/memory)."""
    if not _api_up(settings):
        raise CliError(
            f"the API at {settings.api_url} does not answer; start the stack: turnstile up",
            EXIT_UNREACHABLE,
        )
    response = httpx.delete(
        f"{settings.api_url}/v1/users/{quote(args.user, safe='')}/memory",
        timeout=60.0,
        headers=settings.auth_headers(),
    )
    if response.status_code not in (200, 202):
        raise CliError(
            _api_error_line(response),
            EXIT_BAD_INPUT if response.status_code < 500 else EXIT_FAILURE,
        )
    body = response.json()
    if args.json:
        print(json.dumps(body, ensure_ascii=False))
    elif body["status"] == "pending":
        _say(f"erasing {args.user}: started; it completes without you (check again later)")
    else:
        _say(
            f"erased {args.user}: {body['facts']} fact version(s), {body['summaries']} "
            f"summary(ies), {body['personal_values']} personal value(s), "
            f"{body['cached_answers']} cached answer(s)"
        )
    return 0


def cmd_chat(args: argparse.Namespace, settings: Settings) -> int:
    from cli import chat

    if not _api_up(settings):
        raise CliError(f"cannot reach the API at {settings.api_url}", EXIT_UNREACHABLE)
    history = settings.home / "chat_history"
    try:
        return chat.chat(
            settings.api_url,
            args.user,
            args.timeout,
            settings.auth_headers(),
            history,
            args.conversation,
        )
    except chat.ChatError as exc:
        raise CliError(str(exc), exc.code) from exc


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line, like every other error."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"turnstile: {message} (see {self.prog} --help)\n")


_Subcommands: TypeAlias = "argparse._SubParsersAction[_Parser]"
"""What `add_subparsers` returns: each `_add_*` registers its subcommand on it."""


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("turnstile")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="turnstile", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"turnstile {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_stack(sub)
    _add_search(sub)
    _add_ingest(sub)
    _add_ask(sub)
    _add_reply(sub)
    _add_cancel(sub)
    _add_audit(sub)
    _add_feedback(sub)
    _add_conversations(sub)
    _add_forget(sub)
    eval_cli.add_parser(sub, Settings.auth_headers)
    _add_chat(sub)
    return parser


def _add_stack(sub: _Subcommands) -> None:
    """`up`, `down` and `status`: the embedded stack's life."""
    p = sub.add_parser("up", help="start the embedded stack")
    p.add_argument("--detach", action="store_true", help="return once the stack is healthy")
    p.add_argument(
        "--workers",
        type=int,
        choices=range(1, 9),
        metavar="N",
        help="turn workers, 1-8 (default 1): one holds the report index, the others run turns",
    )
    p.set_defaults(func=cmd_up)
    p = sub.add_parser("down", help="stop the embedded stack (data is kept)")
    p.set_defaults(func=cmd_down)
    p = sub.add_parser("status", help="show each component")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.set_defaults(func=cmd_status)


def _add_search(sub: _Subcommands) -> None:
    """`search`: hybrid search over the report chunks."""
    p = sub.add_parser("search", help="hybrid search over the report chunks")
    p.add_argument("query", help='words to search for, e.g. "Fortescue net debt"')
    p.add_argument("--company", help="ticker or name (turnstile ask 'what do you cover?')")
    p.add_argument("--fy", type=_fiscal_year, help="fiscal year: 2024 or FY2024")
    p.add_argument("--limit", type=int, default=8, help="how many chunks (default 8)")
    p.add_argument("--json", action="store_true", help="print the hits as JSON, text included")
    p.set_defaults(func=cmd_search)


def _add_ingest(sub: _Subcommands) -> None:
    """`ingest`: reports into the registry and the index, a new company with them."""
    p = sub.add_parser("ingest", help="ingest Markdown or PDF reports")
    p.add_argument("paths", nargs="+", help="report files or folders (.md, .pdf)")
    p.add_argument(
        "--company",
        help="ticker or name (a new company: its ticker); a PDF's own first pages say it"
        " when not given",
    )
    p.add_argument(
        "--fy",
        type=_fiscal_year,
        help="fiscal year, 2022 or FY2022; a PDF's own first pages say it when not given",
    )
    p.add_argument("--name", help='a company not registered yet: its name, "Example Mining"')
    p.add_argument(
        "--alias", action="append", default=[], help="another name it goes by (repeatable)"
    )
    p.add_argument(
        "--year-end", help="month-day its fiscal year ends (default 06-30; 12-31: calendar)"
    )
    p.add_argument("--currency", help="its reporting currency (default US$), e.g. A$")
    p.add_argument(
        "--commodity", action="append", default=[], help="what it mines (repeatable), e.g. gold"
    )
    p.add_argument(
        "--replace",
        action="store_true",
        help="replace the registered report of that company and year with this file",
    )
    p.set_defaults(func=cmd_ingest)


def _add_ask(sub: _Subcommands) -> None:
    """`ask`: one question, printed once its turn settles."""
    p = sub.add_parser("ask", help="ask one question and print the settled turn")
    p.add_argument("question", help="the question, in quotes")
    p.add_argument("--conversation", help="conversation id (new when omitted)")
    p.add_argument("--user", help="user id")
    p.add_argument("--json", action="store_true", help="print exactly one JSON TurnResult")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds to wait (default 120)")
    p.add_argument(
        "--no-cache", action="store_true", help="answer afresh, not from the answer cache"
    )
    p.set_defaults(func=cmd_ask)


def _add_reply(sub: _Subcommands) -> None:
    """`reply`: the answer to a turn's clarifying question."""
    p = sub.add_parser("reply", help="answer a turn's clarifying question")
    p.add_argument("turn_id", help="the waiting turn's id, e.g. turn-c123-1")
    p.add_argument("text", help="the answer to its clarifying question, in quotes")
    p.add_argument("--json", action="store_true", help="print exactly one JSON TurnResult")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds to wait (default 120)")
    p.set_defaults(func=cmd_reply)


def _add_cancel(sub: _Subcommands) -> None:
    """`cancel`: drop a turn that waits for a clarification."""
    p = sub.add_parser(
        "cancel", help="cancel a turn that waits for a clarification (frees its conversation)"
    )
    p.add_argument("turn_id", help="the turn's id, e.g. turn-c123-1")
    p.add_argument("--json", action="store_true", help="print exactly one JSON TurnResult")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds to wait (default 120)")
    p.set_defaults(func=cmd_cancel)


def _add_audit(sub: _Subcommands) -> None:
    """`audit verify` and `audit show`: the decision record."""
    p = sub.add_parser("audit", help="the append-only decision record")
    audit_sub = p.add_subparsers(dest="audit_command", required=True, metavar="{verify,show}")
    v = audit_sub.add_parser("verify", help="check the hash chain; exit 1 naming a broken row")
    v.set_defaults(func=cmd_audit)
    s = audit_sub.add_parser("show", help="print one turn's decision record, with its feedback")
    s.add_argument("turn_id", help="the turn's id, e.g. turn-c123-1")
    s.add_argument("--json", action="store_true", help="print the record as the API's JSON")
    s.set_defaults(func=cmd_audit)


def _add_feedback(sub: _Subcommands) -> None:
    """`feedback`: rate a turn, or list the ratings given."""
    p = sub.add_parser(
        "feedback", help="rate a turn (feedback TURN RATING), or list the feedback given"
    )
    p.add_argument("turn_id", nargs="?", help="the turn to rate, e.g. turn-c123-1")
    p.add_argument(
        "rating_given",
        nargs="?",
        choices=RATINGS,
        metavar="RATING",
        help=f"how it was: {', '.join(RATINGS)}",
    )
    p.add_argument("--comment", help="what was wrong (or right), in quotes")
    p.add_argument("--rating", choices=RATINGS, help="list only this rating")
    p.add_argument("--limit", type=int, default=50, help="how many to list (default 50)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_feedback)


def _add_conversations(sub: _Subcommands) -> None:
    """`conversations`: a user's conversations, latest first."""
    p = sub.add_parser("conversations", help="list a user's conversations, latest first")
    p.add_argument("--user", help="user id (default: conversations asked without one)")
    p.add_argument("--limit", type=int, default=20, help="how many (default 20)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_conversations)


def _add_forget(sub: _Subcommands) -> None:
    """`forget`: erase what is remembered about a user."""
    p = sub.add_parser(
        "forget", help="erase everything remembered about a user (facts, summaries, cache)"
    )
    p.add_argument("user", help="the user id whose memory to erase")
    p.add_argument("--json", action="store_true", help="print the erasure counts as JSON")
    p.set_defaults(func=cmd_forget)


def _add_chat(sub: _Subcommands) -> None:
    """`chat`: the interactive chat."""
    p = sub.add_parser("chat", help="interactive chat")
    p.add_argument(
        "--conversation", help="continue this conversation, e.g. one begun on the web page"
    )
    p.add_argument("--user", help="user id")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds to wait per turn")
    p.set_defaults(func=cmd_chat)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0) and EXIT_BAD_INPUT
    if args.command is None:  # a bare `turnstile`: what it can do, not an error
        parser.print_help()
        return 0
    func: Callable[[argparse.Namespace, Settings], int] = args.func
    try:
        settings = get_settings()  # before any command, so `up` starts nothing on a bad one
    except SettingsError as exc:
        print(f"turnstile: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        return func(args, settings)
    except (CliError, eval_cli.CommandError) as exc:
        print(f"turnstile: {exc}", file=sys.stderr)
        return exc.code
    except StackError as exc:
        print(f"turnstile: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    except httpx.TimeoutException:
        print("turnstile: the API did not answer in time", file=sys.stderr)
        return EXIT_TIMEOUT
    except httpx.TransportError:
        print(f"turnstile: cannot reach the API at {settings.api_url}", file=sys.stderr)
        return EXIT_UNREACHABLE
    except KeyboardInterrupt:
        return 130


def _stdout_closed() -> int:
    """Stdout's reader has gone (`| head -c 10`, a closed pipe): nothing more can be
    shown. Point stdout at /dev/null, so that the interpreter's last flush of what is
    still buffered does not fail again, and exit as a program SIGPIPE ended would."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_CLOSED_STDOUT


def entry() -> None:
    """The `turnstile` console script: `main()`, then exit with its code.

    Output is flushed here, so a reader that left early (`turnstile ask --json ... |
    head -c 10`) ends the command quietly with exit 141 instead of a BrokenPipeError
    traceback, whether the write failed inside the command or in this last flush.

    After `turnstile eval` has used a Temporal client, the interpreter's own shutdown can
    crash in the SDK's native runtime (a `PyGILState_Release` fatal error, exit 134 or
    139) although the command finished and printed its results; leaving without that
    shutdown keeps the command's exit code.
    """
    code = 1
    try:
        try:
            code = main()
            sys.stdout.flush()
        except BrokenPipeError:
            code = _stdout_closed()
    finally:
        if eval_cli.used_temporal():
            with contextlib.suppress(BrokenPipeError):
                sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    entry()
