"""The report a call leaves in REPORT_DIR, from a whole `make chat` call on the offline
model: every field checked, and no personal detail in the file."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

from livekit.agents.observability import Tagger

from customer_service.chat import converse
from customer_service.offline_llm import OfflineLLM
from customer_service.reports.collect import SessionEvents, report_call
from customer_service.reports.masking import WITHHELD
from customer_service.reports.prices import ModelPrice
from customer_service.settings import RecordingConsent, Settings
from customer_service.specialists.identity import mismatch_message
from customer_service.testing import call_session, sqlite_url
from support.conversation import JORDAN as JORDANS_DETAILS_GIVEN
from support.conversation import check_identity
from support.offline_chat import JORDAN
from support.scripted_llm import Call, Say, ScriptedLLM
from support.scripted_llm import relay_tool_output as relay

JORDANS_DETAILS = ("Jordan", "jordan.lee", "4155550134", "415 555 0134", "Howard", "Market")
"""What must never be in a report of Jordan's calls: name, email, phone, street."""


async def chat_report(tmp_path: Path, *lines: str, **settings: Any) -> tuple[dict[str, Any], str]:
    """The one report a chat call wrote, parsed, and the file's text."""
    directory = tmp_path / "reports"
    await converse(
        OfflineLLM(),
        database_url=sqlite_url(tmp_path / "store.sqlite3"),
        lines=io.StringIO("".join(f"{line}\n" for line in lines)),
        out=io.StringIO(),
        echo_caller=True,
        settings=Settings(report_dir=directory, **settings),
    )
    [path] = directory.glob("*.json")
    text = path.read_text()
    report = json.loads(text)
    assert path.stem == report["call_id"]
    return report, text


def assert_no_personal_data(text: str) -> None:
    for detail in JORDANS_DETAILS:
        assert detail.lower() not in text.lower(), detail
    assert not re.search(r"\bLee\b", text)


async def test_the_report_of_a_resolved_call_field_by_field(tmp_path: Path) -> None:
    prices = {"customer-service/offline-rules": ModelPrice(input_per_1m_tokens=2.0)}
    report, text = await chat_report(
        tmp_path, "Where is my order 100101?", JORDAN, "bye", model_prices=prices
    )
    assert report["report_version"] == 1
    assert report["call_id"].startswith("call-")
    assert report["outcome"] == "resolved"
    assert report["success"] is True
    assert report["tags"] == [
        "outcome:resolved",
        "specialist:verify_identity_task:completed",
        "verified:true",
    ]
    assert report["verified_customer_id"] == "C-1001"
    assert report["identity_failed_checks"] == 0
    assert report["disclosed_order_ids"] == ["100101"]
    assert report["transcript_included"] is True
    # The framework's part.
    assert report["close_reason"] == "CR_USER_INITIATED"
    assert report["user_turns"] == 3
    assert report["errors"] == {"llm": 0, "stt": 0, "tts": 0, "realtime": 0, "interruption": 0}
    assert report["sdk_version"] == "1.8.9"
    assert report["options"]["max_tool_steps"] == 2
    assert report["ended_at"] >= report["started_at"]
    assert report["duration_ms"] >= 0
    assert report["events"][-1]["type"] == "close"
    assert {event["type"] for event in report["events"]} >= {"agent_state_changed", "close"}
    # The specialist that ran, with its typed result masked.
    [identity] = report["specialists"]
    assert identity["specialist"] == "verify_identity_task"
    assert identity["outcome"] == "completed"
    assert identity["duration_ms"] >= 0
    assert identity["result"] == {
        "outcome": "verified",
        "customer_id": "C-1001",
        "full_name": "J. L.",
    }
    # The audit events of the call, as stored.
    assert [event["kind"] for event in report["audit_events"]] == [
        "identity_verified",
        "delegation",
        "order_disclosed",
        "call_ended_by_agent",
    ]
    assert report["audit_events_stored"] is True
    # Per turn: the caller's three turns, with the tools each one ran (the identity
    # check on details said in one line is the code's own step).
    assert [turn["turn"] for turn in report["turns"]] == [1, 2, 3]
    assert [[tool["name"] for tool in turn["tools"]] for turn in report["turns"]] == [
        [],
        ["check_details_said", "lookup_order"],
        ["end_call"],
    ]
    assert all(tool["duration_s"] >= 0 for turn in report["turns"] for tool in turn["tools"])
    assert isinstance(report["turns"][1]["llm_ttft_s"], float)
    # A text call has no audio: those steps are not measured.
    assert all(turn["tts_ttfb_s"] is None for turn in report["turns"])
    assert all(turn["end_of_utterance_delay_s"] is None for turn in report["turns"])
    # Usage per model, priced from MODEL_PRICES.
    assert report["usage"] == [
        {
            "kind": "llm",
            "provider": "customer-service",
            "model": "offline-rules",
            "input_tokens": 0,
            "output_tokens": 0,
            "cost_usd": 0.0,
        }
    ]
    assert report["cost_usd"] == 0.0
    # The words, masked as logs mask them.
    said = [item for item in report["chat_history"] if item["type"] == "message"]
    assert said[0]["content"] == ["Hello, thanks for calling. How can I help you today?"]
    # The postal code too: masked in the words as in the check's arguments.
    assert said[3]["content"] == ["J. L., ***, j***@example.com"]
    assert "going to 500***" in said[4]["content"][0]
    assert_no_personal_data(text)


async def test_an_address_change_by_phone_keeps_no_personal_detail(tmp_path: Path) -> None:
    report, text = await chat_report(
        tmp_path,
        "I need to change the delivery address for order 100102",
        "Jordan Lee, 94107, 415 555 0134",
        "1 Market Street, Suite 5, San Francisco, CA 94105",
        "yes",
        "no",
    )
    assert report["outcome"] == "resolved"
    address = next(
        run for run in report["specialists"] if run["specialist"] == "address_update_task"
    )
    assert address["outcome"] == "completed"
    assert address["result"] == {"order_id": "100102", "address": "1 M***"}
    assert "address_changed" in [event["kind"] for event in report["audit_events"]]
    assert_no_personal_data(text)


async def test_a_caller_who_declined_recording_leaves_no_words(tmp_path: Path) -> None:
    report, text = await chat_report(
        tmp_path,
        "no",
        "Where is my order 100101?",
        JORDAN,
        recording_consent=RecordingConsent.ASK,
    )
    assert report["transcript_included"] is False
    said = [item for item in report["chat_history"] if item["type"] == "message"]
    assert said
    assert all(item["content"] == [WITHHELD] for item in said)
    calls = [item for item in report["chat_history"] if item["type"] == "function_call"]
    assert calls
    assert all(item["arguments"] == WITHHELD for item in calls)
    # What happened is still there: who ran, with what outcome, and the masked results.
    assert report["outcome"] == "resolved"
    assert "94107" not in text
    assert_no_personal_data(text)


async def test_a_room_named_after_the_callers_number_is_masked_in_the_report() -> None:
    # LiveKit's individual dispatch names a phone call's room after the caller's number.
    async with call_session(OfflineLLM()) as session:
        recorded = SessionEvents(session)
        await session.run(user_input="Where is my order 100101?")
        state = session.userdata
        session_report = recorded.session_report(session, call_id=state.call_id)
        session_report.room = "call-_+14155550134_Xk3pQ9aZ"
        report = await report_call(state, session_report, tagger=Tagger())
    assert report.content["room"] == "call-_+1*******0134_Xk3pQ9aZ"
    assert "4155550134" not in json.dumps(report.content, default=str)


CLAIMED = {
    "full_name": "dana whitfield",
    "postal_code": "94107",
    "phone_or_email": "d a n a dot w at example dot com",
}
"""A failed caller's claim: a name not on file, in lower case, and a spelled email."""
READ_BACK = (
    "I have your number as 4 1 5, 5 5 5, 0 1 3 4, and your email as j o r d a n dot l e e "
    "at example dot com. Thanks, dana, I mean jordan lee, sorry."
)
"""What a model may say back in spelled form."""


async def test_a_calls_report_keeps_no_detail_in_any_shape_it_was_said(
    settings: Settings,
) -> None:
    model = ScriptedLLM(
        [
            Call("lookup_order"),
            check_identity(CLAIMED),
            relay,
            check_identity(JORDANS_DETAILS_GIVEN),
            Call("lookup", {"order_id": "100101"}),
            relay,
            Say(READ_BACK),
        ]
    )
    async with call_session(model, settings=settings) as session:
        recorded = SessionEvents(session)
        await session.run(user_input="Where is my order?")
        failed = await session.run(
            user_input="this is dana whitfield, 9 4 1 0 7, d a n a dot w at example dot com"
        )
        failed.expect.contains_function_call_output(output=mismatch_message(2), is_error=True)
        await session.run(
            user_input="sorry, jordan lee, ninety four one oh seven, jordan.lee@example.com"
        )
        await session.run(user_input="It's order 1 0 0, 1 0 1")
        await session.run(user_input="can you read my details back?")
        state = session.userdata
        report = await report_call(state, recorded.session_report(session, call_id=state.call_id))
    assert not model.overran
    text = json.dumps(report.content, ensure_ascii=False, default=str)
    # The details were in the call, said and read back in the shapes the mask must know.
    spoken = json.dumps([item.model_dump() for item in session.history.items], default=str)
    assert "1 Z 9, 9 9 A, A 1 0, 1 2 3, 4 5 6, 7 8 4" in spoken
    assert "whitfield" in spoken
    for detail in (
        "dana",
        "whitfield",
        "d a n a",
        "94107",
        "9 4 1 0 7",
        "ninety four",
        "j o r d a n",
        "4 1 5",
        "1Z999AA10123456784",
        "1 Z 9",
    ):
        assert detail.lower() not in text.lower(), detail
    assert_no_personal_data(text)
    # The order lookup's typed result keeps the tracking number's last four.
    lookup = next(
        r for r in report.content["specialists"] if r["specialist"] == "order_lookup_task"
    )
    assert lookup["result"]["tracking_number"] == "*******6784"
    said = [item for item in report.content["chat_history"] if item["type"] == "message"]
    assert said[-1]["content"] == [
        "I have your number as *******0134, and your email as j***. "
        "Thanks, D., I mean J. L., sorry."
    ]
    # What a colleague needs stays: the order number, as the caller and the agent said it.
    assert ["It's order 1 0 0, 1 0 1"] in [item["content"] for item in said]
    assert any("Order 1 0 0, 1 0 1, placed on" in item["content"][0] for item in said)
