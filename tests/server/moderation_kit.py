"""Helpers of the moderation tests: appoint an operator in a running server, gather a socket's frames."""

from __future__ import annotations

from typing import Any

from server_kit import Person

from live_server import ThreadServer


def services(srv: ThreadServer) -> Any:
    return srv.server.config.app.state.services  # type: ignore[attr-defined]


def appoint(srv: ThreadServer, *people: Person) -> None:
    """Make these people operators, as OPOLYX_OPERATORS would (the settings are read on every request)."""
    services(srv).settings.operators = ",".join(p.id for p in people)


def frames_until_pong(p: Person, ref: str) -> list[dict[str, Any]]:
    """Everything the socket received until the answer to a ping sent now (so nothing is still in flight)."""
    p.send({"type": "ping", "ref": ref})
    seen: list[dict[str, Any]] = []
    while True:
        frame = p.recv()
        if frame["type"] == "pong" and frame.get("ref") == ref:
            return seen
        seen.append(frame)


def chats(frames: list[dict[str, Any]]) -> list[str]:
    return [f["text"] for f in frames if f["type"] == "chat"]
