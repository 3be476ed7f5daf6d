"""Test kit: a real uvicorn server (in a thread or a subprocess) and real HTTP/WebSocket clients."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families
from pydantic import TypeAdapter
from websockets.sync.client import ClientConnection, connect

from live_server import quick_settings
from opolyx.protocol.models import ServerFrame
from opolyx.server import Settings
from opolyx.storage.testing import TestDatabase
from played_games import choose

FRAMES: TypeAdapter[Any] = TypeAdapter(ServerFrame)
SRC = Path(__file__).resolve().parents[2] / "src"


def test_settings(db: TestDatabase, data_dir: Path, **overrides: Any) -> Settings:
    return quick_settings(data_dir, database_url=db.url, database_schema=db.schema, **overrides)


test_settings.__test__ = False  # type: ignore[attr-defined]


Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(base: str, **headers: str) -> Samples:
    """GET /metrics, parsed: (sample name, sorted labels) → value."""
    r = httpx.get(base + "/metrics", headers=headers, timeout=10)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain")
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(r.text)
        for s in family.samples
    }


def metric(samples: Samples, name: str, **labels: str) -> float:
    return samples[(name, tuple(sorted(labels.items())))]


class ProcessServer:
    """``python -m opolyx.server serve`` as a subprocess, so a test can SIGKILL it."""

    def __init__(self, settings: Settings, log_path: Path, args: Sequence[str] = ()) -> None:
        self.settings = settings
        self.args = list(args)
        self.base = f"http://127.0.0.1:{settings.port}"
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
        for name, value in self.settings.model_dump().items():
            if value is not None and value != "":
                env[f"OPOLYX_{name.upper()}"] = str(value)
        return env

    def start(self) -> None:
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "opolyx.server", "serve", *self.args],
                env=self.env(),
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log_path.read_text()[-3000:]}")
            try:
                if httpx.get(self.base + "/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError("server did not become healthy")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Person:
    """A guest with an HTTP session and, once in a room, a WebSocket to it."""

    def __init__(self, base: str, nickname: str, language: str = "en") -> None:
        self.base = base
        self.http = httpx.Client(base_url=base, timeout=30)
        r = self.http.post("/api/session", json={"nickname": nickname, "language": language, "token": True})
        r.raise_for_status()
        self.token: str = r.json()["token"]
        self.id: str = r.json()["user"]["id"]
        self.ws: ClientConnection | None = None
        self._stack = ExitStack()
        self.frames: list[dict[str, Any]] = []

    def post(self, path: str, body: dict[str, Any] | None = None) -> httpx.Response:
        return self.http.post(path, json=body or {})

    def create(self, mode: str = "classic", seats: int = 2, public: bool = True) -> dict[str, Any]:
        r = self.post("/api/rooms", {"mode": mode, "seats": seats, "public": public})
        assert r.status_code == 201, r.text
        room: dict[str, Any] = r.json()
        return room

    def connect(self, room_id: str, *, changes: bool = False, source: str | None = None) -> ClientConnection:
        """Open the room's socket; with ``changes`` it asks for ``game_changes`` instead of ``game`` in events
        frames, as the browser client does. ``source`` is the loopback address to connect from (127.0.0.2, …):
        the server tells people apart by address, so two test people at one table need two."""
        query = "?game=changes" if changes else ""
        extra: dict[str, Any] = {"source_address": (source, 0)} if source else {}
        self.ws = self._stack.enter_context(
            connect(
                self.base.replace("http", "ws", 1) + f"/ws/rooms/{room_id}{query}",
                additional_headers={"Cookie": f"opolyx_session={self.token}"},
                open_timeout=10,
                **extra,
            )
        )
        return self.ws

    # Generous defaults: CI runs these beside browser tests on two cores; a wait ends as soon as its frame
    # arrives, so this only changes how long a real failure takes to report.
    def recv(self, timeout: float = 20.0) -> dict[str, Any]:
        assert self.ws is not None
        raw = self.ws.recv(timeout=timeout)
        frame: dict[str, Any] = json.loads(raw)
        FRAMES.validate_python(frame)  # every frame matches the documented models
        self.frames.append(frame)
        return frame

    def recv_until(self, kind: str, timeout: float = 20.0, **match: Any) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {kind} frame matching {match}")
            frame = self.recv(timeout=left)
            if frame["type"] == kind and all(frame.get(k) == v for k, v in match.items()):
                return frame

    def send(self, frame: dict[str, Any] | str | bytes) -> None:
        assert self.ws is not None
        self.ws.send(frame if isinstance(frame, str | bytes) else json.dumps(frame))

    def close(self) -> None:
        self.ws = None
        self._stack.close()
        self.http.close()

    def disconnect(self) -> None:
        self.ws = None
        self._stack.close()
        self._stack = ExitStack()


class Table:
    """Drives one seat through the protocol: waits for its turn, acts on legal actions, stops at the end."""

    def __init__(
        self, person: Person, rng: random.Random | None = None, think: float = 0.0, resign_at: int | None = None
    ) -> None:
        self.p = person
        # Resign once the game reaches this round (a farmer's puppet seat).
        self.resign_at = resign_at
        # Seconds this person thinks before each decision (the server pays XP for turns played at a human
        # pace; test servers scale that pace down with ``xp_time_scale``).
        self.think = think
        self.rng = rng or random.Random(1)
        self.seat: int | None = None
        self.seq = -1
        self.pending: list[dict[str, Any]] = []
        self.legal: list[dict[str, Any]] = []
        self.over = False
        self.result: dict[str, Any] | None = None
        self.awaiting: int | None = None
        self.refs = 0
        self.events_seen: list[tuple[int, list[dict[str, Any]]]] = []
        self.errors: list[dict[str, Any]] = []
        self.actions_sent = 0
        # The public game as this socket knows it: whole from snapshots, else merged from ``game_changes``.
        self.game: dict[str, Any] | None = None
        self.changes_frames = 0

    def absorb(self, f: dict[str, Any]) -> None:
        if f["type"] == "snapshot":
            self.seat = f["you"]["seat"]
            game = self.game = f["game"]
            self.seq = f["seq"]
            self.legal = f["legal"]
            self.pending = game["pending"] if game else []
            self.over = bool(game and game.get("over"))
            if self.over:
                self.result = game.get("result")
        elif f["type"] == "events":
            assert f["seq"] == self.seq + 1, (f["seq"], self.seq)
            self.seq = f["seq"]
            if "game_changes" in f:
                assert "game" not in f and self.game is not None
                self.game = {**self.game, **f["game_changes"]}
                self.changes_frames += 1
            else:
                self.game = f["game"]
            self.events_seen.append((f["seq"], f["events"]))
            self.legal = f["legal"]
            self.pending = f["pending"]
            self.over = f["over"]
            if f["over"]:
                self.result = f["result"]
            if f.get("ref") is not None and f["ref"] == self.awaiting:
                self.awaiting = None
        elif f["type"] == "error":
            self.errors.append(f)
            if f.get("ref") == self.awaiting:
                self.awaiting = None
                self.p.send({"type": "sync"})

    def my_turn(self) -> bool:
        return self.seat is not None and any(e.get("seat") == self.seat for e in self.pending)

    def step(self, timeout: float = 20.0) -> dict[str, Any]:
        """Take the next frame and act on it if it is this seat's turn; returns the frame."""
        frame = self.p.recv(timeout=timeout)
        self.absorb(frame)
        if not self.over and self.awaiting is None and self.my_turn() and self.legal:
            self.refs += 1
            self.awaiting = self.refs
            action = choose(self.legal, self.rng)
            if self.resign_at is not None and self.game is not None and self.game.get("round", 0) >= self.resign_at:
                action = {"type": "resign"}
            if self.think:
                time.sleep(self.think)
            self.actions_sent += 1
            self.p.send({"type": "action", "action": action, "ref": self.refs, "seq": self.seq})
        return frame

    def play(self, max_seconds: float = 240.0) -> dict[str, Any] | None:
        deadline = time.monotonic() + max_seconds
        # Kick off from the current state (the snapshot may already say it is our turn).
        self.p.send({"type": "sync"})
        while not self.over:
            if time.monotonic() > deadline:
                raise TimeoutError(f"game not over after {max_seconds}s at seq {self.seq}")
            self.step()
        return self.result
