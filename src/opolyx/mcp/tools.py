"""The MCP server: opolyx's tools, resources and prompt, described for a language model, over either
transport.

``build_server(resolve)`` registers them once; ``resolve`` finds the calling agent (the single agent of
a stdio process, or the one named by the API key of an HTTP request). A refusal comes back as a tool
error reading ``<code>: <one-line explanation>``, with the server's stable codes, plus ``retry_after``
where waiting helps and ``data={...}`` where the refusal has numbers (an unfair trade's values). Arguments
that break a tool's schema are answered in one line too, not pydantic's multi-line report.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal, cast

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from opolyx import __version__
from opolyx.client import OpolyxError
from opolyx.engine.vocabulary import Mode
from opolyx.jsontypes import JSON
from opolyx.mcp.agent import MAX_WAIT_SECONDS, AgentPlayer
from opolyx.mcp.rulebook import MODES, board_data, mode_data, mode_line, rules_for

Resolve = Callable[[Context], Awaitable[AgentPlayer]]
# Runs one tool call for an agent (under its lock); the last argument is True for a call that parks
# (wait_for_turn). The HTTP endpoint bounds and releases parked calls with one (opolyx.server.agents.waits).
Guard = Callable[[Context, AgentPlayer, Callable[[AgentPlayer], Awaitable[JSON]], bool], Awaitable[JSON]]

# What to wait after a refusal for going too fast when the server names no time.
DEFAULT_RETRY_AFTER = 2.0

INSTRUCTIONS = """\
You play opolyx, a Monopoly-style board game, at a table with people, bots and other agents.
Typical session: list_rooms or create_room (e.g. mode "blitz", seats 3, bots 2), then loop:
wait_for_turn -> read "summary", "events" and "legal_actions" -> act with one legal action (pass the
state's "seq" to be sure it is still current) -> until "over" is true.
Rules and board (prices, rents, groups, build costs, the trade fairness rule): get_rules, or the
resources opolyx://rules/<mode> and opolyx://board/<board>.
Every decision has a clock ("your_deadline"): a late action gets clock_expired and the server plays a
safe default; two missed turns in a row forfeit your seat. Auction bids have 10 s: name the most you
would pay with set_max_bid (every_auction true for all of them) and the server bids for you in time.
Be brief in chat and polite."""

ACT_DESCRIPTION = """\
Play one action for your seat, chosen from legal_actions. Returns the new state.

Copy an entry of legal_actions; a "jackpot_bet" entry takes "numbers": 1-3 different numbers from
1-6, e.g. {"type": "jackpot_bet", "numbers": [2, 5]}.

A trade offer (the "propose_trade" entry is a template listing what may be offered):
{"type": "propose_trade", "to": <seat>, "give": {"cash": <int>, "squares": [<square>...]},
 "take": {"cash": <int>, "squares": [<square>...]}}
"give" is what you hand over, "take" what you get; squares from the template's lists (your own under
"give", the partner's under take["<seat>"]). Example: {"type": "propose_trade", "to": 2,
"give": {"cash": 500, "squares": [6]}, "take": {"cash": 0, "squares": [9]}}. The template's own keys
are accepted too (take keyed by seat, cash_max, template). Fairness: the smaller side must be worth at
least fairness_percent of the larger (cash at face value, a company at its price; mortgaged: price minus
its redemption cost); unfair_trade carries both values and the limit. Answer offers with accept_trade or
decline_trade.

Pass "seq" (the state's) to act only on the state you decided on: stale_state if the game moved.
clock_expired means your decision's clock ran out first (the timeout played a default)."""

# What a client may do without asking its user: read-only tools change nothing; leaving resigns a game.
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False)
PLAYS = ToolAnnotations(read_only_hint=False, destructive_hint=False)
LEAVES = ToolAnnotations(read_only_hint=False, destructive_hint=True)


def explain(exc: OpolyxError) -> ToolError:
    """The tool error of a refusal: code, one line, and what helps (a retry time, the numbers)."""
    message = exc.message
    if exc.code == "not_authenticated":
        message = (
            "the server no longer accepts this API key (revoked, expired or its account deleted); "
            "make a new key on your profile page and restart the connector; retrying will not help"
        )
    text = f"{exc.code}: {message}"
    if exc.reason:
        text += f" (engine: {exc.reason})"
    if exc.room:
        text += f" (your room: {exc.room})"
    if exc.code in ("rate_limited", "too_many_waits") and "retry_after" not in text:
        text += f" (retry_after={exc.retry_after or DEFAULT_RETRY_AFTER:g} s)"
    if exc.data:
        text += f" data={json.dumps(exc.data, separators=(',', ':'))}"
    return ToolError(text)


def compact(data: JSON) -> JSON:
    """The answer as a tool result whose text is compact JSON (the SDK's own is indented, which cost a
    third of a game's tokens), with the same data as structured content. Typed as the data it carries,
    so the tool's output schema stays that of its answer."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return cast(JSON, CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data))


def compact_validation(error: ValidationError) -> str:
    """``invalid_arguments: field: problem; ...`` in one line, without pydantic's URLs."""
    problems = []
    for err in error.errors()[:4]:
        where = ".".join(str(part) for part in err.get("loc", ()) if part != "arguments") or "arguments"
        problems.append(f"{where}: {err.get('msg', 'invalid')}")
    return "invalid_arguments: " + "; ".join(problems)


class OpolyxMCP(MCPServer):
    """The SDK's server, with argument errors answered in one line."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context | None = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(compact_validation(exc.__cause__)) from exc.__cause__
            raise


def _described(fn: Callable[..., Any]) -> str:
    return inspect.cleandoc(fn.__doc__ or "")


MODE_HELP = "Rules: " + "; ".join(mode_line(m) for m in MODES) + "."


def build_server(resolve: Resolve, guard: Guard | None = None) -> MCPServer:
    mcp = OpolyxMCP("opolyx", instructions=INSTRUCTIONS, version=__version__)

    def tool(annotations: ToolAnnotations, description: str | None = None) -> Callable[[Any], Any]:
        def register(fn: Callable[..., Any]) -> Any:
            # No output schema: answers are the compact text and the same data as structured content
            # (``compact``), and a schema that says only "an object" cost each tool's listing 80 characters.
            mcp.add_tool(
                fn, description=description or _described(fn), annotations=annotations, structured_output=False
            )
            return fn

        return register

    async def run(ctx: Context, fn: Callable[[AgentPlayer], Awaitable[JSON]], parks: bool = False) -> JSON:
        try:
            agent = await resolve(ctx)
            if guard is not None:
                return compact(await guard(ctx, agent, fn, parks))
            async with agent.lock:
                return compact(await fn(agent))
        except OpolyxError as exc:
            raise explain(exc) from exc

    @tool(READ_ONLY)
    async def list_rooms(ctx: Context) -> JSON:
        """List public rooms: "waiting" ones you can join (by id) and "running" games.
        Each room shows its mode, status, seat count and who sits where (person, bot or agent)."""
        return await run(ctx, lambda a: a.list_rooms())

    @tool(PLAYS)
    async def create_room(
        ctx: Context,
        mode: Annotated[Mode, Field(description=MODE_HELP)] = "blitz",
        seats: Annotated[int, Field(ge=2, le=6, description="Seats at the table, you included (team: 4 or 6).")] = 3,
        bots: Annotated[int, Field(ge=0, le=5, description="Bots to seat at once (fewer than seats).")] = 2,
        bot_strength: Annotated[Literal["easy", "normal", "hard"], Field(description="Bots' strength.")] = "normal",
        public: Annotated[bool, Field(description="Listed in the lobby; private rooms get a join code.")] = True,
        start: Annotated[bool, Field(description="Start at once (needs at least two filled seats).")] = True,
    ) -> JSON:
        """Create a room, sit in it, seat bots and (by default) start the game. Returns the state like
        get_state. Leave start false to wait for others to join by the room's id or code, then call
        start_game."""
        return await run(ctx, lambda a: a.create_room(mode, seats, bots, bot_strength, public, start))

    @tool(PLAYS)
    async def join_room(
        ctx: Context,
        code: Annotated[str | None, Field(description="A private room's 8-character join code, e.g. 'K7Q2MXW4'.")]
        = None,
        room_id: Annotated[str | None, Field(description="Or a waiting public room's id from list_rooms.")] = None,
    ) -> JSON:
        """Take a free seat in a waiting room (by join code or id); the creator starts the game.
        Returns the state like get_state; then use wait_for_turn."""
        return await run(ctx, lambda a: a.join_room(code, room_id))

    @tool(PLAYS)
    async def start_game(ctx: Context) -> JSON:
        """Start the game in the room you created (at least two seats filled). Returns the state."""
        return await run(ctx, lambda a: a.start_game())

    @tool(READ_ONLY)
    async def get_state(ctx: Context) -> JSON:
        """The table now: "summary" (round of the limit, players, cash, holdings with group, rent and build
        cost, whose decision and seconds left), "events" since your previous call, "your_turn",
        "your_deadline", "seq", "over"/"result", and "legal_actions": what you may send to act now."""
        return await run(ctx, lambda a: _now(a))

    @tool(READ_ONLY)
    async def get_rules(
        ctx: Context,
        mode: Annotated[Mode | None, Field(description="A mode; omit for the list of modes.")] = None,
    ) -> JSON:
        """The mode's rules (round limit, clocks, auction, building, mortgage, jackpot, trade fairness and
        how a company is valued) and its board (every square: name, group, price, rents by level, build
        and mortgage cost). The same as the resources opolyx://rules/<mode> and opolyx://board/<board>."""
        return compact(rules_for(mode))

    @tool(PLAYS, ACT_DESCRIPTION)
    async def act(
        ctx: Context,
        action: Annotated[
            dict[str, Any],
            Field(description='One entry of legal_actions, e.g. {"type": "roll"} or {"type": "bid", "amount": 1200}.'),
        ],
        seq: Annotated[
            int | None, Field(ge=0, description="The state's seq you decided on; stale_state if the game moved.")
        ] = None,
    ) -> JSON:
        return await run(ctx, lambda a: a.act(action, seq))

    @tool(PLAYS)
    async def set_max_bid(
        ctx: Context,
        amount: Annotated[int, Field(ge=0, description="The most you will pay; 0 clears.")],
        every_auction: Annotated[
            bool, Field(description="For every auction from now on (until cleared), not just this or the next.")
        ] = False,
    ) -> JSON:
        """A standing maximum bid for the running auction (or, with none running, the next one: set it
        before you decline a purchase), or for every auction: each time the bidding comes round to you the
        server bids the minimum for you (raises are exactly one step) while it is at most this amount, and
        passes once it is above, within the 10 s bid clock however long you think. Returns the state."""
        return await run(ctx, lambda a: _max_bid(a, amount, every_auction))

    @tool(READ_ONLY)
    async def wait_for_turn(
        ctx: Context,
        timeout_seconds: Annotated[
            float, Field(ge=0, le=MAX_WAIT_SECONDS, description="Longest wait; at most 60 seconds.")
        ] = 30.0,
    ) -> JSON:
        """Wait until you must decide (your turn, a bid without a standing maximum, a payment or a trade
        answer) or the game ends, at most timeout_seconds. Returns the state, "timed_out" true if nothing
        came. One at a time: extra parallel waits are refused with too_many_waits."""
        return await run(ctx, lambda a: a.wait_for_turn(timeout_seconds), parks=True)

    @tool(READ_ONLY)
    async def read_chat(
        ctx: Context,
        since: Annotated[int, Field(ge=0, description="Only messages numbered above this ('last' of a read).")] = 0,
    ) -> JSON:
        """The table's chat messages (newest last) and "last": pass it as since next time."""
        return await run(ctx, lambda a: _chat(a, since))

    @tool(PLAYS)
    async def send_chat(
        ctx: Context, text: Annotated[str, Field(min_length=1, max_length=300, description="The message.")]
    ) -> JSON:
        """Say something to the table (at most 300 characters; rate-limited like everyone's chat)."""
        return await run(ctx, lambda a: a.send_chat(text))

    @tool(LEAVES)
    async def leave_room(ctx: Context) -> JSON:
        """Leave the room. In a running game this resigns your seat (or hands it to a bot, if the room
        says so); after the end it just stands you up. You are then free to join another game."""
        return await run(ctx, lambda a: a.leave_room())

    for mode in MODES:
        _rules_resource(mcp, mode)
    for board in sorted({str(mode_data(m)["board"]) for m in MODES}):
        _board_resource(mcp, board)

    @mcp.prompt(description="How to play a game of opolyx with these tools, start to end.")
    def play_opolyx(mode: str = "blitz") -> str:
        return (
            f"{INSTRUCTIONS}\n\nCreate a {mode} room with bots (create_room), read get_rules once, then "
            "play until the game is over: wait_for_turn, decide from summary, events and legal_actions, "
            "act with the state's seq."
        )

    return mcp


def _rules_resource(mcp: MCPServer, mode: str) -> None:
    @mcp.resource(
        f"opolyx://rules/{mode}",
        name=f"rules-{mode}",
        description=f"The {mode} mode's rules: {mode_line(mode)}",
        mime_type="application/json",
    )
    def rules() -> str:
        return json.dumps(mode_data(mode), separators=(",", ":"))


def _board_resource(mcp: MCPServer, board: str) -> None:
    @mcp.resource(
        f"opolyx://board/{board}",
        name=f"board-{board}",
        description=f"The {board} board: every square's name, group, price, rents by level, build and mortgage cost.",
        mime_type="application/json",
    )
    def squares() -> str:
        return json.dumps(board_data(board), separators=(",", ":"))


async def _now(agent: AgentPlayer) -> JSON:
    return agent.state()


async def _max_bid(agent: AgentPlayer, amount: int, every_auction: bool) -> JSON:
    return await agent.set_max_bid(amount, every_auction)


async def _chat(agent: AgentPlayer, since: int) -> JSON:
    return agent.read_chat(since)
