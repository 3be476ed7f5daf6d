"""The runnable parts of the docs: examples/engine_example.py and ``opolyx story``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from opolyx.cli import app

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
    assert lines[0] == "opolyx story: blitz, 3 seats, seed 1"
    assert re.match(r"Round 1 — A game of Blitz for 3 seats begins\.", lines[1])
    assert lines[-4] == "Final placements:"
    places = lines[-3:]
    for place, line in enumerate(places, start=1):
        assert re.match(rf"{place}\. (Ada|Bo|Cyd) — net worth [\d,]+", line), line
    assert {line.split()[1] for line in places} == {"Ada", "Bo", "Cyd"}
    assert "Game over" in lines[-5]
    assert any(re.search(r"rolls \d\+\d", line) for line in lines)
    # one line per event, every one of them rendered in English rather than as a raw dump
    assert not any(re.search(r"\w=\w", line) for line in lines)


def test_story_is_deterministic_for_a_seed() -> None:
    runner = CliRunner()
    first = runner.invoke(app, ["story", "--mode", "blitz", "--seats", "2", "--seed", "7"])
    second = runner.invoke(app, ["story", "--mode", "blitz", "--seats", "2", "--seed", "7"])
    assert first.exit_code == 0 and first.output == second.output


def test_story_rejects_a_bad_mode() -> None:
    result = CliRunner().invoke(app, ["story", "--mode", "chess", "--seats", "2", "--seed", "1"])
    assert result.exit_code != 0
