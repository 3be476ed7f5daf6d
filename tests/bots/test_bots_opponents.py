"""Opponent models from what a seat has done (issue #41): offers stop going to a seat that never trades, go
on to a seat seen trading with others, and the hard bot's look-ahead plays a rival as it was seen playing."""

from __future__ import annotations

from opolyx.bots import make_bot
from opolyx.bots.base import memory, next_seat
from opolyx.bots.hard import HardBot, _ObservedPolicy
from opolyx.bots.loop import check_legal
from opolyx.bots.normal import NormalBot
from opolyx.engine.game import Game, new_game
from opolyx.sim.field.strategies import AuctionShark, FieldBot, Loner


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
    assert not any(isinstance(p, _ObservedPolicy) for p in bot.rollout_policies(game, 0))
    game.players[2].in_jail = True
    game.players[2].jail_tries = 1  # rolled for doubles once, with the bail in hand
    game.players[2].position = 10
    bot.choose(game, 0)
    assert memory(game, 0).stayers == {2}
    kinds = [isinstance(p, _ObservedPolicy) and p.stays for p in bot.rollout_policies(game, 0)]
    assert kinds == [False, False, True, False]


def _play_rounds(game_seed: int, rounds: int) -> tuple[Game, HardBot]:
    """Our hard bot in seat 0 against a loner (seats 1 and 3) and an auction shark (seat 2), every action of ours
    checked against the rules, up to round ``rounds``."""
    game = new_game("classic", 4, game_seed, first_player=0)
    field: dict[int, FieldBot] = {1: Loner(11), 2: AuctionShark(12), 3: Loner(13)}
    bot = HardBot(5, deterministic=True)
    while game.result is None and game.round <= rounds:
        s = next_seat(game)
        if s == 0:
            action = bot.choose(game, 0)
            check_legal(game, 0, action)
        else:
            action = field[s].choose(game, s)
        game.apply(s, action)
    return game, bot


def test_the_look_ahead_plays_a_rival_seen_buying_everything_as_buying_everything() -> None:
    """Seats that bought every company they landed on are rolled out buying whatever they can pay for and
    building with all their cash; the shark, seen turning companies down at the square to force auctions, is
    played by the normal judgement. Every action of ours and of the rollout policies stays legal."""
    game, bot = _play_rounds(7, 12)
    mem = memory(game, 0)
    assert mem.acquired[1] >= 3 and mem.acquired[3] >= 3 and not mem.passed_up.get(1) and not mem.passed_up.get(3)
    assert mem.passed_up.get(2, 0) >= 1
    policies = bot.rollout_policies(game, 0)
    assert [isinstance(p, _ObservedPolicy) and p.eager for p in policies] == [False, True, False, True]
    assert type(policies[0]) is type(policies[2])  # our own seat and the shark: the normal judgement

    # Where the normal judgement keeps its reserve, the buy-everything policy spends its last coin.
    eager = policies[1]
    normal = policies[0]
    assert isinstance(eager, NormalBot)
    probe = game.copy(reseed=1)
    probe.phase, probe.turn, probe.offer_square = "buy", 1, 39
    probe.owner[39] = None
    probe.players[1].cash = probe.board.squares[39].price
    assert eager.choose(probe, 1) == {"type": "buy"}
    assert normal.choose(probe, 1) == {"type": "decline"}

    # The rollouts play on legally with these policies in every seat.
    rollout = game.copy(reseed=2)
    for _ in range(400):
        if rollout.result is not None:
            break
        s = next_seat(rollout)
        action = policies[s].choose(rollout, s)
        check_legal(rollout, s, action)
        rollout.apply(s, action)


def test_a_seat_that_turns_every_offer_down_is_rolled_out_refusing() -> None:
    """Seat 1 turned down two of our offers and was never seen trading: in the rollouts it refuses all offers."""
    game = new_game("classic", 4, 3, first_player=0)
    bot = HardBot(1, deterministic=True)
    bot.choose(game, 0)
    memory(game, 0).answers[1] = [2, 0, 1, 130]
    memory(game, 0).answers[2] = [2, 1, 1, 130]  # seat 2 took one of them: it trades
    kinds = [isinstance(p, _ObservedPolicy) and p.refuses for p in bot.rollout_policies(game, 0)]
    assert kinds == [False, True, False, False]


def _asks_for_orange(trades: bool) -> list[tuple[int, int]]:
    """(round, cash offered) of seat 0's asks for the orange street that completes its group, seat 1 turning
    each down; seat 1 seen trading with seat 2 first when ``trades``."""
    game = new_game("classic", 4, 3, first_player=0)
    game.owner[16] = game.owner[18] = 0
    game.owner[19] = 1
    game.owner[1] = 2
    bot = make_bot("normal", 1)
    asks = []
    for rnd in range(1, 40):
        game.round = rnd
        game.turn_no += 4
        if rnd == 2 and trades:
            game.owner[1] = 1  # seat 2 handed brown A to seat 1: seat 1 trades, at a price
        action = bot.choose(game, 0)
        if action["type"] == "propose_trade" and action["take"]["squares"] == [19]:
            asks.append((rnd, action["give"]["cash"]))
            game.apply(0, action)
            (tid,) = list(game.trades)
            game.apply(1, {"type": "decline_trade", "trade": tid})
    return asks


def test_a_seat_that_trades_is_asked_again_soon_and_dearer_for_the_street_that_completes_a_group() -> None:
    """A trader turns a price down, not trading: the next asks come two rounds apart, a quarter of the street's
    value dearer each time, until it turns down a generous price (1.5x); then, as of a seat never seen trading,
    ten rounds pass before the next ask, at the price a careful seller should take."""
    assert _asks_for_orange(True) == [(1, 2000), (4, 2500), (6, 3000), (16, 3800)]
    assert _asks_for_orange(False) == [(1, 2000), (12, 3800)]


def test_the_street_that_would_complete_a_rivals_group_is_bought_from_a_third_seat_above_face_value() -> None:
    """Seat 1 is one orange street short and seat 2 holds it: seat 0 offers seat 2 a quarter above face value,
    before seat 1 can, and asks once only."""
    game = new_game("classic", 4, 3, first_player=0)
    game.owner[16] = game.owner[18] = 1
    game.owner[19] = 2
    bot = make_bot("normal", 1)
    asks = []
    for rnd in range(1, 30):
        game.round = rnd
        game.turn_no += 4
        action = bot.choose(game, 0)
        if action["type"] == "propose_trade":
            asks.append((action["to"], action["give"]["cash"], action["take"]["squares"]))
            game.apply(0, action)
            (tid,) = list(game.trades)
            game.apply(action["to"], {"type": "decline_trade", "trade": tid})
    assert asks == [(2, 2500, [19])]
