"""What `python src/agent.py console` needs before the framework's console starts.

With no provider keys the console speaks and listens with local speech and the offline
model (`pipeline.local_speech`), so it needs only a microphone, a speaker and the
PortAudio library that reaches them; left to the framework, a missing PortAudio prints a
55-line traceback, and it stops here in one line saying what to do. The framework's
text mode (`console --text`) opens the audio devices too, so it needs PortAudio as well;
`chat` is the text conversation that needs neither. Nothing else the agent runs needs
PortAudio: `dev` and `start` hear the caller through the LiveKit room.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from types import ModuleType

from customer_service.settings import Settings

NO_PORTAUDIO = (
    "console needs the PortAudio library for the microphone and speaker, and it is not "
    "installed: install it (Debian/Ubuntu: `sudo apt-get install libportaudio2`; macOS: "
    "`brew install portaudio`), or use `python src/agent.py chat` to talk to the agent in "
    "text."
)


def console_problem(
    argv: Sequence[str],
    settings: Settings,
    *,
    import_module: Callable[[str], ModuleType] = importlib.import_module,
) -> str | None:
    """Why the console command `argv` cannot talk to anyone, in one line, or None."""
    try:
        import_module("sounddevice")
    except OSError:  # sounddevice's "PortAudio library not found"
        return NO_PORTAUDIO
    return None
