"""Lines from the chat's standard input, read without a thread where the input allows.

`asyncio.to_thread(sys.stdin.readline)` leaves a thread blocked in the read: Ctrl-C then
waits for Enter, because `asyncio.run` joins its executor's threads before it returns. A
terminal or a pipe is read through the event loop instead, so ending the chat never waits
for the person at the keyboard.
"""

from __future__ import annotations

import asyncio
import os
import stat
from typing import TextIO

READ_SIZE = 65536

INTERRUPTED_EXIT_CODE = 130
"""The status shells give a command that Ctrl-C ended (128 + SIGINT)."""


class LineReader:
    """Reads `stream` a line at a time; "" at the end of input, as `readline` does."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._pending = b""
        self._at_end = False
        self._encoding = getattr(stream, "encoding", None) or "utf-8"

    async def readline(self) -> str:
        fd = self._pollable_fd()
        if fd is None:
            # A regular file or an in-memory stream: a read never waits for anyone.
            return await asyncio.to_thread(self._stream.readline)
        while b"\n" not in self._pending and not self._at_end:
            chunk = await _read_when_ready(fd)
            if chunk:
                self._pending += chunk
            else:
                self._at_end = True
        line, newline, self._pending = self._pending.partition(b"\n")
        return (line + newline).decode(self._encoding, errors="replace")

    def _pollable_fd(self) -> int | None:
        try:
            fd = self._stream.fileno()
        except (OSError, ValueError, AttributeError):
            return None
        return fd if os.isatty(fd) or _is_pipe_or_socket(fd) else None


def _is_pipe_or_socket(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


async def _read_when_ready(fd: int) -> bytes:
    """One read of `fd` once it has data or its end ("" then), waiting in the event loop."""
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[None] = loop.create_future()

    def readable() -> None:
        if not ready.done():
            ready.set_result(None)

    loop.add_reader(fd, readable)
    try:
        await ready
    finally:
        loop.remove_reader(fd)
    return os.read(fd, READ_SIZE)
