"""Quick play under a crowd: a thousand people pressing "Play now" over a minute, against a real server.

Each simulated person starts a guest session (before the clock starts), then at a random moment of the
arrival window presses Play now (``POST /api/quickplay``) for a mode and table size drawn from a plausible
mix, and asks where they are (``GET /api/quickplay``) once a second, as the browser does, until seated.
Some change their mind: about one in twenty leaves the queue after a few seconds (``DELETE``), about one in
ten presses "start with bots now" after a few seconds. The script reports:

- time to seat (press → the answer "seated"), p50 / p95 / max, for everyone seated; it includes up to one
  poll interval of the client's own polling, as a person would feel it;
- tables formed, by size, and how many had bots;
- nobody lost (every person who did not leave was seated before the end) and nobody seated twice (every
  seated person sits in exactly one of the formed rooms, the one they were told), checked against the
  rooms' own seat lists.

The games themselves are started but not played (bots wait an hour per move, clocks run a hundred times
slower), so what is measured is matchmaking and seating, not play.

    python benchmarks/matchmaking.py                                     # one process, SQLite
    python benchmarks/matchmaking.py --workers 2 \\
        --database postgresql+asyncpg://postgres@127.0.0.1:5432/test --redis redis://127.0.0.1:6379/0
    python benchmarks/matchmaking.py --time-scale 0.25                   # a quarter of every duration

``--time-scale`` shrinks the arrival window, the server's countdown, the people's hesitations and the
poll interval together (so 0.25 runs the same crowd in 15 s with a 5 s countdown).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import secrets
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load import drop_schema, own_server

MODES = [("classic", 40), ("blitz", 25), ("speed", 15), ("team", 10), ("halal", 5), ("fortuna", 5)]
SEATS = [(None, 45), (2, 15), (3, 10), (4, 25), (6, 5)]


@dataclass
class Person:
    name: str
    token: str = ""
    mode: str = "classic"
    seats: int | None = None
    at: float = 0.0
    leaves_after: float | None = None
    bots_after: float | None = None
    pressed: float = 0.0
    seated_after: float | None = None
    room: str | None = None
    left: bool = False
    errors: list[str] = field(default_factory=list)


def _draw(rng: random.Random, table: list[tuple[Any, int]]) -> Any:
    return rng.choices([v for v, _ in table], weights=[w for _, w in table])[0]


def crowd(n: int, window: float, scale: float, seed: int) -> list[Person]:
    rng = random.Random(seed)
    people = []
    for i in range(n):
        mode = _draw(rng, MODES)
        seats = _draw(rng, SEATS)
        if mode == "team" and seats not in (None, 4, 6):
            seats = None
        p = Person(f"P{i:04d}", mode=mode, seats=seats, at=rng.uniform(0, window))
        roll = rng.random()
        if roll < 0.05:
            p.leaves_after = rng.uniform(1, 8) * scale
        elif roll < 0.15:
            p.bots_after = rng.uniform(1, 8) * scale
        people.append(p)
    return people


async def _session(base: str, p: Person) -> None:
    # A client of its own: a shared one would send the first guest's cookie and rename that guest.
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        r = await client.post("/api/session", json={"nickname": p.name, "language": "en", "token": True})
    r.raise_for_status()
    p.token = r.json()["token"]


async def _call(client: httpx.AsyncClient, method: str, url: str, **kw: Any) -> httpx.Response:
    """One request, sent again when the connection broke under it (a kept-alive connection the server
    closed as it was reused): every call here may be repeated without harm."""
    for attempt in range(4):
        try:
            return await client.request(method, url, **kw)
        except httpx.TransportError:
            if attempt == 3:
                raise
            await asyncio.sleep(0.1 * (attempt + 1))
    raise AssertionError("unreachable")


async def _person(client: httpx.AsyncClient, p: Person, start: float, poll: float, give_up: float) -> None:
    await asyncio.sleep(max(0.0, start + p.at - time.perf_counter()))
    auth = {"Authorization": f"Bearer {p.token}"}
    p.pressed = time.perf_counter()
    wish = {"mode": p.mode, "seats": p.seats, "strength": "normal"}
    r = await _call(client, "POST", "/api/quickplay", json=wish, headers=auth)
    if r.status_code != 200:
        p.errors.append(f"join {r.status_code} {r.text[:80]}")
        return
    body = r.json()
    acted = False
    while body["status"] != "seated":
        if time.perf_counter() - p.pressed > give_up:
            return
        waited = time.perf_counter() - p.pressed
        if not acted and p.leaves_after is not None and waited >= p.leaves_after:
            acted = True
            body = (await _call(client, "DELETE", "/api/quickplay", headers=auth)).json()
            if body["status"] == "idle":
                p.left = True
                return
            continue
        if not acted and p.bots_after is not None and waited >= p.bots_after:
            acted = True
            body = (await _call(client, "POST", "/api/quickplay/bots", headers=auth)).json()
            continue
        await asyncio.sleep(poll)
        r = await _call(client, "GET", "/api/quickplay", headers=auth)
        if r.status_code != 200:
            p.errors.append(f"status {r.status_code}")
            continue
        body = r.json()
    p.seated_after = time.perf_counter() - p.pressed
    p.room = body["room"]


async def _check(client: httpx.AsyncClient, people: list[Person]) -> tuple[Counter[str], dict[str, int], int]:
    """Every formed room's people, from the rooms themselves: (tables by size, seats held per name, tables
    with bots)."""
    rooms = sorted({p.room for p in people if p.room})
    held: dict[str, int] = {}
    sizes: Counter[str] = Counter()
    with_bots = 0
    auth = {"Authorization": f"Bearer {people[0].token}"}
    for room_id in rooms:
        view = (await _call(client, "GET", f"/api/rooms/{room_id}", headers=auth)).json()
        humans = [s["name"] for s in view["players"] if s["kind"] == "human"]
        for name in humans:
            held[name] = held.get(name, 0) + 1
        sizes[f"{view['mode']}/{view['seats']}"] += 1
        with_bots += len(humans) < view["seats"]
    return sizes, held, with_bots


async def run(base: str, people: list[Person], window: float, wait: float, poll: float) -> dict[str, Any]:
    limits = httpx.Limits(max_connections=200, max_keepalive_connections=200)
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as client:
        for start in range(0, len(people), 50):
            await asyncio.gather(*(_session(base, p) for p in people[start : start + 50]))
        begin = time.perf_counter() + 1.0
        give_up = wait + 30.0
        await asyncio.gather(*(_person(client, p, begin, poll, give_up) for p in people))
        elapsed = time.perf_counter() - begin
        sizes, held, with_bots = await _check(client, people)
    seated = [p for p in people if p.room]
    waits = sorted(p.seated_after for p in seated if p.seated_after is not None)
    lost = [p.name for p in people if not p.left and p.room is None]
    twice = [name for name, n in held.items() if n > 1]
    told_wrong = [p.name for p in seated if held.get(p.name) != 1]
    return {
        "people": len(people),
        "left_queue": sum(p.left for p in people),
        "seated": len(seated),
        "lost": lost,
        "seated_twice": twice,
        "not_in_their_room": told_wrong,
        "errors": sum(len(p.errors) for p in people),
        "tables": sum(sizes.values()),
        "tables_with_bots": with_bots,
        "tables_by_mode_and_size": dict(sorted(sizes.items())),
        "p50": statistics.median(waits) if waits else float("nan"),
        "p95": waits[min(len(waits) - 1, int(0.95 * len(waits)))] if waits else float("nan"),
        "max": waits[-1] if waits else float("nan"),
        "elapsed": elapsed,
        "window": window,
        "people_list": people,
    }


def report(label: str, r: dict[str, Any]) -> None:
    print(f"\n== {label}")
    print(
        f"{r['people']} people over {r['window']:.0f} s: {r['seated']} seated, {r['left_queue']} left the queue, "
        f"lost {len(r['lost'])}, seated twice {len(r['seated_twice'])}, not in their room "
        f"{len(r['not_in_their_room'])}, request errors {r['errors']} ({r['elapsed']:.0f} s in all)"
    )
    print(f"time to seat: p50 {r['p50']:.2f} s, p95 {r['p95']:.2f} s, max {r['max']:.2f} s")
    print("errors:", Counter(e for p in r.get("people_list", []) for e in p.errors).most_common(5))
    print(f"tables formed: {r['tables']} ({r['tables_with_bots']} with bots)")
    print(f"by mode/size: {r['tables_by_mode_and_size']}")
    if r["lost"] or r["seated_twice"] or r["not_in_their_room"]:
        print(f"PROBLEMS: lost {r['lost'][:10]} twice {r['seated_twice'][:10]} wrong {r['not_in_their_room'][:10]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--people", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=60.0, help="arrival window (before --time-scale)")
    parser.add_argument("--wait", type=float, default=20.0, help="the server's countdown (before --time-scale)")
    parser.add_argument("--time-scale", type=float, default=1.0, help="multiplies every duration")
    parser.add_argument("--workers", type=int, default=1, help="server processes (2 needs --redis)")
    parser.add_argument("--database", default=None, help="database URL (default: SQLite in a temp dir)")
    parser.add_argument("--redis", default=None, help="Redis URL: the queue is shared by the workers")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--server", default=None, help="a running server instead of one started here")
    parser.add_argument("--log", default=None, help="keep the started server's log at this path")
    args = parser.parse_args()
    scale = args.time_scale
    window, wait, poll = args.seconds * scale, args.wait * scale, max(0.1, 1.0 * scale)
    people = crowd(args.people, window, scale, args.seed)
    label = f"{args.workers} worker(s), {'PostgreSQL' if args.database and 'postgres' in args.database else 'SQLite'}"
    label += f"{' + Redis' if args.redis else ''}, countdown {wait:g} s, poll {poll:g} s"
    if args.server:
        report(label, asyncio.run(run(args.server.rstrip("/"), people, window, wait, poll)))
        return 0
    env = {
        "OPOLYX_QUICKPLAY_WAIT_SECONDS": str(wait),
        "OPOLYX_QUICKPLAY_TICK_SECONDS": str(min(0.5, max(0.05, 0.5 * scale))),
        "OPOLYX_BOT_DELAY_MIN": "3600",
        "OPOLYX_BOT_DELAY_MAX": "3600",
        "OPOLYX_CLOCK_SCALE": "100",
        "OPOLYX_MAX_WAITING_ROOMS_PER_ADDRESS": "100000",
    }
    if args.redis:
        env["OPOLYX_REDIS_URL"] = args.redis
        env["OPOLYX_QUICKPLAY_REDIS_PREFIX"] = f"bench:quickplay:{secrets.token_hex(4)}:"
    server_args = ("--workers", str(args.workers)) if args.workers > 1 else ()
    with tempfile.TemporaryDirectory() as tmp:
        log = args.log or str(Path(tmp) / "server.log")
        proc, base, schema = own_server(tmp, args.database, env, server_args, log=log)
        try:
            result = asyncio.run(run(base, people, window, wait, poll))
        finally:
            proc.terminate()
            proc.wait(timeout=60)
            if schema and args.database:
                drop_schema(args.database, schema)
    report(label, result)
    return 1 if result["lost"] or result["seated_twice"] or result["not_in_their_room"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
