"""benchmarks/layout.py reads the whole tree: every module parses, every import resolves."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The script is loaded from its file: the repository root is not on the test run's path.
_spec = importlib.util.spec_from_file_location("opolyx_layout_script", ROOT / "benchmarks" / "layout.py")
assert _spec is not None and _spec.loader is not None
layout = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = layout
_spec.loader.exec_module(layout)
LAYERS, Edge, circles, js_graph = layout.LAYERS, layout.Edge, layout.circles, layout.js_graph
layer_of, python_graph, report, upward = layout.layer_of, layout.python_graph, layout.report, layout.upward
SRC = ROOT / "src"


def test_the_python_graph_holds_every_module() -> None:
    graph = python_graph(SRC)
    files = sorted((SRC / "opolyx").rglob("*.py"))
    assert len(graph.modules) == len(files)
    assert graph.errors == {}
    assert {"opolyx", "opolyx.engine", "opolyx.cli", "opolyx.server.__main__"} <= set(graph.modules)
    assert all(e.source in graph.modules and e.target in graph.modules for e in graph.edges)
    assert {e.kind for e in graph.edges} <= {"module", "function", "typing"}
    # The front door imports the simulator's command at import time; ``serve`` loads the app inside.
    assert Edge("opolyx.cli", "opolyx.sim.cli", "module") in graph.edges
    assert Edge("opolyx.server.cli", "opolyx.server.http.app", "function") in graph.edges


def test_every_module_has_a_layer() -> None:
    graph = python_graph(SRC)
    assert [m for m in graph.modules if layer_of(m) is None] == []
    assert layer_of("opolyx.engine.state") < layer_of("opolyx.engine.turns") < layer_of("opolyx.server.app")


def test_the_javascript_graph_resolves_every_import() -> None:
    graph = js_graph(SRC / "opolyx" / "web" / "js")
    assert "main.js" in graph.modules
    assert graph.errors == {}
    assert graph.edges
    # The controller hands the account routes and autopay what they need instead of being imported back.
    assert circles(graph.arrows(("static", "dynamic"))) == []


def test_circles_and_upward_arrows_of_a_small_graph() -> None:
    arrows = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert circles(arrows) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []
    graph = python_graph(SRC)
    ups = upward(graph, [("low", ["opolyx.engine.*"]), ("high", ["opolyx.rules", "opolyx.rules.*"])])
    assert ups and all(low == "low" and high == "high" for _, low, high in ups)
    assert len(LAYERS) > 5


def test_the_report_names_the_largest_files() -> None:
    text = report(ROOT, 3)
    assert "## (c) the 3 largest files" in text and "## (d) the 3 largest files" in text
    assert "DID NOT PARSE" not in text and "UNRESOLVED" not in text
