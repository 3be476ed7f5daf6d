"""Which build of the engine is running: pure Python, or compiled by ``scripts/compile`` (mypyc).

Speed figures depend on it, so the simulator and the benchmarks print it next to them."""

from __future__ import annotations

from opolyx.engine import game


def is_compiled() -> bool:
    """True when the engine's modules were loaded from compiled extensions rather than ``.py`` files."""
    return not str(game.__file__).endswith(".py")


def build_name() -> str:
    return "compiled (mypyc)" if is_compiled() else "pure Python"
