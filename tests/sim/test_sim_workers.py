"""Worker processes of ``opolyx simulate --workers N`` start from the simulator alone: they must not re-run
the program that started them (for the ``opolyx`` command that would load the whole server in each), and
however they start (forked on Linux, spawned on macOS and Windows) they play the same games as one process."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from opolyx.sim.runner import pool_start_method

MAIN = textwrap.dedent(
    """
    import sys
    from pathlib import Path

    if __name__ != "__main__":  # a worker re-running this program
        (Path(__file__).parent / "rerun-by-worker").write_text("x")

    if __name__ == "__main__":
        from opolyx.sim import SimConfig
        from opolyx.sim.runner import iter_records

        config = SimConfig(mode="classic", seats=2, bots=("easy", "easy"), games=4, seed=3)
        one = list(iter_records(config, workers=1))
        two = list(iter_records(config, workers=2, start_method=sys.argv[1]))
        sys.exit(0 if one == two else 3)
    """
)


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_workers_play_the_same_games_without_rerunning_the_main_program(tmp_path: Path, method: str) -> None:
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"this platform cannot start processes by {method}")
    program = tmp_path / "program.py"
    program.write_text(MAIN, encoding="utf-8")
    done = subprocess.run([sys.executable, str(program), method], capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert not (tmp_path / "rerun-by-worker").exists()


def test_workers_are_forked_on_linux_and_spawned_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    assert pool_start_method() == ("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    for platform in ("darwin", "win32"):
        monkeypatch.setattr(sys, "platform", platform)
        assert pool_start_method() == "spawn"
