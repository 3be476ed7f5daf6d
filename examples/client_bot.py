"""A client bot: joins a room over the public protocol and plays to the end, with ``opolyx.client``.

The reference client does the protocol (session, lobby, the room socket with reconnect and resync);
this file only decides what to play. Usage:

    python examples/client_bot.py --server http://127.0.0.1:8000 --room ROOM_ID
    python examples/client_bot.py --server http://127.0.0.1:8000 --code ABC234
    python examples/client_bot.py --server http://127.0.0.1:8000 --create blitz --bots 1
    python examples/client_bot.py --server http://127.0.0.1:8000 --key opx_... --create blitz

With ``--create`` it makes a room, seats bots, starts the game and plays; otherwise it joins and waits
for the creator to start. With ``--key`` it plays as the owner of that personal API key (shown to the
table as an agent); otherwise as a new guest. Exits 0 once the game is over, printing the result.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
from typing import Any

from opolyx.client import Client, OpolyxError

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
    async with Client(server, token=args.key) as client:
        if args.key is None:
            await client.start_guest(args.name)
        try:
            if args.create:
                room = await client.create_room(args.create, args.bots + 1)
                for _ in range(args.bots):
                    await client.add_bot(room.id, "normal")
            elif args.code:
                room = await client.join_code(args.code)
            else:
                room = await client.join(args.room)
        except OpolyxError as exc:
            print(f"lobby refused: {exc}", file=sys.stderr)
            return None
        async with client.socket(room.id) as table:
            if args.create:
                await client.start(room.id)
            while not table.over:
                await table.wait_until(lambda: table.my_turn() or table.over, timeout=60)
                if not table.my_turn():
                    continue
                action = choose(table.legal, rng)
                if action is None:
                    continue
                try:
                    await table.act(action)
                except OpolyxError as exc:
                    # E.g. stale_state: the game moved on first. The state is current again; look anew.
                    print(f"refused: {exc}", file=sys.stderr)
            return dict(table.result or {})


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--server", default="http://127.0.0.1:8000")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--room", help="room id to join")
    where.add_argument("--code", help="private room code to join")
    where.add_argument("--create", metavar="MODE", help="create a room of this mode, add bots and start")
    parser.add_argument("--bots", type=int, default=1, help="with --create: how many bots")
    parser.add_argument("--name", default="ClientBot", help="the guest's nickname (without --key)")
    parser.add_argument("--key", default=None, help="a personal API key: play as its owner")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    result = asyncio.run(play(args.server.rstrip("/"), args))
    if result is None:
        return 1
    print(json.dumps({"over": True, "result": result}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
