"""Room WebSockets are compressed (permessage-deflate) unless the operator turns it off."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable

from server_kit import Person
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.protocol import State
from websockets.uri import parse_uri

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


def _pings_heard(server: ThreadServer, *, talk_every: float | None, seconds: float) -> int:
    """Protocol pings a room socket receives in ``seconds`` (answered, as every client does), while it
    sends the browser's application ping every ``talk_every`` seconds, or nothing."""
    ann = Person(server.base, "Ann")
    room = ann.create("classic", 2)
    ann.close()
    ws = ClientProtocol(parse_uri(server.base.replace("http", "ws", 1) + f"/ws/rooms/{room['id']}"))
    request = ws.connect()
    request.headers["Cookie"] = f"opolyx_session={ann.token}"
    ws.send_request(request)
    pings = 0
    with socket.create_connection(("127.0.0.1", server.settings.port), timeout=5) as sock:
        sock.settimeout(0.05)
        end = time.monotonic() + seconds
        next_talk = time.monotonic()
        while time.monotonic() < end:
            if talk_every is not None and ws.state is State.OPEN and time.monotonic() >= next_talk:
                ws.send_text(b'{"type":"ping"}')
                next_talk += talk_every
            sock.sendall(b"".join(ws.data_to_send()))  # pongs to pings are queued by the protocol
            try:
                data = sock.recv(65536)
            except TimeoutError:
                continue
            assert data, "the server closed the socket"
            ws.receive_data(data)
            pings += sum(1 for e in ws.events_received() if isinstance(e, Frame) and e.opcode == Opcode.PING)
    return pings


def test_only_quiet_sockets_get_keepalive_pings(start_server: Callable[..., ThreadServer]) -> None:
    server = start_server(ws_ping_seconds=0.5)
    assert _pings_heard(server, talk_every=None, seconds=2.5) >= 2
    # The browser's own 20 s ping (here every 0.05 s) proves the socket alive: no protocol ping needed.
    assert _pings_heard(server, talk_every=0.05, seconds=2.0) == 0
