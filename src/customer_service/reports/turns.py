"""Per turn, how long each step took; per model, what the call used and what it cost.

The timings are the framework's own (`ChatMessage.metrics`): end of utterance and
transcription on the caller's message, time to first token, to first audio byte and from
the caller's last word to the agent's first audio on the agent's reply. Tools are timed
from their call to their output in the history. A step the pipeline does not measure (a
text call has no audio) is None.
"""

from __future__ import annotations

from typing import Any

from livekit.agents.metrics import (
    LLMModelUsage,
    ModelUsage,
    STTModelUsage,
    TTSModelUsage,
)

from customer_service.reports.prices import ModelPrice

STEPS = (
    "end_of_utterance_delay_s",
    "transcription_delay_s",
    "llm_ttft_s",
    "tts_ttfb_s",
    "caller_to_agent_audio_s",
    "tool_s",
    "specialist_s",
)
"""The steps a report times, as the summary names them."""

_CALLER_METRICS = {
    "end_of_utterance_delay_s": "end_of_turn_delay",
    "transcription_delay_s": "transcription_delay",
}
_AGENT_METRICS = {
    "llm_ttft_s": "llm_node_ttft",
    "tts_ttfb_s": "tts_node_ttfb",
    "caller_to_agent_audio_s": "e2e_latency",
}


def turns(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per caller turn (turn 0 is what the agent said before the caller spoke),
    from the history as `ChatContext.to_dict` gives it."""
    found: list[dict[str, Any]] = [_new_turn(0, None)]
    calls: dict[str, dict[str, Any]] = {}
    for item in history:
        kind, role = item.get("type"), item.get("role")
        metrics = item.get("metrics") or {}
        if kind == "message" and role == "user":
            turn = _new_turn(len(found), item.get("created_at"))
            for step, name in _CALLER_METRICS.items():
                turn[step] = _seconds(metrics.get(name))
            found.append(turn)
        elif kind == "message" and role == "assistant":
            turn = found[-1]
            for step, name in _AGENT_METRICS.items():
                if turn[step] is None:  # the reply's first message is the one heard first
                    turn[step] = _seconds(metrics.get(name))
        elif kind == "function_call":
            calls[str(item.get("call_id"))] = item
        elif kind == "function_call_output" and (call := calls.get(str(item.get("call_id")))):
            found[-1]["tools"].append(
                {
                    "name": call.get("name"),
                    "duration_s": _elapsed(call.get("created_at"), item.get("created_at")),
                    "is_error": bool(item.get("is_error")),
                }
            )
    return [turn for turn in found if turn["turn"] or _measured(turn)]


def _new_turn(number: int, started_at: object) -> dict[str, Any]:
    return {
        "turn": number,
        "started_at": started_at,
        **dict.fromkeys(_CALLER_METRICS),
        **dict.fromkeys(_AGENT_METRICS),
        "tools": [],
    }


def _measured(turn: dict[str, Any]) -> bool:
    return bool(turn["tools"]) or any(turn[step] is not None for step in _AGENT_METRICS)


def _seconds(value: object) -> float | None:
    if isinstance(value, int | float) and value >= 0:
        return round(float(value), 4)
    return None


def _elapsed(start: object, end: object) -> float | None:
    if isinstance(start, int | float) and isinstance(end, int | float):
        return _seconds(end - start)
    return None


# Usage and cost


def usage_entries(
    model_usage: list[ModelUsage] | None, prices: dict[str, ModelPrice]
) -> list[dict[str, Any]]:
    """Each model's totals for the call, with its estimated cost in US dollars (None when
    the price table has no entry for it)."""
    entries = []
    for usage in model_usage or []:
        price = price_of(usage.provider, usage.model, prices)
        entry: dict[str, Any] = {
            "kind": usage.type.removesuffix("_usage"),
            "provider": usage.provider,
            "model": usage.model,
            **_amounts(usage),
        }
        entry["cost_usd"] = None if price is None else round(cost(entry, price), 6)
        entries.append(entry)
    return entries


def _amounts(usage: ModelUsage) -> dict[str, float]:
    if isinstance(usage, LLMModelUsage):
        return {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens}
    if isinstance(usage, TTSModelUsage):
        return {"characters": usage.characters_count, "audio_s": round(usage.audio_duration, 3)}
    if isinstance(usage, STTModelUsage):
        return {"audio_s": round(usage.audio_duration, 3)}
    return {}


def price_of(provider: str, model: str, prices: dict[str, ModelPrice]) -> ModelPrice | None:
    """The price for a model as the framework names it: `model`, `provider/model`, or
    the part after the provider in `model` (LiveKit Inference says "openai/gpt-4.1-mini",
    a plugin "gpt-4.1-mini")."""
    for key in (model, f"{provider}/{model}"):
        if key in prices:
            return prices[key]
    bare = model.rsplit("/", 1)[-1]
    return next((price for key, price in prices.items() if key.rsplit("/", 1)[-1] == bare), None)


def cost(entry: dict[str, Any], price: ModelPrice) -> float:
    """US dollars for one model's amounts (`_amounts`) at `price`."""
    if entry["kind"] == "llm":
        return (
            float(
                entry["input_tokens"] * price.input_per_1m_tokens
                + entry["output_tokens"] * price.output_per_1m_tokens
            )
            / 1e6
        )
    if entry["kind"] == "tts":
        return float(entry["characters"] * price.per_1m_characters / 1e6)
    if entry["kind"] == "stt":
        return float(entry["audio_s"] / 60 * price.per_minute)
    return 0.0
