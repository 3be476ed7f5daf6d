"""Players at human pace: how many connected players one machine holds with action→event p99 < 100 ms.

Real players think 1 to 5 s before each decision, chat now and then, drop and reconnect, and many
people only watch. This benchmark grows a population of such clients in steps (four people per
Classic room plus spectators), and after each step measures for a fixed window:

- action→event latency: from sending an action to receiving the events frame that answers it (p50,
  p95, p99, max), the figure a player feels;
- chat echo latency and reconnect time (socket opened → snapshot received);
- actions/s, error frames by code, server CPU (all server processes) and the machine's load average,
  which matters because the clients, the database and other work share the same cores.

It prints a table, the largest population whose p99 stayed under the target, and saves a plot of latency
against connected players (the path is printed).

    python benchmarks/human.py --steps 250,500,1000 --window 20           # own server, SQLite
    python benchmarks/human.py --steps 1000,2000,3000,4000,5000 --procs 2 \\
        --database postgresql+asyncpg://postgres@127.0.0.1/test --redis redis://127.0.0.1:6379/0 --workers 2
    python benchmarks/human.py --server http://127.0.0.1:8000 --steps 100   # a running server

Loopback only; everything is bounded: ``--steps`` (connected clients, spectators included) times
``--window`` seconds plus set-up. Clients authenticate with ``Authorization: Bearer`` and send an
``Origin`` matching the server, as browsers do. The server it starts gets rate limits no benchmark
reaches; pass any further server setting with ``--server-env NAME=VALUE`` (e.g. per-address socket caps:
every client comes from 127.0.0.1).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import multiprocessing
import os
import random
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from http.cookiejar import CookieJar, DefaultCookiePolicy
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import httpx
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load import choose, drop_schema, own_server, pct

SEATS = 4
# py-spy from this interpreter's environment if it is there (a dev dependency), else from PATH.
PY_SPY = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or "py-spy"


@dataclass
class Behaviour:
    think_min: float = 1.0
    think_max: float = 5.0
    chat_every: float = 60.0  # mean seconds between a player's chat messages
    reconnect_every: float = 120.0  # mean seconds between a client's reconnects
    spectators: float = 0.1  # share of clients who only watch
    mode: str = "classic"
    deflate: bool = True


@dataclass
class Tally:
    """What one client process measured in one window (sent to the parent as a plain dict)."""

    actions: list[float] = field(default_factory=list)
    chats: list[float] = field(default_factory=list)
    reconnects: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    sent: int = 0


class Population:
    """The clients of one process: rooms of four players, spectators, all at human pace."""

    def __init__(self, base: str, behaviour: Behaviour, seed: int) -> None:
        self.base = base
        self.ws_base = base.replace("http", "ws", 1)
        self.b = behaviour
        self.rng = random.Random(seed)
        self.tally = Tally()
        self.measuring = False
        self.connected = 0
        self.rooms: list[str] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.stopping = False
        self.setup_failures: Counter[str] = Counter()
        # One HTTP client for many people: it must keep no session cookie (each person is identified by
        # a bearer token), or concurrent requests would act as whoever signed in last.
        no_cookies = CookieJar(policy=DefaultCookiePolicy(allowed_domains=[]))
        self.http = httpx.AsyncClient(
            base_url=base, timeout=120, limits=httpx.Limits(max_connections=20), cookies=no_cookies
        )
        self.setup = asyncio.Semaphore(16)

    async def session(self, name: str) -> str:
        r = await self.http.post("/api/session", json={"nickname": name, "token": True}, headers={"Origin": self.base})
        r.raise_for_status()
        return str(r.json()["token"])

    def headers(self, token: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}", "Origin": self.base}

    async def grow(self, clients: int) -> None:
        """Add about ``clients`` clients: whole rooms of four, plus the spectators' share."""
        watchers = round(clients * self.b.spectators)
        rooms = max(1, (clients - watchers) // SEATS)
        watchers = max(0, clients - rooms * SEATS)
        opened = await asyncio.gather(*(self.open_room() for _ in range(rooms)), return_exceptions=True)
        new_rooms = [r for r in opened if not isinstance(r, BaseException)]
        for failure in (r for r in opened if isinstance(r, BaseException)):
            # A room whose set-up was refused (the server under too much load) is left out and counted.
            self.setup_failures[f"setup:{str(failure)[:60]}"] += 1
        if not new_rooms:
            raise RuntimeError(f"no room could be set up: {opened[0]!r}")
        for room_id, tokens in new_rooms:
            self.rooms.append(room_id)
            for token in tokens:
                self.tasks.append(asyncio.create_task(self.client(room_id, token, player=True)))
        for _ in range(watchers):
            async with self.setup:
                token = await self.session(f"w{secrets.token_hex(3)}")
            room_id = self.rng.choice(self.rooms)
            self.tasks.append(asyncio.create_task(self.client(room_id, token, player=False)))
        # Start the new games once every seat's socket is open, so no first turn waits on a connection.
        target, deadline = len(self.tasks), time.monotonic() + 600
        while self.connected < target:
            if time.monotonic() > deadline:
                raise TimeoutError(f"only {self.connected} of {target} sockets opened in 10 minutes")
            await asyncio.sleep(0.1)
        async with asyncio.TaskGroup() as group:
            for room_id, tokens in new_rooms:
                group.create_task(self.start(room_id, tokens[0]))

    async def open_room(self) -> tuple[str, list[str]]:
        async with self.setup:
            tokens = [await self.session(f"p{secrets.token_hex(3)}") for _ in range(SEATS)]
            r = await self.http.post(
                "/api/rooms", json={"mode": self.b.mode, "seats": SEATS}, headers=self.headers(tokens[0])
            )
            if r.status_code != 201:
                raise RuntimeError(f"create room: {r.status_code} {r.text}")
            room_id = str(r.json()["id"])
            for token in tokens[1:]:
                j = await self.http.post(f"/api/rooms/{room_id}/join", headers=self.headers(token))
                if j.status_code != 200:
                    raise RuntimeError(f"join: {j.status_code} {j.text}")
        return room_id, tokens

    async def start(self, room_id: str, token: str) -> None:
        async with self.setup:
            r = await self.http.post(f"/api/rooms/{room_id}/start", headers=self.headers(token))
        if r.status_code != 200:
            raise RuntimeError(f"start: {r.status_code} {r.text}")

    async def client(self, room_id: str, token: str, *, player: bool) -> None:
        """One person's tab: connect, play or watch at human pace, reconnect now and then, forever."""
        first = True
        while not self.stopping:
            opened = time.perf_counter()
            try:
                async with websockets.connect(
                    f"{self.ws_base}/ws/rooms/{room_id}",
                    additional_headers=self.headers(token),
                    max_size=2**22,
                    open_timeout=120,
                    compression="deflate" if self.b.deflate else None,
                ) as ws:
                    self.connected += 1
                    try:
                        await self.session_loop(ws, opened, first, player)
                    finally:
                        self.connected -= 1
            except (OSError, websockets.WebSocketException, TimeoutError) as exc:
                if self.measuring:
                    self.tally.errors[f"socket:{type(exc).__name__}"] += 1
                await asyncio.sleep(self.rng.uniform(0.5, 2.0))
            first = False

    async def session_loop(self, ws: Any, opened: float, first: bool, player: bool) -> None:
        rng, b = self.rng, self.b
        now = time.perf_counter()
        # The first connection stays until the run ends or its first reconnect; spread them out.
        reconnect_at = now + rng.expovariate(1 / b.reconnect_every)
        chat_at = now + rng.expovariate(1 / b.chat_every) if player else float("inf")
        act_at: float | None = None
        seat: int | None = None
        seq = 0
        legal: list[dict[str, Any]] = []
        pending: list[dict[str, Any]] = []
        awaiting: int | None = None
        sent_at = 0.0
        ref = 0
        chat_sent: dict[str, float] = {}
        snapshot_seen = False
        while not self.stopping:
            wake = min(reconnect_at, chat_at, act_at if act_at is not None else float("inf"))
            raw = None
            try:
                async with asyncio.timeout(max(0.0, wake - time.perf_counter())):
                    raw = await ws.recv()
            except TimeoutError:
                pass
            now = time.perf_counter()
            if raw is not None:
                f = json.loads(raw)
                kind = f.get("type")
                if kind == "snapshot":
                    if not snapshot_seen and not first and self.measuring:
                        self.tally.reconnects.append(now - opened)
                    snapshot_seen = True
                    seat, seq, legal = f["you"]["seat"], f["seq"], f["legal"]
                    pending = f["game"]["pending"] if f["game"] else []
                    awaiting = None
                elif kind == "events":
                    seq, legal, pending = f["seq"], f["legal"], f["pending"]
                    if awaiting is not None and f.get("ref") == awaiting:
                        if self.measuring:
                            self.tally.actions.append(now - sent_at)
                        awaiting = None
                elif kind == "chat":
                    at = chat_sent.pop(f.get("text", ""), None)
                    if at is not None and self.measuring:
                        self.tally.chats.append(now - at)
                elif kind == "error":
                    if self.measuring:
                        self.tally.errors[str(f.get("code"))] += 1
                    if f.get("ref") is not None and f.get("ref") == awaiting:
                        awaiting = None
                        await ws.send('{"type":"sync"}')
            mine = player and seat is not None and any(p.get("seat") == seat for p in pending)
            if mine and awaiting is None and act_at is None:
                act_at = now + rng.uniform(b.think_min, b.think_max)
            if act_at is not None and now >= act_at:
                act_at = None
                action = choose(legal) if mine and awaiting is None else None
                if action is not None:
                    ref += 1
                    awaiting, sent_at = ref, time.perf_counter()
                    if self.measuring:
                        self.tally.sent += 1
                    await ws.send(json.dumps({"type": "action", "action": action, "ref": ref, "seq": seq}))
            if now >= chat_at:
                text = f"gg {secrets.token_hex(4)}"
                chat_sent[text] = time.perf_counter()
                await ws.send(json.dumps({"type": "chat", "text": text}))
                chat_at = now + rng.expovariate(1 / b.chat_every)
            if now >= reconnect_at:
                return

    async def close(self) -> None:
        self.stopping = True
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await self.http.aclose()


def worker(pipe: Connection, base: str, behaviour: Behaviour, seed: int) -> None:
    """A client process: obeys the parent's commands (grow, measure, report, stop) over a pipe."""

    async def run() -> None:
        # A full garbage collection over a thousand client sockets pauses this process for hundreds of
        # milliseconds, which would be counted as the server's latency: this short-lived process skips them.
        gc.set_threshold(700, 10, 2**31 - 1)
        pop = Population(base, behaviour, seed)
        loop = asyncio.get_running_loop()
        cpu_start = time.process_time()
        try:
            while True:
                command, arg = await loop.run_in_executor(None, pipe.recv)
                if command == "grow":
                    try:
                        await pop.grow(int(arg))
                    except Exception as exc:  # reported, not swallowed: the parent stops the run
                        pipe.send(("failed", repr(exc)))
                        continue
                    gc.freeze()
                    pipe.send(("grown", pop.connected))
                elif command == "measure":
                    pop.tally, pop.measuring = Tally(), True
                    pop.tally.errors.update(pop.setup_failures)
                    pop.setup_failures.clear()
                    cpu_start = time.process_time()
                    pipe.send(("measuring", None))
                elif command == "report":
                    pop.measuring = False
                    t = pop.tally
                    pipe.send(("report", {
                        "actions": t.actions, "chats": t.chats, "reconnects": t.reconnects,
                        "errors": dict(t.errors), "sent": t.sent, "connected": pop.connected,
                        "cpu": time.process_time() - cpu_start,
                    }))
                else:
                    break
        finally:
            await pop.close()

    asyncio.run(run())


def server_pids(root: int) -> list[int]:
    """The server process and its children (uvicorn's workers)."""
    pids, todo = [], [root]
    while todo:
        pid = todo.pop()
        pids.append(pid)
        with contextlib.suppress(OSError):
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as f:
                    todo.extend(int(x) for x in f.read().split())
    return pids


def rss_megabytes(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError), open(f"/proc/{pid}/statm") as f:
            total += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    return total / 2**20


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError), open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


def plot(rows: list[dict[str, Any]], target: float, title: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = [r["connected"] for r in rows]
    fig, ax = plt.subplots(figsize=(8, 5))
    for key, style in (("p50", "o-"), ("p95", "s-"), ("p99", "^-"), ("max", "x:")):
        ax.plot(xs, [r[key] for r in rows], style, label=f"{key}")
    for r in rows:  # the machine's load at each point: other work on the cores shows in the tail
        ax.annotate(f"load {r['load']:.1f}", (r["connected"], r["p99"]), textcoords="offset points",
                    xytext=(4, 6), fontsize=8)
    ax.axhline(target, color="red", linestyle="--", linewidth=1, label=f"target p99 {target:g} ms")
    ax.set_xlabel("connected clients (players and spectators)")
    ax.set_ylabel("action → event latency (ms)")
    ax.set_yscale("log")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


HEADER = (f"{'clients':>7} {'rooms':>5} {'act/s':>6} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} {'max ms':>7} "
          f"{'chat99':>7} {'recon99':>7} {'srv cpu':>7} {'ms/act':>6} {'srv MB':>6} {'cli cpu':>7} {'load1':>5}"
          "  errors")


def row(r: dict[str, Any]) -> str:
    errors = ",".join(f"{k}:{v}" for k, v in sorted(r["errors"].items())) or "-"
    return (f"{r['connected']:>7} {r['rooms']:>5} {r['rate']:>6.1f} {r['p50']:>7.1f} {r['p95']:>7.1f} "
            f"{r['p99']:>7.1f} {r['max']:>7.1f} {r['chat99']:>7.1f} {r['recon99']:>7.1f} "
            f"{r['cpu']:>6.0f}% {r['cpu_per_action']:>6.2f} {r['rss']:>6.0f} {r['client_cpu']:>6.0f}% "
            f"{r['load']:>5.2f}  {errors}")


def run(args: argparse.Namespace, base: str, server_root: int | None, behaviour: Behaviour) -> list[dict[str, Any]]:
    steps = [int(x) for x in args.steps.split(",")]
    ctx = multiprocessing.get_context("spawn")
    pipes, procs = [], []
    for i in range(args.procs):
        parent, child = ctx.Pipe()
        p = ctx.Process(target=worker, args=(child, base, behaviour, args.seed + i), daemon=True)
        p.start()
        pipes.append(parent)
        procs.append(p)

    def ask(command: str, arg: Any = None) -> list[Any]:
        for pipe in pipes:
            pipe.send((command, arg))
        answers = [pipe.recv() for pipe in pipes]
        for kind, detail in answers:
            if kind == "failed":
                raise SystemExit(f"a client process failed: {detail}")
        return [detail for _, detail in answers]

    rows: list[dict[str, Any]] = []
    have = 0
    try:
        for target in steps:
            grow = target - have
            if grow > 0:
                began = time.perf_counter()
                shares = [grow // args.procs + (1 if i < grow % args.procs else 0) for i in range(args.procs)]
                for pipe, share in zip(pipes, shares, strict=True):
                    pipe.send(("grow", share))
                for pipe in pipes:
                    kind, detail = pipe.recv()
                    if kind == "failed":
                        raise SystemExit(f"a client process failed: {detail}")
                have = target
                print(f"# {target} clients connected and their games started in {time.perf_counter() - began:.0f} s;"
                      f" settling {args.settle:g} s", flush=True)
                time.sleep(args.settle)
            pids = server_pids(server_root) if server_root else []
            cpu0, t0 = cpu_seconds(pids), time.perf_counter()
            ask("measure")
            profiler = None
            if args.profile and target == steps[-1] and server_root:
                # A CPU profile of every server process over the last step's window (py-spy, sampling).
                profiler = subprocess.Popen(
                    [PY_SPY, "record", "--pid", str(server_root), "--subprocesses", "--duration",
                     str(int(args.window)), "--format", args.profile_format, "--output", args.profile],
                    stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
                )
            time.sleep(args.window)
            reports = ask("report")
            if profiler is not None:
                profiler.wait(timeout=60)
                print(f"# server profile ({args.profile_format}): {Path(args.profile).resolve()}", flush=True)
            elapsed = time.perf_counter() - t0
            cpu_used = cpu_seconds(pids) - cpu0 if pids else float("nan")
            actions = [x for r in reports for x in r["actions"]]
            errors: Counter[str] = Counter()
            for r in reports:
                errors.update(r["errors"])
            result = {
                "clients": target,
                "connected": sum(r["connected"] for r in reports),
                "rooms": round(target * (1 - behaviour.spectators)) // SEATS,
                "rate": len(actions) / elapsed,
                "sent": sum(r["sent"] for r in reports),
                "p50": pct(actions, 0.50),
                "p95": pct(actions, 0.95),
                "p99": pct(actions, 0.99),
                "max": max(actions) * 1000 if actions else float("nan"),
                "chat99": pct([x for r in reports for x in r["chats"]], 0.99),
                "recon99": pct([x for r in reports for x in r["reconnects"]], 0.99),
                "cpu": cpu_used / elapsed * 100,
                "cpu_per_action": cpu_used / len(actions) * 1000 if actions else float("nan"),
                "client_cpu": sum(r["cpu"] for r in reports) / elapsed * 100,
                "rss": rss_megabytes(pids) if pids else float("nan"),
                "load": os.getloadavg()[0],
                "errors": dict(errors),
            }
            rows.append(result)
            print(row(result), flush=True)
    except KeyboardInterrupt:
        print("# interrupted: reporting the steps measured so far", flush=True)
    finally:
        for pipe in pipes:
            with contextlib.suppress(OSError):
                pipe.send(("stop", None))
        for p in procs:
            p.join(timeout=30)
            if p.is_alive():
                p.kill()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description="opolyx: players at human pace")
    parser.add_argument("--server", help="base URL of a running server (its rate limits must allow the load)")
    parser.add_argument("--database", help="database URL for the server this script starts (default SQLite)")
    parser.add_argument("--redis", help="Redis URL for the server this script starts (needed by --workers > 1)")
    parser.add_argument("--workers", type=int, default=1, help="server processes (opolyx serve --workers)")
    parser.add_argument("--server-env", action="append", default=[], metavar="NAME=VALUE",
                        help="extra setting for the server this script starts (repeatable)")
    parser.add_argument("--steps", default="250,500,1000", help="connected clients after each step")
    parser.add_argument("--window", type=float, default=20.0, help="seconds measured per step")
    parser.add_argument("--settle", type=float, default=5.0, help="seconds after growing before measuring")
    parser.add_argument("--procs", type=int, default=2, help="client processes")
    parser.add_argument("--think", default="1,5", help="min,max seconds a player thinks per decision")
    parser.add_argument("--chat-every", type=float, default=60.0, help="mean seconds between a player's messages")
    parser.add_argument("--reconnect-every", type=float, default=120.0, help="mean seconds between reconnects")
    parser.add_argument("--spectators", type=float, default=0.1, help="share of clients who only watch")
    parser.add_argument("--mode", default="classic")
    parser.add_argument("--no-deflate", action="store_true", help="clients refuse permessage-deflate")
    parser.add_argument("--target-p99", type=float, default=100.0, help="ms")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", help="write a py-spy profile of the server over the last step to this path")
    parser.add_argument("--profile-format", default="speedscope", choices=["speedscope", "flamegraph", "raw"])
    parser.add_argument("--plot", help="PNG path for the latency plot (default: a new file in the temp dir)")
    args = parser.parse_args()
    # A bounded run (``timeout 600 python benchmarks/human.py …``) still stops its server and plots.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    think_min, think_max = (float(x) for x in args.think.split(","))
    behaviour = Behaviour(think_min, think_max, args.chat_every, args.reconnect_every, args.spectators, args.mode,
                          not args.no_deflate)
    if args.workers > 1 and not (args.server or (args.database and args.redis)):
        raise SystemExit("--workers above 1 needs --database (PostgreSQL) and --redis")

    where = args.server or (
        f"own server, {args.workers} process(es), "
        f"{args.database.split('@')[-1] if args.database else 'SQLite'}{', Redis' if args.redis else ''}"
    )
    title = f"opolyx at human pace: {where}"
    print(f"{title}; think {args.think} s, {args.spectators:.0%} spectators, window {args.window:g} s, "
          f"{args.procs} client process(es), {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f} at start")
    print(HEADER, flush=True)
    if args.server:
        rows = run(args, args.server.rstrip("/"), None, behaviour)
    else:
        extra = dict(x.split("=", 1) for x in args.server_env)
        extra.setdefault("OPOLYX_RATE_CHAT_BURST", "100000")
        extra.setdefault("OPOLYX_RATE_CHAT_PER_SECOND", "100000")
        # Every client comes from 127.0.0.1, so the per-address caps meant for the open internet go.
        extra.setdefault("OPOLYX_MAX_SOCKETS_PER_ADDRESS", "1000000")
        extra.setdefault("OPOLYX_MAX_WAITING_ROOMS_PER_ADDRESS", "1000000")
        # uvicorn's cap on open connections (2,000 by default) counts WebSockets: lift it to the fd limit.
        extra.setdefault("OPOLYX_HTTP_LIMIT_CONCURRENCY", "20000")
        if args.redis:
            extra["OPOLYX_REDIS_URL"] = args.redis
        with tempfile.TemporaryDirectory() as tmp:
            extra.setdefault("OPOLYX_SECRET_KEY", secrets.token_urlsafe(32))
            proc, base, schema = own_server(tmp, args.database, extra, ("--workers", str(args.workers)))
            try:
                rows = run(args, base, proc.pid, behaviour)
            finally:
                proc.terminate()
                try:
                    proc.wait(timeout=60)
                except Exception:
                    proc.kill()
                if schema:
                    drop_schema(args.database, schema)
    good = [r for r in rows if r["p99"] < args.target_p99]
    if good:
        best = max(good, key=lambda r: r["connected"])
        print(f"largest population with p99 < {args.target_p99:g} ms: {best['connected']} connected clients "
              f"({best['rate']:.0f} actions/s, p99 {best['p99']:.1f} ms)")
    else:
        print(f"no step kept p99 under {args.target_p99:g} ms")
    path = Path(args.plot) if args.plot else Path(tempfile.mkdtemp(prefix="opolyx-human-")) / "latency.png"
    plot(rows, args.target_p99, title, path)
    print(f"plot: {path.resolve()}")


if __name__ == "__main__":
    main()
