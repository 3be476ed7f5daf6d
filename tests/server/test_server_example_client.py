"""examples/client_bot.py, built on the reference client opolyx.client, joins a room and plays it to the end."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from server_kit import Person

from live_server import ThreadServer
from opolyx.server.play.rooms import new_room_id

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "client_bot.py"


def test_example_speaks_the_protocol_only_through_the_reference_client() -> None:
    text = EXAMPLE.read_text()
    assert "from opolyx.client import" in text
    assert "import websockets" not in text and "import httpx" not in text


def test_room_ids_can_be_given_on_a_command_line() -> None:
    """One ``token_urlsafe`` id in 64 began with ``-``, which a command line reads as an option: the example
    refused ``--room -…`` with a usage error, so such a room could not be joined with it."""
    ids = [new_room_id() for _ in range(3000)]
    assert not [i for i in ids if i.startswith("-")]
    assert len(set(ids)) == len(ids) and {len(i) for i in ids} == {16}


def test_example_client_joins_and_plays_to_the_end(
    server: ThreadServer, people: Callable[[str], Person]
) -> None:
    ann = people("Ann")
    room = ann.create("blitz", 3)
    ann.post(f"/api/rooms/{room['id']}/bots", {"strength": "normal"})
    proc = subprocess.Popen(
        [sys.executable, str(EXAMPLE), "--server", server.base, "--room", room["id"], "--name", "Example"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while len(ann.http.get(f"/api/rooms/{room['id']}").json()["players"]) < 3:
            if proc.poll() is not None:
                pytest.fail(f"the example exited with {proc.returncode} before joining: {proc.communicate()}")
            assert time.monotonic() < deadline, "the example did not join within 30 s"
            time.sleep(0.05)
        assert ann.post(f"/api/rooms/{room['id']}/start").status_code == 200
        # Ann leaves (resigns): the example plays on against the bot.
        assert ann.post(f"/api/rooms/{room['id']}/leave").status_code == 200
        out, err = proc.communicate(timeout=240)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert json.loads(out.strip().splitlines()[-1])["over"] is True
    assert ann.http.get(f"/games/{room['id']}/replay").json()["status"] == "finished"


def test_example_client_creates_a_room(server: ThreadServer) -> None:
    out = subprocess.run(
        [sys.executable, str(EXAMPLE), "--server", server.base, "--create", "blitz", "--bots", "2"],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1])["over"] is True
