"""The server's measurement of play, stored with every action: who made it and how long after the state
it answered it arrived, plus the identities seen acting for each seat.

The engine stays pure (it never sees a clock); the progression rules (opolyx.progression.play) read what
is measured here to pay XP only for turns people really played, and to tell two seats of one person
apart from two people (docs/accounts.md, "Against farming").
"""

from __future__ import annotations

import hashlib
import hmac
import time

from opolyx.progression.play import AGENT, PERSON
from opolyx.server.play.peers import Peer
from opolyx.storage import Store


def actor_of(origin: Peer | None, default: str) -> str:
    """A person's own socket, an AI agent's API key, or whoever acted without a socket (bot, clock, server)."""
    if origin is None:
        return default
    return AGENT if origin.user.agent else PERSON


def _keyed(secret: str, kind: str, value: str) -> str:
    """A keyed hash, so the stored marks cannot be turned back into addresses or cookies."""
    digest = hmac.new(secret.encode(), f"opolyx-mark:{kind}:{value}".encode(), hashlib.sha256).hexdigest()
    return f"{kind}:{digest[:40]}"


def identity_marks(secret: str, peer: Peer) -> list[str]:
    """What the server can tell of the person behind a socket: the account, the session, the address and
    the device cookie (the last three as keyed hashes)."""
    marks = [f"user:{peer.user.id}"]
    session = getattr(peer, "session_id", None)
    if session:
        marks.append(_keyed(secret, "session", str(session)))
    if peer.address and peer.address != "unknown":
        marks.append(_keyed(secret, "addr", peer.address))
    device = getattr(peer, "device", None)
    if device:
        marks.append(_keyed(secret, "device", str(device)))
    return marks


class PlayMeter:
    """One room's measurement: when the state last changed, and the marks already stored per seat."""

    def __init__(self) -> None:
        self.changed_at = time.monotonic()
        self.marks: dict[int, set[str]] = {}

    def elapsed_ms(self) -> int:
        return max(0, int((time.monotonic() - self.changed_at) * 1000))

    def changed(self) -> None:
        """The table was just shown a new state: the next answer's think time starts now."""
        self.changed_at = time.monotonic()

    async def load(self, store: Store, room_id: str) -> None:
        self.marks = await store.seat_marks_of(room_id)
        self.changed()

    async def note(self, store: Store, secret: str, room_id: str, seat: int, peer: Peer) -> None:
        """Store the identities of the socket acting for ``seat`` that were not seen for it before."""
        known = self.marks.setdefault(seat, set())
        new = [m for m in identity_marks(secret, peer) if m not in known]
        if new:
            await store.add_seat_marks(room_id, seat, new)
            known.update(new)
