"""The engine's vocabulary as types: game modes, phases, decisions, and every action a seat (or the server's
clock) may send, as the JSON it is on the wire. One declaration shared by the engine, the bots, the server
(which generates its pydantic action models from these, ``protocol/models.py``), the client library and
the agents' tools.

Actions are ``TypedDict``s, plain dicts at run time: they cost nothing and the wire format is exactly the
JSON the engine always took. What the wire accepts beyond the type (a square number's range, a list's
length, a field's default or description) is said with the small markers below, which the server turns
into pydantic constraints; the engine itself checks every field again (``IllegalAction``).

This module is kept out of the compiled build (``scripts/compile_build.py``) and does not use postponed
annotations: the server reads these classes' field annotations at run time, and a compiled ``TypedDict``
keeps only the bare runtime classes of its fields.
"""

from dataclasses import dataclass
from typing import Annotated, Final, Literal, NotRequired, TypedDict, get_args

# ---------------------------------------------------------------------------------------------- markers


@dataclass(frozen=True, slots=True)
class Range:
    """An integer field's bounds (inclusive; ``None``: unbounded)."""

    lo: int | None = None
    hi: int | None = None


@dataclass(frozen=True, slots=True)
class Size:
    """A list field's length bounds (inclusive; ``None``: unbounded)."""

    lo: int | None = None
    hi: int | None = None


@dataclass(frozen=True, slots=True)
class Default:
    """What an optional field means when left out."""

    value: object


@dataclass(frozen=True, slots=True)
class Note:
    """A field's description, for the generated protocol documentation."""

    text: str


# ---------------------------------------------------------------------------------------------- words

#: The game modes: each names a rule table in ``rules/data/modes.json`` (a test keeps the two equal).
Mode = Literal["classic", "blitz", "speed", "team", "halal", "fortuna"]
MODES: Final[tuple[str, ...]] = get_args(Mode)

#: ``GameState.phase``. Between actions a game is in one of the first seven or ``over``; ``resolving`` (a
#: roll or a move being carried out) and ``landed`` (a rule moved the token: the turn flow resolves the
#: square next) exist only inside ``apply``.
Phase = Literal["turn", "buy", "auction", "pay", "jackpot", "bus", "teleport", "over", "resolving", "landed"]
#: What a pending entry waits for (``Game.pending``).
Decision = Literal["roll", "jail", "buy", "jackpot", "bus", "teleport", "pay", "bid", "trade"]
#: Which countdown a pending entry runs under.
ClockKind = Literal["turn", "pay", "auction", "trade"]
#: The Bus choices of Speed's third die: both white dice, or either one of them.
BusUse = Literal["sum", "first", "second"]
#: Why a player left the game.
OutReason = Literal["bankrupt", "forfeit", "resigned"]

#: A square of either board.
SquareNo = Annotated[int, Range(0, 39)]
#: A seat at a table of at most six.
SeatNo = Annotated[int, Range(0, 5)]
#: A trade offer's id as a client may send it: the engine's ids are integers, and any other value names no
#: open offer (``no_such_trade``).
TradeRef = str | int

# ---------------------------------------------------------------------------------------------- actions


class RollAction(TypedDict):
    type: Literal["roll"]


class BuyAction(TypedDict):
    type: Literal["buy"]


class DeclineAction(TypedDict):
    type: Literal["decline"]


class BuyMurabahaAction(TypedDict):
    type: Literal["buy_murabaha"]


class BidAction(TypedDict):
    type: Literal["bid"]
    amount: NotRequired[Annotated[int, Range(0), Note("Omit to raise by the auction step.")]]


class PassAction(TypedDict):
    type: Literal["pass"]


class BuildAction(TypedDict):
    type: Literal["build"]
    square: SquareNo


class SellAction(TypedDict):
    type: Literal["sell"]
    square: SquareNo


class MortgageAction(TypedDict):
    type: Literal["mortgage"]
    square: SquareNo


class RedeemAction(TypedDict):
    type: Literal["redeem"]
    square: SquareNo


class TradeSide(TypedDict):
    """One side of an offer: cash and companies."""

    cash: NotRequired[Annotated[int, Range(0), Default(0)]]
    squares: NotRequired[Annotated[list[SquareNo], Size(hi=40), Default([])]]


class ProposeTradeAction(TypedDict):
    type: Literal["propose_trade"]
    to: SeatNo
    give: TradeSide
    take: TradeSide


class AcceptTradeAction(TypedDict):
    type: Literal["accept_trade"]
    trade: TradeRef


class DeclineTradeAction(TypedDict):
    type: Literal["decline_trade"]
    trade: TradeRef


class CancelTradeAction(TypedDict):
    type: Literal["cancel_trade"]
    trade: TradeRef


class PayAction(TypedDict):
    type: Literal["pay"]


class DeclareBankruptcyAction(TypedDict):
    type: Literal["declare_bankruptcy"]


class PayBailAction(TypedDict):
    type: Literal["pay_bail"]


class JailRollAction(TypedDict):
    type: Literal["jail_roll"]


class JackpotBetAction(TypedDict):
    type: Literal["jackpot_bet"]
    numbers: Annotated[list[Annotated[int, Range(1, 6)]], Size(1, 3)]


class JackpotDeclineAction(TypedDict):
    type: Literal["jackpot_decline"]


class ChooseBusAction(TypedDict):
    type: Literal["choose_bus"]
    use: BusUse


class TeleportAction(TypedDict):
    type: Literal["teleport"]
    square: SquareNo


class PayMurabahaAction(TypedDict):
    type: Literal["pay_murabaha"]
    square: SquareNo


class ResignAction(TypedDict):
    type: Literal["resign"]


class TimeoutAction(TypedDict):
    """Sent only by the server's clock (seat ``None``): a decision's clock (``seat``, ``clock``: the pending
    entry's) or an offer's (``trade``) ran out."""

    type: Literal["timeout"]
    seat: NotRequired[int]
    clock: NotRequired[str]
    trade: NotRequired[int]


#: Every action a seat may send, in the order the protocol documents them.
CLIENT_ACTIONS: Final[tuple[type, ...]] = (
    RollAction,
    BuyAction,
    DeclineAction,
    BuyMurabahaAction,
    BidAction,
    PassAction,
    BuildAction,
    SellAction,
    MortgageAction,
    RedeemAction,
    ProposeTradeAction,
    AcceptTradeAction,
    DeclineTradeAction,
    CancelTradeAction,
    PayAction,
    DeclareBankruptcyAction,
    PayBailAction,
    JailRollAction,
    JackpotBetAction,
    JackpotDeclineAction,
    ChooseBusAction,
    TeleportAction,
    PayMurabahaAction,
    ResignAction,
)
#: Actions only the server's clock sends.
SYSTEM_ACTIONS: Final[tuple[type, ...]] = (TimeoutAction,)

#: Any action as a seat sends it.
ClientAction = (
    RollAction
    | BuyAction
    | DeclineAction
    | BuyMurabahaAction
    | BidAction
    | PassAction
    | BuildAction
    | SellAction
    | MortgageAction
    | RedeemAction
    | ProposeTradeAction
    | AcceptTradeAction
    | DeclineTradeAction
    | CancelTradeAction
    | PayAction
    | DeclareBankruptcyAction
    | PayBailAction
    | JailRollAction
    | JackpotBetAction
    | JackpotDeclineAction
    | ChooseBusAction
    | TeleportAction
    | PayMurabahaAction
    | ResignAction
)
#: Any action the engine takes.
TypedAction = ClientAction | TimeoutAction


def action_type(spec: type) -> str:
    """The ``type`` an action class declares, e.g. ``"roll"`` for ``RollAction``."""
    (kind,) = get_args(spec.__annotations__["type"])
    assert isinstance(kind, str)
    return kind


#: Every action type a seat may send, and those only the server's clock sends.
CLIENT_ACTION_TYPES: Final[frozenset[str]] = frozenset(action_type(a) for a in CLIENT_ACTIONS)
SYSTEM_ACTION_TYPES: Final[frozenset[str]] = frozenset(action_type(a) for a in SYSTEM_ACTIONS)


# ---------------------------------------------------------------------------------------------- events
# What ``Game.apply`` returns: one dict per change, its ``type`` first among equals. docs/actions.md says what
# each means; tests/engine/test_vocabulary.py checks every event of the golden games and random play against
# its class. Keys that are Python keywords (``from``) need the functional form.

DebtReason = Literal["rent", "tax", "card", "bail", "murabaha"]
God = Literal["wealth", "misfortune"]


class CreditorOut(TypedDict):
    seat: int | None
    amount: int


class CreditorPaid(TypedDict):
    seat: int | None
    amount: int
    received: int


class OfferOut(TypedDict):
    cash: int
    squares: list[int]


class Placement(TypedDict):
    seat: int
    place: int
    team: int | None
    net_worth: int
    out: bool


class GameStartedEvent(TypedDict):
    type: Literal["game_started"]
    mode: str
    seats: int
    order: list[int]
    first: int


class TurnStartedEvent(TypedDict):
    type: Literal["turn_started"]
    seat: int
    round: int


class RoundStartedEvent(TypedDict):
    type: Literal["round_started"]
    round: int


class DiceRolledEvent(TypedDict):
    type: Literal["dice_rolled"]
    seat: int
    dice: list[int]
    doubles: bool
    triple: NotRequired[bool]
    third: int | str | None
    jail: NotRequired[bool]


class RollAgainEvent(TypedDict):
    type: Literal["roll_again"]
    seat: int


class TriplesRolledEvent(TypedDict):
    type: Literal["triples_rolled"]
    seat: int


class ThirdDoublesEvent(TypedDict):
    type: Literal["third_doubles"]
    seat: int


MovedEvent = TypedDict(
    "MovedEvent", {"type": Literal["moved"], "seat": int, "to": int, "steps": int, "from": int}
)
TeleportedEvent = TypedDict("TeleportedEvent", {"type": Literal["teleported"], "seat": int, "to": int, "from": int})


class TeleportSkippedEvent(TypedDict):
    type: Literal["teleport_skipped"]
    seat: int


class BusChosenEvent(TypedDict):
    type: Literal["bus_chosen"]
    seat: int
    use: BusUse
    steps: int


class XJumpEvent(TypedDict):
    type: Literal["x_jump"]
    seat: int
    square: int


class CashReceivedEvent(TypedDict):
    type: Literal["cash_received"]
    seat: int
    amount: int
    reason: Literal["salary", "start_landing", "card", "jackpot", "lucky_eight"]
    card: NotRequired[str]


class PurchaseOfferedEvent(TypedDict):
    type: Literal["purchase_offered"]
    seat: int
    square: int
    price: int


class CompanyBoughtEvent(TypedDict):
    type: Literal["company_bought"]
    seat: int
    square: int
    price: int


class PurchaseDeclinedEvent(TypedDict):
    type: Literal["purchase_declined"]
    seat: int
    square: int
    auto: bool


class AuctionStartedEvent(TypedDict):
    type: Literal["auction_started"]
    square: int
    order: list[int]
    minimum: int


class AuctionBidEvent(TypedDict):
    type: Literal["auction_bid"]
    seat: int
    square: int
    amount: int


class AuctionPassedEvent(TypedDict):
    type: Literal["auction_passed"]
    seat: int
    auto: bool
    reason: Literal["pass", "cash", "timeout"]


class AuctionWonEvent(TypedDict):
    type: Literal["auction_won"]
    seat: int
    square: int
    amount: int


class AuctionUnsoldEvent(TypedDict):
    type: Literal["auction_unsold"]
    square: int


class RentDueEvent(TypedDict):
    type: Literal["rent_due"]
    seat: int
    owner: int
    square: int
    amount: int
    tax: int
    card_bonus: NotRequired[int]


class RentWaivedEvent(TypedDict):
    type: Literal["rent_waived"]
    seat: int
    owner: int
    square: int
    reason: Literal["ally", "mortgaged"]


class PayStepStartedEvent(TypedDict):
    type: Literal["pay_step_started"]
    id: int
    debtor: int
    amount: int
    reason: DebtReason
    square: int | None
    creditors: list[CreditorOut]


class DebtPaidEvent(TypedDict):
    type: Literal["debt_paid"]
    seat: int
    amount: int
    reason: DebtReason
    square: int | None
    creditors: list[CreditorPaid]
    auto: bool


class PayStepTimedOutEvent(TypedDict):
    type: Literal["pay_step_timed_out"]
    seat: int


class TurnTimedOutEvent(TypedDict):
    type: Literal["turn_timed_out"]
    seat: int
    missed: int


class PlayerOutEvent(TypedDict):
    type: Literal["player_out"]
    seat: int
    reason: OutReason
    creditors: list[CreditorPaid]
    returned: int
    squares: list[int]
    heir: int | None


CompaniesInheritedEvent = TypedDict(
    "CompaniesInheritedEvent",
    {"type": Literal["companies_inherited"], "seat": int, "squares": list[int], "from": int},
)


class BuiltEvent(TypedDict):
    type: Literal["built"]
    seat: int
    square: int
    level: int
    cost: int


class SoldEvent(TypedDict):
    type: Literal["sold"]
    seat: int
    square: int
    level: int
    refund: int
    auto: bool


class MortgagedEvent(TypedDict):
    type: Literal["mortgaged"]
    seat: int
    square: int
    value: int
    auto: bool
    rounds_left: int | None


class MortgageTickedEvent(TypedDict):
    type: Literal["mortgage_ticked"]
    seat: int
    square: int
    rounds_left: int


class MortgageExpiredEvent(TypedDict):
    type: Literal["mortgage_expired"]
    seat: int
    square: int


class RedeemedEvent(TypedDict):
    type: Literal["redeemed"]
    seat: int
    square: int
    cost: int


class MurabahaBoughtEvent(TypedDict):
    type: Literal["murabaha_bought"]
    seat: int
    square: int
    price: int
    amount: int
    due_round: int


class MurabahaPaidEvent(TypedDict):
    type: Literal["murabaha_paid"]
    seat: int
    square: int
    amount: int


TradeProposedEvent = TypedDict(
    "TradeProposedEvent",
    {"type": Literal["trade_proposed"], "id": int, "from": int, "to": int, "give": OfferOut, "take": OfferOut,
     "seconds": int},
)
TradeAcceptedEvent = TypedDict(
    "TradeAcceptedEvent",
    {"type": Literal["trade_accepted"], "id": int, "from": int, "to": int, "give": OfferOut, "take": OfferOut,
     "seconds": int},
)


class TradeDeclinedEvent(TypedDict):
    type: Literal["trade_declined"]
    trade: int
    seat: int


class TradeCancelledEvent(TypedDict):
    type: Literal["trade_cancelled"]
    trade: int
    seat: int


class TradeLapsedEvent(TypedDict):
    type: Literal["trade_lapsed"]
    trade: int
    reason: Literal["invalid", "unfair", "expired", "player_out"]


class JailedEvent(TypedDict):
    type: Literal["jailed"]
    seat: int
    reason: Literal["third_doubles", "go_to_jail", "card"]


class ReleasedEvent(TypedDict):
    type: Literal["released"]
    seat: int
    reason: Literal["bail", "doubles"]


class BailPaidEvent(TypedDict):
    type: Literal["bail_paid"]
    seat: int
    amount: int


class JailRollFailedEvent(TypedDict):
    type: Literal["jail_roll_failed"]
    seat: int
    tries: int


class JackpotOfferedEvent(TypedDict):
    type: Literal["jackpot_offered"]
    seat: int
    stake: int


class JackpotUnaffordableEvent(TypedDict):
    type: Literal["jackpot_unaffordable"]
    seat: int
    stake: int


class JackpotPlayedEvent(TypedDict):
    type: Literal["jackpot_played"]
    seat: int
    numbers: list[int]
    die: int
    won: bool
    stake: int
    payout: int


class JackpotDeclinedEvent(TypedDict):
    type: Literal["jackpot_declined"]
    seat: int
    auto: bool


class RestedEvent(TypedDict):
    type: Literal["rested"]
    seat: int


class CardDrawnEvent(TypedDict):
    type: Literal["card_drawn"]
    seat: int
    card: str
    effect: str


class RedEnvelopeEvent(TypedDict):
    type: Literal["red_envelope"]
    seat: int
    shares: dict[str, int]


class GodArrivedEvent(TypedDict):
    type: Literal["god_arrived"]
    seat: int
    god: God
    until_round: int


class GodLeftEvent(TypedDict):
    type: Literal["god_left"]
    seat: int
    god: God


class GameOverEvent(TypedDict):
    type: Literal["game_over"]
    reason: Literal["round_limit", "last_player", "last_team"]
    winner: int
    winning_team: int | None
    round: int
    placements: list[Placement]


#: Every event class, in the order docs/actions.md tells a game.
EVENTS: Final[tuple[type, ...]] = (
    GameStartedEvent, TurnStartedEvent, RoundStartedEvent, DiceRolledEvent, RollAgainEvent, TriplesRolledEvent,
    ThirdDoublesEvent, MovedEvent, TeleportedEvent, TeleportSkippedEvent, BusChosenEvent, XJumpEvent,
    CashReceivedEvent, PurchaseOfferedEvent, CompanyBoughtEvent, PurchaseDeclinedEvent, AuctionStartedEvent,
    AuctionBidEvent, AuctionPassedEvent, AuctionWonEvent, AuctionUnsoldEvent, RentDueEvent, RentWaivedEvent,
    PayStepStartedEvent, DebtPaidEvent, PayStepTimedOutEvent, TurnTimedOutEvent, PlayerOutEvent,
    CompaniesInheritedEvent, BuiltEvent, SoldEvent, MortgagedEvent, MortgageTickedEvent, MortgageExpiredEvent,
    RedeemedEvent, MurabahaBoughtEvent, MurabahaPaidEvent, TradeProposedEvent, TradeAcceptedEvent,
    TradeDeclinedEvent, TradeCancelledEvent, TradeLapsedEvent, JailedEvent, ReleasedEvent, BailPaidEvent,
    JailRollFailedEvent, JackpotOfferedEvent, JackpotUnaffordableEvent, JackpotPlayedEvent, JackpotDeclinedEvent,
    RestedEvent, CardDrawnEvent, RedEnvelopeEvent, GodArrivedEvent, GodLeftEvent, GameOverEvent,
)

#: The ``type`` of every event: what ``GameState.emit`` takes, so a misspelt event is a type error.
EventType = Literal[
    "game_started", "turn_started", "round_started", "dice_rolled", "roll_again", "triples_rolled",
    "third_doubles", "moved", "teleported", "teleport_skipped", "bus_chosen", "x_jump", "cash_received",
    "purchase_offered", "company_bought", "purchase_declined", "auction_started", "auction_bid", "auction_passed",
    "auction_won", "auction_unsold", "rent_due", "rent_waived", "pay_step_started", "debt_paid",
    "pay_step_timed_out", "turn_timed_out", "player_out", "companies_inherited", "built", "sold", "mortgaged",
    "mortgage_ticked", "mortgage_expired", "redeemed", "murabaha_bought", "murabaha_paid", "trade_proposed",
    "trade_accepted", "trade_declined", "trade_cancelled", "trade_lapsed", "jailed", "released", "bail_paid",
    "jail_roll_failed", "jackpot_offered", "jackpot_unaffordable", "jackpot_played", "jackpot_declined", "rested",
    "card_drawn", "red_envelope", "god_arrived", "god_left", "game_over",
]
#: Any event, typed.
TypedEvent = (
    GameStartedEvent | TurnStartedEvent | RoundStartedEvent | DiceRolledEvent | RollAgainEvent | TriplesRolledEvent
    | ThirdDoublesEvent | MovedEvent | TeleportedEvent | TeleportSkippedEvent | BusChosenEvent | XJumpEvent
    | CashReceivedEvent | PurchaseOfferedEvent | CompanyBoughtEvent | PurchaseDeclinedEvent | AuctionStartedEvent
    | AuctionBidEvent | AuctionPassedEvent | AuctionWonEvent | AuctionUnsoldEvent | RentDueEvent | RentWaivedEvent
    | PayStepStartedEvent | DebtPaidEvent | PayStepTimedOutEvent | TurnTimedOutEvent | PlayerOutEvent
    | CompaniesInheritedEvent | BuiltEvent | SoldEvent | MortgagedEvent | MortgageTickedEvent | MortgageExpiredEvent
    | RedeemedEvent | MurabahaBoughtEvent | MurabahaPaidEvent | TradeProposedEvent | TradeAcceptedEvent
    | TradeDeclinedEvent | TradeCancelledEvent | TradeLapsedEvent | JailedEvent | ReleasedEvent | BailPaidEvent
    | JailRollFailedEvent | JackpotOfferedEvent | JackpotUnaffordableEvent | JackpotPlayedEvent
    | JackpotDeclinedEvent | RestedEvent | CardDrawnEvent | RedEnvelopeEvent | GodArrivedEvent | GodLeftEvent
    | GameOverEvent
)
