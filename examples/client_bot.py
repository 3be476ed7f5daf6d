"""A standalone opolyx client bot: joins a room over the documented protocol and plays to the end.

It uses only ``httpx`` and ``websockets`` (no opolyx imports), so it doubles as a worked example of
docs/protocol.md. Usage:

    python examples/client_bot.py --server http://127.0.0.1:8000 --room ROOM_ID
    python examples/client_bot.py --server http://127.0.0.1:8000 --code ABC234
    python examples/client_bot.py --server http://127.0.0.1:8000 --create blitz --bots 1

With ``--create`` it makes a room, seats bots, starts the game and plays; otherwise it joins and waits
for the creator to start. Exits 0 once the game is over, printing the result.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
from typing import Any

import httpx
import websockets

# Preference when several actions are legal: keep the game moving, buy what we can afford.
PREFERENCE = ["decline_trade", "buy", "roll", "pay", "jail_roll", "decline", "pass", "jackpot_decline",
              "choose_bus", "teleport", "sell", "mortgage", "declare_bankruptcy"]


def choose(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any] | None:
    for kind in PREFERENCE:
        options = [a for a in legal if a.get("type") == kind]
        if options:
            return rng.choice(options)
    rest = [a for a in legal if a.get("type") not in ("propose_trade", "resign")]
    return rng.choice(rest) if rest else None


async def play(server: str, args: argparse.Namespace) -> dict[str, Any] | None:
    rng = random.Random(args.seed)
    async with httpx.AsyncClient(base_url=server, timeout=30) as http:
        r = await http.post("/api/session", json={"nickname": args.name, "language": "en", "token": True})
        r.raise_for_status()
        token = r.json()["token"]
        headers = {"Authorization": f"Bearer {token}"}
        if args.create:
            r = await http.post("/api/rooms", json={"mode": args.create, "seats": args.bots + 1}, headers=headers)
        elif args.code:
            r = await http.post("/api/join", json={"code": args.code}, headers=headers)
        else:
            r = await http.post(f"/api/rooms/{args.room}/join", headers=headers)
        if r.status_code >= 400:
            print(f"lobby refused: {r.json()}", file=sys.stderr)
            return None
        room = r.json()
        if args.create:
            for _ in range(args.bots):
                (await http.post(f"/api/rooms/{room['id']}/bots", json={"strength": "normal"},
                                 headers=headers)).raise_for_status()

        ws_url = server.replace("http", "ws", 1) + room["ws"]
        # The token goes in a header, never in the URL (URLs end up in logs).
        async with websockets.connect(ws_url, additional_headers=headers) as ws:
            if args.create:
                (await http.post(f"/api/rooms/{room['id']}/start", headers=headers)).raise_for_status()
            seat: int | None = None
            seq = 0
            awaiting: int | None = None
            ref = 0
            async for raw in ws:
                frame = json.loads(raw)
                kind = frame["type"]
                if kind == "snapshot":
                    seat = frame["you"]["seat"]
                    seq = frame["seq"]
                    game = frame["game"]
                    if game and game["over"]:
                        return dict(game["result"] or {})
                    pending = game["pending"] if game else []
                    legal = frame["legal"]
                elif kind == "events":
                    seq = frame["seq"]
                    if frame["over"]:
                        return dict(frame["result"] or {})
                    pending, legal = frame["pending"], frame["legal"]
                    if frame.get("ref") == awaiting:
                        awaiting = None
                elif kind == "error":
                    print(f"refused: {frame['code']} {frame['message']}", file=sys.stderr)
                    if frame.get("ref") == awaiting:
                        awaiting = None
                        await ws.send(json.dumps({"type": "sync"}))
                    continue
                else:
                    continue
                if awaiting is None and seat is not None and any(p.get("seat") == seat for p in pending):
                    action = choose(legal, rng)
                    if action is not None:
                        ref += 1
                        awaiting = ref
                        await ws.send(json.dumps({"type": "action", "action": action, "ref": ref, "seq": seq}))
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default="http://127.0.0.1:8000")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--room", help="room id to join")
    where.add_argument("--code", help="private room code to join")
    where.add_argument("--create", metavar="MODE", help="create a room of this mode, add bots and start")
    parser.add_argument("--bots", type=int, default=1, help="with --create: how many bots")
    parser.add_argument("--name", default="ClientBot")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    result = asyncio.run(play(args.server.rstrip("/"), args))
    if result is None:
        return 1
    print(json.dumps({"over": True, "result": result}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
