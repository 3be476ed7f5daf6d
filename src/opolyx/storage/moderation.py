"""The moderation half of the store: what people say about each other (friends, mutes, blocks), the
invitations friends send, the chat filter preference, reports with their evidence, operators' sanctions,
their audit log, and the games each person left early or forfeited.

Records are plain frozen dataclasses, like the rest of the store's; the SQL lives in moderation_sql.py.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from opolyx.jsontypes import JSON

FRIEND = "friend"
MUTE = "mute"
BLOCK = "block"
LINK_KINDS = (FRIEND, MUTE, BLOCK)

BAN = "ban"
SILENCE = "mute"
SANCTION_KINDS = (BAN, SILENCE)

# Departures counted against a person's reliability: a bot took their seat after they left, they resigned,
# or the clocks forfeited them (two missed turns in a row).
LEFT = "left"
RESIGNED = "resigned"
FORFEIT = "forfeit"
# How many of a person's latest finished games their reliability is worked out over.
RELIABILITY_GAMES = 30


@dataclass(frozen=True)
class PersonRef:
    id: str
    nickname: str


@dataclass(frozen=True)
class InviteRecord:
    id: int
    from_id: str
    from_name: str
    room_id: str
    created_at: datetime


@dataclass(frozen=True)
class ReportRecord:
    id: int
    reporter_id: str
    reported_id: str
    room_id: str | None
    reason: str
    note: str | None
    # The reported chat line as it was when reported (None: the report is about the person).
    line: JSON | None
    # What surrounded it when reported: chat lines before and after, the room and its game.
    evidence: JSON
    created_at: datetime
    handled_at: datetime | None = None
    handled_by: str | None = None
    outcome: str | None = None


@dataclass(frozen=True)
class SanctionRecord:
    id: int
    kind: str
    user_id: str | None
    address: str | None
    reason: str
    created_by: str
    created_at: datetime
    expires_at: datetime
    lifted_at: datetime | None = None


@dataclass(frozen=True)
class AuditRecord:
    id: int
    at: datetime
    operator: str
    action: str
    target: str
    reason: str
    details: JSON | None


@dataclass(frozen=True)
class Reliability:
    """Of a person's last ``games`` finished games, how many they left early or forfeited."""

    games: int
    departed: int

    @property
    def share(self) -> float:
        return self.departed / self.games if self.games else 0.0

    def to_json(self) -> JSON:
        return {"games": self.games, "departed": self.departed, "share": round(self.share, 3)}


class ModerationStore(abc.ABC):
    # links between people
    @abc.abstractmethod
    async def set_link(self, user_id: str, other_id: str, kind: str, on: bool) -> None:
        """Add (``on``) or remove ``user_id``'s link of ``kind`` to ``other_id``."""

    @abc.abstractmethod
    async def links_of(self, user_id: str, kind: str) -> list[PersonRef]:
        """The people ``user_id`` linked to with ``kind``, by name."""

    @abc.abstractmethod
    async def linked_to(self, user_id: str, kind: str) -> list[PersonRef]:
        """The people who linked to ``user_id`` with ``kind`` (friend requests received)."""

    @abc.abstractmethod
    async def is_blocked(self, a: str, b: str) -> bool:
        """Whether either of the two blocked the other (quick play never seats them together)."""

    @abc.abstractmethod
    async def blocked_pairs(self, user_ids: Iterable[str]) -> set[frozenset[str]]:
        """Every pair among ``user_ids`` in which one blocked the other."""

    @abc.abstractmethod
    async def hidden_from(self, viewers: Iterable[str], speaker: str) -> set[str]:
        """Those of ``viewers`` who must not see what ``speaker`` says: they muted or blocked the speaker,
        or the speaker blocked them."""

    @abc.abstractmethod
    async def hidden_for(self, viewer: str) -> set[str]:
        """Everyone whose words ``viewer`` must not see (muted or blocked by them, or blocking them)."""

    @abc.abstractmethod
    async def last_seen(self, user_ids: Sequence[str]) -> dict[str, datetime]:
        """When each person's live sessions last reached the server (are they online)."""

    @abc.abstractmethod
    async def users_by_nickname(self, nickname: str, limit: int = 3) -> list[PersonRef]: ...

    # invitations
    @abc.abstractmethod
    async def add_invite(self, from_id: str, to_id: str, room_id: str) -> None: ...

    @abc.abstractmethod
    async def invite(self, invite_id: int, to_id: str) -> InviteRecord | None:
        """One invitation sent to ``to_id`` (None for anyone else's)."""

    @abc.abstractmethod
    async def invites_for(self, user_id: str, since: datetime) -> list[InviteRecord]: ...

    # the chat filter
    @abc.abstractmethod
    async def set_chat_filter(self, user_id: str, on: bool) -> None: ...

    @abc.abstractmethod
    async def chat_filter_off(self, user_ids: Iterable[str]) -> set[str]:
        """Those of ``user_ids`` who switched the word filter off (it is on by default)."""

    # reports
    @abc.abstractmethod
    async def add_report(
        self,
        reporter_id: str,
        reported_id: str,
        *,
        room_id: str | None,
        reason: str,
        note: str | None,
        line: JSON | None,
        evidence: JSON,
    ) -> int: ...

    @abc.abstractmethod
    async def chat_around(self, room_id: str, at: float, before: int, after: int) -> tuple[JSON | None, list[JSON]]:
        """The stored chat line of the room said at ``at`` and the lines around it (each with its user)."""

    @abc.abstractmethod
    async def reports(self, *, open_only: bool, limit: int) -> list[ReportRecord]: ...

    @abc.abstractmethod
    async def reports_by(self, reporter_id: str, limit: int) -> list[ReportRecord]:
        """The reports one person filed (they see these, and no one else's)."""

    @abc.abstractmethod
    async def get_report(self, report_id: int) -> ReportRecord | None: ...

    @abc.abstractmethod
    async def close_report(self, report_id: int, operator: str, outcome: str) -> bool: ...

    # sanctions
    @abc.abstractmethod
    async def add_sanction(
        self, kind: str, *, user_id: str | None, address: str | None, reason: str, by: str, until: datetime
    ) -> int: ...

    @abc.abstractmethod
    async def lift_sanction(self, sanction_id: int) -> SanctionRecord | None: ...

    @abc.abstractmethod
    async def active_sanction(self, kind: str, *, user_id: str | None, address: str | None) -> SanctionRecord | None:
        """The live sanction of ``kind`` on the person or the address, if any."""

    @abc.abstractmethod
    async def sanctions(self, *, active_only: bool, limit: int) -> list[SanctionRecord]: ...

    @abc.abstractmethod
    async def revoke_api_keys(self, user_id: str) -> int:
        """Revoke every live personal API key of the person (a ban)."""

    @abc.abstractmethod
    async def remove_chat_line(self, room_id: str, at: float, text: str) -> int:
        """Replace what a chat line said (an operator removed it); returns how many lines matched."""

    # the audit log
    @abc.abstractmethod
    async def audit(
        self, operator: str, action: str, target: str, reason: str, details: JSON | None = None
    ) -> None: ...

    @abc.abstractmethod
    async def audit_log(self, limit: int) -> list[AuditRecord]: ...

    # reliability
    @abc.abstractmethod
    async def record_departure(self, game_id: str, user_id: str, kind: str) -> None:
        """The person left the game early or forfeited it (the first departure of a game counts)."""

    @abc.abstractmethod
    async def reliability(self, user_ids: Sequence[str]) -> dict[str, Reliability]: ...
