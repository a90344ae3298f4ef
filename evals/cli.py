"""`turnstile eval`'s arguments: the parser alone, so that every other command of the CLI
starts without importing evaluation, the Temporal SDK or the stack's contracts (about a
second of CPU a command). Each subcommand's implementation is in `evals.commands`,
imported when the subcommand runs.

Exit codes: 0 every case passed (or, with `--baseline`, no regression against it);
1 a case failed or the gate found a regression; 2 bad input (an unknown suite, case or
configuration, a malformed case file — named by file and line); 3 the stack is not
reachable.
"""

import argparse
import sys
from collections.abc import Callable
from typing import Any

from domain.evaluation.scoring import SUITES
from evals.cases import BASELINE, DRAFTED
from settings import Settings

Auth = Callable[[Settings], dict[str, str]]
Command = Callable[[argparse.Namespace, Settings], int]


EXIT_FAILED, EXIT_BAD_INPUT, EXIT_UNREACHABLE = 1, 2, 3


class CommandError(Exception):
    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _common(parser: argparse.ArgumentParser, *, case: bool = True, sub: bool = False) -> None:
    """--json, --limit and --case. A subcommand's copies default to "not given", so the
    same flag given before the subcommand (`eval --json judge`) is kept, not reset."""
    extra: dict[str, Any] = {"default": argparse.SUPPRESS} if sub else {}
    parser.add_argument(
        "--json", action="store_true", help="print machine-readable results", **extra
    )
    parser.add_argument(
        "--limit",
        type=_positive,
        metavar="N",
        help="at most N cases per suite (or slice, or pairs)",
        **extra,
    )
    if case:
        parser.add_argument(
            "--case", action="append", metavar="ID", help="only this case id (repeatable)", **extra
        )


def add_parser(sub: Any, auth: Auth) -> None:
    """Register `eval` and its subcommands on the CLI's subparsers."""
    description = (
        "Run the evaluation suites (mock or real mode), the retrieval A/B "
        "harness, the judge calibration or one golden-probe run."
    )
    p = sub.add_parser("eval", help="run the evaluation suites", description=description)
    _common(p)
    _add_run_options(p)
    _add_gate_options(p)
    p.set_defaults(func=_lazy("suites_command", auth))
    p.add_argument(
        "--file",
        action="append",
        metavar="PATH",
        help="run the cases of this file instead of the suites (drafted cases: "
        "evals/candidates/live.jsonl; repeatable)",
    )
    cmds = p.add_subparsers(
        dest="eval_command", metavar="{retrieval-ab,judge,probes,candidates,add-case,shadow}"
    )
    _add_retrieval_ab(cmds, auth)
    _add_judge(cmds, auth)
    _add_probes(cmds, auth)
    _add_live(cmds, auth)


def _add_run_options(p: argparse.ArgumentParser) -> None:
    """How the suites run: mock or real, which suites, how often, on which engine."""
    p.add_argument(
        "--mode",
        choices=["mock", "real"],
        default="mock",
        help="mock: synthetic outcomes through the scorers (no stack); "
        "real: the running stack (default mock)",
    )
    p.add_argument(
        "--suite",
        action="append",
        metavar="NAME",
        help=", ".join(SUITES) + " (repeatable; default all)",
    )
    p.add_argument(
        "--repeat",
        type=_positive,
        default=1,
        metavar="N",
        help="run each case N times and report k of N per case",
    )
    p.add_argument(
        "--engine",
        choices=["offline", "openai"],
        help="real mode: the engine the stack must run (checked, never switched)",
    )


def _add_gate_options(p: argparse.ArgumentParser) -> None:
    """The release gate: compare with a baseline, or write one."""
    p.add_argument(
        "--baseline",
        nargs="?",
        const=str(BASELINE),
        metavar="PATH",
        help="real mode, the release gate: exit 1 only on a regression against "
        "the baseline (default evals/baseline.json)",
    )
    p.add_argument(
        "--write-baseline",
        metavar="PATH",
        help="real mode, every suite: write this run's failures and measures as "
        "a baseline (edit the reasons before committing it)",
    )


def _add_retrieval_ab(cmds: Any, auth: Auth) -> None:
    """`eval retrieval-ab`: two retrieval configurations on the retrieval suite."""
    r = cmds.add_parser(
        "retrieval-ab", help="compare two retrieval configurations on the retrieval suite"
    )
    _common(r, sub=True)
    r.add_argument(
        "--a",
        required=True,
        metavar="CONFIG",
        help="a configuration name (evals/configs/NAME.json) or a JSON file",
    )
    r.add_argument("--b", required=True, metavar="CONFIG", help="the configuration to compare")
    r.add_argument(
        "--pause",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="wait between cases (a reranker's rate limit); runs one at a time",
    )
    r.set_defaults(func=_lazy("ab_command", auth))


def _add_judge(cmds: Any, auth: Auth) -> None:
    """`eval judge`: the numeric check's (and the judge's) agreement with labels."""
    j = cmds.add_parser(
        "judge", help="agreement of the numeric check (and the judge) with labelled pairs"
    )
    _common(j, sub=True)
    j.add_argument(
        "--model",
        action="store_true",
        help="also run the judge step (the model judge with a model engine; the "
        "offline engine's judge is the numeric check)",
    )
    j.set_defaults(func=_lazy("judge_command", auth))


def _add_probes(cmds: Any, auth: Auth) -> None:
    """`eval probes`: one unrecorded run of the golden probes."""
    g = cmds.add_parser(
        "probes",
        help="run the golden probes once now (not recorded: the "
        "schedule's runs alone open incidents)",
    )
    _common(g, case=False, sub=True)
    g.add_argument(
        "--slice",
        action="append",
        metavar="NAME",
        help="single_figure, comparison, follow_up or boundary (repeatable)",
    )
    g.add_argument(
        "--corpus",
        metavar="VERSION",
        default=argparse.SUPPRESS,
        help="run on this earlier frozen snapshot of the index (a corpus version "
        "of a recent run) instead of freezing the index as it stands",
    )
    g.set_defaults(func=_lazy("probes_command", auth))


def _add_live(cmds: Any, auth: Auth) -> None:
    """`candidates` and `add-case`, from live turns that went wrong to regression cases;
    `shadow`, the shadow configuration's A/B report."""
    c = cmds.add_parser(
        "candidates",
        help="turns worth a regression case: rated wrong "
        "figure, or the turn of a failed golden probe",
    )
    _common(c, case=False, sub=True)
    c.set_defaults(func=_lazy("candidates_command", auth))
    a = cmds.add_parser(
        "add-case", help="draft a regression case from a turn, for a reviewer to confirm"
    )
    a.add_argument("--from-turn", required=True, metavar="TURN", help="the turn's id")
    a.add_argument(
        "--out",
        default=str(DRAFTED),
        metavar="PATH",
        help="the candidates file to append to (default evals/candidates/live.jsonl)",
    )
    a.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="print the drafted case"
    )
    a.set_defaults(func=_lazy("add_case_command", auth))
    sh = cmds.add_parser(
        "shadow",
        help="the shadow configuration's A/B report: sampled live "
        "turns beside their shadows (TURNSTILE_SHADOW_SAMPLE)",
    )
    _common(sh, case=False, sub=True)
    sh.set_defaults(func=_lazy("shadow_command", auth))


def _lazy(name: str, auth: Auth) -> Command:
    """The subcommand `name` of `evals.commands`, imported only when it runs."""

    def run(args: argparse.Namespace, settings: Settings) -> int:
        from evals import commands

        command: Callable[..., Any] = getattr(commands, name)
        return commands.run(command, args, settings, auth)

    return run


def used_temporal() -> bool:
    """Whether this process started a Temporal client, or tried to (`cli.main.entry`)."""
    commands = sys.modules.get("evals.commands")
    return commands is not None and bool(commands.used_temporal())
