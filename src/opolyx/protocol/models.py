"""Wire models: everything that crosses HTTP or the WebSocket, and nothing else.

These are deliberately separate from the store's records: a field here is a promise to clients
(docs/protocol.md is generated from these models), a column there is a storage detail.
"""

from __future__ import annotations

from datetime import datetime
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    Literal,
    NotRequired,
    Union,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, create_model

from opolyx.engine.vocabulary import (
    CLIENT_ACTIONS,
    SYSTEM_ACTION_TYPES,
    Default,
    Mode,
    Note,
    Range,
    Size,
    action_type,
)
from opolyx.protocol.text import clean_chat, clean_nickname

Language = Literal["en", "de", "pt", "fr", "es", "zh"]
Strength = Literal["easy", "normal", "hard"]
Team = Literal[0, 1]
#: House-rule overrides as sent: checked by opolyx.rules.house, which gives a bad one its stable code.
HouseRulesValue = Annotated[dict[str, Any] | None, Field(max_length=40)]
Nickname = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=24), AfterValidator(clean_nickname)
]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# --- actions (the engine's vocabulary, as a client may send it) ---------------------------------------
# Generated from the engine's typed actions (``opolyx.engine.vocabulary``), never declared again here: one
# model per action class, named after it (``RollAction`` → ``Roll``), with the wire constraints its markers
# state. The engine checks every field again.


def _wire_type(hint: Any) -> Any:
    """A vocabulary annotation as a pydantic type: markers become constraints, ``TypedDict``s models."""
    origin = get_origin(hint)
    if origin is Annotated:
        base, *marks = get_args(hint)
        limits: dict[str, Any] = {}
        for mark in marks:
            if isinstance(mark, Range):
                limits.update({k: v for k, v in (("ge", mark.lo), ("le", mark.hi)) if v is not None})
            elif isinstance(mark, Size):
                limits.update({k: v for k, v in (("min_length", mark.lo), ("max_length", mark.hi)) if v is not None})
        inner = _wire_type(base)
        return Annotated[inner, Field(**limits)] if limits else inner
    if is_typeddict(hint):
        return _wire_model(hint)
    if origin is list:
        (item,) = get_args(hint)
        return list[_wire_type(item)]  # type: ignore[misc]
    return hint


def _wire_field(hint: Any, required: bool) -> tuple[Any, Any]:
    """(type, FieldInfo) of one field: an optional field takes its ``Default``, else it may be null."""
    if get_origin(hint) is NotRequired:
        (hint,) = get_args(hint)
    marks = get_args(hint)[1:] if get_origin(hint) is Annotated else ()
    info: dict[str, Any] = {}
    for mark in marks:
        if isinstance(mark, Note):
            info["description"] = mark.text
    wire = _wire_type(hint)
    if required:
        return wire, Field(**info)
    default = next((m for m in marks if isinstance(m, Default)), None)
    if default is None:
        return wire | None, Field(default=None, **info)
    if isinstance(default.value, list):
        return wire, Field(default_factory=list, **info)
    return wire, Field(default=default.value, **info)


_WIRE_MODELS: dict[type, type[BaseModel]] = {}


def _wire_model(spec: type) -> type[BaseModel]:
    model = _WIRE_MODELS.get(spec)
    if model is None:
        hints = get_type_hints(spec, include_extras=True)
        required = spec.__required_keys__  # type: ignore[attr-defined]
        fields: dict[str, Any] = {name: _wire_field(hint, name in required) for name, hint in hints.items()}
        name = spec.__name__.removesuffix("Action")
        model = _WIRE_MODELS[spec] = create_model(name, __base__=Strict, __module__=__name__, **fields)
    return model


#: Every action a client may send, by type, as its generated model.
ACTION_MODELS: dict[str, type[BaseModel]] = {action_type(a): _wire_model(a) for a in CLIENT_ACTIONS}
if TYPE_CHECKING:
    Action = BaseModel
else:
    Action = Annotated[Union[tuple(ACTION_MODELS.values())], Field(discriminator="type")]  # noqa: UP007
# Only the server's clocks may send these.
SYSTEM_ACTIONS = SYSTEM_ACTION_TYPES


# --- client → server frames ------------------------------------------------------------------------------

Ref = Annotated[str | int, Field(description="Echoed back in the reply, to match requests and answers.")]


class ActionFrame(Strict):
    type: Literal["action"]
    action: Action
    ref: Ref | None = None
    seq: int | None = Field(
        default=None,
        description="The game's seq the client last saw; if given and stale the action is refused.",
    )
    seat: int | None = Field(default=None, description="Optional; must be the sender's own seat.")


class ChatFrame(Strict):
    type: Literal["chat"]
    text: Annotated[str, AfterValidator(clean_chat)]
    ref: Ref | None = None


class SyncFrame(Strict):
    type: Literal["sync"]
    ref: Ref | None = None


class PingFrame(Strict):
    type: Literal["ping"]
    ref: Ref | None = None


class MoreTimeFrame(Strict):
    """A seated player asks for more time in their own pay step (docs/accessibility.md): SPEC.md sets that
    clock as a minimum ("at least 75 s"), so the server may lengthen it, once per debt."""

    type: Literal["more_time"]
    ref: Ref | None = None


ClientFrame = Annotated[ActionFrame | ChatFrame | SyncFrame | PingFrame | MoreTimeFrame, Field(discriminator="type")]
CLIENT_FRAMES: dict[str, type[BaseModel]] = {
    "action": ActionFrame,
    "chat": ChatFrame,
    "sync": SyncFrame,
    "ping": PingFrame,
    "more_time": MoreTimeFrame,
}


# --- HTTP (lobby) ------------------------------------------------------------------------------------------


class ErrorOut(BaseModel):
    code: str = Field(description="Stable, machine-readable; see docs/protocol.md for the list.")
    message: str
    room: str | None = Field(default=None, description="already_in_game: the room you are in.")


class SessionIn(Strict):
    nickname: Nickname
    language: Language = "en"
    token: bool = Field(
        default=False,
        description="Non-browser clients: also return the session token in the body, to send as "
        "'Authorization: Bearer <token>'. Browsers leave this out and rely on the HttpOnly cookie.",
    )


class UserOut(BaseModel):
    id: str
    nickname: str
    language: Language
    guest: bool
    avatar: str | None = Field(default=None, description="One of the built-in avatars (docs/accounts.md).")
    level: int = 1
    xp: int = 0
    room: str | None = Field(default=None, description="The unfinished room you hold a seat in.")


class SessionOut(BaseModel):
    user: UserOut
    token: str | None = Field(
        default=None, description="Only when asked for (`token: true`): the cookie's value, for Bearer auth."
    )


class RoomCreate(Strict):
    mode: Mode = "classic"
    seats: int = Field(default=4, ge=2, le=6)
    public: bool = True
    bots_replace_leavers: bool = Field(
        default=False,
        description="A bot of normal strength takes over the seat of a person who resigns or leaves the "
        "running game (the person is freed); otherwise that seat is out.",
    )
    house_rules: HouseRulesValue = Field(
        default=None,
        description="Changes to the mode's table (GET /api/house-rules lists the parameters and bounds). A "
        "value outside its bounds is refused (`house_rule_out_of_bounds`, `house_rule_unknown`, "
        "`house_rule_not_in_mode`, `house_rules_inconsistent`) and no room is made. Values equal to the mode's "
        "are dropped; a room with any change left is unrated and pays no XP.",
    )


class HouseRulesIn(Strict):
    house_rules: HouseRulesValue = Field(description="The room's new house rules (null or {}: the standard mode).")


class TeamIn(Strict):
    team: Team = Field(description="The side to sit on: 0 (team A, even seats) or 1 (team B, odd seats).")


class ColourIn(Strict):
    colour: int = Field(ge=0, le=5, description="One of the six seat colours; unique per table.")


class JoinIn(Strict):
    team: Team | None = Field(default=None, description="Team rooms: the side to sit on (e.g. from an invite link).")


class JoinByCode(Strict):
    code: Annotated[str, StringConstraints(strip_whitespace=True, min_length=4, max_length=16)]
    team: Team | None = Field(default=None, description="Team rooms: the side to sit on (e.g. from an invite link).")


class AddBot(Strict):
    strength: Strength = "normal"


class BotOut(BaseModel):
    strength: Strength
    number: int | None = Field(default=None, description="n of the server's English name 'Bot <n> (<strength>)'.")
    replaces: str | None = Field(default=None, description="Name of the person whose seat this bot took over.")


class SeatOut(BaseModel):
    seat: int
    name: str = Field(description="Bots: 'Bot <n> (<strength>)' in English; translate from `bot` instead.")
    kind: Literal["human", "bot"]
    strength: Strength | None = None
    bot: BotOut | None = Field(default=None, description="Set for bots: what a client needs to name them.")
    connected: bool
    out: bool
    agent: bool = Field(default=False, description="A person's AI agent (personal API key) plays this seat.")
    you: bool = False
    team: Team | None = Field(default=None, description="Team rooms: the side this seat plays for (seat parity).")
    colour: int | None = Field(default=None, ge=0, le=5, description="The seat's colour (0-5), unique at the table.")


class HouseChange(BaseModel):
    key: str = Field(description="The parameter (GET /api/house-rules).")
    default: int | bool | None = Field(description="The mode's own value.")
    value: int | bool | None = Field(description="This room's value.")


class XpTermsOut(BaseModel):
    """What this table will pay the viewer, said before the game (docs/accounts.md)."""

    pays: bool = Field(description="Whether the viewer's seat earns people's XP here.")
    why: str | None = Field(default=None, description="Why not: agent (an AI agent plays the seat).")
    board: Literal["people", "agents"] = Field(description="The leaderboard the viewer's seat plays for.")
    shared: bool = Field(
        default=False, description="Two seated people connect from one address or device: only one can earn."
    )
    min_round: int = Field(description="Games ending before this round pay nothing.")
    min_think_ms: int = Field(description="A turn counts when one of the person's own decisions in it took this long.")
    min_turn_seconds: int = Field(description="A played turn is paid in full when it lasted this long.")
    daily_cap: int = Field(description="XP an account can earn per UTC day, however it arrives.")


class RoomOut(BaseModel):
    id: str
    mode: Mode
    seats: int
    public: bool
    bots_replace_leavers: bool = Field(default=False, description="Bots take over the seats of people who resign.")
    rated: bool = Field(
        default=False,
        description="The game moves skill ratings: public and quick-play rooms; never private or house-rule rooms "
        "(which also pay no XP).",
    )
    status: Literal["waiting", "running", "finished", "closed"]
    creator: str = Field(description="User id of the creator.")
    code: str | None = Field(default=None, description="Private join code, shown to those seated.")
    players: list[SeatOut]
    spectators: int
    created_at: datetime
    ws: str = Field(description="Path of the room's WebSocket.")
    house_rules: dict[str, int | bool | None] | None = Field(
        default=None, description="The room's house rules (changes to its mode's table); null: the standard mode."
    )
    house_changes: list[HouseChange] = Field(
        default_factory=list, description="Every change from the mode's defaults, in the editor's order."
    )
    xp: XpTermsOut | None = Field(default=None, description="What this table pays the viewer (before the game).")


class RoomList(BaseModel):
    waiting: list[RoomOut]
    running: list[RoomOut]


# --- personal API keys (docs/agents.md) ----------------------------------------------------------------


class KeyIn(Strict):
    label: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=60)] = Field(
        description="What the key is for, e.g. the agent's name; shown in the list of keys."
    )


class KeyOut(BaseModel):
    id: str
    label: str
    created_at: datetime
    last_used_at: datetime | None = Field(default=None, description="Noted at most once a minute.")


class NewKeyOut(BaseModel):
    id: str
    label: str
    key: str = Field(description="The key itself. Shown only now: the server keeps just a digest of it.")
    created_at: datetime


class ReplayAction(BaseModel):
    seq: int
    seat: int | None
    action: dict[str, Any]
    events: list[dict[str, Any]] | None = Field(default=None, description="With ?events=true: what it caused.")


class SeedCommitted(BaseModel):
    type: Literal["seed_committed"] = "seed_committed"
    algorithm: Literal["sha256"]
    commitment: str = Field(
        description='hex sha256 of "opolyx-seed-v1:<seed>:<nonce>", published before the first roll.'
    )


class SeedRevealed(BaseModel):
    type: Literal["seed_revealed"] = "seed_revealed"
    algorithm: Literal["sha256"]
    commitment: str = Field(description='hex sha256 of "opolyx-seed-v1:<seed>:<nonce>", as in seed_committed.')
    seed: int
    nonce: str


class ReplayOut(BaseModel):
    id: str
    mode: Mode
    players: list[str]
    seat_info: list[dict[str, Any]] | None = Field(default=None, description="What the engine was told of each seat.")
    status: str
    result: dict[str, Any] | None
    total_actions: int = Field(description="Actions in the whole game (this page may hold fewer).")
    start: int = Field(default=0, description="Index of this page's first action.")
    fairness: SeedRevealed = Field(description="The seed, revealed now that the game is over, and its commitment.")
    actions: list[ReplayAction]
    start_events: list[dict[str, Any]] | None = Field(
        default=None, description="With ?events=true on the first page: the events of the game's creation."
    )
    snapshots: list[dict[str, Any]] | None = Field(
        default=None,
        description="Public state after each action of the page (?snapshots=true); on the first page index 0 is "
        "the start.",
    )


class SeenEvent(Strict):
    seq: int = Field(ge=0)
    event: dict[str, Any]


class VerifyIn(Strict):
    commitment: str | None = Field(
        default=None,
        max_length=128,
        description="The commitment your client saw when the game started (required: null or missing is the "
        "error `commitment_required`; the server never judges its own commitment against itself).",
    )
    seen: list[SeenEvent] = Field(default_factory=list, max_length=5000, description="Events your client showed.")


class VerifyOut(BaseModel):
    ok: bool = Field(description="The commitment matches and every event recomputed from the seed is what was seen.")
    commitment_ok: bool
    steps: int = Field(description="Actions replayed.")
    dice: int = Field(description="Dice rolls recomputed.")
    cards: int = Field(description="Cards drawn recomputed.")
    mismatches: list[str]


class Health(BaseModel):
    status: Literal["ok"]


# --- server → client frames --------------------------------------------------------------------------------


class Deadline(BaseModel):
    id: str = Field(description="'c:<clock id>' for a pending decision, 't:<trade id>' for a trade offer.")
    kind: str = Field(description="turn | auction | pay | trade")
    seat: int | None
    seconds: float = Field(description="Full length of this countdown.")
    remaining: float = Field(description="Seconds left when this frame was sent.")
    ends_at: float = Field(description="Server wall clock (Unix seconds) when it fires.")


class You(BaseModel):
    user: str
    seat: int | None = Field(description="Your seat, or null when you watch.")
    spectator: bool


class ChatOut(BaseModel):
    type: Literal["chat"] = "chat"
    name: str
    seat: int | None
    spectator: bool
    text: str
    at: float


class HistoryEntry(BaseModel):
    seq: int = Field(description="The game's seq after the action that caused it (0: the game's start).")
    event: dict[str, Any] = Field(description="An engine event, or a server notice such as bot_took_over.")


class CardDropOut(BaseModel):
    id: int
    square: int
    rarity: Literal["common", "uncommon", "rare", "epic", "legendary"]
    level: int = Field(description="The level whose drop this is.")
    seed: int = Field(
        description="The seed this drop was drawn from, revealed with it: the card is re-drawn from (seed, level). "
        "The account's later drops come from a fresh seed."
    )
    game_id: str | None
    nonce: str | None = Field(
        default=None, description="In the profile: the nonce the seed was committed with before the drop."
    )
    commitment: str | None = Field(
        default=None,
        description='In the profile: hex sha256 of "opolyx-drop-seed-v1:<seed>:<nonce>", the commitment the profile '
        "showed as `next_drops` before this drop was made.",
    )


class DropSeedCommitment(BaseModel):
    algorithm: Literal["sha256"] = "sha256"
    commitment: str = Field(
        description='hex sha256 of "opolyx-drop-seed-v1:<seed>:<nonce>" for the seed of the drops not yet made; the '
        "seed and nonce are revealed with those drops (their cards' `seed`, `nonce`, `commitment`)."
    )


class SeatXpOut(BaseModel):
    """What one person's seat earned when the game finished (docs/rules.md §19; docs/accounts.md)."""

    seat: int
    xp: int = Field(description="XP credited (after the daily cap).")
    parts: dict[str, Any] = Field(
        description="placement, place, groups, group_count, survival, total; turns (the seat had) and played "
        "(by its person); reduced_from when fewer turns were played or faster than a person plays; capped_from "
        "when the daily cap cut it."
    )
    refused: str | None = Field(
        description="Why nothing was earned: short_game, early_exit, same_person, not_played, pair_farming, "
        "daily_cap, house_rules (a house-rule game pays no XP)."
    )
    won: bool
    level_before: int
    level_after: int
    drops: list[CardDropOut]


class SnapshotOut(BaseModel):
    type: Literal["snapshot"] = "snapshot"
    room: RoomOut
    you: You
    game: dict[str, Any] | None = Field(description="The engine's public snapshot; null before start.")
    seq: int
    legal: list[dict[str, Any]] = Field(description="Legal actions of your own seat right now.")
    deadlines: list[Deadline]
    chat: list[ChatOut]
    history: list[HistoryEntry] = Field(
        default_factory=list, description="The room's most recent events (up to 300), oldest first."
    )
    progression: list[SeatXpOut] | None = Field(
        default=None, description="Once the game is over: each person's XP, level-up and card drops."
    )
    fairness: SeedCommitted | None = Field(
        default=None,
        description="Fair dice: the seed's commitment, in every snapshot from the start on (null before start), so "
        "a late or reloading viewer has it too. Keep the first one you saw and check against that.",
    )
    ref: Ref | None = None


class EventsOut(BaseModel):
    type: Literal["events"] = "events"
    seq: int = Field(description="The game's seq after this action; increases by exactly one.")
    seat: int | None = Field(description="Who acted; null for the server's clock.")
    action: dict[str, Any]
    events: list[dict[str, Any]]
    pending: list[dict[str, Any]]
    over: bool
    result: dict[str, Any] | None = None
    legal: list[dict[str, Any]]
    deadlines: list[Deadline]
    game: dict[str, Any] | None = Field(
        default=None,
        description="The engine's public snapshot after this action (as in `snapshot`); absent when "
        "`game_changes` is sent instead.",
    )
    game_changes: dict[str, Any] | None = Field(
        default=None,
        description="Only on sockets opened with `?game=changes`, instead of `game` (which such a socket "
        "still gets when the game cannot be given as changes): the members of the public game whose values "
        "changed since the game this socket was last sent; replace those members of your copy.",
    )
    progression: list[SeatXpOut] | None = Field(
        default=None, description="In the frame that ends the game: each person's XP, level-up and card drops."
    )
    ref: Ref | None = Field(default=None, description="Only in the copy sent to whoever acted.")


class NoticeOut(BaseModel):
    type: Literal["notice"] = "notice"
    seq: int = Field(description="The game's seq when it happened (no action is stored for it).")
    event: dict[str, Any] = Field(
        description="A server event for the game log, e.g. {type: bot_took_over, seat, name, bot: {strength, number}}."
    )


class RoomUpdateOut(BaseModel):
    type: Literal["room"] = "room"
    room: RoomOut


class PresenceOut(BaseModel):
    type: Literal["presence"] = "presence"
    seat: int
    name: str
    connected: bool


class ErrorFrameOut(BaseModel):
    type: Literal["error"] = "error"
    code: str
    message: str
    ref: Ref | None = None
    reason: str | None = Field(default=None, description="illegal_action: the engine's own code.")
    data: dict[str, Any] | None = Field(
        default=None,
        description="The numbers behind an engine refusal, where it gives them (unfair_trade: both sides' "
        "values and the limits).",
    )


class PongOut(BaseModel):
    type: Literal["pong"] = "pong"
    ref: Ref | None = None


ServerFrame = Annotated[
    SnapshotOut | EventsOut | NoticeOut | RoomUpdateOut | PresenceOut | ChatOut | ErrorFrameOut | PongOut,
    Field(discriminator="type"),
]
