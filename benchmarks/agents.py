"""MCP connector figures: tool-call latency, what a game costs a model, and a model's thinking time.

Each agent is the official MCP SDK client with its own personal API key, talking to the server's /mcp
endpoint; it creates a Blitz room with two instant bots and plays its seat to the end, as a model
would (wait_for_turn, then act with one of the legal actions and the state's seq). Prints:

- per-tool latency (p50/p95/max), games per minute and tool calls per second;
- what a game costs a model: tokens of tool results and arguments per game (characters / 4, the usual
  rule of thumb for English and JSON), tokens of the tool list, tool calls per decision and per round;
- the share of the game's events delivered to the agent (its ``events``, against the finished game's
  replay), beside what the former "last 8 events" summary would have shown;
- with ``--think S``: games where the model thinks S seconds before every decision, on a server whose
  clocks run at ``--scale`` (12 s against a 10 s bid clock is 0.6 s against 0.5 s at scale 0.05): how
  many decisions came too late (``clock_expired``), first acting on auctions itself, then with a standing
  maximum bid for every auction (``set_max_bid`` once, at the start).

    python benchmarks/agents.py --agents 4                 # starts its own server on a temporary SQLite file
    python benchmarks/agents.py --agents 1 --think 12 --scale 0.05
    python benchmarks/agents.py --server http://127.0.0.1:8000 --agents 2
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load import choose, own_server

Latencies = dict[str, list[float]]
# The former summary repeated this many of the latest events.
FORMER_RECENT = 8
CHARS_PER_TOKEN = 4


@dataclass
class Game:
    """What one agent's game cost and saw."""

    room: str = ""
    calls: int = 0
    chars: int = 0
    decisions: int = 0
    rounds: int = 0
    delivered: int = 0
    state_seqs: list[int] = field(default_factory=list)
    outcomes: Counter[str] = field(default_factory=Counter)
    # Which clocks a late decision missed, and the seat's own timeouts among its events.
    late_clocks: Counter[str] = field(default_factory=Counter)
    own_timeouts: int = 0
    total_events: int = 0
    former_delivered: int = 0


def make_key(base: str, n: int) -> str:
    with httpx.Client(base_url=base, timeout=30) as http:
        token = http.post("/api/session", json={"nickname": f"Agent{n}", "token": True}).json()["token"]
        r = http.post("/api/keys", json={"label": "bench"}, headers={"Authorization": f"Bearer {token}"})
        r.raise_for_status()
        return str(r.json()["key"])


async def timed(
    client: Client, times: Latencies, game: Game, tool: str, args: dict[str, Any]
) -> tuple[dict[str, Any] | None, str]:
    """(the answer, or None on a tool error; the error's code or "ok")."""
    start = time.perf_counter()
    result = await client.call_tool(tool, args)
    times[tool].append(time.perf_counter() - start)
    text = " ".join(getattr(c, "text", "") for c in result.content)
    game.calls += 1
    game.chars += len(text) + len(json.dumps(args)) + len(tool)
    if result.is_error:
        code = text.split(":", 2)[1].strip() if text.startswith("Error executing tool") else text.split(":")[0]
        clock = re.search(r'"clock":"(\w+)"', text)
        if code == "clock_expired" and clock:
            game.late_clocks[clock.group(1)] += 1
        return None, code
    data = json.loads(text)
    if "seq" in data:
        game.state_seqs.append(int(data["seq"]))
        events = [e for e in data.get("events", []) if e[:1].isdigit()]
        game.delivered += len(events)
        seat = data.get("your_seat")
        game.own_timeouts += sum(
            1 for e in events
            if f" seat={seat} " in e + " " and ("timed_out" in e or 'reason="timeout"' in e)
        )
        found = re.search(r"^Round (\d+)", data.get("summary", ""), re.M)
        if found:
            game.rounds = max(game.rounds, int(found.group(1)))
    return data, "ok"


async def play(
    client: Client, times: Latencies, think: float = 0.0, standing_bid: bool = False
) -> Game:
    game = Game()
    state, _ = await timed(client, times, game, "create_room", {"mode": "blitz", "seats": 3, "bots": 2})
    assert state is not None
    game.room = state["room"]
    if standing_bid:
        # A policy set once: the most this seat pays in any auction; the connector bids within the clock.
        await timed(client, times, game, "set_max_bid", {"amount": 1500, "every_auction": True})
    while not state["over"]:
        state = (await timed(client, times, game, "wait_for_turn", {"timeout_seconds": 30}))[0] or state
        if not state["your_turn"] or state["over"]:
            continue
        action = choose(state["legal_actions"])
        if action is None:
            continue
        if think:
            await asyncio.sleep(think)  # the model reads and decides
        game.decisions += 1
        after, outcome = await timed(client, times, game, "act", {"action": action, "seq": state["seq"]})
        game.outcomes[outcome] += 1
        state = after or state
    return game


async def count_events(base: str, key: str, game: Game) -> None:
    """The finished game's events (its replay), and what the former last-8 summary would have shown."""
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        r = await http.get(f"/api/games/{game.room}/replay", params={"events": "true"},
                           headers={"Authorization": f"Bearer {key}"})
        r.raise_for_status()
        replay = r.json()
    seqs = [0] * len(replay.get("start_events") or [])
    for i, action in enumerate(replay["actions"], start=1):
        seqs += [i] * len(action.get("events") or [])
    game.total_events = len(seqs)
    shown: set[int] = set()
    for seq in game.state_seqs:
        upto = sum(1 for s in seqs if s <= seq)
        shown.update(range(max(0, upto - FORMER_RECENT), upto))
    game.former_delivered = len(shown)


async def agent(base: str, key: str, games: int, times: Latencies, think: float, standing: bool) -> list[Game]:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=120)
    played = []
    async with Client(streamable_http_client(base + "/mcp", http_client=http)) as client:
        for _ in range(games):
            game = await play(client, times, think, standing)
            await count_events(base, key, game)
            played.append(game)
    return played


async def tool_list_tokens(base: str, key: str) -> int:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60)
    async with Client(streamable_http_client(base + "/mcp", http_client=http)) as client:
        tools = (await client.list_tools()).tools
    listing = json.dumps([t.model_dump(mode="json", exclude_none=True, by_alias=True) for t in tools])
    return len(listing) // CHARS_PER_TOKEN


def report_costs(games: list[Game], listing: int) -> None:
    tokens = [g.chars / CHARS_PER_TOKEN for g in games]
    decisions = sum(g.decisions for g in games) or 1
    rounds = sum(g.rounds for g in games) or 1
    calls = sum(g.calls for g in games)
    delivered = sum(g.delivered for g in games)
    total = sum(g.total_events for g in games) or 1
    former = sum(g.former_delivered for g in games)
    print(f"tool list: {listing} tokens")
    print(f"tokens per game (tool results and arguments): mean {statistics.mean(tokens):,.0f}, "
          f"max {max(tokens):,.0f}; per decision {sum(tokens) / decisions:.0f}")
    print(f"tool calls per decision {calls / decisions:.2f}, per round {calls / rounds:.1f} "
          f"({decisions} decisions in {rounds} rounds)")
    print(f"events delivered {delivered} of {total} ({100 * min(delivered, total) / total:.1f} %); "
          f"the former last-{FORMER_RECENT} summary: {100 * former / total:.1f} %")


async def measure(base: str, agents: int, games: int) -> None:
    keys = [make_key(base, n) for n in range(agents)]
    listing = await tool_list_tokens(base, keys[0])
    times: Latencies = defaultdict(list)
    start = time.perf_counter()
    results = await asyncio.gather(*(agent(base, k, games, times, 0.0, False) for k in keys))
    wall = time.perf_counter() - start
    played = [g for r in results for g in r]
    calls = sum(len(v) for v in times.values())
    print(f"agents {agents}, Blitz games {len(played)} (3 seats, 2 instant bots each), wall {wall:.1f} s")
    print(f"games per minute {60 * len(played) / wall:.1f}; tool calls {calls}, {calls / wall:.1f} per second")
    for tool in sorted(times):
        values = sorted(times[tool])
        p95 = values[min(len(values) - 1, int(0.95 * len(values)))]
        print(
            f"  {tool:14s} n={len(values):5d}  p50 {1000 * statistics.median(values):7.1f} ms"
            f"  p95 {1000 * p95:7.1f} ms  max {1000 * values[-1]:7.1f} ms"
        )
    report_costs(played, listing)


async def measure_thinking(base: str, think: float, scale: float, games: int) -> None:
    key = make_key(base, 0)
    print(f"a model thinking {think:g} s per decision, {games} Blitz game(s) each way (clocks and thinking "
          f"scaled by {scale:g}: {think * scale:.2f} s per decision against a {60 * scale:.1f} s turn and a "
          f"{10 * scale:.2f} s bid clock)")
    for standing in (False, True):
        times: Latencies = defaultdict(list)
        start = time.perf_counter()
        played = await agent(base, key, games, times, think * scale, standing)
        late: Counter[str] = Counter()
        for g in played:
            late.update(g.late_clocks)
        decisions = sum(g.decisions for g in played)
        rounds = sum(g.rounds for g in played)
        stale = sum(g.outcomes.get("stale_state", 0) for g in played)
        timeouts = sum(g.own_timeouts for g in played)
        how = "with a standing maximum bid" if standing else "bidding itself"
        print(f"  {how}: {decisions} decisions in {rounds} rounds; {sum(late.values())} too late "
              f"(clock_expired, by clock: {dict(late)}), {stale} stale_state, {timeouts} own timeouts "
              f"among its events; wall {time.perf_counter() - start:.0f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--server", help="an opolyx server to use (default: start one)")
    parser.add_argument("--agents", type=int, default=4)
    parser.add_argument("--games", type=int, default=1, help="games per agent")
    parser.add_argument("--think", type=float, default=0.0, help="seconds a model thinks per decision")
    parser.add_argument("--scale", type=float, default=0.05, help="with --think: the server's clock scale")
    args = parser.parse_args()

    async def run(base: str) -> None:
        if args.think:
            await measure_thinking(base, args.think, args.scale, args.games)
        else:
            await measure(base, args.agents, args.games)

    if args.server:
        asyncio.run(run(args.server.rstrip("/")))
        return 0
    # Instant bots, so the figures measure the connector and the server, not the bots' thinking pause.
    os.environ.update({"OPOLYX_BOT_DELAY_MIN": "0", "OPOLYX_BOT_DELAY_MAX": "0"})
    if args.think:
        os.environ["OPOLYX_CLOCK_SCALE"] = str(args.scale)
    with tempfile.TemporaryDirectory() as tmp:
        proc, base, _ = own_server(tmp, None)
        try:
            asyncio.run(run(base))
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
