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

Each client is a callback-driven socket on the sans-I/O protocol of ``websockets`` (no task per client,
frames parsed only as far as the person needs them, uvloop), which negotiates permessage-deflate and
sends the browser client's 20 s application ping as a browser does; its processes cost about half of
what the earlier task-per-client version cost (0.09 against 0.16 ms of CPU per client per second at 800
clients), so they take less of the cores the server is measured on. The server this script starts runs
in a session of its own: Linux shares CPU time between sessions first (autogroup scheduling), so nice
values do not order processes of different sessions, and a server in the benchmark's session would split
one share with its clients; real clients are on other machines.

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
from typing import Any, cast

import httpx
import orjson
import uvloop
from websockets.client import ClientProtocol
from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.typing import Origin
from websockets.uri import parse_uri

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load import choose, drop_schema, own_server, pct

SEATS = 4
INF = float("inf")
# The browser client's application ping (socket.js), and how long a handshake may take before a retry.
PING_EVERY = 20.0
OPEN_TIMEOUT = 120.0
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
    # Ask for the game's changes in events frames (``?game=changes``), as the browser client does.
    changes: bool = True


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
        self.tabs: list[Tab] = []
        self.connecting: set[asyncio.Task[None]] = set()
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
                self.client(room_id, token, player=True)
        for _ in range(watchers):
            async with self.setup:
                token = await self.session(f"w{secrets.token_hex(3)}")
            room_id = self.rng.choice(self.rooms)
            self.client(room_id, token, player=False)
        # Start the new games once every seat's socket is open, so no first turn waits on a connection.
        target, deadline = len(self.tabs), time.monotonic() + 600
        while self.connected < target:
            if time.monotonic() > deadline:
                raise TimeoutError(f"only {self.connected} of {target} sockets opened in 10 minutes; "
                                   f"errors {dict(self.tally.errors)}")
            await asyncio.sleep(0.1)
        started = await asyncio.gather(*(self.start(room_id, tokens[0]) for room_id, tokens in new_rooms),
                                       return_exceptions=True)
        for failure in (r for r in started if isinstance(r, BaseException)):
            self.setup_failures[f"start:{str(failure)[:60]}"] += 1

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

    def client(self, room_id: str, token: str, *, player: bool) -> None:
        tab = Tab(self, room_id, token, player)
        self.tabs.append(tab)
        tab.connect()

    async def close(self) -> None:
        self.stopping = True
        for tab in self.tabs:
            tab.stop()
        for task in list(self.connecting):
            task.cancel()
        await asyncio.gather(*self.connecting, return_exceptions=True)
        await self.http.aclose()


class Tab(asyncio.Protocol):
    """One person's browser tab: a room socket at human pace, reconnecting now and then, for ever.

    Built on the sans-I/O WebSocket protocol of ``websockets`` with callbacks and one timer, not a task
    per client: the client processes then cost a fraction of the server's CPU instead of as much again,
    so the cores the benchmark measures on are left to the server. It negotiates permessage-deflate as
    browsers do, answers the server's pings, and sends the browser client's application ping every 20 s.
    Frames are parsed only as far as this person needs them: spectators look at nothing but the start
    of a frame, players parse the frames they act on.
    """

    def __init__(self, pop: Population, room_id: str, token: str, player: bool) -> None:
        self.pop, self.room_id, self.token, self.player = pop, room_id, token, player
        self.loop = asyncio.get_running_loop()
        self.ws: ClientProtocol | None = None
        self.transport: asyncio.Transport | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.first = True
        self.open = False
        self.leaving = False

    # --- connecting ----------------------------------------------------------------------------------

    def connect(self) -> None:
        pop = self.pop
        if pop.stopping:
            return
        self.opened = time.perf_counter()
        uri = parse_uri(f"{pop.ws_base}/ws/rooms/{self.room_id}{'?game=changes' if pop.b.changes else ''}")
        extensions = [ClientPerMessageDeflateFactory(compress_settings={"memLevel": 5})] if pop.b.deflate else None
        self.ws = ClientProtocol(uri, origin=Origin(pop.base), extensions=extensions, max_size=2**22)
        request = self.ws.connect()
        request.headers["Authorization"] = f"Bearer {self.token}"
        self.ws.send_request(request)
        self.snapshot_seen = False
        task = self.loop.create_task(self._dial(uri.host, uri.port))
        pop.connecting.add(task)
        task.add_done_callback(pop.connecting.discard)

    async def _dial(self, host: str, port: int) -> None:
        try:
            await asyncio.wait_for(self.loop.create_connection(lambda: self, host, port), OPEN_TIMEOUT)
        except (OSError, TimeoutError) as exc:
            self._failed(f"socket:{type(exc).__name__}")

    def _failed(self, reason: str) -> None:
        # Counted while growing too (the count restarts with each window): a population that does not
        # fill up says why.
        self.pop.tally.errors[reason] += 1
        self.first = False
        self.loop.call_later(self.pop.rng.uniform(0.5, 2.0), self.connect)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's transports do not subclass asyncio's
        self._flush()
        # No answer to the handshake in time: give up on this connection and dial again.
        self._set_timer(time.perf_counter() + OPEN_TIMEOUT)

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_timer()
        ws, self.ws, self.transport = self.ws, None, None
        was_open, self.open = self.open, False
        if was_open:
            self.pop.connected -= 1
        if self.pop.stopping or ws is None:  # stopped, or already counted and redialled
            return
        if was_open and self.leaving:
            self.first = False
            self.connect()  # our own reconnect: a new socket at once, like a reload
            return
        code = ws.close_rcvd.code if ws.close_rcvd is not None else None
        self._failed(f"socket:closed {code}" if code else "socket:lost")

    def _flush(self) -> None:
        ws, transport = self.ws, self.transport
        if ws is None or transport is None:
            return
        for data in ws.data_to_send():
            if data:
                transport.write(data)
            else:  # the closing handshake is done on our side
                transport.close()
                return

    def _send(self, frame: dict[str, Any]) -> None:
        ws = self.ws
        if ws is not None and self.open:
            ws.send_text(orjson.dumps(frame))
            self._flush()

    # --- receiving -----------------------------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        ws = self.ws
        if ws is None:
            return
        ws.receive_data(data)
        for event in ws.events_received():
            if isinstance(event, Frame):
                if event.opcode is Opcode.TEXT and event.fin:
                    self._frame(bytes(event.data))
            elif isinstance(event, Response):
                self._opened(ws)
        self._flush()

    def eof_received(self) -> bool | None:
        if self.ws is not None:
            self.ws.receive_eof()
            self._flush()
        return None

    def _opened(self, ws: ClientProtocol) -> None:
        self._cancel_timer()
        if ws.handshake_exc is not None:
            transport, self.ws = self.transport, None
            if transport is not None:
                transport.close()
            self._failed(f"socket:{type(ws.handshake_exc).__name__}")
            return
        self.open, self.leaving = True, False
        self.pop.connected += 1
        now = time.perf_counter()
        rng, b = self.pop.rng, self.pop.b
        # The first connection stays until the run ends or its first reconnect; spread them out.
        self.reconnect_at = now + rng.expovariate(1 / b.reconnect_every)
        self.chat_at = now + rng.expovariate(1 / b.chat_every) if self.player else INF
        self.ping_at = now + PING_EVERY
        self.act_at = INF
        self.seat: int | None = None
        self.seq = 0
        self.legal: list[dict[str, Any]] = []
        self.mine = False
        self.awaiting: int | None = None
        self.sent_at = 0.0
        self.ref = 0
        self.chat_sent: dict[str, float] = {}
        self._schedule()

    def _frame(self, raw: bytes) -> None:
        pop = self.pop
        # Every frame of the server starts with its type: most need no parsing at all.
        if raw.startswith(b'{"type":"events"'):
            if not self.player:
                return
            f = orjson.loads(raw)
            if self.awaiting is not None and f["ref"] == self.awaiting:
                if pop.measuring:
                    pop.tally.actions.append(time.perf_counter() - self.sent_at)
                self.awaiting = None
            self.seq, self.legal = f["seq"], f["legal"]
            self._pending(f["pending"])
        elif raw.startswith(b'{"type":"snapshot"'):
            if not self.snapshot_seen and not self.first and pop.measuring:
                pop.tally.reconnects.append(time.perf_counter() - self.opened)
            self.snapshot_seen = True
            if not self.player:
                return
            f = orjson.loads(raw)
            self.seat, self.seq, self.legal = f["you"]["seat"], f["seq"], f["legal"]
            self.awaiting = None
            self._pending(f["game"]["pending"] if f["game"] else [])
        elif raw.startswith(b'{"type":"chat"'):
            if self.chat_sent:
                at = self.chat_sent.pop(orjson.loads(raw).get("text", ""), None)
                if at is not None and pop.measuring:
                    pop.tally.chats.append(time.perf_counter() - at)
        elif raw.startswith(b'{"type":"error"'):
            f = orjson.loads(raw)
            if pop.measuring:
                pop.tally.errors[str(f.get("code"))] += 1
            if f.get("ref") is not None and f.get("ref") == self.awaiting:
                self.awaiting = None
                self._send({"type": "sync"})

    def _pending(self, pending: list[dict[str, Any]]) -> None:
        seat = self.seat
        self.mine = seat is not None and any(p.get("seat") == seat for p in pending)
        if self.mine and self.awaiting is None and self.act_at == INF:
            self.act_at = time.perf_counter() + self.pop.rng.uniform(self.pop.b.think_min, self.pop.b.think_max)
            self._schedule()

    # --- acting on time ------------------------------------------------------------------------------

    def _schedule(self) -> None:
        self._set_timer(min(self.act_at, self.chat_at, self.reconnect_at, self.ping_at))

    def _set_timer(self, wake: float) -> None:
        """One timer per tab, moved to the next thing it will do (asyncio's clock is perf_counter's)."""
        timer = self.timer
        when = self.loop.time() + (wake - time.perf_counter())
        if timer is not None:
            # uvloop hands back a plain Handle, without when(), for a time already past.
            due = getattr(timer, "when", None)
            if due is not None and not timer.cancelled() and abs(due() - when) < 0.001:
                return
            timer.cancel()
        self.timer = self.loop.call_at(when, self._tick)

    def _cancel_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def _tick(self) -> None:
        self.timer = None
        if not self.open:  # the handshake did not finish in time
            if self.transport is not None and self.ws is not None:
                self.ws = None
                self.transport.abort()
                self._failed("socket:TimeoutError")
            return
        pop, now = self.pop, time.perf_counter()
        if now >= self.act_at:
            self.act_at = INF
            action = choose(self.legal) if self.mine and self.awaiting is None else None
            if action is not None:
                self.ref += 1
                self.awaiting, self.sent_at = self.ref, time.perf_counter()
                if pop.measuring:
                    pop.tally.sent += 1
                self._send({"type": "action", "action": action, "ref": self.ref, "seq": self.seq})
        if now >= self.chat_at:
            text = f"gg {secrets.token_hex(4)}"
            self.chat_sent[text] = time.perf_counter()
            self._send({"type": "chat", "text": text})
            self.chat_at = now + pop.rng.expovariate(1 / pop.b.chat_every)
        if now >= self.ping_at:
            self._send({"type": "ping"})
            self.ping_at = now + PING_EVERY
        if now >= self.reconnect_at:
            self.leave()
            return
        self._schedule()

    def leave(self) -> None:
        """Close the socket (the reconnect opens a new one once the server has answered the close)."""
        ws, transport = self.ws, self.transport
        self.leaving = True
        if ws is not None and transport is not None and ws.state is State.OPEN:
            ws.send_close(1000)
            self._flush()
            self.loop.call_later(10, transport.abort)  # a server that never answers the close

    def stop(self) -> None:
        self._cancel_timer()
        if self.transport is not None:
            self.transport.abort()


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
                    pipe.send(("grown", (pop.connected, dict(pop.tally.errors))))
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

    uvloop.run(run())


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


def run_queue_seconds(pids: list[int]) -> float:
    """Time the server's threads spent runnable but waiting for a core (the kernel's schedstat): the
    share of the tail that is the machine's, not the server's."""
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            for task in os.listdir(f"/proc/{pid}/task"):
                with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{task}/schedstat") as f:
                    total += int(f.read().split()[1])
    return total / 1e9


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
          f"{'chat99':>7} {'recon99':>7} {'srv cpu':>7} {'srv wait':>8} {'ms/act':>6} {'srv MB':>6} {'cli cpu':>7} "
          f"{'load1':>5}"
          "  errors")


def row(r: dict[str, Any]) -> str:
    errors = ",".join(f"{k}:{v}" for k, v in sorted(r["errors"].items())) or "-"
    return (f"{r['connected']:>7} {r['rooms']:>5} {r['rate']:>6.1f} {r['p50']:>7.1f} {r['p95']:>7.1f} "
            f"{r['p99']:>7.1f} {r['max']:>7.1f} {r['chat99']:>7.1f} {r['recon99']:>7.1f} "
            f"{r['cpu']:>6.0f}% {r['wait']:>7.0f}% {r['cpu_per_action']:>6.2f} {r['rss']:>6.0f} "
            f"{r['client_cpu']:>6.0f}% "
            f"{r['load']:>5.2f}  {errors}")


class ClientFailed(Exception):
    """A client process gave up (e.g. the server refused to set up its people): the run stops there."""


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
                raise ClientFailed(detail)
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
                grown: Counter[str] = Counter()
                for pipe in pipes:
                    kind, detail = pipe.recv()
                    if kind == "failed":
                        raise ClientFailed(detail)
                    grown.update(detail[1])
                have = target
                print(f"# {target} clients connected and their games started in {time.perf_counter() - began:.0f} s;"
                      f" settling {args.settle:g} s; errors meanwhile: {dict(grown) or 'none'}", flush=True)
                time.sleep(args.settle)
            pids = server_pids(server_root) if server_root else []
            cpu0, wait0, t0 = cpu_seconds(pids), run_queue_seconds(pids), time.perf_counter()
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
            waited = run_queue_seconds(pids) - wait0 if pids else float("nan")
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
                "wait": waited / elapsed * 100,
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
    except ClientFailed as exc:
        print(f"# a client process failed ({exc}): reporting the steps measured so far", flush=True)
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
    parser.add_argument("--whole-game", action="store_true",
                        help="clients take the whole game in every events frame (no ?game=changes, as before)")
    parser.add_argument("--target-p99", type=float, default=100.0, help="ms")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", help="write a py-spy profile of the server over the last step to this path")
    parser.add_argument("--profile-format", default="speedscope", choices=["speedscope", "flamegraph", "raw"])
    parser.add_argument("--server-log", help="append the output of the server this script starts to this file")
    parser.add_argument("--plot", help="PNG path for the latency plot (default: a new file in the temp dir)")
    args = parser.parse_args()
    # A bounded run (``timeout 600 python benchmarks/human.py …``) still stops its server and plots.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    think_min, think_max = (float(x) for x in args.think.split(","))
    behaviour = Behaviour(think_min, think_max, args.chat_every, args.reconnect_every, args.spectators, args.mode,
                          not args.no_deflate, not args.whole_game)
    if args.workers > 1 and not (args.server or (args.database and args.redis)):
        raise SystemExit("--workers above 1 needs --database (PostgreSQL) and --redis")

    where = args.server or (
        f"own server, {args.workers} process(es), "
        f"{args.database.split('@')[-1] if args.database else 'SQLite'}{', Redis' if args.redis else ''}"
    )
    title = f"opolyx at human pace: {where}"
    print(f"{title}; think {args.think} s, {args.spectators:.0%} spectators, window {args.window:g} s, "
          f"{'the whole game' if args.whole_game else 'the game changes'} in events frames, "
          f"{args.procs} client process(es), {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.2f} at start")
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
            proc, base, schema = own_server(
                tmp, args.database, extra, ("--workers", str(args.workers)), log=args.server_log, own_session=True
            )
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
