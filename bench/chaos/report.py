"""The chaos benchmark's report, as one dictionary (what `--json` prints) and as a table.

The run's turns, faults and checks are tallied there, with the run's pass or fail.
"""

import argparse
import json
from collections import Counter
from dataclasses import asdict
from typing import Any

from bench.chaos.driver import Driver, HttpEvent, Turn
from bench.chaos.faults import Fault
from bench.common import percentile

ERROR_ANSWER_LIMIT = 5.0
"""Every 5xx the API gives, stalled dependency or not, comes within this many seconds."""


def summarise(
    base: dict[str, Turn],
    driver: Driver,
    turns: list[Turn],
    faults: list[Fault],
    db: tuple[dict[str, int], list[dict[str, Any]]],
    temporal: dict[str, Any],
    timings: dict[str, float],
    args: argparse.Namespace,
) -> dict[str, Any]:
    """The whole report; fills in each fault's settle times and slowest turn on the way."""
    causes = _settle_faults(turns, faults, temporal.get("delays") or {})
    differing = _differing(base, turns)
    db_counts, db_problems = db
    report: dict[str, Any] = {
        "config": _config(args),
        "timings": timings,
        "baseline": _baseline(base),
        "turns": _turn_counts(turns),
        "duplicated": db_counts.get("duplicated_turns", 0)
        + db_counts.get("duplicated_messages", 0),
        "missing": db_counts.get("missing_turns", 0) + db_counts.get("missing_messages", 0),
        "differing": len(differing),
        "database": db_counts,
        "database_problems": db_problems,
        "temporal": temporal,
        **_recovery(faults),
        "faults": [asdict(f) for f in faults],
        "delays_after_faults": {k: dict(v.most_common()) for k, v in causes.items()},
        "http_errors": _http_errors(driver.events, faults),
        "error_answers": _error_answers(driver.events, faults),
        "lost_turns": _lost(turns),
        "unaccepted_turns": _unaccepted(turns),
        "differing_turns": differing,
        "http_events": [asdict(e) for e in driver.events],
        "fault_errors": [f.error for f in faults if f.error],
        "replays": _replays(turns),
    }
    report["passed"] = _passed(report)
    return report


def _settle_faults(
    turns: list[Turn], faults: list[Fault], delays: dict[str, list[str]]
) -> dict[str, Counter[str]]:
    """Fill in each fault's settle times, unsettled turns and slowest turn; return what the
    histories of the turns each kind of fault caught went through, counted."""
    by_index = {t.index: t for t in turns}
    causes: dict[str, Counter[str]] = {}
    for fault in faults:
        if fault.at is None:
            continue
        slowest: tuple[float, Turn] | None = None
        fault.in_flight_turn_ids = [by_index[i].turn_id for i in fault.in_flight]
        for i in fault.in_flight:
            t = by_index[i]
            if t.settled_at is not None:
                fault.settle_seconds.append(round(t.settled_at - fault.at, 3))
                if slowest is None or t.settled_at - fault.at > slowest[0]:
                    slowest = (t.settled_at - fault.at, t)
            else:
                fault.unsettled.append(i)
        for i in fault.arrivals:
            t = by_index[i]
            if t.settled_at is not None and t.sent_at is not None:
                fault.arrival_settle_seconds.append(round(t.settled_at - t.sent_at, 3))
            else:
                fault.unsettled.append(i)
        for i in fault.in_flight + fault.arrivals:
            for line in delays.get(by_index[i].turn_id or "", []):
                # Counted by what happened, without the details after " — ".
                causes.setdefault(fault.kind, Counter())[line.split(" — ")[0]] += 1
        if slowest is not None:
            fault.slowest = {
                "turn_id": slowest[1].turn_id,
                "seconds": round(slowest[0], 1),
                "history": delays.get(slowest[1].turn_id or "", []),
            }
    return causes


def _differing(base: dict[str, Turn], turns: list[Turn]) -> list[dict[str, Any]]:
    """The settled turns whose status or answer differs from their question's baseline."""
    differing = []
    for t in turns:
        if t.outcome != "settled":
            continue
        expected = base[t.question.text]
        if (t.status, t.answer) != (expected.status, expected.answer):
            differing.append(
                {
                    "turn_id": t.turn_id,
                    "question": t.question.text,
                    "baseline_status": expected.status,
                    "status": t.status,
                    "baseline_answer": expected.answer,
                    "answer": t.answer,
                }
            )
    return differing


def _config(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "turns": args.turns,
        "kills": args.kills,
        "concurrency": args.concurrency,
        "seed": args.seed,
        "settle_timeout": args.settle_timeout,
        "arrivals": args.arrivals,
    }


def _baseline(base: dict[str, Turn]) -> dict[str, Any]:
    unexpected = [
        {"question": t.question.text, "expected": t.question.expected, "status": t.status}
        for t in base.values()
        if t.status != t.question.expected
        or t.asked_clarification != (t.question.reply is not None)
    ]
    return {
        "questions": len(base),
        "statuses": dict(Counter(str(t.status) for t in base.values())),
        "unexpected": unexpected,
    }


def _turn_counts(turns: list[Turn]) -> dict[str, Any]:
    outcomes = Counter(t.outcome for t in turns)
    by_kind: dict[str, Counter[str]] = {}
    for t in turns:
        by_kind.setdefault(t.question.kind, Counter())[t.status or t.outcome] += 1
    return {
        "sent": sum(1 for t in turns if t.sent_at is not None),
        "started": sum(1 for t in turns if t.turn_id is not None),
        "settled": outcomes["settled"],
        "lost": outcomes["lost"],
        "unaccepted": outcomes["unaccepted"],
        "rejected": outcomes["rejected"],
        "not_sent": outcomes["not_sent"],
        "statuses": dict(Counter(str(t.status) for t in turns if t.outcome == "settled")),
        "by_kind": {k: dict(v) for k, v in by_kind.items()},
    }


def _recovery(faults: list[Fault]) -> dict[str, dict[str, Any]]:
    """Kill-to-settle (turns in flight at a worker kill) and worker restart times."""
    kill_settle = [s for f in faults if f.kind == "worker_kill" for s in f.settle_seconds]
    restarts = [f.restart_seconds for f in faults if f.restart_seconds is not None]
    return {
        "kill_to_settle": {
            "n": len(kill_settle),
            "p50": percentile(kill_settle, 0.5),
            "p95": percentile(kill_settle, 0.95),
            "max": max(kill_settle, default=None),
        },
        "worker_restart": {
            "n": len(restarts),
            "p50": percentile(restarts, 0.5),
            "max": max(restarts, default=None),
        },
    }


def _lost(turns: list[Turn]) -> list[dict[str, Any]]:
    return [
        {
            "index": t.index,
            "turn_id": t.turn_id,
            "question": t.question.text,
            "sent_at": t.sent_at,
            "http": dict(t.http),
            "polls": t.polls,
        }
        for t in turns
        if t.outcome == "lost"
    ]


def _unaccepted(turns: list[Turn]) -> list[dict[str, Any]]:
    return [
        {
            "index": t.index,
            "conversation_id": t.conversation_id,
            "http": dict(t.http),
            "outcome": t.outcome,
        }
        for t in turns
        if t.outcome in ("unaccepted", "rejected")
    ]


def _replays(turns: list[Turn]) -> dict[str, Any]:
    """The identical POSTs re-sent after settling, and those not answered with the turn."""
    replayed = [t for t in turns if t.replay is not None]
    return {
        "n": len(replayed),
        "wrong": [
            {"turn_id": t.turn_id, "replay": t.replay}
            for t in replayed
            if not str(t.replay).endswith("same turn")
        ],
    }


def _passed(report: dict[str, Any]) -> bool:
    return not (
        report["fault_errors"]
        or report["replays"]["wrong"]
        or report["turns"]["lost"]
        or report["turns"]["unaccepted"]
        or report["turns"]["rejected"]
        or report["turns"]["not_sent"]
        or report["duplicated"]
        or report["missing"]
        or report["differing"]
        or report["error_answers"]["over_limit"]
    )


def _http_errors(events: list[HttpEvent], faults: list[Fault]) -> dict[str, int]:
    """Responses retried or refused, counted by route, code and when they came."""
    return dict(Counter(f"{e.route} {e.code} ({_fault_window(faults, e.at)})" for e in events))


def _error_answers(events: list[HttpEvent], faults: list[Fault]) -> dict[str, Any]:
    """How long the API took to answer each 5xx, by the fault it came during."""
    timed = [e for e in events if e.seconds is not None]
    by_fault: dict[str, list[float]] = {}
    for e in timed:
        by_fault.setdefault(_fault_window(faults, e.at), []).append(e.seconds or 0.0)
    return {
        "n": len(timed),
        "max": max((e.seconds or 0.0 for e in timed), default=None),
        "by_fault": {
            k: {"n": len(v), "p50": percentile(v, 0.5), "max": max(v)} for k, v in by_fault.items()
        },
        "over_limit": [asdict(e) for e in timed if (e.seconds or 0.0) > ERROR_ANSWER_LIMIT],
    }


def _fault_window(faults: list[Fault], at: float) -> str:
    """When `at` was relative to the latest fault before it, bucketed for counting."""
    latest = None
    for n, f in enumerate(faults, 1):
        if f.at is not None and f.at <= at:
            latest = (n, f)
    if latest is None:
        return "before any fault"
    n, f = latest
    if f.recovered_at is None or at <= f.recovered_at:
        return f"during #{n} {f.kind}"
    after = at - f.recovered_at
    bucket = "0-5 s" if after < 5 else "5-30 s" if after < 30 else "over 30 s"
    return f"{bucket} after #{n} {f.kind} was restored"


def _s(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"


def render(report: dict[str, Any]) -> str:
    """The results table as the benchmark prints it without `--json`."""
    lines = _head(report) + _fault_rows(report) + _recovery_lines(report)
    lines += _error_answer_lines(report) + _problem_lines(report)
    lines += ["", "PASS" if report["passed"] else "FAIL"]
    return "\n".join(lines)


def _head(report: dict[str, Any]) -> list[str]:
    """What ran, and how many turns settled, got lost, duplicated or differed."""
    c, t, tm = report["config"], report["turns"], report["timings"]
    return [
        f"Chaos benchmark: {c['turns']} turns, {c['kills']} worker kills, 1 PostgreSQL outage,"
        f" 1 Temporal restart; concurrency {c['concurrency']}, seed {c['seed']}",
        f"stack up {tm['stack_up']:.0f} s · baseline {report['baseline']['questions']} questions"
        f" in {tm['baseline']:.1f} s {report['baseline']['statuses']} · chaos run"
        f" {tm['chaos']:.0f} s",
        "",
        f"{'sent':>6} {'started':>8} {'settled':>8} {'lost':>5} {'unaccepted':>11}"
        f" {'duplicated':>11} {'missing':>8} {'differing':>10}",
        f"{t['sent']:>6} {t['started']:>8} {t['settled']:>8} {t['lost']:>5}"
        f" {t['unaccepted'] + t['rejected']:>11} {report['duplicated']:>11}"
        f" {report['missing']:>8} {report['differing']:>10}",
        f"statuses: {t['statuses']}"
        + (f" · not sent (hard cap reached): {t['not_sent']}" if t["not_sent"] else ""),
        "by kind:  " + " · ".join(f"{k} {dict(v)}" for k, v in t["by_kind"].items()),
        "",
    ]


def _fault_rows(report: dict[str, Any]) -> list[str]:
    """One row per fault, under its header, with the legend after them."""
    lines = [
        f"{'#':>2} {'fault':16} {'at s':>6} {'down s':>6} {'restart s':>9} {'in flight':>9}"
        f" {'settle p50':>10} {'settle max':>10} {'sent while down':>15} {'their max':>9}"
        f" {'unsettled':>9} {'API ok after':>12}",
    ]
    for n, f in enumerate(report["faults"], 1):
        down = (f["recovered_at"] - f["at"]) if f["at"] is not None else None
        lines.append(
            f"{n:>2} {f['kind']:16} {_s(f['at']):>6} {_s(down):>6}"
            f" {_s(f['restart_seconds']):>9} {len(f['in_flight']):>9}"
            f" {_s(percentile(f['settle_seconds'], 0.5)):>10}"
            f" {_s(max(f['settle_seconds'], default=None)):>10} {len(f['arrivals']):>15}"
            f" {_s(max(f['arrival_settle_seconds'], default=None)):>9}"
            f" {len(f['unsettled']):>9}"
            f" {_s(f['api_ok_after'].get('read')) + '/' + _s(f['api_ok_after'].get('healthz')):>12}"
            + (f"  ERROR {f['error']}" if f["error"] else "")
        )
    lines += [
        "(settle: seconds from the fault to the settling of each turn in flight at it;"
        " their max: from sending to settling, for the turns sent while it was down;"
        " API ok after: seconds from restoring the component until GET /v1/turns/{id}"
        " / GET /healthz answer 200)"
    ]
    return lines


def _recovery_lines(report: dict[str, Any]) -> list[str]:
    """Kill-to-settle, worker restart, replays, rows, workflows, and what the caught turns
    went through (the slowest of each fault's in full)."""
    k, w = report["kill_to_settle"], report["worker_restart"]
    lines = [
        "",
        f"kill-to-settle (turns in flight at a worker kill, n={k['n']}): p50 {_s(k['p50'])} s,"
        f" p95 {_s(k['p95'])} s, max {_s(k['max'])} s",
        f"worker restart (spawn until it polls, n={w['n']}): p50 {_s(w['p50'])} s,"
        f" max {_s(w['max'])} s",
        f"identical POST re-sent after settling (turns sent while a fault was down):"
        f" {report['replays']['n']}, answered with another turn or not at all:"
        f" {len(report['replays']['wrong'])} {report['replays']['wrong'] or ''}",
        f"PostgreSQL rows: {report['database']}",
        f"Temporal ChatTurn workflows: {report['temporal'].get('by_status')}",
    ]
    for kind, counts in report["delays_after_faults"].items():
        lines.append(
            f"in the histories of the turns a {kind} caught or that were sent during it: "
            + ", ".join(f"{n} × {what}" for what, n in counts.items())
        )
    for n, f in enumerate(report["faults"], 1):
        if f["slowest"]:
            slow = f["slowest"]
            seen = Counter(slow["history"])
            history = "; ".join(f"{k}" if c == 1 else f"{c} × {k}" for k, c in seen.items())
            lines.append(
                f"  slowest after #{n}: {slow['turn_id']} {slow['seconds']} s:"
                f" {history or 'no timeout or failure in its history'}"
            )
    return lines


def _error_answer_lines(report: dict[str, Any]) -> list[str]:
    """How fast the 5xx answers came, by fault, and every response retried or refused."""
    answers = report["error_answers"]
    lines = [
        "",
        f"5xx answers (n={answers['n']}): slowest {_s(answers['max'])} s (limit"
        f" {ERROR_ANSWER_LIMIT:g} s), over the limit: {len(answers['over_limit'])}",
    ]
    lines += [
        f"  {window}: n={v['n']}, p50 {_s(v['p50'])} s, max {_s(v['max'])} s"
        for window, v in sorted(answers["by_fault"].items())
    ]
    if report["http_errors"]:
        lines += ["", "responses retried or refused (route, code, during which fault):"]
        lines += [f"  {n:>4} × {key}" for key, n in sorted(report["http_errors"].items())]
    return lines


def _problem_lines(report: dict[str, Any]) -> list[str]:
    """Each problem found, item by item: nothing when the run passed cleanly."""
    lines = []
    if report["baseline"]["unexpected"]:
        lines += [
            "",
            f"baseline outcomes not as the mix expects: {report['baseline']['unexpected']}",
        ]
    for title, key in (
        ("lost", "lost_turns"),
        ("not accepted", "unaccepted_turns"),
        ("differing from the baseline", "differing_turns"),
        ("PostgreSQL problems", "database_problems"),
    ):
        if report[key]:
            lines += ["", f"{title}:"]
            lines += [f"  {json.dumps(item, ensure_ascii=False)[:600]}" for item in report[key]]
    open_wf = report["temporal"].get("not_completed") or []
    if open_wf:
        lines += ["", "ChatTurn workflows not completed:"]
        lines += [f"  {w['workflow_id']} {w['status']}" for w in open_wf[:50]]
    return lines
