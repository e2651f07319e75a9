"""What `python src/agent.py console` needs before the framework's console starts.

Left to the framework, console with no speech models greets with "trying to generate
speech from text without a TTS model" and the worker exits with status 0 after a call of
0 s; without the PortAudio library it prints a 55-line traceback. Each stops here in one
line saying what to do. The framework's text mode (`console --text`) opens the audio
devices too, so it needs PortAudio as well; `chat` is the text conversation that needs
neither.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from types import ModuleType

from customer_service.settings import ModelProvider, Settings

NO_SPEECH_MODELS = (
    "console speaks and listens through speech models, and none are configured: set "
    "LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET (LiveKit Inference) or "
    "DEEPGRAM_API_KEY, OPENAI_API_KEY and CARTESIA_API_KEY (see .env.example), or use "
    "`python src/agent.py chat` to talk to the agent offline in text."
)

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
    listing_devices = "--list-devices" in argv
    if not listing_devices and settings.resolved_model_provider is ModelProvider.OFFLINE:
        return NO_SPEECH_MODELS
    try:
        import_module("sounddevice")
    except OSError:  # sounddevice's "PortAudio library not found"
        return NO_PORTAUDIO
    return None
