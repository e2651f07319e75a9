"""Noise cancellation by participant kind, only on LiveKit Cloud.

The filters are built for real (they construct offline); the participant and track the
framework hands its selector are stood in for.
"""

from __future__ import annotations

import logging
from types import SimpleNamespace
from typing import Any

import pytest
from livekit import rtc
from livekit.agents.voice.room_io.types import NoiseCancellationParams
from livekit.plugins import noise_cancellation

from customer_service.settings import NoiseCancellation, Settings
from customer_service.telephony.noise import (
    ByParticipantKind,
    caller_audio_input,
    noise_cancellation_for_call,
    on_livekit_cloud,
)

CLOUD = "wss://support-agent-a1b2c3.livekit.cloud"
SELF_HOSTED = "wss://livekit.example.com"
TELEPHONY_MODEL = noise_cancellation.BVCTelephony().options["modelPath"]
STANDARD_MODEL = noise_cancellation.BVC().options["modelPath"]


def settings_for(url: str, choice: NoiseCancellation | None = None) -> Settings:
    values: dict[str, Any] = {"livekit_url": url}
    if choice is not None:
        values["noise_cancellation"] = choice
    return Settings.model_validate(values)


def joined(kind: rtc.ParticipantKind.ValueType) -> NoiseCancellationParams:
    """What the framework passes its selector when a caller's audio track arrives."""
    caller: rtc.Participant = SimpleNamespace(kind=kind, identity="caller")  # type: ignore[assignment]
    track: rtc.Track = SimpleNamespace(sid="TR_caller")  # type: ignore[assignment]
    return NoiseCancellationParams(participant=caller, track=track)


SIP = joined(rtc.ParticipantKind.PARTICIPANT_KIND_SIP)
BROWSER = joined(rtc.ParticipantKind.PARTICIPANT_KIND_STANDARD)


def model_of(options: object) -> str:
    assert isinstance(options, rtc.NoiseCancellationOptions)
    path = options.options["modelPath"]
    assert isinstance(path, str)
    return path


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (CLOUD, True),
        ("https://project.livekit.cloud/", True),
        ("project.LIVEKIT.cloud", True),
        (SELF_HOSTED, False),
        ("wss://livekit.cloud.example.com", False),
        ("ws://localhost:7880", False),
        ("", False),
    ],
)
def test_livekit_cloud_is_told_by_the_url_host(url: str, expected: bool) -> None:
    assert on_livekit_cloud(url) is expected


def test_auto_is_the_default() -> None:
    assert Settings().noise_cancellation is NoiseCancellation.AUTO


def test_on_cloud_auto_picks_the_telephony_model_for_sip_and_the_standard_one() -> None:
    selector = noise_cancellation_for_call(settings_for(CLOUD), call_id="call-1")
    assert isinstance(selector, ByParticipantKind)
    assert model_of(selector(SIP)) == TELEPHONY_MODEL
    assert model_of(selector(BROWSER)) == STANDARD_MODEL


def test_the_room_gets_the_selector_without_automatic_gain_control() -> None:
    options = caller_audio_input(settings_for(CLOUD), call_id="call-1")
    assert isinstance(options.noise_cancellation, ByParticipantKind)
    assert options.auto_gain_control is False


@pytest.mark.parametrize(
    ("url", "choice"),
    [
        (SELF_HOSTED, None),
        (SELF_HOSTED, NoiseCancellation.BVC),
        (SELF_HOSTED, NoiseCancellation.BVC_TELEPHONY),
        ("", NoiseCancellation.AUTO),
        (CLOUD, NoiseCancellation.OFF),
    ],
    ids=["self-hosted", "self-hosted bvc", "self-hosted bvc_telephony", "no url", "off"],
)
def test_off_when_not_on_cloud_or_when_the_setting_says_off(
    url: str, choice: NoiseCancellation | None
) -> None:
    settings = settings_for(url, choice)
    assert noise_cancellation_for_call(settings, call_id="call-1") is None
    assert caller_audio_input(settings, call_id="call-1").noise_cancellation is None


@pytest.mark.parametrize(
    ("choice", "model"),
    [(NoiseCancellation.BVC, STANDARD_MODEL), (NoiseCancellation.BVC_TELEPHONY, TELEPHONY_MODEL)],
)
def test_a_fixed_model_on_cloud_is_used_for_every_caller(
    choice: NoiseCancellation, model: str
) -> None:
    assert model_of(noise_cancellation_for_call(settings_for(CLOUD, choice), call_id="c")) == model


def test_the_choice_is_logged_once_per_call_without_the_caller(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.INFO, logger="customer_service.telephony"):
        selector = noise_cancellation_for_call(settings_for(CLOUD), call_id="call-7")
        assert callable(selector)
        selector(SIP)
        selector(SIP)  # the framework asks again when the track is re-subscribed
    (record,) = [r for r in caplog.records if r.getMessage() == "noise cancellation"]
    assert record.call_id == "call-7"  # type: ignore[attr-defined]
    assert record.noise_cancellation == "bvc_telephony"  # type: ignore[attr-defined]
    # Nothing about who called: not their identity, not their track.
    assert {"caller", "TR_caller"}.isdisjoint(str(value) for value in vars(record).values())


def test_a_fixed_choice_is_logged_at_the_start_of_the_call(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.INFO, logger="customer_service.telephony"):
        noise_cancellation_for_call(settings_for(SELF_HOSTED), call_id="call-8")
    (record,) = [r for r in caplog.records if r.getMessage() == "noise cancellation"]
    assert record.noise_cancellation == "off"  # type: ignore[attr-defined]
    assert record.reason == "not on LiveKit Cloud"  # type: ignore[attr-defined]
