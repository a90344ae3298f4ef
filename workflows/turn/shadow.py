"""A turn's shadow: the same question answered by a second engine configuration on its own
task queue, started once the live turn has settled and never waited for (shadow mode,
docs/evaluation.md)."""

from temporalio import workflow
from temporalio.workflow import ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from domain.turns import TurnResult
    from workflows.contracts import TurnInput
    from workflows.turn_start import start_options

SHADOW_RUNS = "shadow-runs-v1"
"""A turn in the shadow sample starts its shadow once settled; asked only on that path."""
SHADOWED: frozenset[str] = frozenset({"answered", "refused", "fallback"})
"""The outcomes a shadow is started for: a question answered, refused or fallen back on
(not a preference stated, a turn failed, cancelled or left unanswered)."""
SHADOW_CLARIFICATION_SECONDS = 1.0
"""A shadow that asks back waits for nobody: its question expires at once, and counts as
the question it asked."""


async def start_shadow(inp: TurnInput, result: TurnResult) -> None:
    """Start the turn's shadow when it is in the sample, and never wait for it.

    It starts after the turn has settled, been saved and streamed, so it cannot slow
    or change what the person is shown: a ChatTurn of the shadow configuration on its
    own queue (`TurnInput.shadow_of`: it writes nothing but its record), abandoned,
    never cancelled, when this workflow ends. Fail-open: a shadow that cannot start
    is logged, and the live turn is already whole."""
    plan = inp.shadow
    if plan is None or inp.shadow_of is not None or result.route == "remember":
        return
    if result.status not in SHADOWED or not workflow.patched(SHADOW_RUNS):
        return
    shadow = inp.model_copy(
        update={
            "shadow_of": inp.turn_id,
            "answer_cache": False,
            "index_task_queue": None,
            "snapshot": None,
            "engine_in_process": plan.engine_in_process,
            "clarification_timeout_seconds": SHADOW_CLARIFICATION_SECONDS,
        }
    )
    options = start_options(shadow, summary=f"shadow of {inp.turn_id}")
    options["id"] = f"shadow-{inp.turn_id}"
    try:
        await workflow.start_child_workflow(
            "ChatTurn",
            shadow,
            task_queue=plan.task_queue,
            parent_close_policy=ParentClosePolicy.ABANDON,
            **options,
        )
    except workflow.NondeterminismError:
        raise
    except Exception as err:  # the live turn has settled: a shadow never fails it
        workflow.logger.warning("shadow of %s not started: %s", inp.turn_id, err)
