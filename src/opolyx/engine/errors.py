"""The engine's one error type: a refused action, with a stable code for clients and tests."""

from __future__ import annotations


class IllegalAction(ValueError):
    """Raised when an action is not allowed now; the game is left exactly as it was.

    ``code`` is stable (clients translate it and tests assert it); the message is for people reading logs.
    """

    def __init__(self, code: str, message: str | None = None) -> None:
        super().__init__(message or code)
        self.code = code

    def __reduce__(self) -> tuple[type[IllegalAction], tuple[str, str]]:
        return (IllegalAction, (self.code, str(self)))
