"""Wire models of the account routes (sign-in links, sessions, profile, leaderboard)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal, get_args

from email_validator import EmailNotValidError, validate_email
from pydantic import AfterValidator, BaseModel, Field, StringConstraints

from opolyx.protocol.models import CardDropOut, DropSeedCommitment, Language, Nickname, Strict, UserOut

Avatar = Literal[
    "tophat",
    "car",
    "dog",
    "cat",
    "ship",
    "boot",
    "rocket",
    "dragon",
    "panda",
    "lantern",
    "crown",
    "cactus",
]
#: The built-in avatars (the client draws each; the server only checks the name): the same list as ``Avatar``.
AVATARS: tuple[str, ...] = get_args(Avatar)


def _address(value: str) -> str:
    """One plain mailbox, checked by email-validator (no display names, lists, quoting, control, bidi or
    zero-width characters, no IP literals), normalised and lower-cased so one address is one account.
    Whether it receives mail is proved by the link itself, so no DNS is asked."""
    try:
        checked = validate_email(value, check_deliverability=False, allow_smtputf8=True)
    except EmailNotValidError as exc:
        raise ValueError(str(exc)) from None
    return checked.normalized.lower()


Email = Annotated[
    str,
    StringConstraints(strip_whitespace=True, max_length=320),
    AfterValidator(_address),
]


class LinkIn(Strict):
    email: Email
    language: Language = "en"


class LinkOut(BaseModel):
    status: Literal["sent"] = Field(
        default="sent", description="Always the same, whether or not the address has an account."
    )


class LinkVerifyIn(Strict):
    token: str = Field(min_length=10, max_length=200, description="The secret from the mailed link.")
    session_token: bool = Field(
        default=False, description="Non-browser clients: also return the new session token in the body."
    )
    merge: bool | None = Field(
        default=None,
        description="Opening a link this browser did not ask for: true moves this browser's own guest "
        "progress into the account, false signs in without moving anything. Left out, such an opening is "
        "answered 409 confirm_sign_in (see POST /api/auth/peek) and changes nothing.",
    )


class LinkPeekIn(Strict):
    token: str = Field(min_length=10, max_length=200, description="The secret from the mailed link.")


class LinkPeekOut(BaseModel):
    email: str = Field(description="The link's address, masked (a***@example.org).")
    nickname: str | None = Field(description="The account's nickname; null when the link makes a new account.")
    requester: bool = Field(description="This browser (or session) asked for the link.")
    guest_moves: bool = Field(description="Opening it with merge=true moves this browser's guest into it.")


class SessionInfoOut(BaseModel):
    id: str
    user_agent: str | None
    created_at: datetime
    last_seen_at: datetime
    current: bool = Field(description="The session this request came with.")


class RevokedOut(BaseModel):
    revoked: int


class ProfileIn(Strict):
    nickname: Nickname | None = None
    avatar: Avatar | None = None
    language: Language | None = None


class RecentGameOut(BaseModel):
    id: str
    mode: str
    finished_at: datetime | None
    seat: int
    place: int | None
    xp: int
    players: list[str]
    replay: str = Field(description="Path of the replay (with snapshots for the viewer).")


class ProfileOut(BaseModel):
    user: UserOut
    email: str | None
    rank: str
    vip: bool
    level_xp: int = Field(description="Total XP at which the current level began.")
    next_level_xp: int | None = Field(description="Total XP of the next level; null at the cap.")
    wins: int
    cards: list[CardDropOut]
    next_drops: DropSeedCommitment | None = Field(
        default=None,
        description="Only a commitment to the seed of your next card drops: the seed itself stays secret until the "
        "drop reveals it, so nobody can foretell a card.",
    )
    recent_games: list[RecentGameOut]


class LeaderRowOut(BaseModel):
    position: int
    user_id: str
    nickname: str
    avatar: str | None
    level: int
    value: int = Field(description="XP or wins, as asked.")


class LeaderboardOut(BaseModel):
    by: Literal["xp", "wins"]
    period: Literal["all", "week"]
    board: Literal["people", "agents"] = Field(
        "people",
        description="people: XP and wins of people's own play; agents: points and wins of seats AI agents "
        "played through their owners' API keys (ranked apart, never mixed into people's).",
    )
    rows: list[LeaderRowOut]
    you: LeaderRowOut | None = Field(description="Your own place, even when outside the rows shown.")
