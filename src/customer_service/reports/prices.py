"""The price table behind the reports' cost estimate (`MODEL_PRICES` in the settings)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["DEFAULT_MODEL_PRICES", "ModelPrice"]


class ModelPrice(BaseModel):
    """What one model costs, in US dollars; each kind of use that does not apply is 0."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_per_1m_tokens: float = Field(default=0.0, ge=0, allow_inf_nan=False)
    output_per_1m_tokens: float = Field(default=0.0, ge=0, allow_inf_nan=False)
    per_1m_characters: float = Field(default=0.0, ge=0, allow_inf_nan=False)
    """Text-to-speech, by characters synthesised."""
    per_minute: float = Field(default=0.0, ge=0, allow_inf_nan=False)
    """Speech-to-text, by minutes of audio heard."""


DEFAULT_MODEL_PRICES: dict[str, ModelPrice] = {
    "openai/gpt-4.1-mini": ModelPrice(input_per_1m_tokens=0.40, output_per_1m_tokens=1.60),
    "openai/gpt-4.1": ModelPrice(input_per_1m_tokens=2.00, output_per_1m_tokens=8.00),
    "deepgram/nova-3": ModelPrice(per_minute=0.0077),
    "cartesia/sonic-3": ModelPrice(per_1m_characters=50.0),
}
"""List prices of the default models and of the τ²-bench user's (pay as you go, late
2025): an estimate, which a team replaces with its own rates in MODEL_PRICES."""
