"""The API's Temporal client: every call bounded, so a stalled server is a quick 503.

A Temporal frontend that is stopped but not gone keeps its connection open and never
answers, and the SDK's calls then wait for as long as the stall lasts; one that refuses
connections is retried by the SDK for about five seconds. `connect` bounds both: the
client's retries give up after `temporal_rpc_timeout_seconds`, and `RpcDeadline` gives
every call that names no `rpc_timeout` of its own that bound. Long polls are left alone
(waiting for a workflow's result, or an update's outcome, is what they are for; the
routes bound those waits themselves).
"""

import dataclasses
from datetime import timedelta
from typing import Any

from temporalio.client import (
    CancelWorkflowInput,
    Client,
    DescribeWorkflowInput,
    Interceptor,
    OutboundInterceptor,
    QueryWorkflowInput,
    SignalWorkflowInput,
    StartWorkflowInput,
    StartWorkflowUpdateInput,
    TerminateWorkflowInput,
    WorkflowExecutionDescription,
    WorkflowHandle,
    WorkflowUpdateHandle,
)
from temporalio.service import RetryConfig

import payloads
import tracing
from settings import Settings


class RpcDeadline(Interceptor):
    """Give each short call without an `rpc_timeout` the API's bound."""

    def __init__(self, timeout: timedelta) -> None:
        self.timeout = timeout

    def intercept_client(self, next: OutboundInterceptor) -> OutboundInterceptor:
        return _Deadline(next, self.timeout)


class _Deadline(OutboundInterceptor):
    def __init__(self, next: OutboundInterceptor, timeout: timedelta) -> None:
        super().__init__(next)
        self.timeout = timeout

    def _bounded(self, input: Any) -> Any:
        if input.rpc_timeout is None:
            return dataclasses.replace(input, rpc_timeout=self.timeout)
        return input

    async def start_workflow(self, input: StartWorkflowInput) -> WorkflowHandle[Any, Any]:
        return await super().start_workflow(self._bounded(input))

    async def signal_workflow(self, input: SignalWorkflowInput) -> None:
        await super().signal_workflow(self._bounded(input))

    async def query_workflow(self, input: QueryWorkflowInput) -> Any:
        return await super().query_workflow(self._bounded(input))

    async def describe_workflow(self, input: DescribeWorkflowInput) -> WorkflowExecutionDescription:
        return await super().describe_workflow(self._bounded(input))

    async def cancel_workflow(self, input: CancelWorkflowInput) -> None:
        await super().cancel_workflow(self._bounded(input))

    async def terminate_workflow(self, input: TerminateWorkflowInput) -> None:
        await super().terminate_workflow(self._bounded(input))

    async def start_workflow_update(
        self, input: StartWorkflowUpdateInput
    ) -> WorkflowUpdateHandle[Any]:
        return await super().start_workflow_update(self._bounded(input))


async def connect(settings: Settings) -> Client:
    """The API's client: pydantic payloads (encrypted when a key is set), tracing, bounds."""
    bound = timedelta(seconds=settings.temporal_rpc_timeout_seconds)
    return await Client.connect(
        settings.effective_temporal_address,
        namespace=settings.temporal_namespace,
        data_converter=payloads.data_converter(settings),
        interceptors=[*tracing.interceptors(settings, "api"), RpcDeadline(bound)],
        retry_config=RetryConfig(max_elapsed_time_millis=int(bound.total_seconds() * 1000)),
    )
