"""Every duration and count has a sane range, and a value out of it stops start-up in one
line naming the setting, before anything else runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import annotated_types
import pytest
from pydantic import ValidationError

from customer_service.settings import (
    PROJECT_ROOT,
    IdentityPolicy,
    Settings,
    SettingsInvalid,
    get_settings,
    settings_problem,
)
from customer_service.testing import call_session
from support.agent_process import AGENT, child_environment
from support.conversation import JORDAN, JORDAN_SAYS, check_identity
from support.scripted_llm import Call, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay

NUMERIC = sorted(
    name for name, field in Settings.model_fields.items() if field.annotation in (int, float)
)


def test_the_durations_and_counts_are_the_ones_known_here() -> None:
    # A new numeric setting must come with its bounds; this list makes it noticed.
    assert NUMERIC == [
        "database_max_overflow",
        "database_pool_size",
        "identity_account_max_failures",
        "identity_account_window_h",
        "identity_max_attempts",
        "llm_response_timeout_s",
        "local_tts_words_per_minute",
        "max_delegations_per_call",
        "max_tool_steps",
        "order_lookup_max_attempts",
        "recent_orders_limit",
        "repeated_tool_call_limit",
        "report_retention_days",
        "result_validation_retries",
        "slow_step_notice_s",
        "specialist_max_attempts",
        "specialist_time_limit_s",
        "user_away_timeout_s",
    ]


@pytest.mark.parametrize("name", NUMERIC)
def test_every_duration_and_count_has_an_upper_bound(name: str) -> None:
    [upper] = [
        m.le for m in Settings.model_fields[name].metadata if isinstance(m, annotated_types.Le)
    ]
    assert isinstance(upper, int)
    assert upper <= 720
    assert getattr(Settings.model_validate({name: str(upper)}), name) == upper
    for value in (str(upper + 1), "1e8", "1e300", "inf", "-inf", "nan", "Infinity"):
        with pytest.raises(ValidationError):
            Settings.model_validate({name: value})


@pytest.mark.parametrize(
    ("name", "upper"),
    [
        ("identity_account_window_h", 720),
        ("specialist_time_limit_s", 600),
        ("llm_response_timeout_s", 120),
        ("user_away_timeout_s", 300),
        ("slow_step_notice_s", 60),
    ],
)
def test_the_durations_have_the_documented_maximum(name: str, upper: int) -> None:
    assert getattr(Settings.model_validate({name: str(upper)}), name) == upper
    with pytest.raises(ValidationError):
        Settings.model_validate({name: str(upper + 0.5)})


@pytest.mark.parametrize(
    ("values", "line"),
    [
        (
            {"identity_account_window_h": "1e8"},
            "IDENTITY_ACCOUNT_WINDOW_H=1e8 is not allowed: it takes a number more than 0 and "
            "at most 720. Change it in the environment or .env.local (see .env.example).",
        ),
        (
            {"llm_response_timeout_s": "inf", "max_tool_steps": "0"},
            "MAX_TOOL_STEPS=0 is not allowed: it takes a whole number at least 1 and at most "
            "10; LLM_RESPONSE_TIMEOUT_S=inf is not allowed: it takes a number more than 0 and "
            "at most 120. Change them in the environment or .env.local (see .env.example).",
        ),
        (
            {"identity_policy": "email"},
            "IDENTITY_POLICY=email: input should be 'name-zip-and-contact' or "
            "'email-or-name-zip'. Change it in the environment or .env.local (see "
            ".env.example).",
        ),
        (
            {"log_level": "loud"},
            "LOG_LEVEL=loud: unknown log level 'LOUD'. Change it in the environment or "
            ".env.local (see .env.example).",
        ),
    ],
)
def test_the_problem_is_one_line_naming_each_setting(values: dict[str, str], line: str) -> None:
    with pytest.raises(ValidationError) as raised:
        Settings.model_validate(values)
    assert settings_problem(raised.value) == line


def test_the_identity_policy_is_chosen_by_name_in_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert Settings().identity_policy is IdentityPolicy.NAME_ZIP_AND_CONTACT
    monkeypatch.setenv("IDENTITY_POLICY", "email-or-name-zip")
    assert Settings().identity_policy is IdentityPolicy.EMAIL_OR_NAME_ZIP


def test_get_settings_raises_one_line_without_the_values_of_secrets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SPECIALIST_TIME_LIMIT_S", "1e300")
    monkeypatch.setenv("DATABASE_URL", "postgresql+asyncpg://agent:s3cret@db/store")
    monkeypatch.setenv("DATABASE_POOL_SIZE", "-1")
    get_settings.cache_clear()
    try:
        with pytest.raises(SettingsInvalid) as raised:
            get_settings()
    finally:
        get_settings.cache_clear()
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith("DATABASE_POOL_SIZE=-1 is not allowed")
    assert "SPECIALIST_TIME_LIMIT_S=1e300 is not allowed" in message
    assert "s3cret" not in message
    assert raised.value.__cause__ is None
    assert raised.value.__suppress_context__


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("IDENTITY_ACCOUNT_WINDOW_H", "1e8"),
        ("IDENTITY_ACCOUNT_WINDOW_H", "inf"),
        ("LLM_RESPONSE_TIMEOUT_S", "inf"),
        ("SPECIALIST_TIME_LIMIT_S", "1e300"),
    ],
)
def test_the_agent_stops_at_start_up_in_one_line(tmp_path: Path, variable: str, value: str) -> None:
    workdir = tmp_path / "elsewhere"
    workdir.mkdir()
    for command in ("chat", "start"):
        result = subprocess.run(
            [sys.executable, str(AGENT), command],
            cwd=workdir,
            env={**child_environment(tmp_path), variable: value},
            input="",
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        assert result.returncode == 2
        assert result.stdout == ""
        assert result.stderr.count("\n") == 1, result.stderr
        assert result.stderr.startswith(f"{variable}={value} is not allowed: it takes a number")


async def test_the_longest_window_still_verifies_a_caller(settings: Settings) -> None:
    # 1e8 hours passed the settings once and then made every identity check fail.
    longest = settings.model_copy(update={"identity_account_window_h": 720.0})
    model = ScriptedLLM([Call("verify_identity"), check_identity(JORDAN), relay])
    async with call_session(model, settings=longest) as session:
        await session.run(user_input="Verify me, please")
        await session.run(user_input=JORDAN_SAYS)
        customer = session.userdata.verified_customer
        assert customer is not None
        assert customer.customer_id == "C-1001"
    assert not model.overran


@pytest.mark.parametrize("name", NUMERIC)
def test_env_example_shows_each_maximum(name: str) -> None:
    lines = (PROJECT_ROOT / ".env.example").read_text().splitlines()
    at = lines.index(next(line for line in lines if line.startswith(f"{name.upper()}=")))
    comment = []
    for line in reversed(lines[:at]):
        if not line.startswith("#"):
            break
        comment.insert(0, line.lstrip("# "))
    [upper] = [
        m.le for m in Settings.model_fields[name].metadata if isinstance(m, annotated_types.Le)
    ]
    text = " ".join(comment)
    assert f"at most {upper}" in text or f"-{upper})" in text, text
