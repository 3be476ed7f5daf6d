"""The HTTP edge of the server: the app and its wiring (``app``), the dependencies every router takes
(``deps``), the outer wall (``guard``), rate limits, metrics, and how uvicorn serves it all."""
