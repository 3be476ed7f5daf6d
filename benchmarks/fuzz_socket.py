"""A long socket fuzz: a million hostile frames against a real server, then check it is still whole.

    python benchmarks/fuzz_socket.py                       # 1,000,000 frames, own server on SQLite
    python benchmarks/fuzz_socket.py --frames 50000 --clients 4
    python benchmarks/fuzz_socket.py --server http://127.0.0.1:8000   # an already running server

Each client sits in a running game against a bot and sends frames made up by a seeded generator
(mutated protocol messages of every type, random text and bytes, deep nesting, oversized frames, lone
surrogates, control characters) in batches, each batch closed by a ping whose pong proves the socket
still works. Prints frames/s, the error codes received (any `internal_error` or undocumented code is a
finding), sockets lost, and whether the server still answers /healthz and a fresh game.
The tests run the same kinds of frames through hypothesis (tests/server/test_security_fuzz.py).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTED = set(
    re.findall(r"^- `([a-z_]+)`$", (ROOT / "docs/protocol.md").read_text().split("## Error codes", 1)[1], re.M)
)
ACTIONS = ["roll", "buy", "decline", "buy_murabaha", "bid", "pass", "build", "sell", "mortgage", "redeem",
           "propose_trade", "accept_trade", "decline_trade", "cancel_trade", "pay", "declare_bankruptcy",
           "pay_bail", "jail_roll", "jackpot_bet", "jackpot_decline", "choose_bus", "teleport", "pay_murabaha",
           "timeout", "nope"]
NASTY = ["\x00", "\ud800", "\u202e", "\u200b", "\x07", "\n", "é", "𝕏", "\ufeff", "\\", '"', "{", "]"]


def value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(9 if depth < 3 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, -1, 1, 39, 40, 2**31, -(2**63), 2**70, rng.randrange(-50, 50)])
    if kind == 3:
        return rng.choice([0.5, 1e308, float("inf"), float("nan"), -0.0])
    if kind in (4, 5):
        return "".join(rng.choice(NASTY) if rng.random() < 0.3 else chr(rng.randrange(32, 0x2FFF))
                       for _ in range(rng.randrange(0, 30)))
    if kind in (6, 7):
        return [value(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    return {str(value(rng, 3)): value(rng, depth + 1) for _ in range(rng.randrange(0, 4))}


def frame(rng: random.Random) -> str | bytes:
    r = rng.random()
    if r < 0.55:
        kind = rng.choice(["action", "action", "chat", "ping", "sync", "nope"])
        msg: dict[str, Any] = {"type": kind}
        if kind == "action":
            action: dict[str, Any] = {"type": rng.choice(ACTIONS)}
            for key in rng.sample(["square", "amount", "to", "give", "take", "trade", "numbers", "use", "x"],
                                  rng.randrange(0, 4)):
                action[key] = value(rng)
            msg["action"] = action if rng.random() < 0.9 else value(rng)
        elif kind == "chat":
            msg["text"] = value(rng) if rng.random() < 0.2 else str(value(rng, 3))
        for key in rng.sample(["ref", "seq", "seat", "extra"], rng.randrange(0, 3)):
            msg[key] = value(rng)
        if kind == "sync" and rng.random() < 0.9:
            msg["type"] = "ping"  # snapshots are large: keep syncs a small share
        return json.dumps(msg, ensure_ascii=rng.random() < 0.5, allow_nan=True)
    if r < 0.7:
        return json.dumps(value(rng), allow_nan=True)
    if r < 0.8:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(0, 200)))
    if r < 0.9:
        return "".join(chr(rng.randrange(1, 0xD7FF)) for _ in range(rng.randrange(0, 100)))
    if r < 0.97:
        n = rng.randrange(100, 20000)
        return "[" * n + "]" * n
    return '{"type":"chat","text":"' + "x" * rng.randrange(16_000, 200_000) + '"}'


def _wire(data: str | bytes) -> str | bytes:
    """Text that is not valid UTF-8 (a raw lone surrogate) cannot be a text frame: send its bytes."""
    if isinstance(data, str):
        try:
            data.encode()
        except UnicodeEncodeError:
            return data.encode("utf-8", "surrogatepass")
    return data


class Tally:
    def __init__(self) -> None:
        self.sent = 0
        self.codes: collections.Counter[str] = collections.Counter()
        self.kinds: collections.Counter[str] = collections.Counter()
        self.lost = 0
        self.closes: collections.Counter[int] = collections.Counter()


async def game(http: httpx.AsyncClient, name: str) -> tuple[str, dict[str, str]]:
    r = await http.post("/api/session", json={"nickname": name, "token": True})
    r.raise_for_status()
    headers = {"Authorization": f"Bearer {r.json()['token']}"}
    http.cookies.clear()
    room = (await http.post("/api/rooms", json={"mode": "classic", "seats": 2}, headers=headers)).json()
    await http.post(f"/api/rooms/{room['id']}/bots", json={"strength": "easy"}, headers=headers)
    await http.post(f"/api/rooms/{room['id']}/start", headers=headers)
    return room["id"], headers


async def client(base: str, n: int, frames: int, seed: int, tally: Tally, batch: int, stop_at: float) -> None:
    rng = random.Random(seed)
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        room_id, headers = await game(http, f"Fuzz {n}")
        url = base.replace("http", "ws", 1) + f"/ws/rooms/{room_id}"
        done, mark = 0, 0
        while done < frames and time.monotonic() < stop_at:
            try:
                async with websockets.connect(url, additional_headers=headers, max_size=2**24) as ws:
                    while done < frames and time.monotonic() < stop_at:
                        for _ in range(min(batch, frames - done)):
                            await ws.send(_wire(frame(rng)))
                            done += 1
                            tally.sent += 1
                        mark += 1
                        await ws.send(json.dumps({"type": "ping", "ref": f"m{mark}"}))
                        while True:
                            reply = json.loads(await asyncio.wait_for(ws.recv(), 60))
                            tally.kinds[reply.get("type", "?")] += 1
                            if reply.get("type") == "error":
                                tally.codes[reply.get("code", "?")] += 1
                            if reply.get("type") == "pong" and reply.get("ref") == f"m{mark}":
                                break
            except websockets.ConnectionClosed as exc:
                tally.lost += 1
                tally.closes[exc.rcvd.code if exc.rcvd else 0] += 1
                if tally.lost <= 3 and os.environ.get("FUZZ_DEBUG"):
                    print("lost:", repr(exc), file=sys.stderr)
            except TimeoutError:
                tally.lost += 1
                tally.closes[-1] += 1


def own_server(tmp: str) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ)
    env["PYTHONPATH"] = f"{ROOT / 'src'}{os.pathsep}{env.get('PYTHONPATH', '')}"
    env.update({
        "OPOLYX_DATA_DIR": tmp, "OPOLYX_PORT": str(port), "OPOLYX_RATE_WS_BURST": "1000000",
        "OPOLYX_RATE_WS_PER_SECOND": "1000000", "OPOLYX_RATE_CHAT_BURST": "1000000",
        "OPOLYX_RATE_CHAT_PER_SECOND": "1000000", "OPOLYX_RATE_SYNC_BURST": "1000000",
        "OPOLYX_RATE_SYNC_PER_SECOND": "1000000", "OPOLYX_RATE_CREATE_BURST": "1000",
        "OPOLYX_BOT_DELAY_MIN": "0", "OPOLYX_BOT_DELAY_MAX": "0",
    })
    proc = subprocess.Popen([sys.executable, "-m", "opolyx.server", "serve"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("server did not start")


async def run(base: str, args: argparse.Namespace) -> int:
    tally = Tally()
    per = args.frames // args.clients
    t0 = time.perf_counter()
    stop_at = time.monotonic() + args.max_seconds

    async def progress() -> None:
        while True:
            await asyncio.sleep(30)
            print(f"  … {tally.sent:,} frames after {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)

    ticker = asyncio.create_task(progress())
    await asyncio.gather(
        *(client(base, i, per, args.seed + i, tally, args.batch, stop_at) for i in range(args.clients))
    )
    ticker.cancel()
    elapsed = time.perf_counter() - t0
    health = httpx.get(base + "/healthz", timeout=10).status_code
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        room_id, _ = await game(http, "After")
    undocumented = {c: n for c, n in tally.codes.items() if c not in DOCUMENTED}
    cut = " (stopped by --max-seconds)" if tally.sent < per * args.clients else ""
    print(f"frames sent:        {tally.sent:,} by {args.clients} clients in {elapsed:.1f} s "
          f"({tally.sent / elapsed:,.0f} frames/s){cut}")
    print(f"replies by type:    {dict(tally.kinds.most_common())}")
    print(f"error codes:        {dict(tally.codes.most_common())}")
    print(f"internal_error:     {tally.codes.get('internal_error', 0)}")
    print(f"undocumented codes: {undocumented or 'none'}")
    print(f"sockets lost:       {tally.lost} (close codes {dict(tally.closes) or '-'})")
    print(f"afterwards:         /healthz {health}; a new game started in room {room_id}")
    bad = tally.codes.get("internal_error", 0) or undocumented or health != 200
    return 1 if bad else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--server", help="base URL of a running server (default: start one)")
    ap.add_argument("--frames", type=int, default=1_000_000)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--batch", type=int, default=200, help="frames between two pings")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-seconds", type=float, default=3600, help="stop sending after this long, report anyway")
    args = ap.parse_args()
    if args.server:
        raise SystemExit(asyncio.run(run(args.server.rstrip("/"), args)))
    with tempfile.TemporaryDirectory() as tmp:
        proc, base = own_server(tmp)
        try:
            code = asyncio.run(run(base, args))
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    raise SystemExit(code)


if __name__ == "__main__":
    main()
