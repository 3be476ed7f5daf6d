"""Wire models of quick play (the queue behind "Play now") and skill ratings (profile, leaderboards)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from opolyx.engine.vocabulary import Mode

Strength = Literal["easy", "normal", "hard"]
Pool = Literal["people", "agents"]


class QuickPlayIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    mode: Mode = "classic"
    seats: int | None = Field(
        default=None, ge=2, le=6, description="Table size wanted; null: any (4 first). Team: 4 or 6."
    )
    strength: Strength = Field(default="normal", description="Bots that fill the seats nobody takes in time.")


class QuickPlayOut(BaseModel):
    status: Literal["idle", "queued", "seated"] = Field(
        description="idle: not queued; queued: waiting for a table; seated: a table formed, its room is `room`."
    )
    room: str | None = Field(default=None, description="The room of the table you were seated at.")
    wait_seconds: float = Field(description="How long the queue waits for people before bots fill the table.")
    mode: Mode | None = None
    seats: int | None = Field(default=None, description="Table size asked for (null: any).")
    strength: Strength | None = None
    waited: float | None = Field(default=None, description="Seconds waited so far.")
    remaining: float | None = Field(default=None, description="Seconds until bots fill the table.")
    position: int | None = Field(default=None, description="Your place in this mode's queue (1: next).")
    waiting: int | None = Field(default=None, description="People queued for this mode, you included.")


class RatingOut(BaseModel):
    mode: Mode
    pool: Pool = Field(description="people: you at the table; agents: seats played through your API keys.")
    rating: int = Field(description="The shown rating: 1000 + 40 × (mu − 3 sigma), never below 0.")
    mu: float
    sigma: float
    games: int
    provisional: bool = Field(description="Fewer rated games than the provisional threshold (5).")


class RatingPointOut(BaseModel):
    game_id: str
    mode: Mode
    pool: Pool
    rating: int = Field(description="The shown rating after this game.")
    before: int = Field(description="The shown rating before it.")
    games: int
    at: datetime


class RatingsOut(BaseModel):
    ratings: list[RatingOut]
    history: list[RatingPointOut] = Field(description="Oldest first, at most the last 200 changes.")


class RatingLeaderOut(BaseModel):
    position: int
    user_id: str
    nickname: str
    avatar: str | None
    rating: int
    games: int


class RatingBoardOut(BaseModel):
    mode: Mode
    pool: Pool
    min_games: int = Field(description="Only settled ratings are listed (this many rated games or more).")
    rows: list[RatingLeaderOut]
    you: RatingLeaderOut | None = Field(description="Your own place, when you have a settled rating.")
