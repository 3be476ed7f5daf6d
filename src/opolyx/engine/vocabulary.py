"""The engine's vocabulary as types: game modes, phases, decisions, and every action a seat (or the server's
clock) may send, as the JSON it is on the wire. One declaration shared by the engine, the bots, the server
(which generates its pydantic action models from these, ``server/protocol.py``), the client library and
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
