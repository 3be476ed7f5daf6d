"""The layout of the code: who imports whom, the circles, the arrows that run up, the largest rooms.

Prints, for the Python package ``src/opolyx`` (module granularity):
  (a) the import graph: every module and the opolyx modules it imports, each arrow marked ``module``
      (at import time), ``function`` (inside a function: imported when called) or ``typing`` (under
      ``if TYPE_CHECKING:``, never at run time);
  (b) the circles (strongly connected components), of the import-time arrows and of all arrows, and
      every arrow that runs up the layer order declared in ``LAYERS`` below;
  (c) the ten largest files and the ten largest functions (lines);
and (d) the same for the browser client's ES modules in ``src/opolyx/web/js``: their imports (``static``
or ``dynamic``, ``import()``), circles and largest files.

    .venv/bin/python benchmarks/layout.py [--root .] [--top 10]

Standard library only (``ast``, regular expressions for the JavaScript), so it runs on any tree.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

# The layers, lowest first: a module may import its own layer and the layers below, never above.
# A pattern is a dotted module name, matching that module (or package ``__init__``) only, or a name
# ending in ``.*``, matching every module under it; the longest pattern that matches wins. Modules no
# pattern matches are listed as unplaced. Adjust freely: this table is the whole policy.
LAYERS: list[tuple[str, list[str]]] = [
    ("rules data", ["opolyx.jsontypes", "opolyx.rules", "opolyx.rules.*", "opolyx.fairness"]),
    (
        "engine kernel",
        [
            "opolyx.engine.vocabulary",
            "opolyx.engine.state",
            "opolyx.engine.kernel",
            "opolyx.engine.errors",
            "opolyx.engine.kinds",
            "opolyx.engine.actions",
        ],
    ),
    ("engine rules", ["opolyx.engine.*"]),
    ("engine turn flow", ["opolyx.engine.turns", "opolyx.engine.game"]),
    ("engine api", ["opolyx.engine", "opolyx.engine.compiled"]),
    ("texts", ["opolyx.i18n", "opolyx.i18n.*"]),
    ("package api", ["opolyx"]),
    ("bots", ["opolyx.bots", "opolyx.bots.*"]),
    ("simulator", ["opolyx.usage", "opolyx.sim", "opolyx.sim.*", "opolyx.story", "opolyx.verify_cli"]),
    ("progression", ["opolyx.progression", "opolyx.progression.*"]),
    ("storage", ["opolyx.storage", "opolyx.storage.*"]),
    ("protocol", ["opolyx.protocol", "opolyx.protocol.*"]),
    ("client", ["opolyx.client", "opolyx.client.*"]),
    ("agents", ["opolyx.mcp", "opolyx.mcp.*"]),
    ("server", ["opolyx.server", "opolyx.server.*"]),
    ("front door", ["opolyx.cli", "opolyx.__main__", "opolyx.server.__main__"]),
]

PACKAGE = "opolyx"


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    kind: str  # "module", "function" or "typing" (Python); "static" or "dynamic" (JavaScript)


@dataclass
class Graph:
    """Modules (name -> file), the arrows between them, and the files that did not parse."""

    modules: dict[str, Path] = field(default_factory=dict)
    edges: set[Edge] = field(default_factory=set)
    errors: dict[str, str] = field(default_factory=dict)

    def arrows(self, kinds: Iterable[str]) -> dict[str, set[str]]:
        wanted = set(kinds)
        out: dict[str, set[str]] = {m: set() for m in self.modules}
        for e in self.edges:
            if e.kind in wanted and e.source != e.target:
                out[e.source].add(e.target)
        return out


# ---------------------------------------------------------------- Python


def module_name(path: Path, src: Path) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.Module) -> Iterable[tuple[ast.Import | ast.ImportFrom, str]]:
    """Every import statement of a module, with where it sits: module, function or typing."""

    def visit(node: ast.AST, kind: str) -> Iterable[tuple[ast.Import | ast.ImportFrom, str]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                yield child, kind
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                yield from visit(child, "typing" if kind == "typing" else "function")
            elif isinstance(child, ast.If) and _is_type_checking(child.test):
                for stmt in child.body:
                    yield from visit(ast.Module(body=[stmt], type_ignores=[]), "typing")
                for stmt in child.orelse:
                    yield from visit(ast.Module(body=[stmt], type_ignores=[]), kind)
            else:
                yield from visit(child, kind)

    yield from visit(tree, "module")


def _resolve(stmt: ast.Import | ast.ImportFrom, here: str, is_package: bool, known: set[str]) -> list[str]:
    """The opolyx modules an import statement loads (a name imported from a package may be a module)."""

    def nearest(name: str) -> str | None:
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    found: list[str] = []
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            if alias.name == PACKAGE or alias.name.startswith(PACKAGE + "."):
                target = nearest(alias.name)
                if target:
                    found.append(target)
        return found
    if stmt.level:
        base = here if is_package else here.rpartition(".")[0]
        for _ in range(stmt.level - 1):
            base = base.rpartition(".")[0]
        origin = f"{base}.{stmt.module}" if stmt.module else base
    else:
        origin = stmt.module or ""
    if not (origin == PACKAGE or origin.startswith(PACKAGE + ".")):
        return found
    for alias in stmt.names:
        if f"{origin}.{alias.name}" in known:
            found.append(f"{origin}.{alias.name}")
        else:
            target = nearest(origin)
            if target:
                found.append(target)
    return found


def python_graph(src: Path) -> Graph:
    """The import graph of the ``opolyx`` package under ``src`` (the directory holding ``opolyx/``)."""
    graph = Graph()
    for path in sorted((src / PACKAGE).rglob("*.py")):
        graph.modules[module_name(path, src)] = path
    known = set(graph.modules)
    for name, path in graph.modules.items():
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        except (SyntaxError, UnicodeDecodeError) as exc:
            graph.errors[name] = str(exc)
            continue
        for stmt, kind in _imports(tree):
            for target in _resolve(stmt, name, path.name == "__init__.py", known):
                graph.edges.add(Edge(name, target, kind))
    # The same arrow both at import time and in a function counts once, as the stronger.
    strength = {"module": 0, "function": 1, "typing": 2}
    best: dict[tuple[str, str], Edge] = {}
    for e in graph.edges:
        key = (e.source, e.target)
        if key not in best or strength[e.kind] < strength[best[key].kind]:
            best[key] = e
    graph.edges = set(best.values())
    return graph


def largest_functions(src: Path, top: int) -> list[tuple[int, str]]:
    sizes: list[tuple[int, str]] = []
    for path in sorted((src / PACKAGE).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = module_name(path, src)

        def walk(node: ast.AST, prefix: str) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    qualname = f"{prefix}.{child.name}"
                    if not isinstance(child, ast.ClassDef):
                        sizes.append(((child.end_lineno or child.lineno) - child.lineno + 1, qualname))
                    walk(child, qualname)
                else:
                    walk(child, prefix)

        walk(tree, module)
    return sorted(sizes, key=lambda s: (-s[0], s[1]))[:top]


# ---------------------------------------------------------------- JavaScript

_JS_STATIC = re.compile(r"""^\s*(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]""",
                        re.MULTILINE)
_JS_DYNAMIC = re.compile(r"""\bimport\(\s*['"]([^'"]+)['"]\s*\)""")


def js_graph(root: Path) -> Graph:
    """The ES module imports between the files under ``root`` (names relative to it)."""
    graph = Graph()
    for path in sorted(root.rglob("*.js")):
        if "vendor" in path.relative_to(root).parts:
            continue
        graph.modules[path.relative_to(root).as_posix()] = path
    for name, path in graph.modules.items():
        text = path.read_text(encoding="utf-8")
        # Strip comments so an example in a comment is not an import.
        text = re.sub(r"/\*.*?\*/", "", text, flags=re.DOTALL)
        text = re.sub(r"^\s*//.*$", "", text, flags=re.MULTILINE)
        found = [(m.group(1) or m.group(2), "static") for m in _JS_STATIC.finditer(text)]
        found += [(m.group(1), "dynamic") for m in _JS_DYNAMIC.finditer(text)]
        for spec, kind in found:
            if not spec.startswith("."):
                continue
            target = (path.parent / spec).resolve()
            try:
                rel = target.relative_to(root.resolve()).as_posix()
            except ValueError:
                continue
            if rel in graph.modules:
                graph.edges.add(Edge(name, rel, kind))
            else:
                graph.errors[name] = f"imports {spec}, which is not a module here"
    return graph


# ---------------------------------------------------------------- analysis


def circles(arrows: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), largest first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def connect(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(arrows.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(arrows) + 100))
    try:
        for v in sorted(arrows):
            if v not in index:
                connect(v)
    finally:
        sys.setrecursionlimit(limit)
    return sorted(found, key=lambda c: (-len(c), c))


def layer_of(module: str, layers: list[tuple[str, list[str]]] = LAYERS) -> int | None:
    """The position in ``layers`` of the longest pattern matching ``module``, or None."""
    best: tuple[int, int] | None = None  # (pattern length, layer)
    for position, (_, patterns) in enumerate(layers):
        for pattern in patterns:
            hit = module.startswith(pattern[:-1]) if pattern.endswith(".*") else module == pattern
            if hit and (best is None or len(pattern) > best[0]):
                best = (len(pattern), position)
    return None if best is None else best[1]


def upward(graph: Graph, layers: list[tuple[str, list[str]]] = LAYERS) -> list[tuple[Edge, str, str]]:
    """Every arrow from a lower layer to a higher one, with both layers' names."""
    found = []
    for e in sorted(graph.edges, key=lambda e: (e.source, e.target)):
        low, high = layer_of(e.source, layers), layer_of(e.target, layers)
        if low is not None and high is not None and high > low:
            found.append((e, layers[low][0], layers[high][0]))
    return found


def lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


# ---------------------------------------------------------------- report


def report(root: Path, top: int) -> str:
    src = root / "src"
    out: list[str] = []
    say = out.append
    graph = python_graph(src)
    by_source: dict[str, list[Edge]] = {}
    for e in graph.edges:
        by_source.setdefault(e.source, []).append(e)
    counts = {k: sum(1 for e in graph.edges if e.kind == k) for k in ("module", "function", "typing")}

    say(f"# Python: {len(graph.modules)} modules under src/{PACKAGE}, {len(graph.edges)} arrows "
        f"({counts['module']} at import time, {counts['function']} inside functions, {counts['typing']} typing only)")
    for name, error in sorted(graph.errors.items()):
        say(f"  DID NOT PARSE {name}: {error}")
    say("")
    say("## (a) import graph  (module = at import time, function = inside a function, typing = TYPE_CHECKING)")
    for name in sorted(graph.modules):
        edges = sorted(by_source.get(name, []), key=lambda e: e.target)
        layer = layer_of(name)
        where = LAYERS[layer][0] if layer is not None else "unplaced"
        say(f"{name}  [{where}]  {lines(graph.modules[name])} lines")
        for e in edges:
            say(f"    -> {e.target}" + ("" if e.kind == "module" else f"  ({e.kind})"))
    say("")
    say("## (b) circles")
    for title, kinds in (("import-time arrows", ("module",)),
                         ("import-time and function arrows", ("module", "function")),
                         ("all arrows, typing included", ("module", "function", "typing"))):
        found = circles(graph.arrows(kinds))
        say(f"### {len(found)} circle(s) of {title}")
        for component in found:
            say(f"  {len(component)} modules: " + ", ".join(component))
    say("")
    say("## (b) arrows running up the layers (lowest first: " + " < ".join(n for n, _ in LAYERS) + ")")
    ups = upward(graph)
    say(f"### {len(ups)} upward arrow(s)")
    for e, low, high in ups:
        say(f"  {e.source} [{low}] -> {e.target} [{high}]" + ("" if e.kind == "module" else f"  ({e.kind})"))
    unplaced = sorted(m for m in graph.modules if layer_of(m) is None)
    if unplaced:
        say(f"### {len(unplaced)} module(s) in no layer (add them to LAYERS): " + ", ".join(unplaced))
    say("")
    say(f"## (c) the {top} largest files (lines)")
    for size, name in sorted(((lines(p), n) for n, p in graph.modules.items()), key=lambda s: (-s[0], s[1]))[:top]:
        say(f"  {size:6d}  {graph.modules[name].relative_to(root).as_posix()}")
    say(f"## (c) the {top} largest functions (lines)")
    for size, qualname in largest_functions(src, top):
        say(f"  {size:6d}  {qualname}")
    say("")

    web = src / PACKAGE / "web" / "js"
    js = js_graph(web)
    say(f"# JavaScript: {len(js.modules)} ES modules under {web.relative_to(root).as_posix()}, "
        f"{len(js.edges)} imports ({sum(1 for e in js.edges if e.kind == 'dynamic')} dynamic)")
    for name, error in sorted(js.errors.items()):
        say(f"  UNRESOLVED {name}: {error}")
    say("")
    say("## (d) import graph  (static = import ... from, dynamic = import())")
    js_by_source: dict[str, list[Edge]] = {}
    for e in js.edges:
        js_by_source.setdefault(e.source, []).append(e)
    for name in sorted(js.modules):
        say(f"{name}  {lines(js.modules[name])} lines")
        for e in sorted(js_by_source.get(name, []), key=lambda e: e.target):
            say(f"    -> {e.target}" + ("" if e.kind == "static" else f"  ({e.kind})"))
    say("")
    for title, kinds in (("static imports", ("static",)), ("all imports, dynamic included", ("static", "dynamic"))):
        found = circles(js.arrows(kinds))
        say(f"## (d) {len(found)} circle(s) of {title}")
        for component in found:
            say(f"  {len(component)} modules: " + ", ".join(component))
    say(f"## (d) the {top} largest files (lines)")
    for size, name in sorted(((lines(p), n) for n, p in js.modules.items()), key=lambda s: (-s[0], s[1]))[:top]:
        say(f"  {size:6d}  {name}")
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="The repository to read (default: this one).")
    parser.add_argument("--top", type=int, default=10, help="How many largest files and functions to list.")
    args = parser.parse_args()
    sys.stdout.write(report(args.root.resolve(), args.top))


if __name__ == "__main__":
    main()
