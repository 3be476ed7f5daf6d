"""Compile the rules engine and the bots with mypyc, in place, or remove the compiled modules again.

The compiled modules (``*.so`` next to the ``.py`` files under ``src/opolyx``) are found first by
Python's import system, so everything — ``opolyx simulate``, the server, the bots — runs compiled without
any other change. Without a C compiler nothing is built and opolyx stays pure Python, which is also the
default: the same sources are the one truth for the rules either way.

    .venv/bin/python scripts/compile_build.py            # build in place (run scripts/compile instead)
    .venv/bin/python scripts/compile_build.py --clean    # back to pure Python
    .venv/bin/python scripts/compile_build.py --src DIR  # build a copy of src/ held in DIR (for tests)

Edit an engine or bot module after building and the stale compiled one still wins: build again or clean.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: What gets compiled, relative to ``src``: the rules engine, the classes of the rule tables it reads on every
#: step (``Square``, ``Board``, ``Rules``: native attribute reads instead of slot descriptors), every bot
#: with the tables they share, and the simulator's per-event counters (``opolyx simulate`` reads every event).
MODULES = (
    "opolyx/engine",
    "opolyx/rules/model.py",
    "opolyx/bots/heuristics.py",
    "opolyx/bots/base.py",
    "opolyx/bots/easy.py",
    "opolyx/bots/normal.py",
    "opolyx/bots/hard.py",
    "opolyx/bots/loop.py",
    "opolyx/sim/stats.py",
)


def compiler() -> str | None:
    """The C compiler Python's extensions are built with, if this machine has it."""
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(cc)


def compiled_files(src: Path) -> list[Path]:
    return sorted([*src.glob("*.so"), *src.glob("*.pyd"), *(src / "opolyx").rglob("*.so"),
                   *(src / "opolyx").rglob("*.pyd")])


def clean(src: Path) -> None:
    for path in compiled_files(src):
        path.unlink()
    shutil.rmtree(src / "build", ignore_errors=True)


def build(src: Path) -> int:
    if compiler() is None:
        print("no C compiler found: opolyx stays pure Python (install gcc or clang to compile it)")
        return 0
    clean(src)
    # mypyc writes its C sources under ./build and copies each extension next to its module.
    cmd = [sys.executable, "-m", "mypyc", *MODULES]
    result = subprocess.run(cmd, cwd=src, capture_output=True, text=True, check=False)
    shutil.rmtree(src / "build", ignore_errors=True)
    if result.returncode != 0:
        print(result.stdout[-4000:], result.stderr[-4000:], sep="\n", file=sys.stderr)
        clean(src)
        print("compiling failed: nothing compiled is left behind, opolyx stays pure Python", file=sys.stderr)
        return result.returncode
    print(f"compiled {len(compiled_files(src))} extension modules under {src / 'opolyx'}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clean", action="store_true", help="remove the compiled modules")
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the source tree to build in place")
    args = parser.parse_args()
    if args.clean:
        clean(args.src)
        print("compiled modules removed: opolyx runs as pure Python")
        return 0
    return build(args.src)


if __name__ == "__main__":
    sys.exit(main())
