from opolyx.cli import app

app()
