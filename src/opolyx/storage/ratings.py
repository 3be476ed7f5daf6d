"""The ratings half of the store interface: each person's skill rating per mode and pool, and its history.

The maths lives in opolyx.progression.skill; the store reads the ratings a game needs and writes what the
maths decided, in one transaction that books a game at most once (its history rows are keyed by game).
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

# Seats played by the person themselves, and seats played through their personal API key (an AI agent):
# the two are rated apart, on boards of their own.
PEOPLE = "people"
AGENTS = "agents"
POOLS = (PEOPLE, AGENTS)


@dataclass(frozen=True)
class RatingKey:
    user_id: str
    mode: str
    pool: str = PEOPLE


@dataclass(frozen=True)
class RatingRecord:
    user_id: str
    mode: str
    pool: str
    mu: float
    sigma: float
    games: int

    @property
    def key(self) -> RatingKey:
        return RatingKey(self.user_id, self.mode, self.pool)


@dataclass(frozen=True)
class RatingPoint:
    """One change of a rating: the game that made it, and mu/sigma after it."""

    game_id: str
    mode: str
    pool: str
    mu_before: float
    sigma_before: float
    mu: float
    sigma: float
    games: int
    at: datetime


@dataclass(frozen=True)
class RatingLeaderRow:
    position: int
    user_id: str
    nickname: str
    avatar: str | None
    mu: float
    sigma: float
    games: int


@dataclass(frozen=True)
class Moved:
    """A rating before and after one game (before: the starting rating when there was none)."""

    mu_before: float
    sigma_before: float
    mu: float
    sigma: float


# What the rules decide for a game: how each rated key's rating moves, given the stored ratings
# (None: no rating yet in that mode and pool).
Decide = Callable[[Mapping[RatingKey, RatingRecord | None]], Mapping[RatingKey, Moved]]


class RatingStore(abc.ABC):
    @abc.abstractmethod
    async def ratings_for(self, keys: Sequence[RatingKey]) -> dict[RatingKey, RatingRecord]:
        """The stored ratings of these keys (keys without one are left out)."""

    @abc.abstractmethod
    async def ratings_of(self, user_id: str) -> list[RatingRecord]:
        """Every rating of one person, by mode and pool."""

    @abc.abstractmethod
    async def book_ratings(self, game_id: str, keys: Sequence[RatingKey], decide: Decide) -> list[RatingRecord]:
        """Read the keys' ratings under lock, let ``decide`` compute the new ones, store them and their
        history; a game already booked books nothing (returns [])."""

    @abc.abstractmethod
    async def rating_history(self, user_id: str, limit: int = 200) -> list[RatingPoint]:
        """The person's rating changes, oldest first (the last ``limit``)."""

    @abc.abstractmethod
    async def rating_leaderboard(
        self, mode: str, pool: str, *, min_games: int, limit: int, viewer: str | None
    ) -> tuple[list[RatingLeaderRow], RatingLeaderRow | None]:
        """Best ratings (by mu - 3 sigma) of a mode and pool among those with ``min_games`` games or more,
        and the viewer's own place if they have one."""
