"""The ``opolyx`` command's bad input, every command and every kind of option: one line on stderr naming the
command, no traceback, exit 2, and nothing done (no game played, no file left behind)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from opolyx.cli import app

SRC = Path(__file__).resolve().parents[2] / "src"
runner = CliRunner()
# The serve options read these; a developer's own settings must not change what the table tests.
NO_SETTINGS: dict[str, str | None] = {
    name: None
    for name in ("OPOLYX_HOST", "OPOLYX_PORT", "OPOLYX_DATABASE_URL", "OPOLYX_DATA_DIR", "OPOLYX_WORKERS",
                 "OPOLYX_API_KEY")
}

SIM = ["simulate", "--games", "1", "--no-progress"]
LEAGUE = [*SIM, "--league", "--mode", "blitz"]

# (arguments, a fragment of the one line); {tmp} is a fresh directory, {file} a file in it.
BAD_INPUT: list[tuple[list[str], str]] = [
    # the group
    (["nope"], "no such command"),
    (["simulate", "extra"], "unexpected extra argument"),
    # simulate: choices, counts, numbers, lists, files, option combinations
    ([*SIM, "--mode", "chess"], "unknown mode 'chess'"),
    ([*SIM, "--seats", "0"], "played by 2–6 seats"),
    ([*SIM, "--seats", "7"], "played by 2–6 seats"),
    ([*SIM, "--mode", "team", "--seats", "5"], "team is played by"),
    ([*SIM, "--seats", "abc"], "'--seats'"),
    (["simulate", "--games", "0"], "'--games'"),
    (["simulate", "--games", "many"], "'--games'"),
    ([*SIM, "--workers", "0"], "'--workers'"),
    ([*SIM, "--seed", "x"], "'--seed'"),
    ([*SIM, "--hard-ms", "nan"], "'--hard-ms': nan"),
    ([*SIM, "--hard-ms", "inf"], "'--hard-ms': inf"),
    ([*SIM, "--hard-ms", "-1"], "'--hard-ms'"),
    ([*SIM, "--hard-ms", "fast"], "'--hard-ms'"),
    ([*SIM, "--bots", "normal,,hard"], "empty entry"),
    ([*SIM, "--bots", ","], "empty entry"),
    ([*SIM, "--bots", "normal,wizard"], "unknown strength(s) wizard"),
    ([*SIM, "--seats", "3", "--bots", "normal,normal,normal,normal"], "4 bots for 3 seats"),
    ([*SIM, "--plot", "/proc/nope/x.png"], "cannot write /proc/nope/x.png"),
    ([*SIM, "--plot", "{tmp}/x.jpgx"], "known format"),
    ([*SIM, "--plot", "{tmp}/x"], "known format"),
    ([*SIM, "--plot", "{tmp}/"], "known format"),
    ([*SIM, "--json", "{tmp}"], "is a directory"),
    ([*SIM, "--json", "/proc/nope/x.json"], "cannot write /proc/nope/x.json"),
    ([*SIM, "--field", "opolyx.sim.field"], "--field is for a league"),
    ([*SIM, "--challengers", "normal"], "--challengers is for a league"),
    ([*SIM, "--no-such-option"], "no such option"),
    # simulate --league
    ([*LEAGUE, "--bots", "normal,zebra"], "unknown entrant 'zebra'"),
    ([*LEAGUE, "--bots", "normal"], "two entrants"),
    ([*LEAGUE, "--bots", "normal,,easy"], "empty entry"),
    ([*LEAGUE, "--bots", "normal,easy", "--challengers", "normal,"], "empty entry"),
    ([*LEAGUE, "--bots", "normal,easy", "--field", "no_such_field_module"], "no module named"),
    ([*LEAGUE, "--bots", "normal,easy", "--field", "json"], "no STRATEGIES"),
    ([*LEAGUE, "--bots", "normal,easy", "--seats", "0"], "played by"),
    ([*LEAGUE, "--bots", "normal,easy", "--plot", "{tmp}/league.jpgx"], "known format"),
    ([*LEAGUE, "--bots", "normal,easy", "--hard-ms", "nan"], "'--hard-ms'"),
    # story
    (["story", "--mode", "chess"], "unknown mode"),
    (["story", "--seats", "0"], "played by 2–6 seats"),
    (["story", "--mode", "team", "--seats", "5"], "team is played by"),
    (["story", "--seats", "many"], "'--seats'"),
    (["story", "--seed", "x"], "'--seed'"),
    (["story", "--lang", "xx"], "unknown language 'xx'"),
    (["story", "--strength", "normal,,hard"], "empty entry"),
    (["story", "--strength", "wizard"], "unknown strength(s) wizard"),
    (["story", "--seats", "4", "--strength", "easy,easy,easy,easy,hard"], "5 strengths for 4 seats"),
    # verify
    (["verify"], "missing argument"),
    (["verify", "{tmp}/none.json"], "cannot read"),
    (["verify", "{tmp}"], "cannot read"),
    (["verify", "{file}"], "cannot read"),
    (["verify", "{tmp}/list.json"], "not a replay"),
    (["verify", "{tmp}/page.json"], "one page of a replay"),
    (["verify", "{tmp}/list.json", "--nope"], "no such option"),
    # serve and play: ports, counts, database addresses
    (["serve", "--port", "99999"], "'--port'"),
    (["serve", "--port", "-1"], "'--port'"),
    (["serve", "--port", "http"], "'--port'"),
    (["serve", "--workers", "0"], "'--workers'"),
    (["serve", "--database", "garbage"], "does not parse"),
    (["serve", "--database", "mysql+aiomysql://u@h/db"], "unsupported database"),
    (["play", "--port", "99999"], "'--port'"),
    (["play", "--port", "-1"], "'--port'"),
    (["play", "--port", "http"], "'--port'"),
    # mcp: the server's address, the guest's language
    (["mcp", "--server", "nope"], "not an address"),
    (["mcp", "--server", "ftp://example.org"], "not an address"),
    (["mcp", "--server", "http://"], "not an address"),
    (["mcp", "--server", "http://127.0.0.1:port"], "not an address"),
    (["mcp", "--server", "http://127.0.0.1:1", "--language", "xx"], "unknown language 'xx'"),
]


def _fill(args: list[str], tmp: Path) -> list[str]:
    return [a.replace("{tmp}", str(tmp)).replace("{file}", str(tmp / "junk.json")) for a in args]


@pytest.mark.parametrize(("args", "says"), BAD_INPUT, ids=[" ".join(a) for a, _ in BAD_INPUT])
def test_bad_input_is_one_line_and_exit_2(args: list[str], says: str, tmp_path: Path) -> None:
    (tmp_path / "junk.json").write_text("{", encoding="utf-8")
    (tmp_path / "list.json").write_text("[]", encoding="utf-8")
    (tmp_path / "page.json").write_text(json.dumps({"actions": [], "start": 5}), encoding="utf-8")
    before = sorted(tmp_path.iterdir())
    result = runner.invoke(app, _fill(args, tmp_path), env=NO_SETTINGS)
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), result.exception  # no traceback
    assert result.stdout == "", result.stdout  # nothing was played or printed first
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    command = "opolyx" if args[0] == "nope" else f"opolyx {args[0]}"
    assert lines[0].startswith(f"{command}: "), lines[0]
    assert says.lower() in lines[0].lower(), lines[0]
    assert sorted(tmp_path.iterdir()) == before  # no output file was left behind


def _python_m_opolyx(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPOLYX_")}
    env["PYTHONPATH"] = str(SRC)
    return subprocess.run([sys.executable, "-m", "opolyx", *args], capture_output=True, text=True, timeout=300,
                          env=env, cwd=cwd)


def test_python_m_opolyx_is_the_opolyx_command(tmp_path: Path) -> None:
    shown = _python_m_opolyx("--help")
    assert shown.returncode == 0, shown.stderr
    assert "Usage: opolyx " in shown.stdout
    for command in ("serve", "simulate", "story", "mcp", "verify", "play"):
        assert command in shown.stdout
    # A real process: the same one line, no traceback.
    refused = _python_m_opolyx("simulate", "--plot", str(tmp_path / "x.jpgx"))
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.count("\n") == 1 and refused.stderr.startswith("opolyx simulate: ")


def test_serve_help_names_each_options_environment_variable() -> None:
    result = runner.invoke(app, ["serve", "--help"], env={**NO_SETTINGS, "COLUMNS": "250"}, terminal_width=250)
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    for option, variable in (("--host", "OPOLYX_HOST"), ("--port", "OPOLYX_PORT"),
                             ("--database", "OPOLYX_DATABASE_URL"), ("--data-dir", "OPOLYX_DATA_DIR"),
                             ("--workers", "OPOLYX_WORKERS")):
        assert option in text
        assert f"env var: {variable}" in text, variable
    assert "listen on ." not in text and "directory ." not in text  # no sentence lost its variable


def test_a_league_with_the_packaged_field_runs_from_any_directory(tmp_path: Path) -> None:
    """The field ships in the package: a league runs outside the repository, by its packaged name and by
    the name the field had while it lived under benchmarks/."""
    for field in ("opolyx.sim.field", "benchmarks.field"):
        done = _python_m_opolyx("simulate", "--league", "--mode", "blitz", "--field", field, "--bots",
                                "normal,builder", "--challengers", "normal", "--games", "1", "--no-progress",
                                cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert "normal         vs builder" in done.stdout
    shown = runner.invoke(app, ["simulate", "--help"], terminal_width=250)
    assert "minutes" in " ".join(shown.stdout.split())  # how long a league takes
