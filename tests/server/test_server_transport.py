"""Room WebSockets are compressed (permessage-deflate) unless the operator turns it off."""

from __future__ import annotations

from collections.abc import Callable

from server_kit import Person

from live_server import ThreadServer


def _open(server: ThreadServer) -> tuple[str | None, dict[str, object]]:
    ann = Person(server.base, "Ann")
    try:
        room = ann.create("classic", 2)
        ws = ann.connect(room["id"])
        assert ws.response is not None
        negotiated = ws.response.headers.get("Sec-WebSocket-Extensions")
        return negotiated, ann.recv_until("snapshot")
    finally:
        ann.close()


def test_room_sockets_are_compressed_by_default(start_server: Callable[..., ThreadServer]) -> None:
    negotiated, snapshot = _open(start_server())
    assert negotiated is not None and negotiated.startswith("permessage-deflate")
    # A window wider than one events frame: consecutive game states compress against each other.
    assert "server_max_window_bits=13" in negotiated
    assert snapshot["room"]["status"] == "waiting"


def test_compression_can_be_turned_off(start_server: Callable[..., ThreadServer]) -> None:
    negotiated, snapshot = _open(start_server(ws_deflate=False))
    assert negotiated is None
    assert snapshot["room"]["status"] == "waiting"
