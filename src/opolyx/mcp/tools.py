"""The MCP server: opolyx's tools, described for a language model, over either transport.

``build_server(resolve)`` registers the tools once; ``resolve`` finds the calling agent (the single
agent of a stdio process, or the one named by the API key of an HTTP request). A refusal comes back
as a tool error reading ``<code>: <one-line explanation>``, with the server's stable codes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from opolyx import __version__
from opolyx.client import OpolyxError
from opolyx.engine.vocabulary import Mode
from opolyx.jsontypes import JSON
from opolyx.mcp.agent import MAX_WAIT_SECONDS, AgentPlayer

Resolve = Callable[[Context], Awaitable[AgentPlayer]]
# Runs one tool call for an agent (under its lock); the last argument is True for a call that parks
# (wait_for_turn). The HTTP endpoint bounds and releases parked calls with one (opolyx.server.agents.waits).
Guard = Callable[[Context, AgentPlayer, Callable[[AgentPlayer], Awaitable[JSON]], bool], Awaitable[JSON]]

INSTRUCTIONS = """\
You play opolyx, a Monopoly-style board game, at a table with people, bots and other agents.
Typical session: list_rooms or create_room (e.g. mode "blitz", seats 3, bots 2), then loop:
wait_for_turn -> read "summary" and "legal_actions" -> act with exactly one of the legal actions
(copy it; for a "propose_trade" template build a concrete offer) -> until "over" is true.
Every decision has a clock: if you take too long the server plays a timeout for you, and two missed
turns in a row forfeit your seat. Be brief in chat and polite.
"""


def explain(exc: OpolyxError) -> ToolError:
    text = f"{exc.code}: {exc.message}"
    if exc.reason:
        text += f" (engine: {exc.reason})"
    if exc.room:
        text += f" (your room: {exc.room})"
    return ToolError(text)


def build_server(resolve: Resolve, guard: Guard | None = None) -> MCPServer:
    mcp = MCPServer("opolyx", instructions=INSTRUCTIONS, version=__version__)

    async def run(ctx: Context, fn: Callable[[AgentPlayer], Awaitable[JSON]], parks: bool = False) -> JSON:
        try:
            agent = await resolve(ctx)
            if guard is not None:
                return await guard(ctx, agent, fn, parks)
            async with agent.lock:
                return await fn(agent)
        except OpolyxError as exc:
            raise explain(exc) from exc

    @mcp.tool()
    async def list_rooms(ctx: Context) -> JSON:
        """List public rooms: "waiting" ones you can join (by id) and "running" games.

        Each room shows its mode, status, seat count and who sits where (person, bot or agent)."""
        return await run(ctx, lambda a: a.list_rooms())

    @mcp.tool()
    async def create_room(
        ctx: Context,
        mode: Annotated[
            Mode,
            Field(description="Rules: blitz is the shortest game; classic the standard one."),
        ] = "blitz",
        seats: Annotated[int, Field(ge=2, le=6, description="Seats at the table, you included.")] = 3,
        bots: Annotated[int, Field(ge=0, le=5, description="Bots to seat at once (fewer than seats).")] = 2,
        bot_strength: Annotated[Literal["easy", "normal", "hard"], Field(description="Bots' strength.")] = "normal",
        public: Annotated[bool, Field(description="Listed in the lobby; private rooms get a join code.")] = True,
        start: Annotated[bool, Field(description="Start at once (needs at least two filled seats).")] = True,
    ) -> JSON:
        """Create a room, sit in it, seat bots and (by default) start the game.

        Returns the state like get_state. Leave start false to wait for others to join by the room's id
        or code, then call start_game."""
        return await run(ctx, lambda a: a.create_room(mode, seats, bots, bot_strength, public, start))

    @mcp.tool()
    async def join_room(
        ctx: Context,
        code: Annotated[str | None, Field(description="A private room's join code, e.g. 'K7Q2MX'.")] = None,
        room_id: Annotated[str | None, Field(description="Or a waiting public room's id from list_rooms.")] = None,
    ) -> JSON:
        """Take a free seat in a waiting room (by join code or id); the creator starts the game.

        Returns the state like get_state; then use wait_for_turn."""
        return await run(ctx, lambda a: a.join_room(code, room_id))

    @mcp.tool()
    async def start_game(ctx: Context) -> JSON:
        """Start the game in the room you created (at least two seats filled). Returns the state."""
        return await run(ctx, lambda a: a.start_game())

    @mcp.tool()
    async def get_state(ctx: Context) -> JSON:
        """The table now: a readable "summary" (players, cash, holdings, whose decision, recent events),
        "your_turn", "over"/"result", and "legal_actions": the exact actions you may send to act now."""
        return await run(ctx, lambda a: _now(a))

    @mcp.tool()
    async def act(
        ctx: Context,
        action: Annotated[
            dict[str, Any],
            Field(description='One entry of legal_actions, copied exactly, e.g. {"type": "roll"} or '
                  '{"type": "bid", "amount": 120}.'),
        ],
    ) -> JSON:
        """Play one action for your seat, chosen from legal_actions. Returns the new state.

        If the game moved on before your action arrived you get stale_state: look again and choose anew.
        Illegal actions are refused with illegal_action and change nothing."""
        return await run(ctx, lambda a: a.act(action))

    @mcp.tool()
    async def wait_for_turn(
        ctx: Context,
        timeout_seconds: Annotated[
            float, Field(ge=0, le=MAX_WAIT_SECONDS, description="Longest wait; at most 60 seconds.")
        ] = 30.0,
    ) -> JSON:
        """Wait until it is your decision (your turn, a bid, a payment or a trade answer) or the game
        ends, at most timeout_seconds. Returns the state, with "timed_out" true if nothing came.
        Call it once at a time: extra parallel waits are refused with too_many_waits."""
        return await run(ctx, lambda a: a.wait_for_turn(timeout_seconds), parks=True)

    @mcp.tool()
    async def read_chat(
        ctx: Context,
        since: Annotated[int, Field(ge=0, description="Only messages numbered above this ('last' of a read).")] = 0,
    ) -> JSON:
        """The table's chat messages (newest last) and "last": pass it as since next time."""
        return await run(ctx, lambda a: _chat(a, since))

    @mcp.tool()
    async def send_chat(
        ctx: Context, text: Annotated[str, Field(min_length=1, max_length=300, description="The message.")]
    ) -> JSON:
        """Say something to the table (at most 300 characters; rate-limited like everyone's chat)."""
        return await run(ctx, lambda a: a.send_chat(text))

    @mcp.tool()
    async def leave_room(ctx: Context) -> JSON:
        """Leave the room. In a running game this resigns your seat (or hands it to a bot, if the room
        says so); you are then free to join another game."""
        return await run(ctx, lambda a: a.leave_room())

    return mcp


async def _now(agent: AgentPlayer) -> JSON:
    return agent.state()


async def _chat(agent: AgentPlayer, since: int) -> JSON:
    return agent.read_chat(since)
