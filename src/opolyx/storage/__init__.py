"""Durable storage for the server: a :class:`Store` interface and its SQLAlchemy implementation."""

from opolyx.storage.base import (
    CLOSED,
    FINISHED,
    RUNNING,
    UNFINISHED,
    WAITING,
    ActionRecord,
    AlreadySeated,
    NewRoom,
    NotFound,
    RoomRecord,
    SeatRecord,
    SeatTaken,
    SeqConflict,
    Store,
    StoreError,
    UserRecord,
)
from opolyx.storage.sql import SqlStore, make_engine, migrate

__all__ = [
    "CLOSED",
    "FINISHED",
    "RUNNING",
    "UNFINISHED",
    "WAITING",
    "ActionRecord",
    "AlreadySeated",
    "NewRoom",
    "NotFound",
    "RoomRecord",
    "SeatRecord",
    "SeatTaken",
    "SeqConflict",
    "SqlStore",
    "Store",
    "StoreError",
    "UserRecord",
    "make_engine",
    "migrate",
]
