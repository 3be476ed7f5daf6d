"""One version, pyproject.toml's, reported by the package, the server and the MCP connector."""

from __future__ import annotations

import tomllib
from pathlib import Path

import opolyx

ROOT = Path(__file__).resolve().parents[2]


def test_the_version_is_pyprojects() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert opolyx.__version__ == project["version"]


def test_the_version_is_written_once() -> None:
    version = opolyx.__version__
    written = [
        path.relative_to(ROOT).as_posix()
        for path in sorted((ROOT / "src").rglob("*.py"))
        if f'"{version}"' in path.read_text(encoding="utf-8")
    ]
    assert written == []
