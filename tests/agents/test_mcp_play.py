"""Issue 47: an agent plays whole games through the MCP tools and resources alone, as a model would.

The agent here is the official SDK client and knows only what the tools and resources expose: the board
and the rules come from ``opolyx://`` resources, the trade offer is built from the shape documented in
``act``'s description, and nothing of the engine is imported. Games are short (a rigged engine lowers
the round limit; bots are instant), so every mode is played to its end in seconds.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import sys
from collections.abc import Callable
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from server_kit import Person

from live_server import ThreadServer
from rigged_engine import RiggedEngine

pytestmark = pytest.mark.anyio

MODES = ["classic", "blitz", "speed", "team", "halal", "fortuna"]
# What one state may cost apart from its events (characters of its text: about four per token), at a
# table of four in the short games played here.
STATE_BUDGET = 2400
# What the whole tool list may cost.
TOOL_LIST_BUDGET = 11000
# Refusals an agent must expect between looking and acting: the game moves on without it.
MOVED_ON = ("stale_state", "clock_expired", "illegal_action", "game_not_running")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class ToolFailed(Exception):
    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text
        # The SDK puts "Error executing tool <name>: " before the tool's own "<code>: <explanation>".
        self.code = re.sub(r"^Error executing tool \w+: ", "", text).split(":", 1)[0].strip()


async def call(client: Client, tool: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    result = await client.call_tool(tool, args or {})
    text = " ".join(getattr(c, "text", "") for c in result.content)
    if result.is_error:
        raise ToolFailed(text)
    data = json.loads(text)
    assert isinstance(data, dict)
    return data


async def resource(client: Client, uri: str) -> dict[str, Any]:
    result = await client.read_resource(uri)
    return dict(json.loads(getattr(result.contents[0], "text", "")))


def http_client(server: ThreadServer, key: str) -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=90)
    return Client(streamable_http_client(server.base + "/mcp", http_client=http))


def choose(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any] | None:
    """A plain policy over the listed actions: buy, roll, pay; pass in auctions; decline offers."""
    usable = [a for a in legal if a["type"] not in ("resign", "propose_trade", "accept_trade", "cancel_trade")]
    for kind in ("buy", "roll", "jail_roll", "pay", "pass", "decline", "decline_trade", "jackpot_decline"):
        for action in usable:
            if action["type"] == kind:
                return action
    for action in usable:
        if action["type"] == "jackpot_bet":
            # One parameterised entry: the agent picks its own numbers.
            assert isinstance(action["numbers"], str)
            return {"type": "jackpot_bet", "numbers": sorted(rng.sample(range(1, 7), rng.randint(1, 3)))}
    return usable[0] if usable else None


def mine_from_template(template: dict[str, Any], board: dict[str, Any]) -> tuple[int, int, int] | None:
    """(partner, one of my squares, its price) for an offer, from the template and the board resource."""
    squares = template["give"]["squares"]
    if not squares:
        return None
    square = squares[0]
    price = next(s["price"] for s in board["squares"] if s["index"] == square)
    partner = next((p for p in template["to"] if template["take"][str(p)]["cash_max"] >= 3 * price), None)
    return None if partner is None else (partner, square, price)


async def try_a_trade(
    client: Client, state: dict[str, Any], board: dict[str, Any], fair_limit: int, events: list[str]
) -> int | None:
    """Offer one of my companies for cash: first overpaid (refused with both values and the limit), then
    fairly, written with the template's own keys. The new trade's id, or None when there is nothing to offer."""
    template = next((a for a in state["legal_actions"] if a["type"] == "propose_trade"), None)
    found = mine_from_template(template, board) if template else None
    if template is None or found is None:
        return None
    partner, square, price = found
    greedy = {"type": "propose_trade", "to": partner, "give": {"cash": 0, "squares": [square]},
              "take": {"cash": 3 * price, "squares": []}}
    with pytest.raises(ToolFailed) as refused:
        await call(client, "act", {"action": greedy, "seq": state["seq"]})
    if "(engine: unfair_trade)" not in refused.value.text:
        assert refused.value.code in MOVED_ON, refused.value.text
        return None  # the table moved on meanwhile (a bot, a clock): try at the next turn
    assert refused.value.code == "illegal_action"
    data = json.loads(refused.value.text.split("data=", 1)[1])
    assert data["give_value"] == price and data["take_value"] == 3 * price
    assert data["fairness_percent"] == fair_limit and data["smaller_side_at_least"] == -(-3 * price * fair_limit // 100)
    # The template copied and filled in: its "template" and "fairness_percent" keys, "to" as a list,
    # "take" keyed by seat and "cash_max" left in.
    offer = json.loads(json.dumps(template))
    offer["to"] = [partner]
    offer["give"]["squares"] = [square]
    offer["take"] = {str(partner): {"cash": price, "cash_max": offer["take"][str(partner)]["cash_max"], "squares": []}}
    try:
        after = await call(client, "act", {"action": offer, "seq": state["seq"]})
    except ToolFailed as exc:
        assert exc.code in MOVED_ON, exc.text
        return None
    events += after["events"]
    proposed = [e for e in after["events"] if " trade_proposed " in e and f"from={after['your_seat']}" in e]
    assert proposed, after["events"]
    return int(re.search(r"\bid=(\d+)", proposed[-1]).group(1))  # type: ignore[union-attr]


async def play_to_the_end(client: Client, mode: str, rng: random.Random) -> dict[str, Any]:
    """The model's loop in one mode; what it saw, for the assertions."""
    rules = await resource(client, f"opolyx://rules/{mode}")
    board = await resource(client, f"opolyx://board/{rules['board']}")
    seats = 4 if mode == "team" else 3
    state = await call(client, "create_room", {"mode": mode, "seats": seats, "bots": seats - 1})
    seen = {"events": list(state["events"]), "sizes": [], "trade": None, "states": 0, "deadlines": 0}
    # The rigged server plays 4 rounds, whatever the mode's table says; the summary tells the game's own.
    limit = 4
    while not state["over"]:
        state = await call(client, "wait_for_turn", {"timeout_seconds": 20})
        seen["events"] += state["events"]
        # The table itself, apart from the events since the last call (at most 40 lines, however long).
        table = {k: v for k, v in state.items() if k != "events"}
        seen["sizes"].append(len(json.dumps(table, separators=(",", ":"))))
        assert len(state["events"]) <= 41
        seen["states"] += 1
        assert re.search(rf"Round \d+ of {limit}\b", state["summary"]) or state["over"], state["summary"]
        if not state["your_turn"] or state["over"]:
            continue
        deadline = state.get("your_deadline")  # absent when only a trade answer is asked of the seat
        if deadline is not None:
            assert deadline["seconds_left"] >= 0 and deadline["ends_at"].endswith("Z")
            seen["deadlines"] += 1
        try:
            if seen["trade"] is None:
                seen["trade"] = await try_a_trade(client, state, board, rules_fairness(rules), seen["events"])
                if seen["trade"] is not None:
                    continue
            action = choose(state["legal_actions"], rng)
            if action is not None:
                state = await call(client, "act", {"action": action, "seq": state["seq"]})
                seen["events"] += state["events"]
        except ToolFailed as exc:
            assert exc.code in MOVED_ON, exc.text
    assert state["result"]["placements"] and "Game over" in state["summary"]
    seen["final"] = state
    return seen


def rules_fairness(rules: dict[str, Any]) -> int:
    return int(re.search(r"at least (\d+) %", rules["trades"]["fairness"]).group(1))  # type: ignore[union-attr]


def short_games(**overrides: Any) -> dict[str, Any]:
    return {"engine": lambda: RiggedEngine(rules={"round_limit": 4}), **overrides}


async def test_an_agent_plays_every_mode_to_the_end_from_the_tools_alone(
    start_server: Callable[..., ThreadServer],
) -> None:
    server = start_server(**short_games())
    owner = Person(server.base, "Ada")
    rng = random.Random(47)
    traded = []
    try:
        key = owner.post("/api/keys", {"label": "test agent"}).json()["key"]
        async with http_client(server, key) as client:
            tools = (await client.list_tools()).tools
            listing = json.dumps([t.model_dump(mode="json", exclude_none=True, by_alias=True) for t in tools])
            assert len(listing) <= TOOL_LIST_BUDGET, len(listing)
            for mode in MODES:
                seen = await play_to_the_end(client, mode, rng)
                assert max(seen["sizes"]) <= STATE_BUDGET, (mode, max(seen["sizes"]))
                assert seen["deadlines"] > 0
                # Events since the last call: every action's seq reached the agent, none twice.
                seqs = [int(line.split(" ", 1)[0]) for line in seen["events"] if line[0].isdigit()]
                assert seqs == sorted(seqs)
                final = seen["final"]
                missing = set(range(1, max(seqs) + 1)) - set(seqs)
                assert not missing, (mode, sorted(missing))
                assert (await call(client, "leave_room"))["status"] == "finished"
                if seen["trade"] is not None:
                    answer = re.compile(rf"trade_\w+ .*\b(trade|id)={seen['trade']}\b")
                    answered = [e for e in seen["events"] if answer.search(e) and " trade_proposed " not in e]
                    assert answered, (mode, seen["events"][-30:])
                    traded.append(mode)
                assert final["over"]
    finally:
        owner.close()
    assert traded, "no game gave the agent a company to offer"


async def test_tools_are_annotated_and_resources_and_prompts_are_not_empty(server: ThreadServer, people: Any) -> None:
    key = people("Ada").post("/api/keys", {"label": "test agent"}).json()["key"]
    async with http_client(server, key) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for name in ("get_state", "get_rules", "list_rooms", "read_chat"):
            assert tools[name].annotations.read_only_hint is True, name
        assert tools["leave_room"].annotations.destructive_hint is True
        assert tools["act"].annotations.read_only_hint is False
        for tool in tools.values():
            assert "\n    " not in (tool.description or ""), tool.name
        assert "propose_trade" in tools["act"].description and '"give"' in tools["act"].description
        for mode in MODES:
            assert mode in tools["create_room"].input_schema["properties"]["mode"]["description"]
        assert re.search(r"'[A-Z0-9]{8}'", tools["join_room"].input_schema["properties"]["code"]["description"])
        uris = {str(r.uri) for r in (await client.list_resources()).resources}
        assert {f"opolyx://rules/{m}" for m in MODES} | {"opolyx://board/classic", "opolyx://board/fortuna"} <= uris
        assert (await client.list_prompts()).prompts
        rules = await call(client, "get_rules", {"mode": "blitz"})
        assert rules["rules"]["round_limit"] == 25 and len(rules["board"]["squares"]) == 40
        # A schema violation is one line with the field, not pydantic's report with a URL.
        with pytest.raises(ToolFailed) as bad:
            await call(client, "wait_for_turn", {"timeout_seconds": 600})
        assert bad.value.code == "invalid_arguments" and "timeout_seconds" in bad.value.text
        assert "\n" not in bad.value.text and "http" not in bad.value.text


def auction_engine() -> RiggedEngine:
    """The agent (seat 0, first) rolls 1+2 onto brown B (price 600): declining it starts an auction."""
    return RiggedEngine(first_player=0, dice=[(1, 2)])


async def seat_at_an_auction(client: Client) -> dict[str, Any]:
    """Create a 2-seat room with a bot, roll, decline: the state once the agent is asked to bid."""
    state = await call(client, "create_room", {"mode": "blitz", "seats": 2, "bots": 1})
    state = await call(client, "act", {"action": {"type": "roll"}, "seq": state["seq"]})
    assert {"type": "decline"} in state["legal_actions"], state
    state = await call(client, "act", {"action": {"type": "decline"}, "seq": state["seq"]})
    if not any(a["type"] == "bid" for a in state["legal_actions"]):
        state = await call(client, "wait_for_turn", {"timeout_seconds": 10})
    assert any(a["type"] == "bid" for a in state["legal_actions"]), state
    assert "Auction of 3 " in state["summary"]
    return state


async def test_a_late_bid_gets_clock_expired_with_its_deadline(start_server: Callable[..., ThreadServer]) -> None:
    # A tenth of the real clocks: the 10 s bid clock runs out in one second.
    server = start_server(engine=auction_engine, clock_scale=0.1)
    owner = Person(server.base, "Ada")
    try:
        key = owner.post("/api/keys", {"label": "slow agent"}).json()["key"]
        async with http_client(server, key) as client:
            state = await seat_at_an_auction(client)
            deadline = state["your_deadline"]
            assert deadline["clock"] == "auction" and 0 < deadline["seconds_left"] <= 1.0
            bid = next(a for a in state["legal_actions"] if a["type"] == "bid")
            await asyncio.sleep(deadline["seconds_left"] + 0.6)  # the model thinks too long
            with pytest.raises(ToolFailed) as late:
                await call(client, "act", {"action": bid})
            assert late.value.code == "clock_expired", late.value.text
            data = json.loads(late.value.text.split("data=", 1)[1])
            assert data["clock"] == "auction" and data["deadline"] == deadline["ends_at"]
            assert data["late_by_seconds"] >= 0
            # The agent's own timeout is among its next events.
            after = await call(client, "get_state")
            assert any("auction_passed" in e and "reason=\"timeout\"" in e for e in after["events"]), after["events"]
    finally:
        owner.close()


async def test_a_standing_maximum_bids_within_the_clock(start_server: Callable[..., ThreadServer]) -> None:
    server = start_server(engine=auction_engine, clock_scale=0.1)
    owner = Person(server.base, "Ada")
    try:
        key = owner.post("/api/keys", {"label": "slow agent"}).json()["key"]
        async with http_client(server, key) as client:
            state = await seat_at_an_auction(client)
            state = await call(client, "set_max_bid", {"amount": 900})
            assert "your standing maximum 900" in state["summary"] or "Auction of" not in state["summary"]
            await asyncio.sleep(3)  # far longer than a bid's clock: the server bids for the agent
            after = await call(client, "get_state")
            events = state["events"] + after["events"]
            assert not any("auction_passed" in e and "seat=0" in e and "timeout" in e for e in events), events
            bids = [e for e in events if " bid_placed " in e or (" auction_bid" in e and "seat=0" in e)]
            won_or_passed = [e for e in events if "auction_won" in e or ("auction_passed" in e and "seat=0" in e)]
            assert bids or won_or_passed, events
            assert "Auction of 3 " not in after["summary"]
    finally:
        owner.close()


async def test_a_maximum_for_every_auction_bids_before_the_agent_is_asked(
    start_server: Callable[..., ThreadServer],
) -> None:
    server = start_server(engine=auction_engine, clock_scale=0.1)
    owner = Person(server.base, "Ada")
    try:
        key = owner.post("/api/keys", {"label": "slow agent"}).json()["key"]
        async with http_client(server, key) as client:
            state = await call(client, "create_room", {"mode": "blitz", "seats": 2, "bots": 1})
            state = await call(client, "set_max_bid", {"amount": 800, "every_auction": True})
            state = await call(client, "act", {"action": {"type": "roll"}, "seq": state["seq"]})
            state = await call(client, "act", {"action": {"type": "decline"}, "seq": state["seq"]})
            await asyncio.sleep(2)  # two bid clocks: nobody asks the agent
            after = await call(client, "get_state")
            events = state["events"] + after["events"]
            mine = [e for e in events if e.split(" ")[1].startswith("auction_") and "seat=0" in e]
            assert mine and not any("timeout" in e for e in mine), events
            assert any(" auction_won " in e or " auction_unsold " in e for e in events), events
    finally:
        owner.close()


async def test_a_stale_seq_gets_stale_state(server: ThreadServer, people: Any) -> None:
    key = people("Ada").post("/api/keys", {"label": "test agent"}).json()["key"]
    async with http_client(server, key) as client:
        state = await call(client, "create_room", {"mode": "blitz", "seats": 2, "bots": 1, "start": True})
        while not state["your_turn"]:
            state = await call(client, "wait_for_turn", {"timeout_seconds": 10})
        action = choose(state["legal_actions"], random.Random(1))
        assert action is not None
        with pytest.raises(ToolFailed) as stale:
            await call(client, "act", {"action": action, "seq": state["seq"] + 5})
        assert stale.value.code == "stale_state", stale.value.text
        with pytest.raises(ToolFailed) as stale:
            await call(client, "act", {"action": action, "seq": max(0, state["seq"] - 1)} if state["seq"] else
                       {"action": action, "seq": 99})
        assert stale.value.code in ("stale_state", "clock_expired")
        # The current seq is accepted.
        now = await call(client, "get_state")
        if now["your_turn"]:
            await call(client, "act", {"action": choose(now["legal_actions"], random.Random(2)), "seq": now["seq"]})


async def test_rate_limits_arrive_as_tool_errors_with_a_retry_time(start_server: Callable[..., ThreadServer]) -> None:
    server = start_server(rate_ws_burst=6, rate_ws_per_second=0.5)
    owner = Person(server.base, "Ada")
    try:
        key = owner.post("/api/keys", {"label": "busy agent"}).json()["key"]
        async with http_client(server, key) as client:
            codes = []
            for _ in range(10):
                try:
                    await call(client, "get_rules", {})
                    codes.append("ok")
                except ToolFailed as exc:
                    codes.append(exc.text)
        refused = [c for c in codes if c != "ok"]
        assert refused and all(c.startswith("rate_limited: ") and "retry_after=2 s" in c for c in refused), codes
    finally:
        owner.close()


async def test_a_revoked_key_arrives_as_a_tool_error_over_http(server: ThreadServer, people: Any) -> None:
    owner = people("Ada")
    made = owner.post("/api/keys", {"label": "test agent"}).json()
    async with http_client(server, made["key"]) as client:
        await call(client, "create_room", {"mode": "blitz", "seats": 2, "bots": 1})
        assert owner.http.delete(f"/api/keys/{made['id']}").status_code == 204
        with pytest.raises(ToolFailed) as gone:
            await call(client, "get_state")
    assert gone.value.code == "not_authenticated" and "revoked" in gone.value.text


async def test_a_revoked_key_arrives_as_a_tool_error_over_stdio(server: ThreadServer, people: Any) -> None:
    owner = people("Ada")
    made = owner.post("/api/keys", {"label": "desktop agent"}).json()
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from opolyx.cli import app; app()", "mcp", "--server", server.base, "--key", made["key"]],
        # The SDK starts the process with a bare environment; this checkout's code is the one under test.
        env={**os.environ},
    )
    async with Client(params) as client:
        await call(client, "create_room", {"mode": "blitz", "seats": 2, "bots": 1, "start": False})
        assert owner.http.delete(f"/api/keys/{made['id']}").status_code == 204
        with pytest.raises(ToolFailed) as gone:
            await call(client, "start_game")
    assert gone.value.code == "not_authenticated" and "revoked" in gone.value.text
    assert "guest session" not in gone.value.text
