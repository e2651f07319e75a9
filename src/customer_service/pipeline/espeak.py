"""The eSpeak NG library, as `espeakng_loader` ships it, through ctypes: text in, 16-bit
mono samples out, with no system package and nothing downloaded.

The library keeps one engine per process, with one current voice, and is not
thread-safe: every synthesis holds `ESpeak`'s lock from choosing the voice to the last
sample, and runs in a worker thread so that the event loop goes on meanwhile.
"""

from __future__ import annotations

import ctypes
import threading
from dataclasses import dataclass
from functools import cache

import espeakng_loader

__all__ = ["ESpeak", "ESpeakError", "ESpeakVoice", "espeak"]

_AUDIO_OUTPUT_SYNCHRONOUS = 2
_CHARS_UTF8 = 1
_POS_CHARACTER = 1
_RATE = 1
_PITCH = 3
_EE_OK = 0

# int callback(short *wav, int numsamples, espeak_EVENT *events): 0 goes on, 1 stops.
_SynthCallback = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.c_void_p
)


class ESpeakError(RuntimeError):
    """The library could not be loaded, or refused a voice or a text."""


@dataclass(frozen=True, slots=True)
class ESpeakVoice:
    """How eSpeak NG says a text: its voice (a language, `+` a variant: `en-us`,
    `en-us+f3`), words per minute and base pitch (0-100, 50 is the voice's own)."""

    name: str = "en-us"
    words_per_minute: int = 150
    pitch: int = 50


class ESpeak:
    """The process's eSpeak NG engine (`espeak()`), synthesising one text at a time."""

    def __init__(self, library_path: str, data_path: str) -> None:
        try:
            self._lib = ctypes.CDLL(library_path)
        except OSError as error:
            raise ESpeakError(f"the eSpeak NG library did not load: {error}") from None
        self._lib.espeak_Initialize.argtypes = [
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_char_p,
            ctypes.c_int,
        ]
        self._lib.espeak_SetVoiceByName.argtypes = [ctypes.c_char_p]
        self._lib.espeak_SetParameter.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
        self._lib.espeak_SetSynthCallback.argtypes = [_SynthCallback]
        self._lib.espeak_ng_SetRandSeed.argtypes = [ctypes.c_long]
        self._lib.espeak_Synth.argtypes = [
            ctypes.c_void_p,
            ctypes.c_size_t,
            ctypes.c_uint,
            ctypes.c_int,
            ctypes.c_uint,
            ctypes.c_uint,
            ctypes.c_void_p,
            ctypes.c_void_p,
        ]
        rate = self._lib.espeak_Initialize(_AUDIO_OUTPUT_SYNCHRONOUS, 0, data_path.encode(), 0)
        if rate <= 0:
            raise ESpeakError(f"eSpeak NG did not start with its data at {data_path}")
        self.sample_rate: int = rate
        """Samples per second of what it says (22,050 Hz)."""
        self._lock = threading.Lock()
        self._chunks: list[bytes] = []
        # Kept on the instance: the library calls it for as long as the process lives.
        self._callback = _SynthCallback(self._receive)
        self._lib.espeak_SetSynthCallback(self._callback)

    def synthesize(self, text: str, voice: ESpeakVoice) -> bytes:
        """`text` said by `voice`, as 16-bit little-endian mono samples at
        `sample_rate`. Blocks: call it from a worker thread."""
        encoded = text.encode("utf-8") + b"\0"
        with self._lock:
            if self._lib.espeak_SetVoiceByName(voice.name.encode()) != _EE_OK:
                raise ESpeakError(f"eSpeak NG has no voice {voice.name!r}")
            self._lib.espeak_SetParameter(_RATE, voice.words_per_minute, 0)
            self._lib.espeak_SetParameter(_PITCH, voice.pitch, 0)
            self._chunks = []
            status = self._lib.espeak_Synth(
                encoded, len(encoded), 0, _POS_CHARACTER, 0, _CHARS_UTF8, None, None
            )
            if status != _EE_OK:
                raise ESpeakError(f"eSpeak NG refused the text (status {status})")
            self._lib.espeak_Synchronize()
            samples, self._chunks = b"".join(self._chunks), []
        return samples

    def seed(self, value: int) -> None:
        """Seeds the random generator its voices breathe with. A new engine seeded alike
        says a text alike; one that has spoken before does not (its pitch flutter goes
        on from where the last text left it)."""
        with self._lock:
            self._lib.espeak_ng_SetRandSeed(value)

    def _receive(self, wav: ctypes._Pointer[ctypes.c_short], count: int, _events: int) -> int:
        if count > 0 and wav:
            self._chunks.append(ctypes.string_at(wav, count * 2))
        return 0


@cache
def espeak() -> ESpeak:
    """The process's engine, started on first use from the library and data that
    `espeakng_loader` ships."""
    return ESpeak(espeakng_loader.get_library_path(), espeakng_loader.get_data_path())


if __name__ == "__main__":
    # Run as a file (no package imported): the text on standard input said by a new
    # engine seeded with the given value, as raw samples on standard output. A voice
    # said this way is the same every time: what a test's caller needs.
    import sys

    name, words_per_minute, pitch, seed = sys.argv[1:5]
    engine = espeak()
    engine.seed(int(seed))
    said = engine.synthesize(sys.stdin.read(), ESpeakVoice(name, int(words_per_minute), int(pitch)))
    sys.stdout.buffer.write(said)
