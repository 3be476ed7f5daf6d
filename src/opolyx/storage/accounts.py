"""The accounts half of the store interface: sessions, magic links, profiles and progression.

Kept apart from base.py so the game half stays readable; :class:`opolyx.storage.base.Store` inherits
:class:`AccountStore`, and every backend implements both. The progression rules live in
opolyx.progression: the store reads an account's standing and writes what they decide.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from opolyx.jsontypes import JSON
from opolyx.progression.booking import Standing, Totals

# Why a magic link was refused (the HTTP layer turns each into an error code).
LINK_UNKNOWN = "unknown"
LINK_USED = "used"
LINK_EXPIRED = "expired"


@dataclass(frozen=True)
class SessionRecord:
    id: str
    user_id: str
    user_agent: str | None
    created_at: datetime
    last_seen_at: datetime
    expires_at: datetime


@dataclass(frozen=True)
class MagicLinkRecord:
    email: str
    guest_id: str | None


@dataclass(frozen=True)
class CardRecord:
    id: int
    square: int
    rarity: str
    level: int
    seed: int
    game_id: str | None
    created_at: datetime

    def to_json(self) -> JSON:
        return {
            "id": self.id,
            "square": self.square,
            "rarity": self.rarity,
            "level": self.level,
            "seed": self.seed,
            "game_id": self.game_id,
        }


@dataclass(frozen=True)
class AwardRecord:
    game_id: str
    seat: int
    user_id: str
    xp: int
    parts: JSON
    refused: str | None
    won: bool
    level_before: int
    level_after: int
    drops: tuple[CardRecord, ...] = field(default_factory=tuple)

    def to_json(self) -> JSON:
        return {
            "seat": self.seat,
            "xp": self.xp,
            "parts": self.parts,
            "refused": self.refused,
            "won": self.won,
            "level_before": self.level_before,
            "level_after": self.level_after,
            "drops": [c.to_json() for c in self.drops],
        }


@dataclass(frozen=True)
class GameSummary:
    game_id: str
    mode: str
    finished_at: datetime | None
    seat: int
    place: int | None
    xp: int
    players: tuple[str, ...]


@dataclass(frozen=True)
class LeaderRow:
    position: int
    user_id: str
    nickname: str
    avatar: str | None
    level: int
    value: int


class AccountStore(abc.ABC):
    # sessions
    @abc.abstractmethod
    async def create_session(
        self, session_id: str, user_id: str, token_hash: str, *, user_agent: str | None, expires_at: datetime
    ) -> SessionRecord: ...

    @abc.abstractmethod
    async def session_by_token(self, token_hash: str, now: datetime) -> SessionRecord | None:
        """The live (not revoked, not expired) session holding this token hash."""

    @abc.abstractmethod
    async def list_sessions(self, user_id: str, now: datetime) -> list[SessionRecord]: ...

    @abc.abstractmethod
    async def revoke_sessions(self, user_id: str, *, only: str | None = None, keep: str | None = None) -> int:
        """Revoke one session (``only``), or all but ``keep``; returns how many were revoked."""

    # magic links
    @abc.abstractmethod
    async def create_magic_link(
        self, token_hash: str, email: str, *, guest_id: str | None, expires_at: datetime
    ) -> None: ...

    @abc.abstractmethod
    async def peek_magic_link(self, token_hash: str, now: datetime) -> MagicLinkRecord | None:
        """The link if it could be used now, without using it."""

    @abc.abstractmethod
    async def consume_magic_link(self, token_hash: str, now: datetime) -> MagicLinkRecord | str:
        """Mark the link used and return it, atomically; else LINK_UNKNOWN / LINK_USED / LINK_EXPIRED."""

    # accounts
    @abc.abstractmethod
    async def user_by_email(self, email: str) -> str | None: ...

    @abc.abstractmethod
    async def attach_email(self, user_id: str, email: str) -> None: ...

    @abc.abstractmethod
    async def merge_user(
        self, guest_id: str, into_id: str, merge: Callable[[Standing, int, int], Totals]
    ) -> None:
        """Move a guest's games, chat and rooms to an account and add its XP and wins; the guest row is
        emptied. ``merge`` (the rules, opolyx.progression.merged) turns the account's standing (with the
        XP it has had today) and the guest's XP and wins into the account's new totals: the daily cap
        holds, and the cards follow the resulting level (the guest's own cards are not carried over)."""

    @abc.abstractmethod
    async def update_profile(
        self, user_id: str, *, nickname: str | None, avatar: str | None, language: str | None
    ) -> None: ...

    @abc.abstractmethod
    async def delete_account(self, user_id: str) -> list[str]:
        """Remove personal data: address, names (also in past games' seats and ``seat_info``, and in chat,
        whose text is replaced too), sessions, links, cards, API keys (labels and all). Returns the ids of
        the rooms whose stored names or chat changed, so that copies held in memory can follow."""

    # progression
    @abc.abstractmethod
    async def cards_of(self, user_id: str) -> list[CardRecord]: ...

    @abc.abstractmethod
    async def next_drop_seed(self, user_id: str) -> int | None:
        """The secret seed the account's next card drops will be drawn from (None: no such account). An
        account without one, or whose seed a drop has already revealed, is given a fresh one now, so the
        commitment shown before a drop is the one the drop reveals. Never sent to anyone: only its
        commitment is (opolyx.progression.drops)."""

    @abc.abstractmethod
    async def recent_games(self, user_id: str, limit: int = 20) -> list[GameSummary]: ...

    @abc.abstractmethod
    async def awards_of_game(self, game_id: str) -> list[AwardRecord]: ...

    @abc.abstractmethod
    async def meetings(self, user_id: str, others: Sequence[str], since: datetime) -> int:
        """The most finished games (public or private) ``user_id`` shared with any one of ``others`` since then."""

    @abc.abstractmethod
    async def leaderboard(
        self,
        by: Literal["xp", "wins"],
        *,
        since: datetime | None,
        limit: int,
        viewer: str | None,
        board: Literal["people", "agents"] = "people",
    ) -> tuple[list[LeaderRow], LeaderRow | None]:
        """Top accounts by XP or wins (all time, or since ``since``). ``board="agents"`` ranks the points
        and wins of seats AI agents played through their owners' API keys, never mixed into people's."""
