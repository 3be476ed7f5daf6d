"""The engine's one error type: a refused action, with a stable code for clients and tests."""

from __future__ import annotations

from typing import Any


class IllegalAction(ValueError):
    """Raised when an action is not allowed now; the game is left exactly as it was.

    ``code`` is stable (clients translate it and tests assert it); the message is for people reading logs.
    ``data`` carries the numbers behind a refusal where a client needs them to try again (e.g. both sides'
    values and the limit of an ``unfair_trade``); it is None for most codes.
    """

    def __init__(self, code: str, message: str | None = None, data: dict[str, Any] | None = None) -> None:
        super().__init__(message or code)
        self.code = code
        self.data = data

    def __reduce__(self) -> tuple[type[IllegalAction], tuple[str, str, dict[str, Any] | None]]:
        return (IllegalAction, (self.code, str(self), self.data))
