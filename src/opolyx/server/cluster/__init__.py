"""Several server processes serving the same rooms: room leases and messages between processes over
Redis (``node``), and room sockets handed to their room's owner on the same machine (``handoff``)."""
