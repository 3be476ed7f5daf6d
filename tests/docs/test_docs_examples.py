"""The runnable parts of the docs: examples/engine_example.py and ``opolyx story``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from opolyx.cli import app
from opolyx.i18n.catalog import translate

ROOT = Path(__file__).resolve().parents[2]


def test_engine_example_runs() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "engine_example.py")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "company_bought" in out
    assert "auction_won" in out
    assert "IllegalAction code='wrong_phase'" in out
    assert "turn_timed_out" in out
    assert "save/replay identical: True" in out
    assert "the copy moved on, the game did not: True" in out


def test_story_blitz_ends_with_placements() -> None:
    result = CliRunner().invoke(app, ["story", "--mode", "blitz", "--seats", "3", "--seed", "1"])
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert lines[0] == "Blitz for 3 seats, seed 1"
    assert lines[1:4] == ["Seat 1: Ada (normal)", "Seat 2: Bo (normal)", "Seat 3: Cyd (normal)"]
    assert lines[4] == "A game of Blitz begins. Ada (normal) goes first."
    places = lines[-3:]
    for place, line in enumerate(places, start=1):
        assert re.match(rf"Place {place}: (Ada|Bo|Cyd) \(normal\), net worth [\d,]+$", line), line
    assert {line.split()[2] for line in places} == {"Ada", "Bo", "Cyd"}
    assert re.search(r"wins|remains", lines[-4]), lines[-4]
    assert any(re.search(r"rolls \d \+ \d", line) for line in lines)
    # one line per event, every one rendered from the catalogs rather than as a raw key or dump
    assert not any(re.search(r"\w=\w|\blog\.[a-z_]+", line) for line in lines)


@pytest.mark.parametrize("language", ["de", "pt", "fr", "es", "zh"])
def test_story_speaks_every_language_and_names_bot_strengths(language: str) -> None:
    # Normal and easy bots are deterministic (hard ones think against a wall-clock budget).
    args = ["story", "--mode", "speed", "--seats", "3", "--seed", "4", "--strength", "normal,easy"]
    english = CliRunner().invoke(app, args)
    result = CliRunner().invoke(app, [*args, "--lang", language])
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    # The same game, event for event, in the other language.
    assert len(lines) == len(english.output.strip().splitlines())
    strengths = {k: translate(f"strength.{k}", language) for k in ("normal", "easy")}
    assert f"Ada ({strengths['normal']})" in lines[1] and f"Bo ({strengths['easy']})" in lines[2]
    assert f"Cyd ({strengths['normal']})" in lines[3]
    assert translate("log.round_started", language, round=2) in lines
    assert not any(re.search(r"\blog\.[a-z_]+|\{[a-z]+\}", line) for line in lines)
    if language != "en":
        assert not set(lines[5:]) & set(english.output.strip().splitlines()[5:])


def test_story_rejects_an_unknown_language_or_strength() -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["story", "--mode", "blitz", "--seats", "2", "--lang", "xx"]).exit_code != 0
    assert runner.invoke(app, ["story", "--mode", "blitz", "--seats", "2", "--strength", "mighty"]).exit_code != 0


def test_story_is_deterministic_for_a_seed() -> None:
    runner = CliRunner()
    first = runner.invoke(app, ["story", "--mode", "blitz", "--seats", "2", "--seed", "7"])
    second = runner.invoke(app, ["story", "--mode", "blitz", "--seats", "2", "--seed", "7"])
    assert first.exit_code == 0 and first.output == second.output


def test_story_rejects_a_bad_mode() -> None:
    result = CliRunner().invoke(app, ["story", "--mode", "chess", "--seats", "2", "--seed", "1"])
    assert result.exit_code != 0
