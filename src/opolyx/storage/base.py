"""The store interface: what the server needs to remember, independent of any database.

Records are plain frozen dataclasses (not ORM rows and not wire models) so the server never holds a
live database object and the HTTP/WebSocket models can evolve without a migration.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from opolyx.jsontypes import JSON
from opolyx.progression.booking import Credit
from opolyx.storage.accounts import AccountStore, AwardRecord
from opolyx.storage.moderation import ModerationStore
from opolyx.storage.ratings import RatingStore

WAITING = "waiting"
RUNNING = "running"
FINISHED = "finished"
CLOSED = "closed"
UNFINISHED = (WAITING, RUNNING)


class StoreError(Exception):
    """Base of the errors a store raises on purpose (anything else is an outage)."""


class AlreadySeated(StoreError):
    """The person already holds a seat in another unfinished game."""

    def __init__(self, room_id: str | None = None) -> None:
        super().__init__(f"already seated in unfinished room {room_id}")
        self.room_id = room_id


class SeatTaken(StoreError):
    """Someone else sat down first (two joins raced for one seat)."""


class SeqConflict(StoreError):
    """An action with this sequence number is already stored: another writer got there first."""


class NotFound(StoreError):
    pass


@dataclass(frozen=True)
class UserRecord:
    id: str
    nickname: str
    language: str
    email: str | None
    created_at: datetime
    avatar: str | None = None
    xp: int = 0
    level: int = 1
    wins: int = 0
    # Not stored with the person: true while they are served through a personal API key (an agent),
    # and that key's id.
    agent: bool = False
    api_key: str | None = None


@dataclass(frozen=True)
class SeatRecord:
    seat: int
    user_id: str | None
    bot: str | None
    name: str
    out: bool = False
    # The game's seq at which a bot took this seat over from a person who resigned (None: never).
    took_over_at: int | None = None
    # Taken through a personal API key: an AI agent plays this seat (shown to the table and the lobby).
    agent: bool = False

    @property
    def is_bot(self) -> bool:
        return self.bot is not None


@dataclass(frozen=True)
class RoomRecord:
    id: str
    code: str | None
    mode: str
    seat_count: int
    public: bool
    creator_id: str
    status: str
    created_at: datetime
    seats: tuple[SeatRecord, ...] = ()
    started_at: datetime | None = None
    finished_at: datetime | None = None
    # Secret: never leaves the server (no wire model has a field for it).
    seed: int | None = None
    seat_info: list[JSON] | None = None
    result: JSON | None = None
    clocks: JSON = field(default_factory=dict)
    # Chosen at creation: a bot takes over the seat of a person who resigns (else the seat goes out).
    bots_replace_leavers: bool = False
    # House rules (opolyx.rules.house): checked changes to the mode's table; None plays the standard mode.
    house_rules: JSON | None = None
    # Migration 0008: the game moves skill ratings when it ends (public rooms of a standard mode; a room
    # with house rules or a private one is unrated).
    rated: bool = False

    @property
    def moves_ratings(self) -> bool:
        """Whether the game moves skill ratings: a rated room that plays no house rules (its creator may
        add them after the room was made, so the stored flag alone does not say)."""
        return self.rated and not self.house_rules

    def seat_of(self, user_id: str) -> SeatRecord | None:
        for s in self.seats:
            if s.user_id == user_id:
                return s
        return None


@dataclass(frozen=True)
class ActionRecord:
    seq: int
    seat: int | None
    action: JSON
    at: datetime
    # Who made it and how long after the state it answered (migration 0007; None in older logs).
    actor: str | None = None
    elapsed_ms: int | None = None


@dataclass(frozen=True)
class ChatRecord:
    name: str
    seat: int | None
    spectator: bool
    text: str
    at: float
    user_id: str | None = None


@dataclass(frozen=True)
class NewRoom:
    id: str
    code: str | None
    mode: str
    seat_count: int
    public: bool
    creator_id: str
    creator_name: str
    bots_replace_leavers: bool = False
    creator_agent: bool = False
    house_rules: JSON | None = None
    # Whether the game moves skill ratings (storage.ratings); the lobby decides.
    rated: bool = False


@dataclass(frozen=True)
class ApiKeyRecord:
    """A personal API key as its owner may see it again: never the key itself, only its label and use."""

    id: str
    user_id: str
    label: str
    created_at: datetime
    last_used_at: datetime | None = None


class Store(AccountStore, RatingStore, ModerationStore):
    """Durable state of people, rooms and games. Every backend passes tests/storage/test_contract.py."""

    @abc.abstractmethod
    async def ping(self) -> None:
        """Raise if the database cannot answer."""

    @abc.abstractmethod
    async def close(self) -> None: ...

    # people
    @abc.abstractmethod
    async def create_user(self, user_id: str, nickname: str, language: str) -> UserRecord: ...

    @abc.abstractmethod
    async def get_user(self, user_id: str) -> UserRecord | None: ...

    @abc.abstractmethod
    async def update_user(self, user_id: str, *, nickname: str, language: str) -> UserRecord: ...

    # rooms
    @abc.abstractmethod
    async def create_room(self, room: NewRoom) -> RoomRecord:
        """Create a waiting room with the creator in seat 0; AlreadySeated if they are busy elsewhere."""

    @abc.abstractmethod
    async def get_room(self, room_id: str) -> RoomRecord | None: ...

    @abc.abstractmethod
    async def get_room_by_code(self, code: str) -> RoomRecord | None: ...

    @abc.abstractmethod
    async def list_rooms(
        self, statuses: Sequence[str], *, public_only: bool = True, limit: int = 100
    ) -> list[RoomRecord]: ...

    @abc.abstractmethod
    async def active_room_of(self, user_id: str) -> str | None:
        """The unfinished room where this person holds a seat and is not out, if any."""

    @abc.abstractmethod
    async def take_seat(
        self, room_id: str, seat: int, *, user_id: str | None, bot: str | None, name: str, agent: bool = False
    ) -> RoomRecord:
        """Sit a person or a bot; AlreadySeated / SeatTaken when refused."""

    @abc.abstractmethod
    async def free_seat(self, room_id: str, seat: int) -> RoomRecord: ...

    @abc.abstractmethod
    async def set_creator(self, room_id: str, user_id: str) -> RoomRecord: ...

    @abc.abstractmethod
    async def set_house_rules(self, room_id: str, house_rules: JSON | None) -> RoomRecord:
        """A waiting room's house rules replaced (None: back to the standard mode)."""

    @abc.abstractmethod
    async def arrange_seats(self, room_id: str, seats: Sequence[SeatRecord]) -> RoomRecord:
        """A waiting room's seats replaced by ``seats`` in one transaction (team choice, shuffling):
        nobody is ever seatless or seated twice in between."""

    @abc.abstractmethod
    async def close_room(self, room_id: str) -> None:
        """An abandoned waiting room: release every seat, keep the row for the record."""

    # games
    @abc.abstractmethod
    async def start_game(
        self, room_id: str, *, seed: int, seats: Sequence[SeatRecord], seat_info: list[JSON]
    ) -> RoomRecord:
        """Renumber the seats as the engine will see them and mark the room running."""

    @abc.abstractmethod
    async def append_action(
        self,
        room_id: str,
        seq: int,
        seat: int | None,
        action: JSON,
        *,
        clocks: JSON | None = None,
        actor: str | None = None,
        elapsed_ms: int | None = None,
    ) -> None:
        """Durably record action number ``seq`` (1-based); SeqConflict if that number is taken. ``actor``
        and ``elapsed_ms`` are the server's measurement of it (opolyx.progression.play)."""

    @abc.abstractmethod
    async def add_seat_marks(self, room_id: str, seat: int, marks: Sequence[str]) -> None:
        """Remember identities seen acting for a seat of a game (kept once each)."""

    @abc.abstractmethod
    async def seat_marks_of(self, room_id: str) -> dict[int, set[str]]:
        """The identities seen acting for each seat of a game."""

    @abc.abstractmethod
    async def load_actions(self, room_id: str) -> list[ActionRecord]: ...

    @abc.abstractmethod
    async def save_clocks(self, room_id: str, clocks: JSON) -> None: ...

    async def save_clocks_many(self, clocks: Mapping[str, JSON]) -> None:
        """Checkpoint several rooms' clocks at once (backends may do it in one transaction)."""
        for room_id, value in clocks.items():
            await self.save_clocks(room_id, value)

    @abc.abstractmethod
    async def replace_with_bot(self, room_id: str, seat: int, *, bot: str, name: str, at_seq: int) -> RoomRecord:
        """A bot takes over a person's seat in a running game: the person is freed (may join another
        game), the seat plays on. ``at_seq`` is the game's seq at that moment."""

    @abc.abstractmethod
    async def mark_out(self, room_id: str, seats: Sequence[int]) -> None:
        """These seats are eliminated: their people may join other games."""

    @abc.abstractmethod
    async def finish_game(
        self, room_id: str, result: JSON | None, credits: Sequence[Credit] = ()
    ) -> list[AwardRecord]:
        """Mark the game finished and book each credit in the same transaction: the account's standing
        is read under its lock and the credit decides what to write (``Credit.book``: daily cap, levels,
        card drops); returns what each credited seat got. A game already finished books nothing."""

    # chat
    @abc.abstractmethod
    async def add_chat(self, room_id: str, message: ChatRecord) -> None: ...

    @abc.abstractmethod
    async def recent_chat(self, room_id: str, limit: int) -> list[ChatRecord]:
        """The room's last ``limit`` messages, oldest first."""

    # personal API keys
    @abc.abstractmethod
    async def create_api_key(self, key_id: str, user_id: str, label: str, key_hash: str) -> ApiKeyRecord: ...

    @abc.abstractmethod
    async def list_api_keys(self, user_id: str) -> list[ApiKeyRecord]:
        """The owner's keys that still work, oldest first."""

    @abc.abstractmethod
    async def revoke_api_key(self, user_id: str, key_id: str) -> bool:
        """Stop the owner's key from working at once; False when the owner has no such live key."""

    @abc.abstractmethod
    async def user_by_api_key(self, key_hash: str) -> UserRecord | None:
        """The owner of a live key with this digest (marked ``agent``), noting when it was last used."""
