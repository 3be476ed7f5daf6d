"""The one error a client raises for anything the server refused, carrying the server's stable code."""

from __future__ import annotations

from typing import Any


class OpolyxError(Exception):
    """A refusal by the server (``code`` as in docs/protocol.md) or a connection the client lost.

    ``status`` is the HTTP status for lobby calls and None for socket frames; ``reason`` is the engine's
    own code for ``illegal_action``; ``room`` names the room you already sit in for ``already_in_game``.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        status: int | None = None,
        reason: str | None = None,
        room: str | None = None,
        data: dict[str, Any] | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status
        self.reason = reason
        self.room = room
        # The numbers behind a refusal (an unfair trade's values), and how long to wait after rate_limited.
        self.data = data
        self.retry_after = retry_after

    @classmethod
    def from_frame(cls, frame: dict[str, Any]) -> OpolyxError:
        data = frame.get("data")
        return cls(
            str(frame.get("code")),
            str(frame.get("message")),
            reason=frame.get("reason"),
            data=data if isinstance(data, dict) else None,
        )


# Codes the client itself uses (never sent by the server).
CONNECTION_LOST = "connection_lost"
TIMED_OUT = "timed_out"
