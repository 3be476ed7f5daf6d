"""Bounds on what a tool call of ``/mcp`` may hold while it waits (docs/security.md, "Agents").

``wait_for_turn`` parks for up to a minute, and every tool call of one key waits its turn on the key's
agent (one call at a time per seat). Unbounded, one key sending a few thousand parked calls filled
uvicorn's task limit and the server answered nobody. So:

- at most :attr:`WaitGate.per_key` parked waits per API key, :attr:`WaitGate.per_user` per account and
  :attr:`WaitGate.per_address` per client address; one more is answered at once with the tool error
  ``too_many_waits: ... retry_after=<seconds>`` (an agent needs one, two at most, per seat);
- a call whose client went away stops waiting at once (the wait, or its place in the agent's queue);
- server shutdown does not wait for parked calls (``uvicorn_options``' graceful-shutdown bound).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from mcp.server.mcpserver import Context

from opolyx.client import OpolyxError
from opolyx.jsontypes import JSON
from opolyx.mcp.agent import AgentPlayer
from opolyx.protocol import errors as E

T = TypeVar("T")

TOO_MANY_WAITS = E.TOO_MANY_WAITS
CLIENT_GONE = E.CLIENT_GONE

# Where the endpoint leaves what it knows about a request, for the tool calls it carries.
SCOPE_KEY = "opolyx.mcp_call"


@dataclass
class McpCall:
    """One /mcp request: who sent it, from where, and an event set once its client has gone."""

    key_digest: str
    user_id: str
    address: str
    gone: asyncio.Event = field(default_factory=asyncio.Event)


def call_of(ctx: Context) -> McpCall | None:
    request = ctx.request_context.request
    scope: dict[str, Any] = getattr(request, "scope", None) or {}
    found = scope.get(SCOPE_KEY)
    return found if isinstance(found, McpCall) else None


class WaitGate:
    """Counts this process's tool calls in flight (``calls``) and parked waits (``waits``) by key, account
    and address."""

    # Parked waits (wait_for_turn).
    per_key = 2
    per_user = 4
    per_address = 8
    # Tool calls of any kind in flight, queued for their agent or running (each waits its turn behind a
    # parked wait).
    calls_per_key = 4
    calls_per_user = 8
    calls_per_address = 16
    # What a refused call is told to wait before trying again (a parked wait ends within a minute).
    retry_after = 5

    def __init__(self) -> None:
        self.parked: Counter[str] = Counter()

    @contextlib.contextmanager
    def slot(self, call: McpCall, parks: bool) -> Iterator[None]:
        held = [
            (f"calls:key:{call.key_digest}", self.calls_per_key, "tool calls are already in flight", "API key"),
            (f"calls:user:{call.user_id}", self.calls_per_user, "tool calls are already in flight", "account"),
            (f"calls:addr:{call.address}", self.calls_per_address, "tool calls are already in flight", "address"),
        ]
        if parks:
            held += [
                (f"key:{call.key_digest}", self.per_key, "waits are already parked", "API key"),
                (f"user:{call.user_id}", self.per_user, "waits are already parked", "account"),
                (f"addr:{call.address}", self.per_address, "waits are already parked", "address"),
            ]
        for name, cap, what, whose in held:
            if self.parked[name] >= cap:
                raise OpolyxError(
                    TOO_MANY_WAITS,
                    f"{cap} {what} for this {whose}; one at a time per seat is enough "
                    f"(retry_after={self.retry_after} s)",
                )
        for name, *_ in held:
            self.parked[name] += 1
        try:
            yield
        finally:
            for name, *_ in held:
                self.parked[name] -= 1
                if self.parked[name] <= 0:
                    del self.parked[name]

    async def __call__(
        self, ctx: Context, agent: AgentPlayer, fn: Callable[[AgentPlayer], Awaitable[JSON]], parks: bool
    ) -> JSON:
        """Run one tool call under the agent's lock, in a slot (refused when none is free); a parking
        one (``wait_for_turn``) stops when its client goes, any call stops queueing for the lock then."""
        call = call_of(ctx)
        if call is None:  # not an HTTP request of the endpoint (cannot happen there; stdio has no gate)
            async with agent.lock:
                return await fn(agent)
        with self.slot(call, parks):
            await until_gone(call, agent.lock.acquire(), on_abandon=agent.lock.release)
            try:
                return await (until_gone(call, fn(agent)) if parks else fn(agent))
            finally:
                agent.lock.release()


async def until_gone(call: McpCall, work: Awaitable[T], on_abandon: Callable[[], object] | None = None) -> T:
    """``await work``, unless the request's client leaves first: then the work is cancelled and the call
    ends with ``client_gone`` (nobody reads the answer). ``on_abandon`` undoes work that finished anyway."""
    task = asyncio.ensure_future(work)
    gone = asyncio.ensure_future(call.gone.wait())
    try:
        await asyncio.wait((task, gone), return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        await _abandon(task, on_abandon)
        raise
    finally:
        gone.cancel()
    if task.done():
        return task.result()
    await _abandon(task, on_abandon)
    raise OpolyxError(CLIENT_GONE, "the request's client went away")


async def _abandon(task: asyncio.Future[T], on_abandon: Callable[[], object] | None) -> None:
    task.cancel()
    await asyncio.wait((task,))
    if not task.cancelled() and task.exception() is None and on_abandon is not None:
        on_abandon()
