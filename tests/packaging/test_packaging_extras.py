"""The engine, the bots and the simulator run on the core packages alone; the rest are extras.

Each probe runs in a fresh interpreter in which the extras' packages cannot be imported (as if they were
not installed), then checks that none of them was loaded.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from opolyx.cli import EXTRAS

ROOT = Path(__file__).resolve().parents[2]


def normal(name: str) -> str:
    """A distribution's name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


def core_modules() -> set[str]:
    """The top-level modules of the core dependencies and of everything they require, as installed here."""
    from importlib.metadata import PackageNotFoundError, packages_distributions, requires

    from packaging.requirements import Requirement

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    todo = [Requirement(r).name for r in project["dependencies"]]
    seen: set[str] = set()
    while todo:
        dist = normal(todo.pop())
        if dist in seen:
            continue
        seen.add(dist)
        try:
            wanted = requires(dist) or []
        except PackageNotFoundError:
            continue
        for text in wanted:
            req = Requirement(text)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return {m for m, dists in packages_distributions().items() if any(normal(d) in seen for d in dists)}

# Packages an engine, bot or simulator user should never load.
HEAVY = ("fastapi", "starlette", "sqlalchemy", "uvicorn", "redis", "mcp", "matplotlib", "httpx", "websockets",
         "orjson", "alembic", "prometheus_client", "opolyx.server.app", "opolyx.storage", "opolyx.client",
         "opolyx.mcp.tools")

# Makes every extra's module unfindable (but those a core package requires too: typer requires pydantic),
# runs the code, then prints the heavy modules that were loaded.
PRELUDE = f"""
import atexit, sys
BLOCKED = {sorted({m for modules in EXTRAS.values() for m in modules} - core_modules())!r}
HEAVY = {HEAVY!r}

import importlib.machinery
path_find_spec = importlib.machinery.PathFinder.find_spec

def find_spec(cls, name, path=None, target=None):
    # What an uninstalled package looks like: no finder on sys.path finds it.
    if name.partition(".")[0] in BLOCKED:
        return None
    return path_find_spec(name, path, target)

importlib.machinery.PathFinder.find_spec = classmethod(find_spec)

@atexit.register
def loaded():
    heavy = sorted(m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in HEAVY))
    print("LOADED:" + ",".join(heavy), file=sys.stderr)
    tops = set(m.partition(".")[0] for m in list(sys.modules))
    others = sorted(t for t in tops if t not in sys.stdlib_module_names and not t.startswith("_") and t != "opolyx")
    print("THIRD:" + ",".join(others), file=sys.stderr)
"""


def run_without_extras(code: str, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PRELUDE + code, *argv], capture_output=True, text=True, timeout=300, cwd=ROOT
    )


def loaded_heavy(done: subprocess.CompletedProcess[str]) -> str:
    """The heavy modules the run loaded; asserts on the way that every other package it loaded is core."""
    found = re.search(r"^LOADED:(.*)$", done.stderr, re.MULTILINE)
    third = re.search(r"^THIRD:(.*)$", done.stderr, re.MULTILINE)
    assert found is not None and third is not None, done.stderr
    assert set(filter(None, third.group(1).split(","))) - core_modules() == set()
    return found.group(1)


def test_the_library_imports_without_the_extras() -> None:
    done = run_without_extras(
        "import opolyx, opolyx.engine, opolyx.bots, opolyx.sim, opolyx.sim.league, opolyx.rules, opolyx.i18n\n"
        "import opolyx.progression, opolyx.story, opolyx.verify_cli, opolyx.cli\n"
        "game = opolyx.new_game('classic', 2, seed=1)\n"
    )
    assert done.returncode == 0, done.stderr
    assert loaded_heavy(done) == ""


def test_simulate_runs_without_the_extras() -> None:
    done = run_without_extras(
        "from opolyx.cli import app\napp()\n", "simulate", "--games", "2", "--no-progress", "--mode", "blitz"
    )
    assert done.returncode == 0, done.stderr
    assert "games" in done.stdout
    assert loaded_heavy(done) == ""


def test_a_league_runs_without_the_extras() -> None:
    done = run_without_extras(
        "from opolyx.cli import app\napp()\n",
        "simulate", "--league", "--bots", "easy,normal", "--seats", "2", "--games", "2", "--no-progress",
    )
    assert done.returncode == 0, done.stderr
    assert loaded_heavy(done) == ""


@pytest.mark.parametrize(
    ("argv", "extra"),
    [
        (["serve", "--port", "0"], "server"),
        (["play", "--port", "0"], "server"),
        (["mcp", "--server", "http://127.0.0.1:9"], "agents"),
        (["simulate", "--games", "1", "--no-progress", "--plot", "PLOT"], "plots"),
    ],
)
def test_a_command_says_which_extra_it_needs(argv: list[str], extra: str, tmp_path: Path) -> None:
    argv = [str(tmp_path / "plot.png") if a == "PLOT" else a for a in argv]
    done = run_without_extras("from opolyx.cli import app\napp()\n", *argv)
    assert done.returncode == 1
    told = [line for line in done.stderr.splitlines() if not line.startswith(("LOADED:", "THIRD:"))]
    assert len(told) == 1, done.stderr
    assert f"pip install 'opolyx[{extra}]'" in told[0]
    assert "Traceback" not in done.stderr
    assert done.stdout == ""  # told before anything ran: no games played, no server started


def names(requirements: list[str]) -> set[str]:
    """Distribution names, normalised (PEP 503), of requirement strings."""
    return {re.sub(r"[-_.]+", "-", re.split(r"[\s\[<>=!~;]", r, maxsplit=1)[0]).lower() for r in requirements}


def pinned(lock: str) -> set[str]:
    text = (ROOT / lock).read_text(encoding="utf-8")
    return {re.sub(r"[-_.]+", "-", m).lower() for m in re.findall(r"^([A-Za-z0-9_.-]+)==", text, re.MULTILINE)}


def test_the_lock_files_pin_every_dependency_of_every_extra() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras: dict[str, list[str]] = project["optional-dependencies"]
    runtime = names(project["dependencies"]) | names([r for k, v in extras.items() if k != "dev" for r in v])
    runtime.discard("opolyx")  # ``all`` names the other extras
    assert runtime - pinned("requirements.lock") == set()
    assert (runtime | names(extras["dev"])) - pinned("requirements-dev.lock") == set()
    assert set(extras) == {"server", "agents", "plots", "all", "dev"}
    assert set(EXTRAS) == {"server", "agents", "plots"}


def test_the_command_knows_every_package_of_the_extras() -> None:
    """Each package an extra brings provides a module the command names when it is missing."""
    from importlib.metadata import packages_distributions

    provided: dict[str, set[str]] = {}
    for module, dists in packages_distributions().items():
        for dist in dists:
            provided.setdefault(normal(dist), set()).add(module)
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    told = {m for modules in EXTRAS.values() for m in modules}
    for extra in EXTRAS:
        for dist in names(extras[extra]):
            assert provided.get(dist, set()) & told, f"{dist} of the {extra} extra: no module of it in cli.EXTRAS"
