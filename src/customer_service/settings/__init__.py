"""Every knob of the agent, typed and read once from the environment.

Configuration comes from the process environment, then `.env.local`, then `.env`
(the first one that sets a name wins). Both files are looked for in the current
working directory and in the project root, so `python src/agent.py ...` behaves
the same from any directory. The files are loaded into the process environment
because the LiveKit framework and its plugins read their own keys from there.
"""

from __future__ import annotations

import json
import logging
import os
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

import annotated_types
from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from customer_service.reports.prices import DEFAULT_MODEL_PRICES, ModelPrice
from customer_service.settings.choices import IdentityPolicy as IdentityPolicy
from customer_service.settings.choices import ModelProvider as ModelProvider
from customer_service.settings.choices import NoiseCancellation as NoiseCancellation
from customer_service.settings.choices import RecordingConsent as RecordingConsent
from customer_service.settings.choices import TurnDetection as TurnDetection
from customer_service.settings.env_files import ENV_FILE_NAMES as ENV_FILE_NAMES
from customer_service.settings.env_files import (
    IGNORE_ENV_FILES_VARIABLE as IGNORE_ENV_FILES_VARIABLE,
)
from customer_service.settings.env_files import PROJECT_ROOT as PROJECT_ROOT
from customer_service.settings.env_files import env_files as env_files
from customer_service.settings.env_files import load_env_files as load_env_files


def default_database_url() -> str:
    data_home = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return f"sqlite+aiosqlite:///{data_home / 'customer-service-agent' / 'store.sqlite3'}"


_BOOLEAN_WORDS = frozenset(
    {"true", "false", "1", "0", "yes", "no", "on", "off", "t", "f", "y", "n"}
)
"""The words pydantic reads as a boolean."""


class Settings(BaseSettings):
    """The agent's configuration. Field names map to upper-case environment variables."""

    model_config = SettingsConfigDict(extra="ignore", frozen=True)

    # LiveKit server and agent registration
    livekit_url: str = ""
    livekit_api_key: SecretStr = SecretStr("")
    livekit_api_secret: SecretStr = SecretStr("")
    agent_name: str = ""
    """Empty: dispatched to every new room. Set it to require explicit dispatch (SIP rules)."""

    # Models
    model_provider: ModelProvider = ModelProvider.AUTO
    stt_model: str = "deepgram/nova-3"
    """provider/model; `local/pocketsphinx` hears on this machine, with no key. With no
    provider at all (the offline model), speech is local whatever this says."""
    llm_model: str = "openai/gpt-4.1-mini"
    llm_fallback_models: Annotated[tuple[str, ...], NoDecode] = ()
    """LiveKit Inference models (provider/model) tried in this order when LLM_MODEL fails;
    written comma-separated. They need LiveKit credentials and URL (see `pipeline`)."""
    tts_model: str = "cartesia/sonic-3"
    """provider/model; `local/espeak-ng` speaks on this machine, with no key."""
    tts_voice: str = "9626c31c-bec5-4cca-baa8-f8ba9e84c8bc"
    """Cartesia voice id; the default is "Jacqueline", a calm American English voice."""
    language: str = "en"
    deepgram_api_key: SecretStr = SecretStr("")
    openai_api_key: SecretStr = SecretStr("")
    openai_base_url: str = ""
    """An OpenAI-compatible endpoint (for example a local model server's
    `http://localhost:8000/v1`) serving LLM_MODEL with MODEL_PROVIDER=plugins, and the
    evals' judge; empty: OpenAI itself."""
    cartesia_api_key: SecretStr = SecretStr("")
    local_tts_voice: str = Field(default="en-us", min_length=1)
    """The eSpeak NG voice of local speech (`local/espeak-ng`): a language, then `+` and
    a variant for another voice (`en-us+f3`)."""
    local_tts_words_per_minute: int = Field(default=150, ge=80, le=450)
    """How fast local speech talks."""
    speech_cache_dir: Path | None = None
    """Where the audio of the sentences the agent says word for word is kept, shared by
    the machine's job processes; unset keeps it in each process's memory only."""
    turn_detection: TurnDetection = TurnDetection.LIVEKIT
    noise_cancellation: NoiseCancellation = NoiseCancellation.AUTO

    # Evals (`pytest -m evals`) and the τ²-bench runner (`make tau2`)
    eval_judge_model: str = ""
    """provider/model that judges the evals; never LLM_MODEL, the model under test.
    Empty: the evals are skipped."""
    tau2_user_model: str = ""
    """provider/model that plays τ²-bench's user in `python -m benchmarks.tau2 run`
    (`--user-model` over it); never LLM_MODEL, the agent under test."""

    # Store
    database_url: str = Field(default_factory=default_database_url)
    seed_demo_data: bool | Literal["force"] | None = None
    """Add the demo customers and orders the store lacks whenever the agent opens it; never
    next to other customers, unless "force". Unset: only for the embedded default store
    (DATABASE_URL unset)."""
    auto_migrate: bool | None = None
    """Bring the database to the latest schema whenever the agent opens it. Unset: only
    for the embedded default store; elsewhere `python src/agent.py migrate` does it, and
    the agent refuses a database that is behind."""
    database_pool_size: int = Field(default=5, ge=1, le=100)
    """Connections each worker process keeps open to a database server (not SQLite)."""
    database_max_overflow: int = Field(default=10, ge=0, le=100)
    """Connections a worker process may open beyond the pool when calls need them."""

    # Policy
    identity_policy: IdentityPolicy = IdentityPolicy.NAME_ZIP_AND_CONTACT
    """What verifies a caller: `name-zip-and-contact`, the full name, postal code and
    phone or email on the account together; or `email-or-name-zip` (τ²-bench's rule), the
    email address alone, or the full name and postal code. The second is weaker: one
    detail that others may know verifies the caller, so choose it only for a benchmark
    or a deployment that accepts that. The attempt limit, the near misses and the hold
    below apply under either."""
    identity_max_attempts: int = Field(default=3, ge=1, le=10)
    identity_account_max_failures: int = Field(default=5, ge=1, le=100)
    """Near misses at an account (failed identity checks with two of its three details
    right, its phone or email among them), over all calls within
    `identity_account_window_h`, that hold it: it cannot be verified by phone, except from
    the number on file, until they age out or an operator releases it. Near misses of the
    name and postal code alone hold it at a multiple of this
    (`customer_service.call.identity_hold`)."""
    identity_account_window_h: float = Field(default=24.0, gt=0, le=720, allow_inf_nan=False)
    """Hours a near miss counts against the account it came close to (at most 30 days)."""
    caller_line_secret: SecretStr = SecretStr("")
    """The key a calling number is hashed with before its failed checks are stored
    (`store.line_failures.line_key`), so the table cannot be read back into numbers by
    trying them; the same on every server of a fleet, or their counts do not add up."""
    order_lookup_max_attempts: int = Field(default=3, ge=1, le=10)
    recent_orders_limit: int = Field(default=5, ge=1, le=20)
    result_validation_retries: int = Field(default=1, ge=0, le=3)

    # Consent and recording
    recording_consent: RecordingConsent = RecordingConsent.NOT_ASKED
    transcript_dir: Path | None = None
    """Where each call's transcript is written when the call may be recorded; unset keeps none."""
    report_dir: Path | None = None
    """Where each call's report (`customer_service.reports`) is written; unset writes none."""
    report_retention_days: int = Field(default=90, ge=1, le=720)
    """Days a call's report row is kept by `report --prune` (run on a schedule)."""
    model_prices: Annotated[dict[str, ModelPrice], NoDecode] = Field(default_factory=dict)
    """Prices by model (as *_MODEL names it), as JSON; each replaces that model's default."""

    # Guardrails: every delegation and tool loop is bounded
    specialist_max_attempts: int = Field(default=3, ge=1, le=10)
    """Times one specialist may be started in a call."""
    max_delegations_per_call: int = Field(default=12, ge=1, le=100)
    specialist_time_limit_s: float = Field(default=180.0, gt=0, le=600, allow_inf_nan=False)
    """Seconds a specialist may run without completing."""
    max_tool_steps: int = Field(default=3, ge=1, le=10)
    """Tool calls an agent may chain within one turn before it must answer."""
    llm_response_timeout_s: float = Field(default=15.0, gt=0, le=120, allow_inf_nan=False)
    """Seconds a model may take to start answering before the caller hears the apology;
    a configured fallback model is tried within it (5 s per model)."""
    user_away_timeout_s: float = Field(default=12.0, gt=0, le=300, allow_inf_nan=False)
    """Seconds of silence after which the caller is asked once more; a second silence as
    long ends the call."""
    slow_step_notice_s: float = Field(default=1.0, gt=0, le=60, allow_inf_nan=False)
    """Seconds a tool may work in silence before the caller hears a short "one moment"."""
    repeated_tool_call_limit: int = Field(default=3, ge=2, le=10)
    """Identical tool calls (same arguments) in a call that stop that path."""

    # Telephony
    transfer_number: str = Field(
        default="", pattern=r"^$|^(\+[1-9]\d{6,14}|tel:\+[1-9]\d{6,14}|sips?:[^@\s]+@\S+)$"
    )
    """Where a colleague answers when a phone (SIP) caller asks for a person: an E.164
    number, a tel: URI or a sip: URI. Empty: the caller is promised a call back instead."""
    sip_outbound_trunk_id: str = ""
    """LiveKit outbound SIP trunk used to dial `transfer_number` first and brief the
    colleague (a warm transfer). Empty: the caller is handed over directly (SIP REFER)."""

    # Logging
    log_level: str = "INFO"
    """Level of the agent's own loggers (`customer_service.*`); the framework's level is
    the command's `--log-level` (LIVEKIT_LOG_LEVEL)."""
    log_transcripts: bool = False
    """For local debugging only: let transcripts, tool arguments and the framework's other
    personal-data log fields (`lk.pii.*`) through to the logs."""

    @field_validator("llm_fallback_models", mode="before")
    @classmethod
    def _split_comma_separated(cls, value: object) -> object:
        # The environment holds one string; NoDecode stops pydantic-settings expecting JSON.
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

    @field_validator("transcript_dir", "report_dir", "speech_cache_dir", mode="before")
    @classmethod
    def _empty_means_unset(cls, value: object) -> object:
        # `TRANSCRIPT_DIR=`, `REPORT_DIR=` or `SPEECH_CACHE_DIR=` from .env.example must not
        # mean this directory.
        return None if value == "" else value

    @field_validator("database_url", mode="before")
    @classmethod
    def _empty_means_default_store(cls, value: object) -> object:
        # `DATABASE_URL=` copied from .env.example means the embedded default store.
        return default_database_url() if isinstance(value, str) and not value.strip() else value

    @field_validator("model_prices", mode="before")
    @classmethod
    def _prices_from_json(cls, value: object) -> object:
        # Empty (as copied from .env.example) is no price of our own; JSON otherwise.
        if isinstance(value, str):
            return json.loads(value) if value.strip() else {}
        return value

    @field_validator("auto_migrate", mode="before")
    @classmethod
    def _empty_means_default(cls, value: object) -> object:
        # `AUTO_MIGRATE=` copied from .env.example means "decide by the store".
        return None if value == "" else value

    @field_validator("seed_demo_data", mode="before")
    @classmethod
    def _seeding_choice(cls, value: object) -> object:
        # Empty (as copied from .env.example) means "decide by the store"; a word that is
        # neither a boolean nor "force" is named as such, not as a failed union.
        if not isinstance(value, str):
            return value
        word = value.strip().lower()
        if word in ("", "force"):
            return word or None
        if word not in _BOOLEAN_WORDS:
            raise ValueError("it takes true, false or force")
        return word

    @field_validator("log_level", mode="before")
    @classmethod
    def _known_log_level(cls, value: object) -> object:
        # `debug` is as good as `DEBUG`; a typo fails here, not when logging starts.
        if isinstance(value, str):
            value = value.strip().upper()
            if not isinstance(logging.getLevelName(value), int):
                raise ValueError(f"unknown log level {value!r}")
        return value

    @property
    def price_table(self) -> dict[str, ModelPrice]:
        """The default models' prices, with MODEL_PRICES over them."""
        return {**DEFAULT_MODEL_PRICES, **self.model_prices}

    @property
    def uses_embedded_store(self) -> bool:
        """Whether the store is the default SQLite file (DATABASE_URL unset, or set to it)."""
        return self.database_url == default_database_url()

    @property
    def seeds_demo_data(self) -> bool:
        """`seed_demo_data`, or when unset, whether the store is the embedded default."""
        if self.seed_demo_data is None:
            return self.uses_embedded_store
        return self.seed_demo_data is not False

    @property
    def forces_demo_data(self) -> bool:
        """SEED_DEMO_DATA=force: the demo data goes in even next to other customers."""
        return self.seed_demo_data == "force"

    @property
    def migrates_on_open(self) -> bool:
        """`auto_migrate`, or when unset, whether the store is the embedded default."""
        return self.uses_embedded_store if self.auto_migrate is None else self.auto_migrate

    @property
    def session_max_tool_steps(self) -> int:
        """`max_tool_steps` in the framework's terms: it runs one step more than its value."""
        return self.max_tool_steps - 1

    @property
    def has_livekit_credentials(self) -> bool:
        return bool(self.livekit_api_key.get_secret_value()) and bool(
            self.livekit_api_secret.get_secret_value()
        )

    @property
    def has_provider_keys(self) -> bool:
        return all(
            key.get_secret_value()
            for key in (self.deepgram_api_key, self.openai_api_key, self.cartesia_api_key)
        )

    @property
    def resolved_model_provider(self) -> ModelProvider:
        """The provider `AUTO` stands for with the credentials at hand."""
        if self.model_provider is not ModelProvider.AUTO:
            return self.model_provider
        if self.has_livekit_credentials and self.livekit_url:
            return ModelProvider.INFERENCE
        if self.has_provider_keys:
            return ModelProvider.PLUGINS
        return ModelProvider.OFFLINE

    def missing_server_settings(self) -> list[str]:
        """Names of the variables `dev` and `start` need that are not set."""
        missing = []
        if not self.livekit_url:
            missing.append("LIVEKIT_URL")
        if not self.livekit_api_key.get_secret_value():
            missing.append("LIVEKIT_API_KEY")
        if not self.livekit_api_secret.get_secret_value():
            missing.append("LIVEKIT_API_SECRET")
        return missing


class SettingsInvalid(ValueError):
    """A setting has a value the agent cannot run with. The message is one line that
    names each such setting and what it takes, for whoever runs the agent."""


def settings_problem(error: ValidationError) -> str:
    """`error` as one line: each setting (as its variable) with its value, unless it is a
    secret or the database URL, and what it takes."""
    problems = []
    named: set[str] = set()
    for item in error.errors():
        name = str(item["loc"][0]) if item["loc"] else ""
        if name in named:
            continue  # one line per setting, whatever the number of checks it failed
        named.add(name)
        field = Settings.model_fields.get(name)
        if field is None:
            problems.append(item["msg"])
            continue
        shown = (
            ""
            if field.annotation is SecretStr or name == "database_url"
            else f"={str(item['input'])[:60]}"
        )
        takes = _allowed_numbers(field.annotation, field.metadata)
        message = item["msg"].removeprefix("Value error, ")
        problems.append(
            f"{name.upper()}{shown} is not allowed: it takes {takes}"
            if takes
            else f"{name.upper()}{shown}: {message[:1].lower()}{message[1:]}"
        )
    them = "it" if len(problems) == 1 else "them"
    return (
        f"{'; '.join(problems)}. Change {them} in the environment or .env.local (see .env.example)."
    )


def _allowed_numbers(annotation: object, metadata: list[object]) -> str | None:
    """What a numeric setting takes, from its bounds: "a number more than 0 and at most
    720"; None for any other setting."""
    if annotation not in (int, float):
        return None
    bounds = []
    for bound in metadata:
        if isinstance(bound, annotated_types.Gt):
            bounds.append(f"more than {bound.gt}")
        elif isinstance(bound, annotated_types.Ge):
            bounds.append(f"at least {bound.ge}")
        elif isinstance(bound, annotated_types.Le):
            bounds.append(f"at most {bound.le}")
    kind = "a whole number" if annotation is int else "a number"
    return " ".join([kind, " and ".join(bounds)]).strip()


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings: env files loaded once, then the environment read once.

    Raises `SettingsInvalid` (one line) when a setting has a value out of its range."""
    load_env_files()
    try:
        return Settings()
    except ValidationError as error:
        # From None: the validation error quotes every value, secrets included.
        raise SettingsInvalid(settings_problem(error)) from None
