"""`opolyx serve` tells an operator's mistakes in one line; `opolyx verify` checks a game's dice."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from server_kit import SRC, Person

from live_server import ThreadServer, free_port


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPOLYX_")}
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    env["OPOLYX_DATA_DIR"] = str(tmp_path / "data")
    env["OPOLYX_SECRET_KEY"] = "test"
    return env


def _opolyx(tmp_path: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "opolyx.server", *args],
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.parametrize(
    ("database", "says"),
    [
        ("garbage", "does not parse"),
        ("mysql+aiomysql://u@h/db", "unsupported database"),
        ("postgresql://postgres@127.0.0.1/test", "async driver"),
        ("sqlite:///x.db", "async driver"),
        ("postgresql+asyncpg://postgres@127.0.0.1:1/nope", "cannot use the database"),
    ],
)
def test_bad_database_is_one_clear_line(tmp_path: Path, database: str, says: str) -> None:
    r = _opolyx(tmp_path, "serve", "--database", database, "--port", str(free_port()))
    assert r.returncode == 2
    assert "Traceback" not in r.stderr + r.stdout
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and says in lines[0], r.stderr


def test_out_of_range_port_is_refused(tmp_path: Path) -> None:
    r = _opolyx(tmp_path, "serve", "--port", "99999")
    assert r.returncode == 2 and "65535" in r.stderr and "Traceback" not in r.stderr


def test_ready_is_said_once_the_port_is_bound(tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "opolyx.server", "serve", "--port", str(port)],
        env=_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            assert line, "the server exited before it was ready"
            if "opolyx ready" in line:
                break
        # At the moment "ready" is printed, the port answers.
        assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_busy_port_says_so_and_never_ready(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = _opolyx(tmp_path, "serve", "--port", str(port))
    assert r.returncode != 0
    assert "opolyx ready" not in r.stdout + r.stderr
    assert f"could not listen on 127.0.0.1:{port}" in r.stderr


def test_verify_a_replay_file(tmp_path: Path, server: ThreadServer, people: Callable[[str], Person]) -> None:
    from test_security_findings import _finished_game

    ann = people("Ann")
    game = _finished_game(ann)
    rid = game["room"]["id"]
    seen_at_start = game["seen"][0]["event"]["commitment"]
    replay = ann.http.get(f"/games/{rid}/replay?events=true").json()
    good = tmp_path / "good.json"
    good.write_text(json.dumps(replay))
    r = _opolyx(tmp_path, "verify", str(good), "--commitment", seen_at_start)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "verdict: fair" in r.stdout and "dice rolls" in r.stdout
    r = _opolyx(tmp_path, "verify", str(good), "--server", server.base)
    assert r.returncode == 0 and "verdict: fair" in r.stdout, r.stdout + r.stderr
    # The commitment inside the file proves nothing on its own: one line, not verified.
    r = _opolyx(tmp_path, "verify", str(good))
    assert r.returncode == 1 and r.stdout.startswith("not verified:") and len(r.stdout.splitlines()) == 1, r.stdout
    assert "--commitment" in r.stdout and "--server" in r.stdout
    # A die the server showed differently from what the seed gives.
    for step in replay["actions"]:
        for event in step["events"]:
            if event["type"] == "dice_rolled":
                event["dice"] = [7, 7]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(replay))
    r = _opolyx(tmp_path, "verify", str(bad), "--commitment", seen_at_start)
    assert r.returncode == 1 and "NOT VERIFIED" in r.stdout and "dice or cards" in r.stdout
    # A commitment other than the one the table saw.
    r = _opolyx(tmp_path, "verify", str(good), "--commitment", "ab" * 32)
    assert r.returncode == 1 and "DOES NOT MATCH" in r.stdout
    r = _opolyx(tmp_path, "verify", str(good), "--commitment", "ab" * 32, "--server", server.base)
    assert r.returncode == 1 and r.stdout.startswith("not verified:")
    (tmp_path / "junk.json").write_text("{")
    r = _opolyx(tmp_path, "verify", str(tmp_path / "junk.json"))
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_a_forged_replay_is_not_called_fair(
    tmp_path: Path, server: ThreadServer, people: Callable[[str], Person]
) -> None:
    """A cheater's file: a new seed, a game played from it, and the new seed's own commitment inside. It
    agrees with itself, so only a commitment from outside the file can expose it."""
    from test_security_findings import _finished_game, forged_replay

    ann = people("Ann")
    game = _finished_game(ann)
    rid = game["room"]["id"]
    forged = forged_replay(ann.http.get(f"/games/{rid}/replay?events=true").json())
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged))
    r = _opolyx(tmp_path, "verify", str(path))
    assert r.returncode == 1 and "not verified" in r.stdout and "fair" not in r.stdout.replace("unfair", ""), r.stdout
    r = _opolyx(tmp_path, "verify", str(path), "--server", server.base)
    assert r.returncode == 1 and "DOES NOT MATCH" in r.stdout and "NOT VERIFIED" in r.stdout, r.stdout
    r = _opolyx(tmp_path, "verify", str(path), "--commitment", game["seen"][0]["event"]["commitment"])
    assert r.returncode == 1 and "NOT VERIFIED" in r.stdout
