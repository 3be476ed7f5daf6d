"""Compile the rules engine and the bots with mypyc, in place, or remove the compiled modules again.

The compiled modules (``*.so`` next to the ``.py`` files under ``src/opolyx``) are found first by
Python's import system, so everything — ``opolyx simulate``, the server, the bots — runs compiled without
any other change. Without a C compiler nothing is built and opolyx stays pure Python, which is also the
default: the same sources are the one truth for the rules either way.

    .venv/bin/python scripts/compile_build.py            # build in place (run scripts/compile instead)
    .venv/bin/python scripts/compile_build.py --clean    # back to pure Python
    .venv/bin/python scripts/compile_build.py --src DIR  # build a copy of src/ held in DIR (for tests)
    .venv/bin/python scripts/compile_build.py --no-pgo   # one compile, without the profile-guided second

With gcc the build is profile-guided: the C is compiled once with counters, a training workload (bot games of
every mode through the simulator, random legal play through the public API and the coded fast path) runs on
it, and the C is compiled again with what the counters saw, so gcc lays out the hot paths for the branches
actually taken. The second compile and the training take as long again as the first (two to four minutes
in all on a 2-core machine), and save about 5 % of a simulated player-turn; a build that cannot be trained
(or another compiler) is compiled once, as with ``--no-pgo``.

Edit an engine or bot module after building and the stale compiled one still wins: build again or clean.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import sysconfig
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: What gets compiled, relative to ``src``: the rules engine (a directory: every module in it but those of
#: :data:`INTERPRETED`), the classes of the rule tables it reads on every step (``Square``, ``Board``,
#: ``Rules``: native attribute reads instead of slot descriptors), every bot with the tables they share, and
#: the simulator's per-event counters (``opolyx simulate`` reads every event).
MODULES = (
    "opolyx/engine",
    "opolyx/rules/model.py",
    "opolyx/bots/heuristics.py",
    "opolyx/bots/base.py",
    "opolyx/bots/easy.py",
    "opolyx/bots/normal.py",
    "opolyx/bots/hard.py",
    "opolyx/bots/loop.py",
    "opolyx/bots/strengths.py",
    "opolyx/sim/stats.py",
)


#: Modules under a compiled directory that stay interpreted: the engine's vocabulary holds only types, whose
#: field annotations the server reads at run time (a compiled ``TypedDict`` keeps only the bare classes).
INTERPRETED = ("opolyx/engine/vocabulary.py",)


def module_paths(src: Path) -> list[str]:
    """:data:`MODULES` with each directory spelled out as its modules, less :data:`INTERPRETED`."""
    out: list[str] = []
    for entry in MODULES:
        path = src / entry
        if path.is_dir():
            out += sorted(p.relative_to(src).as_posix() for p in path.glob("*.py"))
        else:
            out.append(entry)
    return [m for m in out if m not in INTERPRETED]


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


@cache
def _banner() -> str:
    """What the C compiler says of its version ('' without one): it tells gcc from clang. Asked once per run,
    though a build asks both :func:`is_gnu_like` and :func:`is_gcc`."""
    cc = compiler()
    if cc is None:
        return ""
    return subprocess.run([cc, "--version"], capture_output=True, text=True, check=False).stdout


def is_gcc() -> bool:
    """Whether the compiler is gcc, whose profile flags (``-fprofile-generate``/``-use``) the build uses."""
    out = _banner()
    return "Free Software Foundation" in out and "clang" not in out


#: Calls inside the compiled library go straight to their function, not through the procedure linkage table
#: as a shared library's calls to its own global functions otherwise must (another library could interpose
#: one), so gcc may also inline them; calls into libpython read their address from the global offset table
#: directly: 3.4 % fewer instructions per simulated player-turn compiled once, 5.8 % profile-guided (callgrind).
DIRECT_CALLS = "-fno-semantic-interposition -fno-plt"


def is_gnu_like() -> bool:
    """Whether the compiler takes gcc's options (gcc or clang), as :data:`DIRECT_CALLS` needs."""
    out = _banner()
    return "Free Software Foundation" in out or "clang" in out


def mypyc(src: Path, flags: str = "") -> subprocess.CompletedProcess[str]:
    """One mypyc run over :data:`MODULES`, with ``flags`` added to the C compiler's and the linker's."""
    # mypyc writes its C sources under ./build and copies each extension next to its module. setuptools
    # reads CFLAGS and LDFLAGS from the environment and appends them to its own.
    env = {**os.environ}
    if flags:
        env["CFLAGS"] = f"{env.get('CFLAGS', '')} {flags}".strip()
        env["LDFLAGS"] = f"{env.get('LDFLAGS', '')} {flags}".strip()
    cmd = [sys.executable, "-m", "mypyc", *module_paths(src)]
    return subprocess.run(cmd, cwd=src, capture_output=True, text=True, check=False, env=env)


def train(src: Path) -> bool:
    """Run the training workload on the build in ``src`` (in a child process, which writes the counters)."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    result = subprocess.run([sys.executable, __file__, "--train-child"], capture_output=True, text=True,
                            check=False, env=env)
    if result.returncode != 0:
        print(result.stderr[-2000:], file=sys.stderr)
    return result.returncode == 0


def training_workload() -> None:
    """What the profile is taken on: the simulator's bot games in every mode, every strength playing, and
    random legal play through ``legal_actions``/``apply`` and ``legal_codes``/``apply_code``."""
    import random

    import opolyx
    from opolyx.engine import game, kinds
    from opolyx.rules import model
    from opolyx.sim.runner import SimConfig, run_one

    assert game.__file__.endswith((".so", ".pyd")), "the training must run the compiled build"
    for mode in model.mode_names():
        seats = 4
        for bots in (("normal",) * seats, ("easy", "normal", "normal", "easy"), ("hard", "normal", "easy", "normal")):
            config = SimConfig(mode, seats, bots, games=3 if "hard" not in bots else 1, seed=7, hard_ms=5.0)
            for index in range(config.games):
                run_one(config, index)
        for seed in range(2):
            rng = random.Random(seed)
            g = opolyx.new_game(mode, seats, seed)
            steps = 0
            while not g.is_over and steps < 3000:
                seat = g.actor()
                assert seat is not None
                if steps % 2:
                    legal = [a for a in g.legal_actions(seat) if a["type"] not in ("propose_trade", "resign")]
                    g.apply(seat, rng.choice(legal))
                else:
                    coded = [c for c in g.legal_codes(seat) if c != kinds.RESIGN]
                    g.apply_code(seat, rng.choice(coded))
                steps += 1
            g.snapshot()
            g.copy()


def build(src: Path, *, pgo: bool = True) -> int:
    if compiler() is None:
        print("no C compiler found: opolyx stays pure Python (install gcc or clang to compile it)")
        return 0
    clean(src)
    profile = src / "build-profile"
    shutil.rmtree(profile, ignore_errors=True)
    guided = False
    direct = DIRECT_CALLS if is_gnu_like() else ""
    if pgo and is_gcc():
        # The counters' files are named after each object file's path, the same in the second compile.
        first = mypyc(src, f"{direct} -fprofile-generate -fprofile-update=single -fprofile-dir={profile}")
        guided = first.returncode == 0 and train(src)
        if not guided:
            print("the profiling build could not be trained: compiling once, without a profile", file=sys.stderr)
        clean(src)
    flags = f"-fprofile-use -fprofile-correction -Wno-missing-profile -fprofile-dir={profile}" if guided else ""
    result = mypyc(src, f"{direct} {flags}".strip())
    shutil.rmtree(src / "build", ignore_errors=True)
    shutil.rmtree(profile, ignore_errors=True)
    if result.returncode != 0:
        print(result.stdout[-4000:], result.stderr[-4000:], sep="\n", file=sys.stderr)
        clean(src)
        print("compiling failed: nothing compiled is left behind, opolyx stays pure Python", file=sys.stderr)
        return result.returncode
    how = "profile-guided" if guided else "without a profile"
    print(f"compiled {len(compiled_files(src))} extension modules under {src / 'opolyx'} ({how})")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clean", action="store_true", help="remove the compiled modules")
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the source tree to build in place")
    parser.add_argument("--no-pgo", action="store_true", help="compile once, without the profile-guided pass")
    parser.add_argument("--train-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.train_child:
        training_workload()
        return 0
    if args.clean:
        clean(args.src)
        print("compiled modules removed: opolyx runs as pure Python")
        return 0
    return build(args.src, pgo=not args.no_pgo)


if __name__ == "__main__":
    sys.exit(main())
