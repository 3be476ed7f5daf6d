"""Worker processes of ``opolyx simulate --workers N`` start from the simulator alone: they must not re-run
the program that started them (for the ``opolyx`` command that would load the whole server in each)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

MAIN = textwrap.dedent(
    """
    import sys
    from pathlib import Path

    if __name__ != "__main__":  # a worker re-running this program
        (Path(__file__).parent / "rerun-by-worker").write_text("x")

    if __name__ == "__main__":
        from opolyx.sim import SimConfig, simulate

        config = SimConfig(mode="classic", seats=2, bots=("easy", "easy"), games=4, seed=3)
        one, two = simulate(config, workers=1), simulate(config, workers=2)
        one.pop("performance"), two.pop("performance")
        sys.exit(0 if one == two else 3)
    """
)


def test_workers_do_not_rerun_the_main_program(tmp_path: Path) -> None:
    program = tmp_path / "program.py"
    program.write_text(MAIN, encoding="utf-8")
    done = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert not (tmp_path / "rerun-by-worker").exists()
