"""Skill ratings (progression/skill.py) move exactly as OpenSkill's Plackett–Luce model says, bots are
fixed anchors, Team games are rated as teams, and a rating is provisional for its first games."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce

from opolyx.progression.skill import (
    BOT_ANCHORS,
    PROVISIONAL_GAMES,
    Entrant,
    Skill,
    bot_skill,
    display,
    provisional,
    rate,
)


def test_a_four_player_game_matches_openskills_own_numbers() -> None:
    """Four newcomers, places 1..4: the library's reference update, and its known figures."""
    entrants = [Entrant(name, Skill(), seat, seat + 1) for seat, name in enumerate("abcd")]
    got = rate(entrants)
    model = PlackettLuce()
    expected = model.rate([[model.rating()] for _ in range(4)], ranks=[1.0, 2.0, 3.0, 4.0])
    for name, team in zip("abcd", expected, strict=True):
        assert got[name].mu == pytest.approx(team[0].mu, abs=1e-9)
        assert got[name].sigma == pytest.approx(team[0].sigma, abs=1e-9)
    # The figures openskill 6 gives for this game (pinned, so a change of the library is noticed).
    assert [round(got[n].mu, 4) for n in "abcd"] == [27.7953, 26.5529, 24.6894, 20.9624]
    assert [round(got[n].sigma, 4) for n in "abcd"] == [8.2636, 8.1796, 8.0841, 8.0841]
    assert got["a"].sigma < Skill().sigma


def test_bots_are_fixed_anchors_and_beating_harder_bots_counts_more() -> None:
    def win_against(strength: str) -> Skill:
        entrants = [Entrant("me", Skill(), 0, 1), Entrant(None, bot_skill(strength), 1, 2)]
        out = rate(entrants)
        assert list(out) == ["me"]  # the bot's rating is never returned, so never stored
        return out["me"]

    assert win_against("hard").mu > win_against("normal").mu > win_against("easy").mu
    model = PlackettLuce()
    mu, sigma = BOT_ANCHORS["hard"]
    [[me], _bot] = model.rate([[model.rating()], [model.rating(mu=mu, sigma=sigma)]], ranks=[1.0, 2.0])
    assert win_against("hard").mu == pytest.approx(me.mu)


def test_team_games_are_rated_as_teams() -> None:
    """2 x 2: teammates share the team's place and are rated as one side of the library's team game."""
    strong = Skill(30.0, 4.0)
    entrants = [
        Entrant("a", Skill(), 0, 1),
        Entrant("b", strong, 1, 2),
        Entrant("c", Skill(), 0, 1),
        Entrant(None, bot_skill("normal"), 1, 2),
    ]
    got = rate(entrants)
    model = PlackettLuce()
    bot_mu, bot_sigma = BOT_ANCHORS["normal"]
    teams = [
        [model.rating(), model.rating()],
        [model.rating(mu=30.0, sigma=4.0), model.rating(mu=bot_mu, sigma=bot_sigma)],
    ]
    [[a, c], [b, _]] = model.rate(teams, ranks=[1.0, 2.0])
    assert got["a"].mu == pytest.approx(a.mu) and got["c"].mu == pytest.approx(c.mu)
    assert got["b"].mu == pytest.approx(b.mu) and got["b"].mu < 30.0
    assert set(got) == {"a", "b", "c"}


def test_a_game_without_people_or_with_one_side_moves_nothing() -> None:
    assert rate([Entrant(None, bot_skill("easy"), 0, 1), Entrant(None, bot_skill("hard"), 1, 2)]) == {}
    assert rate([Entrant("a", Skill(), 0, 1), Entrant("b", Skill(), 0, 1)]) == {}


def test_provisional_until_the_threshold_and_the_shown_number() -> None:
    assert provisional(PROVISIONAL_GAMES - 1) and not provisional(PROVISIONAL_GAMES)
    assert display(25.0, 25.0 / 3.0) == 1000  # a newcomer
    assert display(30.0, 1.0) == 1000 + 40 * 27
    assert display(0.0, 10.0) == 0  # never negative
