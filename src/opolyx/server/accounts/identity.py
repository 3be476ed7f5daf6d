"""Guest identity: a signed cookie naming a user row, and the one place a request's token is read.

The cookie carries only the user id; everything else is in the users table, which already has a
nullable e-mail column so an account can later be attached to the same id without a new session type.

Transport (docs/security.md): browsers hold the token only in the HttpOnly cookie, out of reach of page
scripts; clients without a cookie jar ask for it explicitly (``"token": true`` in ``POST
/api/session``) and send it as ``Authorization: Bearer``. Tokens are never read from URLs, so they
never reach access logs, histories or Referer headers.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from pathlib import Path

from itsdangerous import BadSignature, URLSafeTimedSerializer

from opolyx.server.settings import Settings


def resolve_secret(settings: Settings) -> str:
    """The configured secret, else one kept in the data directory so restarts keep people signed in."""
    if settings.secret_key:
        return settings.secret_key
    path = Path(settings.data_dir) / "secret_key"
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    secret = secrets.token_urlsafe(48)
    # O_EXCL: if two processes start at once, the second reads the first's secret.
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    with os.fdopen(fd, "w") as f:
        f.write(secret)
    return secret


class SessionSigner:
    def __init__(self, secret: str, max_age_seconds: int) -> None:
        self._s = URLSafeTimedSerializer(secret, salt="opolyx-session")
        # The sign-in links this browser asked for (see accounts.routes: a link signs in its requester).
        self._links = URLSafeTimedSerializer(secret, salt="opolyx-signin-requests")
        self.max_age = max_age_seconds

    def sign(self, user_id: str) -> str:
        return self._s.dumps(user_id)

    def verify(self, token: str | None) -> str | None:
        if not token:
            return None
        try:
            value = self._s.loads(token, max_age=self.max_age)
        except BadSignature:
            return None
        return value if isinstance(value, str) else None


    def sign_links(self, digests: list[str]) -> str:
        return self._links.dumps(digests)

    def signed_links(self, value: str | None, max_age: int) -> list[str]:
        """The link digests a cookie made by :meth:`sign_links` names (none if forged or too old)."""
        if not value:
            return []
        try:
            found = self._links.loads(value, max_age=max_age)
        except BadSignature:
            return []
        return [d for d in found if isinstance(d, str)] if isinstance(found, list) else []


def new_user_id() -> str:
    return secrets.token_hex(16)


def request_token(cookies: Mapping[str, str], headers: Mapping[str, str], cookie_name: str) -> str | None:
    """The session token of an HTTP request or WebSocket handshake: an explicit Bearer header, else the
    cookie. The header wins because a program chose to send it for this request, whereas a cookie may be
    a stale one its jar still holds (a valid key or token was refused for a revoked cookie before)."""
    auth = headers.get("authorization", "")
    if auth[:7].lower() == "bearer ":
        token = auth[7:].strip()
        if token:
            return token
    return cookies.get(cookie_name) or None
