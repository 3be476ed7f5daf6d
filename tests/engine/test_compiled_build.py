"""The optional compiled build (scripts/compile) plays the recorded games exactly like pure Python.

Builds a copy of ``src`` with mypyc in a temporary directory (profile-guided where the compiler is gcc, so the
training workload runs on the first compile too) and runs the golden replays and the fast-path tests against
it, so a change that breaks compiling (or changes behaviour once compiled) fails here, not
on an operator's machine. Skipped where no C compiler is installed; the rest of the suite runs on pure
Python.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
from compile_build import compiler, is_gcc  # noqa: E402


@pytest.mark.slow
@pytest.mark.timeout(1200)
@pytest.mark.skipif(compiler() is None or importlib.util.find_spec("mypyc") is None, reason="no C compiler")
def test_compiled_engine_replays_the_golden_games(tmp_path: Path) -> None:
    src = tmp_path / "src"
    shutil.copytree(ROOT / "src", src, ignore=shutil.ignore_patterns("__pycache__", "*.so", "build"))
    build = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "compile_build.py"), "--src", str(src)],
        capture_output=True, text=True, check=False,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    if is_gcc():  # with gcc the build is profile-guided: its training ran on the first compile, compiled
        assert "(profile-guided)" in build.stdout, build.stdout + build.stderr[-3000:]
    assert not (src / "build-profile").exists()  # the profile's counters are cleaned up with the C sources
    env = {**os.environ, "PYTHONPATH": str(src)}
    probe = ("import opolyx.engine.game as g, opolyx.bots.normal as n, opolyx.rules.model as r; "
             "print(g.__file__, n.__file__, r.__file__)")
    where = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True, text=True, check=True, env=env,
    ).stdout.split()
    assert all(path.startswith(str(src)) and path.endswith(".so") for path in where), where
    tests = subprocess.run(
        # The golden games, and the refusals: a wrong type from a caller must meet the same error code
        # compiled (where typed parameters are checked at the call) as in pure Python.
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/engine/golden",
         "tests/engine/fastpath", "tests/bots/test_bots_legal.py", "tests/engine/scenarios/test_turn_flow.py",
         "tests/engine/modes/test_mode_team.py", "tests/engine/property/test_random_games.py", "-k",
         "golden or fastpath or reproducible or full_games or refused or refuses_layouts or invariants"],
        cwd=ROOT, capture_output=True, text=True, check=False, env=env,
    )
    assert tests.returncode == 0, tests.stdout[-3000:]
