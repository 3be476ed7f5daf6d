"""The league: round-robin pairings with rotating seats, OpenSkill ratings, Wilson intervals, terminal and plot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from opolyx.cli import app
from opolyx.sim.league import LeagueConfig, Ratings, UnknownEntrant, check_entrants, iter_games, line_up, run_league

runner = CliRunner()


def test_the_challenger_sits_in_every_seat_in_turn() -> None:
    seats = [line_up("hard", "builder", 4, k).index("hard") for k in range(8)]
    assert seats == [0, 1, 2, 3, 0, 1, 2, 3]
    assert line_up("hard", "builder", 4, 1).count("builder") == 3


def test_ratings_reward_placements_and_average_the_copies() -> None:
    r = Ratings(["a", "b"])
    start = r.mu["a"]
    for _ in range(5):
        r.update(["a", "b", "b", "b"], [1, 2, 3, 4])
    assert r.mu["a"] > start > r.mu["b"]
    assert r.table()[0]["entrant"] == "a"
    # One copy winning and two losing moves the entrant less than a clean sweep would.
    mixed = Ratings(["a", "b"])
    mixed.update(["b", "a", "b", "b"], [1, 2, 3, 4])
    sweep = Ratings(["a", "b"])
    sweep.update(["b", "a", "a", "a"], [1, 2, 3, 4])
    assert mixed.mu["b"] < sweep.mu["b"]


def test_unknown_entrants_and_bad_field_modules_are_refused() -> None:
    with pytest.raises(UnknownEntrant, match="unknown entrant 'nobody'"):
        check_entrants(LeagueConfig("blitz", 4, ("normal", "nobody"), ("normal",), 1, 1, field="opolyx.sim.field"))
    with pytest.raises(UnknownEntrant, match="no STRATEGIES"):
        check_entrants(LeagueConfig("blitz", 4, ("normal", "easy"), ("normal",), 1, 1, field="json"))
    with pytest.raises(UnknownEntrant, match="two entrants"):
        check_entrants(LeagueConfig("blitz", 4, ("normal",), ("normal",), 1, 1))


def test_a_league_is_a_function_of_its_seed() -> None:
    config = LeagueConfig("blitz", 4, ("normal", "builder", "hard-nosearch"), ("normal",), 6, 7,
                          field="opolyx.sim.field")
    a, b = run_league(config), run_league(config)
    assert a == b
    assert [(t["challenger"], t["opponent"]) for t in a["pairings"]] == [("normal", "builder"),
                                                                         ("normal", "hard-nosearch")]
    for t in a["pairings"]:
        assert t["games"] == 6
        assert t["ci95"][0] <= t["rate"] <= t["ci95"][1]
    assert {r["entrant"] for r in a["ratings"]} == {"normal", "builder", "hard-nosearch"}


def test_league_command_prints_the_table_and_draws_it(tmp_path: Path) -> None:
    plot, data = tmp_path / "league.png", tmp_path / "league.json"
    result = runner.invoke(app, ["simulate", "--league", "--mode", "blitz", "--bots", "normal,builder,shark",
                                 "--challengers", "normal", "--field", "opolyx.sim.field", "--games", "4",
                                 "--no-progress", "--plot", str(plot), "--json", str(data)])
    assert result.exit_code == 0, result.output
    assert "ratings (OpenSkill" in result.output
    assert "normal         vs builder" in result.output
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    figures = json.loads(data.read_text(encoding="utf-8"))
    assert sum(t["games"] for t in figures["pairings"]) == 8


def test_league_command_names_an_unknown_entrant() -> None:
    result = runner.invoke(app, ["simulate", "--league", "--bots", "normal,zebra", "--no-progress"])
    assert result.exit_code != 0
    assert "zebra" in result.output


def test_workers_play_the_same_league() -> None:
    config = LeagueConfig("blitz", 4, ("normal", "easy"), ("normal",), 3, 11)
    assert list(iter_games(config, workers=2)) == list(iter_games(config, workers=1))
