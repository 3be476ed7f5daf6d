"""Frames are encoded with orjson; what clients parse must be what the server meant to send."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from opolyx.server.wire import dumps, fragment, loads


def test_frames_parse_back_to_what_was_sent_including_names_in_any_script() -> None:
    frame = {"type": "chat", "name": "Zoë 山田", "seat": 2, "text": "gg — 🎲", "at": 1.5, "ref": None}
    assert json.loads(dumps(frame)) == frame
    assert loads(dumps(frame)) == frame


def test_values_orjson_refuses_still_make_a_frame() -> None:
    # A client may echo any JSON number as its ``ref``; one beyond 64 bits must not lose the frame.
    frame = {"type": "snapshot", "ref": -(2**70), "squares": {3: "rent"}, "history": [fragment({"seq": 1})]}
    expected = {"type": "snapshot", "ref": -(2**70), "squares": {"3": "rent"}, "history": [{"seq": 1}]}
    assert json.loads(dumps(frame)) == expected


def test_timestamps_are_written_as_the_standard_library_wrote_them() -> None:
    at = datetime(2026, 12, 1, 2, 30, tzinfo=UTC)
    assert json.loads(dumps({"at": at})) == {"at": str(at)}
