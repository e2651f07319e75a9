"""Speech on this machine, with no key and nothing downloaded: the recogniser
(`local_stt`, pocketsphinx) and the voice (`local_tts`, eSpeak NG), named `local/...`
in STT_MODEL and TTS_MODEL, and what every voice session gets when no provider serves
the call (the offline model).
"""

from __future__ import annotations

import asyncio

from livekit.agents.vad import VAD

from customer_service.pipeline.espeak import ESpeakVoice
from customer_service.pipeline.local_stt import LOCAL_STT_MODEL, LocalSTT
from customer_service.pipeline.local_tts import LOCAL_TTS_MODEL, LocalTTS
from customer_service.pipeline.local_vocabulary import store_vocabulary
from customer_service.pipeline.providers import LOCAL_PROVIDER, PipelineError, is_local
from customer_service.settings import Settings
from customer_service.store import Store

__all__ = [
    "LOCAL_PROVIDER",
    "LOCAL_STT",
    "LOCAL_TTS",
    "is_local",
    "listen_for_the_store",
    "local_stt",
    "local_tts",
]

LOCAL_STT = f"{LOCAL_PROVIDER}/{LOCAL_STT_MODEL}"
LOCAL_TTS = f"{LOCAL_PROVIDER}/{LOCAL_TTS_MODEL}"


def local_stt(settings: Settings, *, vad: VAD | None) -> LocalSTT:
    """The local recogniser; it finds speech with `vad` (Silero, `load_vad`)."""
    if vad is None:
        raise PipelineError("Local speech recognition needs the Silero VAD: pass load_vad().")
    if not settings.language.lower().startswith("en"):
        raise PipelineError(
            f"Local speech recognition ({LOCAL_STT}) hears English only, not "
            f"LANGUAGE={settings.language}: choose another STT_MODEL."
        )
    return LocalSTT(vad=vad, language=settings.language)


def local_tts(settings: Settings) -> LocalTTS:
    """The local voice, as LOCAL_TTS_VOICE and LOCAL_TTS_WORDS_PER_MINUTE say."""
    return LocalTTS(
        voice=ESpeakVoice(settings.local_tts_voice, settings.local_tts_words_per_minute)
    )


async def listen_for_the_store(stt: object, store: Store) -> None:
    """Tells a local recogniser what callers of `store` say (`store_vocabulary`: its
    catalog and its customers). Any other recogniser is left as it is."""
    if isinstance(stt, LocalSTT):
        vocabulary = await store_vocabulary(store)
        await asyncio.to_thread(stt.expect, vocabulary)  # its language model, written out
