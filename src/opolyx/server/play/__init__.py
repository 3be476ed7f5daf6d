"""Games at the table: one hub per room (the single door through which people, clocks and bots change a
game), the registry that routes sockets and lobby calls to hubs, and the routes that reach them (lobby,
room socket, replays, end screen)."""
