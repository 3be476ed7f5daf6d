"""Shared set-up for the engine tests: puts tests/engine on sys.path so scenario_kit.py imports."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
