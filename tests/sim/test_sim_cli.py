"""The simulator: its statistics, its command line, and figures that do not depend on --workers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from opolyx.cli import app
from opolyx.sim import SimConfig, simulate, wilson
from opolyx.sim.plot import board_cell
from opolyx.usage import per_seat

runner = CliRunner()


def figures(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    data.pop("performance")  # the only machine-dependent part
    return data


def test_wilson_interval() -> None:
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3)
    assert hi == pytest.approx(0.5962, abs=1e-3)
    assert wilson(0, 10)[0] == 0.0
    assert wilson(10, 10)[1] == pytest.approx(1.0)
    assert wilson(0, 0) == (0.0, 1.0)


def test_board_cells_run_clockwise_from_the_bottom_right() -> None:
    assert board_cell(0) == (10, 0)
    assert board_cell(10) == (0, 0)
    assert board_cell(20) == (0, 10)
    assert board_cell(30) == (10, 10)
    assert board_cell(39) == (10, 1)
    assert len({board_cell(i) for i in range(40)}) == 40


def test_a_short_line_up_repeats_over_the_seats() -> None:
    assert per_seat(("normal",), 4, "--bots", "bot") == ("normal",) * 4
    assert per_seat(("hard", "easy"), 4, "--bots", "bot") == ("hard", "easy", "hard", "easy")


def test_workers_do_not_change_the_figures(tmp_path: Path) -> None:
    args = ["simulate", "--mode", "blitz", "--seats", "4", "--bots", "hard,normal,easy,easy", "--games", "8",
            "--seed", "42", "--no-progress", "--hard-ms", "5"]
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    r1 = runner.invoke(app, [*args, "--workers", "1", "--json", str(one)])
    assert r1.exit_code == 0, r1.output
    r2 = runner.invoke(app, [*args, "--workers", "2", "--json", str(two)])
    assert r2.exit_code == 0, r2.output
    assert figures(one) == figures(two)
    assert "win rate by bot" in r1.output


def test_report_json_and_plot(tmp_path: Path) -> None:
    out, png = tmp_path / "sim.json", tmp_path / "sim.png"
    result = runner.invoke(app, ["simulate", "--mode", "classic", "--seats", "3", "--bots", "normal,easy,easy",
                                 "--games", "6", "--seed", "1", "--json", str(out), "--plot", str(png),
                                 "--no-progress"])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["games"] == 6
    assert set(data["win_rate_by_bot"]) == {"normal", "easy"}
    assert data["win_rate_by_bot"]["easy"]["games"] == 12
    assert sum(v["games"] for v in data["end_reasons"].values()) == 6
    assert len(data["landing_frequency"]) == 40
    assert data["landing_frequency"][10]["landings"] > 0
    assert data["money_in_play"][0] == {"round": 1, "mean_cash": 45000.0, "games": 6}
    assert data["rent_by_group"]["orange"]["paid"] >= data["rent_by_group"]["orange"]["received"]
    assert data["performance"]["games_per_second"] > 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_team_wins_count_for_both_teammates() -> None:
    data = simulate(SimConfig(mode="team", seats=4, bots=("normal", "easy", "normal", "easy"), games=4, seed=3,
                              rotate=False))
    seat_wins = sum(v["wins"] for v in data["win_rate_by_seat"].values())
    assert seat_wins == 2 * 4  # a team of two wins each game


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "normal,wizard"], "unknown strength"),
        (["--mode", "chess"], "unknown mode"),
        (["--mode", "team", "--seats", "5"], "Team"),
        (["--seats", "3", "--bots", "normal,normal,normal,normal"], "4 bots for 3 seats"),
    ],
)
def test_bad_arguments(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["simulate", "--games", "1", "--no-progress", *args])
    assert result.exit_code != 0
    assert message.lower() in result.output.lower()


def test_the_command_loads_the_web_stack_only_to_serve() -> None:
    """``opolyx simulate`` (and every command but ``serve``) starts without importing the server's web
    framework and database drivers, about a second on a 2-core machine; ``opolyx.server`` still hands out
    ``create_app`` and ``Settings`` when asked."""
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "from opolyx.cli import app\n"
        "web = ('fastapi', 'sqlalchemy', 'uvicorn', 'opolyx.server.http.app')\n"
        "heavy = sorted(m for m in web if m in sys.modules)\n"
        "print(','.join(heavy))\n"
        "from opolyx.server import Settings, create_app\n"
        "print(create_app.__module__, Settings.__module__)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    loaded, names = done.stdout.splitlines()
    assert loaded == ""
    assert names == "opolyx.server.http.app opolyx.server.settings"
    help_text = runner.invoke(app, ["serve", "--help"])
    assert help_text.exit_code == 0 and "--database" in help_text.output
