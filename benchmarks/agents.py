"""MCP connector figures: tool-call latency and whole Blitz games played by agents over streamable HTTP.

Each agent is the official MCP SDK client with its own personal API key, talking to the server's /mcp
endpoint; it creates a Blitz room with two instant bots and plays its seat to the end, as a model
would (wait_for_turn, then act with one of the legal actions). Prints per-tool latency (p50/p95/max),
games per minute and tool calls per second.

    python benchmarks/agents.py --agents 4                 # starts its own server on a temporary SQLite file
    python benchmarks/agents.py --server http://127.0.0.1:8000 --agents 2
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load import choose, own_server

Latencies = dict[str, list[float]]


def make_key(base: str, n: int) -> str:
    with httpx.Client(base_url=base, timeout=30) as http:
        token = http.post("/api/session", json={"nickname": f"Agent{n}", "token": True}).json()["token"]
        r = http.post("/api/keys", json={"label": "bench"}, headers={"Authorization": f"Bearer {token}"})
        r.raise_for_status()
        return str(r.json()["key"])


async def timed(client: Client, times: Latencies, tool: str, args: dict[str, Any]) -> dict[str, Any] | None:
    start = time.perf_counter()
    result = await client.call_tool(tool, args)
    times[tool].append(time.perf_counter() - start)
    if result.is_error:
        return None
    data = result.structured_content or {}
    return dict(data.get("result", data)) if set(data) == {"result"} else dict(data)


async def agent(base: str, key: str, games: int, times: Latencies) -> int:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=120)
    played = 0
    async with Client(streamable_http_client(base + "/mcp", http_client=http)) as client:
        for _ in range(games):
            state = await timed(client, times, "create_room", {"mode": "blitz", "seats": 3, "bots": 2})
            assert state is not None
            while not state["over"]:
                state = await timed(client, times, "wait_for_turn", {"timeout_seconds": 30}) or state
                await timed(client, times, "get_state", {})
                if state["your_turn"] and not state["over"]:
                    action = choose(state["legal_actions"])
                    if action is not None:
                        state = await timed(client, times, "act", {"action": action}) or state
            played += 1
    return played


async def measure(base: str, agents: int, games: int) -> None:
    keys = [make_key(base, n) for n in range(agents)]
    times: Latencies = defaultdict(list)
    start = time.perf_counter()
    played = sum(await asyncio.gather(*(agent(base, k, games, times) for k in keys)))
    wall = time.perf_counter() - start
    calls = sum(len(v) for v in times.values())
    print(f"agents {agents}, Blitz games {played} (3 seats, 2 instant bots each), wall {wall:.1f} s")
    print(f"games per minute {60 * played / wall:.1f}; tool calls {calls}, {calls / wall:.1f} per second")
    for tool in sorted(times):
        values = sorted(times[tool])
        p95 = values[min(len(values) - 1, int(0.95 * len(values)))]
        print(
            f"  {tool:14s} n={len(values):5d}  p50 {1000 * statistics.median(values):7.1f} ms"
            f"  p95 {1000 * p95:7.1f} ms  max {1000 * values[-1]:7.1f} ms"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--server", help="an opolyx server to use (default: start one)")
    parser.add_argument("--agents", type=int, default=4)
    parser.add_argument("--games", type=int, default=1, help="games per agent")
    args = parser.parse_args()
    if args.server:
        asyncio.run(measure(args.server.rstrip("/"), args.agents, args.games))
        return 0
    # Instant bots, so the figures measure the connector and the server, not the bots' thinking pause.
    os.environ.update({"OPOLYX_BOT_DELAY_MIN": "0", "OPOLYX_BOT_DELAY_MAX": "0"})
    with tempfile.TemporaryDirectory() as tmp:
        proc, base, _ = own_server(tmp, None)
        try:
            asyncio.run(measure(base, args.agents, args.games))
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
