"""``python -m opolyx``: the ``opolyx`` command, for an environment whose scripts directory is not on PATH."""

from opolyx.cli import app

app(prog_name="opolyx")
