"""Load test: many rooms, WebSocket clients acting as soon as it is their turn.

Prints actions/s and send→event latency (p50/p95/p99) for the given number of concurrent clients.

    python benchmarks/load.py --server http://127.0.0.1:8000 --clients 50 --seconds 30
    python benchmarks/load.py --clients 20          # starts its own server on a temporary SQLite file
    python benchmarks/load.py --sweep 10,20,50,100,200 --seconds 8
    python benchmarks/load.py --sweep 10,20,50 --database postgresql+asyncpg://postgres@127.0.0.1/test

Each room holds two people (two clients) in Blitz; bots are not used so every action is a measured one.
Uses only httpx and websockets against the documented protocol (docs/protocol.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import secrets
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
    r = await http.post("/api/session", json={"nickname": name, "token": True})
    r.raise_for_status()
    http.cookies.clear()  # one client, many people: identify by bearer token only
    return str(r.json()["token"])


# --web-sync: behave like the browser client did while events frames carried no game state — ask for a
# snapshot (sync) after an events frame without ``game``, at most every 0.2 s and one at a time.
WEB_SYNC = False


async def client(server: str, token: str, room_id: str, stats: Stats, stop: float, ready: asyncio.Event) -> None:
    url = server.replace("http", "ws", 1) + f"/ws/rooms/{room_id}"
    headers = {"Authorization": f"Bearer {token}"}
    async with websockets.connect(url, max_size=2**22, additional_headers=headers) as ws:
        ready.set()
        seat = None
        sent_at: dict[int, float] = {}
        ref = 0
        awaiting = None
        syncing, last_sync = False, 0.0
        async for raw in ws:
            f = json.loads(raw)
            if f["type"] == "snapshot":
                syncing = False
                seat, game, legal, seq = f["you"]["seat"], f["game"], f["legal"], f["seq"]
                pending = game["pending"] if game else []
            elif f["type"] == "events":
                legal, pending, seq = f["legal"], f["pending"], f["seq"]
                if WEB_SYNC and f.get("game") is None and not syncing and time.perf_counter() - last_sync >= 0.2:
                    syncing, last_sync = True, time.perf_counter()
                    await ws.send(json.dumps({"type": "sync"}))
                if f.get("ref") is not None and f["ref"] in sent_at:
                    stats.latencies.append(time.perf_counter() - sent_at.pop(f["ref"]))
                    stats.actions += 1
                    awaiting = None
                if f["over"]:
                    stats.games += 1
                    return
            elif f["type"] == "error":
                if awaiting is not None and f.get("ref") == awaiting:
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


def _measure(server: str, clients: int, seconds: float, first_room: int) -> tuple[list[float], int, int]:
    stats = Stats()

    async def go() -> None:
        stop = time.perf_counter() + seconds
        rooms = max(1, clients // 2)
        tasks = [asyncio.create_task(room_pair(server, stats, stop, first_room + i)) for i in range(rooms)]
        # A client waiting on a room that is idle until a clock fires would hold the run open: the
        # window is fixed, stragglers are cancelled a moment after it closes.
        _, late = await asyncio.wait(tasks, timeout=seconds + 2)
        for task in late:
            task.cancel()
        await asyncio.gather(*late, return_exceptions=True)

    asyncio.run(go())
    return stats.latencies, stats.actions, stats.games


def measure(server: str, clients: int, seconds: float, procs: int) -> dict[str, float]:
    """Run ``clients`` clients for ``seconds`` (spread over ``procs`` client processes)."""
    if procs <= 1:
        results = [_measure(server, clients, seconds, 0)]
    else:
        share = [clients // procs + (1 if i < clients % procs else 0) for i in range(procs)]
        with multiprocessing.Pool(procs) as pool:
            results = pool.starmap(
                _measure, [(server, n, seconds, 10_000 * i) for i, n in enumerate(share) if n > 0]
            )
    elapsed = seconds
    latencies = [x for r in results for x in r[0]]
    actions = sum(r[1] for r in results)
    return {
        "clients": clients,
        "rooms": max(1, clients // 2),
        "seconds": elapsed,
        "games": sum(r[2] for r in results),
        "actions": actions,
        "rate": actions / elapsed,
        "p50": pct(latencies, 0.50),
        "p95": pct(latencies, 0.95),
        "p99": pct(latencies, 0.99),
        "mean": statistics.fmean(latencies) * 1000 if latencies else float("nan"),
    }


HEADER = f"{'clients':>7} {'rooms':>5} {'actions/s':>9} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} {'games':>5}"


def row(m: dict[str, float]) -> str:
    return (
        f"{m['clients']:>7} {m['rooms']:>5} {m['rate']:>9.1f} {m['p50']:>7.1f} {m['p95']:>7.1f} "
        f"{m['p99']:>7.1f} {m['games']:>5}"
    )


def own_server(
    tmp: str,
    database: str | None,
    extra_env: dict[str, str] | None = None,
    args: tuple[str, ...] = (),
    log: str | None = None,
    own_session: bool = False,
) -> tuple[subprocess.Popen[bytes], str, str]:
    """``opolyx serve`` on a free port with rate limits no benchmark reaches; (process, URL, PG schema).
    The server's own output goes to ``log`` (a path) when given, else nowhere. ``own_session`` starts it
    in a session of its own: where Linux groups CPU time by session (autogroup scheduling, on here), the
    server then gets its own share of the cores instead of splitting one with the benchmark's clients."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ)
    src = Path(__file__).resolve().parents[1] / "src"
    env["PYTHONPATH"] = f"{src}{os.pathsep}{env.get('PYTHONPATH', '')}"
    schema = ""
    if database:
        env["OPOLYX_DATABASE_URL"] = database
        if database.startswith("postgresql"):
            schema = f"load_{secrets.token_hex(4)}"
            env["OPOLYX_DATABASE_SCHEMA"] = schema
    env.update({
        "OPOLYX_DATA_DIR": tmp,
        "OPOLYX_PORT": str(port),
        "OPOLYX_RATE_WS_BURST": "100000",
        "OPOLYX_RATE_WS_PER_SECOND": "100000",
    })
    # Refilled at once too: with Redis the buckets outlive the server, and a run that found the one of
    # 127.0.0.1 spent by the last run got 429s within seconds (at the default refill of a few per second).
    for kind in ("JOIN", "CREATE", "SESSION"):
        env[f"OPOLYX_RATE_{kind}_BURST"] = env[f"OPOLYX_RATE_{kind}_PER_SECOND"] = "100000"
    env.update(extra_env or {})
    out = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115 (the child keeps it open)
    proc = subprocess.Popen([sys.executable, "-m", "opolyx.server", "serve", *args], env=env,
                            stdout=out, stderr=subprocess.STDOUT, start_new_session=own_session)
    base = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                return proc, base, schema
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("server did not start")


def drop_schema(database: str, schema: str) -> None:
    from opolyx.storage.testing import pg_exec

    asyncio.run(pg_exec(database, f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))


def point(args: argparse.Namespace, clients: int) -> dict[str, float]:
    if args.server:
        return measure(args.server.rstrip("/"), clients, args.seconds, args.procs)
    # A fresh server and database for every point, so one point's leftovers never slow the next.
    with tempfile.TemporaryDirectory() as tmp:
        proc, base, schema = own_server(tmp, args.database)
        try:
            return measure(base, clients, args.seconds, args.procs)
        finally:
            proc.terminate()
            proc.wait()
            if schema:
                drop_schema(args.database, schema)


def main() -> None:
    parser = argparse.ArgumentParser(description="opolyx WebSocket load test")
    parser.add_argument("--server", help="base URL of a running server (rate limits must allow the load)")
    parser.add_argument("--database", help="database URL for the server this script starts (default SQLite)")
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--sweep", help="comma-separated client counts, e.g. 10,20,50,100,200: prints a table")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--procs", type=int, default=1, help="client processes the clients are spread over")
    parser.add_argument("--web-sync", action="store_true",
                        help="sync after events frames without game state, as the browser client did")
    parser.add_argument("--target-p99", type=float, default=50.0, help="ms; report the largest load under it")
    args = parser.parse_args()
    global WEB_SYNC
    WEB_SYNC = args.web_sync
    counts = [int(x) for x in args.sweep.split(",")] if args.sweep else [args.clients]
    where = args.server or (args.database.split("@")[-1] if args.database else "own server, SQLite")
    print(f"opolyx load: {where}; {args.seconds:g} s per point; {args.procs} client process(es)")
    print(HEADER, flush=True)
    best: dict[str, float] | None = None
    for n in counts:
        m = point(args, n)
        print(row(m), flush=True)
        if m["p99"] < args.target_p99 and (best is None or m["clients"] > best["clients"]):
            best = m
    if best is None:
        print(f"no load kept p99 under {args.target_p99:g} ms")
    else:
        print(
            f"largest load with p99 < {args.target_p99:g} ms: {best['clients']} clients, "
            f"{best['rate']:.0f} actions/s (p99 {best['p99']:.1f} ms)"
        )


if __name__ == "__main__":
    main()
