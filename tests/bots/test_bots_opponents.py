"""Opponent models from what a seat has done (issue #41): offers stop going to a seat that never trades, go
on to a seat seen trading with others, and the hard bot's look-ahead plays a rival as it was seen playing."""

from __future__ import annotations

from opolyx.bots import make_bot
from opolyx.bots.base import memory
from opolyx.bots.hard import HardBot, _StayerPolicy
from opolyx.engine.game import new_game


def test_a_seat_that_never_accepts_is_not_offered_the_same_things_for_ever() -> None:
    """Seat 1 holds a lone dealership seat 0 would collect and turns every offer down: seat 0 raises its
    price a little each time, but once a generous price (1.3x) is refused it stops asking for hundreds of
    rounds. The old bot asked again every ten rounds up to twice the price."""
    game = new_game("classic", 4, 3, first_player=0)
    game.owner[5] = 0
    game.owner[15] = 1
    prices = []
    for rnd in range(1, 150):
        game.round = rnd
        game.turn_no += 4
        action = make_bot("normal", 1).choose(game, 0)
        if action["type"] == "propose_trade":
            prices.append(action["give"]["cash"])
            game.apply(0, action)
            (tid,) = list(game.trades)
            game.apply(1, {"type": "decline_trade", "trade": tid})
    assert prices == [2000, 2200, 2400, 2600]
    assert memory(game, 0).answers[1][:2] == [4, 0]


def test_a_seat_seen_trading_with_others_is_still_asked() -> None:
    """Declines from a seat that trades with someone else are about the price: the offers go on."""
    game = new_game("classic", 4, 3, first_player=0)
    game.owner[5] = 0
    game.owner[15] = 1
    game.owner[1] = 2
    bot = make_bot("normal", 1)
    offers = 0
    for rnd in range(1, 150):
        game.round = rnd
        game.turn_no += 4
        if rnd == 5:
            game.owner[1] = 1  # seat 2 handed brown A to seat 1: seat 1 trades
        action = bot.choose(game, 0)
        if action["type"] == "propose_trade":
            offers += 1
            game.apply(0, action)
            (tid,) = list(game.trades)
            game.apply(1, {"type": "decline_trade", "trade": tid})
    assert offers > 4


def test_the_look_ahead_plays_a_rival_seen_staying_in_jail_as_staying() -> None:
    game = new_game("classic", 4, 3, first_player=0)
    bot = HardBot(1, deterministic=True)
    bot.choose(game, 0)
    assert not any(isinstance(p, _StayerPolicy) for p in bot.rollout_policies(game, 0))
    game.players[2].in_jail = True
    game.players[2].jail_tries = 1  # rolled for doubles once, with the bail in hand
    game.players[2].position = 10
    bot.choose(game, 0)
    assert memory(game, 0).stayers == {2}
    kinds = [isinstance(p, _StayerPolicy) for p in bot.rollout_policies(game, 0)]
    assert kinds == [False, False, True, False]
