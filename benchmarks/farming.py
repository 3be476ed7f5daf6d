"""Farming routes against honest play (issue 40): XP per hour of wall time, through the real server.

Scripted clients (``opolyx.client``) play on an in-process server (uvicorn in a thread, SQLite in a
temporary directory) and try every farming route the issue measured; an honest player (a person against
three bots, thinking 5-10 s per decision, so 10-20 s a turn) gives the rate to beat. Each route prints
the XP its farming account gained, the wall time it took and XP per hour next to the honest rate.

Time is scaled so the default run takes a minute or two: every clock of the server (turn timers, bot
delays, the XP pace floors: ``xp_time_scale``) and every think time of the clients is multiplied by
``--scale``; wall times are divided by it again, so the rates are per hour of real-pace play. Server
overhead is not scaled, so small scales slightly slow every route (fast routes the most).

Routes:
- ``honest``: a person against three bots, 5-10 s per decision.
- ``floor_script``: a script against three bots answering just above the pace floors (1 s per decision,
  10 s a turn): the fastest play that is still paid in full. It can only match an honest player at 10 s
  a turn, never beat the floors.
- ``instant_script``: a script against three bots answering at once: no turn counts.
- ``two_sessions``: two guest sessions on one machine in a two-seat room, the puppet resigning in round
  10 (the issue's 45,000 XP/h): same person, nobody earns.
- ``fresh_alt``: the same from two machines (the alt's socket from 127.0.0.2, a fresh guest each game),
  which the server cannot tell from two people: a game the last opponent ends by resigning pays for the
  rounds it lasted, so the short game pays 10/25 of its XP.
- ``idle_alt``: an alt (from another address) beside the farmer and a bot never plays: the clock plays
  it out; the alt earns nothing, the farmer what that game pays anyone.
- ``guest_merges``: capped guests (each given the day's 1,500 XP as if farmed) merged one after another
  into one account through real sign-in links: the account gains the day's cap once, and its cards
  follow the level reached.

    .venv/bin/python benchmarks/farming.py [--scale 0.05] [--games 1] [--merges 4]
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import logging
import random
import re
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
import uvicorn
from websockets.asyncio import client as ws_client

import opolyx.client.room as client_room
from opolyx.client import Client, OpolyxError, RoomSocket
from opolyx.progression import load_progression
from opolyx.server import Settings, create_app
from opolyx.server.http.transport import uvicorn_config
from opolyx.storage import SqlStore
from opolyx.storage.tables import users

HOUR = 3600.0
# The loopback address a socket connects from (another "machine" for the server); unset: the default.
SOURCE: contextvars.ContextVar[str | None] = contextvars.ContextVar("source", default=None)
_connect = ws_client.connect


def _connect_from_source(*args: Any, **kwargs: Any) -> Any:
    source = SOURCE.get()
    if source is not None:
        kwargs["local_addr"] = (source, 0)
    return _connect(*args, **kwargs)


client_room.connect = _connect_from_source  # type: ignore[attr-defined,assignment]


class LinkCatcher(logging.Handler):
    """Without SMTP the server logs each sign-in link; the benchmark reads them from there."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        found = re.search(r"#/signin/([A-Za-z0-9_\-]+)", record.getMessage())
        if found:
            self.links.append(found.group(1))


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, data: Path, scale: float) -> None:
        self.settings = Settings(
            host="127.0.0.1",
            port=free_port(),
            data_dir=data,
            secret_key="farming-benchmark",
            bot_delay_min=0.8 * scale,
            bot_delay_max=2.2 * scale,
            clock_scale=scale,
            xp_time_scale=scale,
            rate_join_burst=10_000,
            rate_create_burst=10_000,
            rate_session_burst=10_000,
            rate_magic_burst=10_000,
            rate_ws_burst=1_000_000,
            rate_ws_per_second=1_000_000.0,
            rate_sync_burst=1_000_000,
            max_sockets_per_user=1000,
            max_sockets_per_address=100_000,
            max_waiting_rooms_per_address=100_000,
        )
        self.base = f"http://127.0.0.1:{self.settings.port}"
        self.server = uvicorn.Server(uvicorn_config(create_app(self.settings), self.settings, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> Server:
        self.thread.start()
        while not self.server.started:
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


@dataclass
class Outcome:
    route: str
    # XP the farming accounts were paid, and what docs/rules.md §19 gives the farmer's result.
    xp: int
    rules_xp: int
    seconds: float
    note: str = ""


async def profile_xp(c: Client) -> int:
    return int((await c.request("GET", "/api/profile"))["user"]["xp"])


async def play_seat(
    table: RoomSocket,
    think: Callable[[], float],
    *,
    resign_at: int | None = None,
    idle: bool = False,
    limit: float = 3600,
) -> None:
    """Play this seat to the end: choose like a person who buys what they can, after ``think()`` seconds."""
    rng = random.Random(table.url)
    deadline = time.monotonic() + limit
    while not table.over and time.monotonic() < deadline:
        await table.wait_until(lambda: table.my_turn() or table.over, 60)
        if table.over or idle or not table.my_turn():
            continue
        pause = think()
        if pause > 0:
            await asyncio.sleep(pause)
        round_ = int((table.game or {}).get("round", 0))
        if resign_at is not None and round_ >= resign_at:
            action: dict[str, Any] = {"type": "resign"}
        else:
            action = choose(table.legal, rng)
        try:
            await table.act(action)
        except OpolyxError:
            await table.sync()


async def award(table: RoomSocket) -> tuple[int, int]:
    """This seat's (XP paid, XP the rules give its result) from the finished game's snapshot."""
    snap = await table.sync()
    mine = next((p for p in snap.get("progression") or [] if p["seat"] == table.seat), None)
    if mine is None:
        return 0, 0
    return int(mine["xp"]), int(mine["parts"].get("total", 0))


def choose(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    for kind in ("decline_trade", "build", "buy", "roll", "pay", "jail_roll", "decline", "pass"):
        options = [a for a in legal if a["type"] == kind]
        if options:
            return rng.choice(options)
    rest = [a for a in legal if a["type"] not in ("propose_trade", "resign", "redeem", "cancel_trade")]
    return rng.choice(rest) if rest else legal[0]


async def guest(base: str, name: str) -> Client:
    c = Client(base)
    await c.start_guest(name)
    return c


async def against_bots(base: str, think: Callable[[], float], bots: int = 3) -> tuple[int, int, float]:
    """A person against ``bots`` bots in Blitz: the XP paid, the XP the rules give the result, the wall time."""
    async with Client(base) as me:
        await me.start_guest("Solo")
        room = await me.create_room("blitz", bots + 1)
        for _ in range(bots):
            await me.add_bot(room.id, "easy")
        async with me.socket(room.id) as table:
            began = time.monotonic()
            await me.start(room.id)
            await play_seat(table, think)
            took = time.monotonic() - began
            paid, rules = await award(table)
        return paid, rules, took


async def pair(base: str, think: Callable[[], float], *, alt_source: str | None) -> tuple[int, int, int, float]:
    """The farmer and a puppet in a two-seat Blitz room; the puppet answers at once and resigns in
    round 10. The XP of both and the wall time."""
    async with Client(base) as main, Client(base) as alt:
        await main.start_guest("Main")
        await alt.start_guest("Puppet")
        room = await main.create_room("blitz", 2)
        await alt.join(room.id)
        async with main.socket(room.id) as a:
            token = SOURCE.set(alt_source)
            try:
                b = alt.socket(room.id)
                await b.open()
            finally:
                SOURCE.reset(token)
            try:
                began = time.monotonic()
                await main.start(room.id)
                await asyncio.gather(play_seat(a, think), play_seat(b, lambda: 0.0, resign_at=10))
                took = time.monotonic() - began
                paid, rules = await award(a)
            finally:
                await b.close()
        return paid, rules, await profile_xp(alt), took


async def idle_alt(base: str, think: Callable[[], float]) -> tuple[int, int, int, float]:
    async with Client(base) as main, Client(base) as alt:
        await main.start_guest("Main")
        await alt.start_guest("Idler")
        room = await main.create_room("blitz", 3)
        await alt.join(room.id)
        await main.add_bot(room.id, "easy")
        async with main.socket(room.id) as a:
            began = time.monotonic()
            await main.start(room.id)
            await play_seat(a, think)
            took = time.monotonic() - began
            paid, rules = await award(a)
        return paid, rules, await profile_xp(alt), took


async def give_xp(db: str, user_id: str, xp: int) -> None:
    """As if the guest had farmed ``xp`` today (farming it for real is the routes above; here only the
    merge is measured)."""
    store = await SqlStore.open(db)
    try:
        from opolyx.progression import level_for

        async with store.engine.begin() as conn:
            await conn.execute(sa.update(users).where(users.c.id == user_id).values(xp=xp, level=level_for(xp)))
    finally:
        await store.close()


async def merges(base: str, db: str, catcher: LinkCatcher, count: int) -> tuple[int, int, int, float]:
    """``count`` guests each holding the day's cap merged into one account by sign-in links. Returns the
    XP the account gained, its level, its number of cards and the wall time."""
    cap = load_progression().farming.daily_xp_cap
    address = "farmer@example.org"
    began = time.monotonic()
    async with Client(base) as owner:
        await owner.start_guest("Farmer")
        await owner.request("POST", "/api/auth/link", {"email": address})
        signed = await owner.request("POST", "/api/auth/verify", {"token": catcher.links[-1], "session_token": True})
        owner.token = signed["token"]
        for n in range(count):
            async with Client(base) as g:
                me = await g.start_guest(f"Capped{n}")
                await give_xp(db, me.id, cap)
                await g.request("POST", "/api/auth/link", {"email": address})
                await g.request("POST", "/api/auth/verify", {"token": catcher.links[-1]})
        profile = await owner.request("GET", "/api/profile")
    return int(profile["user"]["xp"]), int(profile["user"]["level"]), len(profile["cards"]), time.monotonic() - began


async def run(args: argparse.Namespace) -> None:
    scale: float = args.scale
    rng = random.Random(7)
    rules = load_progression()

    def honest() -> float:
        return rng.uniform(5.0, 10.0) * scale

    def floor() -> float:
        # Just above both floors: a decision over 1 s, and a turn of two decisions over 10 s.
        return max(rules.farming.min_think_ms / 1000, rules.farming.min_turn_seconds / 2) * 1.05 * scale

    catcher = LinkCatcher()
    logging.getLogger("opolyx.mail").addHandler(catcher)
    logging.getLogger("opolyx.mail").propagate = False
    for noisy in ("httpx", "mcp", "opolyx", "alembic"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory() as tmp, Server(Path(tmp), scale) as server:
        base = server.base
        for _ in range(args.games):
            paid, full, took = await against_bots(base, honest)
            outcomes.append(Outcome("honest", paid, full, took, "a person vs 3 bots, 10-20 s a turn"))
            paid, full, took = await against_bots(base, floor)
            outcomes.append(Outcome("floor_script", paid, full, took, "script vs 3 bots at the pace floors"))
            paid, full, took = await against_bots(base, lambda: 0.0)
            outcomes.append(Outcome("instant_script", paid, full, took, "script vs 3 bots answering at once"))
            paid, full, alt, took = await pair(base, floor, alt_source=None)
            outcomes.append(Outcome("two_sessions", paid + alt, full, took, "one machine, puppet resigns in round 10"))
            paid, full, alt, took = await pair(base, floor, alt_source="127.0.0.2")
            outcomes.append(Outcome("fresh_alt", paid + alt, full, took, "two machines, puppet resigns in round 10"))
            paid, full, alt, took = await idle_alt(base, floor)
            outcomes.append(Outcome("idle_alt", paid + alt, full, took, "alt idles beside the farmer and a bot"))
        db = server.settings.resolved_database_url()
        gained, level, cards, took = await merges(base, db, catcher, args.merges)
    per: dict[str, list[Outcome]] = {}
    for o in outcomes:
        per.setdefault(o.route, []).append(o)

    def rates(items: list[Outcome]) -> tuple[float, float]:
        """XP per hour, and XP per hour had every game paid a plain win (125 XP for the rules' result):
        the second takes placement luck out of the comparison."""
        hours = sum(o.seconds for o in items) / scale / HOUR
        as_wins = sum(125 * o.xp / o.rules_xp for o in items if o.rules_xp)
        return sum(o.xp for o in items) / hours, as_wins / hours

    _, honest_wins = rates(per["honest"])
    print(
        f"scale {scale} (wall times divided by it); {args.games} game(s) per route; rules: think >= "
        f"{rules.farming.min_think_ms} ms a decision, >= {rules.farming.min_turn_seconds} s a turn, "
        f">= {rules.farming.min_round_seconds} s a round"
    )
    print(f"{'route':<16}{'XP':>6}{'rules':>7}{'minutes':>9}{'XP/hour':>9}{'as wins/h':>11}{'vs honest':>11}  note")
    for route, items in per.items():
        rate, as_wins = rates(items)
        minutes = sum(o.seconds for o in items) / scale / 60
        versus = as_wins / honest_wins if honest_wins else 0.0
        print(
            f"{route:<16}{sum(o.xp for o in items):>6}{sum(o.rules_xp for o in items):>7}{minutes:>9.1f}"
            f"{rate:>9.0f}{as_wins:>11.0f}{versus:>10.2f}x  {items[-1].note}"
        )
    print(
        f"{'guest_merges':<16}{gained:>6}  {args.merges} capped guests merged into one account in a day: "
        f"+{gained} XP "
        f"(daily cap {rules.farming.daily_xp_cap}), level {level}, {cards} cards (the schedule's for level {level})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=0.05, help="multiplies every clock and think time")
    parser.add_argument("--games", type=int, default=1, help="games per route")
    parser.add_argument("--merges", type=int, default=4, help="capped guests merged into one account")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
