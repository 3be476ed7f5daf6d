"""Issue 39, tried as an attacker would: JSON may spell a lone surrogate (``"\\ud800"``), which no encoder
writes back. A frame whose ``ref`` holds one is refused with ``bad_message`` (chat text with one is
``invalid_text``, as before) and leaves no traceback in the log."""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest
from server_kit import Person

from live_server import ThreadServer


def test_a_lone_surrogate_is_refused_without_a_traceback(
    server: ThreadServer, people: Callable[[str], Person], caplog: pytest.LogCaptureFixture
) -> None:
    ann = people("Ann")
    room = ann.create("blitz", 2)
    ann.connect(room["id"])
    ann.recv_until("snapshot")
    caplog.set_level(logging.DEBUG, logger="opolyx")
    frames: list[str | bytes] = [
        '{"type": "ping", "ref": "\\ud800"}',
        '{"type": "sync", "ref": "a\\udfff"}',
        '{"type": "action", "action": {"type": "roll"}, "ref": "\\ud83d"}',
        b'{"type": "ping", "ref": "\xed\xa0\x80"}',  # a surrogate written as (invalid) UTF-8 bytes
    ]
    for frame in frames:
        ann.send(frame)
        answer = ann.recv_until("error")
        assert answer["code"] == "bad_message", (frame, answer)
        assert answer["ref"] is None
    # Text fields are judged by their own validators, which name the field.
    ann.send('{"type": "chat", "text": "hi \\udc00", "ref": "\\ud800"}')
    assert ann.recv_until("error")["code"] == "bad_message"
    ann.send('{"type": "chat", "text": "hi \\udc00", "ref": 7}')
    answer = ann.recv_until("error")
    assert answer["code"] == "invalid_text" and answer["ref"] == 7, answer
    # The socket still works, and the log holds no traceback and no error.
    ann.send({"type": "ping", "ref": "ok"})
    assert ann.recv_until("pong")["ref"] == "ok"
    noisy = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert not noisy, [r.getMessage() for r in noisy]
