"""``opolyx simulate --rules FILE``: a house-rule variant played beside its standard mode, from the same
table a room's creator makes (docs/rules.md "House rules")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from opolyx.cli import app

runner = CliRunner()
BASE = ["simulate", "--seats", "3", "--games", "6", "--seed", "5", "--no-progress"]


def test_a_variant_is_reported_beside_its_standard_mode(tmp_path: Path) -> None:
    rules = tmp_path / "short.json"
    rules.write_text(json.dumps({"mode": "blitz", "round_limit": 12, "starting_cash": 25000, "jackpot": False,
                                 "turn_seconds": 60}))
    out = tmp_path / "figures.json"
    r = runner.invoke(app, [*BASE, "--rules", str(rules), "--json", str(out)])
    assert r.exit_code == 0, r.output
    assert "house rules on blitz: starting_cash 15000 -> 25000, round_limit 25 -> 12, jackpot on -> off" in r.output
    for row in ("rounds, mean", "first player wins", "round limit decides"):
        assert row in r.output
    data = json.loads(out.read_text())
    # turn_seconds 60 is Blitz's own: not a change.
    assert data["house_rules"] == {"jackpot": False, "round_limit": 12, "starting_cash": 25000}
    assert data["variant"]["config"]["house_rules"] == data["house_rules"]
    assert data["standard"]["config"]["house_rules"] is None
    assert data["variant"]["rounds"]["max"] <= 12 < data["standard"]["rounds"]["max"]
    cmp = data["comparison"]
    assert cmp["variant"]["rounds_mean"] < cmp["standard"]["rounds_mean"]
    assert 0.0 <= cmp["variant"]["first_player_win_rate"] <= 1.0
    assert cmp["variant"]["first_player_fair_rate"] == pytest.approx(1 / 3)
    # Blitz ends by its limit unless someone goes broke first: the share is reported, not assumed.
    assert cmp["variant"]["limit_decides_share"] == data["variant"]["end_reasons"].get(
        "round_limit", {"share": 0.0})["share"]
    # The variant really played the table: no jackpot on corner 20 once it is switched off.
    assert data["variant"]["money_in_play"][0]["mean_cash"] == 3 * 25000


def test_a_toml_file_and_the_mode_option(tmp_path: Path) -> None:
    rules = tmp_path / "long_clocks.toml"
    rules.write_text("turn_seconds = 240\nauction_seconds = 40\nround_limit = 10\n")
    r = runner.invoke(app, [*BASE, "--mode", "classic", "--rules", str(rules)])
    assert r.exit_code == 0, r.output
    assert "house rules on classic: round_limit 500 -> 10, turn_seconds 75 -> 240, auction_seconds 10 -> 40" \
        in r.output


@pytest.mark.parametrize("text, suffix, said", [
    ('{"starting_cash": 5}', ".json", "house_rule_out_of_bounds"),
    ('{"free_parking": true}', ".json", "house_rule_unknown"),
    ('{"mode": "halal", "jackpot": true}', ".json", "house_rule_not_in_mode"),
    ('{"rent_tax_start": 300}', ".json", "house_rules_inconsistent"),
    ('{"mode": "chess"}', ".json", "unknown_mode"),
    ('[1, 2]', ".json", "must hold a table"),
    ("round_limit = ", ".toml", "not valid TOML"),
])
def test_a_bad_rules_file_is_refused_before_any_game(tmp_path: Path, text: str, suffix: str, said: str) -> None:
    rules = tmp_path / f"bad{suffix}"
    rules.write_text(text)
    r = runner.invoke(app, [*BASE, "--rules", str(rules)])
    assert r.exit_code == 2, r.output
    assert said in r.output
    assert "games of" not in r.output and "speed:" not in r.output, "no game was played"


def test_a_missing_rules_file_is_a_usage_error(tmp_path: Path) -> None:
    r = runner.invoke(app, [*BASE, "--rules", str(tmp_path / "nope.json")])
    assert r.exit_code == 2 and "cannot read" in r.output
