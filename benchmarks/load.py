"""Load test: many rooms, WebSocket clients acting as soon as it is their turn.

Prints actions/s and send→event latency (p50/p95/p99) for the given number of concurrent clients.

    python benchmarks/load.py --server http://127.0.0.1:8000 --clients 50 --seconds 30
    python benchmarks/load.py --clients 20          # starts its own server on a temporary SQLite file

Each room holds two people (two clients) in Blitz; bots are not used so every action is a measured one.
Uses only httpx and websockets against the documented protocol (docs/protocol.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

PREFERENCE = ["decline_trade", "buy", "roll", "pay", "jail_roll", "decline", "pass", "jackpot_decline",
              "choose_bus", "teleport", "sell", "mortgage", "declare_bankruptcy"]


def choose(legal: list[dict[str, Any]]) -> dict[str, Any] | None:
    for kind in PREFERENCE:
        for a in legal:
            if a.get("type") == kind:
                return a
    rest = [a for a in legal if a.get("type") not in ("propose_trade", "resign")]
    return rest[0] if rest else None


class Stats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.actions = 0
        self.games = 0


async def session(http: httpx.AsyncClient, name: str) -> str:
    r = await http.post("/api/session", json={"nickname": name})
    r.raise_for_status()
    http.cookies.clear()  # one client, many people: identify by bearer token only
    return str(r.json()["token"])


async def client(server: str, token: str, room_id: str, stats: Stats, stop: float, ready: asyncio.Event) -> None:
    url = server.replace("http", "ws", 1) + f"/ws/rooms/{room_id}?token={token}"
    async with websockets.connect(url, max_size=2**22) as ws:
        ready.set()
        seat = None
        sent_at: dict[int, float] = {}
        ref = 0
        awaiting = None
        async for raw in ws:
            f = json.loads(raw)
            if f["type"] == "snapshot":
                seat, game, legal, seq = f["you"]["seat"], f["game"], f["legal"], f["seq"]
                pending = game["pending"] if game else []
            elif f["type"] == "events":
                legal, pending, seq = f["legal"], f["pending"], f["seq"]
                if f.get("ref") is not None and f["ref"] in sent_at:
                    stats.latencies.append(time.perf_counter() - sent_at.pop(f["ref"]))
                    stats.actions += 1
                    awaiting = None
                if f["over"]:
                    stats.games += 1
                    return
            elif f["type"] == "error":
                if f.get("ref") == awaiting:
                    sent_at.pop(awaiting, None)
                    awaiting = None
                    await ws.send(json.dumps({"type": "sync"}))
                continue
            else:
                continue
            if time.perf_counter() > stop:
                return
            if awaiting is None and any(p.get("seat") == seat for p in pending):
                action = choose(legal)
                if action is not None:
                    ref += 1
                    awaiting = ref
                    sent_at[ref] = time.perf_counter()
                    await ws.send(json.dumps({"type": "action", "action": action, "ref": ref, "seq": seq}))


async def room_pair(server: str, stats: Stats, stop: float, n: int) -> None:
    async with httpx.AsyncClient(base_url=server, timeout=60) as http:
        while time.perf_counter() < stop:
            a, b = await session(http, f"a{n}"), await session(http, f"b{n}")
            ha, hb = {"Authorization": f"Bearer {a}"}, {"Authorization": f"Bearer {b}"}
            room = (await http.post("/api/rooms", json={"mode": "blitz", "seats": 2}, headers=ha)).json()
            j = await http.post(f"/api/rooms/{room['id']}/join", headers=hb)
            if j.status_code != 200 or len(j.json()["players"]) != 2:
                raise SystemExit(f"join: {j.text} {room}")
            ready = [asyncio.Event(), asyncio.Event()]
            tasks = [
                asyncio.create_task(client(server, a, room["id"], stats, stop, ready[0])),
                asyncio.create_task(client(server, b, room["id"], stats, stop, ready[1])),
            ]
            await asyncio.gather(*(e.wait() for e in ready))
            r = await http.post(f"/api/rooms/{room['id']}/start", headers=ha)
            if r.status_code != 200:
                raise SystemExit(f"start refused: {r.text}")
            await asyncio.gather(*tasks)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] * 1000


async def run(server: str, clients: int, seconds: float) -> None:
    stats = Stats()
    start = time.perf_counter()
    stop = start + seconds
    await asyncio.gather(*(room_pair(server, stats, stop, i) for i in range(max(1, clients // 2))))
    elapsed = time.perf_counter() - start
    print(f"clients: {clients}  rooms: {max(1, clients // 2)}  seconds: {elapsed:.1f}  games finished: {stats.games}")
    print(f"actions: {stats.actions}  actions/s: {stats.actions / elapsed:.1f}")
    if stats.latencies:
        print(
            "send→event latency ms: "
            f"p50 {pct(stats.latencies, 0.50):.1f}  p95 {pct(stats.latencies, 0.95):.1f}  "
            f"p99 {pct(stats.latencies, 0.99):.1f}  mean {statistics.fmean(stats.latencies) * 1000:.1f}"
        )


def own_server(tmp: str) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ)
    src = Path(__file__).resolve().parents[1] / "src"
    env["PYTHONPATH"] = f"{src}{os.pathsep}{env.get('PYTHONPATH', '')}"
    env.update({
        "OPOLYX_DATA_DIR": tmp,
        "OPOLYX_PORT": str(port),
        "OPOLYX_RATE_JOIN_BURST": "100000",
        "OPOLYX_RATE_CREATE_BURST": "100000",
        "OPOLYX_RATE_SESSION_BURST": "100000",
        "OPOLYX_RATE_WS_BURST": "100000",
        "OPOLYX_RATE_WS_PER_SECOND": "100000",
    })
    proc = subprocess.Popen([sys.executable, "-m", "opolyx.server", "serve"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("server did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description="opolyx WebSocket load test")
    parser.add_argument("--server", help="base URL of a running server (rate limits must allow the load)")
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    if args.server:
        asyncio.run(run(args.server.rstrip("/"), args.clients, args.seconds))
        return
    with tempfile.TemporaryDirectory() as tmp:
        proc, base = own_server(tmp)
        try:
            asyncio.run(run(base, args.clients, args.seconds))
        finally:
            proc.terminate()
            proc.wait()


if __name__ == "__main__":
    main()
