"""`python src/agent.py chat` at a real terminal: a pseudo-terminal whose keys (Ctrl-C,
Ctrl-D) the terminal's line discipline turns into signals and end-of-input, as a
person's keyboard does."""

from __future__ import annotations

import os
import pty
import select
import signal
import sys
import termios
import time
from pathlib import Path

from support.agent_process import AGENT, child_environment

PATIENCE_S = 180.0
"""How long to wait for the agent before giving up on it: a bound on a hung test, not
a limit the agent is held to."""


class AgentAtTerminal:
    """The chat command running with a pseudo-terminal as its controlling terminal."""

    def __init__(self, tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> None:
        """`env` is added to a fresh machine's environment."""
        workdir = tmp_path / "elsewhere"
        workdir.mkdir(exist_ok=True)
        env = child_environment(tmp_path) | (env or {})
        env["TERM"] = "dumb"
        pid, self._fd = pty.fork()
        if pid == 0:  # the child: the pseudo-terminal is its terminal
            os.chdir(workdir)
            # The screen is to show all the agent wrote. By default the line discipline
            # discards what the master has not read yet at each interrupt key, the
            # earlier keys' echoes and the agent's own output alike, depending on how
            # the kernel's work is scheduled (CI once saw a second Ctrl-C swallow the
            # newline the chat wrote for the first). NOFLSH keeps it.
            attributes = termios.tcgetattr(0)
            attributes[3] |= termios.NOFLSH
            termios.tcsetattr(0, termios.TCSANOW, attributes)
            os.execve(sys.executable, [sys.executable, str(AGENT), *args], env)
        self.pid = pid
        self.screen = ""
        self._looked_at = 0  # where the next `wait_for` starts looking
        self.status: int | None = None

    def wait_for(self, text: str) -> None:
        """Reads the terminal until `text` shows after what the last wait found."""
        deadline = time.monotonic() + PATIENCE_S
        while (found := self.screen.find(text, self._looked_at)) < 0:
            assert self._read(deadline), f"the agent ended before {text!r}: {self.screen!r}"
        self._looked_at = found + len(text)

    def press(self, key: bytes) -> None:
        os.write(self._fd, key)

    def wait_for_exit(self) -> int:
        """Reads the terminal until the agent exits; its exit status."""
        deadline = time.monotonic() + PATIENCE_S
        while self._read(deadline):
            pass
        _, status = os.waitpid(self.pid, 0)
        self.status = os.waitstatus_to_exitcode(status)
        os.close(self._fd)
        return self.status

    def _read(self, deadline: float) -> bool:
        """One read of the terminal; False at its end (the agent has exited)."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            os.kill(self.pid, signal.SIGKILL)
            raise AssertionError(f"the agent is still running: {self.screen!r}")
        ready, _, _ = select.select([self._fd], [], [], remaining)
        if not ready:
            return True
        try:
            chunk = os.read(self._fd, 4096)
        except OSError:  # EIO: every process holding the terminal has exited
            return False
        self.screen += chunk.decode(errors="replace")
        return bool(chunk)
