"""The engine's modules import one way: the kernel beneath the rule modules, the turn flow and the facade on
top (docs/engine.md, "Where the rules live"). Every import counts, at module level or inside a function.

``python tests/engine/test_layers.py`` prints the engine's import graph, one line per module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import opolyx.engine

ENGINE_DIR = Path(opolyx.engine.__file__).parent

#: Beneath every rule: the state and its records, events, money, dice, the vocabulary, errors.
KERNEL = frozenset({"errors", "vocabulary", "kinds", "state", "actions", "kernel"})
#: The rule modules, one per docs/rules.md section or shared piece of one. They may import the kernel and each
#: other (without a cycle), never the top.
RULES = frozenset({
    "worth", "rent", "teams", "moving", "fortuna", "holdings", "building", "mortgages", "murabaha", "trades",
    "managing", "jail", "jackpot", "auctions", "speed", "cards", "ending", "paying", "timeouts", "codes",
})
#: The turn flow and the public facade (and which build is running, which asks the facade's module).
TOP = frozenset({"turns", "game", "compiled", "__init__"})


def engine_imports() -> dict[str, set[str]]:
    """Each engine module's imports of other engine modules, wherever in the module they are."""
    graph: dict[str, set[str]] = {}
    for path in sorted(ENGINE_DIR.glob("*.py")):
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module is not None:
                if node.module == "opolyx.engine":
                    deps.update(alias.name for alias in node.names)
                elif node.module.startswith("opolyx.engine."):
                    deps.add(node.module.split(".")[2])
            elif isinstance(node, ast.Import):
                deps.update(a.name.split(".")[2] for a in node.names if a.name.startswith("opolyx.engine."))
        graph[path.stem] = deps - {path.stem}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        stack.append(module)
        for dep in sorted(graph.get(module, ())):
            if state.get(dep) == 1:
                return [*stack[stack.index(dep):], dep]
            if dep not in state and (found := visit(dep)) is not None:
                return found
        stack.pop()
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state and (found := visit(module)) is not None:
            return found
    return None


def test_every_module_has_a_layer() -> None:
    assert set(engine_imports()) == KERNEL | RULES | TOP


def test_no_import_cycle() -> None:
    cycle = _cycle(engine_imports())
    assert cycle is None, " -> ".join(cycle or [])


def test_imports_run_only_downwards() -> None:
    up = []
    for module, deps in engine_imports().items():
        if module in KERNEL:
            up += [f"{module} -> {d}" for d in deps if d not in KERNEL]
        elif module in RULES:
            up += [f"{module} -> {d}" for d in deps if d in TOP]
    assert not up, f"imports running up: {up}"


if __name__ == "__main__":
    for name, deps in sorted(engine_imports().items()):
        layer = "kernel" if name in KERNEL else "rules" if name in RULES else "top"
        print(f"{layer:6} {name:10} -> {', '.join(sorted(deps)) or '-'}")
