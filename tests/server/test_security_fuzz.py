"""Hypothesis against the room socket: every client message type with hostile fields, and arbitrary
frames (text, bytes, any JSON). Whatever is sent: no crash, the socket stays usable, every refusal is an
error frame with a documented code (never ``internal_error``), and a refused frame changes nothing.

A longer run (a million frames) is ``benchmarks/fuzz_socket.py``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from server_kit import Person

from live_server import ThreadServer
from opolyx.protocol.models import ACTION_MODELS

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
DOCUMENTED = set(re.findall(r"^- `([a-z_]+)`$", DOC.read_text().split("## Error codes", 1)[1].split("###", 1)[0], re.M))

FUZZ = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

json_leaf = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=20)
json_any = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
any_text = st.text(st.characters(codec=None, exclude_categories=()), max_size=400)
#: A text frame as a client can send it: WebSocket text is UTF-8, which has no lone surrogates (a client library
#: refuses to encode one and drops its own connection). They still reach the server as JSON escapes, below.
frame_text = st.text(st.characters(codec="utf-8"), max_size=400)
small = st.integers(-3, 45) | json_leaf
optional_fields = {
    "ref": json_leaf,
    "seq": small,
    "seat": small,
}


def _action() -> st.SearchStrategy[dict[str, Any]]:
    kinds = st.sampled_from([*ACTION_MODELS, "timeout", "", "nope"]) | st.text(max_size=12)
    fields = {
        "square": small,
        "amount": small | st.integers(-(2**63), 2**63),
        "to": small,
        "give": json_any | st.fixed_dictionaries({"cash": small, "squares": st.lists(small, max_size=50)}),
        "take": json_any | st.fixed_dictionaries({"cash": small, "squares": st.lists(small, max_size=5)}),
        "trade": small,
        "numbers": st.lists(small, max_size=5) | json_leaf,
        "use": st.sampled_from(["sum", "first", "second"]) | json_leaf,
        "zzz": json_any,
    }
    return kinds.flatmap(lambda k: st.fixed_dictionaries({"type": st.just(k)}, optional=fields))  # type: ignore[arg-type]


MESSAGES = st.one_of(
    st.fixed_dictionaries({"type": st.just("action"), "action": _action() | json_any}, optional=optional_fields),
    st.fixed_dictionaries({"type": st.just("chat"), "text": any_text | json_any}, optional=optional_fields),
    st.fixed_dictionaries({"type": st.just("sync")}, optional={**optional_fields, "extra": json_any}),
    st.fixed_dictionaries({"type": st.just("ping")}, optional={**optional_fields, "extra": json_any}),
    st.fixed_dictionaries({"type": json_leaf}, optional={"action": json_any, "text": json_any}),
)
FRAMES = st.one_of(
    frame_text,
    st.binary(max_size=300),
    json_any.map(lambda v: json.dumps(v)),
    MESSAGES.map(lambda m: json.dumps(m)),  # lone surrogates travel as \\udXXX escapes
    st.integers(1, 3000).map(lambda n: "[" * n + "]" * n),
    st.integers(16_000, 40_000).map(lambda n: '{"type":"chat","text":"' + "x" * n + '"}'),
)


class Probe:
    """Ann, seated in a running game against a bot, sending what hypothesis makes up."""

    def __init__(self, person: Person) -> None:
        self.p = person
        self.seq = 0
        self.n = 0

    def absorb(self, frame: dict[str, Any]) -> None:
        if frame["type"] in ("snapshot", "events"):
            self.seq = frame["seq"]

    def exchange(self, raw: str | bytes) -> list[dict[str, Any]]:
        """Send ``raw`` then a ping; everything received until that ping's pong."""
        self.n += 1
        mark = f"probe-{self.n}"
        self.p.send(raw)
        self.p.send({"type": "ping", "ref": mark})
        got: list[dict[str, Any]] = []
        while True:
            frame = self.p.recv(timeout=20)
            self.absorb(frame)
            if frame["type"] == "pong" and frame.get("ref") == mark:
                return got
            got.append(frame)

    def check(self, raw: str | bytes) -> None:
        before = self.seq
        replies = self.exchange(raw)
        errors = [f for f in replies if f["type"] == "error"]
        for e in errors:
            assert e["code"] in DOCUMENTED, e
            assert e["code"] != "internal_error", (raw[:200], e)
        moved = any(f["type"] == "events" for f in replies)
        if errors and not moved:
            # A refused frame changed nothing: a fresh snapshot shows the same seq (unless the game's own
            # clock or the bot moved meanwhile, which arrives as an events frame of its own).
            frames = self.exchange('{"type":"sync","ref":"check"}')
            snaps = [f for f in frames if f["type"] == "snapshot"]
            clock_moved = any(f["type"] == "events" and f.get("ref") is None for f in frames)
            assert snaps, "no snapshot answered the sync"
            assert snaps[-1]["seq"] == before or clock_moved, "state changed after a refusal"


@pytest.fixture
def probe(server: ThreadServer, people: Callable[[str], Person]) -> Iterator[Probe]:
    ann = people("Ann")
    room = ann.create("classic", 2)
    ann.post(f"/api/rooms/{room['id']}/bots", {"strength": "easy"})
    ann.connect(room["id"])
    ann.recv_until("snapshot")
    assert ann.post(f"/api/rooms/{room['id']}/start").status_code == 200
    probe = Probe(ann)
    probe.absorb(ann.recv_until("snapshot"))
    yield probe


@FUZZ
@given(message=MESSAGES)
def test_every_message_type_fuzzed(probe: Probe, message: dict[str, Any]) -> None:
    probe.check(json.dumps(message))


@FUZZ
@given(frame=FRAMES)
def test_arbitrary_frames_fuzzed(probe: Probe, frame: str | bytes) -> None:
    probe.check(frame)
