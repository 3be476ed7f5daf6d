"""The reference game loop: bots in every seat, trades answered at once, optionally every action checked.

Open trade offers are answered before anyone else moves. That stands in for the 60-second trade clock
the server runs, keeps games replayable from (seed, actions) and lets a proposer see the answer
before its roll.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any, Final

from mypy_extensions import mypyc_attr

from opolyx.bots.base import Action, BaseBot, Bot, forget, next_seat
from opolyx.bots.heuristics import distrust_log, trust_log
from opolyx.bots.strengths import make_bot
from opolyx.engine.game import Game, new_game

Event = dict[str, Any]

#: No game needs this many actions; more means a bot is looping and the loop stops with an error.
MAX_ACTIONS: Final = 400_000


@mypyc_attr(native_class=False)
class BotError(RuntimeError):
    """A bot chose an action that is not legal now, or kept a game from ending."""


@mypyc_attr(allow_interpreted_subclasses=True)
class EventSink:
    """A receiver of a game's events, as ``play_game``'s ``on_events``, that compiled code calls natively.

    Any callable will do as ``on_events``; compiled, calling one is a generic Python call (the object's
    ``__call__`` looked up, its arguments parsed) once per action. A subclass of this class is called through
    its method table instead (the simulator's counters are one), and may be written in plain Python too.
    """

    def take(self, game: Game, events: list[Event]) -> None:
        """Fold in ``events``, the latest action's (or the start events, first)."""
        raise NotImplementedError

    def __call__(self, game: Game, events: list[Event]) -> None:
        self.take(game, events)


def derive_seed(master: int, *parts: int | str) -> int:
    """A stable 63-bit seed from a master seed and labels, identical in every process and on every run."""
    text = ":".join(str(p) for p in (master, *parts)).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1


def check_legal(game: Game, seat: int, action: Action) -> None:
    """Raise :class:`BotError` unless ``action`` is one of ``game.legal_actions(seat)``.

    A trade proposal is matched against the template entry: partner, items each side may offer, cash
    caps and the fairness rule.
    """
    legal = game.legal_actions(seat)
    if action.get("type") != "propose_trade":
        if action not in legal:
            raise BotError(f"seat {seat} chose {action!r}; legal: {legal!r}")
        return
    from opolyx.engine.state import Offer

    template = next((a for a in legal if a["type"] == "propose_trade"), None)
    if template is None:
        raise BotError(f"seat {seat} proposed a trade but may not: {action!r}")
    to = action.get("to")
    if not isinstance(to, int) or to not in template["to"]:
        raise BotError(f"seat {seat} proposed a trade to {to!r}, not a partner")
    give, take = action["give"], action["take"]
    mine, theirs = template["give"], template["take"][str(to)]
    for side, allowed in ((give, mine), (take, theirs)):
        if not 0 <= side.get("cash", 0) <= allowed["cash_max"] or not set(side.get("squares", [])) <= set(
            allowed["squares"]
        ):
            raise BotError(f"seat {seat} proposed items outside the template: {action!r}")
    g = Offer(give.get("cash", 0), tuple(give.get("squares", [])))
    t = Offer(take.get("cash", 0), tuple(take.get("squares", [])))
    if not game.is_fair(seat, to, g, t):
        raise BotError(f"seat {seat} proposed an unfair trade: {action!r}")


def play_game(
    mode: str,
    seats: int,
    seed: int,
    strengths: Sequence[str],
    *,
    bots: Sequence[Bot] | None = None,
    seat_info: Sequence[dict[str, Any]] | None = None,
    rules: dict[str, Any] | None = None,
    on_events: Callable[[Game, list[Event]], None] | None = None,
    event_types: frozenset[str] | None = None,
    check: bool = False,
    deterministic: bool = True,
    keep_actions: bool = True,
) -> Game:
    """Play one whole game of bots and return it (``game.result`` holds the outcome).

    Each seat's bot is seeded from ``seed`` and the seat, so a game is a function of its arguments.
    ``on_events(game, events)`` sees the start events, then the events of every action; with ``event_types``
    only events of those types are built and reported (``Game.reported``), which saves the engine the rest.
    ``check`` verifies each action against ``legal_actions`` first (slow; for tests). ``rules`` overrides mode
    parameters (e.g. a short ``round_limit``). ``deterministic`` makes the hard bot count its look-ahead in
    engine steps instead of milliseconds. Without ``keep_actions`` the game keeps no log of its actions
    (``Game.keeps_actions``): for a caller that reads only the events and the result, never a save.
    """

    if len(strengths) != seats and bots is None:
        raise ValueError(f"{seats} seats need {seats} strengths, got {len(strengths)}")
    players = list(bots) if bots is not None else [
        make_bot(s, derive_seed(seed, "bot", k), deterministic=deterministic) for k, s in enumerate(strengths)
    ]
    info = list(seat_info) if seat_info is not None else [
        {"name": f"{players[k].strength} {k + 1}", "bot": True} for k in range(seats)
    ]
    game = new_game(mode, seats, seed, seat_info=info, rules=rules)
    sink = on_events if isinstance(on_events, EventSink) else None
    if on_events is not None:
        on_events(game, [e for e in game.start_events if event_types is None or e["type"] in event_types])
    game.reported = event_types
    game.keeps_actions = keep_actions
    # Only the rule modules change this game's holdings while the loop plays it: the bots' tables may tell
    # a change by ``holdings_log`` alone. Given back, the game is anyone's to change again.
    trust_log(game)
    try:
        steps = 0
        while game.result is None:
            seat = next_seat(game)
            player = players[seat]
            # The same call in both arms, but compiled, the narrowed one goes through ``BaseBot``'s table of
            # methods, where any other ``Bot``'s is a Python method call that looks ``choose`` up and parses its
            # arguments.
            if isinstance(player, BaseBot):
                action = player.choose(game, seat)
                built_in = True
            else:
                action = player.choose(game, seat)
                built_in = False
            if check:
                check_legal(game, seat, action)
            # A built-in bot hands its action over (see ``BaseBot``): the game may keep it without a copy.
            events = game.apply_owned(seat, action) if built_in else game.apply(seat, action)
            if sink is not None:
                sink.take(game, events)
            elif on_events is not None:
                on_events(game, events)
            steps += 1
            if steps > MAX_ACTIONS:
                raise BotError(f"game {mode}/{seed} did not end after {MAX_ACTIONS} actions")
    finally:
        distrust_log(game)
        forget(game)  # the game is over (or failed): no bot will decide on it again
    return game
