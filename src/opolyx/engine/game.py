"""The rules engine: one ``Game`` whose state changes only through ``apply``.

Pure and deterministic: no I/O, no clock, no global random state. All chance (dice, the deck, red
envelopes) comes from the game's own generator, so a game is exactly its seed plus its ordered actions,
timeouts included. Every action is validated completely before anything changes, so a refused action
leaves the game untouched.

``Game`` holds the state and the public API, and ``new_game``/``replay`` build one. The layers import only
downwards: this facade and the turn flow (``turns``) on top; the rules below, in modules named after docs/rules.md's
sections, taking the game's state as their first argument; the kernel beneath (``state``: ``GameState`` and its
records, events; ``kernel``: money, debts, dice, seat order; ``actions``, ``vocabulary``, ``kinds``, ``errors``):

==============  =====================================================================
``turns``       1, 4   turn flow: rolling, doubles, resolving squares, missed turns, advancing
``moving``      1, 4   moving a token, Start salary
``auctions``    5      buying at list price, declining, the round-robin auction
``rent``        6, 13  what a tenant owes and the rent tax's share
``building``    7      building and selling levels
``trades``      8      offers, fairness, the proposal template, answers, lapsing
``mortgages``   9      mortgaging, redeeming, Speed's expiry
``holdings``    4, 7–9 when managing is allowed, the company table, buildings in a group
``managing``    4, 7–9 the legal management listing
``jail``        10     going to jail, bail, jail rolls
``paying``      11     the pay step, raising cash, bankruptcy and elimination
``timeouts``    12     timeouts, resigning
``jackpot``     14     the Jackpot corner
``cards``       15     the event deck
``ending``      16     the result and placements
``worth``       8, 16  net worth, trade value, liquidation value
``speed``       17     Speed's third die: Bus, X, teleport
``fortuna``     18     gods, red envelope, lucky eight
``murabaha``    19a    Halal's deferred purchase
``teams``       19b    allies
==============  =====================================================================

Each rule module lists the actions it carries out in ``HANDLERS``; ``Game._HANDLERS`` joins them. A handler
checks and carries out its action; ``Game`` then carries the game forward (``turns.advance``) until someone
must decide, so no rule module calls back up into the turn flow.

On hot paths an owner (a seat or ``None``) is compared with a seat as ``(who := owner[i]) is None or who !=
seat``: compiled, that compares two C integers instead of boxing the seat for a generic comparison.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar, Final

from opolyx.engine import (
    auctions,
    building,
    codes,
    jackpot,
    jail,
    kinds,
    managing,
    mortgages,
    murabaha,
    paying,
    speed,
    teams,
    timeouts,
    trades,
    turns,
)
from opolyx.engine.actions import Action, Handler, Options
from opolyx.engine.errors import IllegalAction
from opolyx.engine.rent import base_rent
from opolyx.engine.state import (
    Auction,
    Creditor,
    Debt,
    Event,
    GameState,
    Murabaha,
    Offer,
    Player,
    Trade,
    TradeableCache,
)
from opolyx.engine.worth import net_worth
from opolyx.rules import CARD_BONUS_PERCENT, Board, Card, Rules, load_board, load_cards, load_rules, mode_names

__all__ = ["Action", "Event", "Game", "new_game", "replay"]


class Game(GameState):
    """A running game. Build one with :func:`opolyx.new_game`, never directly."""

    #: The action vocabulary: action type → the rule module's handler.
    _HANDLERS: ClassVar[dict[str, Handler]] = {}

    def __init__(
        self,
        rules: Rules,
        board: Board,
        seats: int,
        seed: int,
        *,
        dice: Iterable[Sequence[int]] | None = None,
        deck: Sequence[str] | None = None,
        seat_info: Sequence[dict[str, Any]] | None = None,
        first_player: int | None = None,
        _copy_of: Game | None = None,
    ) -> None:
        if _copy_of is not None:
            # ``copy``'s start in the compiled build, whose classes cannot be made without their constructor:
            # the immutable values shared, every container then replaced by ``copy`` itself.
            self._share_immutable(_copy_of)
            return
        self.rules = rules
        self.board = board
        self.seats = seats
        self.seed = seed
        self.rng = random.Random(seed)
        self.draw = self.draw_of = None
        self.fixed_dice: deque[tuple[int, ...]] = deque(tuple(d) for d in dice) if dice else deque()
        self.players: list[Player] = []
        infos = list(seat_info) if seat_info else []
        for seat in range(seats):
            info = infos[seat] if seat < len(infos) and infos[seat] else {}
            team = teams.check_team(info.get("team"))
            if team is None and rules.teams:
                team = teams.side_of_seat(seat)
            self.players.append(
                Player(
                    seat=seat,
                    name=str(info.get("name", f"Player {seat + 1}")),
                    cash=rules.starting_cash,
                    bot=bool(info.get("bot", False)),
                    team=team,
                    vip=bool(info.get("vip", False)),
                    cards=_best_cards(info.get("cards") or {}),
                )
            )
        if rules.teams:
            teams.check_layout([p.team for p in self.players])
        first = self.rng.randrange(seats) if first_player is None else first_player
        self.order = [(first + i) % seats for i in range(seats)]
        self.cards: dict[str, Card] = {c.id: c for c in load_cards()}
        if deck is not None:
            self.deck = list(deck)
        else:
            self.deck = [c.id for c in load_cards()]
            self.rng.shuffle(self.deck)
        n = len(board.squares)
        self.owner: list[int | None] = [None] * n
        self.level = [0] * n
        self.mortgaged = [False] * n
        self.mortgage_left: dict[int, int] = {}
        self.murabaha: dict[int, Murabaha] = {}
        self.round = 1
        self.turn = first
        self.phase = "turn"
        self.phase_before_pay = "turn"
        self.turn_no = 0
        self.doubles = 0
        self.roll_again = False
        self.last_dice: tuple[int, ...] = ()
        self.last_total = 0
        self.built: set[int] = set()
        self.offer_square: int | None = None
        self.auction: Auction | None = None
        self.debts: list[Debt] = []
        self.pending_move: int | None = None
        self.bus_dice: tuple[int, int] | None = None
        self.trades: dict[int, Trade] = {}
        #: ``trades.tradeable_by_seat``'s last answer with the owner/level/Murabaha state it was computed from.
        self._tradeable: TradeableCache | None = None
        self.next_id = 1
        self.autoplay = False
        self.bank_paid = 0
        self.bank_received = 0
        self.rent_tax_total = 0
        self.eliminated: list[int] = []
        self.result: dict[str, Any] | None = None
        self.seq = 0
        self.actions: list[list[Any]] = []
        self.setup: dict[str, Any] = {}
        self._ev: list[Event] = []
        self.reported = None
        self.holdings_log = []
        self.keeps_actions = True
        self.emit("game_started", mode=rules.mode, seats=seats, order=list(self.order), first=first)
        turns.start_turn(self, first)
        turns.advance(self)
        self.start_events = self._ev
        self._ev = []

    # ------------------------------------------------------------------ public API

    def apply(self, seat: object, action: object) -> list[Event]:
        """Apply one action for ``seat`` (``None`` for system actions) and return the events it caused.

        Both are typed ``object`` because callers pass untrusted input: a wrong type is refused with its
        code (``bad_action``, ``bad_seat``), also in the compiled build, which would otherwise raise a
        ``TypeError`` at the call."""
        checked = _action_dict(action)
        # The record is a private copy, so that a caller changing its dict cannot rewrite the log; a game that
        # keeps no log needs none.
        return self._carry_out(seat, checked, dict(checked) if self.keeps_actions else checked)

    def apply_owned(self, seat: object, action: object) -> list[Event]:
        """``apply`` for a caller that hands ``action`` over: the game records the dict itself, not a private
        copy, so the caller must never change it afterwards. The bot loop's built-in bots build a new dict
        for every decision, and a copy per action is a visible share of a compiled player-turn. The dict check is
        written out rather than a call to ``_action_dict``: it runs once per action of every simulated game."""
        if not isinstance(action, dict):
            raise IllegalAction("bad_action", BAD_ACTION)
        return self._carry_out(seat, action, action)

    def apply_code(self, seat: int, code: int) -> list[Event]:
        """``apply`` for an action given by its code (:mod:`opolyx.engine.codes`): the same checks and
        events, without the caller building an action dict. The fast path for simulations and look-ahead."""
        action = codes.decode(code)
        return self._carry_out(seat, action, action)

    def legal_codes(self, seat: object) -> list[int]:
        """``legal_actions(seat)`` as codes, in the same order; ``propose_trade`` has no code and is left out
        (so the trade template, the dearest part of the listing, is never computed here)."""
        if (
            self.result is not None
            or not isinstance(seat, int)
            or not 0 <= seat < self.seats
            or self.players[seat].out
        ):
            return []
        encode = codes.encode
        out: list[int]
        if seat != self.actor():
            out = []
        elif self.phase == "turn" and not self.players[seat].in_jail:
            # ``turns.turn_options`` without building a dict per action.
            out = [kinds.ROLL]
            out.extend(managing.management_codes(self, seat, False))
        else:
            out = [encode(a) for a in _PHASE_OPTIONS[self.phase](self, seat) if a["type"] != "propose_trade"]
        if self.trades:
            out.extend(encode(a) for a in trades.answer_actions(self, seat))
        out.append(kinds.RESIGN)
        return out

    def _carry_out(self, seat: object, action: Action, record: Action) -> list[Event]:
        """Check who may send ``action``, run its handler and record ``record`` (``action`` or a private copy
        of it, so a caller changing its dict afterwards cannot rewrite the game's history)."""
        raw_kind = action.get("type")
        if not isinstance(raw_kind, str) or (handler := ACTION_HANDLERS.get(raw_kind)) is None:
            raise IllegalAction("unknown_action", f"unknown action type {raw_kind!r}")
        kind: str = raw_kind  # narrowed: compiled, the comparisons below are native

        if self.result is not None:
            raise IllegalAction("game_over", "the game is over")
        if seat is None:
            if kind != "timeout":
                raise IllegalAction("seat_required", f"{kind!r} must be taken by a seat")
        else:
            if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.seats:
                raise IllegalAction("bad_seat", f"no seat {seat!r}")
            if kind == "timeout":
                raise IllegalAction("system_only", "only the server's clock can time out")
            if self.players[seat].out:
                raise IllegalAction("player_out", f"seat {seat} is out of the game")
        if self._ev:
            self._ev = []  # what a refused action reported before its refusal is not the next one's
        handler(self, seat, action)
        # Carry the game forward until someone must decide: a handler only changes what its action changes.
        turns.advance(self)
        if seat is not None:
            self.players[seat].missed_turns = 0
        # Most actions happen with no offer open: skip the call. An action that only opens or closes an
        # offer changes nothing an offer depends on, so it lapses none either (see ``_OFFERS_ONLY``).
        if self.trades and kind not in _OFFERS_ONLY:
            trades.lapse_invalid(self)
        self.seq += 1
        if self.keeps_actions:
            self.actions.append([seat, record])
        events, self._ev = self._ev, []
        return events

    def legal_actions(self, seat: object) -> list[Action]:
        """Every action ``seat`` may take now. ``propose_trade`` appears once, as a described template."""
        if (
            self.result is not None
            or not isinstance(seat, int)
            or not 0 <= seat < self.seats
            or self.players[seat].out
        ):
            return []
        acts = _PHASE_OPTIONS[self.phase](self, seat) if seat == self.actor() else []
        if self.trades:
            acts.extend(trades.answer_actions(self, seat))
        acts.append({"type": "resign"})
        return acts

    def current_rents(self) -> dict[int, int]:
        """What landing on each owned street or dealership costs now, before cards, gods and tax (mortgaged
        squares and utilities, whose rent follows the next roll, are left out). Kept out of ``snapshot`` so
        saved games and golden replays stay as they are; the server adds it to the board it shows."""
        out: dict[int, int] = {}
        for sq in self.board.squares:
            i = sq.index
            if self.owner[i] is not None and not self.mortgaged[i] and sq.kind in ("street", "dealership"):
                out[i] = base_rent(self, i)
        return out

    def snapshot(self) -> dict[str, Any]:
        """The whole public state as JSON-ready data; never the seed, the generator or the deck order."""
        rules = self.rules
        squares = []
        for sq in self.board.squares:
            i = sq.index
            entry: dict[str, Any] = {
                "index": i,
                "id": sq.id,
                "kind": sq.kind,
                "owner": self.owner[i],
                "level": self.level[i],
                "mortgaged": self.mortgaged[i],
            }
            if i in self.mortgage_left:
                entry["mortgage_rounds_left"] = self.mortgage_left[i]
            m = self.murabaha.get(i)
            if m is not None:
                entry["murabaha"] = {"seat": m.seat, "amount": m.amount, "due_round": m.due_round}
            squares.append(entry)
        players = [
            {
                "seat": p.seat,
                "name": p.name,
                "cash": p.cash,
                "position": p.position,
                "in_jail": p.in_jail,
                "jail_tries": p.jail_tries,
                "out": p.out,
                "out_reason": p.out_reason,
                "team": p.team,
                "bot": p.bot,
                "vip": p.vip,
                "god": p.god,
                "god_until_round": p.god_until if p.god else None,
                "missed_turns": p.missed_turns,
                "cards": {str(k): v for k, v in p.cards.items()},
                "net_worth": net_worth(self, p.seat),
            }
            for p in self.players
        ]
        auction = None
        if self.auction is not None:
            a = self.auction
            auction = a.to_public(self.board.squares[a.square].price, rules.auction_step)
        return {
            "mode": rules.mode,
            "board": self.board.name,
            "seats": self.seats,
            "order": list(self.order),
            "round": self.round,
            "turn": self.turn,
            "phase": "over" if self.result is not None else self.phase,
            "pending": self.pending(),
            "players": players,
            "squares": squares,
            "trades": [t.to_public(rules.trade_seconds) for t in self.trades.values()],
            "auction": auction,
            "offer": self.offer_square if self.phase == "buy" else None,
            "debt": self.debts[0].to_public() if self.phase == "pay" and self.debts else None,
            "debts": [d.to_public() for d in self.debts],
            "dice": list(self.last_dice),
            "doubles": self.doubles,
            "roll_again": self.roll_again,
            "built_this_turn": sorted(self.built),
            "bank": {"paid": self.bank_paid, "received": self.bank_received, "rent_tax": self.rent_tax_total},
            "rules": _public_rules(rules),
            "rent_tax_percent": rules.rent_tax_percent_x100(self.round) / 100,
            "seq": self.seq,
            "over": self.result is not None,
            "result": self.result,
        }

    def to_save(self) -> dict[str, Any]:
        """The private save format: setup plus every action. Holds the seed: never send it to clients.

        A game whose log misses actions (a look-ahead copy, or one played with ``keeps_actions`` off) is
        refused: its save would replay to another position."""
        if len(self.actions) != self.seq:
            raise ValueError(f"this game logged {len(self.actions)} of its {self.seq} actions: it cannot be saved")
        return {"format": 1, **self.setup, "actions": [list(a) for a in self.actions]}

    @classmethod
    def from_save(cls, data: dict[str, Any]) -> Game:
        setup = {k: v for k, v in data.items() if k not in ("format", "actions", "mode", "seats", "seed")}
        return replay(data["seed"], data["mode"], data["seats"], data["actions"], **setup)

    def copy(self, reseed: int | None = None) -> Game:
        """A fast independent copy for look-ahead. With ``reseed`` the future (dice, deck) is re-drawn,
        so a bot searching the copy cannot peek at the real game's coming dice or cards."""
        if hasattr(self, "__dict__"):
            # Pure Python: every attribute, those set outside the declarations included.
            g = Game.__new__(Game)
            g.__dict__.update(self.__dict__)
        else:
            # Compiled build: the declared state lives in the native ``GameState`` layout.
            g = Game(self.rules, self.board, self.seats, self.seed, _copy_of=self)
        g.players = [p.copy() for p in self.players]
        g.owner = list(self.owner)
        g.level = list(self.level)
        g.mortgaged = list(self.mortgaged)
        g.mortgage_left = dict(self.mortgage_left)
        g.murabaha = {i: Murabaha(m.square, m.seat, m.amount, m.due_round) for i, m in self.murabaha.items()}
        g.order = list(self.order)
        g.built = set(self.built)
        g.auction = self.auction.copy() if self.auction is not None else None
        g.debts = [Debt(x.debtor, [Creditor(c.seat, c.amount, c.tax) for c in x.creditors], x.reason,
                        x.square, x.id) for x in self.debts]
        g.trades = dict(self.trades)
        g.eliminated = list(self.eliminated)
        g.actions = []
        g._ev = []
        if reseed is None:
            # Skip ``Random()``'s seeding from the OS (most of a copy's cost): ``setstate`` replaces it anyway.
            g.rng = random.Random.__new__(random.Random)
            g.rng.setstate(self.rng.getstate())
            g.fixed_dice = deque(self.fixed_dice)
            g.deck = list(self.deck)
        else:
            g.rng = random.Random(reseed)
            g.fixed_dice = deque()
            g.deck = list(self.deck)
            g.rng.shuffle(g.deck)
        return g

    # ------------------------------------------------------------------ trade values (docs/rules.md §8)

    def trade_value(self, offer: Offer) -> int:
        """Cash at face value plus each company's value (docs/rules.md §8)."""
        return trades.trade_value(self, offer)

    def is_fair(self, proposer: int, recipient: int, give: Offer, take: Offer) -> bool:
        """The smaller side is worth at least half the larger; Team allies are exempt."""
        return trades.is_fair(self, proposer, recipient, give, take)


#: What ``apply`` and ``apply_owned`` answer an action that is not a JSON object.
BAD_ACTION: Final = "an action is a JSON object with a 'type'"


def _action_dict(action: object) -> Action:
    """``action`` if it is a dict, else refused with ``bad_action`` (what ``apply`` and ``apply_owned`` take)."""
    if not isinstance(action, dict):
        raise IllegalAction("bad_action", BAD_ACTION)
    return action


#: Every action type's handler, joined from the rule modules' ``HANDLERS``. A module constant rather than only
#: the class attribute ``Game._HANDLERS`` (the same dict): compiled, reading it is a C static, where the class
#: attribute is a generic attribute lookup on every action.
ACTION_HANDLERS: Final[dict[str, Handler]] = {
    **turns.HANDLERS,
    **auctions.HANDLERS,
    **murabaha.HANDLERS,
    **building.HANDLERS,
    **mortgages.HANDLERS,
    **trades.HANDLERS,
    **paying.HANDLERS,
    **jail.HANDLERS,
    **jackpot.HANDLERS,
    **speed.HANDLERS,
    **timeouts.HANDLERS,
}
Game._HANDLERS = ACTION_HANDLERS

#: Actions that only add or remove an offer. After one, every other open offer is as valid as it was after
#: the action before (when ``lapse_invalid`` last checked it), and a new offer has just passed the very same
#: checks, so looking again would find nothing to lapse: the bots' proposals skip it.
_OFFERS_ONLY: Final = frozenset({"propose_trade", "decline_trade", "cancel_trade"})

#: What the deciding seat may do in each phase (trade answers and resigning are added for every seat).
_PHASE_OPTIONS: dict[str, Options] = {
    "turn": turns.turn_options,
    "buy": auctions.buy_options,
    "auction": auctions.bid_options,
    "pay": paying.pay_options,
    "jackpot": jackpot.options,
    "bus": speed.bus_options,
    "teleport": speed.teleport_options,
}


def _best_cards(raw: Any) -> dict[int, str]:
    """Seat cards as square → best rarity; several cards for one square never stack (docs/rules.md §19)."""
    order = list(CARD_BONUS_PERCENT)
    best: dict[int, str] = {}
    items = raw.items() if isinstance(raw, dict) else raw
    for square, rarity in items:
        rarities = rarity if isinstance(rarity, list) else [rarity]
        for r in rarities:
            if r not in CARD_BONUS_PERCENT:
                raise IllegalAction("bad_seat_info", f"unknown card rarity {r!r}")
            key = int(square)
            if key not in best or order.index(r) > order.index(best[key]):
                best[key] = r
    return best


def _public_rules(rules: Rules) -> dict[str, Any]:
    return {
        "turn_seconds": rules.turn_seconds,
        "auction_seconds": rules.auction_seconds,
        "pay_step_seconds": rules.pay_step_seconds,
        "trade_seconds": rules.trade_seconds,
        "round_limit": rules.round_limit,
        "rent_tax_start": rules.rent_tax_start,
        "rent_tax_full": rules.rent_tax_full,
        "auction_step": rules.auction_step,
        "jail_bail": rules.jail_bail,
        "jackpot_stake": rules.jackpot_stake,
        "corner_20": rules.corner_20,
        "even_building": rules.even_building,
        "third_die_from_round": rules.third_die_from_round,
        "mortgage_expiry_rounds": rules.mortgage_expiry_rounds,
        "redemption_percent": rules.redemption_percent,
        "max_open_trades": rules.max_open_trades,
        "teams": rules.teams,
        "murabaha": rules.murabaha,
    }


# ------------------------------------------------------------------ creating and replaying games


def new_game(
    mode: str,
    seats: int,
    seed: int,
    *,
    dice: Iterable[Sequence[int]] | None = None,
    deck: Sequence[str] | None = None,
    seat_info: Sequence[dict[str, Any]] | None = None,
    first_player: int | None = None,
    rules: dict[str, Any] | None = None,
) -> Game:
    """Start a game of ``mode`` for ``seats`` seats; everything random comes from ``seed``.

    ``dice`` fixes the coming rolls (each tuple is one roll; jackpot and Speed read what they need from
    it) and ``deck`` the card order, for tests and tutorials. ``rules`` overrides mode parameters, e.g.
    ``{"lucky_eight_bonus": 88000}``. ``first_player`` fixes who starts instead of drawing it.
    """
    if mode not in mode_names():
        raise IllegalAction("unknown_mode", f"unknown mode {mode!r}; modes: {', '.join(mode_names())}")
    table = load_rules(mode)
    if rules:
        try:
            table = table.with_changes(**rules)
        except TypeError as exc:
            raise IllegalAction("bad_rules", str(exc)) from exc
    if not isinstance(seats, int) or not table.seats_allowed(seats):
        raise IllegalAction("bad_seats", f"{mode} is played by {_seat_text(table.allowed_seats, table)} seats")
    if deck is not None:
        known = sorted(c.id for c in load_cards())
        if sorted(deck) != known:
            raise IllegalAction("bad_deck", "a fixed deck must hold each of the sixteen cards once")
    if seat_info is not None and len(seat_info) != seats:
        raise IllegalAction("bad_seat_info", "seat_info needs one entry per seat")
    if first_player is not None and not 0 <= first_player < seats:
        raise IllegalAction("bad_seat", "first_player must be a seat")
    dice_list = [list(d) for d in dice] if dice is not None else None
    if dice_list is not None and not all(all(isinstance(v, int) and 1 <= v <= 6 for v in d) for d in dice_list):
        raise IllegalAction("bad_dice", "fixed dice hold values from 1 to 6")
    game = Game(
        table,
        load_board(table.board),
        seats,
        seed,
        dice=dice_list,
        deck=deck,
        seat_info=seat_info,
        first_player=first_player,
    )
    game.setup = {
        "mode": mode,
        "seats": seats,
        "seed": seed,
        "dice": dice_list,
        "deck": list(deck) if deck is not None else None,
        "seat_info": [dict(s) for s in seat_info] if seat_info is not None else None,
        "first_player": first_player,
        "rules": dict(rules) if rules else None,
    }
    return game


def _seat_text(allowed: tuple[int, ...] | None, table: Any) -> str:
    if allowed:
        return " or ".join(str(n) for n in allowed)
    return f"{table.min_seats}–{table.max_seats}"


def replay(
    seed: int,
    mode: str,
    seats: int,
    actions: Iterable[Any],
    **options: Any,
) -> Game:
    """Rebuild a game from its seed and ordered actions; the result equals the original exactly.

    ``actions`` holds ``[seat, action]`` pairs or ``{"seat": .., "action": ..}`` objects.
    """
    game = new_game(mode, seats, seed, **{k: v for k, v in options.items() if v is not None})
    for entry in actions:
        if isinstance(entry, dict):
            seat, action = entry["seat"], entry["action"]
        else:
            seat, action = entry
        game.apply(seat, action)
    return game
