"""The bot protocol, the dispatch every strength shares, and the per-game memory bots keep.

Memory lives in a side table here, keyed by the game object (:func:`memory`), not inside a bot instance nor in
the game's state: the server builds a fresh bot for every decision, and the no-spam rules for trades (one
proposal per turn, never the same proposal twice) must hold there too.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Protocol

from opolyx.bots.heuristics import BoardInfo, board_info

if TYPE_CHECKING:
    from opolyx.engine.game import Game
    from opolyx.engine.state import Trade
    from opolyx.rules import Board

Action = dict[str, Any]


class NothingToDo(LookupError):
    """Raised by ``choose`` when the seat has no decision to make (not its move, no offer to answer).

    Returning ``resign`` — the only action always listed — would be a disaster, so asking a bot out of
    turn is an error the caller sees.
    """


class Bot(Protocol):
    strength: str

    def choose(self, game: Game, seat: int) -> Action: ...


@dataclass(slots=True)
class SeatMemory:
    last_proposal_turn: int = -1
    #: (partner, give squares, take squares) → (round proposed, cash the partner would have received)
    proposals: dict[tuple[int, tuple[int, ...], tuple[int, ...]], tuple[int, int]] = field(default_factory=dict)
    auction_limit: dict[int, int] = field(default_factory=dict)  # auction id → highest bid worth making
    #: What the last trade scan that found nothing was made on (the tables' serial, ten-round window, cash
    #: band): while those stand, scanning again would find nothing again, so a turn costs microseconds, not a
    #: scan.
    idle_scan: tuple[int, int, int] | None = None
    #: street → round the hard bot's look-ahead last weighed a priced offer for it (see HardBot.on_turn)
    repriced: dict[int, int] = field(default_factory=dict)
    #: Offers made and not yet seen answered: (partner, squares asked for, round proposed, percent of the
    #: asked squares' face value offered).
    pending: list[tuple[int, tuple[int, ...], int, int]] = field(default_factory=list)
    #: What each partner did with this seat's offers: partner → [declined, accepted, round of the last
    #: decline, the highest percent of face value it declined].
    answers: dict[int, list[int]] = field(default_factory=dict)
    #: Rival seats seen to hand a company to another seat still in the game (a trade, not a bankruptcy):
    #: they trade, so their declines of this seat's offers are about price, not about trading at all.
    traders: set[int] = field(default_factory=set)
    #: Rival seats seen rolling for doubles in jail (a failed try behind them) with the bail in hand: the hard
    #: bot's rollouts play them staying in jail rather than as the normal bot would.
    stayers: set[int] = field(default_factory=set)
    #: Companies each rival was seen to come by from the bank (bought at the square or at auction), and the
    #: ones it was seen to turn down at the square with the price in hand (an auction it started): a seat that
    #: buys and never turns one down is played by the hard bot's rollouts as buying everything it can.
    acquired: dict[int, int] = field(default_factory=dict)
    passed_up: dict[int, int] = field(default_factory=dict)
    #: The last auction whose decliner was noted (each is noted once), and the owners when purchases were last
    #: looked for.
    auction_noted: int = -1
    owners_bought: list[int | None] = field(default_factory=list)
    #: The owners as this seat last looked at them (for noticing trades between other seats).
    owners_seen: list[int | None] = field(default_factory=list)


#: What the bots remember, per game: the game object itself is the key (by identity), so a look-ahead copy
#: starts with no memory and a game rebuilt from a save starts afresh, as nothing of it is in the game's state.
#: The game asked about most recently comes last. A table of strong references (the compiled engine's games
#: take no weak ones): :func:`forget` drops a game, ``play_game`` does so for the games it plays, and games
#: that are over are dropped whenever a new game comes in.
_GAMES: Final[dict[Game, dict[int, SeatMemory]]] = {}

#: The game asked about last and its seats' memory: a decision asks a few times, nearly always of one game,
#: which an identity test answers without the table.
_LAST: Final[list[tuple[Game, dict[int, SeatMemory]]]] = []

#: Games kept before the table sweeps out those that are over, and at most (the longest unasked go first): a
#: bound for games nobody finishes or forgets (a test's, a tool's), far above the games a server plays at once.
#: Plain module variables, not ``Final`` (which the compiled build would fold in), so that a host may set them.
SWEEP_FROM = 64
MAX_GAMES = 4096


def memory(game: Game, seat: int) -> SeatMemory:
    """What ``seat``'s bot remembers about ``game``: never part of the game's state, so a copy for look-ahead
    starts with none."""
    last = _LAST
    seats = last[0][1] if last and last[0][0] is game else _seats_of(game)
    mem: SeatMemory | None = seats.get(seat)  # an annotation, not ``cast``: no call in pure Python
    if mem is None:
        mem = seats[seat] = SeatMemory()
    return mem


def _seats_of(game: Game) -> dict[int, SeatMemory]:
    """:func:`memory`'s table entry for ``game`` when it is not the game asked about last."""
    games = _GAMES
    seats = games.pop(game, None)
    if seats is None:
        seats = {}
        if len(games) >= SWEEP_FROM:
            for over in [g for g in games if g.result is not None]:
                del games[over]
            while len(games) >= MAX_GAMES:
                del games[next(iter(games))]
    games[game] = seats
    _LAST[:] = [(game, seats)]
    return seats


def forget(game: Game) -> None:
    """Drop what the bots remember about ``game`` (a game given back, that no bot will play on)."""
    _GAMES.pop(game, None)
    if _LAST and _LAST[0][0] is game:
        _LAST.clear()


class BaseBot:
    """Routes a decision to the handler for the game's phase; subclasses supply the judgement.

    ``choose`` hands its action over: a dict made for this decision (or one of the engine's shared,
    read-only ones) that the bot never changes afterwards. The bot loop lets the game keep it as its record
    (``Game.apply_owned``) instead of a copy."""

    strength = "base"

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        #: The board this bot last decided on and its :class:`BoardInfo`: a bot plays one board, so each
        #: decision finds it here with one identity test instead of a call.
        self.board: Board | None = None
        self.info: BoardInfo | None = None

    def choose(self, game: Game, seat: int) -> Action:
        if game.result is not None or game.players[seat].out:
            raise NothingToDo(f"seat {seat} has nothing to decide")
        info = self.info
        if info is None or game.board is not self.board:
            info = self.info = board_info(game.board)
            self.board = game.board
        if game.trades:
            for t in game.trades.values():
                if t.recipient == seat:
                    return self.answer_trade(game, info, seat, t)
        if (actor := game.actor()) is None or actor != seat:
            for t in game.trades.values():
                if t.proposer == seat:
                    return {"type": "cancel_trade", "trade": t.id}
            raise NothingToDo(f"seat {seat} is not on the move")
        phase = game.phase
        if phase == "turn":
            return self.on_turn(game, info, seat)
        if phase == "buy":
            return self.on_buy(game, info, seat)
        if phase == "auction":
            return self.on_auction(game, info, seat)
        if phase == "pay":
            return self.on_pay(game, info, seat)
        if phase == "jackpot":
            return self.on_jackpot(game, info, seat)
        if phase == "bus":
            return self.on_bus(game, info, seat)
        if phase == "teleport":
            return self.on_teleport(game, info, seat)
        return self.fallback(game, seat)

    # ------------------------------------------------------------------ handlers, overridden by strengths

    def on_turn(self, game: Game, info: BoardInfo, seat: int) -> Action:
        return self.fallback(game, seat)

    def on_buy(self, game: Game, info: BoardInfo, seat: int) -> Action:
        return self.fallback(game, seat)

    def on_auction(self, game: Game, info: BoardInfo, seat: int) -> Action:
        return {"type": "pass"}

    def on_pay(self, game: Game, info: BoardInfo, seat: int) -> Action:
        return self.fallback(game, seat)

    def on_jackpot(self, game: Game, info: BoardInfo, seat: int) -> Action:
        return {"type": "jackpot_decline"}

    def on_bus(self, game: Game, info: BoardInfo, seat: int) -> Action:
        return {"type": "choose_bus", "use": "sum"}

    def on_teleport(self, game: Game, info: BoardInfo, seat: int) -> Action:
        return {"type": "teleport", "square": self.rng.randrange(info.n)}

    def answer_trade(self, game: Game, info: BoardInfo, seat: int, trade: Trade) -> Action:
        return {"type": "decline_trade", "trade": trade.id}

    def fallback(self, game: Game, seat: int) -> Action:
        """Any listed action but resigning or trading: only reached in phases no handler knows."""
        for a in game.legal_actions(seat):
            if a["type"] not in ("resign", "propose_trade"):
                return a
        raise NothingToDo(f"seat {seat} has no action but resigning")


def next_seat(game: Game) -> int:
    """Who moves next in the reference loop: an offer's recipient first, else the game's actor."""
    if game.trades:
        return next(iter(game.trades.values())).recipient
    actor = game.actor()
    assert actor is not None
    return actor
