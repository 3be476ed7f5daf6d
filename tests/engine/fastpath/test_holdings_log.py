"""``Game.holdings_log`` names every company whose owner, level or mortgage the rule modules change (docs/engine.md
"Fast path"). While the bot loop plays a game (``heuristics.trust_log``) the bots' tables read the companies it names
instead of comparing the 40-square lists, so a change it missed would leave a bot judging a board that is no
longer there."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

import opolyx
from opolyx import Game
from opolyx.bots import derive_seed, heuristics, play_game
from opolyx.bots.heuristics import board_info, derived
from opolyx.engine.state import ALL_SQUARES
from opolyx.rules import mode_names


class HoldingsWatch:
    """Checks after every action that each company whose holding changed was logged (or a bankruptcy was)."""

    def __init__(self) -> None:
        self.before: tuple[list[int | None], list[int], list[bool], int] | None = None
        self.changes_seen = 0

    def __call__(self, game: Game, _events: object = None) -> None:
        log = game.holdings_log
        now = (list(game.owner), list(game.level), list(game.mortgaged), len(log))
        if self.before is not None:
            owner, level, mortgaged, logged = self.before
            assert len(log) >= logged
            new = log[logged:]
            changed = {i for i in range(len(owner))
                       if (owner[i], level[i], mortgaged[i]) != (now[0][i], now[1][i], now[2][i])}
            if changed:
                self.changes_seen += 1
                assert ALL_SQUARES in new or changed <= set(new), f"changed {changed}, logged {new}"
        self.before = now


def test_every_change_in_bot_games_is_logged() -> None:
    """Purchases, auctions, builds, sales, mortgages, redemptions, trades, bankruptcies (to a player and to
    the bank), Speed's expiring mortgages and Halal's Murabaha, in every mode."""
    for mode in mode_names():
        for k in range(2):
            watch = HoldingsWatch()
            info = [{"bot": True, "vip": True} for _ in range(4)]
            game = play_game(mode, 4, derive_seed(41, mode, k), ["normal", "easy", "normal", "hard"], seat_info=info,
                             on_events=watch, rules={"round_limit": 80})
            assert game.result is not None
            assert watch.changes_seen > 10, mode


@settings(max_examples=40, deadline=None)
@given(mode=st.sampled_from(mode_names()), seed=st.integers(0, 2**31), steps=st.integers(50, 600))
def test_every_change_in_random_legal_play_is_logged(mode: str, seed: int, steps: int) -> None:
    rng = random.Random(seed)
    game = opolyx.new_game(mode, 4, seed, seat_info=[{"vip": True}] * 4)
    watch = HoldingsWatch()
    watch(game)
    for _ in range(steps):
        if game.is_over:
            break
        seat = game.actor()
        assert seat is not None
        legal = [a for a in game.legal_actions(seat) if a["type"] != "propose_trade"]
        game.apply(seat, rng.choice(legal))
        watch(game)


def test_the_loop_trusts_the_log_only_while_it_plays() -> None:
    """The bots trust a game's log while ``play_game`` plays it (not copies made by anyone else), and no longer
    once it is given back: a test or tool changing that game's squares directly is then seen by the bots'
    tables as before."""
    seen: list[bool] = []

    def look(game: Game, _events: object) -> None:
        seen.append(game in heuristics._LOGGED)
        seen.append(game.copy() in heuristics._LOGGED)

    game = play_game("classic", 4, 3, ["normal"] * 4, on_events=look, rules={"round_limit": 20})
    assert seen[:2] == [False, False]  # the start events come before the loop takes the game
    assert all(seen[2::2]) and not any(seen[3::2])
    assert game not in heuristics._LOGGED
    assert not heuristics._LOGGED  # nor any look-ahead copy
    info = board_info(game.board)
    before = derived(game, info)
    square = next(i for i in info.companies if game.owner[i] is None or game.owner[i] != 0)
    game.owner[square] = 0  # directly, without the engine: nothing is logged
    game.seq += 1
    after = derived(game, info)
    assert after.owner[square] == 0
    assert after is not before or before.owner[square] == 0
