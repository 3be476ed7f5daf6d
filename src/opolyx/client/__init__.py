"""``opolyx.client``: the reference client of the public protocol (docs/protocol.md).

    async with Client("http://127.0.0.1:8000") as client:
        await client.start_guest("Ann")          # or Client(url, token="opx_...") with an API key
        room = await client.create_room("blitz", 3)
        await client.add_bot(room.id); await client.add_bot(room.id)
        async with client.socket(room.id) as table:
            await client.start(room.id)
            while not table.over:
                await table.wait_until(lambda: table.my_turn() or table.over, 60)
                if table.my_turn():
                    await table.act(table.legal[0])

The HTTP calls return the server's wire models; the socket keeps the table's state current and
reconnects by itself. Refusals raise :class:`OpolyxError` with the server's stable code.
"""

from opolyx.client.errors import CONNECTION_LOST, TIMED_OUT, OpolyxError
from opolyx.client.lobby import Client
from opolyx.client.room import RoomSocket

__all__ = ["CONNECTION_LOST", "TIMED_OUT", "Client", "OpolyxError", "RoomSocket"]
